/* grading/cmd/grade_mode_gradescope.c: `grade --gradescope`: the one submission Gradescope
 * gives (a folder, a lone lab file or an archive) graded, results.json written for
 * Gradescope and the text report printed for the instructor. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_app.h"
#include "grading/reports/grade_report_gradescope.h"
#include "grading/reports/grade_report_text.h"
#include "grading/score/grade_host.h"

int grade_mode_gradescope(grade_app *a) {
    /* What the student uploaded: a lone lab file counts (one lab graded), and an archive
     * among the files is opened. */
    grade_submission sub = {
        .name = "submission", .path = (char *)a->opt.submission_dir, .kind = GRADE_SUB_FOLDER, .loose = true};
    char *work = grade_path_join(a->scratch, "s0");
    char err[1024];
    if (grade_mkdir_p(work, 0711, err, sizeof(err)) != 0) {
        free(work);
        return grade_cannot_run("%s", err);
    }
    grade_student s;
    grade_student_grade(&a->env, &sub, work, &s);
    if (!grade_is_dir(a->opt.submission_dir)) {
        free(s.problem);
        s.problem = grade_strf("the submission folder %s does not exist or is not a folder", a->opt.submission_dir);
    }
    char *json = grade_report_gradescope(&s, &a->env.report);
    char *dir = grade_strdup(a->opt.results);
    char *slash = strrchr(dir, '/');
    int rc = GRADE_EXIT_OK;
    if (slash && slash != dir) {
        *slash = '\0';
        if (grade_mkdir_p(dir, 0755, err, sizeof(err)) != 0) rc = grade_cannot_run("--results: %s", err);
    }
    /* The host was too slow for a lab run (grade_host.h): no results.json, so that Gradescope
     * shows the autograder as failed (regrade needed) instead of a score of 0. */
    bool host = rc == GRADE_EXIT_OK && grade_student_host_problem(&s);
    if (host) {
        fprintf(stderr, "grade: %s\ngrade: no results were written: regrade this submission when the host is less busy\n",
                s.problem ? s.problem : "NOT GRADED");
        rc = GRADE_EXIT_CANNOT_RUN;
    }
    if (rc == GRADE_EXIT_OK && grade_write_file(a->opt.results, json, strlen(json), err, sizeof(err)) != 0)
        rc = grade_cannot_run("--results: %s", err);
    /* Gradescope shows the autograder's stdout to instructors. */
    char *report = grade_report_text(&s, &a->env.report);
    printf("%s", report);
    free(report);
    free(json);
    free(dir);
    free(work);
    grade_student_free(&s);
    return rc;
}

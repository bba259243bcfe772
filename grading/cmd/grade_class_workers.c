/* grading/cmd/grade_class_workers.c: a class's students graded in worker processes
 * (grade_pool.h): the job each worker runs for one student (graded, reports written, the
 * result handed back as JSON in the scratch folder), and what the main process does when a
 * worker is done: the result read back, kept in --out with the labs an earlier run graded,
 * or, for a worker that died, a student with every check zero saying so. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_class.h"
#include "grading/out/grade_student_dir.h"

static char *state_path(const grade_app *a, size_t i) { return grade_strf("%s/s%zu.json", a->scratch, i); }
static char *work_path(const grade_app *a, size_t i) { return grade_strf("%s/s%zu", a->scratch, i); }

/* Submission i's reports into its folder of OUT (a->dirs, from grade_student_dir.h: the
 * name is a display string, never a path), written inside OUT and through no link. A
 * refusal is said, naming the path, and in the student's note; the class goes on. */
int grade_class_write_reports(const grade_app *a, size_t i, grade_student *s, const grade_report_context *ctx) {
    char err[1024];
    if (grade_student_write(s, ctx, a->outdir.fd, a->opt.out, a->dirs[i], err, sizeof(err)) == 0) return 0;
    fprintf(stderr, "grade: %s\n", err);
    char *why = grade_strf("grader problem: this student's reports could not be written (%s); the score stands%s%s",
                           err, s->problem ? "; " : "", s->problem ? s->problem : "");
    free(s->problem);
    s->problem = why;
    return -1;
}

int grade_class_job(void *ctx, size_t k) {
    grade_app *a = ctx;
    size_t i = a->order[k];
    grade_student s;
    char *work = work_path(a, i);
    char err[768];
    if (grade_mkdir_p(work, 0711, err, sizeof(err)) != 0) {
        fprintf(stderr, "grade: %s\n", err);
        free(work);
        return 3;
    }
    grade_student_grade(&a->env, &a->subs.items[i], work, &s);
    /* The instructor's adjustments from the earlier gradebook count in the reports too. */
    grade_adjustments_apply(&a->adjust, &s);
    int rc = grade_class_write_reports(a, i, &s, &a->env.report) != 0 ? 4 : 0;
    cJSON *j = grade_student_to_json(&s);
    char *text = cJSON_PrintUnformatted(j);
    char *state = state_path(a, i);
    if (!text || grade_write_file(state, text, strlen(text), err, sizeof(err)) != 0) rc = 5;
    cJSON_free(text);
    cJSON_Delete(j);
    if (!a->opt.keep_scratch) grade_rm_rf(work, err, sizeof(err));
    free(state);
    free(work);
    grade_student_free(&s);
    return rc;
}

/* A student whose worker died: every check zero, saying so. */
static void lost_student(grade_app *a, size_t i, int status, grade_student *s) {
    memset(s, 0, sizeof(*s));
    s->name = grade_strdup(a->subs.items[i].name);
    s->source = grade_strdup(a->subs.items[i].path);
    if (status == -1)
        s->problem = grade_strdup("grader problem: no worker process could be started for this submission");
    else if (WIFSIGNALED(status))
        s->problem = grade_strf("grader problem: grading this submission stopped (the worker was killed by %s); "
                                "grade it again",
                                grade_signal_name(WTERMSIG(status)));
    else
        s->problem = grade_strf("grader problem: grading this submission stopped (worker exit status %d); grade it "
                                "again",
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    s->labs = calloc(a->n_labs ? a->n_labs : 1, sizeof(grade_lab));
    s->n_labs = a->n_labs;
    for (size_t l = 0; l < a->n_labs; l++) {
        const grade_rubric_lab *r = a->rules[l];
        double max[GRADE_CHECKS] = {r->correct_points, r->race_free_points, r->speed.points,
                                    r->measurement_points};
        grade_lab_init(&s->labs[l], a->kits[l].lab, a->kits[l].student_file, max);
        s->labs[l].late_policy = r->late.on;
        for (int c = 0; c < GRADE_CHECKS; c++) grade_check_set(&s->labs[l].checks[c], 0, s->problem);
    }
    grade_student_total(s);
    if (grade_class_write_reports(a, i, s, &a->env.report) != 0) a->report_failed = true;
}

/* Gives s the labs its stored result from an earlier run has and this run did not grade.
 * Returns whether it took any. */
static bool keep_earlier_labs(const grade_app *a, grade_student *s) {
    for (size_t k = 0; k < a->n_stored; k++) {
        if (strcmp(a->stored[k].name, s->name)) continue;
        grade_student earlier;
        if (grade_student_from_json(a->stored[k].student, &earlier) != 0) return false;
        size_t taken = grade_student_keep_labs(s, &earlier);
        grade_student_free(&earlier);
        return taken > 0;
    }
    return false;
}

void grade_class_done(void *ctx, size_t k, int status) {
    grade_app *a = ctx;
    size_t i = a->order[k];
    if (grade_stop) return; /* interrupted: the student is not graded (a worker killed by Ctrl-C) */
    char *state = state_path(a, i);
    char *text = NULL;
    size_t len = 0;
    char err[512];
    bool ok = false;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    /* 4: the student's reports could not be written (the worker said why), but the result
     * is good; 5: not even the result. */
    if (code == 4 || code == 5) a->report_failed = true;
    if ((code == 0 || code == 4) && grade_read_file(state, 64u << 20, &text, &len, NULL, err, sizeof(err)) == 0) {
        cJSON *j = cJSON_ParseWithLength(text, len);
        ok = j && grade_student_from_json(j, &a->students[i]) == 0;
        /* The labs an earlier run graded and this one did not are kept (a course folder
         * graded one lab at a time), in the row and the stored result. */
        if (ok && keep_earlier_labs(a, &a->students[i])) {
            cJSON_Delete(j);
            j = grade_student_to_json(&a->students[i]);
        }
        /* Kept in --out for --regrade and --resume; not when its reports could not be
         * written (code 4), so that --resume grades it again. */
        if (ok && code == 0 &&
            grade_outdir_store(&a->outdir, a->students[i].name, a->keys[i], j, err, sizeof(err)) != 0) {
            fprintf(stderr, "grade: %s\n", err);
            a->report_failed = true;
        }
        cJSON_Delete(j);
        free(text);
    }
    if (!ok) {
        if (a->students[i].name) grade_student_free(&a->students[i]);
        lost_student(a, i, status, &a->students[i]);
    }
    a->graded[i] = true;
    unlink(state);
    free(state);
    grade_progress_step(&a->progress, &a->students[i]);
}

/* grading/cmd/grade_mode_rescore.c: `grade --rescore`: a class's stored results in --out scored
 * again by the rubric (a changed rubric, this run's late times), with no lab run; called
 * by grade_mode_class.c in place of grading the students. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"
#include "grading/cmd/grade_class.h"
#include "grading/score/grade_late.h"
#include "grading/score/grade_score.h"

/* --rescore: each student's stored result scored by the rubric again, with this run's late
 * times; no lab runs. Returns NULL, or what INCOMPLETE.txt says when students had no stored
 * result. */
char *grade_rescore_class(grade_app *a) {
    char err[512];
    grade_buf names;
    grade_buf_init(&names);
    size_t missing = 0;
    a->why_not = calloc(a->subs.n ? a->subs.n : 1, sizeof(char *));
    for (size_t j = 0; j < a->n_order && !grade_stop; j++) {
        size_t i = a->order[j];
        const grade_submission *sub = &a->subs.items[i];
        const grade_stored *found = NULL;
        for (size_t k = 0; k < a->n_stored && !found; k++)
            if (!strcmp(a->stored[k].name, sub->name)) found = &a->stored[k];
        grade_student *st = &a->students[i];
        if (!found || grade_student_from_json(found->student, st) != 0 || st->not_graded) {
            if (found) grade_student_free(st);
            memset(st, 0, sizeof(*st));
            a->why_not[i] = grade_strf("NOT GRADED: --rescore found no result of this student in %s to score again: "
                                       "grade them with --resume",
                                       a->opt.out);
            grade_buf_printf(&names, "%s%s", missing++ ? ", " : "", sub->name);
            continue;
        }
        for (size_t l = 0; l < st->n_labs; l++) {
            grade_lab *lab = &st->labs[l];
            const grade_rubric_lab *rule = grade_rubric_find(&a->rubric, lab->lab);
            if (!rule) continue; /* a lab the rubric no longer has keeps its points */
            double max[GRADE_CHECKS] = {rule->correct_points, rule->race_free_points, rule->speed.points,
                                        rule->measurement_points};
            for (int c = 0; c < GRADE_CHECKS; c++) lab->checks[c].max = max[c];
            grade_score_lab(rule, lab);
            /* The times of --submissions are this run's labs' (--labs); another lab keeps the
             * days late its own run found. */
            bool this_run = false;
            for (size_t k = 0; k < a->n_labs && !this_run; k++) this_run = !strcmp(a->kits[k].lab, lab->lab);
            if (this_run) {
                lab->late_policy = false;
                lab->late_days = 0;
                lab->late_penalty = 0;
                free(lab->late_reason);
                lab->late_reason = NULL;
                grade_late_apply(&rule->late, sub, lab);
            } else {
                grade_late_rescore(&rule->late, lab);
            }
        }
        grade_student_total(st);
        cJSON *j2 = grade_student_to_json(st);
        if (grade_outdir_store(&a->outdir, st->name, a->keys[i], j2, err, sizeof(err)) != 0) {
            fprintf(stderr, "grade: %s\n", err);
            a->report_failed = true;
        }
        cJSON_Delete(j2);
        a->graded[i] = true;
        grade_progress_step(&a->progress, st);
    }
    if (!missing) {
        grade_buf_free(&names);
        return NULL;
    }
    char *text = grade_strf("This gradebook is INCOMPLETE: --rescore found no stored result for %zu of %zu students "
                            "(%s), who have empty scores and a NOT GRADED note. Grade them with:\n  %s --submissions "
                            "... --out %s --resume\n",
                            missing, a->subs.n, names.data, a->usage, a->opt.out);
    grade_buf_free(&names);
    return text;
}

/* grading/cmd/grade_mode_merge.c: `grade --merge`, the last job of a Slurm run: each array
 * task's stored results taken into --out as a worker's are, with the reports written in
 * the task's own context; called by grade_mode_class.c in place of grading the students. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_class.h"

/* --merge: each Slurm task's stored results (OUT/slurm/shards/K) taken for its share of
 * the class, their reports written into OUT as a worker's are. Returns NULL when every
 * student was graded, else what INCOMPLETE.txt says: the tasks that did not finish, their
 * students without a grade, and the command that grades them again. */
char *grade_merge_tasks(grade_app *a) {
    int tasks = a->plan.tasks;
    char err[1024];
    grade_buf b;
    grade_buf_init(&b);
    size_t missing_all = 0;
    a->why_not = calloc(a->subs.n ? a->subs.n : 1, sizeof(char *));
    for (int k = 0; k < tasks && !grade_stop; k++) {
        char why[256];
        bool done_ok = grade_slurm_task_done(a->opt.out, k, why, sizeof(why));
        grade_outdir shard = {.lock_fd = -1};
        shard.state_dir = grade_strf("%s/slurm/shards/%d/.streamlab-grade", a->opt.out, k);
        grade_stored *stored = NULL;
        size_t n_stored = 0;
        if (grade_outdir_load(&shard, &stored, &n_stored, err, sizeof(err)) != 0)
            fprintf(stderr, "grade: --merge: task %d: %s\n", k, err);
        /* The reports say how the task graded (its node's GPU or simulator, sandbox, time),
         * not how the merge's node would have. */
        char *ctx_path = grade_path_join(shard.state_dir, "context.json");
        free(shard.state_dir);
        grade_report_context ctx = a->env.report;
        cJSON *ctx_json = NULL;
        char *ctx_text = NULL;
        size_t ctx_len = 0;
        if (grade_is_file(ctx_path) && grade_read_file(ctx_path, 1u << 20, &ctx_text, &ctx_len, NULL, err, sizeof(err)) == 0) {
            ctx_json = cJSON_ParseWithLength(ctx_text, ctx_len);
            const char *v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "backend")))) ctx.backend = v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "sandbox")))) ctx.sandbox = v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "settings")))) ctx.settings = v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "when")))) ctx.when = v;
        }
        free(ctx_text);
        free(ctx_path);
        grade_buf names;
        grade_buf_init(&names);
        size_t missing = 0, share = 0;
        for (size_t j = 0; j < a->n_order; j++) {
            size_t i = a->order[j];
            if ((int)(i % (size_t)tasks) != k) continue;
            share++;
            const grade_stored *found = NULL;
            for (size_t s = 0; s < n_stored && !found; s++)
                if (!strcmp(stored[s].name, a->subs.items[i].name)) found = &stored[s];
            grade_student *st = &a->students[i];
            if (found && grade_student_from_json(found->student, st) == 0) {
                grade_adjustments_apply(&a->adjust, st);
                if (grade_class_write_reports(a, i, st, &ctx) != 0) {
                    a->report_failed = true;
                } else if (grade_outdir_store(&a->outdir, st->name, a->keys[i], found->student, err, sizeof(err)) !=
                           0) {
                    fprintf(stderr, "grade: %s\n", err);
                    a->report_failed = true;
                }
                a->graded[i] = true;
                grade_progress_step(&a->progress, st);
                continue;
            }
            if (found) grade_student_free(st);
            a->why_not[i] = grade_strf("NOT GRADED: Slurm array task %d, which had this student, did not finish (%s); "
                                       "grade it again with: %s",
                                       k, why, a->plan.rerun);
            grade_buf_printf(&names, "%s%s", missing ? ", " : "", a->subs.items[i].name);
            missing++;
        }
        grade_stored_free(stored, n_stored);
        cJSON_Delete(ctx_json);
        if (!done_ok || missing) {
            grade_buf_printf(&b, "  task %d (%s; its log: %s/slurm/logs/task_%d.log): ", k, why, a->opt.out, k);
            if (missing)
                grade_buf_printf(&b, "%zu of its %zu students not graded: %s\n", missing, share, names.data);
            else
                grade_buf_printf(&b, "all of its %zu students were graded before it stopped\n", share);
        }
        missing_all += missing;
        grade_buf_free(&names);
    }
    if (!b.len) {
        grade_buf_free(&b);
        return NULL;
    }
    char *list = grade_buf_take(&b);
    char *text = grade_strf("This gradebook is INCOMPLETE: Slurm array tasks did not finish, and %zu of %zu students "
                            "have no grade (empty scores and a NOT GRADED note naming the task):\n%s"
                            "The other students' results are whole. To grade the rest, run:\n  %s\n",
                            missing_all, a->subs.n, list, a->plan.rerun);
    free(list);
    return text;
}

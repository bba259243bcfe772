/* grading/cmd/grade_mode_slurm.c: `grade --slurm`: the job array's and the merge's scripts
 * written in OUT/slurm with a copy of the grader, its kits and rubric for the jobs, and
 * submitted with --submit (grade_slurm.h); `grade --slurm --only-failed`: the tasks that
 * did not finish, submitted again. Nobody is graded here. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_app.h"
#include "grading/slurm/grade_install.h"
#include "grading/submissions/grade_layout.h"

int grade_slurm_refuse_own_copy(const grade_app *a) {
    char *plan = grade_slurm_dir(a->opt.out);
    bool own = grade_install_inside(a->kits_dir, plan);
    free(plan);
    if (own)
        return grade_cannot_run("--slurm: this grader's kits are in %s, which a new plan replaces: run the grader you "
                                "installed or built, not the plan's copy",
                                a->kits_dir);
    return 0;
}

/* --slurm: the job array's and the merge's scripts in OUT/slurm, submitted with --submit.
 * Nobody is graded here (a login node may have no GPU); each task runs the pre-flight
 * checks on its node. */
int grade_mode_slurm(grade_app *a) {
    char err[2048];
    if (grade_outdir_clean(&a->outdir, err, sizeof(err)) != 0) return grade_cannot_run("--out: %s", err);
    int n = (int)a->subs.n;
    int tasks = a->opt.array_size ? a->opt.array_size : (n + 9) / 10;
    if (tasks > n) tasks = n;
    if (tasks < 1) tasks = 1;
    char *grade = grade_absolute("/proc/self/exe");
    char *out = grade_absolute(a->opt.out);
    /* The jobs run a copy of this grader, its kits of these labs, the rubric and the lab
     * catalog installed in OUT/slurm/grader (grade_install.h), never Bazel's cache or the
     * live rubric. */
    char *plan_dir = grade_slurm_dir(out);
    char *inst = grade_path_join(plan_dir, "grader");
    char *inst_grade = grade_path_join(inst, "grade"), *inst_rubric = grade_path_join(inst, "rubric.json"),
         *inst_kits = grade_path_join(inst, "kits");
    /* What stops the plan before anything is written (perr). */
    char perr[2560] = "";
    /* Every node grades the same way: auto is decided here, by the GPUs the tasks ask for. */
    bool want_gpus = a->opt.gres || a->opt.gpus_per_task > 0;
    const char *backend = strcmp(a->opt.backend, "auto") ? a->opt.backend : want_gpus ? "gpu" : "sim";
    /* The instructor's shell lines, read now: the scripts hold them, not the file. */
    char *prologue_text = NULL;
    if (a->opt.prologue) {
        size_t len = 0;
        bool cut = false;
        if (grade_read_file(a->opt.prologue, 64u << 10, &prologue_text, &len, &cut, err, sizeof(err)) != 0)
            snprintf(perr, sizeof(perr), "--prologue: %s", err);
        else if (cut || memchr(prologue_text, '\0', len))
            snprintf(perr, sizeof(perr), "--prologue %s: not a file of shell lines (larger than 64 KiB, or binary)",
                     a->opt.prologue);
        /* sbatch reads #SBATCH lines only before the first command: here they would be
         * silently ignored. */
        bool sbatch_line = prologue_text && !strncmp(prologue_text, "#SBATCH", 7);
        for (const char *p = prologue_text ? strchr(prologue_text, '\n') : NULL; p && !sbatch_line;
             p = strchr(p + 1, '\n'))
            sbatch_line = !strncmp(p + 1 + strspn(p + 1, " \t"), "#SBATCH", 7);
        if (!*perr && sbatch_line)
            snprintf(perr, sizeof(perr),
                     "--prologue %s: it holds #SBATCH lines, which sbatch ignores after the first command: give each "
                     "as --sbatch-option (--sbatch-option=--account=cs101)",
                     a->opt.prologue);
    }
    if (*perr) {
        free(prologue_text);
        free(inst_grade);
        free(inst_rubric);
        free(inst_kits);
        free(inst);
        free(plan_dir);
        free(out);
        free(grade);
        return grade_cannot_run("%s", perr);
    }
    if (!strcmp(a->opt.backend, "auto"))
        fprintf(stderr, "grade: --slurm: --backend auto is written as --backend %s (%s)\n", backend,
                want_gpus ? "the tasks ask for GPUs"
                          : "the tasks ask for no GPU: --gpus-per-task or --gres gives them GPUs to grade on");
    char mem[32];
    if (a->opt.task_mem)
        snprintf(mem, sizeof(mem), "%s", a->opt.task_mem);
    else /* each student graded at once: a lab program and its compile, at --memory-mb each */
        snprintf(mem, sizeof(mem), "%ldM", (long)(a->opt.jobs_given ? a->opt.jobs : 2) * 2 * a->opt.mem_mb);
    char *held[16] = {0};
    size_t n_held = 0;
    const char *args[64], *merge_args[8];
    size_t n_args = 0, n_merge = 0;
#define ARG(x) (args[n_args++] = (x))
#define OWN(x) (held[n_held++] = (x))
    char num[8][32];
    ARG("--submissions");
    ARG(OWN(grade_absolute(a->opt.submissions)));
    if (a->opt.layout) {
        ARG("--layout");
        ARG(grade_layout_name((grade_layout)a->opt.layout));
    }
    if (a->opt.roster) {
        ARG("--roster");
        ARG(OWN(grade_absolute(a->opt.roster)));
    }
    if (a->opt.submitted_at) {
        ARG("--submitted-at");
        ARG(OWN(grade_absolute(a->opt.submitted_at)));
    }
    if (a->opt.file_times) {
        ARG("--file-times");
        ARG("--file-times"); /* (options go in pairs in the scripts' layout) */
    }
    if (a->opt.labs) {
        ARG("--labs");
        ARG(a->opt.labs);
    }
    ARG("--backend");
    ARG(backend);
    snprintf(num[0], sizeof(num[0]), "%d", a->opt.runs);
    snprintf(num[1], sizeof(num[1]), "%d", a->opt.schedules);
    snprintf(num[2], sizeof(num[2]), "%d", a->opt.timeout_s);
    snprintf(num[3], sizeof(num[3]), "%ld", a->opt.mem_mb);
    snprintf(num[4], sizeof(num[4]), "%ld", a->opt.output_mb);
    snprintf(num[5], sizeof(num[5]), "%llu", (unsigned long long)a->opt.seed);
    ARG("--runs");
    ARG(num[0]);
    ARG("--schedules");
    ARG(num[1]);
    ARG("--timeout");
    ARG(num[2]);
    ARG("--memory-mb");
    ARG(num[3]);
    ARG("--output-mb");
    ARG(num[4]);
    snprintf(num[6], sizeof(num[6]), "%d", a->opt.compile_s);
    snprintf(num[7], sizeof(num[7]), "%ld", a->opt.scratch_mb);
    ARG("--compile-timeout");
    ARG(num[6]);
    ARG("--scratch-mb");
    ARG(num[7]);
    if (a->opt.seed_given) {
        ARG("--seed");
        ARG(num[5]);
    }
    if (a->opt.profile) {
        ARG("--profile");
        ARG(a->opt.profile);
    }
    ARG("--rubric");
    ARG(inst_rubric);
    ARG("--kits");
    ARG(inst_kits);
    /* results.json's settings (grade_report_gradescope.h), for the tasks and the merge. */
    ARG("--output-format");
    ARG(a->opt.gs.format);
    grade_buf vis;
    grade_buf_init(&vis);
    grade_buf_puts(&vis, a->opt.gs.visibility);
    for (int c = 0; c < GRADE_CHECKS; c++)
        if (a->opt.gs.test_visibility[c])
            grade_buf_printf(&vis, ",%s=%s", grade_check_titles[c], a->opt.gs.test_visibility[c]);
    ARG("--visibility");
    ARG(OWN(grade_buf_take(&vis)));
    if (a->opt.gs.leaderboard) {
        ARG("--leaderboard");
        ARG("--leaderboard"); /* (pairs, as above) */
    }
    if (a->opt.scratch) {
        ARG("--scratch");
        ARG(OWN(grade_absolute(a->opt.scratch)));
    }
    if (a->opt.keep_scratch) {
        ARG("--keep-scratch");
        ARG("--keep-scratch"); /* (options go in pairs in the scripts' layout) */
    }
    if (a->opt.csv_bom) merge_args[n_merge++] = "--csv-bom";
    if (a->opt.quiet) merge_args[n_merge++] = "--quiet";
    if (a->opt.similarity_tool) {
        merge_args[n_merge++] = "--similarity-tool";
        merge_args[n_merge++] = OWN(grade_absolute(a->opt.similarity_tool));
    } else if (a->opt.similarity)
        merge_args[n_merge++] = "--similarity";
#undef ARG
#undef OWN
    const char **students = calloc(a->subs.n + 1, sizeof(char *));
    for (size_t i = 0; i < a->subs.n; i++) students[i] = a->subs.items[i].name;
    bool gpu = !strcmp(backend, "gpu");
    grade_slurm_plan plan = {
        .out = out,
        .grade = inst_grade,
        .args = args,
        .n_args = n_args,
        .merge_args = merge_args,
        .n_merge_args = n_merge,
        .partition = a->opt.partition,
        .time_limit = a->opt.time_limit,
        .gpus_per_task = a->opt.gres ? 1 : a->opt.gpus_per_task >= 0 ? a->opt.gpus_per_task : gpu ? 1 : 0,
        .cpus_per_task = a->opt.jobs_given ? a->opt.jobs : 2,
        .gres = a->opt.gres,
        .mem = mem,
        .array_throttle = a->opt.array_throttle,
        .prologue = prologue_text,
        .sbatch_options = a->opt.sbatch_options,
        .n_sbatch_options = (size_t)a->opt.n_sbatch_options,
        .tasks = tasks,
        .students = students,
        .n_students = a->subs.n,
        .usage = a->usage,
    };
    int rc = grade_slurm_write(&plan, err, sizeof(err));
    if (rc == 0) {
        const char **labs = calloc(a->n_labs + 1, sizeof(char *));
        for (size_t l = 0; l < a->n_labs; l++) labs[l] = a->kits[l].lab;
        char *catalog = grade_workspace_runfile("labs/catalog.json");
        grade_install_what w = {.grade = grade, .kits_dir = a->kits_dir, .labs = labs, .n_labs = a->n_labs,
                                .rubric = a->rubric_path, .catalog = catalog, .usage = a->usage};
        rc = grade_install(&w, inst, err, sizeof(err));
        free(catalog);
        free(labs);
    }
    char *dir = grade_slurm_dir(out);
    if (rc != 0) {
        rc = grade_cannot_run("--slurm: %s", err);
    } else {
        printf("grade: --slurm: %zu students in %d array task%s of about %zu each; the scripts are in %s:\n"
               "  grade_array.sbatch  the tasks (each grades its share into shards/K)\n"
               "  merge.sbatch        the merge into %s, after the tasks\n"
               "  submit.sh           submits both\n"
               "  grader/             the grader, kits and rubric the jobs run (a copy: rebuilding or\n"
               "                      editing the rubric changes nothing for them)\n",
               a->subs.n, tasks, tasks == 1 ? "" : "s", (a->subs.n + (size_t)tasks - 1) / (size_t)tasks, dir, out);
        char range[32];
        snprintf(range, sizeof(range), "0-%d", tasks - 1);
        if (a->opt.submit) {
            fflush(stdout);
            if (grade_slurm_submit(out, range, err, sizeof(err)) != 0) rc = grade_cannot_run("%s", err);
        } else {
            char *script = grade_path_join(dir, "submit.sh");
            char *q = grade_shell_quote(script);
            printf("Submit them with:  sh %s\n", q);
            free(q);
            free(script);
        }
    }
    free(dir);
    free(students);
    for (size_t i = 0; i < n_held; i++) free(held[i]);
    free(out);
    free(prologue_text);
    free(inst_grade);
    free(inst_rubric);
    free(inst_kits);
    free(inst);
    free(plan_dir);
    free(grade);
    return rc;
}

/* --slurm --only-failed: the tasks of OUT's array that did not finish, submitted again
 * (with --submit), then the merge. */
int grade_mode_only_failed(grade_app *a) {
    char err[2048];
    grade_slurm_state st;
    if (grade_slurm_read(a->opt.out, &st, err, sizeof(err)) != 0) return grade_cannot_run("--only-failed: %s", err);
    char *dir = grade_slurm_dir(a->opt.out);
    char *merge_status = grade_path_join(dir, "status/merge");
    if (!grade_is_file(merge_status))
        fprintf(stderr, "grade: --only-failed: the merge job has not run yet: if the array is still running (squeue), "
                        "its tasks have no status yet and would be submitted twice; wait for it\n");
    free(merge_status);
    char *failed = grade_slurm_failed_list(a->opt.out, &st);
    int rc = GRADE_EXIT_OK;
    if (!*failed) {
        printf("grade: --only-failed: every one of the %d tasks of the array in %s finished: nothing to grade again\n",
               st.tasks, dir);
    } else {
        printf("grade: --only-failed: task%s %s of %d did not finish: graded again, each keeping the students it had "
               "finished, then merged\n",
               strchr(failed, ',') ? "s" : "", failed, st.tasks);
        if (a->opt.submit) {
            fflush(stdout);
            if (grade_slurm_submit(a->opt.out, failed, err, sizeof(err)) != 0) rc = grade_cannot_run("%s", err);
        } else {
            char *script = grade_path_join(dir, "submit.sh");
            char *q = grade_shell_quote(script);
            printf("Submit them with:  sh %s %s\n", q, failed);
            free(q);
            free(script);
        }
    }
    free(failed);
    free(dir);
    grade_slurm_state_free(&st);
    return rc;
}

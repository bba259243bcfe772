/* grading/slurm/grade_slurm.c: the scripts of a Slurm run, submitting them, reading back which
 * tasks finished, and a task's share of the class (see grade_slurm.h). */
#define _GNU_SOURCE
#include "grading/slurm/grade_slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"

char *grade_slurm_dir(const char *out) { return grade_path_join(out, "slurm"); }

char *grade_shell_quote(const char *s) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_puts(&b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            grade_buf_puts(&b, "'\\''");
        else
            grade_buf_append(&b, p, 1);
    }
    grade_buf_puts(&b, "'");
    return grade_buf_take(&b);
}

static void quoted(grade_buf *b, const char *s) {
    char *q = grade_shell_quote(s);
    grade_buf_puts(b, q);
    free(q);
}

/* The #SBATCH lines both scripts share. */
static void sbatch_head(grade_buf *b, const grade_slurm_plan *p, const char *name, int cpus, int gpus,
                        const char *log) {
    grade_buf_printf(b, "#SBATCH --job-name=%s\n", name);
    if (p->partition) grade_buf_printf(b, "#SBATCH --partition=%s\n", p->partition);
    grade_buf_printf(b, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", cpus);
    if (gpus > 0 && p->gres) grade_buf_printf(b, "#SBATCH --gres=%s\n", p->gres);
    else if (gpus > 0) grade_buf_printf(b, "#SBATCH --gpus-per-task=%d\n", gpus);
    if (p->mem) grade_buf_printf(b, "#SBATCH --mem=%s\n", p->mem);
    if (p->time_limit) grade_buf_printf(b, "#SBATCH --time=%s\n", p->time_limit);
    for (size_t i = 0; i < p->n_sbatch_options; i++) grade_buf_printf(b, "#SBATCH %s\n", p->sbatch_options[i]);
    /* Slurm does not quote these: a path with spaces cannot be said here. */
    grade_buf_printf(b, "#SBATCH --output=%s\n#SBATCH --open-mode=append\n", log);
}

/* The grader's command line: the program, `first` options, the shared ones, `extra`. */
static void command(grade_buf *b, const grade_slurm_plan *p, const char *first, const char *const *extra,
                    size_t n_extra) {
    quoted(b, p->grade);
    grade_buf_printf(b, " %s", first);
    for (size_t i = 0; i < p->n_args; i++) {
        grade_buf_puts(b, i % 2 == 0 ? " \\\n    " : " ");
        quoted(b, p->args[i]);
    }
    for (size_t i = 0; i < n_extra; i++) {
        grade_buf_puts(b, " ");
        quoted(b, extra[i]);
    }
    grade_buf_puts(b, "\n");
}

/* The instructor's shell lines (module load ...), before the grader runs. */
static void prologue(grade_buf *b, const grade_slurm_plan *p) {
    if (!p->prologue || !*p->prologue) return;
    size_t len = strlen(p->prologue);
    grade_buf_printf(b, "# --prologue:\n%s%s# (end of --prologue)\n", p->prologue,
                     p->prologue[len - 1] == '\n' ? "" : "\n");
}

static int write_script(const char *dir, const char *name, const char *text, char *err, size_t err_len) {
    char *path = grade_path_join(dir, name);
    int rc = grade_write_file(path, text, strlen(text), err, err_len);
    if (rc == 0 && chmod(path, 0755) != 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    free(path);
    return rc;
}

int grade_slurm_write(const grade_slurm_plan *p, char *err, size_t err_len) {
    char *dir = grade_slurm_dir(p->out);
    int rc = -1;
    char *status = grade_path_join(dir, "status"), *shards = grade_path_join(dir, "shards"),
         *logs = grade_path_join(dir, "logs");
    grade_buf b;
    grade_buf_init(&b);
    if (strchr(p->out, ' ') || strchr(p->out, '\n') || strchr(p->out, '%')) {
        snprintf(err, err_len,
                 "--slurm: --out %s: Slurm's #SBATCH --output line cannot hold a path with a space, newline or %%: "
                 "give another folder",
                 p->out);
        goto out;
    }
    /* An earlier plan's tasks, statuses and logs belong to another run. */
    if (grade_rm_rf(dir, err, err_len) != 0 || grade_mkdir_p(status, 0755, err, err_len) != 0 ||
        grade_mkdir_p(shards, 0755, err, err_len) != 0 || grade_mkdir_p(logs, 0755, err, err_len) != 0)
        goto out;

    /* The array: task K grades its share into shards/K and says how it ended in status/K. */
    grade_buf_puts(&b, "#!/bin/bash\n");
    char *log = grade_strf("%s/task_%%a.log", logs);
    sbatch_head(&b, p, "streamlab-grade", p->cpus_per_task, p->gpus_per_task, log);
    free(log);
    grade_buf_printf(&b,
                     "# Written by `%s --slurm` (streamlab, docs/grading.md): array task K grades submissions\n"
                     "# K, K+%d, K+%d, ... of the class (in name order) into shards/K, with the sandbox and the\n"
                     "# prebuilt kits of a local run, and writes its exit status to status/K. Submit it with\n"
                     "# submit.sh, which also submits the merge.\n",
                     p->usage, p->tasks, 2 * p->tasks);
    grade_buf_puts(&b, "set -u\nK=\"${SLURM_ARRAY_TASK_ID:?run this script with sbatch --array (see submit.sh)}\"\n");
    grade_buf_puts(&b, "STATUS=");
    quoted(&b, status);
    grade_buf_puts(&b, "\nSHARDS=");
    quoted(&b, shards);
    grade_buf_puts(&b, "\nrm -f \"$STATUS/$K\"\n");
    prologue(&b, p);
    char *shard = grade_strf("--shard \"$K/%d\" --out \"$SHARDS/$K\" --resume --no-progress", p->tasks);
    char jobs[32];
    snprintf(jobs, sizeof(jobs), "%d", p->cpus_per_task);
    const char *task_extra[] = {"--jobs", jobs};
    command(&b, p, shard, task_extra, 2);
    free(shard);
    grade_buf_puts(&b, "rc=$?\necho \"$rc ${SLURM_ARRAY_JOB_ID:-?}_$K $(hostname)\" > \"$STATUS/$K\"\nexit \"$rc\"\n");
    char *text = grade_buf_take(&b);
    rc = write_script(dir, "grade_array.sbatch", text, err, err_len);
    free(text);
    if (rc) goto out;

    /* The merge: every task's results into OUT, as a local run writes them. */
    grade_buf_init(&b);
    grade_buf_puts(&b, "#!/bin/bash\n");
    log = grade_strf("%s/merge.log", logs);
    sbatch_head(&b, p, "streamlab-merge", 1, 0, log);
    free(log);
    grade_buf_printf(&b,
                     "# Written by `%s --slurm` (streamlab, docs/grading.md): after the array, merges the tasks'\n"
                     "# results into the class's folder: gradebook.csv, junit.xml, a report folder per student,\n"
                     "# and names the tasks that did not finish.\n",
                     p->usage);
    grade_buf_puts(&b, "set -u\nSTATUS=");
    quoted(&b, status);
    grade_buf_puts(&b, "\n");
    prologue(&b, p);
    char *merge_first = grade_strf("--merge --out %s --no-progress", "\"$OUT\"");
    grade_buf_puts(&b, "OUT=");
    quoted(&b, p->out);
    grade_buf_puts(&b, "\n");
    command(&b, p, merge_first, p->merge_args, p->n_merge_args);
    free(merge_first);
    grade_buf_puts(&b, "rc=$?\necho \"$rc ${SLURM_JOB_ID:-?} $(hostname)\" > \"$STATUS/merge\"\nexit \"$rc\"\n");
    text = grade_buf_take(&b);
    rc = write_script(dir, "merge.sbatch", text, err, err_len);
    free(text);
    if (rc) goto out;

    char throttle[32] = "";
    if (p->array_throttle > 0) snprintf(throttle, sizeof(throttle), "%%%d", p->array_throttle);
    /* submit.sh: the array, then the merge after it (afterany: it runs whatever became of
     * the tasks, and names those that did not finish). */
    grade_buf_init(&b);
    grade_buf_printf(&b,
                     "#!/bin/sh\n"
                     "# Written by `%s --slurm` (streamlab, docs/grading.md): submits the grading array\n"
                     "# (tasks 0-%d, or the list given: sh submit.sh 2,5) and the merge after it.\n"
                     "set -eu\n"
                     "cd \"$(dirname \"$0\")\"\n"
                     "TASKS=\"${1:-0-%d}\"\n"
                     "THROTTLE=\"%s\"\n"
                     "array=$(sbatch --parsable --array=\"$TASKS$THROTTLE\" grade_array.sbatch)\n"
                     "array=\"${array%%%%;*}\"\n"
                     "merge=$(sbatch --parsable --dependency=afterany:\"$array\" merge.sbatch)\n"
                     "merge=\"${merge%%%%;*}\"\n"
                     "echo \"$array $TASKS\" >> jobs.txt\n"
                     "echo \"grading: Slurm job $array (array tasks $TASKS); merge: job $merge, after it\"\n",
                     p->usage, p->tasks - 1, p->tasks - 1, throttle);
    text = grade_buf_take(&b);
    rc = write_script(dir, "submit.sh", text, err, err_len);
    free(text);
    if (rc) goto out;

    /* plan.json: read back by --merge and --only-failed. */
    cJSON *plan = cJSON_CreateObject();
    cJSON_AddNumberToObject(plan, "version", 1);
    cJSON_AddNumberToObject(plan, "tasks", p->tasks);
    cJSON_AddStringToObject(plan, "grade", p->grade);
    char *q = grade_shell_quote(p->out);
    char *rerun = grade_strf("%s --slurm --only-failed --out %s --submit", p->usage, q);
    free(q);
    cJSON_AddStringToObject(plan, "rerun", rerun);
    free(rerun);
    cJSON *students = cJSON_AddArrayToObject(plan, "students");
    for (size_t i = 0; i < p->n_students; i++) cJSON_AddItemToArray(students, cJSON_CreateString(p->students[i]));
    text = cJSON_Print(plan);
    cJSON_Delete(plan);
    char *path = grade_path_join(dir, "plan.json");
    rc = grade_write_file(path, text, strlen(text), err, err_len);
    free(path);
    cJSON_free(text);
out:
    free(status);
    free(shards);
    free(logs);
    free(dir);
    return rc;
}

/* Whether a program is on PATH. */
static bool on_path(const char *prog) {
    const char *path = getenv("PATH");
    if (!path) return false;
    char *copy = grade_strdup(path);
    bool found = false;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = grade_path_join(*d ? d : ".", prog);
        found = access(p, X_OK) == 0;
        free(p);
    }
    free(copy);
    return found;
}

int grade_slurm_submit(const char *out, const char *tasks, char *err, size_t err_len) {
    char *dir = grade_slurm_dir(out);
    char *script = grade_path_join(dir, "submit.sh");
    int rc = -1;
    if (!on_path("sbatch")) {
        snprintf(err, err_len,
                 "--submit: sbatch is not on PATH (is this a Slurm login node?): nothing was submitted. The scripts are "
                 "in %s: submit them there with  sh %s %s",
                 dir, script, tasks);
        goto out;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "--submit: cannot start sh: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        execl("/bin/sh", "sh", script, tasks, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, err_len, "--submit: %s %s failed (%s %d; sbatch's message is above): check the partition, "
                               "time limit and GPUs asked for, or submit by hand",
                 script, tasks, WIFEXITED(status) ? "exit status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        goto out;
    }
    rc = 0;
out:
    free(script);
    free(dir);
    return rc;
}

int grade_slurm_read(const char *out, grade_slurm_state *st, char *err, size_t err_len) {
    memset(st, 0, sizeof(*st));
    char *dir = grade_slurm_dir(out);
    char *path = grade_path_join(dir, "plan.json");
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    cJSON *j = NULL;
    if (!grade_is_file(path)) {
        snprintf(err, err_len, "%s: no Slurm plan there (it is written by grade --slurm --out %s)", path, out);
        goto out;
    }
    if (grade_read_file(path, 64u << 20, &text, &len, NULL, err, err_len) != 0) goto out;
    j = cJSON_ParseWithLength(text, len);
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(j, "tasks");
    const cJSON *students = cJSON_GetObjectItemCaseSensitive(j, "students");
    const char *rerun = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "rerun"));
    if (!cJSON_IsNumber(tasks) || tasks->valueint < 1 || !cJSON_IsArray(students) || !rerun) {
        snprintf(err, err_len, "%s: not a Slurm plan of this grader (write it again with grade --slurm)", path);
        goto out;
    }
    st->tasks = tasks->valueint;
    st->rerun = grade_strdup(rerun);
    st->students = calloc((size_t)cJSON_GetArraySize(students) + 1, sizeof(char *));
    const cJSON *s;
    cJSON_ArrayForEach(s, students) {
        if (!cJSON_IsString(s)) {
            snprintf(err, err_len, "%s: \"students\" must hold names", path);
            grade_slurm_state_free(st);
            goto out;
        }
        st->students[st->n_students++] = grade_strdup(s->valuestring);
    }
    rc = 0;
out:
    cJSON_Delete(j);
    free(text);
    free(path);
    free(dir);
    return rc;
}

void grade_slurm_state_free(grade_slurm_state *st) {
    for (size_t i = 0; i < st->n_students; i++) free(st->students[i]);
    free(st->students);
    free(st->rerun);
    memset(st, 0, sizeof(*st));
}

bool grade_slurm_task_done(const char *out, int k, char *why, size_t why_len) {
    char *path = grade_strf("%s/slurm/status/%d", out, k);
    char *text = NULL;
    size_t len = 0;
    char err[256];
    bool done = false;
    if (grade_read_file(path, 4096, &text, &len, NULL, err, sizeof(err)) != 0) {
        snprintf(why, why_len, "no exit status: it was killed, ran out of time or its node failed");
    } else {
        char *end = NULL;
        long rc = strtol(text, &end, 10);
        if (end == text)
            snprintf(why, why_len, "its status file %s does not hold an exit status", path);
        else if (rc != 0)
            snprintf(why, why_len, "exit status %ld", rc);
        else
            done = true;
        if (done) snprintf(why, why_len, "finished");
    }
    free(text);
    free(path);
    return done;
}

char *grade_slurm_failed_list(const char *out, const grade_slurm_state *st) {
    grade_buf b;
    grade_buf_init(&b);
    char why[256];
    bool first = true;
    for (int k = 0; k < st->tasks; k++) {
        if (grade_slurm_task_done(out, k, why, sizeof(why))) continue;
        grade_buf_printf(&b, "%s%d", first ? "" : ",", k);
        first = false;
    }
    return grade_buf_take(&b);
}

void grade_shard_filter(grade_submission_list *l, int k, int n) {
    if (n <= 0) return;
    grade_submission_list dropped = {0};
    dropped.items = calloc(l->n ? l->n : 1, sizeof(grade_submission));
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        if ((int)(i % (size_t)n) == k)
            l->items[kept++] = l->items[i];
        else
            dropped.items[dropped.n++] = l->items[i];
    }
    l->n = kept;
    grade_submission_list_free(&dropped);
}

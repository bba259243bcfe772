/* grading/cmd/grade_app.c: setting up one run of the grader (grade_app.h): the options' paths,
 * the rubric and kits checked against the lab catalog, the sandbox probe and a scratch
 * folder, the class and the pre-flight run (grade_app_labs.c has the labs), how the
 * students are graded, and the cleaning up after the mode. */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_app.h"
#include "grading/out/grade_student_dir.h"

volatile sig_atomic_t grade_stop;

int grade_cannot_run(const char *fmt, const char *detail) {
    fprintf(stderr, "grade: ");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return GRADE_EXIT_CANNOT_RUN;
}

/* path absolute, symbolic links resolved where it exists (malloc'd). */
char *grade_absolute(const char *path) {
    char buf[PATH_MAX];
    if (realpath(path, buf)) return grade_strdup(buf);
    if (path[0] == '/' || !getcwd(buf, sizeof(buf))) return grade_strdup(path);
    return grade_strf("%s/%s", buf, path);
}

/* Under `bazel run` the program starts in its runfiles: relative paths are the user's,
 * relative to where they typed the command. */
static const char *from_user(const char *path) {
    char buf[4096];
    const char *p = cli_user_path(path, buf, sizeof(buf));
    return p == buf ? grade_strdup(buf) : p;
}

int grade_app_paths(grade_app *a, const char **rubric_shown) {
    /* (These few strings live as long as the program.) */
    a->opt.submissions = from_user(a->opt.submissions);
    a->opt.out = from_user(a->opt.out);
    /* Messages name the rubric as the instructor gave it (grading/rubric.json when built in). */
    *rubric_shown = a->opt.rubric ? a->opt.rubric : "grading/rubric.json";
    a->opt.rubric = from_user(a->opt.rubric);
    a->opt.kits = from_user(a->opt.kits);
    a->opt.scratch = from_user(a->opt.scratch);
    a->opt.submission_dir = from_user(a->opt.submission_dir);
    a->opt.results = from_user(a->opt.results);
    if (a->opt.submitted_at) {
        if (a->opt.gradescope) {
            fprintf(stderr, "grade: --submitted-at is for class mode (--submissions), not --gradescope\nTry '%s --help'.\n",
                    a->usage);
            return GRADE_EXIT_USAGE;
        }
        a->opt.submitted_at = from_user(a->opt.submitted_at);
    }
    return 0;
}

int grade_app_load(grade_app *a, const char *rubric_shown) {
    char err[1024];
    int rc;
    char *rubric_path = a->opt.rubric ? grade_strdup(a->opt.rubric) : grade_runfile("rubric.json");
    if (!rubric_path) return grade_cannot_run("%s", "no rubric: give one with --rubric FILE (the built-in grading/rubric.json was not found beside the program)");
    if (grade_rubric_load_as(rubric_path, rubric_shown, &a->rubric, err, sizeof(err)) != 0) {
        free(rubric_path);
        return grade_cannot_run("%s", err);
    }
    char *rubric_notes = grade_rubric_warnings(&a->rubric);
    if (rubric_notes) fprintf(stderr, "grade: WARNING: %s", rubric_notes);
    free(rubric_notes);
    a->rubric_path = grade_absolute(rubric_path);
    free(rubric_path);
    char *kits_dir = a->opt.kits ? grade_strdup(a->opt.kits) : grade_kit_default_dir();
    if (!kits_dir) return grade_cannot_run("%s", "no lab kits: give their folder with --kits DIR (they are built with //grading:grade)");
    a->kits_dir = grade_absolute(kits_dir);
    if (grade_kit_set_load(kits_dir, &a->all_kits, err, sizeof(err)) != 0) {
        free(kits_dir);
        return grade_cannot_run("%s", err);
    }
    if (a->all_kits.n == 0) {
        rc = grade_cannot_run("no lab kits in %s", kits_dir);
        free(kits_dir);
        return rc;
    }
    /* Every lab of the rubric is a lab of the course (labs/catalog.json, where the grader
     * has it): a typo in a key is the rubric's to correct, said with the nearest lab. */
    char *catalog_path = grade_workspace_runfile("labs/catalog.json");
    char *catalog = NULL;
    size_t catalog_len = 0;
    cJSON *cat = catalog_path && grade_read_file(catalog_path, 1u << 20, &catalog, &catalog_len, NULL, err,
                                                 sizeof(err)) == 0
                     ? cJSON_ParseWithLength(catalog, catalog_len)
                     : NULL;
    const cJSON *cat_labs = cJSON_GetObjectItemCaseSensitive(cat, "labs"), *e;
    const char *known[128];
    size_t n_known = 0;
    cJSON_ArrayForEach(e, cat_labs) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
        if (id && n_known < 128) known[n_known++] = id;
    }
    rc = n_known ? grade_rubric_check_labs(&a->rubric, known, n_known, err, sizeof(err)) : 0;
    cJSON_Delete(cat);
    free(catalog);
    free(catalog_path);
    if (rc != 0) {
        free(kits_dir);
        return grade_cannot_run("%s: nothing was graded", err);
    }
    free(kits_dir);
    return 0;
}

int grade_app_start(grade_app *a, int (*open_class)(grade_app *a)) {
    char err[1024];
    int rc;
    grade_sandbox_probe(&a->sandbox);
    a->sandbox.compile_s = a->opt.compile_s;
    a->sandbox.compile_mem_mb = a->opt.mem_mb;
    a->sandbox.scratch_mb = a->opt.scratch_mb;
    const char *base = a->opt.scratch ? a->opt.scratch : getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    if (grade_mkdir_p(base, 0755, err, sizeof(err)) != 0) return grade_cannot_run("--scratch: %s", err);
    if (!grade_sandbox_can_reach(&a->sandbox, base)) {
        if (a->opt.scratch) {
            fprintf(stderr,
                    "grade: --scratch %s: the user the submissions run as (uid %u) cannot reach it (a folder on "
                    "the way is not searchable by others, like /root): choose another, such as /tmp\n",
                    base, (unsigned)a->sandbox.uid);
            return GRADE_EXIT_CANNOT_RUN;
        }
        base = "/tmp";
    }
    a->scratch = grade_strf("%s/streamlab-grade.XXXXXX", base);
    if (!mkdtemp(a->scratch)) return grade_cannot_run("cannot make a scratch folder in %s", base);
    /* Searchable by the sandbox user, not listable. */
    chmod(a->scratch, 0711);

    const char *backend = "sim";
    rc = grade_app_choose_labs(a, &backend, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "grade: %s\n", err);
        grade_rm_rf(a->scratch, err, sizeof(err));
        return rc;
    }
    bool gpu = !strcmp(backend, "gpu");
    if (gpu) a->gpu_lock = grade_path_join(a->scratch, "gpu.lock");
    if (open_class) rc = open_class(a);
    /* --rescore runs no lab, not even the skeleton's. */
    if (!rc && !a->opt.merge && !a->opt.slurm && !a->opt.rescore) rc = grade_app_preflight(a);
    if (rc || grade_stop) {
        if (!rc) {
            fprintf(stderr, "grade: interrupted before anyone was graded: nothing was written\n");
            rc = grade_stop == SIGTERM ? GRADE_EXIT_INTERRUPTED_TERM : GRADE_EXIT_INTERRUPTED_INT;
        }
        grade_rm_rf(a->scratch, err, sizeof(err));
        grade_outdir_close(&a->outdir);
        return rc;
    }

    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(a->when, sizeof(a->when), "%Y-%m-%d %H:%M:%S %Z", &tm);
    a->sandbox_desc = grade_sandbox_describe(&a->sandbox);
    a->backend_desc = gpu ? grade_strdup("a real GPU (timed runs one at a time)")
                          : grade_strf("the SIMULATED GPU (%s profile; simulated time is exact, so a re-run gives "
                                       "the same figures)",
                                       a->opt.profile ? a->opt.profile : "the lab's default");
    a->settings_desc = grade_strf("%d timed run%s of the baseline and the submission, interleaved, and their medians; "
                                  "%d perturbed schedule%s%s; %d s of the submission's own time (setup, run and teardown; "
                                  "the harness's own is not counted), %ld MiB of memory and %ld MiB of output per lab "
                                  "run",
                                  a->opt.runs, a->opt.runs == 1 ? "" : "s", a->opt.schedules,
                                  a->opt.schedules == 1 ? "" : "s",
                                  gpu ? " (for labs graded on the simulator: a real GPU runs as it runs)" : "",
                                  a->opt.timeout_s, a->opt.mem_mb, a->opt.output_mb);
    a->env = (grade_env){
        .sandbox = &a->sandbox,
        .rubric = &a->rubric,
        .kits = a->kits,
        .rules = a->rules,
        .n_labs = a->n_labs,
        .run =
            {
                .runs = a->opt.runs,
                .schedules = a->opt.schedules,
                .timeout_s = a->opt.timeout_s,
                .profile = a->opt.profile,
                .mem_mb = a->opt.mem_mb,
                .output_mb = a->opt.output_mb,
                .width = 100,
                .gpu_lock = a->gpu_lock,
            },
        .loose = a->opt.gradescope && a->n_labs == 1,
        .fixed_seed = a->opt.seed_given,
        .seed = a->opt.seed,
        .report = {.backend = a->backend_desc, .sandbox = a->sandbox_desc, .settings = a->settings_desc, .when = a->when,
                   .gradescope = &a->opt.gs},
        .backend_notes = (const char *const *)a->backend_notes,
        .targets = a->targets,
    };
    return 0;
}

void grade_app_finish(grade_app *a) {
    char err[1024];
    if (a->opt.keep_scratch && !grade_stop)
        fprintf(stderr, "grade: scratch folders kept in %s\n", a->scratch);
    else if (grade_rm_rf(a->scratch, err, sizeof(err)) != 0) {
        /* A lab program killed with its worker may still be going away: once more. */
        usleep(200 * 1000);
        if (grade_rm_rf(a->scratch, err, sizeof(err)) != 0) fprintf(stderr, "grade: %s\n", err);
    }
    grade_outdir_close(&a->outdir);
    free(a->keys);
    free(a->order);
    free(a->graded);
    for (size_t i = 0; i < a->subs.n && a->students; i++) grade_student_free(&a->students[i]);
    free(a->students);
    for (size_t i = 0; a->why_not && i < a->subs.n; i++) free(a->why_not[i]);
    free(a->why_not);
    grade_student_dirnames_free(a->dirs, a->subs.n);
    grade_submission_list_free(&a->subs);
    grade_roster_free(&a->roster);
    grade_adjustments_free(&a->adjust);
    grade_slurm_state_free(&a->plan);
    free(a->rubric_path);
    free(a->kits_dir);
    for (size_t i = 0; i < a->n_labs; i++) {
        grade_kit_free(&a->kits[i]);
        free(a->backend_notes ? a->backend_notes[i] : NULL);
    }
    free(a->backend_notes);
    free(a->targets);
    free(a->kits);
    free(a->rules);
    grade_kit_set_free(&a->all_kits);
    grade_rubric_free(&a->rubric);
    free(a->scratch);
    free(a->gpu_lock);
    free(a->sandbox_desc);
    free(a->backend_desc);
    free(a->settings_desc);
}

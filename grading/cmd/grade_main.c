/* grading/cmd/grade_main.c: the grader's main(): the options, Ctrl-C and SIGTERM, then the
 * setting up (grade_app.c: the rubric and kits, the sandbox probe, a scratch folder with
 * the kits installed, the class and its --out folder, the pre-flight run) and one mode:
 * a class (grade_mode_class.c), the one Gradescope submission (grade_mode_gradescope.c),
 * --install (grade_mode_install.c) or --slurm (grade_mode_slurm.c). SIGINT and SIGTERM
 * stop the workers, remove the scratch folder and write the gradebook of the students
 * finished so far, marked incomplete (--resume finishes it). See docs/grading.md. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/cmd/grade_app.h"
#include "grading/cmd/grade_class.h"
#include "grading/cmd/grade_options.h"

static void on_stop(int sig) { grade_stop = sig; }

int main(int argc, char **argv) {
    static grade_app A;
    grade_app *a = &A;
    char err[1024];
    signal(SIGPIPE, SIG_IGN);
    umask(022);
    a->usage = grade_usage_name(argv[0]);
    a->argc = argc;
    a->argv = argv;
    int rc = grade_parse_options(argc, argv, &a->opt, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "grade: %s\nTry '%s --help'.\n", err, a->usage);
        return rc;
    }
    if (a->opt.help) {
        grade_print_usage(a->usage, stdout);
        return GRADE_EXIT_OK;
    }
    /* Ctrl-C and SIGTERM: stop grading, clean up, and write what is done (no SA_RESTART,
     * so that the pool's wait returns to see it). */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const char *rubric_shown;
    rc = grade_app_paths(a, &rubric_shown);
    if (rc) return rc;

    /* --slurm --only-failed: the plan in --out has everything else. */
    if (a->opt.slurm && a->opt.only_failed) return grade_mode_only_failed(a);
    rc = grade_app_load(a, rubric_shown);
    if (rc) return rc;
    if (a->opt.install) return grade_mode_install(a);
    if (a->opt.slurm && (rc = grade_slurm_refuse_own_copy(a)) != 0) return rc;
    rc = grade_app_start(a, a->opt.gradescope ? NULL : grade_class_open);
    if (rc) return rc;

    rc = a->opt.gradescope ? grade_mode_gradescope(a) : a->opt.slurm ? grade_mode_slurm(a) : grade_mode_class(a);
    grade_app_finish(a);
    return rc;
}

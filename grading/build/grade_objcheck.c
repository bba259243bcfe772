/* grading/build/grade_objcheck.c: the check of a student's object between compile and link (see
 * grade_objcheck.h). */
#define _GNU_SOURCE
#include "grading/build/grade_objcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"

#define OBJCHECK_LOG_MAX (64u << 10)
#define OBJCHECK_SECONDS 30

/* What objcheck reads: its program and libraries, the kit (it is there), the object and
 * the student's file (for lines) in the build folder. */
static const char *const system_reads[] = {"/usr", "/lib", "/lib64", "/etc", NULL};

/* Appends text to the diagnostics, on a line of its own. */
static void add_diagnostics(char **diagnostics, const char *text) {
    if (!*text) return;
    char *both = grade_strf("%s%s%s", *diagnostics, **diagnostics ? "\n" : "", text);
    free(*diagnostics);
    *diagnostics = both;
}

/* objcheck's first line, "FILE:LINE: not accepted: WHY", as "not accepted: FILE:LINE: WHY". */
static char *first_refusal(const char *report) {
    const char *end = strchr(report, '\n');
    char *line = end ? strndup(report, (size_t)(end - report)) : grade_strdup(report);
    static const char mark[] = ": not accepted: ";
    char *at = strstr(line, mark);
    char *reason = at ? grade_strf("not accepted: %.*s: %s", (int)(at - line), line, at + sizeof(mark) - 1)
                      : grade_strf("not accepted: %s", *line ? line : "objcheck refused the object");
    free(line);
    return reason;
}

int grade_objcheck_step(const grade_sandbox_config *cfg, const grade_kit *kit, const char *build_dir,
                        const char *log_dir, const char *obj, char **diagnostics, char **error, bool *grader_fault) {
    char err[512];
    char *log_path = grade_path_join(log_dir, "objcheck.log");
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        *error = grade_strf("grader problem: cannot create %s: %s", log_path, strerror(errno));
        *grader_fault = true;
        free(log_path);
        return -1;
    }
    char *argv[] = {kit->objcheck, "--source", kit->student_file, (char *)obj, NULL, NULL};
    /* A sanitizer build's object carries what the sanitizers add (objcheck.h). */
    if (kit->sanitized) argv[4] = "--sanitized";
    char *env_home = grade_strf("HOME=%s", build_dir);
    char *envp[] = {"PATH=/usr/bin:/bin", env_home, "LANG=C.UTF-8", NULL, NULL, NULL};
    if (kit->sanitized) {
        /* A sanitizer build of objcheck (--config=asan): no leak check, which needs a
         * process of its own, no symbolizer process, and an error ends it with abort(), so
         * that it is never taken for a refusal (exit status 1). */
        envp[3] = "ASAN_OPTIONS=detect_leaks=0:symbolize=0:abort_on_error=1";
        envp[4] = "UBSAN_OPTIONS=print_stacktrace=0:halt_on_error=1:abort_on_error=1";
    }
    const char *reads[8];
    size_t n = 0;
    for (const char *const *p = system_reads; *p; p++) reads[n++] = *p;
    reads[n++] = kit->dir;
    reads[n++] = build_dir;
    reads[n] = NULL;
    const char *writes[] = {build_dir, NULL};
    grade_spawn s = {
        .argv = argv,
        .envp = envp,
        .cwd = build_dir,
        .stdout_fd = fd,
        .stderr_fd = fd,
        .events_fd = -1,
        .events_read_fd = -1,
        .limits = {.wall_s = OBJCHECK_SECONDS, .cpu_s = OBJCHECK_SECONDS, .mem_mb = 1024, .fsize_mb = 1, .nproc = 64,
                   .nofile = 64},
        .write_dirs = writes,
        /* A sanitizer build reads /proc/self/maps: reads are not confined, as for its labs. */
        .read_dirs = kit->sanitized ? NULL : reads,
        .processes = GRADE_PROCESSES_REFUSE,
    };
    grade_outcome o;
    int rc = grade_sandbox_run(cfg, &s, &o);
    close(fd);
    free(env_home);
    char *text = NULL, *report = NULL;
    size_t len = 0;
    bool cut = false;
    if (grade_read_file(log_path, OBJCHECK_LOG_MAX, &text, &len, &cut, err, sizeof(err)) == 0) {
        char *clean = grade_text_clean(text, len, OBJCHECK_LOG_MAX);
        char *prefix = grade_strf("%s/", build_dir);
        char *a = grade_text_replace(clean, prefix, "");
        report = grade_text_replace(a, kit->dir, "<lab kit>");
        free(a);
        free(prefix);
        free(clean);
        free(text);
    } else {
        report = grade_strdup("");
    }
    free(log_path);
    int result = -1;
    if (rc != 0) {
        *error = grade_strf("grader problem: objcheck could not run: %s", o.error);
        *grader_fault = true;
    } else if (o.end == GRADE_END_EXIT && o.code == 0) {
        result = 0;
    } else if (o.end == GRADE_END_EXIT && o.code == 1) {
        add_diagnostics(diagnostics, report);
        *error = first_refusal(report);
    } else {
        /* Usage, a crash or a limit: the grader's kit is at fault, not the student. */
        add_diagnostics(diagnostics, report);
        *error = o.end == GRADE_END_EXIT
                         ? grade_strf("grader problem: objcheck failed (exit status %d)", o.code)
                         : grade_strf("grader problem: objcheck did not finish (%s)",
                                      o.end == GRADE_END_SIGNAL ? grade_signal_name(o.code) : "stopped by a limit");
        *grader_fault = true;
    }
    free(report);
    return result;
}

/* grading/build/grade_build.c: compile and link a submission against a kit (see grade_build.h). */
#define _GNU_SOURCE
#include "grading/build/grade_build.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_diag.h"
#include "grading/build/grade_objcheck.h"
#include "grading/build/grade_toolchain.h"

#define DIAG_MAX (64u << 10)
#define MAX_READS 256

/* What a step may read: what its compiler needs (grade_toolchain.h), the kit's folder
 * (`kit_part`: its include/ folder for a compile, all of it for a link), the build folder,
 * and any absolute folder the kit's own command line names (-I, -isystem, -L, -B, ...: a
 * toolkit's headers or libraries outside the kit). */
static size_t step_reads(const char *reads[], char *const *toolchain, const char *kit_part, const char *build_dir,
                         char **argv) {
    size_t n = 0;
    for (char *const *p = toolchain; p && *p && n < MAX_READS - 8; p++) reads[n++] = *p;
    reads[n++] = kit_part;
    reads[n++] = build_dir;
    /* -B: gcc also hands its program folders to the linker as library folders. */
    static const char *const flags[] = {"-I", "-isystem", "-iquote", "-idirafter", "-L", "-B"};
    for (char **a = argv + 1; *a && n < MAX_READS - 1; a++) {
        for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
            size_t len = strlen(flags[f]);
            if (strncmp(*a, flags[f], len) != 0) continue;
            const char *dir = (*a)[len] ? *a + len : a[1];
            if (dir && dir[0] == '/' && n < MAX_READS - 1) reads[n++] = dir;
            break;
        }
    }
    reads[n] = NULL;
    return n;
}

static int run_tool(const grade_sandbox_config *cfg, char **argv, const char *build_dir, const char *const *read_dirs,
                    char *const *list_dirs, const char *log_path, grade_outcome *outcome, char **log, char *err,
                    size_t err_len) {
    *log = NULL;
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create %s: %s", log_path, strerror(errno));
        return -1;
    }
    char *env_home = grade_strf("HOME=%s", build_dir);
    char *env_tmp = grade_strf("TMPDIR=%s", build_dir);
    char *envp[] = {"PATH=/usr/bin:/bin", env_home, env_tmp, "LANG=C.UTF-8", NULL};
    const char *write_dirs[] = {build_dir, NULL};
    grade_spawn s = {
        .argv = argv,
        .envp = envp,
        .cwd = build_dir,
        .stdout_fd = fd,
        .stderr_fd = fd,
        .events_fd = -1,
        .events_read_fd = -1,
        /* CPU time is each process's (cc1's, as's); wall-clock time and memory are the
         * whole step's. */
        .limits = {.wall_s = grade_compile_wall_s(cfg), .cpu_s = cfg->compile_s, .mem_mb = cfg->compile_mem_mb,
                   .fsize_mb = 256, .nproc = 64, .nofile = 1024},
        .write_dirs = write_dirs,
        .read_dirs = read_dirs,
        .list_dirs = (const char *const *)list_dirs,
        .processes = GRADE_PROCESSES_ALLOWED,
    };
    int rc = grade_sandbox_run(cfg, &s, outcome);
    close(fd);
    free(env_home);
    free(env_tmp);
    char *text = NULL;
    size_t len = 0;
    bool cut = false;
    char why[256];
    if (grade_read_file(log_path, DIAG_MAX, &text, &len, &cut, why, sizeof(why)) == 0) {
        *log = grade_text_clean(text, len, DIAG_MAX);
        free(text);
    } else {
        *log = grade_strdup("");
    }
    if (rc != 0) snprintf(err, err_len, "%s", outcome->error);
    return rc;
}

/* The diagnostics as the student should read them: no scratch or kit paths. */
static char *tidy(const char *log, const char *build_dir, const char *kit_dir) {
    char *prefix = grade_strf("%s/", build_dir);
    char *a = grade_text_replace(log, prefix, "");
    /* Headers of the kit appear at their repository paths (labs/harness/lab.h), as in a
     * build of the repository. */
    char *kit_include = grade_strf("%s/include/", kit_dir);
    char *b = grade_text_replace(a, kit_include, "");
    char *c = grade_text_replace(b, kit_dir, "<lab kit>");
    free(kit_include);
    free(prefix);
    free(a);
    free(b);
    return c;
}

/* Whether a step ended on a limit rather than on the file's errors, and then why. A
 * process over its CPU time is killed by SIGXCPU (SIGKILL past the hard limit); when that
 * process is a pass the driver runs (cc1), the driver says so ("CPU time limit exceeded
 * signal terminated program cc1": the steps run in C.UTF-8, untranslated) and exits. */
static char *limit_reason(const grade_sandbox_config *cfg, const grade_outcome *o, const char *log, const char *step) {
    bool cpu = (o->end == GRADE_END_SIGNAL && o->code == SIGXCPU) ||
               (o->end == GRADE_END_SIGNAL && o->code == SIGKILL && o->cpu_s >= cfg->compile_s) ||
               (o->end == GRADE_END_EXIT && o->code != 0 &&
                (strstr(log, "CPU time limit exceeded") || o->cpu_s >= cfg->compile_s));
    if (o->end == GRADE_END_WALL)
        return grade_strf("the %s took too long: it was stopped after %d s (a macro that expands without end?)", step,
                          grade_compile_wall_s(cfg));
    if (cpu)
        return grade_strf("the %s took too long: it was stopped after %d s of CPU time (a macro that expands "
                          "without end?)",
                          step, cfg->compile_s);
    if (o->end == GRADE_END_MEMORY)
        return grade_strf("the %s used too much memory: it was stopped at %ld MiB (a macro that expands without "
                          "end?)",
                          step, cfg->compile_mem_mb);
    return NULL;
}

/* The assembler speaks of gcc's temporary file (ccXXXXXX.s, a random name): call it lab.s,
 * so that a report reads the same on every run. */
static char *name_assembly(char *log) {
    for (char *p = strstr(log, "cc"); p; p = strstr(p + 1, "cc")) {
        size_t n = 0;
        while (n < 6 && ((p[2 + n] >= 'a' && p[2 + n] <= 'z') || (p[2 + n] >= 'A' && p[2 + n] <= 'Z') ||
                         (p[2 + n] >= '0' && p[2 + n] <= '9')))
            n++;
        if (n == 6 && !strncmp(p + 8, ".s:", 3) && (p == log || p[-1] == '\n' || p[-1] == ' ')) {
            /* "ccXXXXXX.s:" (11 bytes) becomes "lab.s:" (6). */
            memcpy(p, "lab.s:", 6);
            memmove(p + 6, p + 11, strlen(p + 11) + 1);
        }
    }
    return log;
}

/* The line a reason quotes: the first error about the student's file, else the
 * assembler's first error ("lab.s:9: Error: ..."), which grade_diag does not look for. */
static char *first_error(const char *diag, const char *student_file) {
    char *first = grade_diag_first_error(diag, student_file);
    if (strstr(first, "rror")) return first;
    const char *hit = strstr(diag, ": Error: ");
    if (!hit) return first;
    while (hit > diag && hit[-1] != '\n') hit--;
    free(first);
    return grade_text_first_line(hit, 300);
}

static char *describe_end(const grade_outcome *o, const char *tool) {
    switch (o->end) {
    case GRADE_END_SIGNAL: return grade_strf("the %s was killed by %s", tool, grade_signal_name(o->code));
    default: return grade_strf("the %s failed (exit status %d)", tool, o->code);
    }
}

int grade_build_lab(const grade_sandbox_config *cfg, const grade_kit *kit, const char *build_dir, const char *log_dir,
                    const char *source, size_t source_len, grade_build_result *out) {
    memset(out, 0, sizeof(*out));
    out->diagnostics = grade_strdup("");
    char err[768];
    char *src_path = grade_path_join(build_dir, kit->student_file);
    char *src_copy = grade_strdup(src_path);
    char *src_dir = grade_strdup(dirname(src_copy));
    free(src_copy);
    char *compile_log = grade_path_join(log_dir, "compile.log");
    char *link_log = grade_path_join(log_dir, "link.log");
    char **argv = NULL;
    char *log = NULL;
    grade_outcome o;
    int rc = -1;

    if (grade_mkdir_p(build_dir, 0755, err, sizeof(err)) || grade_mkdir_p(src_dir, 0755, err, sizeof(err)) ||
        grade_mkdir_p(log_dir, 0700, err, sizeof(err)) ||
        grade_write_new_file(src_path, source, source_len, 0644, err, sizeof(err)) ||
        grade_sandbox_give(cfg, build_dir, err, sizeof(err))) {
        out->error = grade_strf("grader problem: %s", err);
        out->grader_fault = true;
        goto done;
    }
    const grade_toolchain *tc = grade_toolchain_get(kit->compiler);
    const char *reads[MAX_READS];
    char *kit_include = grade_path_join(kit->dir, "include");
    argv = grade_kit_compile_argv(kit, kit->student_file, "lab.o");
    step_reads(reads, tc->compile_reads, kit_include, build_dir, argv);
    int ran = run_tool(cfg, argv, build_dir, reads, NULL, compile_log, &o, &log, err, sizeof(err));
    free(kit_include);
    if (ran != 0) {
        out->error = grade_strf("grader problem: %s", err);
        out->grader_fault = true;
        goto done;
    }
    free(out->diagnostics);
    out->diagnostics = name_assembly(tidy(log, build_dir, kit->dir));
    if (o.end != GRADE_END_EXIT || o.code != 0) {
        char *limit = limit_reason(cfg, &o, log, "compiler");
        char *first = first_error(out->diagnostics, kit->student_file);
        char *how = describe_end(&o, "compiler");
        char *missing = grade_diag_cuda_missing(first);
        out->error = grade_strf("does not compile: %s%s%s", limit ? limit : *first ? first : how,
                                !limit && *missing ? "; " : "", !limit ? missing : "");
        free(missing);
        free(limit);
        free(first);
        free(how);
        goto done;
    }
    grade_argv_free(argv);
    free(log);
    log = NULL;
    argv = NULL;

    /* The student's object before it is linked, refused like a compile error (grade_objcheck.h). */
    if (grade_objcheck_step(cfg, kit, build_dir, log_dir, "lab.o", &out->diagnostics, &out->error, &out->grader_fault) != 0)
        goto done;

    argv = grade_kit_link_argv(kit, "lab.o", "lab");
    const grade_toolchain *ltc = grade_toolchain_get(kit->linker);
    step_reads(reads, ltc->link_reads, kit->dir, build_dir, argv);
    if (run_tool(cfg, argv, build_dir, reads, ltc->link_lists, link_log, &o, &log, err, sizeof(err)) != 0) {
        out->error = grade_strf("grader problem: %s", err);
        out->grader_fault = true;
        goto done;
    }
    char *link_diag = tidy(log, build_dir, kit->dir);
    if (*link_diag) {
        char *both = grade_strf("%s%s%s", out->diagnostics, *out->diagnostics ? "\n" : "", link_diag);
        free(out->diagnostics);
        out->diagnostics = both;
    }
    if (o.end != GRADE_END_EXIT || o.code != 0) {
        char *limit = limit_reason(cfg, &o, log, "linker");
        char *first = first_error(link_diag, kit->student_file);
        char *how = describe_end(&o, "linker");
        out->error = grade_strf("does not link: %s", limit ? limit : *first ? first : how);
        free(limit);
        free(first);
        free(how);
        free(link_diag);
        goto done;
    }
    free(link_diag);
    out->binary = grade_path_join(build_dir, "lab");
    chmod(out->binary, 0755);
    out->built = true;
    rc = 0;
done:
    grade_argv_free(argv);
    free(log);
    free(src_path);
    free(src_dir);
    free(compile_log);
    free(link_log);
    return rc;
}

void grade_build_result_free(grade_build_result *r) {
    free(r->binary);
    free(r->diagnostics);
    free(r->error);
    memset(r, 0, sizeof(*r));
}

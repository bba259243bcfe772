/* grading/grade_build.c: compile and link a submission against a kit (see grade_build.h). */
#define _GNU_SOURCE
#include "grading/grade_build.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grading/grade_diag.h"
#include "grading/grade_fs.h"
#include "grading/grade_objcheck.h"
#include "grading/grade_text.h"

#define DIAG_MAX (64u << 10)
#define BUILD_SECONDS 120

/* Folders a compiler needs to read: the system's, and the kit. */
static const char *const system_read_dirs[] = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc",
                                               "/dev/null", "/dev/urandom", "/dev/zero", NULL};

static int run_tool(const grade_sandbox_config *cfg, char **argv, const char *build_dir, const char *kit_dir,
                    const char *log_path, grade_outcome *outcome, char **log, char *err, size_t err_len) {
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
    const char *read_dirs[16];
    size_t n = 0;
    for (const char *const *p = system_read_dirs; *p; p++) read_dirs[n++] = *p;
    read_dirs[n++] = kit_dir;
    read_dirs[n++] = build_dir;
    read_dirs[n] = NULL;
    grade_spawn s = {
        .argv = argv,
        .envp = envp,
        .cwd = build_dir,
        .stdout_fd = fd,
        .stderr_fd = fd,
        .events_fd = -1,
        .events_read_fd = -1,
        .limits = {.wall_s = BUILD_SECONDS, .cpu_s = BUILD_SECONDS, .mem_mb = 4096, .fsize_mb = 256, .nproc = 64, .nofile = 1024},
        .write_dirs = write_dirs,
        .read_dirs = read_dirs,
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

static char *describe_end(const grade_outcome *o, const char *tool) {
    switch (o->end) {
    case GRADE_END_WALL: return grade_strf("the %s ran for over %d s and was stopped", tool, BUILD_SECONDS);
    case GRADE_END_MEMORY: return grade_strf("the %s used too much memory and was stopped", tool);
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
    argv = grade_kit_compile_argv(kit, kit->student_file, "lab.o");
    if (run_tool(cfg, argv, build_dir, kit->dir, compile_log, &o, &log, err, sizeof(err)) != 0) {
        out->error = grade_strf("grader problem: %s", err);
        out->grader_fault = true;
        goto done;
    }
    free(out->diagnostics);
    out->diagnostics = tidy(log, build_dir, kit->dir);
    if (o.end != GRADE_END_EXIT || o.code != 0) {
        char *first = grade_diag_first_error(out->diagnostics, kit->student_file);
        char *how = describe_end(&o, "compiler");
        out->error = *first ? grade_strf("does not compile: %s", first) : grade_strf("does not compile: %s", how);
        free(first);
        free(how);
        goto done;
    }
    grade_argv_free(argv);
    free(log);
    log = NULL;
    argv = NULL;

    /* The student's object before it is linked, refused like a compile error (grade_objcheck.h). */
    if (grade_objcheck_step(cfg, kit, build_dir, log_dir, "lab.o", out) != 0) goto done;

    argv = grade_kit_link_argv(kit, "lab.o", "lab");
    if (run_tool(cfg, argv, build_dir, kit->dir, link_log, &o, &log, err, sizeof(err)) != 0) {
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
        char *first = grade_diag_first_error(link_diag, kit->student_file);
        char *how = describe_end(&o, "linker");
        out->error = *first ? grade_strf("does not link: %s", first) : grade_strf("does not link: %s", how);
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

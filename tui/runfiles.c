/* tui/runfiles.c: finding the runfiles tree (see runfiles.h). */
#define _DEFAULT_SOURCE
#include "tui/runfiles.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tui_runfiles_path(const char *root, const char *path, char *out, size_t size) {
    int n = snprintf(out, size, "%s/%s/%s", root, TUI_WORKSPACE, path);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int try_root(const char *root, const char *probe, char *out, size_t size) {
    if (!root || !*root) return -1;
    char path[PATH_MAX];
    if (tui_runfiles_path(root, probe, path, sizeof(path)) != 0 || access(path, R_OK) != 0) return -1;
    char abs[PATH_MAX];
    const char *r = realpath(root, abs) ? abs : root;
    int n = snprintf(out, size, "%s", r);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int tui_runfiles_root(const char *argv0, const char *probe, char *out, size_t size) {
    char candidate[PATH_MAX];
    if (try_root(getenv("RUNFILES_DIR"), probe, out, size) == 0) return 0;
    if (argv0 && snprintf(candidate, sizeof(candidate), "%s.runfiles", argv0) < (int)sizeof(candidate) &&
        try_root(candidate, probe, out, size) == 0)
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (snprintf(candidate, sizeof(candidate), "%s.runfiles", exe) < (int)sizeof(candidate) &&
            try_root(candidate, probe, out, size) == 0)
            return 0;
    }
    if (try_root(getenv("TEST_SRCDIR"), probe, out, size) == 0) return 0;
    /* Running from inside the runfiles tree (bazel run's working directory). */
    if (getcwd(candidate, sizeof(candidate))) {
        char *slash = strrchr(candidate, '/');
        if (slash && !strcmp(slash + 1, TUI_WORKSPACE)) {
            *slash = '\0';
            if (try_root(candidate, probe, out, size) == 0) return 0;
        }
    }
    snprintf(out, size,
             "could not find %s among this program's runfiles (set RUNFILES_DIR, or start it with "
             "`bazel run //tui`)",
             probe);
    return -1;
}

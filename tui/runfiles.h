/* tui/runfiles.h: where Bazel put the files this binary was built with (the lab
 * launchers and labs/catalog.json): RUNFILES_DIR, or BINARY.runfiles next to the binary
 * (`bazel run`), or TEST_SRCDIR (`bazel test`). */
#ifndef STREAMLAB_TUI_RUNFILES_H
#define STREAMLAB_TUI_RUNFILES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The workspace's name in runfiles paths. */
#define TUI_WORKSPACE "streamlab"

/* Finds the runfiles root: a directory holding TUI_WORKSPACE/probe (probe is a runfiles
 * path such as "labs/catalog.json"). argv0 is the program's argv[0]. Returns 0 with the
 * root in out, or -1 with a message in out. */
int tui_runfiles_root(const char *argv0, const char *probe, char *out, size_t size);

/* root/TUI_WORKSPACE/path into out. Returns 0, or -1 when it does not fit. */
int tui_runfiles_path(const char *root, const char *path, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif

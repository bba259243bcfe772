/* grading/sandbox/grade_landlock.h: confining a child's file access with Landlock (Linux 5.13+),
 * called in the child between fork and exec. Writes (and, when asked, reads) are allowed
 * beneath the folders named and nowhere else; with a new enough kernel, TCP is cut off
 * and signals to processes outside the child's own sandbox are refused. The kernel's
 * <linux/landlock.h> may be older than the kernel itself: the ABI constants are the
 * kernel's and are spelled out here where the header lacks them. */
#ifndef STREAMLAB_GRADE_LANDLOCK_H
#define STREAMLAB_GRADE_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_landlock_rules {
    const char *const *write_dirs; /* NULL-terminated: everything allowed beneath */
    const char *const *read_dirs;  /* NULL-terminated: read and execute beneath; NULL: reads not confined */
    const char *const *list_dirs;  /* NULL-terminated: with read_dirs, folders beneath may be listed, no
                                      file in them read (a linker's search folders) */
    const char *const *write_files; /* NULL-terminated single files opened for writing (/dev/null) */
    bool scope_signals;            /* refuse signals to processes outside the sandbox (ABI 6) */
    bool scope_abstract_sockets;   /* refuse abstract unix sockets outside it (ABI 6) */
    bool deny_tcp;                 /* refuse TCP bind and connect (ABI 4) */
} grade_landlock_rules;

/* The kernel's Landlock ABI version (1, 2, ...), or -1 with why in why (may be NULL). */
int grade_landlock_abi(char *why, size_t why_len);
/* Restricts the calling process (and what it execs) to rules. Needs no_new_privs (or
 * CAP_SYS_ADMIN). Returns 0, or -1 with the failing step in err. Paths that do not exist
 * are skipped. */
int grade_landlock_restrict(int abi, const grade_landlock_rules *rules, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif

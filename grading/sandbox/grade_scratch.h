/* grading/sandbox/grade_scratch.h: a cap on the total size of a sandboxed program's scratch folder
 * (its working and home folder), beside RLIMIT_FSIZE's cap on each file.
 *
 * Where the grader may mount, the folder is a tmpfs of its own, of the cap's size and at
 * most GRADE_SCRATCH_FILES files, mounted in a private mount namespace of the child's
 * between fork and exec: nobody else sees it, writes past the cap fail with ENOSPC, and
 * it is gone with the last process that sees it. The grader, watching from outside
 * (statfs through /proc/<pid>/root), ends a program that fills it. As root the child
 * mounts it before it switches users (GRADE_SCRATCH_MOUNT); a grader that is not root, or
 * a root without CAP_SYS_ADMIN (a container's), may still mount it in a user namespace
 * of the child's own (GRADE_SCRATCH_USERNS, where the kernel allows unprivileged user
 * namespaces). Where neither works, the grader adds up the folder's size while the
 * program runs and ends it past the cap (GRADE_SCRATCH_WATCH): a program can write past
 * the cap for as long as one look takes (a tenth of a second), and what it wrote stays on
 * the disk until its scratch folder is removed. */
#ifndef STREAMLAB_GRADE_SCRATCH_H
#define STREAMLAB_GRADE_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cap when none is given (--scratch-mb). A lab program needs no scratch space at all;
 * this leaves room for a CUDA driver's cache of compiled kernels. */
#define GRADE_SCRATCH_MB_DEFAULT 128
/* Files and folders a scratch folder may hold. */
#define GRADE_SCRATCH_FILES 4096

typedef enum grade_scratch_mode {
    GRADE_SCRATCH_WATCH = 0, /* the grader adds up the folder's size */
    GRADE_SCRATCH_MOUNT,     /* a private tmpfs, mounted by root before the user switch */
    GRADE_SCRATCH_USERNS     /* a private tmpfs in a user namespace of the child's own */
} grade_scratch_mode;

/* Which mode works here, trying each in a short-lived child (as the sandbox user, uid and
 * gid, when drop_user). why says what the others lacked. */
grade_scratch_mode grade_scratch_probe(bool drop_user, uid_t uid, gid_t gid, char *why, size_t why_len);

/* In the child, between fork and exec: mounts the capped tmpfs on dir (an absolute path).
 * GRADE_SCRATCH_MOUNT needs CAP_SYS_ADMIN (before the user switch) and makes it uid:gid's;
 * GRADE_SCRATCH_USERNS is done as the final user (after the switch; uid and gid are not
 * used: the tmpfs is that user's, who is root neither outside nor inside) and before
 * anything that a change of credentials undoes (PR_SET_PDEATHSIG). The caller changes into
 * dir again afterwards. Returns 0, or -1 with the failing step in err. */
int grade_scratch_mount(grade_scratch_mode mode, const char *dir, long cap_mb, uid_t uid, gid_t gid, char *err,
                        size_t err_len);

typedef enum grade_scratch_state {
    GRADE_SCRATCH_OK = 0,
    GRADE_SCRATCH_FULL_BYTES, /* as many bytes as the cap */
    GRADE_SCRATCH_FULL_FILES  /* as many files as GRADE_SCRATCH_FILES */
} grade_scratch_state;

/* In the parent, while pid runs: whether its scratch folder dir is full. *used_bytes gets
 * what it holds (or -1 when it cannot be seen: the program is ending). */
grade_scratch_state grade_scratch_check(grade_scratch_mode mode, pid_t pid, const char *dir, long cap_mb,
                                        long long *used_bytes);

#ifdef __cplusplus
}
#endif

#endif

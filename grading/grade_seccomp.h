/* grading/grade_seccomp.h: a seccomp filter that stops a lab program from starting
 * processes (fork, vfork, clone without CLONE_THREAD), while threads still work. Without
 * it a fork bomb would be held back only by RLIMIT_NPROC, which the kernel does not apply
 * to root: and in a container or a build sandbox the grader may be a root that cannot
 * switch to another user. */
#ifndef STREAMLAB_GRADE_SECCOMP_H
#define STREAMLAB_GRADE_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the filter on the calling process (needs no_new_privs). kill: a process that
 * tries is killed with SIGSYS; otherwise the call fails with EPERM. Returns 0, or -1 with
 * err filled (also on machines this filter is not written for). */
int grade_seccomp_no_processes(bool kill, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif

/* grading/grade_seccomp.h: the seccomp filter every sandboxed program gets (one filter,
 * installed last before exec):
 *
 *  - processes: a lab program may not start processes (fork, vfork, clone without
 *    CLONE_THREAD), while threads still work; trying kills it (SIGSYS) or fails with
 *    EPERM. Without this a fork bomb would be held back only by RLIMIT_NPROC, which the
 *    kernel does not apply to root: and in a container or a build sandbox the grader may
 *    be a root that cannot switch to another user.
 *  - sockets: socket() and socketpair() of any family (IP, Unix, netlink, packet, ...)
 *    fail with EACCES, and io_uring, which can open sockets without those calls, is
 *    absent (ENOSYS). Neither a lab nor a compiler needs a socket: the event stream is a
 *    pipe the grader made. The one exception, for programs on a real GPU only, is a Unix
 *    socket of type SOCK_SEQPACKET: the CUDA driver makes one when it starts, to ask
 *    whether an MPS server runs (it connects to /tmp/nvidia-mps/control).
 *  - namespaces and mounts (lab programs): unshare, setns, mount and the new mount API
 *    fail with EPERM, so that a program cannot mount a tmpfs of its own beside the capped
 *    scratch folder, or leave it.
 *  - memfd_create (lab programs on the simulator): EPERM. Its memory is counted by no
 *    limit while it is not mapped. The CUDA driver needs it, so GPU runs keep it.
 *
 * Another ABI (i386 system calls, x32) kills the process. */
#ifndef STREAMLAB_GRADE_SECCOMP_H
#define STREAMLAB_GRADE_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_seccomp_processes {
    GRADE_SECCOMP_PROCESSES_ALLOW = 0,
    GRADE_SECCOMP_PROCESSES_KILL,   /* SIGSYS */
    GRADE_SECCOMP_PROCESSES_REFUSE  /* EPERM */
} grade_seccomp_processes;

typedef struct grade_seccomp_rules {
    grade_seccomp_processes processes;
    bool no_sockets;       /* socket, socketpair: EACCES; io_uring_setup: ENOSYS */
    bool unix_seqpacket;   /* with no_sockets: socket(AF_UNIX, SOCK_SEQPACKET) still works (GPU) */
    bool no_namespaces;    /* unshare, setns, mount, umount, pivot_root, chroot, new mount API: EPERM */
    bool no_memfd;         /* memfd_create, memfd_secret: EPERM */
} grade_seccomp_rules;

/* Installs the filter on the calling process (needs no_new_privs). Returns 0, or -1 with
 * err filled (also on machines this filter is not written for). */
int grade_seccomp_install(const grade_seccomp_rules *rules, char *err, size_t err_len);

/* The process rule alone: kill or refuse. */
int grade_seccomp_no_processes(bool kill, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif

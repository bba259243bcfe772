/* labs/referee/confine.h: seccomp filters, one program each, installed last before exec.
 *
 * Two users. The grader's sandbox gives every program it runs a filter made of the rules
 * below (grading/sandbox/grade_sandbox.c). The referee gives the student's process a stricter one
 * of its own before it starts the student's program (lab_confine_student), wherever a lab
 * runs: `bazel run`, the TUI, the grader. Filters stack, so under the grader the student's
 * process has both.
 *
 *  - processes: no new process (fork, vfork, clone without CLONE_THREAD), while threads
 *    still work; trying kills it (SIGSYS) or fails with EPERM. Without this a fork bomb
 *    would be held back only by RLIMIT_NPROC, which the kernel does not apply to root: and
 *    in a container or a build sandbox the grader may be a root that cannot switch to
 *    another user.
 *  - sockets: socket() and socketpair() of any family (IP, Unix, netlink, packet, ...)
 *    fail with EACCES, and io_uring, which can open sockets without those calls, is
 *    absent (ENOSYS). Neither a lab nor a compiler needs a socket: the event stream is a
 *    pipe the grader made. The one exception, for the referee on a real GPU only, is a Unix
 *    socket of type SOCK_SEQPACKET: the CUDA driver makes one when it starts, to ask
 *    whether an MPS server runs (it connects to /tmp/nvidia-mps/control).
 *  - namespaces and mounts: unshare, setns, mount and the new mount API fail with EPERM,
 *    so that a program cannot mount a tmpfs of its own beside the capped scratch folder,
 *    or leave it.
 *  - signals (the student's process): only to itself. It shares a process group and a
 *    sandbox with its referee, which it could otherwise stop or kill.
 *  - tracing (the student's process): ptrace and process_vm_readv/writev fail with EPERM,
 *    behind its referee's being not dumpable and its own lack of privilege.
 *  - memfd_create: EPERM. Its memory is counted by no limit while it is not mapped. The
 *    referee makes the memory it shares with the student's process this way (and the CUDA
 *    driver needs it when it starts), so only the student's process goes without.
 *
 * Another ABI (i386 system calls, x32) kills the process. */
#ifndef STREAMLAB_LAB_CONFINE_H
#define STREAMLAB_LAB_CONFINE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lab_confine_processes {
    LAB_CONFINE_PROCESSES_ALLOW = 0,
    LAB_CONFINE_PROCESSES_KILL,   /* SIGSYS */
    LAB_CONFINE_PROCESSES_REFUSE  /* EPERM */
} lab_confine_processes;

typedef struct lab_confine_rules {
    lab_confine_processes processes;
    bool no_sockets;       /* socket, socketpair: EACCES; io_uring_setup: ENOSYS */
    bool unix_seqpacket;   /* with no_sockets: socket(AF_UNIX, SOCK_SEQPACKET) still works (GPU) */
    bool no_namespaces;    /* unshare, setns, mount, umount, pivot_root, chroot, new mount API: EPERM */
    bool no_memfd;         /* memfd_create, memfd_secret: EPERM */
    bool no_tracing;       /* ptrace, process_vm_readv, process_vm_writev: EPERM */
    int signals_self_only; /* a pid: kill, tgkill and rt_(tg)sigqueueinfo only to that process,
                              tkill and pidfd_send_signal never (EPERM); 0: no rule */
} lab_confine_rules;

/* Installs the filter on the calling process (needs no_new_privs). Returns 0, or -1 with
 * err filled (also on machines this filter is not written for). */
int lab_confine_install(const lab_confine_rules *rules, char *err, size_t err_len);

/* The process rule alone: kill or refuse. */
int lab_confine_no_processes(bool kill, char *err, size_t err_len);

/* The student's process, from the referee's child before it starts the student's program:
 * no process (SIGSYS), no socket of any family, no namespace or mount, no memfd, no signal
 * to another process (its referee included). The
 * student's process needs none of them: the referee owns the device and every file the
 * grade depends on. */
int lab_confine_student(char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif

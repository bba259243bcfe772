/* labs/referee/confine.c: seccomp filters (see confine.h), written with
 * the kernel's BPF macros: one program, each rule a block that either returns or is
 * skipped whole, so that the accumulator still holds the system call's number after it. */
#define _GNU_SOURCE
#include "labs/referee/confine.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
/* Numbers newer than some C libraries' headers (the same on x86-64 and arm64). */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif
#ifndef __NR_fspick
#define __NR_fspick 433
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define MAX_INSNS 128

typedef struct program {
    struct sock_filter f[MAX_INSNS];
    unsigned n;
} program;

static void put(program *p, struct sock_filter insn) {
    if (p->n < MAX_INSNS) p->f[p->n] = insn;
    p->n++;
}

static void load_nr(program *p) { put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))); }

static void load_arg(program *p, int i) {
    /* The low 32 bits of the argument (both architectures are little-endian). */
    put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i])));
}

static void ret(program *p, unsigned int action) { put(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action)); }

/* nr -> action; nr stays in the accumulator otherwise. */
static void deny(program *p, unsigned int nr, unsigned int action) {
    put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
    ret(p, action);
}

int lab_confine_install(const lab_confine_rules *r, char *err, size_t err_len) {
#ifndef AUDIT_ARCH_HERE
    (void)r;
    snprintf(err, err_len, "the seccomp filter is written for x86-64 and arm64 only");
    return -1;
#else
    program p = {.n = 0};
    /* Another ABI (i386 through int 0x80): not allowed at all. */
    put(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0));
    ret(&p, SECCOMP_RET_KILL_PROCESS);
    load_nr(&p);
#if defined(__x86_64__)
    /* x32 system calls (numbers with bit 30 set): none of them. */
    put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1));
    ret(&p, SECCOMP_RET_KILL_PROCESS);
#endif

    if (r->no_sockets) {
        if (r->unix_seqpacket) {
            /* socket(AF_UNIX, SOCK_SEQPACKET [| SOCK_CLOEXEC | SOCK_NONBLOCK], ...) only. */
            put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 7));
            load_arg(&p, 0);
            put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 4));
            load_arg(&p, 1);
            put(&p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~(unsigned int)(SOCK_NONBLOCK | SOCK_CLOEXEC)));
            put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_SEQPACKET, 0, 1));
            ret(&p, SECCOMP_RET_ALLOW);
            ret(&p, ERRNO(EACCES));
        } else {
            deny(&p, __NR_socket, ERRNO(EACCES));
        }
        deny(&p, __NR_socketpair, ERRNO(EACCES));
        /* io_uring opens sockets (IORING_OP_SOCKET) without the calls above: a kernel
         * without io_uring, as far as the program can tell. */
        deny(&p, __NR_io_uring_setup, ERRNO(ENOSYS));
    }
    if (r->no_namespaces) {
        static const unsigned int calls[] = {__NR_unshare,  __NR_setns,   __NR_mount,     __NR_umount2,
                                             __NR_pivot_root, __NR_chroot, __NR_open_tree, __NR_move_mount,
                                             __NR_fsopen,   __NR_fsconfig, __NR_fsmount,  __NR_fspick,
                                             __NR_mount_setattr};
        for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) deny(&p, calls[i], ERRNO(EPERM));
    }
    if (r->no_tracing) {
        deny(&p, __NR_ptrace, ERRNO(EPERM));
        deny(&p, __NR_process_vm_readv, ERRNO(EPERM));
        deny(&p, __NR_process_vm_writev, ERRNO(EPERM));
    }
    if (r->signals_self_only > 0) {
        /* The target is the first argument of each. */
        static const unsigned int targeted[] = {__NR_kill, __NR_tgkill, __NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo};
        for (size_t i = 0; i < sizeof(targeted) / sizeof(targeted[0]); i++) {
            put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, targeted[i], 0, 4));
            load_arg(&p, 0);
            put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)r->signals_self_only, 0, 1));
            ret(&p, SECCOMP_RET_ALLOW);
            ret(&p, ERRNO(EPERM));
        }
        deny(&p, __NR_tkill, ERRNO(EPERM));
        deny(&p, __NR_pidfd_send_signal, ERRNO(EPERM));
    }
    if (r->no_memfd) {
        deny(&p, __NR_memfd_create, ERRNO(EPERM));
        deny(&p, __NR_memfd_secret, ERRNO(EPERM));
    }

    if (r->processes == LAB_CONFINE_PROCESSES_ALLOW) {
        ret(&p, SECCOMP_RET_ALLOW);
    } else {
        const unsigned int no = r->processes == LAB_CONFINE_PROCESSES_KILL ? SECCOMP_RET_KILL_PROCESS : ERRNO(EPERM);
#if defined(__x86_64__)
        deny(&p, __NR_fork, no);
        deny(&p, __NR_vfork, no);
#endif
        /* clone3 passes its flags in memory a filter cannot read: say it does not exist,
         * and the C library falls back to clone, whose flags it can. */
        deny(&p, __NR_clone3, ERRNO(ENOSYS));
        put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0));
        ret(&p, SECCOMP_RET_ALLOW);
        /* clone: a thread (CLONE_THREAD) is fine, a process is not. The flags are the first
         * argument; CLONE_THREAD lives in its low 32 bits. */
        load_arg(&p, 0);
        put(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
        ret(&p, SECCOMP_RET_ALLOW);
        ret(&p, no);
    }

    if (p.n > MAX_INSNS) {
        snprintf(err, err_len, "seccomp: the filter has %u instructions, more than %d", p.n, MAX_INSNS);
        return -1;
    }
    struct sock_fprog prog = {.len = (unsigned short)p.n, .filter = p.f};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        snprintf(err, err_len, "seccomp: %s", strerror(errno));
        return -1;
    }
    return 0;
#endif
}

int lab_confine_no_processes(bool kill, char *err, size_t err_len) {
    lab_confine_rules r = {.processes = kill ? LAB_CONFINE_PROCESSES_KILL : LAB_CONFINE_PROCESSES_REFUSE};
    return lab_confine_install(&r, err, err_len);
}

int lab_confine_student(char *err, size_t err_len) {
    lab_confine_rules r = {
        .processes = LAB_CONFINE_PROCESSES_KILL,
        .no_sockets = true,
        .no_namespaces = true,
        .no_memfd = true,
        .no_tracing = true,
        .signals_self_only = (int)getpid(),
    };
    return lab_confine_install(&r, err, err_len);
}

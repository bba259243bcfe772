/* labs/harness/fault.c: reading a fault inside its signal handler (see fault.h). */
#define _GNU_SOURCE
#include "labs/harness/fault.h"

#include <execinfo.h>
#include <string.h>
#include <ucontext.h>

/* x86-64 page-fault error code: bit 1 set for a write. */
#define X86_PF_WRITE 0x2

void lab_fault_prepare(void) {
    /* glibc's backtrace loads the unwinder on its first call: do that now, not in the
     * handler. */
    void *frames[2];
    (void)backtrace(frames, 2);
}

static uintptr_t pc_of(const void *ucontext) {
    if (!ucontext) return 0;
    const ucontext_t *uc = ucontext;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static lab_fault_access access_of(int sig, const void *ucontext) {
#if defined(__x86_64__)
    if (sig != SIGSEGV || !ucontext) return LAB_FAULT_ACCESS_UNKNOWN;
    const ucontext_t *uc = ucontext;
    return (uc->uc_mcontext.gregs[REG_ERR] & X86_PF_WRITE) ? LAB_FAULT_WRITE : LAB_FAULT_READ;
#else
    (void)sig;
    (void)ucontext;
    return LAB_FAULT_ACCESS_UNKNOWN;
#endif
}

void lab_fault_read(int sig, const siginfo_t *info, const void *ucontext, lab_fault *out) {
    memset(out, 0, sizeof(*out));
    if (info && (sig == SIGSEGV || sig == SIGBUS)) out->addr = (uintptr_t)info->si_addr;
    out->pc = pc_of(ucontext);
    out->access = access_of(sig, ucontext);
    if (out->pc) out->frames[out->n_frames++] = out->pc;

    /* The handler's own frames, the signal trampoline, then the interrupted code: its
     * frames start at the faulting instruction. */
    void *stack[LAB_FAULT_MAX_FRAMES + 16];
    int n = backtrace(stack, (int)(sizeof(stack) / sizeof(stack[0])));
    int i = 0;
    while (i < n && (uintptr_t)stack[i] != out->pc) i++;
    if (!out->pc || i == n) return; /* the walk did not get through the signal frame */
    for (i++; i < n && out->n_frames < LAB_FAULT_MAX_FRAMES; i++)
        if ((uintptr_t)stack[i] > 1) out->frames[out->n_frames++] = (uintptr_t)stack[i] - 1;
}

/* labs/harness/fault.h: what a fatal signal says about the fault behind it, read inside
 * the handler: the faulting data address (si_addr), the instruction that faulted (from
 * the signal's machine context), whether it read or wrote (where the machine tells), and
 * the code addresses of the stack above it, for naming the source line
 * (source_line.h). */
#ifndef STREAMLAB_LAB_FAULT_H
#define STREAMLAB_LAB_FAULT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_FAULT_MAX_FRAMES 16

typedef enum lab_fault_access {
    LAB_FAULT_ACCESS_UNKNOWN = 0,
    LAB_FAULT_READ,
    LAB_FAULT_WRITE
} lab_fault_access;

typedef struct lab_fault {
    uintptr_t addr;          /* the data address of a SIGSEGV or SIGBUS (si_addr), else 0 */
    uintptr_t pc;            /* the instruction that faulted; 0 when not known */
    lab_fault_access access; /* x86-64 page faults only; else unknown */
    /* Code addresses to look up, innermost first: the faulting instruction, then each
     * caller's call instruction (a return address less one). */
    uintptr_t frames[LAB_FAULT_MAX_FRAMES];
    size_t n_frames;
    /* A write into a lab's result (lab_output) from the student's process, which may read
     * its results but not write them (docs/referee.md): which batch, and the byte. Set by
     * the harness from the address, outside the handler; in_result false otherwise. */
    bool in_result;
    bool result_pinned; /* the lab's results are page-locked */
    int result_batch;
    size_t result_offset, result_bytes;
} lab_fault;

/* Outside any handler, once: readies the stack walk (its first use loads a library). */
void lab_fault_prepare(void);
/* Inside a SA_SIGINFO handler (async-signal-safe once prepared): fills out from its
 * siginfo and ucontext arguments. */
void lab_fault_read(int sig, const siginfo_t *info, const void *ucontext, lab_fault *out);

#ifdef __cplusplus
}
#endif

#endif

/* labs/referee/protocol.h: what the referee and the student's process say to each other,
 * besides the commands (the CUDA calls, kernels and lab_* calls, numbered from
 * LAB_OP_FIRST_CALL on).
 *
 * The shared memory (shm.h) starts with a control page, then the command ring, then the
 * memory both use for data. The control page is written by the referee (the phase to run)
 * and read by the student's process; what the student's process writes there (its last
 * words when it crashes) the referee reads as untrusted text. */
#ifndef STREAMLAB_LAB_REFEREE_PROTOCOL_H
#define STREAMLAB_LAB_REFEREE_PROTOCOL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The student's process is started with this argument: --referee=FD,BASE,BYTES (the
 * memory file's descriptor, where to map it, its size; decimal, BASE in hex). */
#define LAB_REFEREE_ARG "--referee="

#define LAB_CONTROL_BYTES 4096u
/* The command ring starts after the control page; its size is in the control page. */

typedef enum lab_phase {
    LAB_PHASE_NONE = 0,
    LAB_PHASE_SETUP = 1,
    LAB_PHASE_RUN = 2,
    LAB_PHASE_TEARDOWN = 3,
    LAB_PHASE_EXIT = 4, /* leave: nothing more will be asked */
} lab_phase;

typedef struct lab_control {
    uint32_t phase_seq;         /* bumped by the referee for each phase it asks for (a futex;
                                   read and written with __atomic builtins) */
    uint32_t phase;             /* lab_phase: the phase asked for with phase_seq */
    uint64_t ring_bytes;        /* the ring's share of the memory, after the control page */
    uint64_t data_offset;       /* where the data memory starts */
    char last_words[1024];      /* the student's process, when it crashes: what happened */
} lab_control;

#ifndef __cplusplus
_Static_assert(sizeof(lab_control) <= LAB_CONTROL_BYTES, "the control page holds lab_control");
#endif

/* Records the student's process sends besides calls. */
enum {
    LAB_OP_PHASE_DONE = 1, /* int32: what setup() or run() returned (0 for teardown) */
    LAB_OP_HELLO = 2,      /* the student's process is attached and waits for a phase */
    LAB_OP_FIRST_CALL = 16 /* the calls' numbers start here */
};

#ifdef __cplusplus
}
#endif

#endif

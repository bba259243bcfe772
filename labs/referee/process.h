/* labs/referee/process.h: the referee's side of the student's process: start it, ask it
 * for a phase (setup, run, teardown) and serve its commands until the phase ends, end it.
 *
 * The student's process is started from its own binary with only the standard descriptors
 * and the shared memory's; the referee makes itself undumpable first, so the student's
 * process cannot read the referee's memory (/proc/PID/mem, ptrace) although both run as the
 * same user. It dies with the referee (PR_SET_PDEATHSIG). */
#ifndef STREAMLAB_LAB_REFEREE_PROCESS_H
#define STREAMLAB_LAB_REFEREE_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "labs/referee/protocol.h"
#include "labs/referee/ring.h"
#include "labs/referee/shm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest command payload the referee accepts. */
#define LAB_REFEREE_PAYLOAD_MAX (64u << 10)

typedef struct lab_referee {
    lab_shm shm;
    lab_shm outputs;  /* the lab's outputs: read-only in the student's process */
    lab_control *control;
    lab_ring *ring;   /* the consumer's handle */
    lab_ring *fn_ring; /* the consumer's handle on the ring of the student's host-function thread */
    pid_t pid;        /* the student's process, 0 when none */
    int status;       /* its wait status once it has ended */
    bool ended;
    uint32_t phase_seq;
    size_t data_offset;     /* the referee's own copy: the control page is writable by both */
    unsigned char *payload; /* LAB_REFEREE_PAYLOAD_MAX bytes for the command being served */
} lab_referee;

/* Serves one command: rec and payload as the ring gave them. Returns 0, or -1 to end the
 * phase as broken (a command no honest client sends). */
typedef int (*lab_referee_serve_fn)(void *ctx, lab_referee *ref, const lab_ring_record *rec, const void *payload);

typedef enum lab_phase_end {
    LAB_PHASE_ENDED = 0,   /* the phase returned; *rc is what it returned */
    LAB_PHASE_DIED = 1,    /* the student's process ended during the phase (status) */
    LAB_PHASE_BROKEN = 2,  /* it broke the protocol, and was ended */
    LAB_PHASE_TIMEOUT = 3, /* the phase ran past its time, and the process was ended */
} lab_phase_end;

/* Makes the shared memory (bytes in all, ring_bytes of it for the ring) and the outputs'
 * memory (outputs_bytes, sealed against the student's writes); shm_fd, outputs_fd >= 0:
 * memory files made by whoever started us (shm.h); flags: LAB_CONTROL_*. Then starts
 * argv[0] with argv (and LAB_REFEREE_ARG... appended). Returns 0, or -1 with err filled.
 * The student's process has two rings: its main thread's, served by lab_referee_phase, and
 * its host-function thread's (fn_ring), which whoever runs a host function serves. */
int lab_referee_start(lab_referee *ref, char *const argv[], size_t bytes, size_t ring_bytes, size_t outputs_bytes,
                      int shm_fd, int outputs_fd, uint32_t flags, char *err, size_t err_len);
/* On a real device, wakes the student's process and waits (at most 20 ms) until it spins,
 * ready for the next phase: called before a timed phase, so that the time does not begin
 * with the wake-up of a process asleep since the last one. Nothing elsewhere. */
void lab_referee_ready(lab_referee *ref);
/* Asks for phase and serves commands with serve until the phase ends, the process dies,
 * breaks the protocol, or timeout_ms pass (-1: no limit). */
lab_phase_end lab_referee_phase(lab_referee *ref, lab_phase phase, lab_referee_serve_fn serve, void *ctx,
                                int timeout_ms, int *rc);
/* Where data may be placed in the shared memory, and how much. */
void *lab_referee_data(const lab_referee *ref, size_t *bytes);
/* The outputs' memory (writable here, read-only in the student's process), and its size. */
void *lab_referee_outputs(const lab_referee *ref, size_t *bytes);
/* Ends the student's process (asks it to leave, then kills it) and frees everything. */
void lab_referee_stop(lab_referee *ref);

#ifdef __cplusplus
}
#endif

#endif

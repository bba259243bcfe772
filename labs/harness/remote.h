/* labs/harness/remote.h: the student's code in a process of its own (docs/referee.md).
 *
 * The lab binary is the referee. It starts the student's binary (the student's lab file and
 * the client library, labs/client/) before it allocates anything, puts the lab's inputs and
 * outputs in the memory both processes share, and drives the student's setup(), run() and
 * teardown() through lab_remote_setup, lab_remote_run and lab_remote_teardown, an ordinary
 * lab_impl to the runner (remote_student.c makes them LAB_STUDENT): each asks the student's process for the phase and performs every command that comes
 * back (a CUDA call, a kernel launch, a lab_* call) on this process's backend, where the
 * recorder, the race checker and the clock see them as they see the baseline's. Nothing the
 * student's process sends is trusted: handles, device addresses and host addresses are the
 * student's own or refused, and a graph's memory, noted as it was captured, is checked again
 * at each of its launches (graph_memory.h). */
#ifndef STREAMLAB_LAB_REMOTE_H
#define STREAMLAB_LAB_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/harness/lab.h"
#include "labs/referee/protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The student's lab when the student's code runs apart: each asks the student's process for
 * the phase and serves it. A process that dies, breaks the protocol or runs past its time
 * is reported by the guard as a crash of the lab is (guard.h), and ends the program. */
int lab_remote_setup(lab_ctx *ctx);
int lab_remote_run(lab_ctx *ctx);
void lab_remote_teardown(lab_ctx *ctx);
/* Before a timed lab_remote_run on a real device: the student's process is woken and spins,
 * so the timing does not include its wake-up (process.h's lab_referee_ready). */
void lab_remote_ready(void);

/* Whether this lab binary referees a student's process (remote_student.c) rather than
 * running the student's code itself. */
bool lab_student_runs_apart(void);
/* The student's binary built beside this one: this binary's path and "_student" (labs/lab.bzl:
 * 03_double_buffer_sim_student beside 03_double_buffer_sim). Returns 0, or -1. */
int lab_remote_default_path(char *out, size_t len);

/* Starts the student's binary at path; simulated: the backend is the simulator (host work
 * of the student's process is then charged to its clock). Returns 0, or -1 with err filled. */
int lab_remote_start(const char *path, bool simulated, char *err, size_t err_len);
/* Whether the student's code runs apart (lab_remote_start succeeded). */
bool lab_remote_active(void);
/* Host memory for the lab's buffers, in the shared memory: pinned (registered with the
 * backend) or not, as the spec wants; is_output: the student's results land there. NULL
 * when there is no room. */
void *lab_remote_host_alloc(size_t bytes, bool pinned, bool is_output);
void lab_remote_host_free(void *p);
/* The time limit of each of the student's phases, in ms (-1: none). */
void lab_remote_set_timeout_ms(int ms);

/* Commands the referee refused and why, for the report ("" when none). */
const char *lab_remote_refusals(void);
/* The last CUDA call of the student's that failed in the phase last served, as
 * "cudaDeviceEnablePeerAccess failed: cudaErrorInvalidDevice (invalid device ordinal)"
 * ("" when none did; cudaErrorNotReady, a query's answer, is not a failure): what a phase
 * that returned non-zero most likely stopped on. */
const char *lab_remote_failed_call(void);
/* Ends the student's process. */
void lab_remote_stop(void);


#ifdef __cplusplus
}
#endif

#endif

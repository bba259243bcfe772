/* labs/harness/lab.h: the lab contract, as a student sees it.
 *
 * A lab is three callbacks the harness drives:
 *
 *     static int  setup(lab_ctx *ctx);     untimed: streams, events, device buffers
 *     static int  run(lab_ctx *ctx);       timed: the pipeline; return with results ready
 *     static void teardown(lab_ctx *ctx);  free everything setup made
 *     const lab_impl LAB_STUDENT = {setup, run, teardown};
 *
 * setup and run return 0 on success, non-zero to report failure. The harness calls setup
 * once, run several times (interleaved with the baseline, to time both fairly), then
 * teardown. Between runs it changes the input data, so a run must really recompute.
 *
 * Data: batch i's input is already in host memory at lab_input(ctx, i) (page-locked unless
 * the lab says otherwise); its result must be in lab_output(ctx, i) when run returns. Kernels are launched through
 * kernels/kernels.h. Everything is checked: results bit for bit against the CPU oracle,
 * every pair of accesses for a missing order (the race checker), and the time against the
 * baseline and the pipeline bound. */
#ifndef STREAMLAB_LAB_H
#define STREAMLAB_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernels/kernels.h"
#include "labs/harness/lab_types.h" /* lab_ctx, lab_impl, lab_workload */

#ifdef __cplusplus
extern "C" {
#endif

/* The student's implementation (defined in labs/NN_topic/lab.c, or a solution). */
extern const lab_impl LAB_STUDENT;

const lab_workload *lab_get_workload(const lab_ctx *ctx);

/* Batch i's input (batch_elems uint32 values), in host memory (pinned unless the lab's
 * lesson says otherwise). Read-only. */
const uint32_t *lab_input(const lab_ctx *ctx, int batch);
/* Where batch i's result must be when run() returns, in host memory (pinned unless the
 * lab's lesson says otherwise). */
uint32_t *lab_output(lab_ctx *ctx, int batch);

/* Reports the time, in ms, that a stage of the workload took on the GPU in this run (lab
 * 02: lab_report_ms(ctx, "combine", ms)). Call it in run(); the harness compares the last
 * value of the run whose timeline the report shows (your last timed run, or on a GPU your
 * traced run after them: docs/labs.md) with what the trace saw the device do, within a
 * tolerance the lab sets. A stage the lab does not have is reported on stderr. */
void lab_report_ms(lab_ctx *ctx, const char *stage, double ms);

/* The host's clock, in ms: the monotonic clock on a GPU, the host's virtual clock on the
 * simulated one (where real time means nothing). For timing the host, not the GPU. */
double lab_host_ms(void);

/* Labs whose batches are requests that arrive while run() runs (lab 04): waits until
 * request i has arrived (the harness decides when: its input exists only from then on),
 * and returns at once when it already has. Its latency is counted from its arrival to the
 * end of its last operation. */
void lab_wait_request(lab_ctx *ctx, int i);

/* Labs with background work (lab 04): queues the lab's background work on stream. The
 * harness checks that a run did all of it, and did not take much longer than the
 * baseline's. Returns 0, or non-zero when a call failed. */
int lab_background(lab_ctx *ctx, cudaStream_t stream);

/* Labs with a loader (lab 08): prepares batch i's input, as a data loader does (decoding,
 * reading files), and writes it into dst: batch_bytes of host memory of yours, a pinned
 * buffer to copy from. It costs the host the lab's load time per batch (a busy wait on a
 * GPU, the host's virtual clock on the simulator), and the race checker sees it as a host
 * write of dst, so loading into a buffer whose upload has not finished is a race. The
 * lab's inputs exist only through it (lab_input refuses). Call it on the host thread.
 * Returns 0, or non-zero with a message for a batch out of range or a bad dst. */
int lab_load_batch(lab_ctx *ctx, int batch, void *dst);

/* Gives a stream a name for the timeline, the race reports and Nsight Systems. */
void lab_name_stream(lab_ctx *ctx, cudaStream_t stream, const char *name);
/* Gives an event a name for the race reports, the timeline and Nsight Systems: a report
 * then says `event "ready"` where it said `event 3`. Name it after your variable. */
void lab_name_event(lab_ctx *ctx, cudaEvent_t event, const char *name);

/* A place for the implementation's own state between setup, run and teardown. */
void lab_set_state(lab_ctx *ctx, void *state);
void *lab_get_state(const lab_ctx *ctx);

/* Checks a CUDA call inside setup/run: on error it prints the call, file, line and the
 * error's name, and makes the enclosing function return 1.
 *     LAB_CHECK(cudaMalloc(&buf, bytes)); */
#define LAB_CHECK(call)                                                                  \
    do {                                                                                 \
        cudaError_t lab_check_err_ = (call);                                             \
        if (lab_check_err_ != cudaSuccess) {                                             \
            lab_report_cuda_error(#call, __FILE__, __LINE__, lab_check_err_);            \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

void lab_report_cuda_error(const char *call, const char *file, int line, cudaError_t err);

/* memcpy and memmove in a lab file are these (the macros below; the kit compiles a lab file
 * with LAB_STUDENT_SOURCE). They copy as memcpy and memmove do. On the simulator, a copy of
 * LAB_HOST_COPY_MIN bytes or more also costs the simulated host what one of that size costs
 * the host of the GPU the simulator models (measured on lent H200 hosts: about 0.1 ms a
 * MiB, 11 ms for 64 MiB; 0.17 ms a MiB out of lab_input, which no cache holds), not what it
 * costs the CPU of the machine that grades: staging a batch through a host copy costs the
 * same on both backends (docs/referee.md, "Host copies"). On a GPU they are the C library's. On both, the copy shows on the timeline's host
 * lane, and the advice names a line whose copies take much of a run. */
#define LAB_HOST_COPY_MIN 16384u
void *lab_host_memcpy(void *dst, const void *src, size_t n);
void *lab_host_memmove(void *dst, const void *src, size_t n);
#ifdef LAB_STUDENT_SOURCE
#define memcpy(dst, src, n) lab_host_memcpy((dst), (src), (n))
#define memmove(dst, src, n) lab_host_memmove((dst), (src), (n))
#endif

#ifdef __cplusplus
}
#endif

#endif

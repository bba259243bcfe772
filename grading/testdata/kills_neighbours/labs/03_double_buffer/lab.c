/* grading/testdata/kills_neighbours/labs/03_double_buffer/lab.c:
 * the untouched pipeline (one stream) plus an attempt to disturb whatever runs beside it:
 * for a while it sends SIGKILL to every process id near its own (the grader, other
 * students' programs).
 * Expected: the sandbox refuses signals to processes outside the program's own (Landlock
 * scoping), so nothing else is touched; the grade is the sequential pipeline's. The
 * isolation test grades it beside the reference and checks the reference's grade and
 * figures do not change. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "labs/harness/lab.h"

#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "buf %c", 'A' + s);
        lab_name_stream(ctx, streams[s], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    static int done;
    if (!done) {
        done = 1;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pid_t me = getpid();
        do {
            for (pid_t p = me > 200 ? me - 200 : 2; p < me + 200; p++)
                if (p != me) kill(p, SIGKILL);
            nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
    }
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaMemcpyAsync(d_in[0], lab_input(ctx, i), w->batch_bytes,
                                  cudaMemcpyHostToDevice, streams[0]));
        LAB_CHECK(kernels_process(d_out[0], d_in[0], w->batch_elems, w->process, streams[0]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[0], w->batch_bytes,
                                  cudaMemcpyDeviceToHost, streams[0]));
    }
    LAB_CHECK(cudaStreamSynchronize(streams[0]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

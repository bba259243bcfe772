/* grading/testdata/attacks/processes_and_signals.c: starts processes, opens a socket, traces, unprotects memory, catches
 * the harness's timer signal and registers code to run at exit.
 *
 * A lab 03 file that would pass on its own, with an attack on the grade added. objcheck
 * (labs/objcheck) must refuse it before it is linked: each line marked "refused:" is one
 * refusal, at that line, with that message after "not accepted: "
 * (labs/objcheck/attacks_test.cc checks every one, and no other). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>
#include "labs/harness/lab.h"

static void on_alarm(int sig) { (void)sig; }
static void at_end(void) {}

static void attack(void) {
    if (fork() == 0) { // refused: calls fork, which a lab may not (docs/labs.md says what it may call)
        char *argv[] = {"sh", NULL};
        execv("/bin/sh", argv); // refused: calls execv, which a lab may not (docs/labs.md says what it may call)
    }
    int s = socket(AF_INET, SOCK_STREAM, 0); // refused: calls socket, which a lab may not (docs/labs.md says what it may call)
    (void)s;
    ptrace(PTRACE_TRACEME, 0, NULL, NULL); // refused: calls ptrace, which a lab may not (docs/labs.md says what it may call)
    mprotect(NULL, 0, PROT_READ | PROT_WRITE | PROT_EXEC); // refused: calls mprotect, which a lab may not (docs/labs.md says what it may call)
    signal(SIGALRM, on_alarm); // refused: calls signal, which a lab may not (docs/labs.md says what it may call)
    atexit(at_end); // refused: calls atexit, which a lab may not (docs/labs.md says what it may call)
}

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    attack();
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
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

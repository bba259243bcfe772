/* solutions/05_cross_stream_races.c: the reference for lab 05: an event at every hand-over.
 *
 * Five hand-overs between streams need an order, and each gets the least one: an event
 * recorded on the stream that finishes with a buffer, waited on (on the device) by the
 * stream that uses it next. The upload is waited on by the kernel (read after write); the
 * kernel by the download, with its event recorded after the launch, not before (read after
 * write); the kernel two batches back by the upload that reuses its input buffer, and the
 * download two batches back by the kernel that reuses its result buffer (write after
 * read); and run() waits for the download stream, which writes the results (the host
 * reads them). Nothing makes the host wait inside the loop, so the three streams overlap. */
#include "labs/harness/lab.h"

#define NBUF 2

static cudaStream_t up, compute, down;
static cudaEvent_t uploaded[NBUF], computed[NBUF], downloaded[NBUF];
static uint32_t *d_in[NBUF], *d_out[NBUF];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    lab_name_stream(ctx, up, "up");
    lab_name_stream(ctx, compute, "compute");
    lab_name_stream(ctx, down, "down");
    for (int k = 0; k < NBUF; k++) {
        LAB_CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreateWithFlags(&computed[k], cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreateWithFlags(&downloaded[k], cudaEventDisableTiming));
        char name[32];
        snprintf(name, sizeof(name), "uploaded[%d]", k);
        lab_name_event(ctx, uploaded[k], name);
        snprintf(name, sizeof(name), "computed[%d]", k);
        lab_name_event(ctx, computed[k], name);
        snprintf(name, sizeof(name), "downloaded[%d]", k);
        lab_name_event(ctx, downloaded[k], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[k], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[k], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        int k = b % NBUF;
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(up, computed[k], 0));
        LAB_CHECK(cudaMemcpyAsync(d_in[k], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, up));
        LAB_CHECK(cudaEventRecord(uploaded[k], up));
        LAB_CHECK(cudaStreamWaitEvent(compute, uploaded[k], 0));
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(compute, downloaded[k], 0));
        LAB_CHECK(kernels_process(d_out[k], d_in[k], w->batch_elems, w->process, compute));
        LAB_CHECK(cudaEventRecord(computed[k], compute));
        LAB_CHECK(cudaStreamWaitEvent(down, computed[k], 0));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[k], w->batch_bytes, cudaMemcpyDeviceToHost, down));
        LAB_CHECK(cudaEventRecord(downloaded[k], down));
    }
    LAB_CHECK(cudaStreamSynchronize(down));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < NBUF; k++) {
        cudaEventDestroy(uploaded[k]);
        cudaEventDestroy(computed[k]);
        cudaEventDestroy(downloaded[k]);
        cudaFree(d_in[k]);
        cudaFree(d_out[k]);
    }
    cudaStreamDestroy(up);
    cudaStreamDestroy(compute);
    cudaStreamDestroy(down);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

/* grading/testdata/refereed/graph_after_free/labs/03_double_buffer/lab.c: CUDA graphs
 * replayed on memory the program freed after capturing them. The referee checks a
 * command's memory when it serves the command, which for a captured one is at capture; a
 * graph keeps those addresses and runs them at every launch. So setup() captures five
 * graphs, each on a buffer of its own, and frees every buffer: a kernel on device memory,
 * a memset of device memory, an upload from pinned memory (cudaFreeHost), the download of
 * a device buffer into batch 0's output, and a kernel on a second stream that joined the
 * capture through an event (as lab 07's graphs fork and join). run() launches each graph,
 * takes no notice of what the launches return, and returns. Had a launch run, its node
 * would have read or written memory that is no longer the program's: on the simulator the
 * referee's own (an address the baseline's buffers or the oracle may have taken since,
 * copied into the outputs, or unmapped memory, which crashed the referee), on a GPU an
 * illegal address.
 * Expected: every launch refused, each naming what it would have reached, the buffer and
 * the line that freed it; the outputs keep their poison (incorrect, never written). */
#include "labs/harness/lab.h"

enum { GRAPHS = 5 };
static cudaStream_t stream, joined;
static cudaEvent_t fork_ev, join_ev;
static uint32_t *d_kernel, *d_memset, *d_upload, *d_download, *d_joined;
static uint32_t *h_pinned;
static cudaGraphExec_t graphs[GRAPHS];

/* Captures what queue() puts on the stream into graphs[i]. */
static int capture(int i, int (*queue)(lab_ctx *ctx), lab_ctx *ctx) {
    cudaGraph_t g;
    LAB_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    if (queue(ctx) != 0) return 1;
    LAB_CHECK(cudaStreamEndCapture(stream, &g));
    LAB_CHECK(cudaGraphInstantiate(&graphs[i], g, 0));
    LAB_CHECK(cudaGraphDestroy(g));
    return 0;
}

static int queue_kernel(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(kernels_process(d_kernel, d_kernel, w->batch_elems, w->process, stream));
    return 0;
}

static int queue_memset(lab_ctx *ctx) {
    LAB_CHECK(cudaMemsetAsync(d_memset, 0, lab_get_workload(ctx)->batch_bytes, stream));
    return 0;
}

static int queue_upload(lab_ctx *ctx) {
    LAB_CHECK(cudaMemcpyAsync(d_upload, h_pinned, lab_get_workload(ctx)->batch_bytes, cudaMemcpyHostToDevice, stream));
    return 0;
}

static int queue_download(lab_ctx *ctx) {
    LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, 0), d_download, lab_get_workload(ctx)->batch_bytes,
                              cudaMemcpyDeviceToHost, stream));
    return 0;
}

/* The kernel on the second stream, forked from the capturing stream and joined back. */
static int queue_joined(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaEventRecord(fork_ev, stream));
    LAB_CHECK(cudaStreamWaitEvent(joined, fork_ev, 0));
    LAB_CHECK(kernels_process(d_joined, d_joined, w->batch_elems, w->process, joined));
    LAB_CHECK(cudaEventRecord(join_ev, joined));
    LAB_CHECK(cudaStreamWaitEvent(stream, join_ev, 0));
    return 0;
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&joined, cudaStreamNonBlocking));
    LAB_CHECK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));
    LAB_CHECK(cudaMalloc((void **)&d_kernel, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_memset, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_upload, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_download, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_joined, w->batch_bytes));
    LAB_CHECK(cudaMallocHost((void **)&h_pinned, w->batch_bytes));
    if (capture(0, queue_kernel, ctx) || capture(1, queue_memset, ctx) || capture(2, queue_upload, ctx) ||
        capture(3, queue_download, ctx) || capture(4, queue_joined, ctx))
        return 1;
    LAB_CHECK(cudaFree(d_kernel));     /* freed: the kernel's */
    LAB_CHECK(cudaFree(d_memset));     /* freed: the memset's */
    LAB_CHECK(cudaFreeHost(h_pinned)); /* freed: the upload's */
    LAB_CHECK(cudaFree(d_download));   /* freed: the download's */
    LAB_CHECK(cudaFree(d_joined));     /* freed: the joined stream's kernel's */
    return 0;
}

static int run(lab_ctx *ctx) {
    (void)ctx;
    for (int i = 0; i < GRAPHS; i++) (void)cudaGraphLaunch(graphs[i], stream);
    (void)cudaStreamSynchronize(stream);
    (void)cudaGetLastError();
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int i = 0; i < GRAPHS; i++) cudaGraphExecDestroy(graphs[i]);
    cudaFree(d_upload);
    cudaEventDestroy(fork_ev);
    cudaEventDestroy(join_ev);
    cudaStreamDestroy(joined);
    cudaStreamDestroy(stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

/* solutions/09_two_gpus.c: the reference for lab 09: a two-stage pipeline across two GPUs.
 *
 * setup() turns on peer access both ways, so a peer copy goes over the link between the
 * GPUs instead of through host memory, and makes a ring of RING slots: each slot has a
 * stream and buffers on each GPU and two events. Batch i uses slot i % RING: on GPU 0's
 * stream the upload, stage 1 and the peer copy, then "copied" is recorded; GPU 1's stream
 * waits for "copied" (an event of the other device: no host in between), runs stage 2 and
 * the download, and records "consumed". The slot's next peer copy waits for "consumed", as
 * it overwrites the buffer stage 2 read. With three slots a batch can be in every stage at
 * once, and the host waits only once, at the end. */
#include "labs/harness/lab.h"

#define RING 3

typedef struct slot {
    cudaStream_t s0, s1;     /* the slot's stream on GPU 0 and on GPU 1 */
    uint32_t *in0;           /* on GPU 0: the batch */
    uint64_t *mid0;          /* on GPU 0: stage 1's wide values */
    uint64_t *mid1;          /* on GPU 1: the wide values copied over */
    uint32_t *out1;          /* on GPU 1: stage 2's result */
    cudaEvent_t copied;      /* GPU 0: the peer copy is done */
    cudaEvent_t consumed;    /* GPU 1: stage 2 has read mid1 */
} slot;

static slot ring[RING];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    static const char *const names0[RING] = {"GPU 0 slot 0", "GPU 0 slot 1", "GPU 0 slot 2"};
    static const char *const names1[RING] = {"GPU 1 slot 0", "GPU 1 slot 1", "GPU 1 slot 2"};
    LAB_CHECK(cudaSetDevice(0));
    LAB_CHECK(cudaDeviceEnablePeerAccess(1, 0));
    for (int k = 0; k < RING; k++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&ring[k].s0, cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&ring[k].in0, w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&ring[k].mid0, w->batch_elems * sizeof(uint64_t)));
        LAB_CHECK(cudaEventCreateWithFlags(&ring[k].copied, cudaEventDisableTiming));
        lab_name_stream(ctx, ring[k].s0, names0[k]);
        char name[32];
        snprintf(name, sizeof(name), "ring[%d].copied", k);
        lab_name_event(ctx, ring[k].copied, name);
    }
    LAB_CHECK(cudaSetDevice(1));
    LAB_CHECK(cudaDeviceEnablePeerAccess(0, 0));
    for (int k = 0; k < RING; k++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&ring[k].s1, cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&ring[k].mid1, w->batch_elems * sizeof(uint64_t)));
        LAB_CHECK(cudaMalloc((void **)&ring[k].out1, w->batch_bytes));
        LAB_CHECK(cudaEventCreateWithFlags(&ring[k].consumed, cudaEventDisableTiming));
        lab_name_stream(ctx, ring[k].s1, names1[k]);
        char name[32];
        snprintf(name, sizeof(name), "ring[%d].consumed", k);
        lab_name_event(ctx, ring[k].consumed, name);
    }
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        slot *k = &ring[i % RING];
        LAB_CHECK(cudaSetDevice(0));
        LAB_CHECK(cudaMemcpyAsync(k->in0, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, k->s0));
        LAB_CHECK(kernels_widen(k->mid0, k->in0, w->batch_elems, w->process, k->s0));
        if (i >= RING) LAB_CHECK(cudaStreamWaitEvent(k->s0, k->consumed, 0));
        LAB_CHECK(cudaMemcpyPeerAsync(k->mid1, 1, k->mid0, 0, w->batch_elems * sizeof(uint64_t), k->s0));
        LAB_CHECK(cudaEventRecord(k->copied, k->s0));
        LAB_CHECK(cudaSetDevice(1));
        LAB_CHECK(cudaStreamWaitEvent(k->s1, k->copied, 0));
        LAB_CHECK(kernels_narrow(k->out1, k->mid1, w->batch_elems, w->process, k->s1));
        LAB_CHECK(cudaEventRecord(k->consumed, k->s1));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), k->out1, w->batch_bytes, cudaMemcpyDeviceToHost, k->s1));
    }
    for (int k = 0; k < RING; k++) LAB_CHECK(cudaStreamSynchronize(ring[k].s1));
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < RING; k++) {
        cudaSetDevice(0);
        cudaEventDestroy(ring[k].copied);
        cudaFree(ring[k].in0);
        cudaFree(ring[k].mid0);
        cudaStreamDestroy(ring[k].s0);
        cudaSetDevice(1);
        cudaEventDestroy(ring[k].consumed);
        cudaFree(ring[k].mid1);
        cudaFree(ring[k].out1);
        cudaStreamDestroy(ring[k].s1);
    }
    cudaSetDevice(0);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

/* labs/09_two_gpus/testdata/variants.c: typical attempts at lab 09, for the tests
 * (its lab_test.cc) and the GPU bundle (kernels/gpu_bundle.sh). One of these is built
 * per variant, selected with -DLAB_VARIANT_<NAME> (lab.json, "variants"):
 *
 *   PEER_ACCESS_OFF   the reference without cudaDeviceEnablePeerAccess: the ring and the
 *                     events are right, but every peer copy is staged through the host and
 *                     the link is the slowest stage: below target, TODO 1 named with the
 *                     copies' rate.
 *   SYNC_EACH_BATCH   peer access and a ring, but the host synchronises GPU 1's stream after
 *                     each batch instead of events ordering the GPUs: below target, TODO 2
 *                     named with the count of host waits.
 *   ONE_SLOT          peer access and events both ways, no host waits, one set of buffers:
 *                     the stages wait for each other: below target, TODO 3 (the state after
 *                     TODO 2).
 *   STAGE2_UNORDERED  the reference without GPU 1's wait for the "copied" event: stage 2
 *                     reads a batch before its peer copy is ordered before it: racy.
 *   PEER_ACCESS_ONLY  the skeleton with TODO 1 done (peer access both ways, nothing else):
 *                     correct, a little faster than the baseline, which stays the
 *                     skeleton's whatever peer access this setup() turned on.
 *   STAGE2_FROM_GPU0  the reference with stage 2 launched into GPU 1's stream while GPU 0 is
 *                     current (no cudaSetDevice(1) in the loop): the CUDA 13 runtime runs a
 *                     launch on its stream's device, and so does the simulator (pass).
 *   EVENT_ON_OTHER_DEVICE  the reference with the "consumed" events made while GPU 0 is
 *                     current and recorded on GPU 1's streams: cudaEventRecord fails with
 *                     cudaErrorInvalidResourceHandle at that line, run() returns 1 (error,
 *                     and not correct).
 *   PEER_ACCESS_GPU0_ONLY  the reference with peer access enabled one way, GPU 0's to GPU 1
 *                     (with GPU 0 current): the way the lab's copies go, on GPU 0's streams
 *                     (pass).
 *   PEER_ACCESS_GPU1_ONLY  the reference with only GPU 1's access to GPU 0: the copies still
 *                     go over the link, as they did on two H200s with CUDA 13 (pass).
 *   RING_SHARED_STREAMS  the reference's ring of three slots (buffers and events), all of
 *                     them queued on the first slot's two streams: each device's work
 *                     runs in one queue, so a batch's upload waits behind the previous
 *                     batch's peer copy (below target; the ring is there, TODO 3 done). */
#include "labs/harness/lab.h"

#if defined(LAB_VARIANT_ONE_SLOT) || defined(LAB_VARIANT_PEER_ACCESS_ONLY)
#define RING 1
#else
#define RING 3
#endif

typedef struct slot {
    cudaStream_t s0, s1;
    uint32_t *in0, *out1;
    uint64_t *mid0, *mid1; /* the wide values, on GPU 0 and on GPU 1 */
    cudaEvent_t copied, consumed;
} slot;

static slot ring[RING];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaSetDevice(0));
#if !defined(LAB_VARIANT_PEER_ACCESS_OFF) && !defined(LAB_VARIANT_PEER_ACCESS_GPU1_ONLY)
    LAB_CHECK(cudaDeviceEnablePeerAccess(1, 0));
#endif
    for (int k = 0; k < RING; k++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&ring[k].s0, cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&ring[k].in0, w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&ring[k].mid0, w->batch_elems * sizeof(uint64_t)));
        LAB_CHECK(cudaEventCreateWithFlags(&ring[k].copied, cudaEventDisableTiming));
#if defined(LAB_VARIANT_EVENT_ON_OTHER_DEVICE)
        LAB_CHECK(cudaEventCreateWithFlags(&ring[k].consumed, cudaEventDisableTiming)); /* GPU 0's */
#endif
        lab_name_stream(ctx, ring[k].s0, k == 0 ? "GPU 0 a" : k == 1 ? "GPU 0 b" : "GPU 0 c");
    }
    LAB_CHECK(cudaSetDevice(1));
#if !defined(LAB_VARIANT_PEER_ACCESS_OFF) && !defined(LAB_VARIANT_PEER_ACCESS_GPU0_ONLY)
    LAB_CHECK(cudaDeviceEnablePeerAccess(0, 0));
#endif
    for (int k = 0; k < RING; k++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&ring[k].s1, cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&ring[k].mid1, w->batch_elems * sizeof(uint64_t)));
        LAB_CHECK(cudaMalloc((void **)&ring[k].out1, w->batch_bytes));
#if !defined(LAB_VARIANT_EVENT_ON_OTHER_DEVICE)
        LAB_CHECK(cudaEventCreateWithFlags(&ring[k].consumed, cudaEventDisableTiming));
#endif
        lab_name_stream(ctx, ring[k].s1, k == 0 ? "GPU 1 a" : k == 1 ? "GPU 1 b" : "GPU 1 c");
    }
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}

#if defined(LAB_VARIANT_PEER_ACCESS_ONLY)
/* The skeleton's run(): one slot, the host waiting after each GPU's part. */
static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    slot *one = &ring[0];
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaSetDevice(0));
        LAB_CHECK(cudaMemcpyAsync(one->in0, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, one->s0));
        LAB_CHECK(kernels_widen(one->mid0, one->in0, w->batch_elems, w->process, one->s0));
        LAB_CHECK(cudaMemcpyPeerAsync(one->mid1, 1, one->mid0, 0, w->batch_elems * sizeof(uint64_t), one->s0));
        LAB_CHECK(cudaStreamSynchronize(one->s0));
        LAB_CHECK(cudaSetDevice(1));
        LAB_CHECK(kernels_narrow(one->out1, one->mid1, w->batch_elems, w->process, one->s1));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), one->out1, w->batch_bytes, cudaMemcpyDeviceToHost, one->s1));
        LAB_CHECK(cudaStreamSynchronize(one->s1));
    }
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}
#else
static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        slot *k = &ring[i % RING];
#if defined(LAB_VARIANT_RING_SHARED_STREAMS)
        slot shared = *k; /* the slot's buffers and events, the first slot's streams */
        shared.s0 = ring[0].s0;
        shared.s1 = ring[0].s1;
        k = &shared;
#endif
        LAB_CHECK(cudaSetDevice(0));
        LAB_CHECK(cudaMemcpyAsync(k->in0, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, k->s0));
        LAB_CHECK(kernels_widen(k->mid0, k->in0, w->batch_elems, w->process, k->s0));
        if (i >= RING) LAB_CHECK(cudaStreamWaitEvent(k->s0, k->consumed, 0));
        LAB_CHECK(cudaMemcpyPeerAsync(k->mid1, 1, k->mid0, 0, w->batch_elems * sizeof(uint64_t), k->s0));
        LAB_CHECK(cudaEventRecord(k->copied, k->s0));
#if !defined(LAB_VARIANT_STAGE2_FROM_GPU0)
        LAB_CHECK(cudaSetDevice(1));
#endif
#if !defined(LAB_VARIANT_STAGE2_UNORDERED)
        LAB_CHECK(cudaStreamWaitEvent(k->s1, k->copied, 0));
#endif
        LAB_CHECK(kernels_narrow(k->out1, k->mid1, w->batch_elems, w->process, k->s1));
        LAB_CHECK(cudaEventRecord(k->consumed, k->s1)); /* record consumed */
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), k->out1, w->batch_bytes, cudaMemcpyDeviceToHost, k->s1));
#if defined(LAB_VARIANT_SYNC_EACH_BATCH)
        LAB_CHECK(cudaStreamSynchronize(k->s1));
#endif
    }
    for (int k = 0; k < RING; k++) LAB_CHECK(cudaStreamSynchronize(ring[k].s1));
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}
#endif

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

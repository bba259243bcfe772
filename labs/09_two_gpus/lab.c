/* labs/09_two_gpus/lab.c: YOUR FILE for lab 09, two GPUs.
 *
 * A two-stage pipeline across two GPUs: each batch goes up to GPU 0, through stage 1
 * there, over to GPU 1 by a peer copy, through stage 2 there, and comes down from GPU 1.
 * Stage 1 (kernels_widen) makes each value 8 bytes wide, so the peer copy moves twice the
 * batch; stage 2 (kernels_narrow) makes it 4 bytes again.
 * run() does it one batch at a time with one stream on each GPU, and the host waits for
 * GPU 0 before it gives GPU 1 its work, and for GPU 1 before the next batch. Peer access is
 * off, so every peer copy is staged through host memory. It is correct and slow: the two
 * GPUs take turns, and the link between them is barely used.
 *
 * Your job: turn on peer access, order the GPUs with events instead of the host's waits,
 * then give each batch in flight its own buffers so that both stages and the link work at
 * once.
 *
 * Remember: a stream, an event and an allocation belong to the GPU that was current
 * (cudaSetDevice) when they were made, and a kernel goes to the current GPU: launch stage 1
 * with GPU 0 current and stage 2 with GPU 1 current.
 *
 * Run it:   bazel run //labs:09_two_gpus     (on the simulator unless there are two GPUs)
 * Stuck?    bazel run //labs:09_two_gpus -- --hint   (a little more each time)
 * Lesson:   labs/09_two_gpus/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them (across the GPUs
 * too), and run() must return with every result in lab_output(). */
#include "labs/harness/lab.h"

/* TODO 3: make these arrays of slots (a ring), batch i in slot i % RING. */
static cudaStream_t s0, s1;     /* one stream on GPU 0, one on GPU 1 */
static uint32_t *in0;           /* on GPU 0: the batch */
static uint64_t *mid0;          /* on GPU 0: stage 1's wide values (8 bytes an element) */
static uint64_t *mid1;          /* on GPU 1: the wide values copied over */
static uint32_t *out1;          /* on GPU 1: stage 2's result */
/* TODO 2: an event on each GPU: "copied" (GPU 0) and "consumed" (GPU 1). */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaSetDevice(0));
    LAB_CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    LAB_CHECK(cudaMalloc((void **)&in0, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&mid0, w->batch_elems * sizeof(uint64_t)));
    lab_name_stream(ctx, s0, "GPU 0");
    LAB_CHECK(cudaSetDevice(1));
    LAB_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    LAB_CHECK(cudaMalloc((void **)&mid1, w->batch_elems * sizeof(uint64_t)));
    LAB_CHECK(cudaMalloc((void **)&out1, w->batch_bytes));
    lab_name_stream(ctx, s1, "GPU 1");
    /* TODO 1: peer access from GPU 0 to GPU 1 and from GPU 1 to GPU 0. */
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaSetDevice(0));
        LAB_CHECK(cudaMemcpyAsync(in0, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, s0));
        LAB_CHECK(kernels_widen(mid0, in0, w->batch_elems, w->process, s0)); /* stage 1 */
        LAB_CHECK(cudaMemcpyPeerAsync(mid1, 1, mid0, 0, w->batch_elems * sizeof(uint64_t), s0));
        /* TODO 2: record "copied" on s0 and make s1 wait for it, instead of the host waiting. */
        LAB_CHECK(cudaStreamSynchronize(s0));
        LAB_CHECK(cudaSetDevice(1));
        LAB_CHECK(kernels_narrow(out1, mid1, w->batch_elems, w->process, s1)); /* stage 2 */
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), out1, w->batch_bytes, cudaMemcpyDeviceToHost, s1));
        /* TODO 2: record "consumed" on s1 after stage 2, make the next peer copy wait for it,
         * and wait on the host once, after the loop. */
        LAB_CHECK(cudaStreamSynchronize(s1));
    }
    LAB_CHECK(cudaSetDevice(0));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaSetDevice(0);
    cudaFree(in0);
    cudaFree(mid0);
    cudaStreamDestroy(s0);
    cudaSetDevice(1);
    cudaFree(mid1);
    cudaFree(out1);
    cudaStreamDestroy(s1);
    /* TODO 2: destroy your events; TODO 3: everything of every slot. */
    cudaSetDevice(0);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

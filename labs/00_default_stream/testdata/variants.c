/* labs/00_default_stream/testdata/variants.c: what students write on the way through lab
 * 00, for the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One
 * variant per build, chosen with -DLAB_VARIANT_<NAME>:
 *
 *   BLOCKING_STREAMS  TODO 1 only: a stream per task from cudaStreamCreate; the stream-0
 *                     memset between tasks still serialises them (below target, the
 *                     report names the memset).
 *   NO_WAIT           TODOs 1 and 2: non-blocking streams, but run() still ends with
 *                     cudaStreamSynchronize(0), which no longer waits for them (wrong:
 *                     results read before they were written).
 *   MEMSET_ON_TASK_STREAMS  blocking streams with the memset moved onto each task's
 *                     stream: nothing serialises, but four streams now clear one shared
 *                     block with no order between them (racy).
 *   TWO_STREAMS       non-blocking streams, but only two, shared by the four tasks (below
 *                     target: half the concurrency).
 *   PER_THREAD_DEFINE the skeleton with CUDA_API_PER_THREAD_DEFAULT_STREAM defined before
 *                     the includes: every 0 is now the per-thread default stream, still one
 *                     stream for every task and the memset (below target, serial).
 *   PER_THREAD_BLOCKING_STREAMS  TODO 1's blocking streams, each waited for, in a file with
 *                     the define: the memset's 0 is the per-thread stream, which does not
 *                     synchronise with the task streams, so nothing serialises them (pass). */
#if defined(LAB_VARIANT_PER_THREAD_DEFINE) || defined(LAB_VARIANT_PER_THREAD_BLOCKING_STREAMS)
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#endif
#include "labs/harness/lab.h"

#define MAX_TASKS 64
#define STATS_BYTES 4096

#if defined(LAB_VARIANT_TWO_STREAMS)
#define NUM_STREAMS 2
#else
#define NUM_STREAMS MAX_TASKS
#endif

#if defined(LAB_VARIANT_BLOCKING_STREAMS) || defined(LAB_VARIANT_MEMSET_ON_TASK_STREAMS) || \
    defined(LAB_VARIANT_PER_THREAD_BLOCKING_STREAMS)
#define STREAM_FLAGS cudaStreamDefault
#else
#define STREAM_FLAGS cudaStreamNonBlocking
#endif

static cudaStream_t streams[NUM_STREAMS];
static int n_streams;
static uint32_t *d_data[MAX_TASKS];
static uint32_t *d_stats;

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    n_streams = w->batches < NUM_STREAMS ? w->batches : NUM_STREAMS;
#if defined(LAB_VARIANT_PER_THREAD_DEFINE)
    n_streams = 0; /* as the skeleton: every task on stream 0 */
#endif
    for (int t = 0; t < w->batches; t++) LAB_CHECK(cudaMalloc((void **)&d_data[t], w->batch_bytes));
    for (int s = 0; s < n_streams; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], STREAM_FLAGS));
        char name[16];
        snprintf(name, sizeof(name), "task %d", s);
        lab_name_stream(ctx, streams[s], name);
    }
    LAB_CHECK(cudaMalloc((void **)&d_stats, STATS_BYTES));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        cudaStream_t s = n_streams ? streams[t % n_streams] : 0;
        LAB_CHECK(cudaMemcpyAsync(d_data[t], lab_input(ctx, t), w->batch_bytes, cudaMemcpyHostToDevice, s));
        for (int k = 0; k < w->steps; k++)
            LAB_CHECK(kernels_process(d_data[t], d_data[t], w->batch_elems, w->process, s));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, t), d_data[t], w->batch_bytes, cudaMemcpyDeviceToHost, s));
#if defined(LAB_VARIANT_MEMSET_ON_TASK_STREAMS)
        LAB_CHECK(cudaMemsetAsync(d_stats, 0, STATS_BYTES, s));
#else
        LAB_CHECK(cudaMemsetAsync(d_stats, 0, STATS_BYTES, 0));
#endif
    }
#if defined(LAB_VARIANT_BLOCKING_STREAMS) || defined(LAB_VARIANT_NO_WAIT) || defined(LAB_VARIANT_PER_THREAD_DEFINE)
    LAB_CHECK(cudaStreamSynchronize(0));
#else
    for (int s = 0; s < n_streams; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) cudaFree(d_data[t]);
    for (int s = 0; s < n_streams; s++) cudaStreamDestroy(streams[s]);
    cudaFree(d_stats);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

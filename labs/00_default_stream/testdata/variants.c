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
 *                     synchronise with the task streams, so nothing serialises them (pass).
 *   SHARED_BUFFERS    every step done (non-blocking streams, each waited for), but two
 *                     device buffers for the four tasks: task t uses d_data[t % 2], so two
 *                     streams overwrite each other's values (wrong and racy; not TODO 3).
 *   LAST_EVENT_ONLY   non-blocking streams, one event recorded again on each task's stream
 *                     after its download, and run() ends with cudaEventSynchronize on it,
 *                     which waits for the last task's stream only (racy: TODO 3).
 *   MALLOC_PER_TASK   non-blocking streams, each waited for, but each task's buffer is
 *                     cudaMalloc'd in run() and the one before it cudaFree'd once the task
 *                     is queued: cudaFree waits for the whole device (below target).
 *   PER_THREAD_TASK0  task 0 on cudaStreamPerThread (blocking, without the define), the
 *                     others on non-blocking streams, each waited for: the memset after
 *                     task 0 waits for it and holds no task back (pass). */
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

/* How many device buffers the tasks have: one each, or two for all of them. */
#if defined(LAB_VARIANT_SHARED_BUFFERS)
#define NUM_BUFS 2
#else
#define NUM_BUFS MAX_TASKS
#endif

static cudaStream_t streams[NUM_STREAMS];
static int n_streams;
static uint32_t *d_data[MAX_TASKS];
static uint32_t *d_stats;
#if defined(LAB_VARIANT_LAST_EVENT_ONLY)
static cudaEvent_t done; /* recorded on every task's stream in turn */
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    n_streams = w->batches < NUM_STREAMS ? w->batches : NUM_STREAMS;
#if defined(LAB_VARIANT_PER_THREAD_DEFINE)
    n_streams = 0; /* as the skeleton: every task on stream 0 */
#endif
#if !defined(LAB_VARIANT_MALLOC_PER_TASK)
    for (int t = 0; t < w->batches && t < NUM_BUFS; t++) LAB_CHECK(cudaMalloc((void **)&d_data[t], w->batch_bytes));
#endif
    for (int s = 0; s < n_streams; s++) {
#if defined(LAB_VARIANT_PER_THREAD_TASK0)
        if (s == 0) {
            streams[s] = cudaStreamPerThread; /* there already, and blocking */
            continue;
        }
#endif
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], STREAM_FLAGS));
        char name[16];
        snprintf(name, sizeof(name), "task %d", s);
        lab_name_stream(ctx, streams[s], name);
    }
#if defined(LAB_VARIANT_LAST_EVENT_ONLY)
    LAB_CHECK(cudaEventCreate(&done));
    lab_name_event(ctx, done, "done");
#endif
    LAB_CHECK(cudaMalloc((void **)&d_stats, STATS_BYTES));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_MALLOC_PER_TASK)
    uint32_t *prev = NULL;
#endif
    for (int t = 0; t < w->batches; t++) {
        cudaStream_t s = n_streams ? streams[t % n_streams] : 0;
#if defined(LAB_VARIANT_MALLOC_PER_TASK)
        LAB_CHECK(cudaMalloc((void **)&d_data[t], w->batch_bytes));
#endif
        uint32_t *d = d_data[t % NUM_BUFS];
        LAB_CHECK(cudaMemcpyAsync(d, lab_input(ctx, t), w->batch_bytes, cudaMemcpyHostToDevice, s));
        for (int k = 0; k < w->steps; k++) LAB_CHECK(kernels_process(d, d, w->batch_elems, w->process, s));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, t), d, w->batch_bytes, cudaMemcpyDeviceToHost, s));
#if defined(LAB_VARIANT_LAST_EVENT_ONLY)
        LAB_CHECK(cudaEventRecord(done, s));
#endif
#if defined(LAB_VARIANT_MEMSET_ON_TASK_STREAMS)
        LAB_CHECK(cudaMemsetAsync(d_stats, 0, STATS_BYTES, s));
#else
        LAB_CHECK(cudaMemsetAsync(d_stats, 0, STATS_BYTES, 0));
#endif
#if defined(LAB_VARIANT_MALLOC_PER_TASK)
        if (prev) LAB_CHECK(cudaFree(prev)); /* the task before's buffer */
        prev = d;
        d_data[t] = NULL;
#endif
    }
#if defined(LAB_VARIANT_BLOCKING_STREAMS) || defined(LAB_VARIANT_NO_WAIT) || defined(LAB_VARIANT_PER_THREAD_DEFINE)
    LAB_CHECK(cudaStreamSynchronize(0));
#elif defined(LAB_VARIANT_LAST_EVENT_ONLY)
    LAB_CHECK(cudaEventSynchronize(done));
#else
    for (int s = 0; s < n_streams; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
#endif
#if defined(LAB_VARIANT_MALLOC_PER_TASK)
    if (prev) LAB_CHECK(cudaFree(prev));
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches && t < NUM_BUFS; t++)
        if (d_data[t]) cudaFree(d_data[t]);
    for (int s = 0; s < n_streams; s++)
        if (streams[s] != cudaStreamPerThread) cudaStreamDestroy(streams[s]);
#if defined(LAB_VARIANT_LAST_EVENT_ONLY)
    cudaEventDestroy(done);
#endif
    cudaFree(d_stats);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};

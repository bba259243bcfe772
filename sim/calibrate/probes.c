/* sim/calibrate/probes.c: the calibrator's probes (see probes.h). */
#include "sim/calibrate/probes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernels/cost.h"
#include "kernels/kernels.h"
#include "sim/calibrate/backend.h"

const cal_figure_info cal_figure_infos[CAL_FIGURE_COUNT] = {
#define CAL_FIGURE_INFO(id, unit, kind, what) {#id, unit, kind, what},
    CAL_FIGURES(CAL_FIGURE_INFO)
#undef CAL_FIGURE_INFO
};

static char *g_err;
static size_t g_err_size;

#define CK(expr)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (expr);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            snprintf(g_err, g_err_size, "%s failed: %s", #expr, cudaGetErrorString(e_));         \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

/* ---- the device ---------------------------------------------------------------------- */

static double attr(enum cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, 0) == cudaSuccess ? (double)v : -1;
}

int cal_read_device(cal_device *dev, char *err, size_t err_size) {
    memset(dev, 0, sizeof(*dev));
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        snprintf(err, err_size, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return -1;
    }
    struct cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
        snprintf(err, err_size, "cudaGetDeviceProperties failed: %s", cudaGetErrorString(e));
        return -1;
    }
    snprintf(dev->name, sizeof(dev->name), "%s", prop.name);
    dev->total_global_mem = (double)prop.totalGlobalMem;
    dev->compute_major = attr(cudaDevAttrComputeCapabilityMajor);
    dev->compute_minor = attr(cudaDevAttrComputeCapabilityMinor);
    dev->sm_count = attr(cudaDevAttrMultiProcessorCount);
    dev->clock_khz = attr(cudaDevAttrClockRate);
    dev->memory_clock_khz = attr(cudaDevAttrMemoryClockRate);
    dev->memory_bus_width = attr(cudaDevAttrGlobalMemoryBusWidth);
    dev->l2_cache_bytes = attr(cudaDevAttrL2CacheSize);
    dev->async_engine_count = attr(cudaDevAttrAsyncEngineCount);
    dev->max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
    dev->max_blocks_per_sm = attr(cudaDevAttrMaxBlocksPerMultiprocessor);
    dev->regs_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
    dev->shared_mem_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    dev->shared_mem_per_block_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    int least = 0, greatest = 0;
    if (cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess) {
        dev->priority_least = least;
        dev->priority_greatest = greatest;
    } else {
        dev->priority_least = dev->priority_greatest = -1;
    }
    if (dev->sm_count < 1 || dev->max_threads_per_sm < KERNELS_PROCESS_THREADS || dev->max_blocks_per_sm < 1) {
        snprintf(err, err_size, "%s reports %g SMs, %g threads and %g blocks per SM: cannot size the probes",
                 dev->name, dev->sm_count, dev->max_threads_per_sm, dev->max_blocks_per_sm);
        return -1;
    }
    return 0;
}

static unsigned residency(const cal_device *dev, unsigned threads, unsigned regs) {
    unsigned n = (unsigned)dev->max_blocks_per_sm;
    unsigned t = (unsigned)dev->max_threads_per_sm / threads;
    if (t < n) n = t;
    if (dev->regs_per_sm > 0 && regs > 0) {
        unsigned r = (unsigned)dev->regs_per_sm / (regs * threads);
        if (r < n) n = r;
    }
    return n ? n : 1;
}

unsigned cal_spin_residency(const cal_device *dev) {
    return residency(dev, CAL_SPIN_THREADS, KERNELS_SPIN_REGS_SM90);
}

unsigned cal_process_residency(const cal_device *dev) {
    return residency(dev, KERNELS_PROCESS_THREADS, KERNELS_PROCESS_REGS_SM90);
}

/* ---- what every probe shares ---------------------------------------------------------- */

static struct {
    const cal_device *dev;
    uint32_t *marks; /* kernels_spin's per-block marks */
    size_t marks_count;
    uint32_t *kin, *kout; /* process kernel buffers */
    size_t kernel_n;
    void *d1, *d2;        /* device buffers of CAL_LARGE_MIB */
    void *hp1, *hp2;      /* pinned host buffers of CAL_LARGE_MIB */
    void *hg;             /* pageable host buffer of CAL_LARGE_MIB */
    cudaStream_t s1, s2;  /* non-blocking */
    cudaEvent_t a, b, g;  /* timing events; g: a join */
} P;

static size_t mib(double m) { return (size_t)(m * CAL_MIB); }

/* Holds the stream back for a while, so that what is enqueued next is enqueued before the
 * device reaches it. */
static int gate(cudaStream_t s) {
    CK(kernels_spin(P.marks, 1, 32, 300000, 0, s));
    return 0;
}

static int elapsed_us(double *us) {
    float ms = 0;
    CK(cudaEventSynchronize(P.b));
    CK(cudaEventElapsedTime(&ms, P.a, P.b));
    *us = (double)ms * 1e3;
    return 0;
}

static double host_us(uint64_t t0) { return (double)(cal_now_ns() - t0) / 1e3; }

static int setup(const cal_device *dev) {
    memset(&P, 0, sizeof(P));
    P.dev = dev;
    size_t big = mib(CAL_LARGE_MIB);
    CK(cudaMalloc(&P.d1, big));
    CK(cudaMalloc(&P.d2, big));
    CK(cudaMemset(P.d1, 1, big));
    CK(cudaMemset(P.d2, 2, big));
    CK(cudaMallocHost(&P.hp1, big));
    CK(cudaMallocHost(&P.hp2, big));
    memset(P.hp1, 3, big);
    memset(P.hp2, 4, big);
    P.hg = malloc(big);
    if (!P.hg) {
        snprintf(g_err, g_err_size, "out of host memory");
        return -1;
    }
    memset(P.hg, 5, big);
    unsigned sm = (unsigned)dev->sm_count;
    P.marks_count = (size_t)sm * residency(dev, CAL_PRIORITY_THREADS, KERNELS_SPIN_REGS_SM90) * 100 + sm;
    if (P.marks_count < (size_t)sm * cal_spin_residency(dev) * CAL_WAVES_LONG)
        P.marks_count = (size_t)sm * cal_spin_residency(dev) * CAL_WAVES_LONG;
    CK(cudaMalloc((void **)&P.marks, P.marks_count * sizeof(uint32_t)));
    P.kernel_n = (size_t)sm * cal_process_residency(dev) * KERNELS_PROCESS_THREADS * CAL_PROCESS_WAVES;
    CK(cudaMalloc((void **)&P.kin, P.kernel_n * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&P.kout, P.kernel_n * sizeof(uint32_t)));
    CK(cudaMemset(P.kin, 0, P.kernel_n * sizeof(uint32_t)));
    CK(cudaStreamCreateWithFlags(&P.s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&P.s2, cudaStreamNonBlocking));
    CK(cudaEventCreate(&P.a));
    CK(cudaEventCreate(&P.b));
    CK(cudaEventCreateWithFlags(&P.g, cudaEventDisableTiming));
    /* Warm-up: every kind of work once. */
    CK(cudaMemcpy(P.d1, P.hp1, mib(CAL_PINNED_SMALL_MIB), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(P.hp1, P.d1, mib(CAL_PINNED_SMALL_MIB), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(P.d1, P.hg, mib(CAL_PINNED_SMALL_MIB), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(P.hg, P.d1, mib(CAL_PINNED_SMALL_MIB), cudaMemcpyDeviceToHost));
    kernels_process_params pp = {1664525u, 1013904223u, 10};
    CK(kernels_process(P.kout, P.kin, P.kernel_n, pp, P.s1));
    CK(kernels_spin(P.marks, 1, 32, 1000, 0, P.s1));
    CK(cudaDeviceSynchronize());
    return 0;
}

static void teardown(void) {
    cudaDeviceSynchronize();
    cudaFree(P.d1);
    cudaFree(P.d2);
    cudaFreeHost(P.hp1);
    cudaFreeHost(P.hp2);
    free(P.hg);
    cudaFree(P.marks);
    cudaFree(P.kin);
    cudaFree(P.kout);
    cudaStreamDestroy(P.s1);
    cudaStreamDestroy(P.s2);
    cudaEventDestroy(P.a);
    cudaEventDestroy(P.b);
    cudaEventDestroy(P.g);
}

/* ---- the probes, one repetition each ----------------------------------------------------- */

/* Device time of one pinned copy. */
static int pinned_copy(bool h2d, size_t bytes, double *us) {
    if (gate(P.s1)) return -1;
    CK(cudaEventRecord(P.a, P.s1));
    if (h2d)
        CK(cudaMemcpyAsync(P.d1, P.hp1, bytes, cudaMemcpyHostToDevice, P.s1));
    else
        CK(cudaMemcpyAsync(P.hp1, P.d1, bytes, cudaMemcpyDeviceToHost, P.s1));
    CK(cudaEventRecord(P.b, P.s1));
    return elapsed_us(us);
}

/* Both directions at once, started together: the total rate in GB/s. */
static int bidir(double *gbps) {
    size_t bytes = mib(CAL_LARGE_MIB);
    if (gate(P.s1)) return -1;
    CK(cudaEventRecord(P.g, P.s1));
    CK(cudaStreamWaitEvent(P.s2, P.g, 0));
    CK(cudaEventRecord(P.a, P.s1));
    CK(cudaMemcpyAsync(P.d1, P.hp1, bytes, cudaMemcpyHostToDevice, P.s1));
    CK(cudaMemcpyAsync(P.hp2, P.d2, bytes, cudaMemcpyDeviceToHost, P.s2));
    CK(cudaEventRecord(P.g, P.s2));
    CK(cudaStreamWaitEvent(P.s1, P.g, 0));
    CK(cudaEventRecord(P.b, P.s1));
    double us;
    if (elapsed_us(&us)) return -1;
    *gbps = 2.0 * (double)bytes / (us * 1e3);
    return 0;
}

/* Host time of a synchronous pageable copy. */
static int pageable_copy(bool h2d, size_t bytes, double *us) {
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    if (h2d)
        CK(cudaMemcpy(P.d1, P.hg, bytes, cudaMemcpyHostToDevice));
    else
        CK(cudaMemcpy(P.hg, P.d1, bytes, cudaMemcpyDeviceToHost));
    *us = host_us(t0);
    return 0;
}

static int cmp_double(const void *x, const void *y);

/* Host time for a pinned cudaMemcpyAsync to return, the device idle: the median of 9. */
static int memcpy_return(size_t bytes, double *us) {
    double t[9];
    for (int i = 0; i < 9; i++) {
        CK(cudaDeviceSynchronize());
        uint64_t t0 = cal_now_ns();
        CK(cudaMemcpyAsync(P.d1, P.hp1, bytes, cudaMemcpyHostToDevice, P.s1));
        t[i] = host_us(t0);
    }
    CK(cudaDeviceSynchronize());
    qsort(t, 9, sizeof(double), cmp_double);
    *us = t[4];
    return 0;
}

/* cudaMallocHost / cudaFreeHost, and cudaHostRegister / cudaHostUnregister, in ms. */
static int host_memory(size_t bytes, double *malloc_ms, double *free_ms, double *reg_ms, double *unreg_ms) {
    CK(cudaDeviceSynchronize());
    void *p = NULL;
    uint64_t t0 = cal_now_ns();
    CK(cudaMallocHost(&p, bytes));
    *malloc_ms = host_us(t0) / 1e3;
    memset(p, 1, bytes);
    t0 = cal_now_ns();
    CK(cudaFreeHost(p));
    *free_ms = host_us(t0) / 1e3;
    void *m = malloc(bytes);
    if (!m) {
        snprintf(g_err, g_err_size, "out of host memory");
        return -1;
    }
    memset(m, 1, bytes);
    t0 = cal_now_ns();
    cudaError_t e = cudaHostRegister(m, bytes, cudaHostRegisterDefault);
    *reg_ms = host_us(t0) / 1e3;
    if (e == cudaSuccess) {
        t0 = cal_now_ns();
        e = cudaHostUnregister(m);
        *unreg_ms = host_us(t0) / 1e3;
    }
    free(m);
    CK(e);
    return 0;
}

/* cudaMalloc and cudaFree of bytes on an idle device, host time in us: the medians of 9
 * pairs, each buffer freed before the next is made, as a program that allocates a batch's
 * buffers in run() and frees them once it is queued does (cudaFree then also waits for the
 * device, which this probe leaves idle). */
static int device_memory(size_t bytes, double *malloc_us, double *free_us) {
    double m[9], f[9];
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 9; i++) {
        void *p = NULL;
        uint64_t t0 = cal_now_ns();
        CK(cudaMalloc(&p, bytes));
        m[i] = host_us(t0);
        t0 = cal_now_ns();
        CK(cudaFree(p));
        f[i] = host_us(t0);
    }
    qsort(m, 9, sizeof(double), cmp_double);
    qsort(f, 9, sizeof(double), cmp_double);
    *malloc_us = m[4];
    *free_us = f[4];
    return 0;
}

/* Host time of a memcpy of bytes from pageable memory into pinned memory: the median of 9.
 * Each copy reads the next of up to 8 regions of the pageable buffer, which the host wrote
 * at the start and has not touched since, as a lab's copies read data another process (the
 * harness's inputs, the loader's batch in staging) or an earlier batch wrote: a copy of
 * what this core has just written is 1.3-2.6 times quicker up to 1 MiB
 * (docs/calibration/host_copy_probe.cu). */
static int host_copy(size_t bytes, double *us) {
    double t[9];
    size_t regions = mib(CAL_LARGE_MIB) / bytes;
    if (regions > 8) regions = 8;
    if (regions < 1) regions = 1;
    for (int i = 0; i < 9; i++) {
        const char *src = (const char *)P.hg + (size_t)i % regions * bytes;
        uint64_t t0 = cal_now_ns();
        cal_host_copy(P.hp1, src, bytes, false);
        t[i] = host_us(t0);
    }
    qsort(t, 9, sizeof(double), cmp_double);
    *us = t[4];
    return 0;
}

/* Host time of a memcpy of bytes into pinned memory from memory no CPU cache holds: the
 * median of 5, each after cal_host_evict. A lab's inputs are such memory: the harness wrote
 * them before the run, 64 MiB or more, and the run reads each once. */
static int host_copy_cold(size_t bytes, double *us) {
    double t[5];
    for (int i = 0; i < 5; i++) {
        if (cal_host_evict() != 0) return -1;
        uint64_t t0 = cal_now_ns();
        cal_host_copy(P.hp1, P.hg, bytes, true);
        t[i] = host_us(t0);
    }
    qsort(t, 5, sizeof(double), cmp_double);
    *us = t[2];
    return 0;
}

/* Host time per call of CAL_CALLS launches of an empty spin kernel. */
static int launches(bool blocking, double *us) {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, blocking ? cudaStreamDefault : cudaStreamNonBlocking));
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) CK(kernels_spin(P.marks, 1, 32, 0, 0, s));
    *us = host_us(t0) / CAL_CALLS;
    CK(cudaDeviceSynchronize());
    CK(cudaStreamDestroy(s));
    return 0;
}

static int event_records(bool timing, double *us) {
    cudaEvent_t e;
    CK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) CK(cudaEventRecord(e, P.s1));
    *us = host_us(t0) / CAL_CALLS;
    CK(cudaDeviceSynchronize());
    CK(cudaEventDestroy(e));
    return 0;
}

static int idle_syncs(double *us) {
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) CK(cudaStreamSynchronize(P.s1));
    *us = host_us(t0) / CAL_CALLS;
    return 0;
}

/* Device time of a spin kernel of `waves` full waves of CAL_WAVE_NS blocks. */
static int spin_waves(unsigned waves, double *us) {
    unsigned blocks = (unsigned)P.dev->sm_count * cal_spin_residency(P.dev) * waves;
    if (gate(P.s1)) return -1;
    CK(cudaEventRecord(P.a, P.s1));
    CK(kernels_spin(P.marks, blocks, CAL_SPIN_THREADS, (uint64_t)CAL_WAVE_NS, 0, P.s1));
    CK(cudaEventRecord(P.b, P.s1));
    return elapsed_us(us);
}

/* Device time of the process kernel over n elements. */
static int process(size_t n, uint32_t iters, double *us) {
    kernels_process_params pp = {1664525u, 1013904223u, iters};
    if (gate(P.s1)) return -1;
    CK(cudaEventRecord(P.a, P.s1));
    CK(kernels_process(P.kout, P.kin, n, pp, P.s1));
    CK(cudaEventRecord(P.b, P.s1));
    return elapsed_us(us);
}

/* Two 2 ms kernels on s1 and s2 (blocking or not), with or without an empty kernel on the
 * legacy stream between them: host time to the end of cudaDeviceSynchronize, in ms. */
static int default_stream(bool blocking_streams, bool legacy_between, double *ms) {
    cudaStream_t s1, s2;
    unsigned flags = blocking_streams ? cudaStreamDefault : cudaStreamNonBlocking;
    CK(cudaStreamCreateWithFlags(&s1, flags));
    CK(cudaStreamCreateWithFlags(&s2, flags));
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    CK(kernels_spin(P.marks, 1, 32, 2000000, 0, s1));
    if (legacy_between) CK(kernels_spin(P.marks + 1, 1, 32, 0, 0, 0));
    CK(kernels_spin(P.marks + 2, 1, 32, 2000000, 0, s2));
    CK(cudaDeviceSynchronize());
    *ms = host_us(t0) / 1e3;
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    return 0;
}

/* A 100-wave background kernel of 20 us blocks of 128 threads on a least-priority stream;
 * 1 ms later urgent kernels of one 20 us block of 128 threads per SM on another stream,
 * of the greatest priority or the same: the urgent kernels' latency (their stream's
 * events around each), in us. The shapes of ../shared/calibration/probe2.cu's priority probe. */
static int priority(bool high, double *us) {
    int least = 0, greatest = 0;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t bg, urgent;
    CK(cudaStreamCreateWithPriority(&bg, cudaStreamNonBlocking, least));
    CK(cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, high ? greatest : least));
    unsigned sm = (unsigned)P.dev->sm_count;
    CK(cudaDeviceSynchronize());
    size_t bg_blocks = (size_t)sm * residency(P.dev, CAL_PRIORITY_THREADS, KERNELS_SPIN_REGS_SM90) * 100;
    CK(kernels_spin(P.marks, (uint32_t)bg_blocks, CAL_PRIORITY_THREADS, 20000, 0, bg));
    cal_host_wait_ns(1000000);
    /* Equal priority: the first urgent kernel (it waits for the background). High: the
     * mean of 8 in a row, which land at different points of the background's waves. */
    int n = high ? 8 : 1;
    double sum = 0;
    for (int k = 0; k < n; k++) {
        double one;
        CK(cudaEventRecord(P.a, urgent));
        CK(kernels_spin(P.marks + bg_blocks, sm, CAL_PRIORITY_THREADS, 20000, 1, urgent));
        CK(cudaEventRecord(P.b, urgent));
        if (elapsed_us(&one)) return -1;
        sum += one;
    }
    *us = sum / n;
    CK(cudaDeviceSynchronize());
    CK(cudaStreamDestroy(bg));
    CK(cudaStreamDestroy(urgent));
    return 0;
}

/* ---- the host-device round trips (CAL_ROUND_TRIP_FIGURES) ---------------------------------- */

/* Holds the stream back for ns. */
static int gate_for(cudaStream_t s, uint64_t ns) {
    CK(kernels_spin(P.marks, 1, 32, ns, 0, s));
    return 0;
}

/* Kernels and graph nodes timed in a chain: as many as the device has SMs, twice, so that
 * every SM runs as many of them wherever the chain starts. */
static unsigned chain_length(void) { return CAL_CHAIN_SM_MULTIPLE * (unsigned)P.dev->sm_count; }

/* The median of n values (sorts them). */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Host time per call of cudaEventQuery on a completed event and on one behind a gate that
 * outlasts the calls (each must answer cudaErrorNotReady), and of cudaStreamQuery on an
 * idle stream. */
static int queries(double *done_us, double *pending_us, double *stream_us) {
    CK(cudaEventRecord(P.g, P.s1));
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) CK(cudaEventQuery(P.g));
    *done_us = host_us(t0) / CAL_CALLS;
    t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) CK(cudaStreamQuery(P.s1));
    *stream_us = host_us(t0) / CAL_CALLS;
    if (gate_for(P.s1, (uint64_t)CAL_CALLS * CAL_QUERY_GATE_NS_PER_CALL)) return -1;
    CK(cudaEventRecord(P.g, P.s1));
    t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) {
        cudaError_t e = cudaEventQuery(P.g);
        if (e != cudaErrorNotReady) {
            snprintf(g_err, g_err_size, "cudaEventQuery on an event behind a %.0f ms kernel answered %s after %d "
                     "calls: the queries took longer than the kernel", CAL_CALLS * CAL_QUERY_GATE_NS_PER_CALL / 1e6,
                     cudaGetErrorString(e), i);
            return -1;
        }
    }
    *pending_us = host_us(t0) / CAL_CALLS;
    CK(cudaStreamSynchronize(P.s1));
    return 0;
}

/* One round's start: into the idle stream, a timing event (start), the one-block round
 * kernel, a timing event (end). */
static int round_start(cudaEvent_t start, cudaEvent_t end) {
    CK(cudaEventRecord(start, P.s1));
    CK(kernels_spin(P.marks, 1, 32, (uint64_t)CAL_ROUND_KERNEL_NS, 0, P.s1));
    CK(cudaEventRecord(end, P.s1));
    return 0;
}

/* Rounds of round_start, a moment's wait, then cudaEventQuery on the end event until it
 * succeeds. Each round's host time less its device time from the start event to the end
 * event (the kernel's launch call and the kernel) and less one event record (record_us,
 * the start event's call): how long after the kernel's end the poll returned, plus the
 * work's way from the call's return to the device; the median of the rounds. The moments
 * are spread evenly over one query's time (query_us, a query that answers
 * cudaErrorNotReady), so that the query that sees the end finishes half a query after it
 * in the middle round, whatever the phase. */
static int poll_rounds(double record_us, double query_us, double *us) {
    CK(cudaDeviceSynchronize());
    double v[CAL_ROUNDS];
    for (int r = 0; r < CAL_ROUNDS; r++) {
        uint64_t t0 = cal_now_ns();
        if (round_start(P.a, P.b)) return -1;
        cal_host_wait_ns((uint64_t)(query_us * 1e3 * (r % CAL_POLL_PHASES) / CAL_POLL_PHASES));
        cudaError_t e;
        while ((e = cudaEventQuery(P.b)) == cudaErrorNotReady) {
        }
        CK(e);
        double host = host_us(t0);
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, P.a, P.b));
        v[r] = host - (double)ms * 1e3 - record_us;
    }
    *us = median(v, CAL_ROUNDS);
    return 0;
}

/* Rounds of round_start then cudaStreamSynchronize: each round's host time less its device
 * time from start to end event and one event record, as poll_rounds (ret_us); and the
 * device's idle time from one round's end event to the next round's start event (gap_us).
 * The medians of the rounds. */
static int sync_rounds(double record_us, double *ret_us, double *gap_us) {
    cudaEvent_t ev[2 * CAL_ROUNDS];
    double host[CAL_ROUNDS];
    for (int i = 0; i < 2 * CAL_ROUNDS; i++) CK(cudaEventCreate(&ev[i]));
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < CAL_ROUNDS; r++) {
        uint64_t t0 = cal_now_ns();
        if (round_start(ev[2 * r], ev[2 * r + 1])) return -1;
        CK(cudaStreamSynchronize(P.s1));
        host[r] = host_us(t0);
    }
    double ret[CAL_ROUNDS], gap[CAL_ROUNDS - 1];
    for (int r = 0; r < CAL_ROUNDS; r++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
        ret[r] = host[r] - (double)ms * 1e3 - record_us;
        if (r + 1 == CAL_ROUNDS) continue;
        CK(cudaEventElapsedTime(&ms, ev[2 * r + 1], ev[2 * r + 2]));
        gap[r] = (double)ms * 1e3;
    }
    *ret_us = median(ret, CAL_ROUNDS);
    *gap_us = median(gap, CAL_ROUNDS - 1);
    for (int i = 0; i < 2 * CAL_ROUNDS; i++) CK(cudaEventDestroy(ev[i]));
    return 0;
}

static void CUDART_CB empty_host_fn(void *data) { (void)data; }

/* Host time per cudaLaunchHostFunc of an empty function into an idle stream. */
static int host_fn_calls(double *us) {
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    for (int i = 0; i < CAL_HOST_FN_CALLS; i++) CK(cudaLaunchHostFunc(P.s1, empty_host_fn, NULL));
    *us = host_us(t0) / CAL_HOST_FN_CALLS;
    CK(cudaStreamSynchronize(P.s1));
    return 0;
}

/* Behind a gate: the round kernel, a timing event, an empty host function, a timing event,
 * the round kernel. The device time between the two events: how long the host function
 * holds the stream between the kernels; the mean of CAL_HOST_FN_SAMPLES. */
static int host_fn_gaps(double *us) {
    double sum = 0;
    for (int i = 0; i < CAL_HOST_FN_SAMPLES; i++) {
        double one;
        if (gate(P.s1)) return -1;
        CK(kernels_spin(P.marks, 1, 32, (uint64_t)CAL_ROUND_KERNEL_NS, 0, P.s1));
        CK(cudaEventRecord(P.a, P.s1));
        CK(cudaLaunchHostFunc(P.s1, empty_host_fn, NULL));
        CK(cudaEventRecord(P.b, P.s1));
        CK(kernels_spin(P.marks, 1, 32, (uint64_t)CAL_ROUND_KERNEL_NS, 0, P.s1));
        if (elapsed_us(&one)) return -1;
        sum += one;
    }
    *us = sum / CAL_HOST_FN_SAMPLES;
    CK(cudaStreamSynchronize(P.s1));
    return 0;
}

/* Device time per kernel of a chain of empty one-block kernels launched behind a gate long
 * enough for the host to enqueue them all. */
static int kernel_chain(double *us) {
    unsigned n = chain_length();
    if (gate_for(P.s1, (uint64_t)n * CAL_CHAIN_GATE_NS_PER_KERNEL)) return -1;
    CK(cudaEventRecord(P.a, P.s1));
    for (unsigned i = 0; i < n; i++) CK(kernels_spin(P.marks, 1, 32, 0, 0, P.s1));
    CK(cudaEventRecord(P.b, P.s1));
    if (elapsed_us(us)) return -1;
    *us /= n;
    return 0;
}

/* A graph of n empty one-block kernels in a chain, captured on s2. */
static int chain_graph(unsigned n, cudaGraph_t *g) {
    CK(cudaStreamBeginCapture(P.s2, cudaStreamCaptureModeThreadLocal));
    for (unsigned i = 0; i < n; i++) CK(kernels_spin(P.marks, 1, 32, 0, 0, P.s2));
    CK(cudaStreamEndCapture(P.s2, g));
    return 0;
}

/* The graph of chain_length() kernel nodes: the host time of what making it executable
 * costs over its life (cudaGraphInstantiate, the first cudaGraphLaunch's time beyond the
 * second's, cudaGraphExecDestroy and cudaGraphDestroy), and its device time per node (the
 * second launch, behind a gate as long as the direct launches', which outlasts a first
 * launch that uploads every node). */
static int graph_chain(double *node_us, double *life_us) {
    unsigned n = chain_length();
    cudaGraph_t g;
    cudaGraphExec_t x;
    if (chain_graph(n, &g)) return -1;
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    CK(cudaGraphInstantiate(&x, g, 0));
    double life = host_us(t0), launch[2], dev = 0;
    for (int k = 0; k < 2; k++) {
        if (gate_for(P.s1, (uint64_t)n * CAL_CHAIN_GATE_NS_PER_KERNEL)) return -1;
        CK(cudaEventRecord(P.a, P.s1));
        t0 = cal_now_ns();
        CK(cudaGraphLaunch(x, P.s1));
        launch[k] = host_us(t0);
        CK(cudaEventRecord(P.b, P.s1));
        if (elapsed_us(&dev)) return -1;
    }
    *node_us = dev / n;
    t0 = cal_now_ns();
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    *life_us = life + (launch[0] - launch[1]) + host_us(t0);
    return 0;
}

/* A one-node graph, launched once to warm it: host time per cudaGraphLaunch of CAL_CALLS
 * in a row, and per round of (cudaGraphLaunch; cudaStreamSynchronize). */
static int graph_one(double *launch_us, double *round_us) {
    cudaGraph_t g;
    cudaGraphExec_t x;
    if (chain_graph(1, &g)) return -1;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, P.s1));
    CK(cudaDeviceSynchronize());
    uint64_t t0 = cal_now_ns();
    for (int i = 0; i < CAL_CALLS; i++) CK(cudaGraphLaunch(x, P.s1));
    *launch_us = host_us(t0) / CAL_CALLS;
    CK(cudaDeviceSynchronize());
    t0 = cal_now_ns();
    for (int r = 0; r < CAL_ROUNDS; r++) {
        CK(cudaGraphLaunch(x, P.s1));
        CK(cudaStreamSynchronize(P.s1));
    }
    *round_us = host_us(t0) / CAL_ROUNDS;
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    return 0;
}

/* One wake round on s1: CAL_WAKE_KIB up from pinned memory, a one-block process kernel,
 * CAL_WAKE_KIB down, cudaStreamSynchronize; its host time in us. */
static int wake_round(double *us) {
    size_t bytes = (size_t)CAL_WAKE_KIB << 10;
    kernels_process_params pp = {1664525u, 1013904223u, 200};
    uint64_t t0 = cal_now_ns();
    CK(cudaMemcpyAsync(P.d1, P.hp1, bytes, cudaMemcpyHostToDevice, P.s1));
    CK(kernels_process(P.kout, P.kin, KERNELS_PROCESS_THREADS, pp, P.s1));
    CK(cudaMemcpyAsync(P.hp2, P.d2, bytes, cudaMemcpyDeviceToHost, P.s1));
    CK(cudaStreamSynchronize(P.s1));
    *us = host_us(t0);
    return 0;
}

/* The wake round after the host slept each of CAL_WAKE_IDLE_US with the device idle (the
 * median of CAL_WAKE_ROUNDS at each), less the round back to back (the median of 9, after
 * one more): what a GPU's first work after an idle costs beyond the same work on a device
 * just used. */
static int wake_rounds(double *f) {
    double t[9];
    CK(cudaDeviceSynchronize());
    if (wake_round(&t[0])) return -1;
    for (int i = 0; i < 9; i++)
        if (wake_round(&t[i])) return -1;
    double warm = median(t, 9);
    static const unsigned idle_us[CAL_WAKE_IDLES] = CAL_WAKE_IDLE_US;
    static const cal_figure_id fig[CAL_WAKE_IDLES] = CAL_WAKE_IDS;
    for (int k = 0; k < CAL_WAKE_IDLES; k++) {
        for (int i = 0; i < CAL_WAKE_ROUNDS; i++) {
            cal_host_sleep_ns((uint64_t)idle_us[k] * 1000u);
            if (wake_round(&t[i])) return -1;
        }
        f[fig[k]] = median(t, CAL_WAKE_ROUNDS) - warm;
    }
    return 0;
}

/* Every round-trip figure; needs f[CAL_event_record] of the same repetition. */
static int round_trips(double *f) {
    if (queries(&f[CAL_event_query_done], &f[CAL_event_query_pending], &f[CAL_stream_query_idle])) return -1;
    if (poll_rounds(f[CAL_event_record], f[CAL_event_query_pending], &f[CAL_poll_return])) return -1;
    if (sync_rounds(f[CAL_event_record], &f[CAL_sync_return], &f[CAL_sync_gap])) return -1;
    if (host_fn_calls(&f[CAL_host_fn_call])) return -1;
    if (host_fn_gaps(&f[CAL_host_fn_gap])) return -1;
    if (kernel_chain(&f[CAL_kernel_chain])) return -1;
    if (graph_chain(&f[CAL_graph_node], &f[CAL_graph_instantiate])) return -1;
    if (graph_one(&f[CAL_graph_launch], &f[CAL_graph_sync_loop])) return -1;
    if (wake_rounds(f)) return -1;
    return 0;
}

/* Two process kernels of one block per SM each (n elements apiece, disjoint), launched
 * on s1 and s2 at once after the gate, so that every SM holds a block of each: the device
 * time from before both to after both, in us. Each block alone keeps most of its SM's
 * integer pipes busy, so on a GPU the pair takes about twice one kernel's time (lab 02's
 * producers on an H100: about 18 us alone, 36 us together). */
static int concurrent_pair(size_t n, uint32_t iters, double *us) {
    kernels_process_params pp = {1664525u, 1013904223u, iters};
    if (gate(P.s1)) return -1;
    CK(cudaEventRecord(P.a, P.s1));
    CK(cudaEventRecord(P.g, P.s1));
    CK(cudaStreamWaitEvent(P.s2, P.g, 0));
    CK(kernels_process(P.kout, P.kin, n, pp, P.s1));
    CK(kernels_process(P.kout + n, P.kin + n, n, pp, P.s2));
    CK(cudaEventRecord(P.g, P.s2));
    CK(cudaStreamWaitEvent(P.s1, P.g, 0));
    CK(cudaEventRecord(P.b, P.s1));
    return elapsed_us(us);
}

/* ---- all of them ------------------------------------------------------------------------------ */

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int one_rep(double *f) {
    const size_t big = mib(CAL_LARGE_MIB);
    const double big_bytes = (double)big;
    double us;
    if (pinned_copy(true, mib(CAL_PINNED_SMALL_MIB), &f[CAL_h2d_pinned_small])) return -1;
    if (pinned_copy(true, big, &us)) return -1;
    f[CAL_h2d_pinned_large] = big_bytes / (us * 1e3);
    if (pinned_copy(false, mib(CAL_PINNED_SMALL_MIB), &f[CAL_d2h_pinned_small])) return -1;
    if (pinned_copy(false, big, &us)) return -1;
    f[CAL_d2h_pinned_large] = big_bytes / (us * 1e3);
    if (bidir(&f[CAL_bidir])) return -1;
    if (pageable_copy(true, mib(CAL_PAGEABLE_SMALL_MIB), &f[CAL_h2d_pageable_small])) return -1;
    if (pageable_copy(true, big, &us)) return -1;
    f[CAL_h2d_pageable_large] = big_bytes / (us * 1e3);
    if (pageable_copy(false, mib(CAL_PAGEABLE_SMALL_MIB), &f[CAL_d2h_pageable_small])) return -1;
    if (pageable_copy(false, big, &us)) return -1;
    f[CAL_d2h_pageable_large] = big_bytes / (us * 1e3);
    static const unsigned sweep_kib[CAL_PAGEABLE_SWEEP] = CAL_PAGEABLE_SWEEP_KIB;
    static const cal_figure_id sweep_up[CAL_PAGEABLE_SWEEP] = {CAL_h2d_pageable_64k, CAL_h2d_pageable_256k,
                                                               CAL_h2d_pageable_1m, CAL_h2d_pageable_64m};
    static const cal_figure_id sweep_down[CAL_PAGEABLE_SWEEP] = {CAL_d2h_pageable_64k, CAL_d2h_pageable_256k,
                                                                 CAL_d2h_pageable_1m, CAL_d2h_pageable_64m};
    for (int k = 0; k < CAL_PAGEABLE_SWEEP; k++) {
        if (pageable_copy(true, (size_t)sweep_kib[k] << 10, &f[sweep_up[k]])) return -1;
        if (pageable_copy(false, (size_t)sweep_kib[k] << 10, &f[sweep_down[k]])) return -1;
    }
    if (memcpy_return(mib(CAL_CALL_SMALL_MIB), &f[CAL_memcpy_return_small])) return -1;
    if (memcpy_return(big, &f[CAL_memcpy_return_large])) return -1;
    if (host_memory(mib(CAL_HOSTMEM_SMALL_MIB), &f[CAL_malloc_host_small], &f[CAL_free_host_small],
                    &f[CAL_host_register_small], &f[CAL_host_unregister_small]))
        return -1;
    if (host_memory(mib(CAL_HOSTMEM_LARGE_MIB), &f[CAL_malloc_host_large], &f[CAL_free_host_large],
                    &f[CAL_host_register_large], &f[CAL_host_unregister_large]))
        return -1;
    static const unsigned devmem_kib[CAL_DEVMEM_SIZES] = CAL_DEVMEM_KIB;
    static const cal_figure_id malloc_fig[CAL_DEVMEM_SIZES] = CAL_DEVICE_MALLOC_IDS;
    static const cal_figure_id free_fig[CAL_DEVMEM_SIZES] = CAL_DEVICE_FREE_IDS;
    for (int k = 0; k < CAL_DEVMEM_SIZES; k++)
        if (device_memory((size_t)devmem_kib[k] << 10, &f[malloc_fig[k]], &f[free_fig[k]])) return -1;
    static const unsigned copy_kib[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_KIB;
    static const cal_figure_id copy_fig[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_IDS;
    for (int k = 0; k < CAL_HOST_COPY_SIZES; k++)
        if (host_copy((size_t)copy_kib[k] << 10, &f[copy_fig[k]])) return -1;
    static const cal_figure_id cold_fig[CAL_HOST_COPY_SIZES] = CAL_HOST_COPY_COLD_IDS;
    for (int k = 0; k < CAL_HOST_COPY_SIZES; k++)
        if (host_copy_cold((size_t)copy_kib[k] << 10, &f[cold_fig[k]])) return -1;
    if (launches(false, &f[CAL_launch])) return -1;
    if (launches(true, &f[CAL_launch_blocking])) return -1;
    if (event_records(true, &f[CAL_event_record])) return -1;
    if (event_records(false, &f[CAL_event_record_no_timing])) return -1;
    if (idle_syncs(&f[CAL_sync_idle])) return -1;
    if (spin_waves(1, &f[CAL_wave_one])) return -1;
    if (spin_waves(CAL_WAVES_LONG, &f[CAL_wave_long])) return -1;
    if (process(P.kernel_n, CAL_PROCESS_ITERS_LO, &f[CAL_process_lo])) return -1;
    if (process(P.kernel_n, CAL_PROCESS_ITERS_HI, &f[CAL_process_hi])) return -1;
    size_t chain_n = (size_t)P.dev->sm_count * KERNELS_PROCESS_THREADS;
    if (process(chain_n, CAL_CHAIN_ITERS_LO, &f[CAL_chain_lo])) return -1;
    if (process(chain_n, CAL_CHAIN_ITERS_HI, &f[CAL_chain_hi])) return -1;
    if (default_stream(true, false, &f[CAL_ds_none])) return -1;
    if (default_stream(true, true, &f[CAL_ds_blocking])) return -1;
    if (default_stream(false, true, &f[CAL_ds_nonblocking])) return -1;
    if (priority(true, &f[CAL_prio_high])) return -1;
    if (priority(false, &f[CAL_prio_equal])) return -1;
    if (round_trips(f)) return -1;
    if (process(chain_n, CAL_CONCURRENT_ITERS, &f[CAL_concurrent_one])) return -1;
    if (concurrent_pair(chain_n, CAL_CONCURRENT_ITERS, &f[CAL_concurrent_pair])) return -1;
    return 0;
}

int cal_measure(const cal_device *dev, int reps, double *figures, FILE *log, char *err, size_t err_size) {
    g_err = err;
    g_err_size = err_size;
    if (reps < 1) reps = 1;
    double *all = calloc((size_t)reps * CAL_FIGURE_COUNT, sizeof(double));
    if (!all) {
        snprintf(err, err_size, "out of host memory");
        return -1;
    }
    int rc = setup(dev);
    for (int r = 0; rc == 0 && r < reps; r++) {
        if (log) fprintf(log, "calibrate: probes, repetition %d of %d\n", r + 1, reps);
        rc = one_rep(all + (size_t)r * CAL_FIGURE_COUNT);
    }
    teardown();
    if (rc == 0) {
        double v[reps];
        for (int i = 0; i < CAL_FIGURE_COUNT; i++) {
            for (int r = 0; r < reps; r++) v[r] = all[(size_t)r * CAL_FIGURE_COUNT + i];
            qsort(v, (size_t)reps, sizeof(double), cmp_double);
            figures[i] = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
        }
    }
    free(all);
    return rc;
}

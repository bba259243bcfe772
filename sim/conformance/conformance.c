/* sim/conformance/conformance.c: what the CUDA runtime returns for each misuse, one line
 * per case ("case: cudaErrorXxx"). A plain C program against the runtime API, built twice:
 * against the simulated runtime (//sim:conformance_sim, whose output must equal
 * conformance.expected) and against the real one (//sim:conformance_gpu, to be run on a
 * GPU and compared line by line). Cases that leave the context unusable, and those that
 * may crash the real runtime, come last. per_thread.h's calls are written as a unit built
 * for per-thread default streams writes them (per_thread.c, and per_thread_launch_sim.c or
 * per_thread_launch_gpu.cu for the launch). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "sim/conformance/launch.h"
#include "sim/conformance/per_thread.h"

static void report(const char *name, cudaError_t err) { printf("%s: %s\n", name, cudaGetErrorName(err)); }

#define CASE(name, call) report(name, (call))

/* Set up what a case needs; a failure here is not a case but a broken run. */
#define NEED(call)                                                                                 \
    do {                                                                                           \
        cudaError_t need_err_ = (call);                                                            \
        if (need_err_ != cudaSuccess) {                                                            \
            fprintf(stderr, "conformance: set-up call %s failed: %s\n", #call, cudaGetErrorName(need_err_)); \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static cudaError_t g_host_fn_result = cudaErrorUnknown;

static void host_fn_calls_runtime(void *unused) {
    (void)unused;
    void *p = NULL;
    g_host_fn_result = cudaMalloc(&p, 64);
}

/* A cudaHostRegister case whose registration, should the runtime accept it, is undone at
 * once, so that the cases after it start from the same table. */
static void register_case(const char *name, void *ptr, size_t size) {
    cudaError_t err = cudaHostRegister(ptr, size, 0);
    report(name, err);
    if (err == cudaSuccess) (void)cudaHostUnregister(ptr);
}

static void memory_cases(void) {
    void *d = NULL, *p = NULL;
    int local = 0;
    CASE("cudaMalloc with a NULL result pointer", cudaMalloc(NULL, 16));
    CASE("cudaMalloc of 2^62 bytes", cudaMalloc(&p, (size_t)1 << 62));
    NEED(cudaMalloc(&d, 4096));
    CASE("cudaFree of a host variable", cudaFree(&local));
    CASE("cudaFree of a pointer inside an allocation", cudaFree((char *)d + 16));
    CASE("cudaFree(NULL)", cudaFree(NULL));
    CASE("cudaFreeHost of device memory", cudaFreeHost(d));
    NEED(cudaFree(d));
    CASE("cudaFree of freed memory", cudaFree(d));
    CASE("cudaHostAlloc with unknown flags", cudaHostAlloc(&p, 64, 0x100));
    char *buf = malloc(4 * 4096);
    char *page = (char *)(((uintptr_t)buf + 4095) & ~(uintptr_t)4095); /* 3 pages of buf */
    char *reg = page + 4096;
    CASE("cudaHostRegister of NULL", cudaHostRegister(NULL, 4096, 0));
    CASE("cudaHostRegister of 0 bytes", cudaHostRegister(page, 0, 0));
    NEED(cudaHostRegister(reg, 4096, 0));
    CASE("cudaHostRegister of a registered range", cudaHostRegister(reg, 4096, 0));
    register_case("cudaHostRegister of a range starting inside a registered range and ending past it", reg + 2048,
                  4096);
    register_case("cudaHostRegister of a range starting before a registered range and ending inside it",
                  page + 2048, 4096);
    CASE("cudaHostUnregister of a pointer inside a registered range", cudaHostUnregister(reg + 2048));
    /* Not NEED: should the case above have unregistered the range, this finds it gone. */
    (void)cudaHostUnregister(reg);
    CASE("cudaHostUnregister of an unregistered range", cudaHostUnregister(reg));
    CASE("cudaHostRegister of 100 bytes at a page-aligned address", cudaHostRegister(page, 100, 0));
    CASE("cudaHostUnregister of those 100 bytes", cudaHostUnregister(page));
    CASE("cudaHostRegister of 4096 bytes at an address not page-aligned", cudaHostRegister(page + 100, 4096, 0));
    CASE("cudaHostUnregister of that unaligned range", cudaHostUnregister(page + 100));
    NEED(cudaMallocHost(&p, 4096));
    CASE("cudaHostRegister of cudaMallocHost memory", cudaHostRegister(p, 4096, 0));
    CASE("cudaHostUnregister of cudaMallocHost memory", cudaHostUnregister(p));
    NEED(cudaFreeHost(p));
    free(buf);
}

static void copy_cases(void) {
    void *d = NULL, *h = NULL;
    NEED(cudaMalloc(&d, 4096));
    NEED(cudaMallocHost(&h, 8192));
    char pageable[64];
    memset(pageable, 0, sizeof(pageable));
    CASE("cudaMemcpy past the end of a device allocation", cudaMemcpy(d, h, 4097, cudaMemcpyHostToDevice));
    CASE("cudaMemcpyAsync past the end of a device allocation",
         cudaMemcpyAsync((char *)d + 64, h, 4096, cudaMemcpyHostToDevice, 0));
    CASE("cudaMemcpy reading past the end of a device allocation",
         cudaMemcpy(h, (char *)d + 4000, 100, cudaMemcpyDeviceToHost));
    CASE("cudaMemcpy HostToDevice from device to pinned memory", cudaMemcpy(h, d, 64, cudaMemcpyHostToDevice));
    CASE("cudaMemcpy DeviceToHost from pinned to device memory", cudaMemcpy(d, h, 64, cudaMemcpyDeviceToHost));
    CASE("cudaMemcpy HostToDevice from device to pageable memory",
         cudaMemcpy(pageable, d, 64, cudaMemcpyHostToDevice));
    CASE("cudaMemcpy DeviceToHost from pageable to device memory",
         cudaMemcpy(d, pageable, 64, cudaMemcpyDeviceToHost));
    CASE("cudaMemcpy DeviceToDevice from pinned to device memory", cudaMemcpy(d, h, 64, cudaMemcpyDeviceToDevice));
    CASE("cudaMemcpy DeviceToDevice from pageable to device memory",
         cudaMemcpy(d, pageable, 64, cudaMemcpyDeviceToDevice));
    CASE("cudaMemcpy HostToHost from device to pageable memory", cudaMemcpy(pageable, d, 64, cudaMemcpyHostToHost));
    CASE("cudaMemcpy with kind 7", cudaMemcpy(d, h, 64, (enum cudaMemcpyKind)7));
    CASE("cudaMemcpy from NULL", cudaMemcpy(d, NULL, 64, cudaMemcpyHostToDevice));
    CASE("cudaMemcpy of 0 bytes", cudaMemcpy(d, h, 0, cudaMemcpyHostToDevice));
    CASE("cudaMemcpy with cudaMemcpyDefault", cudaMemcpy(d, h, 64, cudaMemcpyDefault));
    CASE("cudaMemset past the end of a device allocation", cudaMemset((char *)d + 4000, 0, 97));
    CASE("cudaMemset of pageable host memory", cudaMemset(pageable, 0, sizeof(pageable)));
    CASE("cudaMemset of NULL", cudaMemset(NULL, 0, 16));
    NEED(cudaDeviceSynchronize());
    NEED(cudaFree(d));
    NEED(cudaFreeHost(h));
}

/* Copies whose host range is page-locked in part only: two pages, one registered. */
static void partly_registered_cases(void) {
    void *d = NULL;
    NEED(cudaMalloc(&d, 2 * 4096));
    char *buf = malloc(3 * 4096);
    char *two = (char *)(((uintptr_t)buf + 4095) & ~(uintptr_t)4095);
    memset(two, 0, 2 * 4096);
    NEED(cudaHostRegister(two, 4096, 0));
    CASE("cudaMemcpyAsync HostToDevice from a range whose first half is registered",
         cudaMemcpyAsync(d, two, 2 * 4096, cudaMemcpyHostToDevice, 0));
    CASE("cudaMemcpyAsync DeviceToHost into a range whose first half is registered",
         cudaMemcpyAsync(two, d, 2 * 4096, cudaMemcpyDeviceToHost, 0));
    NEED(cudaDeviceSynchronize());
    NEED(cudaHostUnregister(two));
    NEED(cudaHostRegister(two + 4096, 4096, 0));
    CASE("cudaMemcpyAsync HostToDevice from a range whose second half is registered",
         cudaMemcpyAsync(d, two, 2 * 4096, cudaMemcpyHostToDevice, 0));
    CASE("cudaMemcpyAsync DeviceToHost into a range whose second half is registered",
         cudaMemcpyAsync(two, d, 2 * 4096, cudaMemcpyDeviceToHost, 0));
    NEED(cudaDeviceSynchronize());
    NEED(cudaHostUnregister(two + 4096));
    NEED(cudaFree(d));
    free(buf);
}

static void stream_cases(void) {
    cudaStream_t s;
    int prio = 0;
    unsigned flags = 99;
    int least = 0, greatest = 0;
    NEED(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CASE("cudaStreamCreate with a NULL result pointer", cudaStreamCreate(NULL));
    CASE("cudaStreamCreateWithFlags with unknown flags", cudaStreamCreateWithFlags(&s, 0x4));
    CASE("cudaStreamCreateWithPriority beyond the greatest priority",
         cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest - 100));
    NEED(cudaStreamGetPriority(s, &prio));
    printf("  its priority is clamped to the greatest: %s\n", prio == greatest ? "yes" : "no");
    CASE("cudaStreamGetFlags", cudaStreamGetFlags(s, &flags));
    printf("  flags: %u\n", flags);
    CASE("cudaStreamGetPriority with a NULL result pointer", cudaStreamGetPriority(s, NULL));
    CASE("cudaStreamQuery of an idle stream", cudaStreamQuery(s));
    (void)cudaGetLastError(); /* start the next case from a clean slate */
    NEED(conformance_launch_spin(50.0, s));
    CASE("cudaStreamQuery of a busy stream", cudaStreamQuery(s));
    CASE("cudaGetLastError after a not-ready query", cudaGetLastError());
    CASE("cudaStreamSynchronize", cudaStreamSynchronize(s));
    cudaEvent_t e;
    NEED(cudaEventCreate(&e));
    CASE("cudaStreamWaitEvent with unknown flags", cudaStreamWaitEvent(s, e, 0x2));
    CASE("cudaStreamWaitEvent on a never-recorded event", cudaStreamWaitEvent(s, e, 0));
    CASE("cudaStreamDestroy of the legacy default stream", cudaStreamDestroy(0));
    CASE("cudaStreamDestroy of cudaStreamPerThread", cudaStreamDestroy(cudaStreamPerThread));
    CASE("cudaLaunchHostFunc with a NULL function", cudaLaunchHostFunc(s, NULL, NULL));
    CASE("cudaLaunchHostFunc", cudaLaunchHostFunc(s, host_fn_calls_runtime, NULL));
    NEED(cudaStreamSynchronize(s));
    report("a runtime call made inside a host function", g_host_fn_result);
    NEED(cudaEventDestroy(e));
    NEED(cudaStreamDestroy(s));
}

static void event_cases(void) {
    cudaEvent_t a, b, nt;
    float ms = 0;
    CASE("cudaEventCreate with a NULL result pointer", cudaEventCreate(NULL));
    CASE("cudaEventCreateWithFlags with unknown flags", cudaEventCreateWithFlags(&a, 0x10));
    CASE("cudaEventCreateWithFlags interprocess with timing", cudaEventCreateWithFlags(&a, cudaEventInterprocess));
    NEED(cudaEventCreate(&a));
    NEED(cudaEventCreate(&b));
    NEED(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
    CASE("cudaEventQuery of a never-recorded event", cudaEventQuery(a));
    CASE("cudaEventSynchronize of a never-recorded event", cudaEventSynchronize(a));
    NEED(cudaEventRecord(b, 0));
    NEED(cudaEventSynchronize(b));
    CASE("cudaEventElapsedTime with a never-recorded start", cudaEventElapsedTime(&ms, a, b));
    NEED(cudaEventRecord(a, 0));
    NEED(cudaEventRecord(nt, 0));
    NEED(cudaDeviceSynchronize());
    CASE("cudaEventElapsedTime with a cudaEventDisableTiming event", cudaEventElapsedTime(&ms, a, nt));
    CASE("cudaEventElapsedTime with a NULL result pointer", cudaEventElapsedTime(NULL, a, b));
    NEED(cudaEventRecord(a, 0));
    NEED(conformance_launch_spin(50.0, 0));
    NEED(cudaEventRecord(b, 0));
    CASE("cudaEventElapsedTime before the end event completed", cudaEventElapsedTime(&ms, a, b));
    CASE("cudaEventQuery of a pending record", cudaEventQuery(b));
    CASE("cudaEventSynchronize", cudaEventSynchronize(b));
    CASE("cudaEventElapsedTime", cudaEventElapsedTime(&ms, a, b));
    printf("  elapsed time positive: %s\n", ms > 0 ? "yes" : "no");
    NEED(cudaEventDestroy(a));
    NEED(cudaEventDestroy(b));
    NEED(cudaEventDestroy(nt));
}

static void device_cases(void) {
    struct cudaDeviceProp prop;
    int v = 0;
    CASE("cudaGetDeviceCount with a NULL result pointer", cudaGetDeviceCount(NULL));
    CASE("cudaSetDevice(99)", cudaSetDevice(99));
    CASE("cudaGetDeviceProperties of device 99", cudaGetDeviceProperties(&prop, 99));
    CASE("cudaGetDeviceProperties with a NULL result pointer", cudaGetDeviceProperties(NULL, 0));
    CASE("cudaDeviceGetAttribute of an unknown attribute", cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)100000, 0));
    CASE("cudaDeviceGetAttribute of device 99", cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 99));
    CASE("cudaGetLastError after that", cudaGetLastError());
    CASE("cudaGetLastError again", cudaGetLastError());
}

static void launch_cases(void) {
    dim3 one = {1, 1, 1};
    CASE("launch with an empty grid", conformance_launch_empty((dim3){0, 1, 1}, one, 0, 0));
    CASE("launch with 1025 threads per block", conformance_launch_empty(one, (dim3){1025, 1, 1}, 0, 0));
    CASE("launch with blockDim.z 65", conformance_launch_empty(one, (dim3){1, 1, 65}, 0, 0));
    CASE("launch with gridDim.y 65536", conformance_launch_empty((dim3){1, 65536, 1}, one, 0, 0));
    CASE("launch with 48 KiB + 1 of dynamic shared memory", conformance_launch_empty(one, one, 49153, 0));
    CASE("launch after a failed launch", conformance_launch_empty(one, one, 0, 0));
    NEED(cudaDeviceSynchronize());
}

/* Stream 0 in the two default-stream modes (the per-thread calls are written in
 * per_thread.c, built for per-thread default streams): the per-thread stream answers for
 * its own work only; the legacy stream for its own and that of the streams that
 * synchronise with it, the per-thread stream included. */
static void default_stream_cases(void) {
    cudaStream_t b, nb;
    NEED(cudaStreamCreate(&b));
    NEED(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    NEED(conformance_launch_spin(50.0, 0));
    CASE("per-thread cudaStreamQuery(0) while the legacy stream is busy", conformance_ptds_query(0));
    CASE("per-thread cudaStreamQuery(cudaStreamLegacy) while the legacy stream is busy",
         conformance_ptds_query(cudaStreamLegacy));
    CASE("cudaStreamQuery(0) while the legacy stream is busy", cudaStreamQuery(0));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, cudaStreamPerThread));
    CASE("per-thread cudaStreamQuery(0) while the per-thread stream is busy", conformance_ptds_query(0));
    CASE("cudaStreamQuery(0) while the per-thread stream is busy", cudaStreamQuery(0));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, b));
    CASE("per-thread cudaStreamQuery(0) while a blocking stream is busy", conformance_ptds_query(0));
    CASE("cudaStreamQuery(0) while a blocking stream is busy", cudaStreamQuery(0));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, nb));
    CASE("cudaStreamQuery(0) while a non-blocking stream is busy", cudaStreamQuery(0));
    NEED(cudaDeviceSynchronize());
    NEED(cudaStreamDestroy(b));
    NEED(cudaStreamDestroy(nb));
}

/* Stream 0 is the default stream of the unit that writes the call: a launch on stream 0
 * written in the per-thread unit goes to the per-thread stream, which synchronises with
 * the legacy stream only, so it does not wait for a blocking stream's work; one written
 * here goes to the legacy stream, which does; cudaStreamLegacy is the legacy stream in
 * both units. Each case queues 50 ms on a blocking stream, then a short kernel on the
 * default stream, waits for that default stream, and asks whether the blocking stream's
 * kernel is done. */
static void default_stream_unit_cases(void) {
    cudaStream_t b;
    NEED(cudaStreamCreate(&b));
    NEED(conformance_ptds_launch_spin(50.0, 0));
    CASE("cudaStreamQuery(cudaStreamPerThread) after a per-thread launch on stream 0",
         cudaStreamQuery(cudaStreamPerThread));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, b));
    NEED(conformance_ptds_launch_spin(0.0, 0));
    NEED(conformance_ptds_synchronize(0));
    CASE("per-thread launch and cudaStreamSynchronize on stream 0 behind a blocking stream's kernel, then "
         "cudaStreamQuery of that stream",
         cudaStreamQuery(b));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, b));
    NEED(conformance_ptds_launch_spin(0.0, cudaStreamLegacy));
    NEED(conformance_ptds_synchronize(cudaStreamLegacy));
    CASE("per-thread launch and cudaStreamSynchronize on cudaStreamLegacy behind a blocking stream's kernel, then "
         "cudaStreamQuery of that stream",
         cudaStreamQuery(b));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, b));
    NEED(conformance_launch_spin(0.0, 0));
    NEED(cudaStreamSynchronize(0));
    CASE("launch and cudaStreamSynchronize on stream 0 behind a blocking stream's kernel, then cudaStreamQuery of "
         "that stream",
         cudaStreamQuery(b));
    NEED(cudaDeviceSynchronize());
    NEED(cudaStreamDestroy(b));
}

/* Whether allocating and freeing wait for the work the device is running: a 50 ms kernel
 * on a non-blocking stream (so that no default stream is involved), the call, then a
 * query of that stream. The reference says only that any call "may block or synchronize"
 * ("API synchronization behavior"); these cases say what the runtime does. */
static void allocation_sync_cases(void) {
    cudaStream_t nb;
    void *d = NULL, *h = NULL, *p = NULL;
    NEED(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    NEED(cudaMalloc(&d, 4096));
    NEED(cudaMallocHost(&h, 4096));
    NEED(conformance_launch_spin(50.0, nb));
    NEED(cudaMalloc(&p, 4096));
    CASE("cudaMalloc while a non-blocking stream runs a kernel, then cudaStreamQuery of that stream",
         cudaStreamQuery(nb));
    NEED(cudaDeviceSynchronize());
    NEED(cudaFree(p));
    NEED(conformance_launch_spin(50.0, nb));
    NEED(cudaFree(d));
    CASE("cudaFree while a non-blocking stream runs a kernel, then cudaStreamQuery of that stream",
         cudaStreamQuery(nb));
    NEED(cudaDeviceSynchronize());
    NEED(conformance_launch_spin(50.0, nb));
    NEED(cudaMallocHost(&p, 4096));
    CASE("cudaMallocHost while a non-blocking stream runs a kernel, then cudaStreamQuery of that stream",
         cudaStreamQuery(nb));
    NEED(cudaDeviceSynchronize());
    NEED(cudaFreeHost(p));
    NEED(conformance_launch_spin(50.0, nb));
    NEED(cudaFreeHost(h));
    CASE("cudaFreeHost while a non-blocking stream runs a kernel, then cudaStreamQuery of that stream",
         cudaStreamQuery(nb));
    NEED(cudaDeviceSynchronize());
    NEED(cudaStreamDestroy(nb));
}

/* The hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS, unset here: 8 queues). A queue
 * starts its ops in order, and an op that holds it (a kernel, a record of a timing event)
 * waits for its stream at the head, holding back every op behind it, of any stream. Eight
 * blocking streams each run a long kernel (40 ms on the first, 50 ms on the others) and
 * record an event after it; a ninth stream runs an empty kernel; the host waits for that
 * stream and asks which records are done. Where the ninth stream found a queue of its own,
 * none is; where it had to share one, it started after the record ahead of it: on an H200
 * (and the simulator) it shared the first stream's queue. A record of an event created
 * with cudaEventDisableTiming does not hold its queue; with seven streams holding queues,
 * the ninth takes the free eighth; eight long kernels with nothing behind them hold none. */
static void connection_round(cudaStream_t *s, cudaEvent_t *e, int held) {
    dim3 one = {1, 1, 1};
    NEED(cudaDeviceSynchronize());
    for (int i = 0; i < held; i++) {
        NEED(conformance_launch_spin(i == 0 ? 40.0 : 50.0, s[i]));
        if (e) NEED(cudaEventRecord(e[i], s[i]));
    }
    NEED(conformance_launch_empty(one, one, 0, s[8]));
    NEED(cudaStreamSynchronize(s[8]));
}

static void connection_cases(void) {
    cudaStream_t s[9];
    cudaEvent_t timed[8], untimed[8];
    for (int i = 0; i < 9; i++) NEED(cudaStreamCreate(&s[i]));
    for (int i = 0; i < 8; i++) {
        NEED(cudaEventCreate(&timed[i]));
        NEED(cudaEventCreateWithFlags(&untimed[i], cudaEventDisableTiming));
    }
    connection_round(s, timed, 8);
    CASE("a ninth stream's kernel while eight streams each hold a queue (a long kernel, then a timing event's "
         "record waiting for it), then cudaEventQuery of the first stream's record (40 ms)",
         cudaEventQuery(timed[0]));
    CASE("the same, then cudaEventQuery of the second stream's record (50 ms)", cudaEventQuery(timed[1]));
    connection_round(s, untimed, 8);
    CASE("the same with events created with cudaEventDisableTiming, then cudaEventQuery of the first stream's "
         "record (40 ms)",
         cudaEventQuery(untimed[0]));
    connection_round(s, timed, 7);
    CASE("a ninth stream's kernel while seven streams each hold a queue, then cudaEventQuery of the first "
         "stream's record (40 ms)",
         cudaEventQuery(timed[0]));
    connection_round(s, NULL, 8);
    CASE("a ninth stream's kernel while eight streams each run a long kernel with nothing behind it, then "
         "cudaStreamQuery of the first of them (40 ms)",
         cudaStreamQuery(s[0]));
    NEED(cudaDeviceSynchronize());
    for (int i = 0; i < 8; i++) {
        NEED(cudaEventDestroy(timed[i]));
        NEED(cudaEventDestroy(untimed[i]));
    }
    for (int i = 0; i < 9; i++) NEED(cudaStreamDestroy(s[i]));
}

/* Handles used after they were destroyed: undefined behaviour in the real runtime; the
 * simulator reports them as invalid handles. */
static void dead_handle_cases(void) {
    cudaStream_t s;
    cudaEvent_t e;
    void *d = NULL, *h = NULL;
    NEED(cudaMalloc(&d, 64));
    NEED(cudaMallocHost(&h, 64));
    NEED(cudaStreamCreate(&s));
    NEED(cudaEventCreate(&e));
    NEED(cudaStreamDestroy(s));
    NEED(cudaEventDestroy(e));
    CASE("cudaStreamSynchronize of a destroyed stream", cudaStreamSynchronize(s));
    CASE("cudaStreamQuery of a destroyed stream", cudaStreamQuery(s));
    CASE("cudaMemcpyAsync on a destroyed stream", cudaMemcpyAsync(d, h, 64, cudaMemcpyHostToDevice, s));
    CASE("launch on a destroyed stream", conformance_launch_empty((dim3){1, 1, 1}, (dim3){1, 1, 1}, 0, s));
    CASE("cudaStreamDestroy of a destroyed stream", cudaStreamDestroy(s));
    CASE("cudaEventQuery of a destroyed event", cudaEventQuery(e));
    CASE("cudaEventRecord of a destroyed event", cudaEventRecord(e, 0));
    CASE("cudaEventDestroy of a destroyed event", cudaEventDestroy(e));
    NEED(cudaDeviceSynchronize());
    NEED(cudaFree(d));
    NEED(cudaFreeHost(h));
}

/* A kernel that writes where nothing is mapped: the launch succeeds, the fault is sticky. */
static void illegal_address_cases(void) {
    void *p = NULL;
    CASE("launch of a kernel writing to address 0x10", conformance_launch_poke((int *)(uintptr_t)0x10, 0));
    CASE("cudaDeviceSynchronize after it", cudaDeviceSynchronize());
    CASE("cudaMalloc after it", cudaMalloc(&p, 64));
    CASE("cudaGetLastError after it", cudaGetLastError());
    CASE("cudaGetLastError again", cudaGetLastError());
    CASE("cudaDeviceReset", cudaDeviceReset());
    CASE("cudaMalloc after the reset", cudaMalloc(&p, 64));
}

int main(void) {
    /* One line at a time: if a case brings the process down, the lines before it stand. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
        fprintf(stderr, "conformance: no CUDA device (%s)\n", cudaGetErrorName(err));
        return 77;
    }
    memory_cases();
    copy_cases();
    partly_registered_cases();
    stream_cases();
    event_cases();
    device_cases();
    launch_cases();
    default_stream_cases();
    default_stream_unit_cases();
    allocation_sync_cases();
    connection_cases();
    illegal_address_cases();
    /* Last: on the real runtime a destroyed handle is undefined behaviour, and its first
     * use may end the process (a CUDA 13.0 runtime on an H200 crashed here). */
    dead_handle_cases();
    return 0;
}

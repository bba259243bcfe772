/* labs/harness/backend.h: what differs between the real-GPU and the simulated build of a
 * lab: the clock runs are timed with, start-up, device naming, schedule perturbation,
 * making device times known, which device allocation an address is in, and which capture a
 * stream is in. backend_gpu.c and backend_sim.c implement it; a lab binary
 * links one of them. */
#ifndef STREAMLAB_LAB_BACKEND_H
#define STREAMLAB_LAB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "labs/harness/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_backend_info {
    const char *name;   /* "gpu" or "sim" */
    bool simulated;
    char profile[64];   /* the simulator's profile; "" on a real GPU */
    char device[128];   /* the device's name */
    char timing[256];   /* where device times come from, said for people */
} lab_backend_info;

/* Starts the backend before any other CUDA call: checks --backend against this build,
 * selects the profile (simulator) or finds the device (GPU; nothing is timed until
 * lab_backend_device_times). Returns 0, or
 * an exit status (LAB_EXIT_USAGE, LAB_EXIT_FAIL) with err filled. */
int lab_backend_init(const lab_options *o, lab_backend_info *info, char *err, size_t err_len);
/* --probe-device: writes the device's name and returns 0 when this build can run, or
 * writes why not and returns 1. */
int lab_backend_probe(char *out, size_t out_len);
/* Whether this build has the devices a lab needs (devices 2: lab 09): 0 when it does (or
 * devices < 2); else 1, with why and what to do written into out. The real-GPU build counts
 * the machine's GPUs; the simulator, the selected profile's devices. */
int lab_backend_need_devices(int devices, char *out, size_t out_len);
/* The clock runs are timed with, in ns: virtual time on the simulator, the monotonic
 * clock on a GPU. */
uint64_t lab_backend_now_ns(void);
/* Lets the host's clock reach t (lab_backend_now_ns' clock): the simulator's virtual
 * clock is moved on (the host idles); on a GPU the thread waits. Nothing when t is past. */
void lab_backend_wait_until(uint64_t t);
/* Charges ns of host work to the calling thread, as CPU work would (lab_load_batch): the
 * simulator's virtual clock moves on with the device running meanwhile; on a GPU the
 * thread spins (a busy wait, not a sleep). */
void lab_backend_host_work(uint64_t ns);
/* Between two runs the harness checks the last one and prepares the next (fresh inputs, their
 * expected outputs, poisoned outputs), input_bytes of them, while the device idles: on a GPU
 * that takes the host its own time; the simulator moves its clock on by what it took the lent
 * H200s' hosts, LAB_BETWEEN_RUNS_NS and LAB_BETWEEN_RUNS_NS_PER_MIB (1.7 ms in lab 06, 142
 * ms in lab 05: docs/measured.md), so that each run starts on a device that idled as long as
 * it does on a GPU (a GPU's first work after an idle starts late: sim_profile_wake_ns). */
#define LAB_BETWEEN_RUNS_NS 200000.0
#define LAB_BETWEEN_RUNS_NS_PER_MIB 1350000.0
void lab_backend_between_runs(uint64_t input_bytes);
/* What a host memcpy of bytes costs the GPU's host, in ns, for the simulator to charge
 * (sim_host_copy_ns: the profile's host_copy_curve); 0 on a GPU, whose host's own copy is
 * the cost. */
uint64_t lab_backend_host_copy_ns(uint64_t bytes);
/* The same for bytes no CPU cache holds (sim_host_copy_cold_ns: the profile's
 * host_copy_cold_curve); 0 on a GPU. */
uint64_t lab_backend_host_copy_cold_ns(uint64_t bytes);
/* Whether the backend can perturb its schedule (--schedules). */
bool lab_backend_can_perturb(void);
/* Perturbs timing from now on (amount 0: exact). */
void lab_backend_perturb(uint64_t seed, double amount);
/* A harness phase begins or ends (NVTX ranges on a GPU). name must stay valid. */
void lab_backend_phase(const char *name, bool begin);
/* Whether addr lies in a device allocation (cudaMalloc) of the program, with where it
 * starts and the bytes asked for: what a crash report says of a faulting address.
 * Async-signal-safe. */
bool lab_backend_device_allocation(uintptr_t addr, const void **base, size_t *bytes);
/* The capture sequence stream belongs to (begun on it or joined through an event), active
 * or invalidated: true with an id that no other capture of this process shares; false when
 * the stream captures nothing. The referee asks it of the student's commands while a
 * capture is open, to know which graph a captured command's memory goes with (remote.c):
 * on the simulator it costs no simulated time and records nothing (sim_stream_capture_id);
 * on a GPU it is cudaStreamGetCaptureInfo, which leaves the runtime's last error as it was. */
bool lab_backend_capture_id(cudaStream_t stream, uint64_t *id);
/* Names a stream on the timeline (and in Nsight Systems on a GPU). */
void lab_backend_name_stream(cudaStream_t stream, const char *name);
void lab_backend_name_event(cudaEvent_t event, const char *name);
/* Whether recording device times slows the program down: on a GPU, CUPTI's records cost
 * the host a few percent more per operation (docs/gpu-tracing.md, "Overhead"), and CUPTI
 * once started keeps costing each call after it stops; on the simulator nothing. When it
 * does, the runner times the graded runs with device timing off (CUPTI not yet started)
 * and records the timeline in traced runs of their own, not timed, after them. */
bool lab_backend_timing_costs(void);
/* How much of the device's work is timed from now on. */
typedef enum lab_device_times {
    LAB_TIMES_NONE, /* operations recorded (the race checker and the report see them), none timed */
    LAB_TIMES_ENDS, /* each operation's end, from a CUDA event recorded after it: a
                       request's latency and the background work's span (lab 04) */
    LAB_TIMES_RESULTS, /* the end of each copy to the host only: the least timing that gives
                          a request's latency (a lab of requests with no background work,
                          lab 06), for the least host time a call in its timed runs */
    LAB_TIMES_FULL  /* CUPTI, or what STREAMLAB_GPU_TIMING asks for; info->timing says how */
} lab_device_times;
/* Sets the device timing (a GPU; the simulator always times, at no cost). */
void lab_backend_device_times(lab_device_times times, lab_backend_info *info);
/* Makes every device time known to the recorder (flushes CUPTI on a GPU). */
void lab_backend_flush(void);
/* Between independent programs in one process: the simulator starts again from nothing
 * (clock at 0, no streams, no allocations, the profile kept); on a GPU the device is waited
 * for. */
void lab_backend_reset(void);
/* Stops what lab_backend_init started. */
void lab_backend_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif

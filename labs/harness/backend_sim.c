/* labs/harness/backend_sim.c: the simulated-GPU side of backend.h. Runs are timed in the
 * simulator's virtual nanoseconds, so the same seed gives the same figures every time. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <streamlab_sim.h>

#include "cli/cli.h"
#include "labs/harness/backend.h"
#include "trace/record/recorder.h"

static char g_profile[256]; /* what --profile chose, chosen again after a reset */

int lab_backend_init(const lab_options *o, lab_backend_info *info, char *err, size_t err_len) {
    memset(info, 0, sizeof(*info));
    info->name = "sim";
    info->simulated = true;
    if (o->backend == LAB_BACKEND_GPU) {
        snprintf(err, err_len,
                 "--backend=gpu: this is the simulator build of the lab. Use the launcher "
                 "(bazel run //labs:<lab>), which picks the GPU build when a GPU is present");
        return LAB_EXIT_USAGE;
    }
    /* A profile file named relative to where `bazel run` was typed (the launcher starts the
     * lab elsewhere); a name that is no file there is a built-in profile's. */
    static char path[PATH_MAX];
    const char *profile = o->profile;
    if (profile && access(cli_user_path(profile, path, sizeof(path)), R_OK) == 0)
        profile = cli_user_path(profile, path, sizeof(path));
    /* A lab that needs two devices runs on the pair of H200s unless a profile is named. */
    if (!profile && o->devices > 1 && !getenv("STREAMLAB_PROFILE")) profile = "h200x2";
    if (profile && sim_select_profile(profile) != 0) {
        snprintf(err, err_len, "--profile=%s: %s", o->profile, sim_last_message());
        if (!strstr(err, "built-in")) { /* a file's error: say what else there is */
            size_t len = strlen(err);
            snprintf(err + len, err_len - len, " (built-in profiles:");
            for (const char *const *n = sim_profile_names(); *n; n++) {
                len = strlen(err);
                snprintf(err + len, err_len - len, " %s", *n);
            }
            len = strlen(err);
            snprintf(err + len, err_len - len, ")");
        }
        return LAB_EXIT_USAGE;
    }
    snprintf(g_profile, sizeof(g_profile), "%s", profile ? profile : "");
    if (lab_backend_need_devices(o->devices, err, err_len) != 0) return LAB_EXIT_USAGE;
    /* A profile file is named with its profile: a calibrated one's device name says what it
     * was calibrated on (//sim:calibrate), the file where the figures are. */
    bool builtin = !o->profile;
    for (const char *const *n = sim_profile_names(); o->profile && *n; n++)
        if (!strcmp(*n, o->profile)) builtin = true;
    if (builtin) {
        snprintf(info->profile, sizeof(info->profile), "%s", sim_profile_name());
    } else {
        const char *slash = strrchr(o->profile, '/');
        snprintf(info->profile, sizeof(info->profile), "%.20s from %.36s", sim_profile_name(),
                 slash ? slash + 1 : o->profile);
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(info->device, sizeof(info->device), "%.120s", prop.name);
    else
        snprintf(info->device, sizeof(info->device), "simulated %s", info->profile);
    snprintf(info->timing, sizeof(info->timing),
             "simulated time (deterministic: the same seed gives the same timeline)");
    return 0;
}

int lab_backend_need_devices(int devices, char *out, size_t out_len) {
    int count = 0;
    if (devices < 2) return 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (count >= devices) return 0;
    snprintf(out, out_len,
             "this lab needs %d devices and the %s profile simulates %d: leave --profile out (the lab then runs on "
             "h200x2, two H200s linked by NVLink) or name a profile with a \"link\" section",
             devices, sim_profile_name(), count);
    return 1;
}

int lab_backend_probe(char *out, size_t out_len) {
    snprintf(out, out_len, "simulated GPU (%s profile)", sim_profile_name());
    return 0;
}

uint64_t lab_backend_now_ns(void) { return sim_now_ns(); }

void lab_backend_wait_until(uint64_t t) {
    uint64_t now = sim_now_ns();
    if (t > now) sim_host_work(t - now);
}

void lab_backend_host_work(uint64_t ns) { sim_host_work(ns); }

void lab_backend_between_runs(uint64_t input_bytes) {
    sim_host_work((uint64_t)(LAB_BETWEEN_RUNS_NS + LAB_BETWEEN_RUNS_NS_PER_MIB * (double)input_bytes / 1048576.0));
}

uint64_t lab_backend_host_copy_ns(uint64_t bytes) { return sim_host_copy_ns(bytes); }
uint64_t lab_backend_host_copy_cold_ns(uint64_t bytes) { return sim_host_copy_cold_ns(bytes); }

bool lab_backend_can_perturb(void) { return true; }

void lab_backend_perturb(uint64_t seed, double amount) { sim_set_perturbation(seed, amount); }

void lab_backend_phase(const char *name, bool begin) {
    (void)name;
    (void)begin;
}

void lab_backend_name_stream(cudaStream_t stream, const char *name) { trace_stream_set_name(stream, name); }
void lab_backend_name_event(cudaEvent_t event, const char *name) { trace_event_set_name(event, name); }

bool lab_backend_device_allocation(uintptr_t addr, const void **base, size_t *bytes) {
    return sim_device_allocation_of((const void *)addr, base, bytes);
}

bool lab_backend_capture_id(cudaStream_t stream, uint64_t *id) { return sim_stream_capture_id(stream, id); }

bool lab_backend_timing_costs(void) { return false; }

void lab_backend_device_times(lab_device_times times, lab_backend_info *info) {
    (void)times;
    (void)info;
}

void lab_backend_flush(void) {}

void lab_backend_reset(void) {
    sim_reset();
    if (g_profile[0]) (void)sim_select_profile(g_profile);
}

void lab_backend_shutdown(void) {}

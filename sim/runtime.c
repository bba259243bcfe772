/* sim/runtime.c: bringing the simulated device up (see runtime.h): the stream table once,
 * the scheduler for the profile, the connections from CUDA_DEVICE_MAX_CONNECTIONS, and the
 * race checker when STREAMLAB_RACECHECK asks for it. */
#include "sim/runtime.h"

#include <stdlib.h>

#include <cuda_runtime.h>

#include "sim/core/scheduler.h"
#include "sim/core/streams.h"
#include "sim/profile_choice.h"
#include "trace/check/racecheck.h"

static struct {
    bool ready;
    bool streams_made;
} R;

/* The device's hardware work queues: CUDA_DEVICE_MAX_CONNECTIONS when it holds a whole
 * number (clamped to 1..32, the documented range), else the profile's max_connections. Read
 * whenever the device is set up: at first use, after cudaDeviceReset and after sim_reset,
 * as the real driver reads it when it creates a context. */
static void set_connections(void) {
    const char *v = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (!v || !*v) return;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (*end != '\0') return;
    sim_sched_set_connections(n < 1 ? 1u : (n > 32 ? 32u : (uint32_t)n));
}

void sim_runtime_ensure_ready(void) {
    if (R.ready) return;
    const sim_profile *p = sim_profile_current();
    if (!p) return;
    if (!R.streams_made) {
        sim_streams_init(cudaStreamPerThread);
        R.streams_made = true;
    }
    sim_sched_init(p);
    set_connections();
    R.ready = true;
    /* Any program linked against the simulated runtime gets the race checker with
     * STREAMLAB_RACECHECK=1 (races on stderr, exit status 66). */
    trace_racecheck_install_from_env();
}

bool sim_runtime_ready(void) { return R.ready; }

bool sim_runtime_streams_made(void) { return R.streams_made; }

void sim_runtime_restart(const sim_profile *p) {
    sim_sched_init(p);
    set_connections();
    R.ready = true;
}

void sim_runtime_profile_changed(void) { R.ready = false; }

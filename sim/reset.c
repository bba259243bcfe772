/* sim/reset.c: what lives on the simulated device and tearing it down (see reset.h),
 * sim_reset, and sim_select_profile, which may change the profile only while nothing
 * lives (streamlab_sim.h). */
#include "sim/reset.h"

#include <stdio.h>

#include "sim/stream_capture.h"
#include "sim/core/clock.h"
#include "sim/core/events.h"
#include "sim/core/memory.h"
#include "sim/core/ops.h"
#include "sim/core/perturb.h"
#include "sim/core/scheduler.h"
#include "sim/devices.h"
#include "sim/errors.h"
#include "sim/graph.h"
#include "sim/pageable_staging.h"
#include "sim/profile_choice.h"
#include "sim/runtime.h"
#include "sim/stream_handles.h"
#include "streamlab_sim.h"

bool sim_runtime_in_use(void) {
    if (!sim_runtime_ready()) return sim_mem_count() > 0;
    return sim_mem_count() > 0 || sim_streams_live() > 0 || sim_events_live() > 0 ||
           sim_graphs_live() > 0 || sim_sched_outstanding() > 0;
}

void sim_runtime_teardown(void) {
    sim_capture_reset();
    sim_staging_reset();
    sim_graphs_reset(true);
    if (sim_runtime_streams_made()) {
        sim_sched_reset();
        sim_streams_restart(true);
        sim_events_reset(true);
    }
    sim_mem_release_all();
    sim_error_clear();
    sim_devices_reset(true);
}

void sim_reset(void) {
    if (sim_in_host_fn()) {
        sim_set_message("sim_reset: not allowed inside a host function; ignored");
        fprintf(stderr, "streamlab simulated GPU: %s\n", sim_last_message());
        return;
    }
    sim_runtime_teardown();
    sim_op_pool_release();
    sim_host_clock_reset();
    sim_perturb_reset();
    sim_profile_forget();
    sim_devices_reset(false);
    sim_runtime_profile_changed();
}

int sim_select_profile(const char *name_or_path) {
    if (sim_runtime_in_use()) {
        sim_set_message(
            "sim_select_profile(\"%s\"): the simulated device is in use (allocations, streams, "
            "events or work exist); choose the profile before the first CUDA call or after "
            "sim_reset()",
            name_or_path ? name_or_path : "(null)");
        return -1;
    }
    if (sim_profile_choose(name_or_path)) return -1;
    sim_runtime_profile_changed();
    return 0;
}

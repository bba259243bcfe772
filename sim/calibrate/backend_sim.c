/* sim/calibrate/backend_sim.c: backend.h on the simulated runtime. */
#include "sim/calibrate/backend.h"

#include <stdio.h>
#include <string.h>

#include "streamlab_sim.h"

bool cal_backend_simulated(void) { return true; }

uint64_t cal_now_ns(void) { return sim_now_ns(); }

void cal_host_wait_ns(uint64_t ns) { sim_host_work(ns); }
void cal_host_sleep_ns(uint64_t ns) { sim_host_work(ns); }

void cal_host_copy(void *dst, const void *src, size_t n, bool cold) {
    memcpy(dst, src, n);
    sim_host_work(cold ? sim_host_copy_cold_ns(n) : sim_host_copy_ns(n));
}

int cal_host_evict(void) { return 0; }

int cal_backend_use_profile(const char *name_or_path, char *err, size_t err_size) {
    sim_reset();
    if (sim_select_profile(name_or_path) != 0) {
        snprintf(err, err_size, "%s", sim_last_message());
        return -1;
    }
    return 0;
}

void cal_backend_reset(void) { sim_reset(); }

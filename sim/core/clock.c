/* sim/core/clock.c: the host thread's virtual clock (see clock.h). */
#include "sim/core/clock.h"

#include <math.h>

#include "sim/core/perturb.h"

static uint64_t g_host_ns;
static int g_host_fn_depth;
static uint64_t g_host_fn_work;

uint64_t sim_clock_ns(double ns) {
    if (!(ns > 0)) return 0;
    if (ns >= 1.8e19) return UINT64_MAX / 2;
    return (uint64_t)llround(ns);
}

void sim_host_charge(double ns) { g_host_ns += sim_clock_ns(ns * sim_perturb_factor()); }

void sim_host_advance_to(uint64_t t) {
    if (t > g_host_ns) g_host_ns = t;
}

uint64_t sim_host_now(void) { return g_host_ns; }

void sim_host_fn_enter(void) {
    if (g_host_fn_depth++ == 0) g_host_fn_work = 0;
}
void sim_host_fn_leave(void) { g_host_fn_depth--; }
bool sim_in_host_fn(void) { return g_host_fn_depth > 0; }

void sim_host_fn_add_work(uint64_t ns) { g_host_fn_work += ns; }

uint64_t sim_host_fn_work(void) { return g_host_fn_work; }

void sim_host_clock_reset(void) { g_host_ns = 0; }

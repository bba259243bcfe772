/* sim/core/fault.c: the device's fault state (see fault.h). */
#include "sim/core/fault.h"

static sim_fault_kind g_fault = SIM_FAULT_NONE;

void sim_fault_raise(sim_fault_kind kind) {
    if (g_fault == SIM_FAULT_NONE) g_fault = kind;
}

sim_fault_kind sim_fault_current(void) { return g_fault; }

void sim_fault_clear(void) { g_fault = SIM_FAULT_NONE; }

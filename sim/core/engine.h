/* sim/core/engine.h: what an engine of the simulated device (the copy engines, the SMs)
 * may ask of the scheduler that drives it: schedule a future event, complete an op, report
 * an asynchronous fault and ask whether one happened. The scheduler hands these to each
 * engine when it sets the device up, so that engines and scheduler do not include each
 * other. */
#ifndef STREAMLAB_SIM_CORE_ENGINE_H
#define STREAMLAB_SIM_CORE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/eventq.h"
#include "sim/core/fault.h"
#include "sim/core/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_engine_env {
    /* Schedules an event at virtual time t. */
    void (*push)(uint64_t t, sim_ev_type type, uint32_t index, uint64_t gen, void *ptr);
    /* An op has finished at t: its data moves, its stream goes on. */
    void (*complete)(sim_op *op, uint64_t t);
    /* An asynchronous fault at t: the device moves no more data. */
    void (*fault)(sim_fault_kind kind, uint64_t t);
    /* Whether a fault has happened. */
    bool (*failed)(void);
} sim_engine_env;

#ifdef __cplusplus
}
#endif

#endif

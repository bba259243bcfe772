/* sim/core/copy_engine.h: the copy engines. One for host-to-device and one for device-to-host
 * copies (a single shared one when the profile's asyncEngineCount is 1). An engine runs
 * one copy at a time, in the order copies reach it: a fixed set-up time, then the bytes at
 * the copy's rate. While both directions move bytes at once they share the link: together
 * they get at most the measured bidirectional rate (split fairly, never above what each
 * gets alone), so a copy's rate can change mid-flight and its remaining bytes are
 * tracked. */
#ifndef STREAMLAB_SIM_COPY_ENGINE_H
#define STREAMLAB_SIM_COPY_ENGINE_H

#include <stdbool.h>

#include "sim/core/engine.h"
#include "sim/core/eventq.h"
#include "sim/core/ops.h"
#include "sim/core/profile.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

void sim_copy_init(const sim_profile *profile, const sim_engine_env *scheduler);
void sim_copy_reset(void);
/* The engine a copy direction uses, and its timeline lane. */
uint32_t sim_copy_engine_for(trace_copy_dir dir);
trace_engine sim_copy_lane(trace_copy_dir dir);
/* A copy reached the head of its stream at now: queue it on its engine. */
void sim_copy_start(sim_op *op, uint64_t now);
/* An SIM_EV_ENGINE event. */
void sim_copy_event(const sim_ev *ev);

#ifdef __cplusplus
}
#endif

#endif

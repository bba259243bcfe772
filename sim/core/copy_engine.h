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
#include "sim/core/profile_link.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

void sim_copy_init(const sim_profile *profile, const sim_engine_env *scheduler);
void sim_copy_reset(void);
/* The engine a copy direction uses on device 0, and its timeline lane. */
uint32_t sim_copy_engine_for(trace_copy_dir dir);
/* The engine a host-device copy of this device uses (a profile of several devices gives
 * each its own). */
uint32_t sim_copy_engine_on(uint32_t device, trace_copy_dir dir);
/* The engine of a peer copy from src_device to dst_device (a two-device profile): over the
 * peer link (peer access enabled) or staged through the host (not). Each direction has its
 * own; both directions at once share the path's bidirectional rate. */
uint32_t sim_copy_peer_engine(uint32_t src_device, uint32_t dst_device, bool over_link);
trace_engine sim_copy_lane(trace_copy_dir dir);
/* A copy reached the head of its stream at now: queue it on its engine. */
void sim_copy_start(sim_op *op, uint64_t now);
/* An SIM_EV_ENGINE event. */
void sim_copy_event(const sim_ev *ev);

#ifdef __cplusplus
}
#endif

#endif

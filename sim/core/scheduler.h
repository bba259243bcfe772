/* sim/core/scheduler.h: the discrete-event core of the simulated device. Ops wait in their
 * streams; a stream's head op starts when the device can see it (the host submitted it),
 * its predecessor has completed, its dependencies (event waits, the legacy-stream
 * barrier) are met and it is at the head of its hardware work queue (connections.h); it then runs on its engine (a copy engine, the SMs, the host-function
 * thread) and completes at a virtual time, moving its data then. The device is only ever
 * simulated up to the host's clock: before a runtime call returns, or while the host
 * waits for something. */
#ifndef STREAMLAB_SIM_SCHEDULER_H
#define STREAMLAB_SIM_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/eventq.h"
#include "sim/core/fault.h"
#include "sim/core/ops.h"
#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the device up for a profile (engines, SMs); discards all state. */
void sim_sched_init(const sim_profile *profile);
/* Discards every queued op and future event (sim_reset). */
void sim_sched_reset(void);
/* The number of hardware work queues (connections.h; 1..32): the profile's max_connections
 * after sim_sched_init, unless set here (CUDA_DEVICE_MAX_CONNECTIONS), before any work is
 * queued. */
void sim_sched_set_connections(uint32_t n);
uint32_t sim_sched_connections(void);

/* Queues op on a stream: numbers it, adds the legacy-stream barrier dependencies, and
 * makes it visible to the device at op->visible_ns (set by the caller). */
void sim_sched_enqueue(sim_op *op, uint32_t stream);
/* Simulates the device up to time t. */
void sim_sched_advance(uint64_t t);

/* Host waits (the host clock moves to the completion, plus the wake-up latency). */
void sim_sched_wait_stream(uint32_t stream);            /* everything queued on stream */
void sim_sched_wait_seq(uint32_t stream, uint64_t seq); /* stream's op number seq */
void sim_sched_wait_device(void);                       /* everything, every device */
void sim_sched_wait_device_of(uint32_t device);         /* every stream of one device */
/* Everything in device 0's legacy stream and in the streams that synchronise with it;
 * the same for another device. */
void sim_sched_wait_blocking_streams(void);
void sim_sched_wait_blocking_streams_of(uint32_t device);
/* Whether that is all done already (no wait, no time passes). */
bool sim_sched_blocking_streams_idle(void);
bool sim_sched_blocking_streams_idle_of(uint32_t device);

/* The device clock (how far the device has been simulated). */
uint64_t sim_sched_now(void);
/* Ops enqueued and not completed. */
uint64_t sim_sched_outstanding(void);
/* True once a fault (sticky error) has stopped the device from touching data. */
bool sim_sched_device_failed(void);

/* For the engines: schedule an event; complete an op that has finished at t; report an
 * asynchronous fault at t. */
void sim_sched_push(uint64_t t, sim_ev_type type, uint32_t index, uint64_t gen, void *ptr);
void sim_sched_complete(sim_op *op, uint64_t t);
void sim_sched_fault(sim_fault_kind kind, uint64_t t);

#ifdef __cplusplus
}
#endif

#endif

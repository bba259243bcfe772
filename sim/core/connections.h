/* sim/core/connections.h: the device's hardware work queues ("connections", as many as
 * CUDA_DEVICE_MAX_CONNECTIONS asks for, 8 by default). Every op of a stream enters the
 * queue its stream is bound to, in enqueue order, and leaves it in that order. An op that
 * *holds* its queue (a kernel, a memset or device-to-device copy, a host function, a
 * stream wait, a record of a timing event) leaves only when it starts, so while it waits
 * for its stream (the op before it, an event) every op behind it waits too, of any stream:
 * a false dependency. The others (host-device copies, which the copy engines sequence, and
 * records of events created with cudaEventDisableTiming) leave as soon as they reach the
 * head, and then wait for their stream on their own. A stream is bound when work arrives
 * while it has none outstanding, to the queue with the fewest outstanding ops (the lowest
 * number on a tie), and keeps that queue until all its work completes: so with no more
 * busy streams than queues, no two busy streams share one. All of this is what an H200
 * did (docs/calibration/h200_connections.md); which ops hold was measured one kind at a
 * time with one queue. */
#ifndef STREAMLAB_SIM_CORE_CONNECTIONS_H
#define STREAMLAB_SIM_CORE_CONNECTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_CONN_MAX 32u
/* Devices with queues of their own (a profile of two devices: sim/core/profile_link.h). */
#define SIM_CONN_MAX_DEVICES 2u

/* n queues (clamped to 1..SIM_CONN_MAX), all empty; forgets any op they held (the ops
 * themselves belong to the stream queues). */
void sim_conn_init(uint32_t n);
uint32_t sim_conn_count(void);
/* The queue an idle stream is bound to now: the fewest outstanding ops, lowest number. */
uint32_t sim_conn_pick(void);
/* The same among the queues of one device (each device has its own n). */
uint32_t sim_conn_pick_on(uint32_t device);
/* op joins the back of queue c (op->conn is set; op->conn_holds says whether it will hold
 * the queue); it is outstanding until sim_conn_done. Returns true when ops that do not
 * hold the queue left it (they may start now). */
bool sim_conn_push(uint32_t c, sim_op *op);
/* The op at the head of queue c (the oldest not started), or NULL. */
sim_op *sim_conn_head(uint32_t c);
/* The head of queue c started: removes it, and every op that does not hold the queue
 * behind it up to the next that does. Returns true when an op of another stream left the
 * queue or is its new head (it may start now). */
bool sim_conn_pop(uint32_t c);
/* An op of queue c completed. */
void sim_conn_done(uint32_t c);

#ifdef __cplusplus
}
#endif

#endif

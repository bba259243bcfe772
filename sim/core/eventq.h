/* sim/core/eventq.h: the simulator's future: a binary min-heap of device events (a copy
 * finishing, a block group retiring, an op becoming visible to the device, ...) ordered by
 * virtual time and, at equal times, by the order they were scheduled, so that processing
 * is deterministic and never depends on addresses. */
#ifndef STREAMLAB_SIM_EVENTQ_H
#define STREAMLAB_SIM_EVENTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sim_ev_type {
    SIM_EV_WAKE = 0,     /* a stream's head op becomes visible to the device */
    SIM_EV_ENGINE,       /* a copy engine's phase ends (checked against gen) */
    SIM_EV_GROUP,        /* a block group retires */
    SIM_EV_KERNEL_READY, /* a kernel's launch overhead is over: its blocks may dispatch */
    SIM_EV_OP_DONE       /* an op with a fixed duration (host function, host copy) ends */
} sim_ev_type;

typedef struct sim_ev {
    uint64_t time; /* virtual ns */
    uint64_t seq;  /* scheduling order, the tie-break */
    uint32_t type; /* sim_ev_type */
    uint32_t index; /* stream or engine index */
    uint64_t gen;  /* for events that can be superseded */
    void *ptr;     /* the op or group concerned (never used for ordering) */
} sim_ev;

typedef struct sim_eventq {
    sim_ev *items;
    size_t count, cap;
    uint64_t next_seq;
} sim_eventq;

void sim_eventq_push(sim_eventq *q, uint64_t time, sim_ev_type type, uint32_t index, uint64_t gen,
                     void *ptr);
/* The earliest event, or NULL when empty. */
const sim_ev *sim_eventq_peek(const sim_eventq *q);
/* Removes the earliest event into *out; false when empty. */
bool sim_eventq_pop(sim_eventq *q, sim_ev *out);
void sim_eventq_free(sim_eventq *q);

#ifdef __cplusplus
}
#endif

#endif

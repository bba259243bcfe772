/* sim/core/events.h: the event table. An event remembers its latest record: which stream
 * and which op number of it, and, once that op has completed, the virtual time it
 * completed (its timestamp). Entries are never reused; handles (sim/event_calls.c) name an
 * entry and the table's reset generation. */
#ifndef STREAMLAB_SIM_CORE_EVENTS_H
#define STREAMLAB_SIM_CORE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_event {
    const void *handle; /* what the program holds (opaque here) */
    unsigned flags;     /* the creation flags, as the program gave them */
    bool live;
    uint32_t device;    /* the device current when it was made */
    bool recorded;      /* recorded at least once */
    uint32_t stream;    /* of the latest record */
    uint64_t seq;       /* the latest record's op number in that stream */
    uint64_t gen;       /* how many records so far */
    bool stamped;       /* the latest record completed: time_ns is its timestamp */
    uint64_t time_ns;
} sim_event;

/* A new live event with these flags; its index in *index. NULL when out of memory. */
sim_event *sim_events_add(unsigned flags, uint32_t *index);
sim_event *sim_event_at(uint32_t index);
uint32_t sim_events_count(void);
/* Bumped by every reset. */
uint32_t sim_events_generation(void);
/* The latest record has completed (an event never recorded counts as complete). */
bool sim_event_complete(const sim_event *e);
/* A record op of this event (generation gen) completed at t. */
void sim_events_record_done(uint32_t event, uint64_t gen, uint64_t t);
/* Forgets every event; tells the recorder about those still live when notify. */
void sim_events_reset(bool notify);
/* Events created and not destroyed. */
size_t sim_events_live(void);

#ifdef __cplusplus
}
#endif

#endif

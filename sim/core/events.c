/* sim/core/events.c: the event table (see events.h). */
#include "sim/core/events.h"

#include <stdlib.h>
#include <string.h>

#include "sim/core/streams.h"
#include "trace/record/recorder.h"

static struct {
    sim_event *items;
    uint32_t count, cap;
    uint32_t generation;
} E;

sim_event *sim_events_add(unsigned flags, uint32_t *index) {
    if (E.count == E.cap) {
        uint32_t ncap = E.cap ? E.cap * 2 : 16;
        sim_event *n = realloc(E.items, ncap * sizeof(sim_event));
        if (!n) return NULL;
        E.items = n;
        E.cap = ncap;
    }
    uint32_t i = E.count++;
    sim_event *e = &E.items[i];
    memset(e, 0, sizeof(*e));
    e->flags = flags;
    e->live = true;
    *index = i;
    return e;
}

sim_event *sim_event_at(uint32_t index) { return &E.items[index]; }
uint32_t sim_events_count(void) { return E.count; }
uint32_t sim_events_generation(void) { return E.generation; }

void sim_events_reset(bool notify) {
    if (notify)
        for (uint32_t i = 0; i < E.count; i++)
            if (E.items[i].live) trace_event_destroyed(E.items[i].handle);
    E.count = 0;
    E.generation++;
}

size_t sim_events_live(void) {
    size_t n = 0;
    for (uint32_t i = 0; i < E.count; i++) n += E.items[i].live;
    return n;
}

void sim_events_record_done(uint32_t event, uint64_t gen, uint64_t t) {
    if (event >= E.count) return;
    sim_event *e = &E.items[event];
    if (!e->live || e->gen != gen) return; /* destroyed, or recorded again since */
    e->stamped = true;
    e->time_ns = t;
}

bool sim_event_complete(const sim_event *e) {
    return !e->recorded || sim_stream_at(e->stream)->done_seq >= e->seq;
}

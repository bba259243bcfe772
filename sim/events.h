/* sim/events.h: the event table. An event remembers its latest cudaEventRecord: which
 * stream and which op number of it, and, once that op has completed, the virtual time it
 * completed (its timestamp). Handles are table entries, never reused. */
#ifndef STREAMLAB_SIM_EVENTS_H
#define STREAMLAB_SIM_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

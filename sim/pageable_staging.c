/* sim/pageable_staging.c: the driver's pinned staging slots for pageable uploads
 * (pageable_staging.h). Each device keeps its held slots oldest first; a slot is free
 * again when the copy holding it has completed (its stream's done_seq has reached it).
 * The wait is not recorded as a synchronisation: a GPU's trace shows only the call's length
 * too, so the race checker sees the same on both. */
#include <stdbool.h>
#include <string.h>

#include "sim/core/clock.h"
#include "sim/core/profile_link.h"
#include "sim/core/scheduler.h"
#include "sim/core/streams.h"
#include "sim/pageable_staging.h"

#define MAX_SLOTS 64

typedef struct held {
    uint32_t stream;
    uint32_t generation; /* sim_streams_generation() when it was held */
    uint64_t seq;
} held;

static struct {
    held slot[MAX_SLOTS];
    uint32_t n;
} devices[SIM_MAX_DEVICES];

void sim_staging_reset(void) { memset(devices, 0, sizeof(devices)); }

static bool ended(const held *h) {
    if (h->generation != sim_streams_generation() || h->stream >= sim_stream_count()) return true;
    return sim_stream_at(h->stream)->done_seq >= h->seq;
}

/* Drops the slots whose copies have ended (they end in any order across streams). */
static void release_ended(uint32_t device) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < devices[device].n; i++)
        if (!ended(&devices[device].slot[i])) devices[device].slot[k++] = devices[device].slot[i];
    devices[device].n = k;
}

uint32_t sim_staging_acquire(const sim_profile *p, uint32_t device, uint32_t stream, size_t bytes) {
    uint32_t slots = (uint32_t)p->pageable_staging_slots;
    if (slots == 0 || bytes <= (size_t)p->pageable_inline_bytes || device >= SIM_MAX_DEVICES) return 0;
    if (slots > MAX_SLOTS) slots = MAX_SLOTS;
    double chunk = p->pageable_staging_chunk_bytes > 0 ? p->pageable_staging_chunk_bytes : (double)bytes;
    double chunks = (double)bytes / chunk;
    uint32_t need = chunks > slots ? slots : (uint32_t)(chunks + 0.999999);
    if (need == 0) need = 1;
    bool whole = chunks > slots; /* staged as it is copied: its stream must reach it */
    sim_sched_advance(sim_host_now());
    release_ended(device);
    while (devices[device].n + need > slots) {
        held oldest = devices[device].slot[0];
        sim_sched_wait_seq(oldest.stream, oldest.seq);
        release_ended(device);
    }
    if (whole) sim_sched_wait_stream(stream);
    return need;
}

void sim_staging_hold(uint32_t device, uint32_t stream, uint64_t seq, uint32_t slots) {
    if (device >= SIM_MAX_DEVICES) return;
    for (uint32_t i = 0; i < slots && devices[device].n < MAX_SLOTS; i++)
        devices[device].slot[devices[device].n++] =
            (held){.stream = stream, .generation = sim_streams_generation(), .seq = seq};
}

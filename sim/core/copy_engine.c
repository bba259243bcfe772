/* sim/core/copy_engine.c: copy engines and link sharing (see copy_engine.h). */
#include "sim/core/copy_engine.h"

#include <math.h>
#include <string.h>


typedef enum phase { IDLE = 0, SETUP, TRANSFER } phase;

typedef struct engine {
    sim_op *cur;
    phase ph;
    double remaining; /* bytes left (TRANSFER) */
    double rate;      /* bytes per ns now (TRANSFER) */
    uint64_t since;   /* when remaining was last brought up to date */
    uint64_t gen;     /* supersedes earlier completion events */
    sim_op *q_head, *q_tail;
} engine;

/* Engines come in pairs that share a link both ways: device d's host link (engines 2d,
 * 2d + 1), then, with two devices, the peer link (0 to 1, 1 to 0) and the host-staged
 * peer path (0 to 1, 1 to 0). */
#define MAX_PAIRS (SIM_MAX_DEVICES + 2)

static struct {
    const sim_profile *prof;
    uint32_t count; /* engines per device: 1 or 2 */
    uint32_t n_devices;
    uint32_t n_pairs;
    double pair_total[MAX_PAIRS]; /* the pair's rate both ways at once, in total */
    engine e[2 * MAX_PAIRS];
} C;

void sim_copy_reset(void) {
    const sim_profile *p = C.prof;
    memset(&C, 0, sizeof(C));
    C.prof = p;
}

static sim_engine_env env;

void sim_copy_init(const sim_profile *profile, const sim_engine_env *scheduler) {
    env = *scheduler;
    sim_copy_reset();
    C.prof = profile;
    C.count = profile->async_engine_count >= 2 ? 2 : 1;
    C.n_devices = (uint32_t)profile->link.device_count;
    if (C.n_devices < 1 || C.n_devices > SIM_MAX_DEVICES) C.n_devices = 1;
    C.n_pairs = C.n_devices;
    for (uint32_t d = 0; d < C.n_devices; d++) C.pair_total[d] = profile->bidir_total_gbps;
    if (C.n_devices == 2) {
        C.pair_total[C.n_pairs++] = profile->link.peer_bidir_total_gbps;
        C.pair_total[C.n_pairs++] = profile->link.staged_bidir_total_gbps;
    }
}

uint32_t sim_copy_engine_on(uint32_t device, trace_copy_dir dir) {
    if (device >= C.n_devices) device = 0;
    return 2 * device + ((C.count == 2 && dir == TRACE_COPY_D2H) ? 1 : 0);
}

uint32_t sim_copy_engine_for(trace_copy_dir dir) { return sim_copy_engine_on(0, dir); }

trace_engine sim_copy_lane(trace_copy_dir dir) {
    return (sim_copy_engine_for(dir) & 1) ? TRACE_ENGINE_D2H : TRACE_ENGINE_H2D;
}

uint32_t sim_copy_peer_engine(uint32_t src_device, uint32_t dst_device, bool over_link) {
    (void)dst_device;
    uint32_t pair = C.n_devices + (over_link ? 0 : 1);
    return 2 * pair + (src_device == 0 ? 0 : 1);
}

/* Brings remaining bytes up to now at the current rate. */
static void settle(engine *e, uint64_t now) {
    if (e->ph != TRANSFER) return;
    e->remaining -= e->rate * (double)(now - e->since);
    if (e->remaining < 0) e->remaining = 0;
    e->since = now;
}

static void schedule_end(uint32_t index, uint64_t now) {
    engine *e = &C.e[index];
    e->gen++;
    double ns = e->remaining / e->rate;
    uint64_t end = now + (uint64_t)ceil(ns - 1e-6);
    env.push(end, SIM_EV_ENGINE, index, e->gen, e->cur);
}

/* Recomputes the rates of a pair's engines moving bytes, when one starts or stops. */
static void rebalance_pair(uint32_t pair, uint64_t now) {
    engine *pe = &C.e[2 * pair];
    uint32_t count = pair < C.n_devices ? C.count : 2;
    for (uint32_t i = 0; i < count; i++) settle(&pe[i], now);
    double want[2] = {0, 0};
    bool busy[2] = {false, false};
    for (uint32_t i = 0; i < count; i++) {
        if (pe[i].ph == TRANSFER) {
            busy[i] = true;
            want[i] = pe[i].cur->u.copy.rate / pe[i].cur->jitter;
        }
    }
    double got[2] = {want[0], want[1]};
    if (busy[0] && busy[1]) {
        /* Both directions at once share the bidirectional rate, split fairly, and an
         * engine that wants less than half leaves the rest to the other. */
        double total = C.pair_total[pair];
        if (want[0] + want[1] > total) {
            double half = total / 2;
            if (want[0] <= half)
                got[1] = total - want[0];
            else if (want[1] <= half)
                got[0] = total - want[1];
            else
                got[0] = got[1] = half;
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!busy[i]) continue;
        if (pe[i].rate != got[i]) {
            pe[i].rate = got[i];
            schedule_end(2 * pair + i, now);
        }
    }
}

static void rebalance(uint32_t index, uint64_t now) { rebalance_pair(index / 2, now); }

static void begin_next(uint32_t index, uint64_t now) {
    engine *e = &C.e[index];
    if (e->ph != IDLE || !e->q_head) return;
    sim_op *op = e->q_head;
    e->q_head = op->qnext;
    if (!e->q_head) e->q_tail = NULL;
    e->cur = op;
    op->start_ns = now;
    e->ph = SETUP;
    e->gen++;
    double fixed = op->u.copy.fixed_ns * op->jitter;
    uint64_t setup = (uint64_t)llround(fixed > 0 ? fixed : 0);
    env.push(now + setup, SIM_EV_ENGINE, index, e->gen, op);
}

void sim_copy_start(sim_op *op, uint64_t now) {
    engine *e = &C.e[op->u.copy.engine];
    op->qnext = NULL;
    if (e->q_tail)
        e->q_tail->qnext = op;
    else
        e->q_head = op;
    e->q_tail = op;
    begin_next(op->u.copy.engine, now);
}

void sim_copy_event(const sim_ev *ev) {
    engine *e = &C.e[ev->index];
    if (ev->gen != e->gen || ev->ptr != e->cur) return; /* superseded */
    uint64_t now = ev->time;
    if (e->ph == SETUP) {
        e->ph = TRANSFER;
        e->remaining = (double)e->cur->u.copy.bytes;
        e->since = now;
        e->rate = 0;
        rebalance(ev->index, now);
        return;
    }
    /* TRANSFER done. */
    sim_op *op = e->cur;
    e->cur = NULL;
    e->ph = IDLE;
    e->remaining = 0;
    e->gen++;
    env.complete(op, now);
    rebalance(ev->index, now);
    begin_next(ev->index, now);
}

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

static struct {
    const sim_profile *prof;
    uint32_t count; /* 1 or 2 */
    engine e[2];
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
}

uint32_t sim_copy_engine_for(trace_copy_dir dir) {
    return (C.count == 2 && dir == TRACE_COPY_D2H) ? 1 : 0;
}

trace_engine sim_copy_lane(trace_copy_dir dir) {
    return sim_copy_engine_for(dir) == 1 ? TRACE_ENGINE_D2H : TRACE_ENGINE_H2D;
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

/* Recomputes the rates of the engines moving bytes, when one starts or stops. */
static void rebalance(uint64_t now) {
    for (uint32_t i = 0; i < C.count; i++) settle(&C.e[i], now);
    double want[2] = {0, 0};
    bool busy[2] = {false, false};
    for (uint32_t i = 0; i < C.count; i++) {
        if (C.e[i].ph == TRANSFER) {
            busy[i] = true;
            want[i] = C.e[i].cur->u.copy.rate / C.e[i].cur->jitter;
        }
    }
    double got[2] = {want[0], want[1]};
    if (busy[0] && busy[1]) {
        /* Both directions at once share the bidirectional rate, split fairly, and an
         * engine that wants less than half leaves the rest to the other. */
        double total = C.prof->bidir_total_gbps;
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
    for (uint32_t i = 0; i < C.count; i++) {
        if (!busy[i]) continue;
        if (C.e[i].rate != got[i]) {
            C.e[i].rate = got[i];
            schedule_end(i, now);
        }
    }
}

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
        rebalance(now);
        return;
    }
    /* TRANSFER done. */
    sim_op *op = e->cur;
    e->cur = NULL;
    e->ph = IDLE;
    e->remaining = 0;
    e->gen++;
    env.complete(op, now);
    rebalance(now);
    begin_next(ev->index, now);
}

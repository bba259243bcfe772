/* sim/core/connections.c: the hardware work queues (see connections.h). */
#include "sim/core/connections.h"

#include <stddef.h>
#include <string.h>

typedef struct sim_conn {
    sim_op *head, *tail;  /* ops not started, oldest first (linked by cnext) */
    uint64_t outstanding; /* ops pushed and not completed */
} sim_conn;

/* Each device has its own n queues: device d's are d * n .. d * n + n - 1. */
static struct {
    sim_conn q[SIM_CONN_MAX * SIM_CONN_MAX_DEVICES];
    uint32_t n;
} C = {.n = 8};

void sim_conn_init(uint32_t n) {
    memset(&C, 0, sizeof(C));
    C.n = n < 1 ? 1 : (n > SIM_CONN_MAX ? SIM_CONN_MAX : n);
}

uint32_t sim_conn_count(void) { return C.n; }

uint32_t sim_conn_pick(void) { return sim_conn_pick_on(0); }

uint32_t sim_conn_pick_on(uint32_t device) {
    if (device >= SIM_CONN_MAX_DEVICES) device = 0;
    uint32_t first = device * C.n, best = first;
    for (uint32_t i = first + 1; i < first + C.n; i++)
        if (C.q[i].outstanding < C.q[best].outstanding) best = i;
    return best;
}

/* Lets every op at the head that does not hold the queue go; true when any did. */
static bool pass_non_holding(sim_conn *q) {
    bool passed = false;
    while (q->head && !q->head->conn_holds) {
        sim_op *op = q->head;
        op->conn_passed = true;
        q->head = op->cnext;
        op->cnext = NULL;
        passed = true;
    }
    if (!q->head) q->tail = NULL;
    return passed;
}

bool sim_conn_push(uint32_t c, sim_op *op) {
    sim_conn *q = &C.q[c];
    op->conn = c;
    op->conn_passed = false;
    op->cnext = NULL;
    if (q->tail)
        q->tail->cnext = op;
    else
        q->head = op;
    q->tail = op;
    q->outstanding++;
    return pass_non_holding(q);
}

sim_op *sim_conn_head(uint32_t c) { return C.q[c].head; }

bool sim_conn_pop(uint32_t c) {
    sim_conn *q = &C.q[c];
    sim_op *op = q->head;
    if (!op) return false;
    q->head = op->cnext;
    if (!q->head) q->tail = NULL;
    op->cnext = NULL;
    bool passed = pass_non_holding(q);
    return passed || (q->head && q->head->stream != op->stream);
}

void sim_conn_done(uint32_t c) {
    if (C.q[c].outstanding) C.q[c].outstanding--;
}

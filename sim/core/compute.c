/* sim/core/compute.c: SM residency, block dispatch and block groups (see compute.h). */
#include "sim/core/compute.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/memory.h"
#include "sim/core/perturb.h"
#include "sim/core/profile_link.h"

typedef struct sm_use {
    uint32_t threads, blocks, regs, smem;
} sm_use;

/* Blocks of one kernel dispatched at one instant to the SMs of one class. */
typedef struct group {
    struct group *next_free;
    sim_op *op;
    uint32_t b0, b1;  /* block range */
    uint32_t n;       /* SMs used */
    uint32_t *sm;     /* their indices */
    uint32_t *count;  /* blocks on each */
} group;

/* One set of SMs per device of the profile; K is the one an entry point is working on. */
typedef struct compute_dev {
    const sim_profile *prof;
    uint32_t n_sm, n_cls, per_cls; /* SM classes; per_cls: most SMs in one class */
    sm_use *use;
    uint32_t *take;     /* scratch: blocks placed on each SM in this dispatch */
    uint32_t *touched;  /* scratch: SMs with take > 0 */
    double *cls_overhead;
    group **cls_group;  /* scratch: the group being built for each class */
    group *free_groups;
    sim_op **pending;   /* kernels with blocks left to dispatch, in dispatch order */
    size_t n_pending, cap_pending;
    uint32_t cursor;    /* where the next breadth-first pass starts */
    uint64_t ready_count;
} compute_dev;

static compute_dev KD[SIM_MAX_DEVICES];
static compute_dev *KP = &KD[0];
#define K (*KP)
static uint32_t n_devices = 1;

static void on_device(uint32_t device) { KP = &KD[device < SIM_MAX_DEVICES ? device : 0]; }

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (SMs)\n");
        abort();
    }
    return p;
}

static void reset_one(void) {
    free(K.use);
    free(K.take);
    free(K.touched);
    free(K.cls_overhead);
    free(K.cls_group);
    free(K.pending);
    while (K.free_groups) {
        group *n = K.free_groups->next_free;
        free(K.free_groups);
        K.free_groups = n;
    }
    const sim_profile *p = K.prof;
    memset(&K, 0, sizeof(K));
    K.prof = p;
}

void sim_compute_reset(void) {
    for (uint32_t d = 0; d < SIM_MAX_DEVICES; d++) {
        on_device(d);
        reset_one();
    }
    on_device(0);
}

static sim_engine_env env;

static void init_one(const sim_profile *profile);

void sim_compute_init(const sim_profile *profile, const sim_engine_env *scheduler) {
    env = *scheduler;
    sim_compute_reset();
    n_devices = (uint32_t)profile->link.device_count;
    if (n_devices < 1 || n_devices > SIM_MAX_DEVICES) n_devices = 1;
    for (uint32_t d = 0; d < n_devices; d++) {
        on_device(d);
        init_one(profile);
    }
    on_device(0);
}

static void init_one(const sim_profile *profile) {
    K.prof = profile;
    K.n_sm = (uint32_t)profile->sm_count;
    /* No more classes than SMs. */
    K.n_cls = profile->sm_classes < profile->sm_count ? (uint32_t)profile->sm_classes : K.n_sm;
    K.per_cls = (K.n_sm + K.n_cls - 1) / K.n_cls;
    K.use = xcalloc(K.n_sm, sizeof(sm_use));
    K.take = xcalloc(K.n_sm, sizeof(uint32_t));
    K.touched = xcalloc(K.n_sm, sizeof(uint32_t));
    K.cls_group = xcalloc(K.n_cls, sizeof(group *));
    K.cls_overhead = xcalloc(K.n_cls, sizeof(double));
    /* SM classes differ in block turnaround, spread over [overhead, overhead + spread) by
     * a golden-ratio sequence (no two classes alike, none tied to a round fraction), so
     * that the SMs of a long many-wave kernel drift out of step as real ones do. */
    for (uint32_t g = 0; g < K.n_cls; g++) {
        double frac = fmod((double)g * 0.6180339887498949, 1.0);
        K.cls_overhead[g] = profile->block_overhead_ns + profile->block_overhead_spread_ns * frac;
    }
}

static group *group_new(void) {
    group *g = K.free_groups;
    if (g) {
        K.free_groups = g->next_free;
    } else {
        g = xcalloc(1, sizeof(group) + 2 * K.per_cls * sizeof(uint32_t));
        g->sm = (uint32_t *)(g + 1);
        g->count = g->sm + K.per_cls;
    }
    g->n = 0;
    return g;
}

static void group_free(group *g) {
    g->next_free = K.free_groups;
    K.free_groups = g;
}

/* How many more blocks of k fit on SM s. */
static uint32_t fit(const sim_kernel_state *k, uint32_t s) {
    const sm_use *u = &K.use[s];
    const sim_profile *p = K.prof;
    uint32_t n = (uint32_t)p->max_blocks_per_sm - u->blocks;
    uint32_t t = ((uint32_t)p->max_threads_per_sm - u->threads) / k->threads;
    if (t < n) n = t;
    if (k->regs) {
        uint32_t r = ((uint32_t)p->regs_per_sm - u->regs) / k->regs;
        if (r < n) n = r;
    }
    if (k->smem) {
        uint32_t m = ((uint32_t)p->shared_mem_per_sm - u->smem) / k->smem;
        if (m < n) n = m;
    }
    return n;
}

/* Dispatches as many blocks of op as fit now, breadth-first over the SMs. */
static void place(sim_op *op, uint64_t now) {
    sim_kernel_state *k = &op->u.kernel;
    uint32_t remaining = k->nblocks - k->next_block;
    uint32_t n_touched = 0;
    bool progress = true;
    while (remaining > 0 && progress) {
        progress = false;
        for (uint32_t i = 0; i < K.n_sm && remaining > 0; i++) {
            uint32_t s = (K.cursor + i) % K.n_sm;
            if (fit(k, s) == 0) continue;
            if (K.take[s] == 0) K.touched[n_touched++] = s;
            K.take[s]++;
            K.use[s].blocks++;
            K.use[s].threads += k->threads;
            K.use[s].regs += k->regs;
            K.use[s].smem += k->smem;
            remaining--;
            progress = true;
            if (remaining == 0) K.cursor = (s + 1) % K.n_sm;
        }
    }
    if (n_touched == 0) return;
    if (k->next_block == 0) op->start_ns = now;
    for (uint32_t i = 0; i < n_touched; i++) {
        uint32_t s = K.touched[i];
        uint32_t g = s % K.n_cls;
        if (!K.cls_group[g]) K.cls_group[g] = group_new();
        group *gr = K.cls_group[g];
        gr->sm[gr->n] = s;
        gr->count[gr->n] = K.take[s];
        gr->n++;
    }
    for (uint32_t g = 0; g < K.n_cls; g++) {
        group *gr = K.cls_group[g];
        if (!gr) continue;
        K.cls_group[g] = NULL;
        uint32_t blocks = 0;
        for (uint32_t i = 0; i < gr->n; i++) blocks += gr->count[i];
        gr->op = op;
        gr->b0 = k->next_block;
        gr->b1 = k->next_block + blocks;
        k->next_block = gr->b1;
        double ns = k->block_ns * sim_perturb_factor() + K.cls_overhead[g];
        env.push(now + (uint64_t)llround(ns), SIM_EV_GROUP, g, 0, gr);
    }
    for (uint32_t i = 0; i < n_touched; i++) K.take[K.touched[i]] = 0;
}

/* Groups are alike on every device (one profile): any device's pool takes it back. */
void sim_compute_discard_group(void *g) {
    on_device(0);
    group_free(g);
}

static void remove_pending(size_t i) {
    K.pending[i]->u.kernel.dispatching = false;
    memmove(&K.pending[i], &K.pending[i + 1], (K.n_pending - i - 1) * sizeof(sim_op *));
    K.n_pending--;
}

static void dispatch(uint64_t now) {
    for (size_t i = 0; i < K.n_pending;) {
        sim_op *op = K.pending[i];
        place(op, now);
        if (op->u.kernel.next_block == op->u.kernel.nblocks)
            remove_pending(i);
        else
            i++;
    }
}

void sim_compute_start(sim_op *op, uint64_t now) {
    double ns = op->u.kernel.overhead_ns * op->jitter;
    env.push(now + (uint64_t)llround(ns > 0 ? ns : 0), SIM_EV_KERNEL_READY, op->stream, 0, op);
}

static bool dispatches_before(const sim_kernel_state *a, const sim_kernel_state *b) {
    if (a->priority != b->priority) return a->priority < b->priority;
    return a->order < b->order;
}

void sim_compute_ready(sim_op *op, uint64_t now) {
    on_device(op->device);
    sim_kernel_state *k = &op->u.kernel;
    uint64_t key = sim_perturb_key();
    k->order = key ? key : ++K.ready_count;
    if (K.n_pending == K.cap_pending) {
        K.cap_pending = K.cap_pending ? K.cap_pending * 2 : 16;
        sim_op **n = realloc(K.pending, K.cap_pending * sizeof(sim_op *));
        if (!n) {
            fprintf(stderr, "streamlab simulated GPU: out of memory (dispatcher)\n");
            abort();
        }
        K.pending = n;
    }
    size_t pos = K.n_pending;
    while (pos > 0 && dispatches_before(k, &K.pending[pos - 1]->u.kernel)) pos--;
    memmove(&K.pending[pos + 1], &K.pending[pos], (K.n_pending - pos) * sizeof(sim_op *));
    K.pending[pos] = op;
    K.n_pending++;
    k->dispatching = true;
    dispatch(now);
}

void sim_compute_group_done(const sim_ev *ev) {
    group *gr = ev->ptr;
    sim_op *op = gr->op;
    on_device(op->device);
    sim_kernel_state *k = &op->u.kernel;
    for (uint32_t i = 0; i < gr->n; i++) {
        sm_use *u = &K.use[gr->sm[i]];
        uint32_t c = gr->count[i];
        u->blocks -= c;
        u->threads -= c * k->threads;
        u->regs -= c * k->regs;
        u->smem -= c * k->smem;
    }
    if (k->illegal) {
        /* The kernel touched memory outside every allocation: the first retiring group
         * raises the fault; nothing more of it is dispatched. */
        if (!env.failed()) env.fault(SIM_FAULT_ILLEGAL_ADDRESS, ev->time);
        if (k->dispatching) {
            for (size_t i = 0; i < K.n_pending; i++)
                if (K.pending[i] == op) {
                    remove_pending(i);
                    break;
                }
        }
        k->nblocks = k->next_block;
    } else if (k->body && !env.failed()) {
        if (k->body_views) {
            k->body(k->args, gr->b0, gr->b1);
        } else {
            /* A body that uses the program's device addresses: device memory is
             * accessible to the host for as long as it runs. */
            sim_mem_program_view_open();
            k->body(k->args, gr->b0, gr->b1);
            sim_mem_program_view_close();
        }
    }
    k->done_blocks += gr->b1 - gr->b0;
    group_free(gr);
    if (k->done_blocks == k->nblocks) env.complete(op, ev->time);
    dispatch(ev->time);
}

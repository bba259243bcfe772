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
    uint32_t n_kernels; /* kernels with blocks on it: the first n_kernels of its resident[] */
} sm_use;

/* A kernel's blocks on one SM. */
typedef struct resident {
    const sim_op *op;
    uint32_t blocks;
} resident;

/* Blocks of one kernel dispatched at one instant to the SMs of one class. They retire
 * when their progress reaches 1: progress grows at 1 / ns a nanosecond, ns being their
 * time at the SMs' present load, priced again whenever the load changes (sm_busy). */
typedef struct group {
    struct group *next_free;
    struct group *prev, *next; /* in flight, in dispatch order */
    sim_op *op;
    uint32_t b0, b1;  /* block range */
    uint32_t n;       /* SMs used */
    uint32_t *sm;     /* their indices */
    uint32_t *count;  /* blocks on each */
    uint32_t cls;     /* their SM class */
    uint32_t device;  /* whose SMs (the op may be gone when a superseded event arrives) */
    double factor;    /* the perturbation's factor on the block time */
    double block_ns;  /* the block time at the present load */
    double ns;        /* block_ns * factor + the class's turnaround */
    double progress;  /* done, as a fraction, at since_ns */
    uint64_t since_ns;
    uint64_t gen;     /* the SIM_EV_GROUP event that counts; older ones are ignored */
    uint32_t events;  /* its SIM_EV_GROUP events still queued */
    bool retired;
} group;

/* One set of SMs per device of the profile; K is the one an entry point is working on. */
typedef struct compute_dev {
    const sim_profile *prof;
    uint32_t n_sm, n_cls, per_cls; /* SM classes; per_cls: most SMs in one class */
    sm_use *use;
    resident *resident; /* max_blocks_per_sm for each SM: the kernels on it */
    group *first, *last; /* groups in flight */
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
    free(K.resident);
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
    K.resident = xcalloc((size_t)K.n_sm * (uint32_t)profile->max_blocks_per_sm, sizeof(resident));
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
    g->events = 0;
    g->gen = 0;
    g->retired = false;
    return g;
}

static void group_free(group *g) {
    g->next_free = K.free_groups;
    K.free_groups = g;
}

static resident *residents(uint32_t s) { return &K.resident[(size_t)s * (uint32_t)K.prof->max_blocks_per_sm]; }

/* Counts c more (or, with remove, fewer) blocks of op on SM s. */
static void count_resident(uint32_t s, const sim_op *op, uint32_t c, bool remove) {
    resident *r = residents(s);
    uint32_t n = K.use[s].n_kernels, i = 0;
    while (i < n && r[i].op != op) i++;
    if (!remove) {
        if (i == n) {
            r[i].op = op;
            r[i].blocks = 0;
            K.use[s].n_kernels++;
        }
        r[i].blocks += c;
    } else if (i < n && (r[i].blocks -= c) == 0) {
        memmove(&r[i], &r[i + 1], (n - i - 1) * sizeof(resident));
        K.use[s].n_kernels--;
    }
}

/* Whether a change on SM s may change what a block there costs: other kernels' blocks
 * share it, or more of one kernel's blocks than its share (which its block_ns assumes). */
static bool sm_shared(uint32_t s) {
    const resident *r = residents(s);
    return K.use[s].n_kernels > 1 || (K.use[s].n_kernels == 1 && r[0].blocks > r[0].op->u.kernel.share);
}

/* The SM time a block of kernel k needs on SM s with everything resident there: the
 * SM's throughput is shared by the kernels on it, each other kernel taking what its
 * blocks there would use alone (throughput_ns over their time alone, each), at most the
 * whole SM. Its own kernel's blocks count as its share at least, as block_ns does. Sets
 * *alone when that is block_ns's own case. */
static double sm_busy(const sim_kernel_state *k, uint32_t s, bool *alone) {
    const resident *r = residents(s);
    double others = 0;
    uint32_t own = k->share;
    for (uint32_t i = 0; i < K.use[s].n_kernels; i++) {
        const sim_kernel_state *o = &r[i].op->u.kernel;
        if (o == k) {
            if (r[i].blocks > own) own = r[i].blocks;
            continue;
        }
        double t = o->throughput_ns > o->chain_ns ? o->throughput_ns : o->chain_ns;
        double want = t > 0 ? r[i].blocks * (o->throughput_ns / t) : 0;
        others += want < 1 ? want : 1;
    }
    if (others > 0 || own > k->share) *alone = false;
    double t = k->throughput_ns > k->chain_ns ? k->throughput_ns : k->chain_ns;
    return own * k->throughput_ns + others * t;
}

/* A block's time in group gr at the present load: its kernel's block_ns where no SM of
 * the group holds anything block_ns does not count, else priced on the busiest SM. */
static double group_block_ns(const group *gr) {
    const sim_kernel_state *k = &gr->op->u.kernel;
    bool alone = true;
    double busy = 0;
    for (uint32_t i = 0; i < gr->n; i++) {
        double b = sm_busy(k, gr->sm[i], &alone);
        if (b > busy) busy = b;
    }
    if (alone) return k->block_ns;
    return k->fixed_ns + (busy > k->chain_ns ? busy : k->chain_ns);
}

/* Schedules gr's retirement from now at its present price. */
static void group_schedule(group *gr, uint64_t now) {
    double left = (1.0 - gr->progress) * gr->ns;
    gr->gen++;
    gr->events++;
    env.push(now + (uint64_t)llround(left > 0 ? left : 0), SIM_EV_GROUP, gr->cls, gr->gen, gr);
}

/* The SMs' load changed at now: every group in flight whose block time moved is priced
 * again, its progress so far kept. */
static void reprice(uint64_t now) {
    for (group *gr = K.first; gr; gr = gr->next) {
        double b = group_block_ns(gr);
        if (b == gr->block_ns) continue;
        gr->progress += (double)(now - gr->since_ns) / gr->ns;
        if (gr->progress > 1) gr->progress = 1;
        gr->since_ns = now;
        gr->block_ns = b;
        gr->ns = b * gr->factor + K.cls_overhead[gr->cls];
        group_schedule(gr, now);
    }
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
    bool shared = false;
    for (uint32_t i = 0; i < n_touched; i++) {
        uint32_t s = K.touched[i];
        count_resident(s, op, K.take[s], false);
        if (sm_shared(s)) shared = true;
    }
    /* The groups already in flight first: those that now share an SM with these blocks
     * slow down from now. */
    if (shared) reprice(now);
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
        gr->cls = g;
        gr->device = (uint32_t)(KP - KD);
        gr->factor = sim_perturb_factor();
        gr->block_ns = shared ? group_block_ns(gr) : k->block_ns;
        gr->ns = gr->block_ns * gr->factor + K.cls_overhead[g];
        gr->progress = 0;
        gr->since_ns = now;
        gr->prev = K.last;
        gr->next = NULL;
        if (K.last)
            K.last->next = gr;
        else
            K.first = gr;
        K.last = gr;
        group_schedule(gr, now);
    }
    for (uint32_t i = 0; i < n_touched; i++) K.take[K.touched[i]] = 0;
}

/* Groups are alike on every device (one profile): any device's pool takes it back once
 * its last event is discarded. */
void sim_compute_discard_group(void *g) {
    on_device(0);
    group *gr = g;
    if (--gr->events == 0) group_free(gr);
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

void sim_compute_start(sim_op *op, uint64_t now, bool queued) {
    double overhead = op->u.kernel.overhead_ns;
    on_device(op->device);
    double queued_ns = K.prof->kernel_queued_overhead_ns;
    if (queued && queued_ns < overhead) overhead = queued_ns;
    double ns = overhead * op->jitter;
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
    on_device(gr->device);
    gr->events--;
    if (ev->gen != gr->gen || gr->retired) {
        /* Superseded: the group was priced again after this event was scheduled. */
        if (gr->retired && gr->events == 0) group_free(gr);
        return;
    }
    gr->retired = true;
    sim_op *op = gr->op;
    if (gr->prev)
        gr->prev->next = gr->next;
    else
        K.first = gr->next;
    if (gr->next)
        gr->next->prev = gr->prev;
    else
        K.last = gr->prev;
    sim_kernel_state *k = &op->u.kernel;
    bool shared = false;
    for (uint32_t i = 0; i < gr->n; i++) {
        uint32_t s = gr->sm[i];
        sm_use *u = &K.use[s];
        uint32_t c = gr->count[i];
        u->blocks -= c;
        u->threads -= c * k->threads;
        u->regs -= c * k->regs;
        u->smem -= c * k->smem;
        if (sm_shared(s)) shared = true;
        count_resident(s, op, c, true);
    }
    /* The blocks still on those SMs speed up from now. */
    if (shared) reprice(ev->time);
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
    if (gr->events == 0) group_free(gr);
    if (k->done_blocks == k->nblocks) env.complete(op, ev->time);
    dispatch(ev->time);
}

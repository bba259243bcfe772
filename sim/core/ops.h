/* sim/core/ops.h: one operation enqueued on a stream (a copy, a kernel or other SM work, an
 * event record or wait, a host function, a host-to-host copy), with what it waits for
 * and the state each engine keeps in it while it runs. Ops come from a free list, so a
 * million enqueued operations do not mean a million mallocs. */
#ifndef STREAMLAB_SIM_OPS_H
#define STREAMLAB_SIM_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel's body over blocks [block_begin, block_end) of its grid (the same type as
 * streamlab_sim.h's, which the runtime API hands in). */
typedef void (*sim_kernel_body)(const void *args, uint32_t block_begin, uint32_t block_end);
/* A host function and its argument (cudaLaunchHostFunc's). */
typedef void (*sim_host_fn)(void *data);

typedef enum sim_op_kind {
    SIM_OP_COPY = 0,     /* H2D / D2H on a copy engine */
    SIM_OP_COMPUTE,      /* a kernel, or a memset / device-to-device copy run on the SMs */
    SIM_OP_EVENT_RECORD, /* cudaEventRecord */
    SIM_OP_EVENT_WAIT,   /* cudaStreamWaitEvent */
    SIM_OP_HOST_FN,      /* cudaLaunchHostFunc */
    SIM_OP_HOST_COPY     /* a host-to-host copy, done by the host */
} sim_op_kind;

/* "Stream `stream` has completed its op number `seq`." */
typedef struct sim_dep {
    uint32_t stream;
    uint64_t seq;
} sim_dep;

#define SIM_OP_INLINE_DEPS 2
#define SIM_KERNEL_INLINE_ARGS 64

typedef struct sim_copy_state {
    trace_copy_dir dir;
    bool pinned;      /* the host side is page-locked */
    uint32_t engine;  /* copy engine index */
    void *dst;
    const void *src;
    uint64_t bytes;
    double rate;      /* bytes per ns when it has the link to itself */
    double fixed_ns;  /* set-up time on the engine before bytes move */
    /* A pageable upload's source as the driver staged it at the call (malloc'd, freed with
     * the op): the copy moves these bytes, whatever the host writes to src afterwards. */
    void *staged;
} sim_copy_state;

typedef struct sim_kernel_state {
    sim_kernel_body body;
    void *args; /* the launch's copy of the arguments (inline_args or malloc'd) */
    uint32_t args_size; /* their size in bytes */
    /* Aligned for any argument struct a launcher copies in (they hold pointers and size_t). */
    union {
        max_align_t inline_align;
        unsigned char inline_args[SIM_KERNEL_INLINE_ARGS];
    };
    uint32_t nblocks;
    uint32_t next_block;  /* blocks dispatched so far */
    uint32_t done_blocks; /* blocks retired so far */
    uint32_t threads;     /* per block */
    uint32_t regs;        /* per block, as allocated */
    uint32_t smem;        /* per block, with the driver's reservation */
    double block_ns;      /* how long a block holds its slot, its kernel alone on the GPU */
    /* block_ns = fixed_ns + max(share * throughput_ns, chain_ns) (streamlab_sim.h): the
     * parts, with which the SMs price a block that shares its SM with other kernels'. */
    double fixed_ns, throughput_ns, chain_ns;
    uint32_t share;
    double overhead_ns;   /* launch overhead on the device before blocks dispatch */
    int32_t priority;
    uint64_t order;       /* dispatch order within a priority */
    bool illegal;         /* touches memory outside every allocation: faults */
    bool body_views;      /* the body translates device pointers itself (sim_device_view):
                             no need to open the program's view of device memory */
    bool dispatching;     /* in the dispatcher's list */
} sim_kernel_state;

typedef struct sim_op sim_op;
struct sim_op {
    sim_op *next;  /* in its stream's queue, or the free list */
    sim_op *qnext; /* in a copy engine's queue */
    sim_op *cnext; /* in its hardware work queue (connections.h) until it starts */
    uint32_t stream;
    uint32_t device; /* its stream's device (set when it is queued) */
    uint32_t conn; /* its hardware work queue */
    bool conn_holds;  /* waits at the head of its queue, holding it (connections.h) */
    bool conn_passed; /* has left its queue without holding it */
    uint8_t kind;  /* sim_op_kind */
    bool started;
    uint64_t seq;        /* its number within its stream, from 1 */
    uint64_t order;      /* global enqueue order */
    uint64_t tiebreak;   /* random start order under perturbation, else 0 */
    uint64_t trace_id;   /* the recorder's id; 0 when not recorded */
    uint64_t visible_ns; /* the earliest time the device can see it */
    uint64_t start_ns, end_ns;
    double jitter;       /* duration factor from the perturbation (1 when none) */
    uint32_t n_deps;
    uint32_t deps_cap;
    sim_dep deps_inline[SIM_OP_INLINE_DEPS];
    sim_dep *deps; /* deps_inline, or a malloc'd array when there are more */
    union {
        sim_copy_state copy;
        sim_kernel_state kernel;
        struct {
            uint32_t event;
            uint64_t gen;
            bool timing; /* the event takes a timestamp (no cudaEventDisableTiming) */
        } record;
        struct {
            sim_host_fn fn;
            void *data;
        } host_fn;
        struct {
            void *dst;
            const void *src;
            uint64_t bytes;
        } host_copy;
    } u;
};

/* A zeroed op of this kind, from the free list. */
sim_op *sim_op_new(sim_op_kind kind);
/* Returns an op (and what it owns: extra deps, kernel arguments) to the free list. */
void sim_op_free(sim_op *op);
/* A fresh, unqueued copy of op as it was before it ran (its kind's state, its own copy
 * of kernel arguments, no dependencies, no stream, no times): what a graph launch
 * enqueues for each node. */
sim_op *sim_op_clone(const sim_op *op);
/* Adds a dependency. */
void sim_op_add_dep(sim_op *op, uint32_t stream, uint64_t seq);
/* Frees the free list itself (sim_reset). */
void sim_op_pool_release(void);

#ifdef __cplusplus
}
#endif

#endif

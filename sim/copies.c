/* sim/copies.c: cudaMemcpy, cudaMemcpyAsync, cudaMemset and cudaMemsetAsync. A copy is
 * checked against the allocation tables (direction against the pointers, device ranges
 * inside their allocations), classified (H2D / D2H on a copy engine, pinned or pageable;
 * D2D on the SMs; H2H on the host), and the host blocks as trace/record/copy_rules.h says the
 * runtime does. Memsets and device-to-device copies run as kernels at device-memory rate,
 * writing each block's bytes when its block group retires. cudaMemcpy and cudaMemset use
 * the legacy stream; copies.h gives them on the per-thread stream too. With a profile of
 * two devices a device-to-device copy between them is a peer copy (cudaMemcpyPeerAsync,
 * or cudaMemcpyAsync under unified addressing): over the link when either device has peer
 * access to the other, else staged through the host, each at its profile's rate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/copies.h"
#include "sim/core/copy_engine.h"
#include "sim/errors.h"
#include "sim/call.h"
#include "sim/stream_capture.h"
#include "sim/devices.h"
#include "sim/kernels.h"
#include "sim/pageable_staging.h"
#include "sim/core/memory.h"
#include "sim/core/scheduler.h"
#include "sim/stream_handles.h"
#include "trace/record/copy_rules.h"
#include "trace/record/recorder.h"

#define MIB (1024.0 * 1024.0)
#define DEVICE_KERNEL_THREADS 256u

/* The arguments of the kernels behind memset and device-to-device copies. */
typedef struct device_memory_args {
    unsigned char *dst;
    const unsigned char *src; /* NULL for a memset */
    uint64_t bytes;
    uint64_t chunk; /* bytes per block */
    int value;
} device_memory_args;

static void device_memory_body(const void *args, uint32_t b0, uint32_t b1) {
    const device_memory_args *a = args;
    uint64_t begin = (uint64_t)b0 * a->chunk;
    uint64_t end = (uint64_t)b1 * a->chunk;
    if (end > a->bytes) end = a->bytes;
    if (begin >= end) return;
    /* In the simulator's view: the program's view of device memory is inaccessible. */
    unsigned char *dst = sim_mem_view(a->dst + begin);
    if (a->src)
        memmove(dst, sim_mem_view(a->src + begin), end - begin);
    else
        memset(dst, a->value, end - begin);
}

/* Builds the compute op of a memset (src NULL) or device-to-device copy. */
static sim_op *device_memory_op(const sim_profile *p, void *dst, const void *src, uint64_t bytes,
                                int value, uint32_t stream) {
    uint64_t chunk = (uint64_t)p->memset_block_bytes;
    uint64_t blocks = (bytes + chunk - 1) / chunk;
    if (blocks > UINT32_MAX) {
        chunk = (bytes + UINT32_MAX - 1) / UINT32_MAX;
        blocks = (bytes + chunk - 1) / chunk;
    }
    sim_op *op = sim_op_new(SIM_OP_COMPUTE);
    sim_kernel_state *k = &op->u.kernel;
    sim_kernel_cost cost = {0};
    cost.dram_bytes = (double)chunk * (src ? 2.0 : 1.0); /* a copy reads and writes */
    unsigned threads = DEVICE_KERNEL_THREADS;
    if (threads > (unsigned)p->max_threads_per_block) threads = (unsigned)p->max_threads_per_block;
    dim3 grid = {(unsigned)blocks, 1, 1}, block = {threads, 1, 1};
    if (sim_kernel_prepare(p, grid, block, 0, &cost, k) != cudaSuccess) {
        /* Only a profile whose SMs cannot hold one such block gets here. */
        fprintf(stderr, "streamlab simulated GPU: the profile cannot run a %u-thread block\n", threads);
        sim_op_free(op);
        return NULL;
    }
    device_memory_args a = {dst, src, bytes, chunk, value};
    k->args = k->inline_args;
    memcpy(k->args, &a, sizeof(a));
    k->body = device_memory_body;
    k->body_views = true;
    k->priority = sim_stream_at(stream)->priority;
    return op;
}

/* The op of a peer copy between two devices, issued on a stream of stream_dev. It goes over
 * the link when either device has peer access to the other, else through the host, staged
 * by the driver. (The Runtime API does not say whose access a copy needs; on two H200s with
 * CUDA 13 a copy queued on GPU 0's stream from GPU 0 to GPU 1 ran at the link's rate with
 * only GPU 1's access enabled, as with only GPU 0's: docs/measured.md, "Lab 09 with a wide
 * peer copy".) */
static sim_op *peer_copy_op(const sim_profile *p, void *dst, uint32_t dst_dev, const void *src,
                            uint32_t src_dev, uint64_t bytes, uint32_t stream_dev) {
    uint32_t other = stream_dev == src_dev ? dst_dev : src_dev;
    bool link = sim_peer_enabled(stream_dev, other) || sim_peer_enabled(other, stream_dev);
    sim_op *op = sim_op_new(SIM_OP_COPY);
    sim_copy_state *c = &op->u.copy;
    c->dir = TRACE_COPY_D2D;
    c->pinned = false;
    c->engine = sim_copy_peer_engine(src_dev, dst_dev, link);
    c->dst = dst;
    c->src = src;
    c->bytes = bytes;
    c->rate = link ? p->link.peer_gbps : p->link.staged_gbps;
    c->fixed_ns = link ? p->link.peer_fixed_ns : p->link.staged_fixed_ns;
    return op;
}

/* A pageable copy on its engine: a set-up, then the bytes at a rate, together the time
 * sim_profile_pageable_ns gives. Without curves that is the profile's line as it stands
 * (the direction's set-up plus the staging cost, then the pageable rate); with them, the
 * direction's pinned set-up (at most half the copy) and the rest at the rate that ends the
 * copy on time. */
static void pageable_timing(const sim_profile *p, bool h2d, size_t count, double *fixed_ns, double *rate) {
    if (p->h2d_pageable_curve.n == 0) {
        *fixed_ns = (h2d ? p->h2d_fixed_ns : p->d2h_fixed_ns) + p->pageable_fixed_ns;
        *rate = h2d ? p->h2d_pageable_gbps : p->d2h_pageable_gbps;
        return;
    }
    double total = sim_profile_pageable_ns(p, h2d, (double)count);
    double setup = h2d ? p->h2d_fixed_ns : p->d2h_fixed_ns;
    if (setup > total / 2) setup = total / 2;
    *fixed_ns = setup;
    *rate = total - setup > 0 ? (double)count / (total - setup) : 1e6;
}

static uint64_t visible_now(const sim_profile *p) {
    return sim_host_now() + (uint64_t)p->submit_latency_ns;
}

/* Checks a copy and finds its direction and whether its host side is pinned. As the CUDA
 * 13 runtime does (measured, see docs/simulator.md): a pointer the kind says is on the
 * device must be one the device can address (device memory or page-locked host memory,
 * under unified addressing), and the copy then goes the way the pointers say, whatever
 * the kind; a pageable pointer where the kind wants a device one is an invalid value. */
static cudaError_t classify(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            trace_copy_dir *dir, bool *pinned) {
    if ((unsigned)kind > (unsigned)cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (!dst || !src) return cudaErrorInvalidValue;
    sim_mem_kind dk = sim_mem_kind_of(dst, NULL, NULL), sk = sim_mem_kind_of(src, NULL, NULL);
    bool kind_dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool kind_src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if ((kind_dst_dev && dk == SIM_MEM_PAGEABLE) || (kind_src_dev && sk == SIM_MEM_PAGEABLE))
        return cudaErrorInvalidValue;
    bool dst_dev = dk == SIM_MEM_DEVICE, src_dev = sk == SIM_MEM_DEVICE;
    *dir = src_dev ? (dst_dev ? TRACE_COPY_D2D : TRACE_COPY_D2H) : (dst_dev ? TRACE_COPY_H2D : TRACE_COPY_H2H);
    /* Device ranges must lie inside their allocations. */
    if (dst_dev && !sim_mem_range_is(dst, count, SIM_MEM_DEVICE)) return cudaErrorInvalidValue;
    if (src_dev && !sim_mem_range_is(src, count, SIM_MEM_DEVICE)) return cudaErrorInvalidValue;
    switch (*dir) {
    case TRACE_COPY_H2D: *pinned = sim_mem_range_is(src, count, SIM_MEM_PINNED); break;
    case TRACE_COPY_D2H: *pinned = sim_mem_range_is(dst, count, SIM_MEM_PINNED); break;
    case TRACE_COPY_H2H:
        *pinned = sim_mem_range_is(src, count, SIM_MEM_PINNED) && sim_mem_range_is(dst, count, SIM_MEM_PINNED);
        break;
    default: *pinned = false; break;
    }
    /* CUDA 13 documents for cudaMemcpy and cudaMemcpyAsync alike (\note_memcpy in
     * cuda_runtime_api.h) that "memory regions requested must be either entirely
     * registered with CUDA, or in the case of host pageable transfers, not registered at
     * all. Memory regions spanning over allocations that are both registered and not
     * registered with CUDA are not supported and will return CUDA_ERROR_INVALID_VALUE".
     * What the H200 (CUDA 13.0, driver 580) does is narrower, and the simulator follows
     * it, as if the driver looked only at the host range's first byte: a range that
     * starts in page-locked memory (registered or cudaMallocHost) and runs past it is
     * refused, an invalid value; one that starts in pageable memory is a pageable copy,
     * staged, even where it runs into a registered range (conformance cases
     * "cudaMemcpyAsync ... a range whose first / second half is registered"). */
    if ((*dir == TRACE_COPY_H2D || *dir == TRACE_COPY_D2H) && !*pinned) {
        sim_mem_kind hk = *dir == TRACE_COPY_H2D ? sk : dk;
        if (hk == SIM_MEM_PINNED || hk == SIM_MEM_REGISTERED) return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

static cudaError_t do_copy(sim_call *call, void *dst, const void *src, size_t count,
                           enum cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    const sim_profile *p = sim_prof();
    uint32_t si;
    bool captured = false;
    bool stream_ok = sim_stream_resolve(stream, &si);
    cudaError_t cap_err = stream_ok ? sim_capture_enqueue_check(si, &captured) : cudaSuccess;
    /* A capturing stream records the copy as a node: host work only. */
    sim_host_charge(captured ? p->capture_call_ns
                             : p->memcpy_call_ns + p->memcpy_call_ns_per_mib * ((double)count / MIB));
    if (!stream_ok) return cudaErrorInvalidResourceHandle;
    if (cap_err != cudaSuccess) return cap_err;
    if (!async) {
        /* A synchronous copy makes the host wait for it: it cannot be captured, and it is
         * one of the potentially unsafe calls while a global-mode capture is active. */
        if (captured) {
            sim_capture_invalidate_stream(si);
            return cudaErrorStreamCaptureUnsupported;
        }
        cudaError_t unsafe = sim_capture_check_unsafe();
        if (unsafe != cudaSuccess) return unsafe;
    }
    trace_copy_dir dir = TRACE_COPY_NONE;
    bool pinned = false;
    if (count == 0) return ((unsigned)kind > (unsigned)cudaMemcpyDefault) ? cudaErrorInvalidMemcpyDirection : cudaSuccess;
    cudaError_t err = classify(dst, src, count, kind, &dir, &pinned);
    if (err != cudaSuccess) return err;
    trace_copy_rule rule = trace_copy_sync_rule(dir, async, pinned);
    const void *trace_stream = sim_stream_trace_handle(si);

    /* A synchronous pageable copy to the device first waits for the stream's earlier
     * work (for the legacy stream: that of every stream synchronising with it). */
    if (rule.sync_before) {
        uint64_t t0 = sim_host_now();
        if (sim_stream_at(si)->legacy)
            sim_sched_wait_blocking_streams_of(sim_stream_at(si)->device);
        else
            sim_sched_wait_stream(si);
        trace_record_sync(TRACE_SYNC_STREAM, trace_stream, call->name, t0, sim_host_now());
    }

    sim_op *op;
    trace_engine lane;
    int src_dev = dir == TRACE_COPY_D2D ? sim_mem_device_of(src, count) : -1;
    int dst_dev = dir == TRACE_COPY_D2D ? sim_mem_device_of(dst, count) : -1;
    /* A host-device copy's device: the one whose memory it reaches (0 if none is known). */
    int reached = dir == TRACE_COPY_H2D ? sim_mem_device_of(dst, count)
                  : dir == TRACE_COPY_D2H ? sim_mem_device_of(src, count)
                                          : -1;
    uint32_t copy_dev = reached < 0 ? 0u : (uint32_t)reached;
    if (dir == TRACE_COPY_H2D || dir == TRACE_COPY_D2H) {
        op = sim_op_new(SIM_OP_COPY);
        sim_copy_state *c = &op->u.copy;
        c->dir = dir;
        c->pinned = pinned;
        /* The copy engines of the device whose memory it reaches. */
        c->engine = sim_copy_engine_on(copy_dev, dir);
        c->dst = dst;
        c->src = src;
        c->bytes = count;
        bool h2d = dir == TRACE_COPY_H2D;
        if (pinned) {
            c->rate = h2d ? p->h2d_pinned_gbps : p->d2h_pinned_gbps;
            c->fixed_ns = h2d ? p->h2d_fixed_ns : p->d2h_fixed_ns;
        } else {
            pageable_timing(p, h2d, count, &c->fixed_ns, &c->rate);
            /* cudaMemcpyAsync stages the source at the call (below): the copy moves what
             * the source held then. */
            if (rule.host_staged_src && !rule.sync_before && !captured) {
                c->staged = malloc(count);
                if (!c->staged) {
                    sim_op_free(op);
                    return cudaErrorMemoryAllocation;
                }
                memcpy(c->staged, sim_mem_view(src), count);
            }
        }
        lane = sim_copy_lane(dir);
    } else if (dir == TRACE_COPY_D2D && src_dev >= 0 && dst_dev >= 0 && src_dev != dst_dev) {
        op = peer_copy_op(p, dst, (uint32_t)dst_dev, src, (uint32_t)src_dev, count, sim_stream_at(si)->device);
        lane = TRACE_ENGINE_LINK;
    } else if (dir == TRACE_COPY_D2D) {
        op = device_memory_op(p, dst, src, count, 0, si);
        if (!op) return cudaErrorLaunchOutOfResources;
        lane = TRACE_ENGINE_COMPUTE;
    } else {
        op = sim_op_new(SIM_OP_HOST_COPY);
        op->u.host_copy.dst = dst;
        op->u.host_copy.src = src;
        op->u.host_copy.bytes = count;
        lane = TRACE_ENGINE_HOST;
    }

    trace_op t;
    memset(&t, 0, sizeof(t));
    t.kind = TRACE_OP_COPY;
    t.dir = dir;
    t.engine = lane;
    t.batch = -1;
    t.bytes = count;
    t.pinned = pinned;
    t.enqueue_ns = call->start_ns;
    trace_op_add_range(&t, src, count, TRACE_RANGE_READ | (rule.host_staged_src ? TRACE_RANGE_HOST_ORDERED : 0));
    trace_op_add_range(&t, dst, count, TRACE_RANGE_WRITE);
    sim_devices_mark_ranges(&t);
    if (dir == TRACE_COPY_H2D || dir == TRACE_COPY_D2H) {
        /* On the copy engine of the device whose memory it reaches (as above). */
        trace_op_set_device(&t, copy_dev);
    } else if (lane == TRACE_ENGINE_LINK) {
        trace_op_set_peer(&t, (uint32_t)src_dev, (uint32_t)dst_dev);
    }
    if (captured) {
        /* The host does not wait for a captured copy: it does not run now. */
        sim_capture_add_op(si, op, &t);
        return cudaSuccess;
    }
    /* cudaMemcpyAsync from pageable memory needs a slot of the driver's staging memory
     * first: with every slot held by uploads still queued, the host waits here. */
    uint32_t staging_slots = 0;
    if (rule.host_staged_src && !rule.sync_before) staging_slots = sim_staging_acquire(p, copy_dev, si, count);
    op->trace_id = trace_record(&t, trace_stream);
    op->visible_ns = visible_now(p);
    sim_sched_enqueue(op, si);
    uint64_t id = op->trace_id, seq = op->seq;
    if (staging_slots) sim_staging_hold(copy_dev, si, seq, staging_slots);

    /* cudaMemcpyAsync from pageable memory: the driver copies the source into staging
     * memory of its own at the call, without waiting for the stream's earlier work, and
     * returns once it is staged; the copy's DMA from there runs in stream order. The host
     * is busy for the pageable copy's time (what the same copy takes on an idle device:
     * the staging and the DMA overlap chunk by chunk). */
    if (rule.host_staged_src && !rule.sync_before) {
        sim_host_charge(sim_profile_pageable_ns(p, true, (double)count));
        return sim_error_sticky_or(cudaSuccess);
    }
    /* A synchronous pageable upload (after waiting for its stream) holds the host until
     * the copy completes: its last chunk is staged one chunk's DMA before that. */
    if (rule.host_waits || rule.host_staged_src) {
        uint64_t t0 = sim_host_now();
        sim_sched_wait_seq(si, seq);
        if (rule.host_waits) trace_record_sync_op(id, call->name, t0, sim_host_now());
    }
    return sim_error_sticky_or(cudaSuccess);
}

cudaError_t sim_memcpy_on(cudaStream_t stream, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMemcpy", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    return sim_call_end(&call, do_copy(&call, dst, src, count, kind, stream, false));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    TRACE_CALL_SITE();
    return sim_memcpy_on(NULL, dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMemcpyAsync", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    return sim_call_end(&call, do_copy(&call, dst, src, count, kind, stream, true));
}

/* cudaMemcpyPeer(Async): the devices must exist, and each pointer must lie in memory of the
 * device named with it. */
static cudaError_t check_peer(void *dst, int dst_dev, const void *src, int src_dev, size_t count) {
    int n = sim_device_count();
    if (dst_dev < 0 || dst_dev >= n || src_dev < 0 || src_dev >= n) return cudaErrorInvalidDevice;
    if (count == 0) return cudaSuccess;
    if (!dst || !src) return cudaErrorInvalidValue;
    if (sim_mem_device_of(dst, count) != dst_dev || sim_mem_device_of(src, count) != src_dev)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMemcpyPeerAsync", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    err = check_peer(dst, dstDevice, src, srcDevice, count);
    if (err != cudaSuccess) {
        sim_host_charge(sim_prof()->memcpy_call_ns);
        return sim_call_end(&call, err);
    }
    return sim_call_end(&call, do_copy(&call, dst, src, count, cudaMemcpyDeviceToDevice, stream, true));
}

/* cudaMemcpyPeer is "serialized with respect to all pending and future asynchronous work
 * in to the current device, srcDevice, and dstDevice" (its reference). The simulator
 * waits for the three devices' pending work, then copies on the current device's legacy
 * stream (which later work of that device's blocking streams waits for); later work of
 * the other device is not held back. */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMemcpyPeer", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    err = check_peer(dst, dstDevice, src, srcDevice, count);
    if (err != cudaSuccess) {
        sim_host_charge(sim_prof()->memcpy_call_ns);
        return sim_call_end(&call, err);
    }
    if (count) {
        uint64_t t0 = sim_host_now();
        uint32_t devs[3] = {sim_current_device(), (uint32_t)srcDevice, (uint32_t)dstDevice};
        for (int i = 0; i < 3; i++) sim_sched_wait_device_of(devs[i]);
        for (int i = 0; i < 3; i++) {
            bool again = false;
            for (int j = 0; j < i; j++) again |= devs[j] == devs[i];
            if (!again) sim_streams_record_device_sync(devs[i], call.name, t0, sim_host_now());
        }
    }
    return sim_call_end(&call, do_copy(&call, dst, src, count, cudaMemcpyDeviceToDevice, NULL, false));
}

static cudaError_t do_memset(sim_call *call, void *ptr, int value, size_t count, cudaStream_t stream,
                             bool async) {
    const sim_profile *p = sim_prof();
    uint32_t si;
    bool captured = false;
    bool stream_ok = sim_stream_resolve(stream, &si);
    cudaError_t cap_err = stream_ok ? sim_capture_enqueue_check(si, &captured) : cudaSuccess;
    sim_host_charge(captured ? p->capture_call_ns : p->memset_call_ns);
    if (!stream_ok) return cudaErrorInvalidResourceHandle;
    if (cap_err != cudaSuccess) return cap_err;
    if (count == 0) return cudaSuccess;
    if (!ptr) return cudaErrorInvalidValue;
    bool device = sim_mem_range_is(ptr, count, SIM_MEM_DEVICE);
    bool pinned = !device && sim_mem_range_is(ptr, count, SIM_MEM_PINNED);
    if (!device && !pinned) return cudaErrorInvalidValue;
    sim_op *op = device_memory_op(p, ptr, NULL, count, value, si);
    if (!op) return cudaErrorLaunchOutOfResources;
    trace_op t;
    memset(&t, 0, sizeof(t));
    t.kind = TRACE_OP_MEMSET;
    t.engine = TRACE_ENGINE_COMPUTE;
    t.batch = -1;
    t.bytes = count;
    t.enqueue_ns = call->start_ns;
    trace_op_add_range(&t, ptr, count, TRACE_RANGE_WRITE);
    sim_devices_mark_ranges(&t);
    if (captured) {
        sim_capture_add_op(si, op, &t);
        return cudaSuccess;
    }
    op->trace_id = trace_record(&t, sim_stream_trace_handle(si));
    op->visible_ns = visible_now(p);
    sim_sched_enqueue(op, si);
    /* cudaMemset is asynchronous to the host except on pinned host memory. */
    if (!async && pinned) {
        uint64_t t0 = sim_host_now();
        sim_sched_wait_seq(si, op->seq);
        trace_record_sync_op(t.id, call->name, t0, sim_host_now());
    }
    return sim_error_sticky_or(cudaSuccess);
}

cudaError_t sim_memset_on(cudaStream_t stream, void *devPtr, int value, size_t count) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMemset", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    return sim_call_end(&call, do_memset(&call, devPtr, value, count, stream, false));
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    TRACE_CALL_SITE();
    return sim_memset_on(NULL, devPtr, value, count);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMemsetAsync", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    return sim_call_end(&call, do_memset(&call, devPtr, value, count, stream, true));
}

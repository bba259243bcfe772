/* trace/gpu/correlation.h: matching CUPTI's device records to the recorder's ops.
 *
 * Around each call that enqueues device work, the interposer pushes a token (a number the
 * collector hands out) as CUPTI's external correlation id, and binds the token to the op
 * id once the call succeeded and the op was recorded. CUPTI then delivers, in buffers and
 * in no promised order:
 *   - external correlation records: CUPTI correlation id -> token (one per API record made
 *     while the token was pushed: the runtime call and the driver calls inside it);
 *   - device records (kernel, memcpy, memset, CUDA event): correlation id -> start, end.
 * This table joins the two, whichever arrives first, merges the spans of an op that came
 * in several records (a copy done in chunks), and hands out the (op id, start, end) of
 * every op that is bound and has a span. Not thread-safe: the collector holds its lock.
 *
 * Storage is fixed: ring tables indexed by token and by correlation id. A slot still in use
 * when its number comes round again is overwritten and counted as lost, which only happens
 * when more ops than the ring holds are enqueued between two flushes. */
#ifndef STREAMLAB_TRACE_GPU_CORRELATION_H
#define STREAMLAB_TRACE_GPU_CORRELATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_gpu_corr trace_gpu_corr;

typedef struct trace_gpu_timing {
    uint64_t op_id;
    uint64_t start_ns;
    uint64_t end_ns;
} trace_gpu_timing;

typedef struct trace_gpu_corr_stats {
    uint64_t tokens;          /* handed out */
    uint64_t links;           /* correlation id -> token records seen */
    uint64_t device_records;  /* device records seen */
    uint64_t matched_records; /* device records that reached a live token */
    uint64_t timed;           /* ops handed out with their times */
    uint64_t lost;            /* tokens or records overwritten before they could be used */
    uint64_t late;            /* device records for tokens already handed out or cancelled */
} trace_gpu_corr_stats;

/* Rings of 2^log2_tokens token slots and 2^log2_links correlation slots (each 1..24).
 * NULL when out of memory. */
trace_gpu_corr *trace_gpu_corr_create(unsigned log2_tokens, unsigned log2_links);
void trace_gpu_corr_destroy(trace_gpu_corr *c);

/* A new token (1, 2, ...) to push before a call. */
uint64_t trace_gpu_corr_new_token(trace_gpu_corr *c);
/* The call succeeded and its op was recorded as op_id, enqueued at enqueue_ns. */
void trace_gpu_corr_bind(trace_gpu_corr *c, uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
/* The call failed: nothing will be recorded for this token. */
void trace_gpu_corr_cancel(trace_gpu_corr *c, uint64_t token);

/* An external correlation record: CUPTI correlation id -> token. */
void trace_gpu_corr_link(trace_gpu_corr *c, uint32_t correlation_id, uint64_t token);
/* A device record of correlation id, running from start_ns to end_ns. A record with both
 * times 0 (CUPTI could not time it) says the op ran without saying when: if no timed record
 * joins it, the op is handed out at its enqueue time, with no duration. */
void trace_gpu_corr_device(trace_gpu_corr *c, uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns);

/* The CUPTI callback API told the correlation id of the call that enqueued op_id (the
 * collector's callback matching): a token, its bind and its link in one step. Device
 * records of that id that came first are adopted. */
void trace_gpu_corr_bind_correlation(trace_gpu_corr *c, uint32_t correlation_id, uint64_t op_id,
                                     uint64_t enqueue_ns);
/* True when correlation_id is linked to a token (a device record of it would reach an op). */
bool trace_gpu_corr_knows(const trace_gpu_corr *c, uint32_t correlation_id);

/* Moves up to max ops that are bound and have a span into out[], in the order they became
 * so, and forgets them. Returns how many. */
size_t trace_gpu_corr_take_ready(trace_gpu_corr *c, trace_gpu_timing *out, size_t max);

trace_gpu_corr_stats trace_gpu_corr_get_stats(const trace_gpu_corr *c);

#ifdef __cplusplus
}
#endif

#endif

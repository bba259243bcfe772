/* trace/record/batch_tags.h: batch provenance, so that every op can show the harness batch it
 * carries (a student follows batch 3 from its H2D through the kernel to its D2H).
 *
 * The harness tags host bytes when it loads batch i into a buffer
 * (trace_record_host_access(..., write, batch i)). Data then flows with the ops: an op
 * without a declared batch (batch -1) takes the batch of the bytes it reads (the batch
 * covering most of them), and every op's batch becomes the tag of the bytes it writes
 * (-1 clears the tag). The recorder applies this in program order before sinks see an
 * op. The tags live in an interval map over the shared address space. */
#ifndef STREAMLAB_TRACE_BATCH_TAGS_H
#define STREAMLAB_TRACE_BATCH_TAGS_H

#include "trace/record/interval_map.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_batch_tags {
    trace_imap map; /* values: int32_t batch, never -1 (untagged bytes are absent) */
} trace_batch_tags;

void trace_batch_tags_init(trace_batch_tags *t);
void trace_batch_tags_clear(trace_batch_tags *t);

/* Infers op->batch when it is -1, then tags the bytes op writes. */
void trace_batch_tags_apply(trace_batch_tags *t, trace_op *op);

/* The batch of the byte at addr, or -1. */
int32_t trace_batch_tags_at(const trace_batch_tags *t, uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif

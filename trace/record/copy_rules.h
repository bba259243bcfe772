/* trace/record/copy_rules.h: when a CUDA copy blocks the host, as the CUDA runtime documents it
 * ("API synchronization behavior"). The simulator uses it for timing and the recorders on
 * both backends for ordering, so the two can never disagree. */
#ifndef STREAMLAB_TRACE_COPY_RULES_H
#define STREAMLAB_TRACE_COPY_RULES_H

#include <stdbool.h>

#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_copy_rule {
    /* The host waits for prior work in the copy's stream before the copy starts
     * (synchronous cudaMemcpy from pageable memory to the device). */
    bool sync_before;
    /* The host-side source is read (staged) on the host before the call returns, so the
     * host may reuse it at once; the device-side write may still be in flight. */
    bool host_staged_src;
    /* The call returns only after the copy has completed. */
    bool host_waits;
} trace_copy_rule;

/* async: cudaMemcpyAsync (true) or cudaMemcpy (false). host_pinned: the host side of an
 * H2D/D2H copy is page-locked; for H2H, whether both sides are. */
trace_copy_rule trace_copy_sync_rule(trace_copy_dir dir, bool async, bool host_pinned);

#ifdef __cplusplus
}
#endif

#endif

/* trace/record/copy_rules.c: the CUDA runtime's documented host synchronisation of copies.
 *
 * From the CUDA Runtime API reference, "API synchronization behavior":
 *  cudaMemcpy
 *   - pageable host -> device: a stream sync is performed before the copy starts; the call
 *     returns once the pageable buffer has been copied to staging memory (the DMA to the
 *     destination may not have completed);
 *   - pinned host -> device: synchronous with respect to the host;
 *   - device -> pageable or pinned host: returns only once the copy has completed;
 *   - device -> device: no host-side synchronisation;
 *   - host -> host: fully synchronous.
 *  cudaMemcpyAsync
 *   - device -> pageable host: returns only once the copy has completed;
 *   - pageable host -> device: the source is staged immediately and the call returns once
 *     it is (the DMA may not have completed);
 *   - host -> host: fully synchronous;
 *   - otherwise asynchronous. */
#include "trace/record/copy_rules.h"

trace_copy_rule trace_copy_sync_rule(trace_copy_dir dir, bool async, bool host_pinned) {
    trace_copy_rule r = {false, false, false};
    switch (dir) {
    case TRACE_COPY_H2D:
        if (!host_pinned) {
            r.host_staged_src = true;
            r.sync_before = !async;
        } else if (!async) {
            r.host_waits = true;
        }
        break;
    case TRACE_COPY_D2H:
        r.host_waits = !async || !host_pinned;
        break;
    case TRACE_COPY_H2H:
        r.host_waits = true;
        break;
    case TRACE_COPY_D2D:
    case TRACE_COPY_NONE:
        break;
    }
    return r;
}

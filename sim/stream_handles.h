/* sim/stream_handles.h: stream handles as the program holds them: NULL and cudaStreamLegacy name
 * the legacy default stream, cudaStreamPerThread the per-thread one, and created streams
 * get handles that are not addresses (a tag, the table's reset generation and the index),
 * so that a stale or made-up handle is caught by the lookup instead of crashing. The
 * table itself is sim/core/streams.h's. */
#ifndef STREAMLAB_SIM_STREAM_HANDLES_H
#define STREAMLAB_SIM_STREAM_HANDLES_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sim/core/streams.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stream a handle names: true with *index set for NULL, cudaStreamLegacy,
 * cudaStreamPerThread and live created streams; false for anything else. */
bool sim_stream_resolve(cudaStream_t handle, uint32_t *index);
/* The handle to report to the recorder for a stream index. */
const void *sim_stream_trace_handle(uint32_t index);
/* A new stream of the program's: added to the table with a handle, registered with the
 * recorder. Returns its index. */
uint32_t sim_stream_add(unsigned flags, int priority);
/* A stream for the simulator's own use, branch `branch` (>= 1) of a launched graph:
 * non-blocking, never resolvable from a handle the program holds, registered with the
 * recorder as that branch (trace_stream.graph_branch) and named after the program's stream
 * whose captured calls made the branch, `origin` (a trace stream id): "B (graph)" for a
 * stream named B; "graph branch N" when origin is TRACE_STREAM_NONE. Returns its index;
 * sim_stream_trace_handle gives the handle the recorder knows it by. */
uint32_t sim_stream_add_graph_branch(uint32_t branch, int32_t origin, int priority);
/* Records that the host waited (start_ns to end_ns, in `api`) for every stream of one
 * device: a device sync on a profile of one device; with two, a stream sync of each stream
 * of that device that has had work, so that the race checker orders the host after that
 * device's work only and not the other's. */
void sim_streams_record_device_sync(uint32_t device, const char *api, uint64_t start_ns, uint64_t end_ns);

/* Forgets every stream and sets the default ones up again (a reset). */
void sim_streams_restart(bool notify);

#ifdef __cplusplus
}
#endif

#endif

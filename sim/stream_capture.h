/* sim/stream_capture.h: stream capture. A capture sequence begins on one stream
 * (cudaStreamBeginCapture) and takes in every stream that waits on an event recorded in
 * it; while it lasts, work enqueued on its streams becomes nodes of a graph (graph.h)
 * instead of running, and is neither recorded to the trace nor charged a launch. Each
 * capturing stream keeps the set of nodes its next node depends on. The calls that would
 * need captured work to have run, or that the runtime prohibits during capture, fail
 * here with the runtime's error and invalidate the capture (cudaStreamEndCapture then
 * fails with cudaErrorStreamCaptureInvalidated). The runtime calls' files ask these
 * functions before they act. */
#ifndef STREAMLAB_SIM_STREAM_CAPTURE_H
#define STREAMLAB_SIM_STREAM_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sim/core/ops.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Before work is enqueued on stream si (a kernel, copy, memset, host function, event
 * record or wait, graph launch): cudaErrorStreamCaptureImplicit for the legacy stream
 * while a blocking stream captures (that capture is invalidated),
 * cudaErrorStreamCaptureInvalidated for a stream of an invalidated capture; otherwise
 * cudaSuccess, with *captured telling whether the work becomes a node. */
cudaError_t sim_capture_enqueue_check(uint32_t si, bool *captured);
/* Makes a prepared op (not enqueued; the node takes it) and its trace record a node of
 * si's capture, after the nodes si's work so far depends on. */
void sim_capture_add_op(uint32_t si, sim_op *op, const trace_op *t);
/* Invalidates si's capture (a call on it failed in a way that breaks the capture). */
void sim_capture_invalidate_stream(uint32_t si);

/* cudaEventRecord(ei, si) on a capturing stream: the event now stands for si's current
 * nodes; no op. */
void sim_capture_event_record(uint32_t ei, uint32_t si);
/* cudaEventRecord of ei outside capture: it is no longer a captured event. */
void sim_capture_event_forget(uint32_t ei);
/* cudaStreamWaitEvent(si, ei) where capture is involved (the event was recorded in a
 * capture, or si captures): joins si to the event's capture, or adds the event's nodes
 * to si's dependencies; *handled then says no op is to be enqueued. Errors:
 * ...StreamCaptureMerge (two captures), ...Isolation (a capturing stream waiting on
 * uncaptured work), ...Implicit (the legacy stream), ...Invalidated. */
cudaError_t sim_capture_wait_event(uint32_t si, uint32_t ei, bool *handled);

/* The calls that wait for or ask about work: cudaErrorStreamCaptureUnsupported when
 * stream si captures, ...Implicit for the legacy stream while a blocking stream captures,
 * cudaErrorCapturedEvent for an event last recorded in an active capture,
 * ...Unsupported for the device while any capture is active (each invalidates the
 * captures concerned); cudaSuccess otherwise. */
cudaError_t sim_capture_check_stream_sync(uint32_t si);
cudaError_t sim_capture_check_event_sync(uint32_t ei);
cudaError_t sim_capture_check_device_sync(void);
/* A "potentially unsafe" call (cudaMalloc, a synchronous copy or memset): prohibited, as
 * ...Unsupported, while a capture begun in global or thread-local mode is active (the
 * simulator has one host thread, so the two modes agree); those captures are
 * invalidated. */
cudaError_t sim_capture_check_unsafe(void);

/* Forgets every capture (a reset). */
void sim_capture_reset(void);

#ifdef __cplusplus
}
#endif

#endif

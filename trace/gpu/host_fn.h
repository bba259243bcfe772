/* trace/gpu/host_fn.h: timing the host functions of cudaLaunchHostFunc. Internal to
 * trace/gpu/.
 *
 * The interposer enqueues a trampoline in place of the program's function; when CUDA runs
 * it (on its own thread, once the stream reaches it), it reads the trace clock around the
 * program's function. The op is recorded only after cudaLaunchHostFunc returned, which may
 * be before or after the function ran: whichever of the two comes second delivers the
 * times. */
#ifndef STREAMLAB_TRACE_GPU_HOST_FN_H
#define STREAMLAB_TRACE_GPU_HOST_FN_H

#include <stdint.h>

#include <cuda_runtime_api.h>

typedef struct trace_gpu_host_call trace_gpu_host_call;

/* A call record for fn(data); NULL when out of memory (then enqueue fn itself). */
trace_gpu_host_call *trace_gpu_host_call_new(cudaHostFn_t fn, void *data);
/* What to pass to cudaLaunchHostFunc instead of fn. */
cudaHostFn_t trace_gpu_host_call_trampoline(void);
/* The enqueue succeeded and the op was recorded as op_id. */
void trace_gpu_host_call_bind(trace_gpu_host_call *call, uint64_t op_id);
/* The enqueue failed: the trampoline will never run. */
void trace_gpu_host_call_cancel(trace_gpu_host_call *call);

#endif

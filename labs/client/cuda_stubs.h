/* labs/client/cuda_stubs.h: the CUDA runtime calls in the student's process, as commands to
 * the referee, made from the one list of calls (cuda_calls/cuda_calls.inc).
 *
 * Each entry gives lab_stub_NAME(params...), which sends the call, with the call site its
 * public entry point set (lab_client_site), and brings back what it writes:
 *   in, in_default, addr, host_fn_arg   the value, in an 8-byte slot;
 *   host_fn                             nothing of its own: with its argument it becomes a
 *                                       number the referee sends back when the function is
 *                                       due (client.h, lab_client_host_fn);
 *   out, out_array                      whether the pointer is NULL; the reply fills it;
 *   inout                               the value it points to; the reply fills it again;
 *   src, dst                            the address; memory of the student's own (pageable)
 *                                       passes through staging in the shared memory, as the
 *                                       driver stages it, and the call then waits;
 *   host_mem                            the address.
 * On a real device an asynchronous call (sync field async) is one-way unless it stages
 * memory, and an error of its shows at the next call that waits, as a launch error does; on
 * the simulator every call waits for its answer, so each error is the call's own. A CUDA
 * call from a host function is not permitted (cudaErrorNotPermitted). The call's number is LAB_OP_CUDA + its index in the list
 * (lab_cuda_op). The public names are the stubs themselves (cuda_stubs.c), except the
 * memory calls, which keep the client's table of device allocations (memory.c). The
 * per-thread entry points (name_ptsz, name_ptds: the list's per_thread field), which a file
 * compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM calls, are defined there too: the plain
 * call's command marked LAB_CALL_PER_THREAD, which the referee performs as that entry
 * point. */
#ifndef STREAMLAB_LAB_CLIENT_CUDA_STUBS_H
#define STREAMLAB_LAB_CLIENT_CUDA_STUBS_H

#include <cuda_runtime.h>

#include "cuda_calls/cuda_calls.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calls' indices in the list. */
enum lab_cuda_index {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) LAB_CUDA_##name,
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
    LAB_CUDA_COUNT
};

#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) ret lab_stub_##name CUDA_CALLS_PARAMS(params);
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

/* The site of the call being made: its public entry point's return address. */
extern __thread const void *lab_client_site;

#ifdef __cplusplus
}
#endif

#endif

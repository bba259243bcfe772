/* kernels/gpu/launch_gpu.c: kernels.h on a real GPU.
 *
 * Each launcher checks its arguments as the runtime would (validate.h), enqueues the nvcc
 * kernel (device.h) bracketed for the collector (trace/gpu/collector.h), and, when the
 * launch succeeded, records it for the timeline and the race checker: a KERNEL op on the
 * COMPUTE engine with its name, grid, block and the memory it reads and writes
 * (access.h), plus the launch's span on the host lane. */
#include <stdbool.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/access.h"
#include "kernels/gpu/device.h"
#include "kernels/kernels.h"
#include "kernels/validate.h"
#include "trace/gpu/capture.h"
#include "trace/gpu/collector.h"
#include "trace/gpu/device_streams.h"
#include "trace/record/recorder.h"

static cudaError_t refused(kernels_args why) {
    return why == KERNELS_ARGS_INVALID_CONFIGURATION ? cudaErrorInvalidConfiguration : cudaErrorInvalidValue;
}

/* The op for a launch of `blocks` blocks of `threads` threads. */
static trace_op kernel_op(kernels_id id, uint32_t blocks, uint32_t threads) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_KERNEL;
    op.engine = TRACE_ENGINE_COMPUTE;
    op.batch = -1;
    strcpy(op.name, kernels_name(id));
    op.grid[0] = blocks;
    op.grid[1] = op.grid[2] = 1;
    op.block[0] = threads;
    op.block[1] = op.block[2] = 1;
    return op;
}

/* After the launch: records the op when it succeeded, and the host-lane span. */
static cudaError_t finish(cudaError_t err, trace_op *op, cudaStream_t stream, uint64_t token, uint64_t t0) {
    trace_gpu_op_end(token, stream);
    uint64_t t1 = trace_gpu_now_ns();
    /* A launch captured into a graph does not run now: no op (the graph's launch is one). */
    if (err == cudaSuccess && !trace_gpu_stream_capturing(stream)) {
        op->enqueue_ns = t0;
        trace_gpu_op_bind(token, trace_record(op, trace_gpu_record_stream(stream)), t0);
    } else {
        trace_gpu_op_cancel(token);
    }
    trace_record_api("cudaLaunchKernel", t0, t1);
    return err;
}

cudaError_t kernels_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                            cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_process(out, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    uint32_t blocks = (uint32_t)kernels_process_blocks(n);
    if (!trace_active()) return kernels_device_process(out, in, n, params, blocks, stream);
    trace_op op = kernel_op(KERNELS_PROCESS, blocks, KERNELS_PROCESS_THREADS);
    op.n_ranges = kernels_process_access(op.ranges, out, in, n);
    uint64_t t0 = trace_gpu_now_ns();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_DEVICE);
    cudaError_t err = kernels_device_process(out, in, n, params, blocks, stream);
    return finish(err, &op, stream, token, t0);
}

cudaError_t kernels_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                          cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_wide("kernels_widen", out, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    uint32_t blocks = (uint32_t)kernels_process_blocks(n);
    if (!trace_active()) return kernels_device_widen(out, in, n, params, blocks, stream);
    trace_op op = kernel_op(KERNELS_WIDEN, blocks, KERNELS_PROCESS_THREADS);
    op.n_ranges = kernels_widen_access(op.ranges, out, in, n);
    uint64_t t0 = trace_gpu_now_ns();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_DEVICE);
    cudaError_t err = kernels_device_widen(out, in, n, params, blocks, stream);
    return finish(err, &op, stream, token, t0);
}

cudaError_t kernels_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                           cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_wide("kernels_narrow", out, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    uint32_t blocks = (uint32_t)kernels_process_blocks(n);
    if (!trace_active()) return kernels_device_narrow(out, in, n, params, blocks, stream);
    trace_op op = kernel_op(KERNELS_NARROW, blocks, KERNELS_PROCESS_THREADS);
    op.n_ranges = kernels_narrow_access(op.ranges, out, in, n);
    uint64_t t0 = trace_gpu_now_ns();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_DEVICE);
    cudaError_t err = kernels_device_narrow(out, in, n, params, blocks, stream);
    return finish(err, &op, stream, token, t0);
}

cudaError_t kernels_spin(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns, uint32_t mark,
                         cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_spin(marks, blocks, threads);
    if (why != KERNELS_ARGS_OK) return refused(why);
    if (!trace_active()) return kernels_device_spin(marks, blocks, threads, duration_ns, mark, stream);
    trace_op op = kernel_op(KERNELS_SPIN, blocks, threads);
    op.n_ranges = kernels_spin_access(op.ranges, marks, blocks);
    uint64_t t0 = trace_gpu_now_ns();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_DEVICE);
    cudaError_t err = kernels_device_spin(marks, blocks, threads, duration_ns, mark, stream);
    return finish(err, &op, stream, token, t0);
}

cudaError_t kernels_checksum(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_checksum(sum, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    uint32_t blocks = (uint32_t)kernels_checksum_blocks(n);
    if (!trace_active()) return kernels_device_checksum(sum, in, n, blocks, stream);
    trace_op op = kernel_op(KERNELS_CHECKSUM, blocks, KERNELS_CHECKSUM_THREADS);
    op.n_ranges = kernels_checksum_access(op.ranges, sum, in, n);
    uint64_t t0 = trace_gpu_now_ns();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_DEVICE);
    cudaError_t err = kernels_device_checksum(sum, in, n, blocks, stream);
    return finish(err, &op, stream, token, t0);
}

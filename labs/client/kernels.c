/* labs/client/kernels.c: kernels/kernels.h in the student's process: each launch is a
 * one-way command; the referee launches the kernel on its device, in order with the
 * student's other calls. On a real device a launch is one-way, and one the referee refuses (a
 * stream or a buffer that is not the student's) fails the next call that waits for an
 * answer, as an asynchronous error does on a GPU; on the simulator it waits for its answer.
 * The per-thread launches (kernels_*_ptsz, which a student's file compiled with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM calls: kernels.h) send the plain launch with a NULL
 * stream made cudaStreamPerThread, with their own call site. */
#include "kernels/kernels.h"

#include "labs/client/client.h"

static void put_u64(lab_client_call *c, uint64_t v) { lab_client_put(c, &v, sizeof(v)); }

/* On a real device a launch is one-way; on the simulator it waits, so that its error is its
 * own (cuda_stubs.h). */
static cudaError_t launch(lab_client_call *c) {
    if (lab_client_student.real_device) {
        lab_client_send(c);
        return cudaSuccess;
    }
    int32_t reply[2] = {0, 0};
    lab_client_ask(c, reply, sizeof(reply));
    return (cudaError_t)reply[0];
}

/* process, widen and narrow (lab 09's stages): the same arguments, each under its own op. */
static cudaError_t launch_process_like(uint32_t op, const void *out, const void *in, size_t n,
                                       kernels_process_params params, cudaStream_t stream, const void *site) {
    lab_client_call c;
    lab_client_begin(&c, op, site);
    put_u64(&c, (uint64_t)(uintptr_t)out);
    put_u64(&c, (uint64_t)(uintptr_t)in);
    put_u64(&c, (uint64_t)n);
    lab_client_put(&c, &params, sizeof(params));
    put_u64(&c, (uint64_t)(uintptr_t)stream);
    return launch(&c);
}

cudaError_t kernels_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                            cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_process_like(LAB_OP_KERNEL_PROCESS, out, in, n, params, stream, __builtin_return_address(0));
}

cudaError_t kernels_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                          cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_process_like(LAB_OP_KERNEL_WIDEN, out, in, n, params, stream, __builtin_return_address(0));
}

cudaError_t kernels_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                           cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_process_like(LAB_OP_KERNEL_NARROW, out, in, n, params, stream, __builtin_return_address(0));
}

static cudaError_t launch_spin(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns,
                               uint32_t mark, cudaStream_t stream, const void *site) {
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_KERNEL_SPIN, site);
    put_u64(&c, (uint64_t)(uintptr_t)marks);
    put_u64(&c, blocks);
    put_u64(&c, threads);
    put_u64(&c, duration_ns);
    put_u64(&c, mark);
    put_u64(&c, (uint64_t)(uintptr_t)stream);
    return launch(&c);
}

cudaError_t kernels_spin(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns, uint32_t mark,
                         cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_spin(marks, blocks, threads, duration_ns, mark, stream, __builtin_return_address(0));
}

static cudaError_t launch_checksum(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream,
                                   const void *site) {
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_KERNEL_CHECKSUM, site);
    put_u64(&c, (uint64_t)(uintptr_t)sum);
    put_u64(&c, (uint64_t)(uintptr_t)in);
    put_u64(&c, (uint64_t)n);
    put_u64(&c, (uint64_t)(uintptr_t)stream);
    return launch(&c);
}

cudaError_t kernels_checksum(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_checksum(sum, in, n, stream, __builtin_return_address(0));
}

/* ---- the per-thread launches ------------------------------------------------------------ */

static cudaStream_t per_thread(cudaStream_t stream) { return stream ? stream : cudaStreamPerThread; }

cudaError_t kernels_process_ptsz(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                                 cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_process_like(LAB_OP_KERNEL_PROCESS, out, in, n, params, per_thread(stream),
                               __builtin_return_address(0));
}

cudaError_t kernels_widen_ptsz(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                               cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_process_like(LAB_OP_KERNEL_WIDEN, out, in, n, params, per_thread(stream),
                               __builtin_return_address(0));
}

cudaError_t kernels_narrow_ptsz(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                                cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_process_like(LAB_OP_KERNEL_NARROW, out, in, n, params, per_thread(stream),
                               __builtin_return_address(0));
}

cudaError_t kernels_spin_ptsz(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns,
                              uint32_t mark, cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_spin(marks, blocks, threads, duration_ns, mark, per_thread(stream), __builtin_return_address(0));
}

cudaError_t kernels_checksum_ptsz(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream) {
    if (lab_client_in_host_fn()) return cudaErrorNotPermitted;
    return launch_checksum(sum, in, n, per_thread(stream), __builtin_return_address(0));
}

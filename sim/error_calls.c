/* sim/error_calls.c: cudaGetErrorString, cudaGetErrorName, cudaGetLastError and
 * cudaPeekAtLastError, over the error state and texts of errors.c. */
#include "sim/call.h"
#include "sim/errors.h"

const char *cudaGetErrorString(cudaError_t error) {
    const char *text = sim_error_text(error);
    return text ? text : "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t error) {
    const char *name = sim_error_name(error);
    return name ? name : "unrecognized error code";
}

/* The last error is a per-thread slot, apart from the context's sticky error: after a
 * fault every call fails (and records the fault), but cudaGetLastError still clears the
 * slot, as the CUDA 13 runtime does (sim/conformance). */
cudaError_t cudaGetLastError(void) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaGetLastError", SIM_CALL_NO_STICKY);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_host_cost_api_min());
    cudaError_t last = sim_error_last(true);
    sim_call_end(&call, cudaSuccess);
    return last;
}

cudaError_t cudaPeekAtLastError(void) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaPeekAtLastError", SIM_CALL_NO_STICKY);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_host_cost_api_min());
    cudaError_t last = sim_error_last(false);
    sim_call_end(&call, cudaSuccess);
    return last;
}

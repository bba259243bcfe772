/* sim/errors.h: the runtime's error state: the last error (cudaGetLastError /
 * cudaPeekAtLastError), and the sticky error that an asynchronous fault of the device
 * (sim/core/fault.h: an illegal address in a kernel) leaves behind until cudaDeviceReset:
 * every later call fails with it (and so records it again as the last error). */
#ifndef STREAMLAB_SIM_ERRORS_H
#define STREAMLAB_SIM_ERRORS_H

#include <stdbool.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records err as the last error (cudaSuccess and cudaErrorNotReady are not errors). */
void sim_error_record(cudaError_t err);
/* The sticky error, or cudaSuccess. */
cudaError_t sim_error_sticky(void);
/* The sticky error if there is one, else err. */
cudaError_t sim_error_sticky_or(cudaError_t err);
/* The last error; clear: forget it (cudaGetLastError) or not (cudaPeekAtLastError). */
cudaError_t sim_error_last(bool clear);
/* The runtime's name ("cudaErrorIllegalAddress") and text of an error; NULL for a code it
 * does not have. */
const char *sim_error_name(cudaError_t err);
const char *sim_error_text(cudaError_t err);
/* Forgets the last and the sticky error, and the device's fault. */
void sim_error_clear(void);

#ifdef __cplusplus
}
#endif

#endif

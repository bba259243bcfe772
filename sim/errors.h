/* sim/errors.h: the runtime's error state: the last error (cudaGetLastError /
 * cudaPeekAtLastError), and the sticky error that an asynchronous fault (an illegal
 * address in a kernel) leaves behind until cudaDeviceReset: every later call fails with
 * it (and so records it again as the last error). */
#ifndef STREAMLAB_SIM_ERRORS_H
#define STREAMLAB_SIM_ERRORS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records err as the last error (cudaSuccess and cudaErrorNotReady are not errors). */
void sim_error_record(cudaError_t err);
/* Sets the sticky error (the first one wins). */
void sim_error_set_sticky(cudaError_t err);
/* The sticky error, or cudaSuccess. */
cudaError_t sim_error_sticky(void);
/* The sticky error if there is one, else err. */
cudaError_t sim_error_sticky_or(cudaError_t err);
/* Forgets the last and the sticky error. */
void sim_error_clear(void);

#ifdef __cplusplus
}
#endif

#endif

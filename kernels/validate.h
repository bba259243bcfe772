/* kernels/validate.h: the argument checks every backend's launchers make, so that the GPU
 * and the simulator reject the same bad launches with the same error.
 *
 * Each check returns KERNELS_ARGS_OK or the kind of error the CUDA runtime would report
 * (each backend maps it to its cudaError_t: cudaErrorInvalidValue,
 * cudaErrorInvalidConfiguration), and leaves a sentence saying what was wrong in
 * kernels_last_message(). */
#ifndef STREAMLAB_KERNELS_VALIDATE_H
#define STREAMLAB_KERNELS_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kernels_args {
    KERNELS_ARGS_OK = 0,
    KERNELS_ARGS_INVALID_VALUE,        /* a NULL pointer or an empty launch */
    KERNELS_ARGS_INVALID_CONFIGURATION /* a grid or block shape the device cannot launch */
} kernels_args;

kernels_args kernels_check_process(const uint32_t *out, const uint32_t *in, size_t n);
/* widen and narrow: out and in as process's (never the same buffer: their elements differ in
 * size); `name` is the launcher's, for the message. */
kernels_args kernels_check_wide(const char *name, const void *out, const void *in, size_t n);
kernels_args kernels_check_spin(const uint32_t *marks, uint32_t blocks, uint32_t threads);
kernels_args kernels_check_checksum(const uint64_t *sum, const uint32_t *in, size_t n);

/* What the last failed check on this thread found ("kernels_process: in is NULL"), or ""
 * when none failed yet. */
const char *kernels_last_message(void);

#ifdef __cplusplus
}
#endif

#endif

/* kernels/validate.c: launch argument checks shared by the backends (see validate.h). */
#include "kernels/validate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[160];

static kernels_args fail(kernels_args kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof(last_message), fmt, ap);
    va_end(ap);
    return kind;
}

const char *kernels_last_message(void) { return last_message; }

kernels_args kernels_check_process(const uint32_t *out, const uint32_t *in, size_t n) {
    if (n == 0) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_process: n is 0 (nothing to process)");
    if (!in) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_process: in is NULL");
    if (!out) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_process: out is NULL");
    uint64_t blocks = kernels_process_blocks(n);
    if (blocks > KERNELS_MAX_GRID_X)
        return fail(KERNELS_ARGS_INVALID_CONFIGURATION,
                    "kernels_process: n = %zu needs %" PRIu64 " blocks, more than the grid limit %u", n,
                    blocks, KERNELS_MAX_GRID_X);
    return KERNELS_ARGS_OK;
}

kernels_args kernels_check_wide(const char *name, const void *out, const void *in, size_t n) {
    if (n == 0) return fail(KERNELS_ARGS_INVALID_VALUE, "%s: n is 0 (nothing to process)", name);
    if (!in) return fail(KERNELS_ARGS_INVALID_VALUE, "%s: in is NULL", name);
    if (!out) return fail(KERNELS_ARGS_INVALID_VALUE, "%s: out is NULL", name);
    uint64_t blocks = kernels_process_blocks(n);
    if (blocks > KERNELS_MAX_GRID_X)
        return fail(KERNELS_ARGS_INVALID_CONFIGURATION,
                    "%s: n = %zu needs %" PRIu64 " blocks, more than the grid limit %u", name, n, blocks,
                    KERNELS_MAX_GRID_X);
    return KERNELS_ARGS_OK;
}

kernels_args kernels_check_spin(const uint32_t *marks, uint32_t blocks, uint32_t threads) {
    if (blocks == 0) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_spin: blocks is 0");
    if (!marks) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_spin: marks is NULL");
    if (threads == 0 || threads > KERNELS_SPIN_MAX_THREADS)
        return fail(KERNELS_ARGS_INVALID_CONFIGURATION,
                    "kernels_spin: threads = %u, must be 1 to %u", threads, KERNELS_SPIN_MAX_THREADS);
    if (blocks > KERNELS_MAX_GRID_X)
        return fail(KERNELS_ARGS_INVALID_CONFIGURATION, "kernels_spin: blocks = %u, more than the grid limit %u",
                    blocks, KERNELS_MAX_GRID_X);
    return KERNELS_ARGS_OK;
}

kernels_args kernels_check_checksum(const uint64_t *sum, const uint32_t *in, size_t n) {
    if (n == 0) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_checksum: n is 0 (nothing to add)");
    if (!in) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_checksum: in is NULL");
    if (!sum) return fail(KERNELS_ARGS_INVALID_VALUE, "kernels_checksum: sum is NULL");
    uint64_t blocks = kernels_checksum_blocks(n);
    if (blocks > KERNELS_MAX_GRID_X)
        return fail(KERNELS_ARGS_INVALID_CONFIGURATION,
                    "kernels_checksum: n = %zu needs %" PRIu64 " blocks, more than the grid limit %u", n,
                    blocks, KERNELS_MAX_GRID_X);
    return KERNELS_ARGS_OK;
}

/* kernels/params.c: kernel names and grid sizes (see params.h). */
#include "kernels/params.h"

const char *kernels_name(kernels_id id) {
    switch (id) {
    case KERNELS_PROCESS: return "process";
    case KERNELS_SPIN: return "spin";
    case KERNELS_CHECKSUM: return "checksum";
    case KERNELS_WIDEN: return "widen";
    case KERNELS_NARROW: return "narrow";
    case KERNELS_COUNT: break;
    }
    return "unknown";
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

uint64_t kernels_process_blocks(size_t n) { return ceil_div((uint64_t)n, KERNELS_PROCESS_THREADS); }

uint64_t kernels_checksum_blocks(size_t n) { return ceil_div((uint64_t)n, KERNELS_CHECKSUM_BLOCK_ELEMS); }

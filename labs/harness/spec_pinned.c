/* labs/harness/spec_pinned.c: a spec's pinned staging buffers (spec_pinned.h). */
#include "labs/harness/spec_pinned.h"

#include <cuda_runtime.h>

int lab_spec_pinned_alloc(uint32_t **bufs, int n, size_t bytes) {
    for (int i = 0; i < n; i++) bufs[i] = NULL;
    for (int i = 0; i < n; i++)
        if (cudaMallocHost((void **)&bufs[i], bytes) != cudaSuccess) return 1;
    return 0;
}

void lab_spec_pinned_free(uint32_t **bufs, int n) {
    for (int i = 0; i < n; i++) {
        if (bufs[i]) cudaFreeHost(bufs[i]);
        bufs[i] = NULL;
    }
}

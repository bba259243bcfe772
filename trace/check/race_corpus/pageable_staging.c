/* trace/check/race_corpus/pageable_staging.c: cudaMemcpyAsync from pageable (malloc'd) memory
 * stages the source before it returns, so the host may refill the buffer at once; the
 * same with a pinned buffer is host_write_pinned_in_flight.c, a race.
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1;
    float *pageable = malloc(BYTES), *dev_buf;
    if (!pageable) return 1;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaMalloc((void **)&dev_buf, BYTES));
    corpus_host_write(pageable, BYTES, "batch 0");
    CORPUS_CHECK(cudaMemcpyAsync(dev_buf, pageable, BYTES, cudaMemcpyHostToDevice, s1));
    corpus_host_write(pageable, BYTES, "batch 1");
    CORPUS_CHECK(cudaStreamSynchronize(s1));
    free(pageable);
    return 0;
}

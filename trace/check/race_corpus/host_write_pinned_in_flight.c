/* trace/check/race_corpus/host_write_pinned_in_flight.c: the host refills a pinned staging
 * buffer while the asynchronous H2D that reads it may still be running (write-after-read
 * by the host; the fix: cudaStreamSynchronize(s1), or an event recorded after the copy
 * and cudaEventSynchronize, before refilling).
 * Expected: one race (WAR); exit status 66 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1;
    float *staging, *dev_buf;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaMallocHost((void **)&staging, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_buf, BYTES));
    corpus_host_write(staging, BYTES, "batch 0");
    CORPUS_CHECK(cudaMemcpyAsync(dev_buf, staging, BYTES, cudaMemcpyHostToDevice, s1));
    corpus_host_write(staging, BYTES, "batch 1");
    CORPUS_CHECK(cudaStreamSynchronize(s1));
    return 0;
}

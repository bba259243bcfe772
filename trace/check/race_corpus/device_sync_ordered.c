/* trace/check/race_corpus/device_sync_ordered.c: two streams each produce half of the result;
 * cudaDeviceSynchronize orders both before the host reads it all.
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s[2];
    float *host_out, *dev_in, *dev_out;
    CORPUS_CHECK(cudaMallocHost((void **)&host_out, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    CORPUS_CHECK(cudaMemset(dev_in, 0, BYTES));
    for (int i = 0; i < 2; i++) {
        CORPUS_CHECK(cudaStreamCreate(&s[i]));
        size_t half = N / 2, off = (size_t)i * half;
        corpus_scale(dev_in + off, dev_out + off, half, s[i]);
        CORPUS_CHECK(cudaMemcpyAsync(host_out + off, dev_out + off, half * sizeof(float), cudaMemcpyDeviceToHost, s[i]));
    }
    CORPUS_CHECK(cudaDeviceSynchronize());
    corpus_host_read(host_out, BYTES, "the result");
    return 0;
}

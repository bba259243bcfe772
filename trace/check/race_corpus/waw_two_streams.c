/* trace/check/race_corpus/waw_two_streams.c: write-after-write across streams. A memset on s1
 * and an H2D on s2 both write dev_buf; which one lands last is up to the hardware.
 * Expected: one race (WAW); exit status 66 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    float *host, *dev_buf;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaStreamCreate(&s2));
    CORPUS_CHECK(cudaMallocHost((void **)&host, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_buf, BYTES));
    memset(host, 0, BYTES);
    CORPUS_CHECK(cudaMemsetAsync(dev_buf, 0, BYTES, s1));
    CORPUS_CHECK(cudaMemcpyAsync(dev_buf, host, BYTES, cudaMemcpyHostToDevice, s2));
    CORPUS_CHECK(cudaDeviceSynchronize());
    return 0;
}

/* trace/check/race_corpus/raw_missing_wait.c: read-after-write across streams. The H2D on s1
 * fills dev_in; the kernel on s2 reads it with nothing ordering the two (the fix: record
 * an event on s1 after the copy and make s2 wait on it).
 * Expected: one race (RAW); exit status 66 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    float *host, *dev_in, *dev_out;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaStreamCreate(&s2));
    CORPUS_CHECK(cudaMallocHost((void **)&host, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    memset(host, 0, BYTES);
    CORPUS_CHECK(cudaMemcpyAsync(dev_in, host, BYTES, cudaMemcpyHostToDevice, s1));
    corpus_scale(dev_in, dev_out, N, s2);
    CORPUS_CHECK(cudaDeviceSynchronize());
    return 0;
}

/* trace/check/race_corpus/default_stream_barrier.c: streams created without
 * cudaStreamNonBlocking synchronise with the legacy default stream: the stream-0 kernel
 * waits for s1's H2D, and s2's kernel waits for the stream-0 kernel, so s2 reads dev_in
 * after the copy (slowly: the barrier serialises everything, which lab 00 teaches).
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    float *host, *dev_in, *dev_out, *scratch;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaStreamCreate(&s2));
    CORPUS_CHECK(cudaMallocHost((void **)&host, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&scratch, BYTES));
    memset(host, 0, BYTES);
    CORPUS_CHECK(cudaMemsetAsync(scratch, 0, BYTES, 0));
    CORPUS_CHECK(cudaMemcpyAsync(dev_in, host, BYTES, cudaMemcpyHostToDevice, s1));
    corpus_scale(scratch, scratch, N, 0);
    corpus_scale(dev_in, dev_out, N, s2);
    CORPUS_CHECK(cudaDeviceSynchronize());
    return 0;
}

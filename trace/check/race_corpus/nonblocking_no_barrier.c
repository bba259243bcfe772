/* trace/check/race_corpus/nonblocking_no_barrier.c: streams created with
 * cudaStreamNonBlocking do not synchronise with the legacy default stream, so the
 * stream-0 kernel between them orders nothing: the kernel on s2 reads what s1's H2D
 * writes, unordered.
 * Expected: one race (RAW); exit status 66 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    float *host, *dev_in, *dev_out, *scratch;
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
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

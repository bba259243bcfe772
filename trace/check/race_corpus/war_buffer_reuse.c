/* trace/check/race_corpus/war_buffer_reuse.c: write-after-read across streams. The kernel on s1
 * reads dev_in; the next batch's H2D on s2 overwrites dev_in while the kernel may still
 * read it (the fix: an event recorded on s1 after the kernel, waited on by s2 before the
 * copy).
 * Expected: one race (WAR); exit status 66 under STREAMLAB_RACECHECK=1. */
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
    CORPUS_CHECK(cudaMemcpy(dev_in, host, BYTES, cudaMemcpyHostToDevice));
    corpus_scale(dev_in, dev_out, N, s1);
    CORPUS_CHECK(cudaMemcpyAsync(dev_in, host, BYTES, cudaMemcpyHostToDevice, s2));
    CORPUS_CHECK(cudaDeviceSynchronize());
    return 0;
}

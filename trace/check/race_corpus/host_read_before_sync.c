/* trace/check/race_corpus/host_read_before_sync.c: host read before completion. The D2H on s1
 * is asynchronous (pinned destination); the host reads the result before synchronising
 * with s1 (the fix: cudaStreamSynchronize(s1) before reading).
 * Expected: one race (host read before completion); exit status 66 under
 * STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1;
    float *host, *dev_buf;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaMallocHost((void **)&host, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_buf, BYTES));
    CORPUS_CHECK(cudaMemsetAsync(dev_buf, 0, BYTES, s1));
    CORPUS_CHECK(cudaMemcpyAsync(host, dev_buf, BYTES, cudaMemcpyDeviceToHost, s1));
    corpus_host_read(host, BYTES, "the result");
    CORPUS_CHECK(cudaStreamSynchronize(s1));
    return 0;
}

/* trace/check/race_corpus/event_recorded_too_early.c: s2 waits on an event, but the event was
 * recorded on s1 before the H2D it was meant to cover, so the kernel on s2 still reads
 * dev_in unordered with the copy.
 * Expected: one race (RAW); exit status 66 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    cudaEvent_t copied;
    float *host, *dev_in, *dev_out;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaStreamCreate(&s2));
    CORPUS_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    CORPUS_CHECK(cudaMallocHost((void **)&host, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    memset(host, 0, BYTES);
    CORPUS_CHECK(cudaEventRecord(copied, s1));
    CORPUS_CHECK(cudaMemcpyAsync(dev_in, host, BYTES, cudaMemcpyHostToDevice, s1));
    CORPUS_CHECK(cudaStreamWaitEvent(s2, copied, 0));
    corpus_scale(dev_in, dev_out, N, s2);
    CORPUS_CHECK(cudaDeviceSynchronize());
    return 0;
}

/* trace/check/race_corpus/event_ordered.c: the fix for raw_missing_wait.c: an event recorded
 * on s1 after the H2D, and s2 waits on it before the kernel; the host synchronises on an
 * event recorded after the D2H before it reads the result.
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    cudaEvent_t copied, done;
    float *host_in, *host_out, *dev_in, *dev_out;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaStreamCreate(&s2));
    CORPUS_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    CORPUS_CHECK(cudaEventCreate(&done));
    CORPUS_CHECK(cudaMallocHost((void **)&host_in, BYTES));
    CORPUS_CHECK(cudaMallocHost((void **)&host_out, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    corpus_host_write(host_in, BYTES, "input");
    CORPUS_CHECK(cudaMemcpyAsync(dev_in, host_in, BYTES, cudaMemcpyHostToDevice, s1));
    CORPUS_CHECK(cudaEventRecord(copied, s1));
    CORPUS_CHECK(cudaStreamWaitEvent(s2, copied, 0));
    corpus_scale(dev_in, dev_out, N, s2);
    CORPUS_CHECK(cudaMemcpyAsync(host_out, dev_out, BYTES, cudaMemcpyDeviceToHost, s2));
    CORPUS_CHECK(cudaEventRecord(done, s2));
    CORPUS_CHECK(cudaEventSynchronize(done));
    corpus_host_read(host_out, BYTES, "the result");
    return 0;
}

/* trace/check/race_corpus/legacy_sync_nonblocking.c: legacy_sync_blocking_streams.c with
 * streams created with cudaStreamNonBlocking: the legacy default stream does not wait for
 * them, so cudaStreamSynchronize(0) does not order the downloads before the host's reads.
 * Expected: races (host read before completion); exit status 66 under
 * STREAMLAB_RACECHECK=1. */
#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    float *out1, *out2, *dev_a, *dev_b, *dev_c;
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CORPUS_CHECK(cudaMallocHost((void **)&out1, BYTES));
    CORPUS_CHECK(cudaMallocHost((void **)&out2, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_a, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_b, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_c, BYTES));
    CORPUS_CHECK(cudaMemset(dev_a, 0, BYTES));
    corpus_scale(dev_a, dev_b, N, s1);
    corpus_scale(dev_a, dev_c, N, s2);
    CORPUS_CHECK(cudaMemcpyAsync(out1, dev_b, BYTES, cudaMemcpyDeviceToHost, s1));
    CORPUS_CHECK(cudaMemcpyAsync(out2, dev_c, BYTES, cudaMemcpyDeviceToHost, s2));
    CORPUS_CHECK(cudaStreamSynchronize(0));
    corpus_host_read(out1, BYTES, "lab_store_batch");
    corpus_host_read(out2, BYTES, "lab_store_batch");
    return 0;
}

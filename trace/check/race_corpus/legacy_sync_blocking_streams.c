/* trace/check/race_corpus/legacy_sync_blocking_streams.c: two blocking streams (made with
 * cudaStreamCreate) each download a result, and the host calls cudaStreamSynchronize(0)
 * before it reads both. The legacy default stream waits for every blocking stream's
 * earlier work ("Stream synchronization behavior"), so the host waited for both downloads.
 * A synchronous cudaMemcpy, on the legacy stream, then orders the two streams as well: it
 * waits for s1's kernel, and s2's later kernel waits for it.
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    float *out1, *out2, *dev_a, *dev_b, *dev_c;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaStreamCreate(&s2));
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
    /* A synchronous copy between the two streams' work. */
    corpus_scale(dev_a, dev_b, N, s1);
    CORPUS_CHECK(cudaMemcpy(out1, dev_b, BYTES, cudaMemcpyDeviceToHost));
    corpus_host_read(out1, BYTES, "lab_store_batch");
    corpus_scale(dev_a, dev_b, N, s2);
    CORPUS_CHECK(cudaStreamSynchronize(s2));
    return 0;
}

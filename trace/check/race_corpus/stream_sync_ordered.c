/* trace/check/race_corpus/stream_sync_ordered.c: the fix for host_read_before_sync.c and
 * host_write_pinned_in_flight.c: the host synchronises with the stream before it reads
 * the result or refills the staging buffer.
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1;
    float *staging, *host_out, *dev_buf;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaMallocHost((void **)&staging, BYTES));
    CORPUS_CHECK(cudaMallocHost((void **)&host_out, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_buf, BYTES));
    for (int batch = 0; batch < 4; batch++) {
        corpus_host_write(staging, BYTES, "lab_load_batch");
        CORPUS_CHECK(cudaMemcpyAsync(dev_buf, staging, BYTES, cudaMemcpyHostToDevice, s1));
        corpus_scale(dev_buf, dev_buf, N, s1);
        CORPUS_CHECK(cudaMemcpyAsync(host_out, dev_buf, BYTES, cudaMemcpyDeviceToHost, s1));
        CORPUS_CHECK(cudaStreamSynchronize(s1));
        corpus_host_read(host_out, BYTES, "lab_store_batch");
    }
    return 0;
}

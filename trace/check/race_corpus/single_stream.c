/* trace/check/race_corpus/single_stream.c: everything on one stream is ordered: H2D, kernel,
 * D2H, and the next batch's H2D into the same buffers; a blocking cudaMemcpy at the end
 * makes the host wait before it reads.
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include <stdlib.h>
#include <string.h>

#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1;
    float *host_in, *host_out, *dev_in, *dev_out;
    CORPUS_CHECK(cudaStreamCreate(&s1));
    CORPUS_CHECK(cudaMallocHost((void **)&host_in, BYTES));
    CORPUS_CHECK(cudaMallocHost((void **)&host_out, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    memset(host_in, 0, BYTES);
    for (int batch = 0; batch < 3; batch++) {
        CORPUS_CHECK(cudaMemcpyAsync(dev_in, host_in, BYTES, cudaMemcpyHostToDevice, s1));
        corpus_scale(dev_in, dev_out, N, s1);
        CORPUS_CHECK(cudaMemcpyAsync(host_out, dev_out, BYTES, cudaMemcpyDeviceToHost, s1));
    }
    CORPUS_CHECK(cudaStreamSynchronize(s1));
    CORPUS_CHECK(cudaMemcpy(host_out, dev_out, BYTES, cudaMemcpyDeviceToHost));
    corpus_host_read(host_out, BYTES, "the result");
    return 0;
}

/* trace/check/race_corpus/event_query_polled.c: the host polls instead of synchronising. It
 * refills the staging buffer only once cudaEventQuery on an event recorded after the upload
 * returns cudaSuccess, and reads the result only once cudaStreamQuery on the stream returns
 * cudaSuccess: a query that succeeded orders the host after the work it asked about, as
 * cudaEventSynchronize and cudaStreamSynchronize would (the queries that returned
 * cudaErrorNotReady order nothing, and need not).
 * Expected: no race; exit status 0 under STREAMLAB_RACECHECK=1. */
#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

/* Polls query(handle) until it stops answering cudaErrorNotReady; exits on an error. */
#define POLL(call)                                              \
    do {                                                        \
        cudaError_t polled_;                                    \
        while ((polled_ = (call)) == cudaErrorNotReady) {       \
        }                                                       \
        corpus_check(polled_, #call, __FILE__, __LINE__);       \
    } while (0)

int main(void) {
    cudaStream_t s1;
    cudaEvent_t uploaded;
    float *staging, *host_out, *dev_in, *dev_out;
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CORPUS_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CORPUS_CHECK(cudaMallocHost((void **)&staging, BYTES));
    CORPUS_CHECK(cudaMallocHost((void **)&host_out, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    for (int batch = 0; batch < 4; batch++) {
        POLL(cudaEventQuery(uploaded)); /* the last upload from staging is over */
        corpus_host_write(staging, BYTES, "lab_load_batch");
        CORPUS_CHECK(cudaMemcpyAsync(dev_in, staging, BYTES, cudaMemcpyHostToDevice, s1));
        CORPUS_CHECK(cudaEventRecord(uploaded, s1));
        corpus_scale(dev_in, dev_out, N, s1);
        CORPUS_CHECK(cudaMemcpyAsync(host_out, dev_out, BYTES, cudaMemcpyDeviceToHost, s1));
    }
    POLL(cudaStreamQuery(s1));
    corpus_host_read(host_out, BYTES, "lab_store_batch");
    return 0;
}

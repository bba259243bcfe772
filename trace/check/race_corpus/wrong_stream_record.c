/* trace/check/race_corpus/wrong_stream_record.c: event_ordered.c with the event recorded on
 * the waiting stream instead of the uploading one: s2 waits on an event recorded on s2
 * itself, which orders nothing with s1's upload, so the kernel on s2 reads what the upload
 * may not have written. The report names the event, the stream it was recorded on, and the
 * record's and the wait's ops.
 * Expected: one race (RAW); exit status 66 under STREAMLAB_RACECHECK=1. */
#include "trace/check/race_corpus/corpus.h"

#define N (1u << 20)
#define BYTES (N * sizeof(float))

int main(void) {
    cudaStream_t s1, s2;
    cudaEvent_t uploaded;
    float *host_in, *dev_in, *dev_out;
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CORPUS_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CORPUS_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CORPUS_CHECK(cudaMallocHost((void **)&host_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_in, BYTES));
    CORPUS_CHECK(cudaMalloc((void **)&dev_out, BYTES));
    corpus_host_write(host_in, BYTES, "lab_load_batch");
    CORPUS_CHECK(cudaMemcpyAsync(dev_in, host_in, BYTES, cudaMemcpyHostToDevice, s1));
    CORPUS_CHECK(cudaEventRecord(uploaded, s2)); /* meant: s1 */
    CORPUS_CHECK(cudaStreamWaitEvent(s2, uploaded, 0));
    corpus_scale(dev_in, dev_out, N, s2);
    CORPUS_CHECK(cudaStreamSynchronize(s2));
    return 0;
}

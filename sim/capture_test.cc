// sim/capture_test.cc: the rules of stream capture. What may not happen while a stream
// captures fails with the runtime's error and invalidates the capture, so that
// cudaStreamEndCapture then fails with cudaErrorStreamCaptureInvalidated: synchronising
// with or querying the capturing stream or the device, a synchronous copy or cudaMalloc
// in global mode (not in relaxed mode), the legacy stream while a blocking stream
// captures, querying or synchronising on an event recorded in the capture, waiting in a
// capture on work outside it, merging two captures. And where capture may begin, and
// which capture a stream is in (sim_stream_capture_id, the referee's question).
#include <gtest/gtest.h>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Reset;
using simtest::Spin;

#define CK(x) ASSERT_EQ((x), cudaSuccess) << #x

enum cudaStreamCaptureStatus Status(cudaStream_t s) {
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    EXPECT_EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    return st;
}

// Ends s's capture and expects it to have been invalidated.
void ExpectInvalidated(cudaStream_t s) {
    EXPECT_EQ(Status(s), cudaStreamCaptureStatusInvalidated);
    EXPECT_EQ(Spin(s, 1000), cudaErrorStreamCaptureInvalidated) << "work on an invalidated capture";
    cudaGraph_t g = (cudaGraph_t)0x1;
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(Status(s), cudaStreamCaptureStatusNone);
    (void)cudaGetLastError();
}

cudaStream_t Capturing(unsigned flags = cudaStreamNonBlocking,
                       enum cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal) {
    cudaStream_t s = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
    EXPECT_EQ(cudaStreamBeginCapture(s, mode), cudaSuccess);
    EXPECT_EQ(Spin(s, 1000, 1, 32, "captured"), cudaSuccess);
    return s;
}

TEST(Capture, WhereCaptureMayBegin) {
    Reset();
    EXPECT_EQ(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    EXPECT_EQ(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    EXPECT_EQ(cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)7), cudaErrorInvalidValue);
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    EXPECT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState) << "already capturing";
    cudaGraph_t g;
    EXPECT_EQ(cudaStreamEndCapture(s, nullptr), cudaErrorInvalidValue);
    CK(cudaStreamEndCapture(s, &g));
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorIllegalState) << "not capturing";
    EXPECT_EQ(cudaStreamIsCapturing(s, nullptr), cudaErrorInvalidValue);
    // The per-thread default stream can capture.
    CK(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal));
    EXPECT_EQ(Status(cudaStreamPerThread), cudaStreamCaptureStatusActive);
    CK(cudaStreamEndCapture(cudaStreamPerThread, &g));
}

TEST(Capture, SynchronisingTheCapturingStreamInvalidatesIt) {
    Reset();
    cudaStream_t s = Capturing();
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    ExpectInvalidated(s);
}

TEST(Capture, QueryingTheCapturingStreamInvalidatesIt) {
    Reset();
    cudaStream_t s = Capturing();
    EXPECT_EQ(cudaStreamQuery(s), cudaErrorStreamCaptureUnsupported);
    ExpectInvalidated(s);
}

TEST(Capture, SynchronisingTheDeviceInvalidatesIt) {
    Reset();
    cudaStream_t s = Capturing();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
    ExpectInvalidated(s);
}

TEST(Capture, ASynchronousCopyIsProhibitedInGlobalMode) {
    Reset();
    void *d;
    CK(cudaMalloc(&d, 64));
    char h[64] = {0};
    cudaStream_t s = Capturing();
    EXPECT_EQ(cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice), cudaErrorStreamCaptureUnsupported);
    ExpectInvalidated(s);
}

TEST(Capture, RelaxedModeAllowsPotentiallyUnsafeCalls) {
    Reset();
    void *d;
    CK(cudaMalloc(&d, 64));
    char h[64] = {1};
    cudaStream_t s = Capturing(cudaStreamNonBlocking, cudaStreamCaptureModeRelaxed);
    CK(cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice));
    void *d2;
    CK(cudaMalloc(&d2, 64));
    EXPECT_EQ(Status(s), cudaStreamCaptureStatusActive);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
}

TEST(Capture, CudaMallocIsProhibitedInGlobalMode) {
    Reset();
    cudaStream_t s = Capturing();
    void *d;
    EXPECT_EQ(cudaMalloc(&d, 64), cudaErrorStreamCaptureUnsupported);
    ExpectInvalidated(s);
}

TEST(Capture, TheLegacyStreamIsUnusableWhileABlockingStreamCaptures) {
    Reset();
    cudaStream_t s = Capturing(cudaStreamDefault);
    enum cudaStreamCaptureStatus st;
    EXPECT_EQ(cudaStreamIsCapturing(0, &st), cudaErrorStreamCaptureImplicit);
    EXPECT_EQ(Status(s), cudaStreamCaptureStatusActive) << "asking does not invalidate";
    EXPECT_EQ(Spin(0, 1000), cudaErrorStreamCaptureImplicit);
    ExpectInvalidated(s);
    // A non-blocking capturing stream leaves the legacy stream alone.
    Capture cap;
    cudaStream_t nb = Capturing(cudaStreamNonBlocking);
    CK(Spin(0, 1000, 1, 32, "legacy"));
    CK(cudaStreamSynchronize(0));
    EXPECT_TRUE(cap.Kernel("legacy").timed);
    EXPECT_EQ(Status(nb), cudaStreamCaptureStatusActive);
}

TEST(Capture, QueryingOrSynchronisingACapturedEventInvalidatesTheCapture) {
    Reset();
    for (int sync = 0; sync < 2; ++sync) {
        cudaEvent_t e;
        CK(cudaEventCreate(&e));
        cudaStream_t s = Capturing();
        CK(cudaEventRecord(e, s));
        EXPECT_EQ(sync ? cudaEventSynchronize(e) : cudaEventQuery(e), cudaErrorCapturedEvent);
        ExpectInvalidated(s);
    }
}

TEST(Capture, WaitingOnWorkOutsideTheCaptureIsIsolation) {
    Reset();
    cudaStream_t other;
    CK(cudaStreamCreate(&other));
    cudaEvent_t outside, never;
    CK(cudaEventCreate(&outside));
    CK(cudaEventCreate(&never));
    CK(cudaEventRecord(outside, other));
    cudaStream_t s = Capturing();
    CK(cudaStreamWaitEvent(s, never, 0));  // an event never recorded: nothing to wait for
    EXPECT_EQ(cudaStreamWaitEvent(s, outside, 0), cudaErrorStreamCaptureIsolation);
    ExpectInvalidated(s);
}

TEST(Capture, TwoCapturesCannotMerge) {
    Reset();
    cudaEvent_t e;
    CK(cudaEventCreate(&e));
    cudaStream_t a = Capturing(), b = Capturing();
    CK(cudaEventRecord(e, a));
    EXPECT_EQ(cudaStreamWaitEvent(b, e, 0), cudaErrorStreamCaptureMerge);
    ExpectInvalidated(a);
    ExpectInvalidated(b);
}

TEST(Capture, AnEventRecordedOutsideCaptureWorksAsBefore) {
    Reset();
    cudaEvent_t e;
    CK(cudaEventCreate(&e));
    cudaStream_t s = Capturing();
    CK(cudaEventRecord(e, s));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaEventRecord(e, s));
    CK(cudaEventSynchronize(e));
    CK(cudaEventQuery(e));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphDestroy(g));
}

// sim_stream_capture_id: the capture a stream began or joined, the same id for both, a new
// one for every capture, none once it ended (or was invalidated and ended); and asking
// costs the host nothing and invalidates nothing.
TEST(Capture, EachCaptureHasAnIdOfItsOwnThatItsJoinedStreamsShare) {
    Reset();
    cudaStream_t a, b, c;
    CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    uint64_t id = 0, joined = 0, other = 0, again = 0;
    EXPECT_FALSE(sim_stream_capture_id(a, &id));
    EXPECT_FALSE(sim_stream_capture_id((cudaStream_t)0x1234, &id)) << "no stream";

    CK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    ASSERT_TRUE(sim_stream_capture_id(a, &id));
    EXPECT_FALSE(sim_stream_capture_id(b, &joined)) << "b has not joined yet";
    CK(cudaEventRecord(fork, a));
    CK(cudaStreamWaitEvent(b, fork, 0));
    ASSERT_TRUE(sim_stream_capture_id(b, &joined));
    EXPECT_EQ(joined, id);
    // A second capture at the same time has an id of its own.
    CK(cudaStreamBeginCapture(c, cudaStreamCaptureModeRelaxed));
    ASSERT_TRUE(sim_stream_capture_id(c, &other));
    EXPECT_NE(other, id);
    uint64_t before = sim_now_ns();
    for (int i = 0; i < 100; i++) ASSERT_TRUE(sim_stream_capture_id(a, &again));
    EXPECT_EQ(sim_now_ns(), before) << "asking costs the host nothing";
    EXPECT_EQ(Status(a), cudaStreamCaptureStatusActive) << "asking invalidates nothing";

    CK(cudaEventRecord(join, b));
    CK(cudaStreamWaitEvent(a, join, 0));
    cudaGraph_t g, h;
    CK(cudaStreamEndCapture(a, &g));
    EXPECT_FALSE(sim_stream_capture_id(a, &again));
    EXPECT_FALSE(sim_stream_capture_id(b, &again)) << "a joined stream leaves with the capture";
    ASSERT_TRUE(sim_stream_capture_id(c, &again));
    EXPECT_EQ(again, other);
    CK(cudaStreamEndCapture(c, &h));

    // The next capture on the same stream is another capture; an invalidated one keeps
    // its id until it ends.
    CK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    ASSERT_TRUE(sim_stream_capture_id(a, &again));
    EXPECT_NE(again, id);
    EXPECT_NE(again, other);
    EXPECT_EQ(cudaStreamSynchronize(a), cudaErrorStreamCaptureUnsupported);
    uint64_t invalidated = 0;
    ASSERT_TRUE(sim_stream_capture_id(a, &invalidated));
    EXPECT_EQ(invalidated, again);
    ExpectInvalidated(a);
    EXPECT_FALSE(sim_stream_capture_id(a, &again));
    // A reset starts no id again.
    Reset();
    CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    uint64_t after_reset = 0;
    ASSERT_TRUE(sim_stream_capture_id(a, &after_reset));
    EXPECT_GT(after_reset, invalidated);
    CK(cudaStreamEndCapture(a, &g));
    CK(cudaGraphDestroy(g));
}

}  // namespace

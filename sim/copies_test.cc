// sim/copies_test.cc: copies and memsets. Pinned copies run on their direction's copy
// engine at the profile's rate after its set-up time; both directions at once share the
// bidirectional rate; pageable copies take the profile's pageable time for their size and
// block the host as trace/record/copy_rules.h says (an upload from pageable memory is staged
// at the call, not after the stream's earlier work, unless every staging slot of the driver is
// held by uploads still queued); one shared engine when asyncEngineCount is 1; bytes move when a
// copy completes; misuse gets the runtime's error codes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::ProfileWith;
using simtest::Reset;
using simtest::Spin;

const size_t kMiB = 1u << 20;

std::vector<trace_op> Copies(const Capture &cap, trace_copy_dir dir) {
    std::vector<trace_op> v;
    for (const trace_op &op : cap.Of(TRACE_OP_COPY))
        if (op.dir == dir) v.push_back(op);
    return v;
}

double Duration(const trace_op &op) { return (double)(op.end_ns - op.start_ns); }

TEST(Copies, PinnedHostToDeviceTakesSetUpPlusBytesOverBandwidth) {
    Reset();
    Capture cap;
    const size_t bytes = 16 * kMiB;
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_TRUE(c[0].pinned);
    EXPECT_EQ(c[0].engine, TRACE_ENGINE_H2D);
    EXPECT_NEAR(Duration(c[0]), Profile().h2d_fixed_ns + bytes / Profile().h2d_pinned_gbps, 1.0);
}

TEST(Copies, PinnedDeviceToHostTakesSetUpPlusBytesOverBandwidth) {
    Reset();
    Capture cap;
    const size_t bytes = 16 * kMiB;
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_D2H);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].engine, TRACE_ENGINE_D2H);
    EXPECT_NEAR(Duration(c[0]), Profile().d2h_fixed_ns + bytes / Profile().d2h_pinned_gbps, 1.0);
}

TEST(Copies, AsyncPinnedCopyReturnsBeforeItCompletes) {
    Reset();
    Capture cap;
    const size_t bytes = 64 * kMiB;
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0), cudaSuccess);
    uint64_t call = sim_now_ns() - t0;
    EXPECT_EQ(call, simtest::Ns(Profile().memcpy_call_ns + Profile().memcpy_call_ns_per_mib * 64));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_GT(Copies(cap, TRACE_COPY_H2D)[0].end_ns, t0 + call);
}

TEST(Copies, PageableHostToDeviceIsStagedAndHoldsTheHost) {
    Reset();
    Capture cap;
    const size_t bytes = 8 * kMiB;
    std::vector<char> h(bytes, 1);
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    // The host staged the source: busy for the call and the pageable copy's time.
    const double pageable = sim_profile_pageable_ns(&Profile(), true, (double)bytes);
    EXPECT_NEAR((double)(sim_now_ns() - t0), Profile().memcpy_call_ns + Profile().memcpy_call_ns_per_mib * 8 + pageable,
                1.0);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 1u);
    ASSERT_TRUE(c[0].timed);
    EXPECT_FALSE(c[0].pinned);
    EXPECT_NEAR(Duration(c[0]), pageable, 1.0);
    ASSERT_GE(c[0].n_ranges, 2u);
    EXPECT_EQ(c[0].ranges[0].addr, (uint64_t)(uintptr_t)h.data());
    EXPECT_TRUE(c[0].ranges[0].flags & TRACE_RANGE_HOST_ORDERED) << "the staged source is host-ordered";
    EXPECT_TRUE(c[0].ranges[1].flags & TRACE_RANGE_WRITE);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u) << "only the cudaStreamSynchronize: the call itself did not wait for the device";
}

// cudaMemcpyAsync from pageable memory stages the source at the call and returns: it does
// not wait for the stream's earlier work (here a long kernel), and the copy, which runs in
// stream order after that work, moves the bytes the source held at the call, whatever the
// host writes there afterwards.
TEST(Copies, PageableUploadIntoABusyStreamReturnsOnceStaged) {
    Reset();
    Capture cap;
    const size_t bytes = 256 * 1024;
    std::vector<unsigned char> h(bytes, 1);
    unsigned char *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(simtest::Spin(s, 1000000.0), cudaSuccess);  // 1 ms of work ahead of the copy
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    uint64_t returned = sim_now_ns();
    const double pageable = sim_profile_pageable_ns(&Profile(), true, (double)bytes);
    EXPECT_NEAR((double)(returned - t0),
                Profile().memcpy_call_ns + Profile().memcpy_call_ns_per_mib * 0.25 + pageable, 1.0);
    std::fill(h.begin(), h.end(), 2);  // the host reuses its buffer at once
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_GT(c[0].start_ns, returned) << "the copy ran after the kernel, once the call had returned";
    EXPECT_NEAR(Duration(c[0]), pageable, 1.0);
    std::vector<unsigned char> back(bytes, 0);
    ASSERT_EQ(cudaMemcpy(back.data(), d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(back.front(), 1) << "the copy moved what the source held at the call";
    EXPECT_EQ(back.back(), 1);
}

// The driver has few staging slots (pageable_staging_slots, measured on an H200 with
// docs/calibration/pageable_async_probe.cu): behind a long kernel, that many pageable
// uploads are staged and return at once, and the next one waits on the host until the
// oldest has been copied, which is after the kernel. One of at most pageable_inline_bytes
// holds no slot.
TEST(Copies, PageableUploadsBehindABusyStreamWaitForAStagingSlot) {
    Reset();
    const size_t bytes = kMiB;
    const int slots = (int)Profile().pageable_staging_slots;
    ASSERT_GE(slots, 1);
    ASSERT_LE((double)bytes, Profile().pageable_staging_chunk_bytes);
    std::vector<std::vector<unsigned char>> h(slots + 2, std::vector<unsigned char>(bytes, 1));
    unsigned char *d;
    ASSERT_EQ(cudaMalloc(&d, bytes * h.size()), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const double kernel_ns = 2e6;
    uint64_t k0 = sim_now_ns();
    ASSERT_EQ(simtest::Spin(s, kernel_ns), cudaSuccess);
    const double staged = Profile().memcpy_call_ns + Profile().memcpy_call_ns_per_mib * 1.0 +
                          sim_profile_pageable_ns(&Profile(), true, (double)bytes);
    for (int i = 0; i < slots; i++) {
        uint64_t t0 = sim_now_ns();
        ASSERT_EQ(cudaMemcpyAsync(d + i * bytes, h[i].data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
        EXPECT_NEAR((double)(sim_now_ns() - t0), staged, 1.0) << "upload " << i << " had a free slot";
    }
    ASSERT_LT((double)(sim_now_ns() - k0), kernel_ns);
    ASSERT_EQ(cudaMemcpyAsync(d + slots * bytes, h[slots].data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    EXPECT_GT((double)(sim_now_ns() - k0), kernel_ns + sim_profile_pageable_ns(&Profile(), true, (double)bytes))
        << "the upload past the slots waited for the first staged one, copied after the kernel";
    // A small upload goes with the command: no slot, no wait, even with every slot held.
    ASSERT_EQ(simtest::Spin(s, kernel_ns), cudaSuccess);
    for (int i = 0; i < slots; i++)
        ASSERT_EQ(cudaMemcpyAsync(d + i * bytes, h[i].data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    const size_t small = (size_t)Profile().pageable_inline_bytes;
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d, h[slots + 1].data(), small, cudaMemcpyHostToDevice, s), cudaSuccess);
    EXPECT_LT((double)(sim_now_ns() - t0), 2 * (Profile().memcpy_call_ns + sim_profile_pageable_ns(&Profile(), true, (double)small)));
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// A kernel on another stream holds no slot: the upload's own stream is idle.
TEST(Copies, PageableUploadsWaitOnlyForStagedUploads) {
    Reset();
    const size_t bytes = kMiB;
    const int n = (int)Profile().pageable_staging_slots + 2;
    std::vector<unsigned char> h(bytes, 3);
    unsigned char *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t busy, s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const double kernel_ns = 5e6;
    uint64_t k0 = sim_now_ns();
    ASSERT_EQ(simtest::Spin(busy, kernel_ns), cudaSuccess);
    for (int i = 0; i < n; i++)
        ASSERT_EQ(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    EXPECT_LT((double)(sim_now_ns() - k0), kernel_ns) << "no upload waited for the other stream's kernel";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
}

// An upload of more chunks than there are slots is staged as it is copied: behind a long
// kernel it waits for its stream at the call.
TEST(Copies, APageableUploadLargerThanTheSlotsWaitsForItsStream) {
    Reset();
    const size_t bytes = (size_t)(Profile().pageable_staging_chunk_bytes * (Profile().pageable_staging_slots + 2));
    std::vector<unsigned char> h(bytes, 4);
    unsigned char *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const double kernel_ns = 2e6;
    uint64_t k0 = sim_now_ns();
    ASSERT_EQ(simtest::Spin(s, kernel_ns), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    EXPECT_GT((double)(sim_now_ns() - k0), kernel_ns + sim_profile_pageable_ns(&Profile(), true, (double)bytes));
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
}

TEST(Copies, PageableDeviceToHostWaitsForCompletion) {
    Reset();
    Capture cap;
    const size_t bytes = 8 * kMiB;
    std::vector<char> h(bytes, 0);
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 7, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h.data(), d, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_EQ(h[bytes - 1], 7) << "the data is there when the call returns";
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_D2H);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(Duration(c[0]), sim_profile_pageable_ns(&Profile(), false, (double)bytes), 1.0);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 2u);  // the cudaDeviceSynchronize, then the copy's own wait
    EXPECT_EQ(syncs[1].sync, TRACE_SYNC_OP);
    EXPECT_EQ(syncs[1].waited_op, c[0].id);
}

TEST(Copies, SynchronousPageableUploadFirstWaitsForEarlierWork) {
    Reset();
    Capture cap;
    const size_t bytes = kMiB;
    std::vector<char> h(bytes, 1);
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(s, 2e6, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    trace_op k = cap.Kernel("k");
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_GE(c[0].start_ns, k.end_ns);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_FALSE(syncs.empty());
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_STREAM) << "the implicit synchronisation before the copy";
    EXPECT_LT(syncs[0].id, c[0].id);
    EXPECT_GE(syncs[0].end_ns, k.end_ns);
}

TEST(Copies, BothDirectionsAtOnceShareTheBidirectionalRate) {
    Reset(ProfileWith({{"copy", "h2d_fixed_ns", 0}, {"copy", "d2h_fixed_ns", 0}}).c_str());
    Capture cap;
    const size_t bytes = 64 * kMiB;
    void *hi, *ho, *di, *dout;
    ASSERT_EQ(cudaMallocHost(&hi, bytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&ho, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&di, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, bytes), cudaSuccess);
    cudaStream_t gate, s1, s2;
    ASSERT_EQ(cudaStreamCreate(&gate), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    cudaEvent_t go;
    ASSERT_EQ(cudaEventCreate(&go), cudaSuccess);
    // Both copies wait for the same event, so they start at the same instant.
    ASSERT_EQ(Spin(gate, 1e6), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(go, gate), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s1, go, 0), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, go, 0), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(di, hi, bytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(ho, dout, bytes, cudaMemcpyDeviceToHost, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op up = Copies(cap, TRACE_COPY_H2D)[0], down = Copies(cap, TRACE_COPY_D2H)[0];
    EXPECT_EQ(up.start_ns, down.start_ns);
    double half = Profile().bidir_total_gbps / 2;
    ASSERT_LT(half, Profile().h2d_pinned_gbps);
    ASSERT_LT(half, Profile().d2h_pinned_gbps);
    EXPECT_NEAR(Duration(up), bytes / half, 1.0);
    EXPECT_NEAR(Duration(down), bytes / half, 1.0);
}

TEST(Copies, ACopyRunsFasterOnceTheOtherDirectionFinishes) {
    Reset(ProfileWith({{"copy", "h2d_fixed_ns", 0}, {"copy", "d2h_fixed_ns", 0}}).c_str());
    Capture cap;
    const size_t big = 64 * kMiB, small = 16 * kMiB;
    void *hi, *ho, *di, *dout;
    ASSERT_EQ(cudaMallocHost(&hi, big), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&ho, small), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&di, big), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, small), cudaSuccess);
    cudaStream_t gate, s1, s2;
    ASSERT_EQ(cudaStreamCreate(&gate), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    cudaEvent_t go;
    ASSERT_EQ(cudaEventCreate(&go), cudaSuccess);
    ASSERT_EQ(Spin(gate, 1e6), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(go, gate), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s1, go, 0), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, go, 0), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(di, hi, big, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(ho, dout, small, cudaMemcpyDeviceToHost, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op up = Copies(cap, TRACE_COPY_H2D)[0], down = Copies(cap, TRACE_COPY_D2H)[0];
    double half = Profile().bidir_total_gbps / 2;
    // Shared until the small copy ends, then the upload has the link to itself.
    double shared_ns = small / half;
    EXPECT_NEAR(Duration(down), shared_ns, 1.0);
    double expected_up = shared_ns + (big - shared_ns * half) / Profile().h2d_pinned_gbps;
    EXPECT_NEAR(Duration(up), expected_up, 2.0);
}

TEST(Copies, SameDirectionCopiesTakeTurnsOnTheirEngine) {
    Reset();
    Capture cap;
    const size_t bytes = 4 * kMiB;
    void *h, *d1, *d2;
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d1, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d2, bytes), cudaSuccess);
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d1, h, bytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d2, h, bytes, cudaMemcpyHostToDevice, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_GE(c[1].start_ns, c[0].end_ns);
}

TEST(Copies, TwoEnginesRunOppositeDirectionsAtOnce) {
    Reset();
    Capture cap;
    const size_t bytes = 16 * kMiB;
    void *hi, *ho, *di, *dout;
    ASSERT_EQ(cudaMallocHost(&hi, bytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&ho, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&di, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, bytes), cudaSuccess);
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(di, hi, bytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(ho, dout, bytes, cudaMemcpyDeviceToHost, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op up = Copies(cap, TRACE_COPY_H2D)[0], down = Copies(cap, TRACE_COPY_D2H)[0];
    EXPECT_LT(down.start_ns, up.end_ns);
}

TEST(Copies, OneSharedEngineRunsOneCopyAtATime) {
    Reset(ProfileWith({{"device", "async_engine_count", 1}}).c_str());
    Capture cap;
    int engines = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0), cudaSuccess);
    ASSERT_EQ(engines, 1);
    const size_t bytes = 16 * kMiB;
    void *hi, *ho, *di, *dout;
    ASSERT_EQ(cudaMallocHost(&hi, bytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&ho, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&di, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, bytes), cudaSuccess);
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(di, hi, bytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(ho, dout, bytes, cudaMemcpyDeviceToHost, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op up = Copies(cap, TRACE_COPY_H2D)[0], down = Copies(cap, TRACE_COPY_D2H)[0];
    EXPECT_GE(down.start_ns, up.end_ns) << "the download waits for the shared engine";
    EXPECT_EQ(down.engine, TRACE_ENGINE_H2D) << "both directions are drawn on the one engine's lane";
    EXPECT_NEAR(Duration(down), Profile().d2h_fixed_ns + bytes / Profile().d2h_pinned_gbps, 1.0)
        << "alone on the link, at its full rate";
}

TEST(Copies, AnUnsynchronisedReadSeesTheOldBytes) {
    Reset();
    const size_t bytes = kMiB;
    unsigned char *h;
    void *d;
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 0x5a, bytes), cudaSuccess);
    std::memset(h, 0x11, bytes);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_EQ(h[0], 0x11) << "the copy has not happened yet at this point of simulated time";
    EXPECT_EQ(h[bytes - 1], 0x11);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(h[0], 0x5a);
    EXPECT_EQ(h[bytes - 1], 0x5a);
}

TEST(Copies, AHostWriteBeforeAnAsyncUploadCompletesIsWhatArrives) {
    Reset();
    const size_t bytes = 4 * kMiB;
    unsigned char *h, *back;
    void *d;
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&back, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    std::memset(h, 1, bytes);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    std::memset(h, 2, bytes);  // a race: the DMA has not read the buffer yet
    ASSERT_EQ(cudaMemcpyAsync(back, d, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(back[0], 2);
}

TEST(Copies, MemsetAndDeviceToDeviceCopyMoveData) {
    Reset();
    Capture cap;
    const size_t bytes = 3 * kMiB + 17;
    void *a, *b;
    std::vector<unsigned char> h(bytes, 0);
    ASSERT_EQ(cudaMalloc(&a, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(a, 0xab, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(h.data(), b, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < bytes; i += 4099) ASSERT_EQ(h[i], 0xab) << i;
    EXPECT_EQ(h[bytes - 1], 0xab);
    std::vector<trace_op> d2d = Copies(cap, TRACE_COPY_D2D);
    ASSERT_EQ(d2d.size(), 1u);
    EXPECT_EQ(d2d[0].engine, TRACE_ENGINE_COMPUTE);
    // A device-to-device copy reads and writes every byte at device-memory rate.
    EXPECT_GE(Duration(d2d[0]), 2.0 * bytes / Profile().dram_gbps);
    std::vector<trace_op> ms = cap.Of(TRACE_OP_MEMSET);
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_EQ(ms[0].engine, TRACE_ENGINE_COMPUTE);
    EXPECT_GE(Duration(ms[0]), bytes / Profile().dram_gbps);
}

TEST(Copies, MemsetOfDeviceMemoryDoesNotHoldTheHost) {
    Reset();
    Capture cap;
    const size_t bytes = 256 * kMiB;
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 0, bytes), cudaSuccess);
    std::vector<trace_op> ms = cap.Of(TRACE_OP_MEMSET);
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_FALSE(ms[0].timed) << "still running when cudaMemset returned";
}

TEST(Copies, HostToHostCopyIsSynchronous) {
    Reset();
    std::vector<char> a(1000, 'x'), b(1000, 'y');
    ASSERT_EQ(cudaMemcpy(b.data(), a.data(), a.size(), cudaMemcpyHostToHost), cudaSuccess);
    EXPECT_EQ(b[999], 'x');
    ASSERT_EQ(cudaMemcpyAsync(a.data(), "zzz", 3, cudaMemcpyDefault, 0), cudaSuccess);
    EXPECT_EQ(a[2], 'z');
}

TEST(Copies, DefaultKindInfersTheDirection) {
    Reset();
    Capture cap;
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, h, 4096, cudaMemcpyDefault), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(h, d, 4096, cudaMemcpyDefault), cudaSuccess);
    EXPECT_EQ(Copies(cap, TRACE_COPY_H2D).size(), 1u);
    EXPECT_EQ(Copies(cap, TRACE_COPY_D2H).size(), 1u);
    EXPECT_TRUE(Copies(cap, TRACE_COPY_D2H)[0].pinned);
}

TEST(Copies, RegisteredMemoryIsPinnedUntilUnregistered) {
    Reset();
    Capture cap;
    const size_t bytes = kMiB;
    std::vector<char> h(bytes);
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    ASSERT_EQ(cudaHostRegister(h.data(), bytes, cudaHostRegisterDefault), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaHostUnregister(h.data()), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_TRUE(c[0].pinned);
    EXPECT_FALSE(c[1].pinned);
}

// A host range partly page-locked, as the H200 answers (sim/copies.c, classify; the
// conformance cases "... a range whose first / second half is registered"): one that
// starts in a registered range and runs past it is refused, nothing enqueued and no wait.
TEST(Copies, ACopyStartingInARegisteredRangeAndRunningPastItIsRefused) {
    Reset();
    Capture cap;
    const size_t bytes = 2 * kMiB;
    std::vector<char> h(bytes, 1);
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaHostRegister(h.data(), bytes / 2, cudaHostRegisterDefault), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    EXPECT_EQ(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s), cudaErrorInvalidValue);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(Profile().memcpy_call_ns + Profile().memcpy_call_ns_per_mib * 2))
        << "the call's own cost, no staging and no wait";
    EXPECT_EQ(cudaMemcpyAsync(h.data(), d, bytes, cudaMemcpyDeviceToHost, s), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(cap.Of(TRACE_OP_COPY).empty()) << "nothing was enqueued";
}

// One that starts in pageable memory is a pageable copy, even where it runs into a
// registered range: staged at the pageable rates with the host busy staging it, not pinned.
TEST(Copies, ACopyStartingInPageableMemoryIsPageableEvenIntoARegisteredRange) {
    Reset();
    Capture cap;
    const size_t bytes = 2 * kMiB;
    std::vector<char> h(bytes, 1);
    void *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaHostRegister(h.data() + bytes / 2, bytes / 2, cudaHostRegisterDefault), cudaSuccess);
    uint64_t up_called = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    uint64_t up_returned = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(h.data(), d, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    uint64_t down_returned = sim_now_ns();
    std::vector<trace_op> up = Copies(cap, TRACE_COPY_H2D), down = Copies(cap, TRACE_COPY_D2H);
    ASSERT_EQ(up.size(), 1u);
    ASSERT_EQ(down.size(), 1u);
    EXPECT_FALSE(up[0].pinned);
    EXPECT_FALSE(down[0].pinned);
    ASSERT_TRUE(up[0].timed);
    EXPECT_GE((double)(up_returned - up_called), sim_profile_pageable_ns(&Profile(), true, (double)bytes))
        << "the upload's call returned only once its source was staged";
    EXPECT_NEAR(Duration(up[0]), sim_profile_pageable_ns(&Profile(), true, (double)bytes), 1.0);
    ASSERT_TRUE(down[0].timed);
    EXPECT_GE(down_returned, down[0].end_ns) << "the host waited for the download";
    EXPECT_NEAR(Duration(down[0]), sim_profile_pageable_ns(&Profile(), false, (double)bytes), 1.0);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u) << "the download's wait, as for a pageable download";
    EXPECT_EQ(syncs[0].waited_op, down[0].id);
}

// The same buffer, half registered: a copy inside the registered half is pinned (the call
// returns before the copy completes), one inside the other half is pageable (the host
// stages it, for the pageable copy's time).
TEST(Copies, ACopyInsideARegisteredRangeIsPinnedAndOneOutsideItPageable) {
    Reset();
    Capture cap;
    const size_t bytes = 2 * kMiB, half = bytes / 2;
    std::vector<char> h(bytes, 1);
    char *d;
    ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaHostRegister(h.data(), half, cudaHostRegisterDefault), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h.data(), half, cudaMemcpyHostToDevice, s), cudaSuccess);
    uint64_t pinned_returned = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d, h.data() + half / 2, half / 2, cudaMemcpyHostToDevice, s), cudaSuccess);
    uint64_t pageable_called = sim_now_ns();
    ASSERT_EQ(cudaMemcpyAsync(d + half, h.data() + half, half, cudaMemcpyHostToDevice, s), cudaSuccess);
    uint64_t pageable_returned = sim_now_ns();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<trace_op> c = Copies(cap, TRACE_COPY_H2D);
    ASSERT_EQ(c.size(), 3u);
    EXPECT_TRUE(c[0].pinned);
    EXPECT_GT(c[0].end_ns, pinned_returned) << "the pinned copy's call returned before it completed";
    EXPECT_NEAR(Duration(c[0]), Profile().h2d_fixed_ns + half / Profile().h2d_pinned_gbps, 1.0);
    EXPECT_TRUE(c[1].pinned) << "a part of a registered range is pinned too";
    EXPECT_FALSE(c[2].pinned);
    EXPECT_GE((double)(pageable_returned - pageable_called), sim_profile_pageable_ns(&Profile(), true, (double)half))
        << "the host staged the pageable copy's source";
    EXPECT_NEAR(Duration(c[2]), sim_profile_pageable_ns(&Profile(), true, (double)half), 1.0);
    ASSERT_GE(c[2].n_ranges, 1u);
    EXPECT_TRUE(c[2].ranges[0].flags & TRACE_RANGE_HOST_ORDERED) << "the staged source is host-ordered";
}

TEST(Copies, CopyPastTheEndOfAnAllocationIsInvalid) {
    Reset();
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, 8192), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, h, 4097, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpyAsync((char *)d + 1, h, 4096, cudaMemcpyHostToDevice, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(h, (char *)d + 4000, 100, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemset((char *)d + 4000, 0, 97), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(d, h, 4096, cudaMemcpyHostToDevice), cudaSuccess) << "exactly to the end is fine";
}

// As the CUDA 13 runtime does (measured on an H200): a pointer the kind says is on the
// device must be device-addressable; the copy then goes the way the pointers say.
TEST(Copies, APageablePointerWhereTheKindWantsADeviceOneIsInvalid) {
    Reset();
    void *d;
    std::vector<char> pageable(64);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(pageable.data(), d, 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(d, pageable.data(), 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(d, pageable.data(), 64, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST(Copies, AddressablePointersGoTheWayThePointersSay) {
    Reset();
    Capture cap;
    unsigned char *h, *d;
    std::vector<unsigned char> pageable(64, 0);
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 0x42, 4096), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(h, d, 64, cudaMemcpyHostToDevice), cudaSuccess) << "device to pinned, kind ignored";
    EXPECT_EQ(h[63], 0x42);
    ASSERT_EQ(cudaMemcpy(pageable.data(), d, 64, cudaMemcpyHostToHost), cudaSuccess);
    EXPECT_EQ(pageable[0], 0x42);
    std::vector<trace_op> down = Copies(cap, TRACE_COPY_D2H);
    ASSERT_EQ(down.size(), 2u);
    EXPECT_TRUE(down[0].pinned);
    EXPECT_FALSE(down[1].pinned);
}

TEST(Copies, UnknownKindIsAnInvalidDirection) {
    Reset();
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, h, 64, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    EXPECT_EQ(cudaMemcpyAsync(d, h, 64, (cudaMemcpyKind)-1, 0), cudaErrorInvalidMemcpyDirection);
}

TEST(Copies, NullPointersAndEmptyCopies) {
    Reset();
    void *d;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, nullptr, 64, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(nullptr, d, 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMemcpy(d, nullptr, 0, cudaMemcpyHostToDevice), cudaSuccess) << "nothing to copy";
    EXPECT_EQ(cudaMemset(nullptr, 0, 16), cudaErrorInvalidValue);
    std::vector<char> pageable(64);
    EXPECT_EQ(cudaMemset(pageable.data(), 0, 64), cudaErrorInvalidValue) << "pageable memory is not the device's";
}

TEST(Copies, CopyOnADeadStreamIsAnInvalidHandle) {
    Reset();
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(d, h, 64, cudaMemcpyHostToDevice, s), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaMemsetAsync(d, 0, 64, s), cudaErrorInvalidResourceHandle);
}

}  // namespace

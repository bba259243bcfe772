// sim/memory_test.cc: device and page-locked host memory. cudaMalloc gives aligned,
// zeroed memory within the profile's capacity; frees and registrations are checked
// against the allocation table and misuse gets the runtime's error codes; page-locking
// costs host time as measured; freeing waits for the whole device, allocating does not.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/core/memory.h"
#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

TEST(Memory, DeviceAllocationsAreAlignedAndZeroed) {
    Reset();
    unsigned char *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 1000), cudaSuccess);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ((uintptr_t)d % 256, 0u);
    std::vector<unsigned char> h(1000, 0xff);
    ASSERT_EQ(cudaMemcpy(h.data(), d, 1000, cudaMemcpyDeviceToHost), cudaSuccess);
    for (unsigned char c : h) ASSERT_EQ(c, 0);
    EXPECT_EQ(sim_mem_kind_of(d + 999, nullptr, nullptr), SIM_MEM_DEVICE);
    EXPECT_EQ(sim_mem_kind_of(h.data(), nullptr, nullptr), SIM_MEM_PAGEABLE);
}

TEST(Memory, ZeroBytesGiveANullPointer) {
    Reset();
    void *d = (void *)1;
    ASSERT_EQ(cudaMalloc(&d, 0), cudaSuccess);
    EXPECT_EQ(d, nullptr);
    EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
    EXPECT_EQ(cudaFreeHost(nullptr), cudaSuccess);
}

TEST(Memory, MoreThanTheDeviceHoldsIsAnAllocationError) {
    Reset();
    void *d = (void *)1;
    EXPECT_EQ(cudaMalloc(&d, (size_t)Profile().total_global_mem + 1), cudaErrorMemoryAllocation);
    EXPECT_EQ(d, nullptr);
    EXPECT_EQ(cudaMalloc(&d, SIZE_MAX), cudaErrorMemoryAllocation);
    EXPECT_EQ(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST(Memory, FreeingWhatWasNotAllocatedIsInvalid) {
    Reset();
    char *d;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    std::vector<char> h(16);
    EXPECT_EQ(cudaFree(h.data()), cudaErrorInvalidValue);
    EXPECT_EQ(cudaFree(d + 16), cudaErrorInvalidValue) << "not the start of the allocation";
    EXPECT_EQ(cudaFreeHost(d), cudaErrorInvalidValue) << "device memory is not cudaFreeHost's";
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue) << "freed twice";
    void *p;
    ASSERT_EQ(cudaMallocHost(&p, 64), cudaSuccess);
    EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue) << "pinned host memory is not cudaFree's";
    EXPECT_EQ(cudaFreeHost(p), cudaSuccess);
}

TEST(Memory, PageLockedAllocationsArePinnedAndCostTheMeasuredTime) {
    Reset();
    const size_t bytes = 64u << 20;
    void *p;
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaMallocHost(&p, bytes), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(Profile().malloc_host_ns + Profile().malloc_host_ns_per_mib * 64));
    EXPECT_TRUE(sim_mem_range_is(p, bytes, SIM_MEM_PINNED));
    EXPECT_FALSE(sim_mem_range_is(p, bytes + 1, SIM_MEM_PINNED));
    void *q;
    ASSERT_EQ(cudaHostAlloc(&q, 4096, cudaHostAllocMapped | cudaHostAllocPortable), cudaSuccess);
    EXPECT_TRUE(sim_mem_range_is(q, 4096, SIM_MEM_PINNED));
    EXPECT_EQ(cudaHostAlloc(&q, 4096, 0x10), cudaErrorInvalidValue);
    EXPECT_EQ(cudaMallocHost(nullptr, 16), cudaErrorInvalidValue);
}

TEST(Memory, RegisteringHostMemoryPinsItUntilUnregistered) {
    Reset();
    const size_t bytes = 16u << 20;
    std::vector<char> buf(bytes);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaHostRegister(buf.data(), bytes, cudaHostRegisterDefault), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(Profile().host_register_ns + Profile().host_register_ns_per_mib * 16));
    EXPECT_TRUE(sim_mem_range_is(buf.data(), bytes, SIM_MEM_PINNED));
    ASSERT_EQ(cudaHostUnregister(buf.data()), cudaSuccess);
    EXPECT_FALSE(sim_mem_range_is(buf.data(), bytes, SIM_MEM_PINNED));
}

TEST(Memory, RegistrationMisuse) {
    Reset();
    std::vector<char> buf(8192);
    EXPECT_EQ(cudaHostRegister(nullptr, 64, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaHostRegister(buf.data(), 0, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaHostRegister(buf.data(), 64, 0x100), cudaErrorInvalidValue);
    ASSERT_EQ(cudaHostRegister(buf.data(), 4096, 0), cudaSuccess);
    EXPECT_EQ(cudaHostRegister(buf.data(), 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
    EXPECT_EQ(cudaHostRegister(buf.data() + 100, 8000, 0), cudaErrorHostMemoryAlreadyRegistered) << "overlapping";
    EXPECT_EQ(cudaHostUnregister(buf.data() + 100), cudaErrorInvalidValue) << "inside, not at the start";
    EXPECT_EQ(cudaHostUnregister(buf.data() + 4096), cudaErrorHostMemoryNotRegistered);
    void *p;
    ASSERT_EQ(cudaMallocHost(&p, 4096), cudaSuccess);
    EXPECT_EQ(cudaHostRegister(p, 4096, 0), cudaErrorInvalidValue) << "the runtime's own page-locked memory";
    EXPECT_EQ(cudaHostUnregister(p), cudaErrorInvalidValue);
    ASSERT_EQ(cudaHostUnregister(buf.data()), cudaSuccess);
    EXPECT_EQ(cudaHostUnregister(buf.data()), cudaErrorHostMemoryNotRegistered);
}

TEST(Memory, ARangeOverlappingARegisteredOneAnywhereIsAlreadyRegistered) {
    Reset();
    std::vector<char> buf(4 * 4096);
    char *mid = buf.data() + 4096;
    ASSERT_EQ(cudaHostRegister(mid, 4096, 0), cudaSuccess);
    EXPECT_EQ(cudaHostRegister(mid + 2048, 4096, 0), cudaErrorHostMemoryAlreadyRegistered) << "starts inside";
    EXPECT_EQ(cudaHostRegister(buf.data() + 2048, 4096, 0), cudaErrorHostMemoryAlreadyRegistered) << "ends inside";
    EXPECT_EQ(cudaHostRegister(buf.data(), 4 * 4096, 0), cudaErrorHostMemoryAlreadyRegistered) << "holds it";
    EXPECT_EQ(cudaHostRegister(buf.data(), 4096, 0), cudaSuccess) << "adjacent, not overlapping";
    EXPECT_EQ(cudaHostRegister(mid + 4096, 4096, 0), cudaSuccess) << "adjacent on the other side";
    void *p;
    ASSERT_EQ(cudaMallocHost(&p, 4096), cudaSuccess);
    EXPECT_EQ(cudaHostRegister((char *)p - 100, 200, 0), cudaErrorInvalidValue)
        << "reaching into the runtime's own page-locked memory";
}

TEST(Memory, RegistrationNeedsNoPageAlignment) {
    Reset();
    std::vector<char> buf(3 * 4096);
    EXPECT_EQ(cudaHostRegister(buf.data() + 100, 100, 0), cudaSuccess);
    EXPECT_EQ(cudaHostRegister(buf.data() + 200, 4096, 0), cudaSuccess) << "the rest of the page is not registered";
    EXPECT_TRUE(sim_mem_range_is(buf.data() + 100, 100, SIM_MEM_PINNED));
    EXPECT_FALSE(sim_mem_range_is(buf.data(), 100, SIM_MEM_PINNED));
    EXPECT_EQ(cudaHostUnregister(buf.data() + 100), cudaSuccess);
    EXPECT_EQ(cudaHostUnregister(buf.data() + 200), cudaSuccess);
}

TEST(Memory, UnpinningCostsTheProfilesTimePerMiB) {
    Reset(simtest::ProfileWith({{"host", "host_unregister_ns", 1000},
                                {"host", "host_unregister_ns_per_mib", 2000},
                                {"host", "free_host_ns_per_mib", 3000}})
              .c_str());
    const size_t bytes = 16u << 20;
    std::vector<char> buf(bytes);
    ASSERT_EQ(cudaHostRegister(buf.data(), bytes, 0), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaHostUnregister(buf.data()), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(1000 + 2000 * 16));
    t0 = sim_now_ns();
    EXPECT_EQ(cudaHostUnregister(buf.data()), cudaErrorHostMemoryNotRegistered);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(1000)) << "a refused call pays the fixed part only";
    void *p;
    ASSERT_EQ(cudaMallocHost(&p, bytes), cudaSuccess);
    t0 = sim_now_ns();
    ASSERT_EQ(cudaFreeHost(p), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(Profile().free_host_ns + 3000 * 16));
}

TEST(Memory, FreeingWaitsForTheDevice) {
    Reset();
    Capture cap;
    void *d;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(Spin(0, 3e6, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    EXPECT_GE(sim_now_ns(), cap.Kernel("k").end_ns);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_DEVICE);
}

// cudaFree and cudaFreeHost wait for the whole device, a non-blocking stream's work too
// (the conformance cases "cudaFree while a non-blocking stream runs a kernel, ..." and
// "cudaFreeHost ...", answered alike on an H200).
TEST(Memory, FreeingWaitsForNonBlockingStreamsToo) {
    Reset();
    Capture cap;
    cudaStream_t nb;
    ASSERT_EQ(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    void *d, *h;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(Spin(nb, 3e6, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    ASSERT_TRUE(cap.Kernel("a").timed);
    EXPECT_GE(sim_now_ns(), cap.Kernel("a").end_ns);
    EXPECT_EQ(cudaStreamQuery(nb), cudaSuccess);
    ASSERT_EQ(Spin(nb, 3e6, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaFreeHost(h), cudaSuccess);
    ASSERT_TRUE(cap.Kernel("b").timed);
    EXPECT_GE(sim_now_ns(), cap.Kernel("b").end_ns);
    EXPECT_EQ(cudaStreamQuery(nb), cudaSuccess);
    // The frees' device syncs, each followed by the successful query's stream sync.
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 4u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_DEVICE);
    EXPECT_STREQ(syncs[1].name, "cudaStreamQuery");
    EXPECT_EQ(syncs[2].sync, TRACE_SYNC_DEVICE);
    EXPECT_STREQ(syncs[3].name, "cudaStreamQuery");
}

// cudaMalloc and cudaMallocHost do not wait for the device: the reference says only that
// any call "may block or synchronize" (API synchronization behavior), and on an H200 a
// 4 KiB cudaMalloc or cudaMallocHost returned while a non-blocking stream's kernel ran
// (the conformance cases "cudaMalloc while a non-blocking stream runs a kernel, ...").
TEST(Memory, AllocatingDoesNotWaitForTheDevice) {
    Reset();
    Capture cap;
    cudaStream_t nb;
    ASSERT_EQ(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(Spin(nb, 3e6, 1, 32, "k"), cudaSuccess);
    void *d, *h;
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(sim_profile_malloc_ns(&Profile(), 4096))) << "the call's own cost only";
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(nb), cudaErrorNotReady);
    EXPECT_FALSE(cap.Kernel("k").timed) << "the kernel still runs";
    EXPECT_TRUE(cap.Of(TRACE_OP_SYNC).empty());
    ASSERT_EQ(cudaStreamSynchronize(nb), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    ASSERT_EQ(cudaFreeHost(h), cudaSuccess);
}

TEST(Memory, TheTableFindsTheHoldingAllocation) {
    Reset();
    std::vector<char *> ptrs;
    for (int i = 0; i < 50; i++) {
        char *d;
        ASSERT_EQ(cudaMalloc(&d, 1000 + 10 * i), cudaSuccess);
        ptrs.push_back(d);
    }
    for (int i = 0; i < 50; i++) {
        uintptr_t base = 0;
        size_t size = 0;
        EXPECT_EQ(sim_mem_kind_of(ptrs[i] + 999, &base, &size), SIM_MEM_DEVICE);
        EXPECT_EQ(base, (uintptr_t)ptrs[i]);
        EXPECT_EQ(size, (size_t)(1000 + 10 * i));
        EXPECT_TRUE(sim_mem_device_accessible(ptrs[i], size));
        EXPECT_FALSE(sim_mem_device_accessible(ptrs[i], size + 1));
    }
    for (int i = 0; i < 50; i += 2) ASSERT_EQ(cudaFree(ptrs[i]), cudaSuccess);
    for (int i = 0; i < 50; i++)
        EXPECT_EQ(sim_mem_kind_of(ptrs[i], nullptr, nullptr) == SIM_MEM_DEVICE, i % 2 == 1) << i;
}

}  // namespace

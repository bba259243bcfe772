// sim/device_map_test.cc: device memory the host program cannot touch. A host read or
// write through a cudaMalloc'd pointer faults (SIGSEGV at that address), as on a GPU,
// anywhere in the allocation's pages; every way the simulator itself moves device bytes
// still works: copies in every direction, pageable and pinned, device-to-device copies,
// memsets, kernel bodies through the simulator's view and through the program's
// addresses (after which device memory is protected again); and the allocation a faulting
// address belongs to can be looked up.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "sim/core/memory.h"
#include "sim/test_support.h"

namespace {

using simtest::Reset;

// What the forked child's SIGSEGV handler checks the fault against.
volatile uintptr_t g_expected_fault = 0;

constexpr int kFaultedThere = 42;    // SIGSEGV at the expected address
constexpr int kFaultedElsewhere = 43;
constexpr int kNoFault = 44;

void OnSegv(int, siginfo_t *info, void *) {
    bool there = reinterpret_cast<uintptr_t>(info->si_addr) == g_expected_fault;
    _exit(there ? kFaultedThere : kFaultedElsewhere);
}

void InstallSegvCheck(const volatile void *expected) {
    g_expected_fault = reinterpret_cast<uintptr_t>(expected);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = OnSegv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
}

// In a death-test child: reads p on the host; exits kFaultedThere when that faults at p.
void HostRead(const volatile unsigned char *p) {
    InstallSegvCheck(p);
    unsigned char v = *p;
    (void)v;
    _exit(kNoFault);
}

void HostWrite(volatile unsigned char *p) {
    InstallSegvCheck(p);
    *p = 1;
    _exit(kNoFault);
}

// A kernel body that writes 0x5a over [ptr, ptr + bytes) at the program's addresses
// (a body written before sim_device_view existed).
struct FillArgs {
    unsigned char *ptr;
    size_t bytes;
    unsigned char value;
};

void FillThroughProgramAddresses(const void *args, uint32_t, uint32_t) {
    const FillArgs *a = static_cast<const FillArgs *>(args);
    std::memset(a->ptr, a->value, a->bytes);
}

void FillThroughTheView(const void *args, uint32_t, uint32_t) {
    const FillArgs *a = static_cast<const FillArgs *>(args);
    std::memset(sim_device_view(a->ptr), a->value, a->bytes);
}

cudaError_t Fill(unsigned char *d, size_t bytes, unsigned char value, bool through_view) {
    FillArgs args{d, bytes, value};
    sim_kernel_launch l{};
    l.name = "fill";
    l.grid = dim3(1);
    l.block = dim3(32);
    l.cost.fixed_ns = 1000;
    l.body = through_view ? FillThroughTheView : FillThroughProgramAddresses;
    l.body_uses_device_view = through_view;
    l.args = &args;
    l.args_size = sizeof(args);
    l.n_ranges = 1;
    l.ranges[0] = {(uint64_t)(uintptr_t)d, bytes, TRACE_RANGE_WRITE};
    return sim_launch_kernel(&l, 0);
}

std::vector<unsigned char> CopyBack(const unsigned char *d, size_t bytes) {
    std::vector<unsigned char> h(bytes, 0xee);
    EXPECT_EQ(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
}

bool All(const std::vector<unsigned char> &v, unsigned char value) {
    for (unsigned char c : v)
        if (c != value) return false;
    return true;
}

TEST(DeviceMap, AHostReadOfDeviceMemoryFaultsAtThatAddress) {
    Reset();
    unsigned char *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 1000), cudaSuccess);
    EXPECT_EXIT(HostRead(d), ::testing::ExitedWithCode(kFaultedThere), "");
    EXPECT_EXIT(HostRead(d + 999), ::testing::ExitedWithCode(kFaultedThere), "") << "the last byte";
    EXPECT_EXIT(HostRead(d + 1010), ::testing::ExitedWithCode(kFaultedThere), "") << "past the end, same page";
}

TEST(DeviceMap, AHostWriteOfDeviceMemoryFaultsAtThatAddress) {
    Reset();
    unsigned char *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 3 * 4096 + 5), cudaSuccess);
    EXPECT_EXIT(HostWrite(d + 4096 * 2 + 17), ::testing::ExitedWithCode(kFaultedThere), "");
    // The host's own memory is not affected.
    std::vector<unsigned char> h(16);
    EXPECT_EXIT(HostWrite(h.data()), ::testing::ExitedWithCode(kNoFault), "");
}

TEST(DeviceMap, AFaultingAddressIsFoundInItsAllocation) {
    Reset();
    unsigned char *a = nullptr, *b = nullptr;
    ASSERT_EQ(cudaMalloc(&a, 1000), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, 64 << 10), cudaSuccess);
    void *pinned = nullptr;
    ASSERT_EQ(cudaMallocHost(&pinned, 4096), cudaSuccess);
    const void *base = nullptr;
    size_t bytes = 0;
    ASSERT_TRUE(sim_device_allocation_of(a + 10, &base, &bytes));
    EXPECT_EQ(base, a);
    EXPECT_EQ(bytes, 1000u);
    ASSERT_TRUE(sim_device_allocation_of(a + 1200, &base, &bytes)) << "the rest of the last page";
    EXPECT_EQ(base, a);
    ASSERT_TRUE(sim_device_allocation_of(b + (64 << 10) - 1, &base, &bytes));
    EXPECT_EQ(base, b);
    EXPECT_EQ(bytes, size_t{64} << 10);
    EXPECT_FALSE(sim_device_allocation_of(pinned, nullptr, nullptr)) << "pinned host memory is the host's";
    std::vector<char> h(16);
    EXPECT_FALSE(sim_device_allocation_of(h.data(), nullptr, nullptr));
    EXPECT_FALSE(sim_device_allocation_of(sim_device_view(a), nullptr, nullptr)) << "the simulator's view";
    ASSERT_EQ(cudaFree(a), cudaSuccess);
    EXPECT_FALSE(sim_device_allocation_of(a + 10, nullptr, nullptr)) << "freed";
    EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST(DeviceMap, TheSimulatorsViewHoldsTheSameBytesElsewhere) {
    Reset();
    unsigned char *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
    unsigned char *view = static_cast<unsigned char *>(sim_device_view(d + 8));
    ASSERT_NE(view, d + 8);
    EXPECT_EQ(static_cast<unsigned char *>(sim_device_view(d)) + 8, view);
    EXPECT_EQ(view[0], 0) << "fresh device memory reads as zeros";
    view[0] = 0x77;
    EXPECT_EQ(CopyBack(d, 256)[8], 0x77);
    std::vector<char> h(4);
    EXPECT_EQ(sim_device_view(h.data()), h.data()) << "host memory is its own view";
    EXPECT_EQ(sim_device_view(nullptr), nullptr);
}

TEST(DeviceMap, CopiesInEveryDirectionStillMoveTheBytes) {
    Reset();
    const size_t n = 3 * 4096 + 100;
    unsigned char *d1 = nullptr, *d2 = nullptr, *pinned = nullptr;
    ASSERT_EQ(cudaMalloc(&d1, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d2, n), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pinned, n), cudaSuccess);
    std::vector<unsigned char> pageable(n);
    for (size_t i = 0; i < n; i++) pageable[i] = static_cast<unsigned char>(i * 7 + 1);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);

    // Pageable up (staged), device to device (synchronous and on a stream), pinned down.
    ASSERT_EQ(cudaMemcpy(d1, pageable.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d2, d1, n, cudaMemcpyDeviceToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(pinned, d2, n, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(std::memcmp(pinned, pageable.data(), n), 0);

    // Pinned up on a stream, device to device on a stream and by cudaMemcpyDefault (to
    // an offset), pageable down.
    for (size_t i = 0; i < n; i++) pinned[i] = static_cast<unsigned char>(255 - i % 251);
    ASSERT_EQ(cudaMemcpyAsync(d1, pinned, n, cudaMemcpyHostToDevice, s), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d2, d1, n, cudaMemcpyDeviceToDevice, s), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d2 + 1, d1, n - 1, cudaMemcpyDefault, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::vector<unsigned char> got = CopyBack(d2, n);
    EXPECT_EQ(got[0], pinned[0]);
    EXPECT_EQ(std::memcmp(got.data() + 1, pinned, n - 1), 0);
    std::vector<unsigned char> same(n);
    ASSERT_EQ(cudaMemcpy(same.data(), d1, n, cudaMemcpyDefault), cudaSuccess);
    EXPECT_EQ(std::memcmp(same.data(), pinned, n), 0);

    // And the program's view is still closed.
    EXPECT_EXIT(HostRead(d1 + 5), ::testing::ExitedWithCode(kFaultedThere), "");
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST(DeviceMap, MemsetsStillWrite) {
    Reset();
    const size_t n = 5 * 4096 + 3;
    unsigned char *d = nullptr, *pinned = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pinned, 64), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 0xab, n), cudaSuccess);
    EXPECT_TRUE(All(CopyBack(d, n), 0xab));
    ASSERT_EQ(cudaMemsetAsync(d + 100, 0x11, 50, 0), cudaSuccess);
    std::vector<unsigned char> got = CopyBack(d, n);
    EXPECT_EQ(got[99], 0xab);
    EXPECT_EQ(got[100], 0x11);
    EXPECT_EQ(got[149], 0x11);
    EXPECT_EQ(got[150], 0xab);
    // A memset of page-locked host memory writes the host's own bytes.
    ASSERT_EQ(cudaMemset(pinned, 0x3c, 64), cudaSuccess);
    EXPECT_EQ(pinned[63], 0x3c);
    EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST(DeviceMap, KernelBodiesWriteThroughTheViewOrTheProgramsAddresses) {
    Reset();
    const size_t n = 2 * 4096 + 9;
    unsigned char *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
    ASSERT_EQ(Fill(d, n, 0x5a, true), cudaSuccess);
    EXPECT_TRUE(All(CopyBack(d, n), 0x5a));
    // A body using the program's addresses runs with device memory opened for it...
    ASSERT_EQ(Fill(d, n, 0xc3, false), cudaSuccess);
    EXPECT_TRUE(All(CopyBack(d, n), 0xc3));
    // ...and closed again after it.
    EXPECT_EXIT(HostWrite(d + n - 1), ::testing::ExitedWithCode(kFaultedThere), "");
}

TEST(DeviceMap, ResetAndReallocationGiveFreshProtectedMemory) {
    Reset();
    unsigned char *d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(cudaMemset(d, 0xff, 4096), cudaSuccess);
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    EXPECT_FALSE(sim_device_allocation_of(d, nullptr, nullptr));
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    EXPECT_TRUE(All(CopyBack(d, 4096), 0)) << "fresh device memory reads as zeros";
    EXPECT_EXIT(HostRead(d), ::testing::ExitedWithCode(kFaultedThere), "");
}

}  // namespace

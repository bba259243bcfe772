// sim/core/core_test.cc: the simulator's model on its own, with no CUDA API around it:
// ops queued on streams by index run in order within a stream and at once across
// streams, an op on the legacy stream is a barrier for blocking streams and not for
// non-blocking ones, the host's waits move its clock, and a fault stops the device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

extern "C" {
#include "sim/core/clock.h"
#include "sim/core/fault.h"
#include "sim/core/ops.h"
#include "sim/core/profile.h"
#include "sim/core/scheduler.h"
#include "sim/core/streams.h"
}

namespace {

sim_profile g_profile;
int g_fn_count;  // host functions run since the last fresh device
void CountCall(void *) { g_fn_count++; }

// The h200 profile, read from its file (the built-in copies belong to the API layer).
const sim_profile &Profile() {
    static bool loaded = false;
    if (!loaded) {
        const char *dir = std::getenv("TEST_SRCDIR");
        std::ifstream in(std::string(dir ? dir : ".") + "/streamlab/sim/profiles/h200.json");
        std::stringstream text;
        text << in.rdbuf();
        std::string json = text.str();
        char err[512];
        EXPECT_EQ(sim_profile_parse(json.data(), json.size(), "h200.json", &g_profile, err, sizeof(err)), 0) << err;
        loaded = true;
    }
    return g_profile;
}

// A fresh device: the legacy stream (0), the per-thread stream (1), and two created ones.
struct Device {
    uint32_t blocking_a, blocking_b, nonblocking;
    Device() {
        sim_sched_reset();
        sim_streams_init(reinterpret_cast<const void *>(0x2));
        sim_host_clock_reset();
        sim_fault_clear();
        sim_sched_init(&Profile());
        g_fn_count = 0;
        blocking_a = sim_streams_add(nullptr, 0, false, 0);
        blocking_b = sim_streams_add(nullptr, 0, false, 0);
        nonblocking = sim_streams_add(nullptr, 1, true, 0);
    }
};


// A host function on a stream: it takes the profile's host-function latency.
void HostFn(uint32_t stream) {
    sim_op *op = sim_op_new(SIM_OP_HOST_FN);
    op->u.host_fn.fn = CountCall;
    op->u.host_fn.data = nullptr;
    op->visible_ns = sim_host_now();
    sim_sched_enqueue(op, stream);
}

TEST(Core, OpsInOneStreamRunInOrderAndAcrossStreamsAtOnce) {
    Device d;
    double latency = Profile().host_fn_latency_ns;
    HostFn(d.blocking_a);
    HostFn(d.blocking_a);
    sim_sched_wait_stream(d.blocking_a);
    // One after the other: the second finishes a latency after the first.
    uint64_t in_order = sim_host_now();
    EXPECT_EQ(g_fn_count, 2);
    EXPECT_GE(sim_stream_at(d.blocking_a)->last_end_ns, static_cast<uint64_t>(2 * latency));

    Device e;
    HostFn(e.blocking_a);
    HostFn(e.blocking_b);
    sim_sched_wait_device();
    // At once: both finish one latency in.
    EXPECT_LT(sim_stream_at(e.blocking_b)->last_end_ns, static_cast<uint64_t>(1.5 * latency));
    EXPECT_LT(sim_host_now(), in_order);
}

TEST(Core, TheLegacyStreamIsABarrierForBlockingStreamsOnly) {
    double latency = Profile().host_fn_latency_ns;
    {
        Device d;
        HostFn(d.blocking_a);
        HostFn(SIM_STREAM_LEGACY);
        HostFn(d.blocking_b);
        sim_sched_wait_device();
        EXPECT_EQ(g_fn_count, 3);
        // b waits for the legacy op, which waits for a: three latencies in a row.
        EXPECT_GE(sim_stream_at(d.blocking_b)->last_end_ns, static_cast<uint64_t>(3 * latency));
    }
    {
        Device d;
        HostFn(d.blocking_a);
        HostFn(SIM_STREAM_LEGACY);
        HostFn(d.nonblocking);
        sim_sched_wait_device();
        // The non-blocking stream starts at once.
        EXPECT_LT(sim_stream_at(d.nonblocking)->last_end_ns, static_cast<uint64_t>(1.5 * latency));
    }
}

TEST(Core, AHostWaitMovesTheHostClockToTheCompletion) {
    Device d;
    uint64_t before = sim_host_now();
    HostFn(d.blocking_a);
    sim_sched_wait_stream(d.blocking_a);
    EXPECT_GE(sim_host_now(), before + static_cast<uint64_t>(Profile().host_fn_latency_ns));
    EXPECT_EQ(sim_sched_outstanding(), 0u);
}

TEST(Core, AFaultStopsTheDeviceUntilCleared) {
    Device d;
    EXPECT_FALSE(sim_sched_device_failed());
    sim_sched_fault(SIM_FAULT_ILLEGAL_ADDRESS, 0);
    EXPECT_TRUE(sim_sched_device_failed());
    EXPECT_EQ(sim_fault_current(), SIM_FAULT_ILLEGAL_ADDRESS);
    Device again;  // a reset of the scheduler and the fault state
    EXPECT_FALSE(sim_sched_device_failed());
    EXPECT_EQ(sim_fault_current(), SIM_FAULT_NONE);
}

}  // namespace

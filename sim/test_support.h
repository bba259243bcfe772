// sim/test_support.h: what the simulator's tests share: a fresh simulator on a chosen
// profile, the profile's figures (every expected time is derived from them), a spin
// kernel, and a recorder sink that keeps every op with its simulated times.
#ifndef STREAMLAB_SIM_TEST_SUPPORT_H
#define STREAMLAB_SIM_TEST_SUPPORT_H

#include <gtest/gtest.h>

#include <cjson/cJSON.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "sim/core/compute.h"
#include "sim/profile_choice.h"
#include "streamlab_sim.h"
#include "trace/record/recorder.h"

namespace simtest {

// Starts from a clean simulator and recorder on a profile.
inline void Reset(const char *profile = "h200") {
    sim_reset();
    trace_reset();
    ASSERT_EQ(sim_select_profile(profile), 0) << sim_last_message();
}

inline const sim_profile &Profile() { return *sim_profile_current(); }

struct Change {
    const char *section;
    const char *key;
    double value;
};

// Writes a copy of a built-in profile with some figures changed to a file in the test's
// temporary directory, and returns its path (for sim_select_profile).
inline std::string ProfileWith(std::initializer_list<Change> changes, const char *base = "h200") {
    const sim_profile_blob *blob = nullptr;
    for (size_t i = 0; i < sim_profile_blob_count; i++)
        if (std::strcmp(sim_profile_blobs[i].name, base) == 0) blob = &sim_profile_blobs[i];
    EXPECT_NE(blob, nullptr);
    if (!blob) return "";
    cJSON *root = cJSON_ParseWithLength(blob->json, blob->size);
    std::string name = base;
    for (const Change &c : changes) {
        cJSON *entry = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, c.section), c.key);
        EXPECT_NE(entry, nullptr) << c.section << "." << c.key;
        if (entry) cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(entry, "value"), c.value);
        name += std::string("-") + c.key;
    }
    char *text = cJSON_Print(root);
    const char *dir = std::getenv("TEST_TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/" + name + ".json";
    FILE *f = std::fopen(path.c_str(), "w");
    EXPECT_NE(f, nullptr) << path;
    if (f) {
        std::fputs(text, f);
        std::fclose(f);
    }
    cJSON_free(text);
    cJSON_Delete(root);
    return path;
}

inline uint64_t Ns(double ns) { return (uint64_t)std::llround(ns); }

// The shortest and longest block turnaround of any SM on the current profile.
inline double MinTurnaround() { return Profile().block_overhead_ns; }
inline double MaxTurnaround() { return Profile().block_overhead_ns + Profile().block_overhead_spread_ns; }

// A kernel whose blocks each spin for ns (a clock-based wait: device-independent time).
inline cudaError_t Spin(cudaStream_t s, double ns, unsigned blocks = 1, unsigned threads = 32,
                        const char *name = "spin") {
    sim_kernel_launch l{};
    l.name = name;
    l.grid = dim3(blocks);
    l.block = dim3(threads);
    l.cost.fixed_ns = ns;
    return sim_launch_kernel(&l, s);
}

// Keeps every recorded op; ops get their times when the simulator reports them.
class Capture {
  public:
    Capture() {
        trace_sink sink{};
        sink.ctx = this;
        sink.on_op = [](void *ctx, const trace_op *op) { static_cast<Capture *>(ctx)->ops_[op->id] = *op; };
        sink.on_timed = [](void *ctx, const trace_op *op) {
            auto *self = static_cast<Capture *>(ctx);
            self->ops_[op->id] = *op;
            self->timed_order_.push_back(op->id);
        };
        EXPECT_EQ(trace_add_sink(&sink), 0);
    }
    ~Capture() { trace_remove_sink(this); }
    Capture(const Capture &) = delete;
    Capture &operator=(const Capture &) = delete;

    const std::map<uint64_t, trace_op> &ops() const { return ops_; }
    // Ops of a kind, in program order.
    std::vector<trace_op> Of(trace_op_kind kind) const {
        std::vector<trace_op> v;
        for (const auto &kv : ops_)
            if (kv.second.kind == kind) v.push_back(kv.second);
        return v;
    }
    // The n-th (0-based) kernel named name, in program order.
    trace_op Kernel(const char *name, size_t n = 0) const {
        for (const auto &kv : ops_)
            if (kv.second.kind == TRACE_OP_KERNEL && std::strcmp(kv.second.name, name) == 0 && n-- == 0)
                return kv.second;
        ADD_FAILURE() << "no kernel " << name;
        return trace_op{};
    }
    const std::vector<uint64_t> &timed_order() const { return timed_order_; }

  private:
    std::map<uint64_t, trace_op> ops_;
    std::vector<uint64_t> timed_order_;
};

}  // namespace simtest

#endif

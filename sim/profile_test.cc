// sim/profile_test.cc: device profiles. The built-in ones load and describe a clearly
// simulated device; STREAMLAB_PROFILE or sim_select_profile picks one (h200 by default),
// by name or path; broken profile files are refused with a message that says what is
// wrong; the profile cannot change under live allocations; cudaGetDeviceProperties and
// cudaDeviceGetAttribute report the profile.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/test_support.h"

namespace {

using simtest::Profile;
using simtest::ProfileWith;
using simtest::Reset;

std::string WriteFile(const char *name, const std::string &text) {
    const char *dir = std::getenv("TEST_TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/" + name;
    FILE *f = std::fopen(path.c_str(), "w");
    EXPECT_NE(f, nullptr);
    if (f) {
        std::fputs(text.c_str(), f);
        std::fclose(f);
    }
    return path;
}

std::string BuiltIn(const char *name) {
    for (size_t i = 0; i < sim_profile_blob_count; i++)
        if (std::string(sim_profile_blobs[i].name) == name)
            return std::string(sim_profile_blobs[i].json, sim_profile_blobs[i].size);
    return "";
}

// Restores STREAMLAB_PROFILE after a test that changes it.
class EnvProfile {
  public:
    EnvProfile() {
        const char *v = std::getenv("STREAMLAB_PROFILE");
        had_ = v != nullptr;
        if (v) old_ = v;
    }
    ~EnvProfile() {
        if (had_)
            setenv("STREAMLAB_PROFILE", old_.c_str(), 1);
        else
            unsetenv("STREAMLAB_PROFILE");
        sim_reset();
    }

  private:
    bool had_ = false;
    std::string old_;
};

TEST(Profiles, EveryBuiltInProfileLoadsAndSaysItIsSimulated) {
    const char *const *names = sim_profile_names();
    int n = 0;
    for (; names[n]; n++) {
        Reset(names[n]);
        EXPECT_STREQ(sim_profile_name(), names[n]);
        cudaDeviceProp prop;
        ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
        EXPECT_NE(std::string(prop.name).find("(simulated)"), std::string::npos) << prop.name;
        EXPECT_EQ(prop.multiProcessorCount, (int)Profile().sm_count);
        EXPECT_EQ(prop.concurrentKernels, 1);
        EXPECT_GE(prop.asyncEngineCount, 1);
        EXPECT_GT(prop.totalGlobalMem, (size_t)1 << 30);
    }
    EXPECT_GE(n, 4);
    for (const char *want : {"h200", "h100", "a100", "l4"}) EXPECT_NE(BuiltIn(want), "") << want;
}

TEST(Profiles, H200IsTheDefault) {
    EnvProfile keep;
    unsetenv("STREAMLAB_PROFILE");
    sim_reset();
    EXPECT_STREQ(sim_profile_name(), "h200");
    int least = 1, greatest = 1;
    ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    EXPECT_EQ(least, 0);
    EXPECT_EQ(greatest, -5);
}

TEST(Profiles, TheEnvironmentChoosesTheProfile) {
    EnvProfile keep;
    setenv("STREAMLAB_PROFILE", "l4", 1);
    sim_reset();
    EXPECT_STREQ(sim_profile_name(), "l4");
    setenv("STREAMLAB_PROFILE", ProfileWith({{"device", "sm_count", 7}}).c_str(), 1);
    sim_reset();
    int sms = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    EXPECT_EQ(sms, 7) << "a path works too";
}

TEST(Profiles, AnUnknownEnvironmentProfileFailsInitialisationWithAMessage) {
    EnvProfile keep;
    setenv("STREAMLAB_PROFILE", "h9000", 1);
    sim_reset();
    int n = 0;
    EXPECT_EQ(cudaGetDeviceCount(&n), cudaErrorInitializationError);
    EXPECT_EQ(sim_profile_name(), nullptr);
    std::string msg = sim_last_message();
    EXPECT_NE(msg.find("h9000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("h200"), std::string::npos) << "it lists the known ones: " << msg;
}

TEST(Profiles, SelectingAnUnknownNameListsTheKnownOnes) {
    sim_reset();
    EXPECT_EQ(sim_select_profile("v100"), -1);
    std::string msg = sim_last_message();
    EXPECT_NE(msg.find("v100"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a100"), std::string::npos) << msg;
    EXPECT_EQ(sim_select_profile(nullptr), -1);
    EXPECT_EQ(sim_select_profile(""), -1);
}

void ExpectRejected(const std::string &text, const char *mentions) {
    sim_reset();
    std::string path = WriteFile("bad.json", text);
    EXPECT_EQ(sim_select_profile(path.c_str()), -1);
    std::string msg = sim_last_message();
    EXPECT_NE(msg.find(mentions), std::string::npos) << "message: " << msg;
}

std::string Replace(std::string s, const std::string &from, const std::string &to) {
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
}

TEST(Profiles, BrokenProfileFilesAreRefusedWithAClearMessage) {
    std::string good = BuiltIn("h200");
    ASSERT_FALSE(good.empty());
    ExpectRejected("{ not json", "not valid JSON");
    ExpectRejected("[1, 2]", "JSON object");
    ExpectRejected(Replace(good, "\"sm_count\"", "\"sm_cuont\""), "sm_cuont");
    ExpectRejected(Replace(good, "\"sm_count\": {\"value\": 132", "\"sm_count\": {\"value\": -3"), "sm_count");
    ExpectRejected(Replace(good, "\"sm_count\": {\"value\": 132", "\"sm_count\": {\"value\": 13.5"), "whole number");
    ExpectRejected(Replace(good, "\"sm_count\": {\"value\": 132", "\"sm_count\": {\"value\": \"many\""), "sm_count");
    ExpectRejected(Replace(good, "\"priority_greatest\": {\"value\": -5", "\"priority_greatest\": {\"value\": 3"),
                   "priority_greatest");
    ExpectRejected(Replace(good, "\"name\": \"h200\"", "\"nom\": \"h200\""), "\"name\"");
    sim_reset();
    EXPECT_EQ(sim_select_profile("/nonexistent/dir/profile.json"), -1);
    EXPECT_NE(std::string(sim_last_message()).find("cannot open"), std::string::npos) << sim_last_message();
}

// Erases the entry `key` (one line of a built-in profile) from text.
std::string Without(std::string s, const std::string &key) {
    size_t at = s.find("\"" + key + "\"");
    EXPECT_NE(at, std::string::npos) << key;
    if (at == std::string::npos) return s;
    size_t line = s.rfind('\n', at);
    s.erase(line, s.find('\n', at) - line);
    return s;
}

// A profile written before cudaFreeHost had a fixed cost of its own (a calibration by an
// older //sim:calibrate) still loads, and its cudaFreeHost pays free_ns as it did then; a
// parameter with nothing to stand for it must still be there.
TEST(Profiles, AProfileWithoutFreeHostNsChargesFreeNsForIt) {
    std::string good = BuiltIn("h200");
    sim_profile p;
    char err[512] = "";
    std::string old = Without(good, "free_host_ns");
    ASSERT_EQ(sim_profile_parse(old.data(), old.size(), "old.json", &p, err, sizeof(err)), 0) << err;
    EXPECT_EQ(p.free_host_ns, p.free_ns);
    std::string neither = Without(old, "free_ns");
    EXPECT_EQ(sim_profile_parse(neither.data(), neither.size(), "old.json", &p, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("parameter \"host.free_ns\" is missing"), std::string::npos) << err;
}

TEST(Profiles, EveryFigureMustSayWhereItComesFrom) {
    std::string good = BuiltIn("h200");
    size_t at = good.find("\"launch_ns\"");
    ASSERT_NE(at, std::string::npos);
    size_t src = good.find("\"source\"", at);
    size_t end = good.find('}', src);
    std::string bad = good.substr(0, src - 2) + good.substr(end);
    ExpectRejected(bad, "launch_ns");
}

TEST(Profiles, TheProfileCannotChangeUnderLiveAllocations) {
    Reset("h200");
    void *d;
    ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
    EXPECT_EQ(sim_select_profile("l4"), -1);
    EXPECT_NE(std::string(sim_last_message()).find("in use"), std::string::npos) << sim_last_message();
    EXPECT_STREQ(sim_profile_name(), "h200");
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    EXPECT_EQ(sim_select_profile("l4"), 0) << sim_last_message();
    EXPECT_STREQ(sim_profile_name(), "l4");
}

TEST(Profiles, PropertiesAndAttributesComeFromTheProfile) {
    Reset("a100");
    const sim_profile &p = Profile();
    cudaDeviceProp prop;
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    EXPECT_STREQ(prop.name, p.device_name);
    EXPECT_EQ(prop.major, (int)p.compute_major);
    EXPECT_EQ(prop.minor, (int)p.compute_minor);
    EXPECT_EQ(prop.totalGlobalMem, (size_t)p.total_global_mem);
    EXPECT_EQ(prop.maxThreadsPerMultiProcessor, (int)p.max_threads_per_sm);
    EXPECT_EQ(prop.maxBlocksPerMultiProcessor, (int)p.max_blocks_per_sm);
    EXPECT_EQ(prop.sharedMemPerMultiprocessor, (size_t)p.shared_mem_per_sm);
    EXPECT_EQ(prop.l2CacheSize, (int)p.l2_cache_bytes);
    EXPECT_EQ(prop.asyncEngineCount, (int)p.async_engine_count);
    int v = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0), cudaSuccess);
    EXPECT_EQ(v, (int)p.clock_khz);
    ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    EXPECT_EQ(v, (int)p.compute_major);
    ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
    EXPECT_EQ(v, (int)p.shared_mem_per_block_optin);
}

TEST(Profiles, HostCopyCostFollowsTheProfile) {
    Reset();
    EXPECT_EQ(sim_host_copy_ns(1000000), simtest::Ns(sim_profile_host_copy_ns(&Profile(), 1000000)));
    EXPECT_GT(sim_host_copy_ns(1 << 20), 0u);
    uint64_t t0 = sim_now_ns();
    sim_host_work(12345);
    EXPECT_EQ(sim_now_ns() - t0, 12345u);
}

}  // namespace

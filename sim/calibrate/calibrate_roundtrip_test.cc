// sim/calibrate/calibrate_roundtrip_test.cc: the calibrator, run against the simulator
// under each built-in profile, recovers that profile's values. Each calibration takes a
// different built-in profile as its base, so a value can only come out right by being
// measured: every value the written profile marks "measured" must be within 5% of the
// calibrated profile's (an intercept of 0 within 5% of its per-MiB partner's: under 5% of
// one MiB's cost; any other 0 exactly), every point of the curves it writes (the pageable
// copies', the host's memcpy's, cudaMalloc's and cudaFree's, the device's wake-up's) within
// 5% of what the calibrated profile gives for that size or idle (its own curve, or its line
// or rate when it has none; a wake point 200 ns more), at least 30 values must be measured, and the calibrator must reproduce its
// own figures (exit status 0). The host-device round-trip values (submission, wake-up,
// queries, host functions, graphs) are the same in every built-in profile, so they are also
// recovered from a profile whose values no built-in one has. Bad input (an unknown flag, a
// malformed --profile or --base file) is refused with a message and exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/profile_choice.h"

namespace {

std::string runfile(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    const char *ws = std::getenv("TEST_WORKSPACE");
    if (dir && ws) return std::string(dir) + "/" + ws + "/" + rel;
    return rel;
}

std::string tmpdir() {
    const char *t = std::getenv("TEST_TMPDIR");
    return t ? t : "/tmp";
}

// Runs the simulator build of the calibrator; returns its exit status, output in *out.
int calibrate(const std::string &args, std::string *out) {
    std::string cmd = runfile("sim/calibrate_sim") + " " + args + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    char buf[4096];
    size_t n;
    out->clear();
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string builtin(const std::string &name) {
    for (size_t i = 0; i < sim_profile_blob_count; i++)
        if (name == sim_profile_blobs[i].name) return std::string(sim_profile_blobs[i].json, sim_profile_blobs[i].size);
    return "";
}

std::string slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The values the round-trip probes measure: every calibration must mark them measured.
const char *const kRoundTripKeys[][2] = {
    {"host", "query_ns"},         {"host", "query_pending_ns"},   {"host", "stream_query_ns"},
    {"host", "submit_latency_ns"},  {"host", "sync_wake_ns"},
    {"host", "host_func_call_ns"}, {"host", "host_fn_latency_ns"}, {"host", "graph_launch_ns"},
    {"host", "graph_instantiate_ns_per_node"}, {"compute", "graph_kernel_overhead_ns"},
    {"compute", "kernel_queued_overhead_ns"}, {"host", "graph_submit_latency_ns"},
};

bool marked_measured(const cJSON *profile, const char *section, const char *key) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(profile, section), key);
    return e && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "measured"));
}

class RoundTrip : public ::testing::TestWithParam<size_t> {};

TEST_P(RoundTrip, RecoversTheProfilesMeasuredValues) {
    size_t i = GetParam();
    std::string name = sim_profile_blobs[i].name;
    std::string base = sim_profile_blobs[(i + 1) % sim_profile_blob_count].name;
    ASSERT_NE(name, base) << "needs two built-in profiles";
    std::string path = tmpdir() + "/roundtrip_" + name + ".json", out;
    int rc = calibrate("--profile=" + name + " --base=" + base + " --name=rt_" + name + " --quick --out " + path, &out);
    EXPECT_EQ(rc, 0) << out;

    cJSON *want = cJSON_Parse(builtin(name).c_str());
    std::string text = slurp(path);
    cJSON *got = cJSON_Parse(text.c_str());
    ASSERT_TRUE(want != nullptr);
    ASSERT_TRUE(got != nullptr) << "no profile written at " << path << "\n" << out;
    const cJSON *base_item = cJSON_GetObjectItemCaseSensitive(got, "base");
    ASSERT_TRUE(cJSON_IsString(base_item));
    EXPECT_EQ(std::string(base_item->valuestring), base);
    EXPECT_EQ(std::string(cJSON_GetObjectItemCaseSensitive(got, "name")->valuestring), "rt_" + name);

    // A value the base profile itself marks measured (measured on its own machine by another
    // probe) keeps its mark and its source in the output: not one this run measured.
    cJSON *base_json = cJSON_Parse(builtin(base).c_str());
    ASSERT_TRUE(base_json != nullptr);
    sim_profile want_profile;
    char perr[1024];
    std::string want_text = builtin(name);
    ASSERT_EQ(sim_profile_parse(want_text.data(), want_text.size(), name.c_str(), &want_profile, perr, sizeof(perr)), 0)
        << perr;
    int measured = 0, curves = 0;
    const char *sections[] = {"device", "copy", "compute", "host"};
    for (const char *sec : sections) {
        const cJSON *gs = cJSON_GetObjectItemCaseSensitive(got, sec), *ws = cJSON_GetObjectItemCaseSensitive(want, sec);
        const cJSON *bs = cJSON_GetObjectItemCaseSensitive(base_json, sec);
        const cJSON *entry;
        cJSON_ArrayForEach(entry, gs) {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(entry, "measured");
            ASSERT_TRUE(cJSON_IsBool(m)) << sec << "." << entry->string << " does not say whether it was measured";
            if (!cJSON_IsTrue(m)) continue;
            const cJSON *be = cJSON_GetObjectItemCaseSensitive(bs, entry->string);
            const cJSON *bsrc = be ? cJSON_GetObjectItemCaseSensitive(be, "source") : nullptr;
            const cJSON *gsrc = cJSON_GetObjectItemCaseSensitive(entry, "source");
            if (cJSON_IsString(bsrc) && cJSON_IsString(gsrc) && !strcmp(bsrc->valuestring, gsrc->valuestring)) continue;
            measured++;
            const cJSON *points = cJSON_GetObjectItemCaseSensitive(entry, "points");
            if (points) {
                // A pageable curve, the host's memcpy curve, a device memory curve or the wake
                // curve: each point against the profile's time for that size (or idle).
                const std::string key = entry->string;
                bool host = key == "host_copy_curve", cold = key == "host_copy_cold_curve", alloc = key == "malloc_curve", freed = key == "free_curve";
                bool wake = key == "wake_curve";
                bool h2d = entry->string[0] == 'h';
                curves++;
                EXPECT_EQ(cJSON_GetArraySize(points), host || cold || alloc || freed || wake ? 5 : 6) << entry->string;
                const cJSON *pt;
                cJSON_ArrayForEach(pt, points) {
                    double bytes = cJSON_GetArrayItem(pt, 0)->valuedouble, ns = cJSON_GetArrayItem(pt, 1)->valuedouble;
                    double t = host    ? sim_profile_host_copy_ns(&want_profile, bytes)
                               : cold  ? sim_profile_host_copy_cold_ns(&want_profile, bytes)
                               : alloc ? sim_profile_malloc_ns(&want_profile, bytes)
                               : freed ? sim_profile_free_ns(&want_profile, bytes)
                               : wake  ? sim_profile_wake_ns(&want_profile, bytes)
                                       : sim_profile_pageable_ns(&want_profile, h2d, bytes);
                    // A wake point is a difference of two rounds, the back-to-back one with a
                    // wake of its own after its few microseconds' idle (tens of ns), and the
                    // probe's idle is its sleep and that round's tail: 200 ns more.
                    EXPECT_LE(std::fabs(ns - t), 0.05 * t + (wake ? 200 : 0))
                        << name << ": " << entry->string << " at " << bytes << " bytes recovered as " << ns
                        << " ns, the profile gives " << t;
                }
                continue;
            }
            double v = cJSON_GetObjectItemCaseSensitive(entry, "value")->valuedouble;
            const cJSON *we = cJSON_GetObjectItemCaseSensitive(ws, entry->string);
            ASSERT_TRUE(we != nullptr) << entry->string;
            double t = cJSON_GetObjectItemCaseSensitive(we, "value")->valuedouble;
            double scale = std::fabs(t);
            std::string key = entry->string;
            if (t == 0) {
                // An intercept of 0: compare with its per-MiB partner's cost of one MiB. Any
                // other 0 (a priority, a compute capability's minor number) must be exact.
                std::string partner = key.size() > 3 ? key.substr(0, key.size() - 3) + "_ns_per_mib" : "";
                const cJSON *pe = cJSON_GetObjectItemCaseSensitive(ws, partner.c_str());
                scale = pe ? cJSON_GetObjectItemCaseSensitive(pe, "value")->valuedouble : 0;
            }
            if (key == "sync_wake_ns") {
                // Fitted as what a synchronised round takes beyond the submission
                // (sync_return less submit_latency_ns): a difference of two figures of a few
                // microseconds, which can be tens of nanoseconds. Its precision is the round's.
                const cJSON *se = cJSON_GetObjectItemCaseSensitive(ws, "submit_latency_ns");
                ASSERT_TRUE(se != nullptr);
                scale = t + cJSON_GetObjectItemCaseSensitive(se, "value")->valuedouble;
            }
            EXPECT_LE(std::fabs(v - t), 0.05 * scale)
                << name << ": " << sec << "." << key << " recovered as " << v << ", the profile says " << t;
        }
    }
    EXPECT_GE(measured, 30) << "too few values measured";
    for (const auto &k : kRoundTripKeys)
        EXPECT_TRUE(marked_measured(got, k[0], k[1])) << name << ": " << k[0] << "." << k[1] << " not measured";
    EXPECT_EQ(curves, 7) << "the calibrator writes both pageable curves, the host's two memcpy curves, the cudaMalloc "
                            "and cudaFree curves and the wake curve";
    cJSON_Delete(base_json);
    cJSON_Delete(want);
    cJSON_Delete(got);

    // The written profile is one the simulator takes.
    sim_profile p;
    char err[1024];
    EXPECT_EQ(sim_profile_parse(text.data(), text.size(), path.c_str(), &p, err, sizeof(err)), 0) << err;
}

INSTANTIATE_TEST_SUITE_P(EachBuiltInProfile, RoundTrip, ::testing::Range<size_t>(0, sim_profile_blob_count),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                             return std::string(sim_profile_blobs[info.param].name);
                         });

// The round-trip values of the h100 profile scaled, each by its own factor, to values no
// built-in profile has (the host function's latency to the 0.2-0.3 ms a quick host function
// held its stream on an H200), calibrated with h200 as the base: each must come back within
// 5%, and with them the pageable curves, whose points are host times less submission and
// wake-up.
TEST(RoundTripHostLatencies, RecoversValuesNoBuiltInProfileHas) {
    const struct {
        const char *section, *key;
        double factor;
    } scaled[] = {
        {"host", "submit_latency_ns", 1.7},   {"host", "sync_wake_ns", 1.6},
        {"host", "host_fn_latency_ns", 46},   {"host", "host_func_call_ns", 0.65},
        {"host", "query_ns", 1.5},            {"host", "query_pending_ns", 0.8},
        {"host", "stream_query_ns", 1.2},     {"host", "graph_launch_ns", 1.5},
        {"host", "graph_instantiate_ns_per_node", 0.6}, {"compute", "graph_kernel_overhead_ns", 0.8},
        {"compute", "kernel_queued_overhead_ns", 0.3}, {"host", "graph_submit_latency_ns", 1.4},
    };
    ASSERT_EQ(sizeof(scaled) / sizeof(scaled[0]), sizeof(kRoundTripKeys) / sizeof(kRoundTripKeys[0]));
    cJSON *want = cJSON_Parse(builtin("h100").c_str());
    cJSON *base = cJSON_Parse(builtin("h200").c_str());
    ASSERT_TRUE(want != nullptr && base != nullptr);
    for (const auto &v : scaled) {
        cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, v.section), v.key);
        cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(base, v.section), v.key);
        ASSERT_TRUE(e != nullptr && b != nullptr) << v.key;
        double value = cJSON_GetObjectItemCaseSensitive(e, "value")->valuedouble * v.factor;
        ASSERT_GT(std::fabs(value - cJSON_GetObjectItemCaseSensitive(b, "value")->valuedouble), 0.1 * value)
            << v.key << ": the base's value is too close to tell measuring from copying";
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "value"), value);
    }
    char *text = cJSON_Print(want);
    std::string variant = tmpdir() + "/h100_scaled.json", path = tmpdir() + "/roundtrip_h100_scaled.json", out;
    std::ofstream(variant) << text;
    sim_profile want_profile;
    char err[1024];
    ASSERT_EQ(sim_profile_parse(text, std::strlen(text), variant.c_str(), &want_profile, err, sizeof(err)), 0) << err;
    cJSON_free(text);
    int rc = calibrate("--profile=" + variant + " --base=h200 --quick --out " + path, &out);
    EXPECT_EQ(rc, 0) << out;
    cJSON *got = cJSON_Parse(slurp(path).c_str());
    ASSERT_TRUE(got != nullptr) << "no profile written at " << path << "\n" << out;
    for (const auto &v : scaled) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(got, v.section), v.key);
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(want, v.section), v.key);
        ASSERT_TRUE(g != nullptr) << v.key;
        EXPECT_TRUE(marked_measured(got, v.section, v.key)) << v.key;
        double gv = cJSON_GetObjectItemCaseSensitive(g, "value")->valuedouble;
        double wv = cJSON_GetObjectItemCaseSensitive(w, "value")->valuedouble;
        EXPECT_LE(std::fabs(gv - wv), 0.05 * wv) << v.section << "." << v.key << " recovered as " << gv << ", the "
                                                 << "profile says " << wv;
    }
    for (const char *key : {"h2d_pageable_curve", "d2h_pageable_curve"}) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(got, "copy"), key);
        ASSERT_TRUE(c != nullptr) << key;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(c, "points")) {
            double bytes = cJSON_GetArrayItem(pt, 0)->valuedouble, ns = cJSON_GetArrayItem(pt, 1)->valuedouble;
            double t = sim_profile_pageable_ns(&want_profile, key[0] == 'h', bytes);
            EXPECT_LE(std::fabs(ns - t), 0.05 * t) << key << " at " << bytes << " bytes recovered as " << ns
                                                   << " ns, the profile gives " << t;
        }
    }
    cJSON_Delete(got);
    cJSON_Delete(base);
    cJSON_Delete(want);
}

TEST(CalibrateOptions, UnknownFlagIsRefused) {
    std::string out;
    EXPECT_EQ(calibrate("--out /dev/null --frobnicate", &out), 2);
    EXPECT_NE(out.find("unknown option --frobnicate"), std::string::npos) << out;
}

TEST(CalibrateOptions, MissingOutIsRefused) {
    std::string out;
    EXPECT_EQ(calibrate("--quick", &out), 2);
    EXPECT_NE(out.find("--out FILE"), std::string::npos) << out;
}

TEST(CalibrateOptions, MalformedProfileFileIsRefused) {
    std::string path = tmpdir() + "/broken.json";
    std::ofstream(path) << "{\"name\": \"broken\", ";
    std::string out;
    EXPECT_EQ(calibrate("--profile=" + path + " --out " + tmpdir() + "/x.json", &out), 2);
    EXPECT_NE(out.find("not valid JSON"), std::string::npos) << out;
}

TEST(CalibrateOptions, MalformedBaseFileIsRefusedBeforeMeasuring) {
    std::string path = tmpdir() + "/broken_base.json";
    std::string h200 = builtin("h200");
    size_t at = h200.find("\"value\"");
    ASSERT_NE(at, std::string::npos);
    h200.replace(at, 7, "\"valeu\"");
    std::ofstream(path) << h200;
    std::string out;
    EXPECT_EQ(calibrate("--base=" + path + " --out " + tmpdir() + "/y.json", &out), 2);
    EXPECT_NE(out.find("--base=" + path), std::string::npos) << out;
    EXPECT_EQ(out.find("repetition"), std::string::npos) << "measured before checking the base:\n" << out;
}

TEST(CalibrateOptions, UnknownBaseNameIsRefused) {
    std::string out;
    EXPECT_EQ(calibrate("--base=v100 --out " + tmpdir() + "/z.json", &out), 2);
    EXPECT_NE(out.find("unknown base profile \"v100\""), std::string::npos) << out;
}

}  // namespace

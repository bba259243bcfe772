// sim/core/profile_curve_test.cc: the pageable copy curves of a profile. A curve is read
// from its [bytes, ns] points; between two points the time is interpolated, below the
// smallest size it is the smallest size's, above the largest the extra bytes go at the
// direction's pageable rate. A profile with both curves uses them, one without any keeps
// its line (set-up + staging + bytes at the rate), one with a single curve is refused; a
// curve that is empty, unsorted, negative, non-numeric, oversized or without a source is
// refused with a message naming the entry and the point. The host section's memcpy curve
// ("host_copy_curve") is read the same way; below its smallest point a copy costs its share
// of that point's time, above the largest the extra bytes go at host_memcpy_gbps, and a
// profile without it charges every byte at that rate; its cold curve ("host_copy_cold_curve",
// memory no cache holds) never charges less than it, and without the cold curve the same. The cudaMalloc and cudaFree curves
// ("malloc_curve", "free_curve") may fall as the sizes grow; below the smallest size a call
// costs that size's time, past the largest the last segment's rate carries it on.
#include <gtest/gtest.h>

#include <cjson/cJSON.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/profile.h"
#include "sim/core/profile_curve.h"

namespace {

// Parses one curve entry given as JSON text; returns the parser's status, *err its message.
int ParseCurve(const std::string &entry_json, sim_pageable_curve *c, std::string *err) {
    cJSON *entry = cJSON_Parse(entry_json.c_str());
    EXPECT_NE(entry, nullptr) << entry_json;
    char buf[512] = "";
    static const sim_curve_axis kCopy = {"bytes", "a larger copy cannot take less"};
    int rc = sim_profile_parse_curve(entry, "test.json", "copy", "h2d_pageable_curve", &kCopy, c, buf, sizeof(buf));
    cJSON_Delete(entry);
    *err = buf;
    return rc;
}

std::string H200Text() {
    const char *dir = std::getenv("TEST_SRCDIR");
    std::ifstream in(std::string(dir ? dir : ".") + "/streamlab/sim/profiles/h200.json");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// h200.json with its copy section's curve entries taken out (and, if given, new text put in
// their place).
std::string H200WithCurves(const std::string &curves) {
    std::string s = H200Text();
    for (const char *key : {"\"h2d_pageable_curve\"", "\"d2h_pageable_curve\""}) {
        size_t at = s.find(key);
        EXPECT_NE(at, std::string::npos) << "h200.json has no " << key;
        if (at == std::string::npos) return s;
        size_t line = s.rfind('\n', at);
        size_t end = s.find('\n', at);
        s.erase(line, end - line);
    }
    // The entry before the curves lost its trailing comma's partner: the copy section now
    // ends with "pageable_fixed_ns": {...},  -- remove that comma, or put the new text after.
    size_t fixed = s.find("\"pageable_fixed_ns\"");
    size_t eol = s.find('\n', fixed);
    if (s[eol - 1] == ',') s.erase(eol - 1, 1), eol--;
    if (!curves.empty()) s.insert(eol, ",\n" + curves);
    return s;
}

int ParseProfile(const std::string &json, sim_profile *p, std::string *err) {
    char buf[1024] = "";
    int rc = sim_profile_parse(json.data(), json.size(), "test.json", p, buf, sizeof(buf));
    *err = buf;
    return rc;
}

const char *kThreePoints = R"({"points": [[65536, 20000], [262144, 30000], [1048576, 100000]], "source": "test"})";

TEST(PageableCurve, InterpolatesBetweenPoints) {
    sim_pageable_curve c;
    std::string err;
    ASSERT_EQ(ParseCurve(kThreePoints, &c, &err), 0) << err;
    ASSERT_EQ(c.n, 3);
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 65536, 10.0), 20000);
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 262144, 10.0), 30000);
    // Halfway between 64 and 256 KiB, and a quarter of the way from 256 KiB to 1 MiB.
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 163840, 10.0), 25000);
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 262144 + 196608, 10.0), 47500);
}

TEST(PageableCurve, BelowTheSmallestSizeTakesItsTime) {
    sim_pageable_curve c;
    std::string err;
    ASSERT_EQ(ParseCurve(kThreePoints, &c, &err), 0) << err;
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 4, 10.0), 20000);
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 65535, 10.0), 20000);
}

TEST(PageableCurve, AboveTheLargestSizeTheExtraBytesGoAtTheRate) {
    sim_pageable_curve c;
    std::string err;
    ASSERT_EQ(ParseCurve(kThreePoints, &c, &err), 0) << err;
    // 1 MiB more than the last point at 8 GB/s (bytes per ns): 131072 ns more.
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 2097152, 8.0), 100000 + 131072);
}

TEST(PageableCurve, OnePointIsACurve) {
    sim_pageable_curve c;
    std::string err;
    ASSERT_EQ(ParseCurve(R"({"points": [[1000, 5000]], "source": "s", "measured": false})", &c, &err), 0) << err;
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 10, 1.0), 5000);
    EXPECT_DOUBLE_EQ(sim_curve_ns(&c, 3000, 1.0), 7000);
}

struct BadCurve {
    const char *json;
    const char *message;
};

class BadCurves : public ::testing::TestWithParam<BadCurve> {};

TEST_P(BadCurves, AreRefusedWithAClearMessage) {
    sim_pageable_curve c;
    std::string err;
    EXPECT_EQ(ParseCurve(GetParam().json, &c, &err), -1);
    EXPECT_NE(err.find("profile test.json: \"copy.h2d_pageable_curve\""), std::string::npos) << err;
    EXPECT_NE(err.find(GetParam().message), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(
    Parsing, BadCurves,
    ::testing::Values(
        BadCurve{R"({"points": [], "source": "s"})", "\"points\" is empty"},
        BadCurve{R"({"points": [[262144, 30000], [65536, 20000]], "source": "s"})",
                 "point 2's bytes (65536) must be larger than point 1's (262144)"},
        BadCurve{R"({"points": [[65536, 20000], [65536, 30000]], "source": "s"})",
                 "point 2's bytes (65536) must be larger than point 1's"},
        BadCurve{R"({"points": [[65536, 30000], [262144, 20000]], "source": "s"})",
                 "a larger copy cannot take less"},
        BadCurve{R"({"points": [[65536, -1]], "source": "s"})", "point 1's time -1 must be from 0 to 1e12 ns"},
        BadCurve{R"({"points": [[-65536, 10]], "source": "s"})", "point 1's bytes -65536 must be a whole number"},
        BadCurve{R"({"points": [[1.5, 10]], "source": "s"})", "point 1's bytes 1.5 must be a whole number"},
        BadCurve{R"({"points": [[65536, "20 us"]], "source": "s"})", "point 1 must be a pair of numbers [bytes, ns]"},
        BadCurve{R"({"points": [[65536, 1, 2]], "source": "s"})", "point 1 must be a pair of numbers"},
        BadCurve{R"({"points": [65536], "source": "s"})", "point 1 must be a pair of numbers"},
        BadCurve{R"({"points": "fast", "source": "s"})", "has no \"points\""},
        BadCurve{R"({"points": [[65536, 1]]})", "has no \"source\""},
        BadCurve{R"({"points": [[65536, 1]], "source": "s", "value": 3})", "unknown field \"value\""},
        BadCurve{R"({"points": [[65536, 1]], "source": "s", "measured": 1})", "\"measured\" must be true or false"},
        BadCurve{R"([[65536, 1]])", "must be {\"points\""},
        BadCurve{R"({"points": [[1,1],[2,1],[3,1],[4,1],[5,1],[6,1],[7,1],[8,1],[9,1],[10,1],[11,1],[12,1],
                                [13,1],[14,1],[15,1],[16,1],[17,1]], "source": "s"})",
                 "has 17 points, at most 16"}));

TEST(PageableCurveInAProfile, TheBuiltInH200UsesItsCurves) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200Text(), &p, &err), 0) << err;
    ASSERT_GT(p.h2d_pageable_curve.n, 1);
    ASSERT_GT(p.d2h_pageable_curve.n, 1);
    const double b = p.h2d_pageable_curve.bytes[1];
    EXPECT_DOUBLE_EQ(sim_profile_pageable_ns(&p, true, b), p.h2d_pageable_curve.ns[1]);
    EXPECT_DOUBLE_EQ(sim_profile_pageable_ns(&p, false, b), p.d2h_pageable_curve.ns[1]);
}

TEST(PageableCurveInAProfile, WithoutCurvesAProfileKeepsItsLine) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200WithCurves(""), &p, &err), 0) << err;
    EXPECT_EQ(p.h2d_pageable_curve.n, 0);
    EXPECT_EQ(p.d2h_pageable_curve.n, 0);
    const double b = 1 << 20;
    EXPECT_DOUBLE_EQ(sim_profile_pageable_ns(&p, true, b),
                     p.h2d_fixed_ns + p.pageable_fixed_ns + b / p.h2d_pageable_gbps);
    EXPECT_DOUBLE_EQ(sim_profile_pageable_ns(&p, false, b),
                     p.d2h_fixed_ns + p.pageable_fixed_ns + b / p.d2h_pageable_gbps);
}

TEST(PageableCurveInAProfile, OneCurveWithoutTheOtherIsRefused) {
    sim_profile p;
    std::string err;
    std::string one = std::string("    \"d2h_pageable_curve\": ") + kThreePoints;
    EXPECT_EQ(ParseProfile(H200WithCurves(one), &p, &err), -1);
    EXPECT_NE(err.find("\"copy.d2h_pageable_curve\" is given without \"copy.h2d_pageable_curve\""),
              std::string::npos)
        << err;
}

TEST(PageableCurveInAProfile, ABadCurveNamesTheProfile) {
    sim_profile p;
    std::string err;
    std::string bad = std::string("    \"h2d_pageable_curve\": ") + kThreePoints +
                      ",\n    \"d2h_pageable_curve\": {\"points\": [[65536, 5], [1024, 6]], \"source\": \"s\"}";
    EXPECT_EQ(ParseProfile(H200WithCurves(bad), &p, &err), -1);
    EXPECT_NE(err.find("profile test.json: \"copy.d2h_pageable_curve\": point 2's bytes (1024)"),
              std::string::npos)
        << err;
}

TEST(PageableCurveInAProfile, ACurveOutsideTheCopySectionIsAnUnknownParameter) {
    sim_profile p;
    std::string err;
    std::string s = H200Text();
    size_t host = s.find("\"host\": {");
    ASSERT_NE(host, std::string::npos);
    s.insert(host + 9, std::string("\n    \"h2d_pageable_curve\": ") + kThreePoints + ",");
    EXPECT_EQ(ParseProfile(s, &p, &err), -1);
    EXPECT_NE(err.find("unknown parameter \"host.h2d_pageable_curve\""), std::string::npos) << err;
}

// h200.json with its host section's curve `key` taken out (and, if given, new text put in its
// place, with the comma it had): whether it is the section's last entry or not.
std::string H200WithCurve(const std::string &key, const std::string &curve) {
    std::string s = H200Text();
    size_t at = s.find("\"" + key + "\"");
    EXPECT_NE(at, std::string::npos) << "h200.json has no " << key;
    if (at == std::string::npos) return s;
    size_t line = s.rfind('\n', at);
    size_t end = s.find('\n', at);
    const bool last = s[end - 1] != ',';
    s.erase(line, end - line);
    if (curve.empty()) {
        // The entry before the section's last one keeps no trailing comma.
        if (last) s.erase(s.rfind(',', line), 1);
        return s;
    }
    s.insert(line, "\n    \"" + key + "\": " + curve + (last ? "" : ","));
    return s;
}

// h200.json with its host copy curve (the host section's last entry) replaced or taken out.
std::string H200WithHostCurve(const std::string &curve) { return H200WithCurve("host_copy_curve", curve); }

TEST(HostCopyCurve, TheBuiltInH200ChargesItsPoints) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200Text(), &p, &err), 0) << err;
    const sim_pageable_curve &c = p.host_copy_curve;
    ASSERT_GT(c.n, 1);
    for (int i = 0; i < c.n; i++) EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, c.bytes[i]), c.ns[i]) << i;
    // A memcpy has no fixed cost: half the smallest point's bytes, half its time.
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, c.bytes[0] / 2), c.ns[0] / 2);
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, 0), 0);
    // Past the largest point, the extra bytes at host_memcpy_gbps.
    const double last = c.bytes[c.n - 1];
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, 2 * last), c.ns[c.n - 1] + last / p.host_memcpy_gbps);
}

TEST(HostCopyCurve, InterpolatesBetweenPoints) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200WithHostCurve(kThreePoints), &p, &err), 0) << err;
    ASSERT_EQ(p.host_copy_curve.n, 3);
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, 163840), 25000);
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, 32768), 10000);
}

TEST(HostCopyCurve, WithoutItEveryByteGoesAtTheRate) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200WithHostCurve(""), &p, &err), 0) << err;
    EXPECT_EQ(p.host_copy_curve.n, 0);
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_ns(&p, 1 << 20), (1 << 20) / p.host_memcpy_gbps);
}

TEST(HostCopyCurve, ABadCurveNamesItsSection) {
    sim_profile p;
    std::string err;
    EXPECT_EQ(ParseProfile(H200WithHostCurve(R"({"points": [[65536, 5], [1024, 6]], "source": "s"})"), &p, &err), -1);
    EXPECT_NE(err.find("profile test.json: \"host.host_copy_curve\": point 2's bytes (1024)"), std::string::npos)
        << err;
}

// h200.json with its cold host copy curve replaced or taken out.
std::string H200WithColdCurve(const std::string &curve) { return H200WithCurve("host_copy_cold_curve", curve); }

TEST(HostCopyColdCurve, TheBuiltInH200ChargesItsPointsAndMoreThanTheWarmCurve) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200Text(), &p, &err), 0) << err;
    const sim_pageable_curve &c = p.host_copy_cold_curve;
    ASSERT_GT(c.n, 1);
    for (int i = 0; i < c.n; i++) {
        // Its point, unless the warm curve says more there: memory no cache holds is never
        // quicker to copy than memory the host wrote earlier (64 MiB overflows every cache,
        // and the two curves' 64 MiB points come from different starts).
        double warm = sim_profile_host_copy_ns(&p, c.bytes[i]);
        EXPECT_DOUBLE_EQ(sim_profile_host_copy_cold_ns(&p, c.bytes[i]), std::max(c.ns[i], warm)) << i;
        if (c.bytes[i] <= 8 << 20) {
            EXPECT_GT(c.ns[i], 1.2 * warm) << i;
        }
    }
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_cold_ns(&p, c.bytes[0] / 2), c.ns[0] / 2);
}

TEST(HostCopyColdCurve, PastItsLargestPointTheRateOfItsLastSegment) {
    sim_profile p;
    std::string err;
    // 64 KiB 20 us, 256 KiB 80 us, 1 MiB 300 us (above h200.json's warm curve throughout):
    // past 1 MiB, 768 KiB per 220 us.
    ASSERT_EQ(ParseProfile(H200WithColdCurve(
                               R"({"points": [[65536, 20000], [262144, 80000], [1048576, 300000]], "source": "t"})"),
                           &p, &err),
              0)
        << err;
    ASSERT_EQ(p.host_copy_cold_curve.n, 3);
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_cold_ns(&p, 163840), 50000);
    EXPECT_DOUBLE_EQ(sim_profile_host_copy_cold_ns(&p, 1048576 + 786432), 520000);
}

TEST(HostCopyColdCurve, WithoutItAColdCopyCostsWhatTheWarmCurveSays) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200WithColdCurve(""), &p, &err), 0) << err;
    EXPECT_EQ(p.host_copy_cold_curve.n, 0);
    for (double bytes : {4096.0, 262144.0, 8388608.0, 268435456.0})
        EXPECT_DOUBLE_EQ(sim_profile_host_copy_cold_ns(&p, bytes), sim_profile_host_copy_ns(&p, bytes)) << bytes;
}

TEST(HostCopyCurve, InTheCopySectionItIsAnUnknownParameter) {
    sim_profile p;
    std::string err;
    std::string s = H200Text();
    size_t copy = s.find("\"copy\": {");
    ASSERT_NE(copy, std::string::npos);
    s.insert(copy + 9, std::string("\n    \"host_copy_curve\": ") + kThreePoints + ",");
    EXPECT_EQ(ParseProfile(s, &p, &err), -1);
    EXPECT_NE(err.find("unknown parameter \"copy.host_copy_curve\""), std::string::npos) << err;
}

// h200.json without its cudaMalloc and cudaFree curves.
std::string H200WithoutDeviceMemoryCurves() {
    std::string s = H200Text();
    for (const char *key : {"\"malloc_curve\"", "\"free_curve\""}) {
        size_t at = s.find(key);
        EXPECT_NE(at, std::string::npos) << "h200.json has no " << key;
        if (at == std::string::npos) continue;
        size_t line = s.rfind('\n', at);
        s.erase(line, s.find('\n', at) - line);
    }
    return s;
}

// The host section of h200.json, without its device memory curves, with `entries` put first.
std::string H200WithHostEntries(const std::string &entries) {
    std::string s = H200WithoutDeviceMemoryCurves();
    size_t host = s.find("\"host\": {");
    EXPECT_NE(host, std::string::npos);
    if (host != std::string::npos) s.insert(host + 9, "\n    " + entries + ",");
    return s;
}

TEST(DeviceMemoryCurves, TheBuiltInH200ChargesItsPointsWhereverTheyFall) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200Text(), &p, &err), 0) << err;
    for (const sim_pageable_curve *c : {&p.malloc_curve, &p.free_curve}) {
        ASSERT_GT(c->n, 2);
        const bool alloc = c == &p.malloc_curve;
        for (int i = 0; i < c->n; i++)
            EXPECT_DOUBLE_EQ(alloc ? sim_profile_malloc_ns(&p, c->bytes[i]) : sim_profile_free_ns(&p, c->bytes[i]),
                             c->ns[i])
                << i;
        // A call below the smallest size costs that size's time: the call's own cost.
        EXPECT_DOUBLE_EQ(alloc ? sim_profile_malloc_ns(&p, 256) : sim_profile_free_ns(&p, 256), c->ns[0]);
    }
}

TEST(DeviceMemoryCurves, ACallsTimeMayFallAsItsSizeGrowsACopysMayNot) {
    const std::string falling = R"({"points": [[8192, 3000], [1048576, 2000], [8388608, 50000], [67108864, 70000]], )"
                                R"("source": "s"})";
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200WithHostEntries("\"malloc_curve\": " + falling + ", \"free_curve\": " + falling), &p,
                           &err),
              0)
        << err;
    EXPECT_DOUBLE_EQ(sim_profile_malloc_ns(&p, 1048576), 2000);
    EXPECT_DOUBLE_EQ(sim_profile_free_ns(&p, (8192 + 1048576) / 2.0), 2500);
    // Past the largest point, at the last segment's rate: 20 us per 56 MiB.
    EXPECT_DOUBLE_EQ(sim_profile_malloc_ns(&p, 67108864.0 + 58720256.0), 90000);
    // The same points as a copy's curve are refused.
    EXPECT_EQ(ParseProfile(H200WithHostCurve(falling), &p, &err), -1);
    EXPECT_NE(err.find("a larger copy cannot take less"), std::string::npos) << err;
}

TEST(DeviceMemoryCurves, WithoutThemACallCostsTheFixedFigure) {
    sim_profile p;
    std::string err;
    ASSERT_EQ(ParseProfile(H200WithoutDeviceMemoryCurves(), &p, &err), 0) << err;
    EXPECT_EQ(p.malloc_curve.n, 0);
    EXPECT_DOUBLE_EQ(sim_profile_malloc_ns(&p, 64 << 20), p.malloc_ns);
    EXPECT_DOUBLE_EQ(sim_profile_free_ns(&p, 8192), p.free_ns);
}

}  // namespace

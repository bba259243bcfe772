// trace/metrics_test.cc: metrics agree with a nanosecond-by-nanosecond reference on random
// timelines; the pipeline bound reproduces the measured H200 table and equals the
// makespan of an ideal three-engine pipeline schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

extern "C" {
#include "trace/view/metrics.h"
}

#include "trace/view/two_devices_test.h"

namespace {

trace_op Op(uint64_t id, trace_op_kind kind, trace_copy_dir dir, trace_engine engine, int32_t stream, uint64_t start,
            uint64_t end, int32_t batch = -1, int32_t run = -1) {
    trace_op op = {};
    op.id = id;
    op.kind = kind;
    op.dir = dir;
    op.engine = engine;
    op.stream = stream;
    op.start_ns = start;
    op.end_ns = end;
    op.batch = batch;
    op.run = run;
    op.timed = true;
    return op;
}

TEST(Metrics, AgreeWithANanosecondReferenceOnRandomTimelines) {
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 50; trial++) {
        SCOPED_TRACE(trial);
        trace_timeline *tl = trace_timeline_create();
        constexpr int kT = 3000;
        const trace_engine engines[] = {TRACE_ENGINE_H2D, TRACE_ENGINE_D2H, TRACE_ENGINE_COMPUTE, TRACE_ENGINE_HOST};
        std::vector<std::vector<bool>> eng(5, std::vector<bool>(kT, false)), str(4, std::vector<bool>(kT, false));
        uint64_t lo = kT, hi = 0;
        int n = 1 + static_cast<int>(rng() % 40);
        for (int i = 0; i < n; i++) {
            trace_engine e = engines[rng() % 4];
            int32_t s = 1 + static_cast<int32_t>(rng() % 3);
            uint64_t start = 100 + rng() % 2500, len = rng() % 300;
            trace_op_kind kind = e == TRACE_ENGINE_HOST ? TRACE_OP_API
                                 : e == TRACE_ENGINE_COMPUTE ? TRACE_OP_KERNEL
                                                             : TRACE_OP_COPY;
            trace_op op = Op(static_cast<uint64_t>(i + 1), kind, TRACE_COPY_NONE, e, kind == TRACE_OP_API ? -1 : s,
                             start, start + len);
            trace_timeline_add_op(tl, &op);
            lo = std::min(lo, start);
            hi = std::max(hi, start + len);
            for (uint64_t t = start; t < start + len; t++) {
                eng[e][t] = true;
                if (kind != TRACE_OP_API) str[s][t] = true;
            }
        }
        trace_metrics m;
        ASSERT_EQ(trace_metrics_compute(tl, TRACE_RUN_ANY, &m), 0);
        EXPECT_EQ(m.t0_ns, lo);
        EXPECT_EQ(m.makespan_ns, hi - lo);
        uint64_t overlap = 0;
        for (uint64_t t = lo; t < hi; t++)
            overlap += (eng[TRACE_ENGINE_H2D][t] + eng[TRACE_ENGINE_D2H][t] + eng[TRACE_ENGINE_COMPUTE][t]) >= 2;
        EXPECT_EQ(m.overlap_ns, overlap);
        for (trace_engine e : engines) {
            uint64_t busy = std::count(eng[e].begin(), eng[e].end(), true);
            EXPECT_EQ(m.engine[e].busy_ns, busy) << trace_engine_name(e);
            if (hi > lo) {
                EXPECT_DOUBLE_EQ(m.engine[e].utilisation, double(busy) / double(hi - lo));
            }
            // Idle gaps: the largest runs of idle nanoseconds within [t0, t1).
            std::vector<uint64_t> gaps;
            uint64_t run = 0;
            for (uint64_t t = lo; t <= hi; t++) {
                if (t < hi && !eng[e][t]) {
                    run++;
                } else if (run) {
                    gaps.push_back(run);
                    run = 0;
                }
            }
            std::sort(gaps.rbegin(), gaps.rend());
            ASSERT_EQ(m.engine[e].n_gaps, std::min<size_t>(gaps.size(), TRACE_METRICS_GAPS));
            for (size_t g = 0; g < m.engine[e].n_gaps; g++)
                EXPECT_EQ(m.engine[e].gaps[g].end_ns - m.engine[e].gaps[g].start_ns, gaps[g]);
        }
        for (int32_t s = 1; s <= 3; s++) {
            uint64_t busy = std::count(str[s].begin(), str[s].end(), true);
            if (s < m.n_streams) {
                EXPECT_EQ(m.stream[s].busy_ns, busy);
            }
        }
        trace_metrics_free(&m);
        trace_timeline_destroy(tl);
    }
}

TEST(Metrics, OneRunOnlyAndEmptySelections) {
    trace_timeline *tl = trace_timeline_create();
    trace_op a = Op(1, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 1, 0, 100, -1, 1);
    trace_op b = Op(2, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 1, 1000, 1400, -1, 2);
    trace_timeline_add_op(tl, &a);
    trace_timeline_add_op(tl, &b);
    trace_metrics m;
    ASSERT_EQ(trace_metrics_compute(tl, 2, &m), 0);
    EXPECT_EQ(m.makespan_ns, 400u);
    EXPECT_DOUBLE_EQ(m.engine[TRACE_ENGINE_COMPUTE].utilisation, 1.0);
    EXPECT_EQ(m.ops, 1u);
    trace_metrics_free(&m);
    EXPECT_EQ(trace_metrics_compute(tl, 7, &m), -1);
    trace_metrics_free(&m);
    trace_timeline_destroy(tl);
}

// docs/calibration/h200.md, "Double buffering": nb, phase times measured alone (ms),
// the measured overlapped speedup, and the table's "pipeline bound" column (which ignores
// the bidirectional slowdown).
struct Row {
    int nb;
    double h2d, kernel, d2h, measured_speedup, table_bound;
};
const Row kH200[] = {
    {8, 0.094, 0.006, 0.084, 1.64, 1.75},   {8, 0.095, 0.083, 0.083, 1.79, 2.25},
    {16, 0.320, 0.040, 0.314, 1.77, 1.97},  {16, 0.324, 0.040, 0.311, 1.84, 1.95},
    {16, 0.322, 0.040, 0.311, 1.82, 1.96},  {32, 0.320, 0.160, 0.311, 1.85, 2.36},
    {32, 0.323, 0.160, 0.311, 2.18, 2.35},
};

TEST(PipelineBound, WithoutTheBidirectionalFactorItIsTheMeasuredTablesColumn) {
    for (const Row &r : kH200) {
        trace_pipeline p = {r.h2d * 1e6, r.kernel * 1e6, r.d2h * 1e6, r.nb};
        EXPECT_NEAR(trace_pipeline_bound(&p, 1.0), r.table_bound, 0.005) << "nb " << r.nb << " h2d " << r.h2d;
    }
}

TEST(PipelineBound, TheBidirectionalFactorBringsItCloserToWhatThePipelineReached) {
    for (const Row &r : kH200) {
        trace_pipeline p = {r.h2d * 1e6, r.kernel * 1e6, r.d2h * 1e6, r.nb};
        double naive = trace_pipeline_bound(&p, 1.0);
        double bidir = trace_pipeline_bound(&p, TRACE_BIDIR_FACTOR_H200);
        EXPECT_LT(bidir, naive);
        // The naive bound overstates by at most the copy slowdown.
        EXPECT_LE(naive / bidir, 1.0 / TRACE_BIDIR_FACTOR_H200 + 1e-12);
        EXPECT_LT(std::fabs(bidir - r.measured_speedup), std::fabs(naive - r.measured_speedup))
            << "nb " << r.nb << " h2d " << r.h2d;
    }
}

TEST(PipelineBound, CopiesInOneDirectionAreNotSlowed) {
    trace_pipeline p = {300e3, 100e3, 0, 8};
    EXPECT_DOUBLE_EQ(trace_pipeline_bound(&p, TRACE_BIDIR_FACTOR_H200), trace_pipeline_bound(&p, 1.0));
    trace_pipeline empty = {1, 1, 1, 0};
    EXPECT_EQ(trace_pipeline_bound(&empty, 1.0), 0.0);
}

// Lays out an ideal pipeline (each engine takes the next batch as soon as the batch's
// previous phase and the engine's previous batch are done) and a sequential one.
void Schedule(trace_timeline *tl, const trace_pipeline &p, bool overlapped, int32_t run) {
    uint64_t h = static_cast<uint64_t>(p.h2d_ns), k = static_cast<uint64_t>(p.kernel_ns),
             d = static_cast<uint64_t>(p.d2h_ns);
    uint64_t free_h = 0, free_k = 0, free_d = 0, id = static_cast<uint64_t>(run) * 1000;
    for (int32_t b = 0; b < p.batches; b++) {
        uint64_t hs = overlapped ? free_h : free_d;
        trace_op op = Op(++id, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_ENGINE_H2D, 1 + b % 2, hs, hs + h, b, run);
        trace_timeline_add_op(tl, &op);
        free_h = hs + h;
        uint64_t ks = std::max(free_h, free_k);
        op = Op(++id, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 1 + b % 2, ks, ks + k, b, run);
        trace_timeline_add_op(tl, &op);
        free_k = ks + k;
        uint64_t ds = std::max(free_k, free_d);
        op = Op(++id, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_ENGINE_D2H, 1 + b % 2, ds, ds + d, b, run);
        trace_timeline_add_op(tl, &op);
        free_d = ds + d;
    }
}

TEST(PipelineBound, EqualsTheMakespanOfAnIdealPipelineAndPhasesComeBackFromATimeline) {
    const trace_pipeline shapes[] = {{300, 100, 200, 8}, {50, 400, 60, 16}, {100, 100, 100, 4}, {10, 20, 900, 3}};
    for (const trace_pipeline &p : shapes) {
        trace_timeline *tl = trace_timeline_create();
        Schedule(tl, p, false, 1);
        Schedule(tl, p, true, 2);
        trace_metrics seq, ovl;
        ASSERT_EQ(trace_metrics_compute(tl, 1, &seq), 0);
        ASSERT_EQ(trace_metrics_compute(tl, 2, &ovl), 0);
        EXPECT_DOUBLE_EQ(static_cast<double>(ovl.makespan_ns), trace_pipeline_time_ns(&p, 1.0));
        EXPECT_DOUBLE_EQ(static_cast<double>(seq.makespan_ns) / static_cast<double>(ovl.makespan_ns),
                         trace_pipeline_bound(&p, 1.0));
        EXPECT_EQ(seq.overlap_ns, 0u);
        EXPECT_GT(ovl.overlap_ns, 0u);
        trace_pipeline measured;
        ASSERT_EQ(trace_pipeline_from_timeline(tl, 1, &measured), 0);
        EXPECT_EQ(measured.batches, p.batches);
        EXPECT_DOUBLE_EQ(measured.h2d_ns, p.h2d_ns);
        EXPECT_DOUBLE_EQ(measured.kernel_ns, p.kernel_ns);
        EXPECT_DOUBLE_EQ(measured.d2h_ns, p.d2h_ns);
        trace_metrics_free(&seq);
        trace_metrics_free(&ovl);
        EXPECT_EQ(trace_pipeline_from_timeline(tl, 9, &measured), -1);
        trace_timeline_destroy(tl);
    }
}

TEST(Metrics, TwoDevicesHaveEachDevicesEnginesAndTheLink) {
    trace_timeline *tl = two_devices::Timeline();
    trace_metrics m;
    ASSERT_EQ(trace_metrics_compute(tl, TRACE_RUN_ANY, &m), 0);
    EXPECT_EQ(m.devices, 2u);
    EXPECT_EQ(m.makespan_ns, 45000u);
    // engine[] counts both devices' SMs together; device_engine each its own.
    EXPECT_EQ(m.engine[TRACE_ENGINE_COMPUTE].busy_ns, 20000u);
    EXPECT_EQ(m.device_engine[0][TRACE_ENGINE_COMPUTE].busy_ns, 10000u);
    EXPECT_EQ(m.device_engine[1][TRACE_ENGINE_COMPUTE].busy_ns, 10000u);
    EXPECT_EQ(m.device_engine[0][TRACE_ENGINE_H2D].busy_ns, 10000u);
    EXPECT_EQ(m.device_engine[1][TRACE_ENGINE_H2D].busy_ns, 0u);
    EXPECT_EQ(m.device_engine[1][TRACE_ENGINE_D2H].busy_ns, 10000u);
    EXPECT_EQ(m.link[0][1].busy_ns, 5000u);
    EXPECT_EQ(m.link[0][1].ops, 1u);
    EXPECT_EQ(m.link[1][0].ops, 0u);
    EXPECT_EQ(m.device_overlap_ns[0], 0u);
    // Lanes find their own figures.
    trace_lane lanes[16];
    size_t n = trace_timeline_lanes(tl, TRACE_RUN_ANY, lanes, 16);
    ASSERT_EQ(n, 11u);
    EXPECT_EQ(trace_metrics_lane(&m, &lanes[1]), nullptr);  // "GPU 0"
    EXPECT_EQ(trace_metrics_lane(&m, &lanes[3]), &m.device_engine[0][TRACE_ENGINE_COMPUTE]);
    EXPECT_EQ(trace_metrics_lane(&m, &lanes[6]), &m.device_engine[1][TRACE_ENGINE_COMPUTE]);
    EXPECT_EQ(trace_metrics_lane(&m, &lanes[10]), &m.link[0][1]);
    EXPECT_EQ(trace_metrics_lane(&m, &lanes[0]), &m.engine[TRACE_ENGINE_HOST]);
    trace_metrics_free(&m);
    trace_timeline_destroy(tl);
}

}  // namespace

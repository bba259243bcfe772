// labs/harness/work_test.cc: the work a run did on the device and the verdict on it
// (work.h), from ops as the recorder hands them over: an honest pipeline does the lab's
// work; results computed on the host and routed through the device, kernels over a
// sliver, and full kernels beside uploaded results do not, and the words say what is
// missing; a graph whose nodes the trace does not see leaves only the copies to judge.
#include "labs/harness/work.h"

#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace {

constexpr uint64_t kElems = 1024;
constexpr uint64_t kBytes = kElems * sizeof(uint32_t);
// Addresses: device buffers, the lab's inputs and outputs, host memory of the program's.
constexpr uint64_t kDevIn = 0x10000000, kDevOut = 0x20000000, kJunk = 0x30000000;
constexpr uint64_t kInput = 0x70000000, kOutput = 0x80000000, kPinned = 0x90000000;

trace_op Op(trace_op_kind kind, int32_t run) {
    trace_op op;
    std::memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.run = run;
    op.batch = -1;
    return op;
}

void AddRange(trace_op *op, uint64_t addr, uint64_t bytes, bool write) {
    op->ranges[op->n_ranges++] = {addr, bytes, write ? TRACE_RANGE_WRITE : TRACE_RANGE_READ};
}

class Work : public ::testing::Test {
  protected:
    void SetUp() override { w_ = lab_work_create(); }
    void TearDown() override { lab_work_destroy(w_); }

    void Copy(int32_t run, trace_copy_dir dir, uint64_t dst, uint64_t src, uint64_t bytes) {
        trace_op op = Op(TRACE_OP_COPY, run);
        op.dir = dir;
        op.bytes = bytes;
        AddRange(&op, src, bytes, false);
        AddRange(&op, dst, bytes, true);
        lab_work_add_op(w_, &op);
    }
    void Kernel(int32_t run, const char *name, uint64_t out, uint64_t in, uint64_t elems) {
        trace_op op = Op(TRACE_OP_KERNEL, run);
        std::snprintf(op.name, sizeof(op.name), "%s", name);
        AddRange(&op, in, elems * sizeof(uint32_t), false);
        AddRange(&op, out, elems * sizeof(uint32_t), true);
        lab_work_add_op(w_, &op);
    }
    void HostWrite(int32_t run, uint64_t addr, uint64_t bytes) {
        trace_op op = Op(TRACE_OP_HOST_ACCESS, run);
        AddRange(&op, addr, bytes, true);
        lab_work_add_op(w_, &op);
    }
    // What the harness does around run(): fresh inputs, poisoned outputs, and the results
    // read once run() returned.
    void Prepare(int32_t run) {
        HostWrite(run, kInput, kBytes);
        HostWrite(run, kOutput, kBytes);
    }
    void Read(int32_t run) { lab_work_results_read(w_, run, reinterpret_cast<void *>(kOutput), kBytes); }

    // The lab's pipeline, one batch: upload, process, download.
    void Honest(int32_t run) {
        Prepare(run);
        Copy(run, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
        Kernel(run, "process", kDevOut, kDevIn, kElems);
        Copy(run, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
        Read(run);
    }

    lab_work_verdict Judge(int32_t baseline, int32_t yours, unsigned need = LAB_WORK_DEFAULT) {
        lab_work_tally req = lab_work_of_run(w_, baseline), done = lab_work_of_run(w_, yours);
        lab_work_verdict v;
        lab_work_judge(&req, &done, need, "batch", "batches", 1, &v);
        return v;
    }

    lab_work *w_ = nullptr;
};

TEST_F(Work, AnHonestPipelineDoesTheLabsWork) {
    Honest(1);
    lab_work_tally t = lab_work_of_run(w_, 1);
    EXPECT_EQ(t.amount[LAB_WORK_H2D], kBytes);
    EXPECT_EQ(t.amount[LAB_WORK_D2H], kBytes);
    EXPECT_EQ(t.amount[LAB_WORK_PROCESS], kElems);
    EXPECT_EQ(t.amount[LAB_WORK_PROCESS_LAUNCHES], 1u);
    EXPECT_EQ(t.amount[LAB_WORK_RESULTS], kBytes);
    Honest(2);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_TRUE(v.checked);
    EXPECT_TRUE(v.ok) << v.why;
    EXPECT_EQ(v.missing, 0u);
    EXPECT_STREQ(v.why, "");
    // The launches are judged only where the lab requires them.
    EXPECT_FALSE(v.judged & LAB_WORK_BIT(LAB_WORK_PROCESS_LAUNCHES));
}

TEST_F(Work, ResultsComputedOnTheHostAndRoutedThroughTheDeviceAreNotTheDevicesWork) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevOut, kPinned, kBytes);  // the host's results, uploaded
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);  // and copied back
    Read(2);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.missing, LAB_WORK_BIT(LAB_WORK_PROCESS) | LAB_WORK_BIT(LAB_WORK_RESULTS));
    std::string why = v.why;
    EXPECT_EQ(why.rfind("the lab's work was not done on the device, so the speed does not count: ", 0), 0u) << why;
    EXPECT_NE(why.find("your run launched no process kernel over the batches' data: the lab requires every batch to go "
                       "through the process kernel on the device (1024 elements a run"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("none of your run's 4.0 KiB of results came from the device's computation"), std::string::npos)
        << why;
}

TEST_F(Work, KernelsOverASliverAreASliverOfTheWork) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, 256 * 4);
    Kernel(2, "process", kDevOut, kDevIn, 256);
    Copy(2, TRACE_COPY_H2D, kDevOut + 256 * 4, kPinned, kBytes - 256 * 4);  // the host's rest
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    lab_work_tally t = lab_work_of_run(w_, 2);
    EXPECT_EQ(t.amount[LAB_WORK_PROCESS], 256u);
    EXPECT_EQ(t.amount[LAB_WORK_RESULTS], 256u * 4);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_EQ(v.missing, LAB_WORK_BIT(LAB_WORK_PROCESS) | LAB_WORK_BIT(LAB_WORK_RESULTS));
    std::string why = v.why;
    EXPECT_NE(why.find("your run's process kernels went over 256 elements, 25% of the 1024 a run that the lab requires"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("only 1.0 KiB of your run's 4.0 KiB of results (25%) came from memory a kernel of the run wrote"),
              std::string::npos)
        << why;
}

TEST_F(Work, FullKernelsBesideUploadedResultsDoNotMakeThemTheDevices) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevOut, kPinned, kBytes);
    Kernel(2, "process", kJunk + kBytes, kJunk, kElems);  // nobody reads its output
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_EQ(v.missing, LAB_WORK_BIT(LAB_WORK_RESULTS)) << v.why;
    // Nor does a kernel's output that the host's upload then overwrote.
    Prepare(3);
    Kernel(3, "process", kDevOut, kDevIn, kElems);
    Copy(3, TRACE_COPY_H2D, kDevOut, kPinned, kBytes);
    Copy(3, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(3);
    EXPECT_EQ(lab_work_of_run(w_, 3).amount[LAB_WORK_RESULTS], 0u);
}

TEST_F(Work, AResultKeepsItsKernelThroughDeviceCopiesAndLosesItToAMemset) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    Kernel(2, "process", kDevOut, kDevIn, kElems);
    Copy(2, TRACE_COPY_D2D, kJunk, kDevOut, kBytes);  // moved (a peer copy, say)
    trace_op memset_op = Op(TRACE_OP_MEMSET, 2);
    AddRange(&memset_op, kJunk + 100, 28, true);       // 28 bytes cleared in the middle
    lab_work_add_op(w_, &memset_op);
    Copy(2, TRACE_COPY_D2H, kOutput, kJunk, kBytes);
    Read(2);
    EXPECT_EQ(lab_work_of_run(w_, 2).amount[LAB_WORK_RESULTS], kBytes - 28);
}

// A spin kernel writes mark + block, values the host chose: nothing it computed.
TEST_F(Work, ASpinKernelsMarksAreNotComputedResults) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    Kernel(2, "process", kDevOut, kDevIn, kElems);
    trace_op spin = Op(TRACE_OP_KERNEL, 2);
    std::snprintf(spin.name, sizeof(spin.name), "spin");
    AddRange(&spin, kDevOut, 64, true);
    lab_work_add_op(w_, &spin);
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    EXPECT_EQ(lab_work_of_run(w_, 2).amount[LAB_WORK_RESULTS], kBytes - 64);
}

TEST_F(Work, WhatAKernelOfAnotherRunComputedIsNotThisRunsResult) {
    Honest(1);
    // Run 2 copies back what run 1's kernel left on the device, and computes nothing.
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    EXPECT_EQ(lab_work_of_run(w_, 2).amount[LAB_WORK_RESULTS], 0u);
    // The harness's poison clears the outputs before every run.
    Prepare(3);
    Read(3);
    EXPECT_EQ(lab_work_of_run(w_, 3).amount[LAB_WORK_RESULTS], 0u);
}

TEST_F(Work, TheLaunchesCountWhereTheLabRequiresThem) {
    // The baseline: the batch through 4 kernels of a quarter each; yours: one over it all.
    Prepare(1);
    Copy(1, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    for (uint64_t q = 0; q < 4; q++) Kernel(1, "process", kDevOut + q * kBytes / 4, kDevIn + q * kBytes / 4, kElems / 4);
    Copy(1, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(1);
    Honest(2);
    EXPECT_TRUE(Judge(1, 2).ok);
    lab_work_verdict v = Judge(1, 2, LAB_WORK_DEFAULT | LAB_WORK_BIT(LAB_WORK_PROCESS_LAUNCHES));
    EXPECT_EQ(v.missing, LAB_WORK_BIT(LAB_WORK_PROCESS_LAUNCHES));
    EXPECT_NE(std::string(v.why).find("your run ran 1 process kernel, where the lab requires 4 a run"), std::string::npos)
        << v.why;
}

TEST_F(Work, CopiesShortOfTheInputsAndResultsAreNamed) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes / 2);
    Kernel(2, "process", kDevOut, kDevIn, kElems);
    Read(2);
    lab_work_verdict v = Judge(1, 2);
    std::string why = v.why;
    EXPECT_TRUE(v.missing & LAB_WORK_BIT(LAB_WORK_H2D));
    EXPECT_TRUE(v.missing & LAB_WORK_BIT(LAB_WORK_D2H));
    EXPECT_NE(why.find("your run copied 2.0 KiB host-to-device, where the lab's inputs are 4.0 KiB a run (1 batches: "
                       "every batch's input must go to the device)"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("your run copied 0 bytes device-to-host"), std::string::npos) << why;
}

TEST_F(Work, AGraphWhoseNodesTheTraceDoesNotSeeLeavesOnlyTheCopiesToJudge) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    trace_op graph = Op(TRACE_OP_KERNEL, 2);
    std::snprintf(graph.name, sizeof(graph.name), "graph (64 nodes)");
    lab_work_add_op(w_, &graph);
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    EXPECT_EQ(lab_work_of_run(w_, 2).opaque, 1u);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_TRUE(v.ok) << v.why;
    EXPECT_EQ(v.judged, LAB_WORK_BIT(LAB_WORK_H2D) | LAB_WORK_BIT(LAB_WORK_D2H));
    EXPECT_NE(std::string(v.why).find("CUDA graphs, whose kernels this GPU's trace does not see one by one"),
              std::string::npos)
        << v.why;
}

TEST_F(Work, AKindTheBaselineDidNoneOfIsNotRequired) {
    Honest(1);
    Honest(2);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_FALSE(v.judged & LAB_WORK_BIT(LAB_WORK_CHECKSUM));
    // Nothing to compare at all: not checked, and nothing missing.
    lab_work_tally none;
    std::memset(&none, 0, sizeof(none));
    lab_work_judge(&none, &none, LAB_WORK_DEFAULT, "batch", "batches", 1, &v);
    EXPECT_FALSE(v.checked);
    EXPECT_TRUE(v.ok);
}

TEST_F(Work, TheLeastOverRunsIsEachKindsLeast) {
    Honest(1);
    Prepare(2);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    Kernel(2, "process", kDevOut, kDevIn, kElems / 2);
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    int32_t runs[] = {1, 2};
    lab_work_tally least = lab_work_least(w_, runs, 2);
    EXPECT_EQ(least.amount[LAB_WORK_H2D], kBytes);
    EXPECT_EQ(least.amount[LAB_WORK_PROCESS], kElems / 2);
    EXPECT_EQ(least.amount[LAB_WORK_RESULTS], kBytes / 2);
}

// A program that scatters its kernels' writes over more pieces than the harness follows
// gets no results counted, and the words say why.
TEST_F(Work, MemoryWrittenInTooManyPiecesIsNotCountedAsResults) {
    Honest(1);
    Prepare(2);
    for (uint64_t i = 0; i <= LAB_WORK_MAX_PIECES; i++) Kernel(2, "process", kJunk + 8 * i, kDevIn, 1);
    Copy(2, TRACE_COPY_H2D, kDevIn, kInput, kBytes);
    Kernel(2, "process", kDevOut, kDevIn, kElems);
    Copy(2, TRACE_COPY_D2H, kOutput, kDevOut, kBytes);
    Read(2);
    EXPECT_TRUE(lab_work_of_run(w_, 2).lost);
    lab_work_verdict v = Judge(1, 2);
    EXPECT_EQ(v.missing, LAB_WORK_BIT(LAB_WORK_RESULTS));
    EXPECT_NE(std::string(v.why).find("more than the harness follows"), std::string::npos) << v.why;
}

}  // namespace

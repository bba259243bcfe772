// labs/harness/graph_memory_test.cc: the memory each of the student's graphs reaches
// (graph_memory.h): a capture's ranges go to the graph it makes and to every executable
// graph made from that, which keeps them after the graph is destroyed; a launch's check
// sees each range, and names the first that fails; a range noted again is kept once; a
// graph that reaches more ranges than are kept, an executable graph the table never saw
// made, and a graph made from a capture the table lost are never said to be fine.
#include "labs/harness/graph_memory.h"

#include <cstdint>
#include <set>

#include <gtest/gtest.h>

namespace {

// The ranges that pass the check (by start); everything else fails.
std::set<uint64_t> g_alive;
bool Alive(const lab_graph_use *u) { return g_alive.count(u->start) != 0; }

lab_graph_use Kernel(uint64_t start, uint64_t bytes) {
    return lab_graph_use{start, bytes, LAB_GRAPH_NEED_DEVICE, "kernels_process"};
}
lab_graph_use Copy(uint64_t start, uint64_t bytes) {
    return lab_graph_use{start, bytes, LAB_GRAPH_NEED_MEMORY, "cudaMemcpyAsync"};
}

class GraphMemory : public ::testing::Test {
  protected:
    void SetUp() override {
        m = lab_graph_memory_new();
        ASSERT_NE(m, nullptr);
        g_alive.clear();
    }
    void TearDown() override { lab_graph_memory_free(m); }
    lab_graph_memory *m = nullptr;
};

TEST_F(GraphMemory, ACapturesRangesGoToItsGraphAndItsExecutableGraphs) {
    const uint64_t capture = 7, graph = 0x100, exec = 0x200, exec2 = 0x300;
    lab_graph_use k = Kernel(0x1000, 4096), c = Copy(0x9000, 256);
    lab_graph_memory_note(m, capture, &k);
    lab_graph_memory_note(m, capture, &c);
    lab_graph_memory_note(m, capture, &k);  // 64 launches on one buffer: one range
    EXPECT_EQ(lab_graph_memory_uses_of_capture(m, capture), 2u);
    lab_graph_memory_captured(m, capture, graph);
    EXPECT_EQ(lab_graph_memory_uses_of_capture(m, capture), 0u) << "the capture ended";
    EXPECT_EQ(lab_graph_memory_uses_of_graph(m, graph), 2u);
    lab_graph_memory_instantiated(m, graph, exec);
    lab_graph_memory_instantiated(m, graph, exec2);
    // The program destroys the graph once instantiated, as lab 07's do: the executable
    // graphs keep what they reach.
    lab_graph_memory_forget_graph(m, graph);
    EXPECT_EQ(lab_graph_memory_uses_of_graph(m, graph), 0u);
    EXPECT_EQ(lab_graph_memory_uses_of_exec(m, exec), 2u);

    g_alive = {0x1000, 0x9000};
    lab_graph_use bad{};
    EXPECT_EQ(lab_graph_memory_check(m, exec, Alive, &bad), LAB_GRAPH_OK);
    // The kernel's buffer freed: the launch's check names it, with its call and need.
    g_alive = {0x9000};
    ASSERT_EQ(lab_graph_memory_check(m, exec, Alive, &bad), LAB_GRAPH_BAD);
    EXPECT_EQ(bad.start, 0x1000u);
    EXPECT_EQ(bad.bytes, 4096u);
    EXPECT_EQ(bad.need, LAB_GRAPH_NEED_DEVICE);
    EXPECT_STREQ(bad.call, "kernels_process");
    // The copy's memory freed instead.
    g_alive = {0x1000};
    ASSERT_EQ(lab_graph_memory_check(m, exec2, Alive, &bad), LAB_GRAPH_BAD);
    EXPECT_EQ(bad.start, 0x9000u);
    EXPECT_STREQ(bad.call, "cudaMemcpyAsync");

    lab_graph_memory_forget_exec(m, exec);
    EXPECT_EQ(lab_graph_memory_uses_of_exec(m, exec), 0u);
    EXPECT_EQ(lab_graph_memory_uses_of_exec(m, exec2), 2u);
}

TEST_F(GraphMemory, ARangeNotedAgainWithAnotherSizeOrNeedIsAnotherRange) {
    lab_graph_use a = Kernel(0x1000, 4096), b = Kernel(0x1000, 8192), c = Copy(0x1000, 4096);
    lab_graph_memory_note(m, 1, &a);
    lab_graph_memory_note(m, 1, &b);
    lab_graph_memory_note(m, 1, &c);
    EXPECT_EQ(lab_graph_memory_uses_of_capture(m, 1), 3u);
}

TEST_F(GraphMemory, CapturesAreKeptApart) {
    // Two captures open at once (lab 07's three sets, captured one after the other or
    // interleaved): each graph reaches its own capture's ranges only.
    lab_graph_use a = Kernel(0x1000, 64), b = Kernel(0x2000, 64);
    lab_graph_memory_note(m, 1, &a);
    lab_graph_memory_note(m, 2, &b);
    lab_graph_memory_captured(m, 1, 0x10);
    lab_graph_memory_captured(m, 2, 0x20);
    lab_graph_memory_instantiated(m, 0x10, 0x11);
    lab_graph_memory_instantiated(m, 0x20, 0x21);
    g_alive = {0x1000};
    EXPECT_EQ(lab_graph_memory_check(m, 0x11, Alive, nullptr), LAB_GRAPH_OK);
    EXPECT_EQ(lab_graph_memory_check(m, 0x21, Alive, nullptr), LAB_GRAPH_BAD);
}

TEST_F(GraphMemory, AFailedCaptureLeavesNothingAndAGraphWithoutMemoryIsFine) {
    lab_graph_use a = Kernel(0x1000, 64);
    lab_graph_memory_note(m, 1, &a);
    lab_graph_memory_captured(m, 1, 0);  // invalidated: no graph
    EXPECT_EQ(lab_graph_memory_uses_of_capture(m, 1), 0u);
    // A capture that reached no memory (only events, a host function) makes a graph that
    // reaches none.
    lab_graph_memory_captured(m, 2, 0x10);
    lab_graph_memory_instantiated(m, 0x10, 0x11);
    EXPECT_EQ(lab_graph_memory_check(m, 0x11, Alive, nullptr), LAB_GRAPH_OK);
}

TEST_F(GraphMemory, AHandleGivenOutAgainIsANewGraph) {
    lab_graph_use a = Kernel(0x1000, 64), b = Kernel(0x2000, 64);
    lab_graph_memory_note(m, 1, &a);
    lab_graph_memory_captured(m, 1, 0x10);
    lab_graph_memory_instantiated(m, 0x10, 0x11);
    lab_graph_memory_forget_graph(m, 0x10);
    lab_graph_memory_forget_exec(m, 0x11);
    lab_graph_memory_note(m, 2, &b);
    lab_graph_memory_captured(m, 2, 0x10);
    lab_graph_memory_instantiated(m, 0x10, 0x11);
    g_alive = {0x2000};
    EXPECT_EQ(lab_graph_memory_check(m, 0x11, Alive, nullptr), LAB_GRAPH_OK) << "0x1000 is no longer reached";
    EXPECT_EQ(lab_graph_memory_uses_of_exec(m, 0x11), 1u);
}

TEST_F(GraphMemory, WhatTheTableCannotSayIsNeverFine) {
    // An executable graph it never saw made.
    EXPECT_EQ(lab_graph_memory_check(m, 0x99, Alive, nullptr), LAB_GRAPH_UNCHECKED);
    // One made from a graph it never saw made.
    lab_graph_memory_instantiated(m, 0x42, 0x43);
    EXPECT_EQ(lab_graph_memory_check(m, 0x43, Alive, nullptr), LAB_GRAPH_UNCHECKED);
    // One whose capture reached more ranges than are kept, even if every kept one passes.
    for (uint64_t i = 0; i <= LAB_GRAPH_MEMORY_MAX_USES; i++) {
        lab_graph_use u = Kernel(0x100000 + 64 * i, 64);
        lab_graph_memory_note(m, 5, &u);
        g_alive.insert(u.start);
    }
    EXPECT_EQ(lab_graph_memory_uses_of_capture(m, 5), LAB_GRAPH_MEMORY_MAX_USES);
    lab_graph_memory_captured(m, 5, 0x50);
    lab_graph_memory_instantiated(m, 0x50, 0x51);
    EXPECT_EQ(lab_graph_memory_check(m, 0x51, Alive, nullptr), LAB_GRAPH_UNCHECKED);
    // A device reset forgets everything.
    lab_graph_memory_clear(m);
    EXPECT_EQ(lab_graph_memory_uses_of_exec(m, 0x51), 0u);
    EXPECT_EQ(lab_graph_memory_check(m, 0x51, Alive, nullptr), LAB_GRAPH_UNCHECKED);
}

}  // namespace

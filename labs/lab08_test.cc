// labs/lab08_test.cc: lab 08 end to end on the simulated GPU, as a student and the grader
// run it. The loader's batches come in pairs, one quick and one slow, set from the
// device's own time for a batch. The skeleton loads, copies, computes and waits in turn:
// correct, well below the loader bound (exit 1). Waiting for the upload alone with one
// buffer is the named state after TODO 1 (exit 1): the device waits through every slow
// load and the loader for the device after every quick one. A ring of buffers that still
// synchronises the stream every batch is TODO 1 not done (exit 1); a ring of two or three
// buffers, each freed by an event, passes (exit 0); the same ring of three of pageable
// (malloc'd) buffers does not (exit 1): each upload is staged through the driver while the
// loader waits, a 1 MiB copy's worth of host time on every batch. Those that pass and those that do not
// each sit at least 5 points of the bound from the target. A loader that refills a buffer
// without waiting for its upload is racy, and wrong under a perturbed schedule (exit 2,
// the race names the load and the upload); an upload queued from a host function fails
// with the runtime's error (exit 2), and the loader refuses a device buffer (exit 2).
#include "labs/lab_test_support.h"

#include <string>

namespace {

using namespace labtest;

const cJSON *Figures(const cJSON *j) { return cJSON_GetObjectItemCaseSensitive(j, "loader_us"); }

// The margin every binary keeps from the target, in fractions of the bound.
constexpr double kMargin = 0.05;
// What the simulator's model leaves the wrong structures below the 82% target: a loader
// with one buffer 4.5 to 5 points, a pageable ring 1 to 1.5 (on an H100, 6.5 and over 20:
// docs/measured.md, lab 08 with 1 MiB batches). The 5 points the labs aim for are not
// reached here: the simulator puts the pinned rings 8 to 10 points above the GPU.
constexpr double kOneBufferMargin = 0.04;
constexpr double kPageableMargin = 0.01;

TEST(Lab08, TheSkeletonIsCorrectAndTheLoaderWaitsForTheDevice) {
    Outcome o = RunLab("labs/08_prefetch_loader_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "08_prefetch_loader");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    EXPECT_LT(Num(j, "bound_fraction"), 0.65);
    // The loader is the slower side, on average slower than the device on one stream, but
    // faster than it on a quick batch; and it costs what the spec declares, measured.
    const cJSON *f = Figures(j);
    ASSERT_NE(f, nullptr) << o.out;
    EXPECT_GT(Num(f, "loader_all"), 1.15 * Num(f, "device_all")) << "the loader is the slower side";
    const double quick = Num(f, "load_quick_us"), slow = Num(f, "load_slow_us");
    const double one_stream = Num(f, "device_one_stream_per_batch");
    EXPECT_LT(quick, 0.6 * one_stream);
    EXPECT_GT(slow, 1.5 * one_stream);
    EXPECT_GT(Num(f, "loader_per_batch"), 1.05 * one_stream);
    EXPECT_NEAR(Num(f, "loader_per_batch"), (quick + slow) / 2, 0.02 * (quick + slow) / 2)
        << "half the batches are quick, half slow";
    EXPECT_NEAR(Num(cJSON_GetObjectItemCaseSensitive(j, "bound"), "ideal_ms") * 1e3, Num(f, "loader_all"), 1.0);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (wait for the upload, not for the whole batch)");
    cJSON_Delete(j);
}

TEST(Lab08, TheReferencePasses) {
    Outcome o = RunLab("solutions/08_prefetch_loader_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_GE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") + kMargin);
    EXPECT_LE(Num(j, "bound_fraction"), 1.0) << "no run can load faster than the loader alone";
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

TEST(Lab08, ARingOfTwoAbsorbsTheSlowBatchesOfThisLoader) {
    Outcome o = RunLab("labs/08_prefetch_loader_ring_of_two_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") + kMargin);
    cJSON_Delete(j);
}

TEST(Lab08, APageableRingPaysForEveryUploadOnTheHost) {
    Outcome o = RunLab("labs/08_prefetch_loader_pageable_ring_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0) << "each upload's source is staged before its call returns";
    EXPECT_GT(Num(j, "speedup"), 1.3) << "the ring still lets the loader run ahead";
    EXPECT_LE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - kPageableMargin);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (a ring of pinned buffers)");
    cJSON_Delete(j);
    // The report says where the time went: every upload staged from pageable memory while
    // the host waited in the copy call.
    EXPECT_NE(FindFlat(o.err, "48 H2D copies from pageable memory"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "the driver staged each one through a pinned buffer of its own"), std::string::npos)
        << o.err;
}

TEST(Lab08, OneBufferStallsTheDeviceOnEverySlowBatchTheStateAfterTodo1) {
    Outcome o = RunLab("labs/08_prefetch_loader_one_buffer_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_GT(Num(j, "speedup"), 1.3) << "the loader overlaps the kernel and the download";
    EXPECT_LE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - kOneBufferMargin);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (a ring of pinned buffers)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "This is the expected state after TODO 1."), std::string::npos) << o.err;
}

TEST(Lab08, SynchronisingEveryBatchUndoesTheRing) {
    Outcome o = RunLab("labs/08_prefetch_loader_sync_each_batch_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    EXPECT_LE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - kMargin);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (wait for the upload, not for the whole batch)");
    cJSON_Delete(j);
}

TEST(Lab08, ALoaderThatDoesNotWaitForTheUploadIsARace) {
    // In the plain runs the uploads happen to be over in time: right, and racy.
    Outcome plain = RunLab("labs/08_prefetch_loader_no_wait_sim", Args({"--schedules", "0"}));
    EXPECT_EQ(plain.exit_code, 2) << plain.err;
    cJSON *p = Json(plain);
    EXPECT_EQ(Str(p, "status"), "racy");
    EXPECT_TRUE(Bool(p, "correct"));
    cJSON_Delete(p);
    // A perturbed schedule (a device a little late) uploads a batch the loader has already
    // overwritten with a later one.
    Outcome o = RunLab("labs/08_prefetch_loader_no_wait_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    EXPECT_FALSE(Bool(j, "correct"));
    EXPECT_NE(FindFlat(o.err, "two batches shared a buffer without an order between them"), std::string::npos) << o.err;
    EXPECT_GT(Num(j, "races"), 0);
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "race_reports"), 0);
    ASSERT_NE(r, nullptr) << o.out;
    EXPECT_EQ(Str(r, "kind"), "WAR");
    EXPECT_EQ(Str(r, "first").rfind("H2D batch ", 0), 0u) << Str(r, "first");
    EXPECT_EQ(Str(r, "second").rfind("host access lab_load_batch batch ", 0), 0u) << Str(r, "second");
    EXPECT_EQ(Num(r, "bytes"), 1u << 20) << "the whole pinned buffer";
    EXPECT_NE(Str(r, "fix").find("cudaEventSynchronize on an event recorded after H2D batch"), std::string::npos)
        << Str(r, "fix");
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (wait for the upload, not for the whole batch)");
    cJSON_Delete(j);
}

TEST(Lab08, AHostFunctionThatCallsCudaIsRefused) {
    Outcome o = RunLab("labs/08_prefetch_loader_upload_in_host_fn_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "error");
    cJSON_Delete(j);
    const std::string file = "labs/08_prefetch_loader/testdata/variants.c";
    int line = LineOf(file, "cudaError_t err = cudaMemcpyAsync(d_in, job->src");
    ASSERT_GT(line, 0);
    EXPECT_NE(FindFlat(o.err, file + ":" + std::to_string(line) +
                         ": cudaMemcpyAsync (in the host function queue_upload) failed: cudaErrorNotPermitted ("),
              std::string::npos)
        << o.err;
    EXPECT_NE(FindFlat(o.err, "  host function: a function queued with cudaLaunchHostFunc must not call CUDA"),
              std::string::npos)
        << o.err;
}

TEST(Lab08, TheLoaderRefusesDeviceMemory) {
    Outcome o = RunLab("labs/08_prefetch_loader_load_into_device_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "error");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "lab_load_batch(ctx, 0, "), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "dst is device memory (cudaMalloc)"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "your run() returned 1"), std::string::npos) << o.err;
}

// The reference with the waits written as polls: cudaEventQuery until cudaSuccess before
// each load, cudaStreamQuery until cudaSuccess at the end. A query that succeeded orders the
// host after the work it asked about, as a synchronising call does: correct, no race, pass.
TEST(Lab08, PollingAnEventUntilItSucceedsOrdersTheHost) {
    Outcome o = RunLab("labs/08_prefetch_loader_event_poll_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "race_reports")), 0);
    cJSON_Delete(j);
    EXPECT_EQ(o.err.find("race 1:"), std::string::npos) << o.err;
}

// A command the referee refused (here a second cudaFree of the same buffer, its error
// ignored) means the program failed, whatever its results: not correct in the report, in
// --json or in the event stream, with the refusal named.
TEST(Lab08, ARefusedCommandIsNotCorrect) {
    Outcome o = RunLab("labs/08_prefetch_loader_freed_twice_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_FALSE(Bool(j, "correct"));
    EXPECT_EQ(Str(j, "status"), "incorrect");
    EXPECT_NE(Str(j, "refused").find("cudaFree of memory that is not the program's"), std::string::npos)
        << Str(j, "refused");
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(j, "first_mismatch"), nullptr);
    cJSON_Delete(j);
    EXPECT_EQ(o.events.find("\"correct\":true"), std::string::npos) << o.events;
    Outcome text = RunLab("labs/08_prefetch_loader_freed_twice_sim", {"--seed", "7", "--runs", "1", "--schedules", "0"});
    EXPECT_NE(text.out.find("  correct    NO: the referee refused a command of yours"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("FAIL: the referee refused a command of yours"), std::string::npos) << text.out;
}

}  // namespace

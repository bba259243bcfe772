// labs/09_two_gpus/lab_test.cc: lab 09 end to end on the simulated pair of H200s, as a
// student and the grader run it. The skeleton (peer access off, a host wait after each
// stage, one set of buffers) is correct and far below the pipeline bound, stopped at TODO 1
// with the peer copies' rate named; the same pipeline as the reference without peer access
// is below target for the same named cause; a host wait each batch is below target with the
// count of waits named (TODO 2); one set of buffers chained by events is the state after
// TODO 2; the reference, a ring of three, passes; stage 2 not waiting for the peer copy is
// racy, the race naming the copy and stage 2 and the devices (of the bytes and of each
// side), and the report's timeline grouping its lanes by GPU with the link last. The lab
// runs on h200x2 by itself, and a profile of one device is refused with a message.
#include "labs/lab_test_support.h"

#include <cstdio>
#include <string>

namespace {

using namespace labtest;

// The rate in "Why: peer copies at N GB/s: ..." of the report, or -1.
double WhyPeerRate(const std::string &err) {
    size_t at = err.find("Why: peer copies at ");
    if (at == std::string::npos) return -1;
    double gbps = -1;
    if (std::sscanf(err.c_str() + at, "Why: peer copies at %lf GB/s", &gbps) != 1) return -1;
    return gbps;
}

// The bound's link rate with peer access (its figures).
double LinkGbps(const cJSON *j) { return Num(cJSON_GetObjectItemCaseSensitive(j, "stages_us"), "link_gbps"); }

TEST(Lab09, TheSkeletonIsCorrectSlowAndStagesItsPeerCopies) {
    Outcome o = RunLabOnce("labs/09_two_gpus_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "09_two_gpus");
    EXPECT_EQ(Str(j, "profile"), "h200x2");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    EXPECT_LT(Num(j, "bound_fraction"), 0.35);
    EXPECT_EQ(NextStep(j), "0/3 TODO 1 (peer access, both ways)");
    double link = LinkGbps(j);
    EXPECT_GT(link, 0);
    double rate = WhyPeerRate(o.err);
    EXPECT_GT(rate, 0) << o.err;
    EXPECT_LT(rate, link / 2) << o.err;
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, ": peer access is not enabled"), std::string::npos) << o.err;
}

TEST(Lab09, TheReferencePasses) {
    Outcome o = RunLabOnce("solutions/09_two_gpus_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_GE(Num(j, "bound_fraction"), 0.93);
    EXPECT_LE(Num(j, "bound_fraction"), 1.02);
    EXPECT_EQ(NextStep(j), "3/3 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Why:"), std::string::npos) << o.err;
}

// The workload's margins on both pairs of GPUs the kit simulates (the H200s of h200x2, the
// H100s of the lab's test profile, fitted to lab 09 as measured on them): a correct
// pipeline at least 5 points of the bound above the target, the same pipeline without peer
// access (its staged copies of the wide values the slowest stage) at least 5 below; the
// link carries twice the bytes of the upload, so with peer access it is the fastest stage.
TEST(Lab09, BothPairsLeaveRoomEitherSideOfTheTarget) {
    for (const std::string &profile : {std::string("h200x2"), Binary("labs/09_two_gpus/testdata/h100x2.json")}) {
        SCOPED_TRACE(profile);
        for (const std::string &build : {std::string("solutions/09_two_gpus_sim"),
                                         std::string("labs/09_two_gpus_stage2_from_gpu0_sim")}) {
            Outcome o = RunLabOnce(build, Args({"--profile=" + profile}));
            EXPECT_EQ(o.exit_code, 0) << build << o.err;
            cJSON *j = Json(o);
            EXPECT_GE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") + 0.05) << build;
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "stages_us");
            EXPECT_LT(Num(st, "link_us"), Num(st, "upload_us")) << build;
            EXPECT_GT(Num(st, "stage1_us"), 1.5 * Num(st, "upload_us")) << build;
            cJSON_Delete(j);
        }
        Outcome off = RunLabOnce("labs/09_two_gpus_peer_access_off_sim", Args({"--profile=" + profile}));
        EXPECT_EQ(off.exit_code, 1) << off.err;
        cJSON *j = Json(off);
        EXPECT_LE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - 0.05);
        cJSON_Delete(j);
    }
}

TEST(Lab09, WithoutPeerAccessTheLinkIsTheSlowestStage) {
    Outcome o = RunLabOnce("labs/09_two_gpus_peer_access_off_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    double target = Num(j, "target_bound_fraction");
    EXPECT_LT(Num(j, "bound_fraction"), target - 0.05);
    EXPECT_GT(Num(j, "bound_fraction"), 0.5);  // pipelined: only the link holds it back
    EXPECT_EQ(NextStep(j), "0/3 TODO 1 (peer access, both ways)");
    double rate = WhyPeerRate(o.err);
    EXPECT_GT(rate, 0) << o.err;
    EXPECT_LT(rate, LinkGbps(j) / 2) << o.err;
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, ": peer access is not enabled"), std::string::npos) << o.err;
}

// Peer access one way: the lab's copies go from GPU 0 to GPU 1 on GPU 0's streams. Either
// GPU's access to the other puts them on the link (so they went on two H200s with CUDA 13):
// each way alone passes, with the link's rate and nothing said about peer access.
TEST(Lab09, PeerAccessEitherWayPutsTheCopiesOnTheLink) {
    for (const char *binary :
         {"labs/09_two_gpus_peer_access_gpu0_only_sim", "labs/09_two_gpus_peer_access_gpu1_only_sim"}) {
        Outcome o = RunLabOnce(binary, Args());
        EXPECT_EQ(o.exit_code, 0) << binary << "\n" << o.err;
        cJSON *j = Json(o);
        EXPECT_EQ(Str(j, "status"), "pass") << binary;
        EXPECT_EQ(NextStep(j), "3/3 ") << binary;
        EXPECT_GE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") + 0.05) << binary;
        cJSON_Delete(j);
        EXPECT_EQ(FindFlat(o.err, "is not enabled"), std::string::npos) << binary << "\n" << o.err;
    }
}

TEST(Lab09, AHostWaitEachBatchMakesTheGpusTakeTurns) {
    Outcome o = RunLabOnce("labs/09_two_gpus_sync_each_batch_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_LT(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") / 2);
    EXPECT_EQ(NextStep(j), "1/3 TODO 2 (an event across the devices instead of the host's waits)");
    int waits = -1, batches = -1;
    std::string why = Why(j);
    ASSERT_EQ(std::sscanf(why.c_str(), "the host waited for a GPU %d times before run() had queued all its work (%d "
                                       "batches)",
                          &waits, &batches),
              2)
        << why;
    // One wait a batch but the last (made after everything was queued).
    EXPECT_EQ(waits, batches - 1);
    // The wait is named with its line and what it cost.
    const std::string file = "labs/09_two_gpus/testdata/variants.c";
    std::string line = ShortLine(file, "LAB_CHECK(cudaStreamSynchronize(k->s1));");
    EXPECT_NE(why.find("; cudaStreamSynchronize(one of 3 streams) at " + line + " held the host"), std::string::npos)
        << why;
    ExpectBlamed(Blamed(j), "cudaStreamSynchronize(one of 3 streams)", file, "LAB_CHECK(cudaStreamSynchronize(k->s1));");
    EXPECT_EQ(Num(Blamed(j), "on_path"), batches - 1);
    EXPECT_EQ(OverSynced(j).rfind("cudaStreamSynchronize(one of 3 streams) at " + line, 0), 0u) << OverSynced(j);
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "peer access is not enabled"), std::string::npos) << o.err;
}

TEST(Lab09, OneSetOfBuffersIsTheStateAfterTodo2) {
    Outcome o = RunLabOnce("labs/09_two_gpus_one_slot_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_LT(Num(j, "bound_fraction"), 0.65);
    EXPECT_EQ(NextStep(j), "2/3 TODO 3 (a ring of buffers so the stages and the link overlap)");
    EXPECT_EQ(Why(j).rfind("your peer copies all write one buffer on GPU 1", 0), 0u) << Why(j);
    cJSON_Delete(j);
}

// A ring of three slots whose work all goes to the first slot's streams: TODO 3 is where
// it stands, and it is told that its ring is there and its streams are not, not to add a
// ring.
TEST(Lab09, ARingOnSharedStreamsIsToldItsStreams) {
    Outcome o = RunLabOnce("labs/09_two_gpus_ring_shared_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(NextStep(j), "2/3 TODO 3 (a ring of buffers so the stages and the link overlap)");
    EXPECT_EQ(Why(j).rfind("your ring has 3 slots of buffers, but GPU 0's work goes to 1 stream (\"GPU 0 a\") and "
                           "GPU 1's to 1 (\"GPU 1 a\")",
                           0),
              0u)
        << Why(j);
    EXPECT_EQ(OverSynced(j), "");
    cJSON_Delete(j);
}

TEST(Lab09, StageTwoBeforeItsPeerCopyIsOrderedIsARace) {
    Outcome o = RunLabOnce("labs/09_two_gpus_stage2_unordered_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_GT(Num(j, "races"), 0);
    const std::string file = "labs/09_two_gpus/testdata/variants.c";
    int copy = LineOf(file, "cudaMemcpyPeerAsync(k->mid1");
    int stage2 = LineOf(file, "kernels_narrow(k->out1");
    ASSERT_GT(copy, 0);
    ASSERT_GT(stage2, 0);
    // Stage 2 on GPU 1 reads what the peer copy on GPU 0's stream may not have written.
    const cJSON *races = cJSON_GetObjectItemCaseSensitive(j, "race_reports");
    ASSERT_GT(cJSON_GetArraySize(races), 0) << o.out;
    const cJSON *r = cJSON_GetArrayItem(races, 0);
    EXPECT_EQ(Str(r, "kind"), "RAW");
    EXPECT_EQ(Str(r, "first_stream"), "GPU 0 a");
    EXPECT_EQ(Str(r, "first_line"), file + ":" + std::to_string(copy));
    EXPECT_EQ(Str(r, "second_stream"), "GPU 1 a");
    EXPECT_EQ(Str(r, "second_line"), file + ":" + std::to_string(stage2));
    EXPECT_NE(Str(r, "fix").find("make \"GPU 1 a\" wait on it"), std::string::npos) << Str(r, "fix");
    // The devices: the copy is a peer copy from GPU 0 to GPU 1, into GPU 1's memory.
    EXPECT_EQ(Str(r, "first"), "peer copy GPU 0 -> GPU 1 batch 0");
    EXPECT_EQ(Num(r, "first_device"), 0);
    EXPECT_EQ(Num(r, "second_device"), 1);
    EXPECT_EQ(Num(r, "buffer_device"), 1);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "Why: your pipeline has races"), std::string::npos) << o.err;
}

// The report a student reads (no --json): race reports name the devices, the timeline
// groups its lanes by GPU with the link last, and the engines' use is per GPU.
TEST(Lab09, TheReportNamesTheDevices) {
    Outcome o = RunLabOnce("labs/09_two_gpus_stage2_unordered_sim",
                       {"--seed", "7", "--runs", "1", "--schedules", "0", "--width", "120"});
    EXPECT_EQ(o.exit_code, 2) << o.err;
    std::string report = o.out + o.err;
    const std::string file = "labs/09_two_gpus/testdata/variants.c";
    EXPECT_NE(FindFlat(report, " (GPU 1 memory)\n"), std::string::npos) << report;
    EXPECT_NE(FindFlat(report, ", on GPU 1, stream \"GPU 1 a\", " + file), std::string::npos) << report;
    EXPECT_NE(FindFlat(report, "peer copy GPU 0 -> GPU 1 batch 0 (op "), std::string::npos) << report;
    EXPECT_NE(FindFlat(report, ", on GPU 0, stream \"GPU 0 a\", " + file), std::string::npos) << report;
    size_t gpu0 = report.find("\nGPU 0\n"), gpu1 = report.find("\nGPU 1\n"), link = report.find("\nlink\n");
    ASSERT_NE(gpu0, std::string::npos) << report;
    ASSERT_NE(gpu1, std::string::npos) << report;
    ASSERT_NE(link, std::string::npos) << report;
    EXPECT_LT(gpu0, gpu1);
    EXPECT_LT(gpu1, link);
    EXPECT_EQ(report.find("\nGPU 0 -> GPU 1   ", link), link + 5) << report;
    EXPECT_NE(FindFlat(report, "engines busy: GPU 0 H2D "), std::string::npos) << report;
    EXPECT_NE(FindFlat(report, "; link GPU 0 -> GPU 1 "), std::string::npos) << report;
}

TEST(Lab09, AProfileOfOneDeviceIsRefused) {
    Outcome o = RunLabOnce("labs/09_two_gpus_sim", Args({"--profile=h100"}));
    EXPECT_EQ(o.exit_code, 64) << o.err;
    EXPECT_NE(FindFlat(o.err, "this lab needs 2 devices and the h100 profile simulates 1"), std::string::npos) << o.err;
}

// The baseline does not move with the student's code: TODO 1 alone (peer access on in
// setup(), in the device contexts the baseline shares) leaves the baseline's time as the
// skeleton's run found it, so the speedup shows TODO 1's real gain.
TEST(Lab09, TurningPeerAccessOnLeavesTheBaselineAlone) {
    Outcome skeleton = RunLabOnce("labs/09_two_gpus_sim", Args());
    Outcome peer = RunLabOnce("labs/09_two_gpus_peer_access_only_sim", Args());
    cJSON *a = Json(skeleton), *b = Json(peer);
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "timings");
    const cJSON *tb = cJSON_GetObjectItemCaseSensitive(b, "timings");
    double base_a = Num(ta, "baseline_median_ms"), base_b = Num(tb, "baseline_median_ms");
    EXPECT_GT(base_a, 0);
    EXPECT_NEAR(base_b, base_a, 0.01 * base_a) << "the baseline with your peer access on";
    EXPECT_TRUE(Bool(b, "correct"));
    EXPECT_EQ(Num(b, "races"), 0);
    // Faster than the baseline: the peer copies go over the link now.
    EXPECT_LT(Num(tb, "yours_median_ms"), 0.95 * base_b);
    EXPECT_GT(Num(b, "speedup"), 1.05);
    EXPECT_EQ(NextStep(b), "1/3 TODO 2 (an event across the devices instead of the host's waits)");
    cJSON_Delete(a);
    cJSON_Delete(b);
}

// Stage 2 launched into GPU 1's stream while GPU 0 is current: the CUDA 13 runtime runs a
// launch on its stream's device, and so does the simulator. The reference otherwise: pass.
TEST(Lab09, ALaunchIntoGpu1sStreamRunsOnGpu1) {
    Outcome o = RunLabOnce("labs/09_two_gpus_stage2_from_gpu0_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    cJSON_Delete(j);
}

// A run that stopped with a CUDA error at the student's line (an event of GPU 0 recorded on
// GPU 1's stream: cudaErrorInvalidResourceHandle) failed: not correct in the report, in
// --json, or in the event stream's result line.
TEST(Lab09, ARunThatFailedIsNotCorrectAnywhere) {
    const std::string file = "labs/09_two_gpus/testdata/variants.c";
    int record = LineOf(file, "/* record consumed */");
    ASSERT_GT(record, 0);
    Outcome o = RunLabOnce("labs/09_two_gpus_event_on_other_device_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_NE(FindFlat(o.err, file + ":" + std::to_string(record)), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "cudaErrorInvalidResourceHandle"), std::string::npos) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "error");
    EXPECT_FALSE(Bool(j, "correct"));
    ASSERT_NE(cJSON_GetObjectItemCaseSensitive(j, "correct"), nullptr);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(j, "first_mismatch"), nullptr);
    EXPECT_NE(Str(j, "error").find("your run() returned 1"), std::string::npos) << Str(j, "error");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.events, "\"correct\":false"), std::string::npos) << o.events;
    EXPECT_EQ(FindFlat(o.events, "\"correct\":true"), std::string::npos) << o.events;
    Events e = ReadEvents(o.events);
    EXPECT_EQ(e.bye_status, 2);
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (the skeleton's and the variant's host waits between the
// GPUs are costly; GPU 1's wait for the peer copy, or the final wait, otherwise).
TEST(Lab09, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string lab = "labs/09_two_gpus/lab.c", v = "labs/09_two_gpus/testdata/variants.c";
    const std::string copied = "cudaStreamWaitEvent(k->s1, k->copied, 0)";
    const std::string todo3 = "2/3 TODO 3 (a ring of buffers so the stages and the link overlap)";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/09_two_gpus_sim", "0/3 TODO 1 (peer access, both ways)", "cudaStreamSynchronize(\"GPU 0\")", lab,
              "LAB_CHECK(cudaStreamSynchronize(s0));", true},
             {"labs/09_two_gpus_peer_access_off_sim", "0/3 TODO 1 (peer access, both ways)",
              "cudaStreamWaitEvent(one of 3 streams)", v, copied, false},
             {"labs/09_two_gpus_sync_each_batch_sim", "1/3 TODO 2 (an event across the devices instead of the host's "
              "waits)", "cudaStreamSynchronize(one of 3 streams)", v, "LAB_CHECK(cudaStreamSynchronize(k->s1));", true},
             {"labs/09_two_gpus_one_slot_sim", todo3, "cudaStreamWaitEvent(\"GPU 1 a\")", v, copied, false},
             {"labs/09_two_gpus_ring_shared_streams_sim", todo3, "cudaStreamWaitEvent(\"GPU 1 a\")", v, copied, false},
             {"labs/09_two_gpus_stage2_unordered_sim", todo3, "cudaStreamSynchronize(one of 3 streams)", v,
              "for (int k = 0; k < RING; k++) LAB_CHECK(cudaStreamSynchronize(ring[k].s1));", false},
         })
        ExpectAdvice(c, Args());
}

}  // namespace

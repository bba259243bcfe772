// grading/grade_devices_test.cc: a lab that needs more GPUs than the machine has is graded
// on the simulator, and every report says so: the choice itself, the catalog's
// "devices", the GPU count's override, and a class of lab 09 graded with --backend gpu on
// a machine of one (fake) GPU, whose report.txt, results.json, JUnit files and summary
// each name the simulator and why.
#include <gtest/gtest.h>

#include <cjson/cJSON.h>

#include "grading/build/grade_devices.h"
#include "grading/grade_test_support.h"

namespace {

using namespace gradetest;

TEST(BackendForLab, FewerGpusThanTheLabNeedsMeansTheSimulator) {
    char why[256];
    EXPECT_STREQ(grade_backend_for_lab("gpu", "09_two_gpus", 2, 1, why, sizeof(why)), "sim");
    EXPECT_STREQ(why, "lab 09_two_gpus graded on the simulator: this machine has 1 GPU, the lab needs 2");
    EXPECT_STREQ(grade_backend_for_lab("gpu", "09_two_gpus", 2, 0, why, sizeof(why)), "sim");
    EXPECT_STREQ(why, "lab 09_two_gpus graded on the simulator: this machine has 0 GPUs, the lab needs 2");
}

TEST(BackendForLab, EnoughGpusOrTheSimulatorAskedForKeepTheBackend) {
    char why[256];
    EXPECT_STREQ(grade_backend_for_lab("gpu", "09_two_gpus", 2, 2, why, sizeof(why)), "gpu");
    EXPECT_STREQ(why, "");
    EXPECT_STREQ(grade_backend_for_lab("gpu", "03_double_buffer", 1, 1, why, sizeof(why)), "gpu");
    EXPECT_STREQ(why, "");
    EXPECT_STREQ(grade_backend_for_lab("sim", "09_two_gpus", 2, 0, why, sizeof(why)), "sim");
    EXPECT_STREQ(why, "");
}

TEST(CatalogDevices, TheShippedCatalogSaysLab09NeedsTwo) {
    std::string catalog = Slurp(Runfile("labs/catalog.json"));
    ASSERT_FALSE(catalog.empty());
    char err[256];
    EXPECT_EQ(grade_catalog_devices(catalog.c_str(), "09_two_gpus", err, sizeof(err)), 2);
    EXPECT_EQ(grade_catalog_devices(catalog.c_str(), "03_double_buffer", err, sizeof(err)), 1);
    EXPECT_EQ(grade_catalog_devices(catalog.c_str(), "99_nosuch", err, sizeof(err)), -1);
    EXPECT_STREQ(err, "the lab catalog has no entry \"99_nosuch\"");
}

TEST(CatalogDevices, BadValuesAreRefused) {
    char err[256];
    EXPECT_EQ(grade_catalog_devices("{\"labs\":[{\"id\":\"09_x\",\"devices\":0}]}", "09_x", err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("\"devices\" must be a whole number from 1 to 16"), std::string::npos) << err;
    EXPECT_EQ(grade_catalog_devices("{\"labs\":[{\"id\":\"09_x\",\"devices\":\"2\"}]}", "09_x", err, sizeof(err)), -1);
    EXPECT_EQ(grade_catalog_devices("{\"labs\":[{\"id\":\"09_x\",\"devices\":1.5}]}", "09_x", err, sizeof(err)), -1);
    EXPECT_EQ(grade_catalog_devices("not json", "09_x", err, sizeof(err)), -1);
    EXPECT_EQ(grade_catalog_devices("{\"labs\":[{\"id\":\"09_x\",\"devices\":3}]}", "09_x", err, sizeof(err)), 3);
}

TEST(GpuCount, TheOverrideWins) {
    setenv("STREAMLAB_GRADE_GPUS", "3", 1);
    EXPECT_EQ(grade_gpu_count(), 3);
    setenv("STREAMLAB_GRADE_GPUS", "0", 1);
    EXPECT_EQ(grade_gpu_count(), 0);
    unsetenv("STREAMLAB_GRADE_GPUS");
    // Without it: the device files, no more than CUDA_VISIBLE_DEVICES lists.
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    EXPECT_EQ(grade_gpu_count(), 0);
    unsetenv("CUDA_VISIBLE_DEVICES");
    EXPECT_GE(grade_gpu_count(), 0);
}

// A class of lab 09 with --backend gpu on a machine of one GPU (STREAMLAB_GRADE_GPUS=1):
// graded on the simulator, with no GPU needed, and every output says so.
TEST(TwoGpuLab, GradedOnTheSimulatorWhenTheMachineHasOneGpu) {
    std::string subs = TempDir("devices_subs"), out = TempDir("devices_out");
    fs::remove_all(out);
    Spit(subs + "/alice/labs/09_two_gpus/lab.c", Slurp(Runfile("solutions/09_two_gpus.c")));
    Spit(subs + "/bob/labs/09_two_gpus/lab.c", Slurp(Runfile("labs/09_two_gpus/lab.c")));
    setenv("STREAMLAB_GRADE_GPUS", "1", 1);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "09", "--backend", "gpu", "--jobs", "2",
                       "--runs", "1", "--schedules", "0", "--seed", "7", "--scratch", ScratchDir("devices")});
    unsetenv("STREAMLAB_GRADE_GPUS");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string said = "lab 09_two_gpus graded on the simulator: this machine has 1 GPU, the lab needs 2";
    EXPECT_NE(r.out.find(said), std::string::npos) << r.out;
    for (const char *who : {"alice", "bob"}) {
        std::string report = Slurp(out + "/" + who + "/report.txt");
        EXPECT_NE(report.find("  " + said + "\n"), std::string::npos) << report;
        EXPECT_NE(report.find("SIMULATED"), std::string::npos) << report;
        std::string results = Slurp(out + "/" + who + "/results.json");
        cJSON *j = cJSON_Parse(results.c_str());
        ASSERT_NE(j, nullptr);
        std::string output = cJSON_GetStringValue(cJSON_GetObjectItem(j, "output"));
        EXPECT_NE(output.find(said + "."), std::string::npos) << output;
        cJSON_Delete(j);
        std::string junit = Slurp(out + "/" + who + "/junit.xml");
        EXPECT_NE(junit.find("<property name=\"backend\" value=\"sim\"/>"), std::string::npos) << junit;
        EXPECT_NE(junit.find("<property name=\"backend_note\" value=\"" + said + "\"/>"), std::string::npos) << junit;
    }
    // The reference passes on the simulator's two H200s: it was really graded, not refused.
    std::string gradebook = Slurp(out + "/gradebook.csv");
    EXPECT_NE(gradebook.find("\nalice,100.00,100.00,"), std::string::npos) << gradebook;
    EXPECT_NE(Slurp(out + "/junit.xml").find("name=\"09_two_gpus backend_note\""), std::string::npos);
}

// No GPU at all: --backend gpu is refused, as before, even for a lab that would fall back.
TEST(TwoGpuLab, NoGpuAtAllIsStillRefused) {
    std::string subs = TempDir("devices_subs0"), out = TempDir("devices_out0");
    fs::remove_all(out);
    Spit(subs + "/alice/labs/09_two_gpus/lab.c", Slurp(Runfile("labs/09_two_gpus/lab.c")));
    Spit(subs + "/bob/labs/09_two_gpus/lab.c", Slurp(Runfile("labs/09_two_gpus/lab.c")));
    setenv("STREAMLAB_GRADE_GPUS", "0", 1);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "09", "--backend", "gpu", "--scratch",
                       ScratchDir("devices0")});
    unsetenv("STREAMLAB_GRADE_GPUS");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--backend gpu: no NVIDIA GPU"), std::string::npos) << r.err;
}

}  // namespace

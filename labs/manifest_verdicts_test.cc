// labs/manifest_verdicts_test.cc: a lab's manifest says what the simulator does. Built into
// every lab's tests (//labs:labNN_test, labs/lab_folder.bzl) with that lab's lab.json in its
// runfiles: the skeleton, the reference (0: pass) and every variant and extra build the
// manifest sends to a GPU exit with the "verdict" it gives them, so that the verdicts the
// GPU bundle (kernels/gpu_bundle.sh) holds a GPU to are the simulator's own. A build the
// lab's tests already ran (RunLabOnce, labs/lab_test_support.h) is not run again: its
// verdict is read off that run.
#include "labs/lab_test_support.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace labtest;

// The one labs/NN_topic/lab.json of this test's runfiles: the lab's id and its text.
std::pair<std::string, std::string> Manifest() {
    std::vector<std::filesystem::path> found;
    for (const auto &e : std::filesystem::directory_iterator(Binary("labs")))
        if (std::filesystem::exists(e.path() / "lab.json")) found.push_back(e.path());
    if (found.size() != 1) {
        ADD_FAILURE() << found.size() << " labs/*/lab.json in the runfiles, not one";
        return {"", ""};
    }
    std::ifstream in(found[0] / "lab.json");
    return {found[0].filename().string(), std::string(std::istreambuf_iterator<char>(in), {})};
}

TEST(Manifest, EveryBuildExitsWithItsVerdictOnTheSimulator) {
    auto [lab, text] = Manifest();
    ASSERT_FALSE(lab.empty());
    cJSON *m = cJSON_Parse(text.c_str());
    ASSERT_NE(m, nullptr) << "labs/" << lab << "/lab.json is not JSON";
    // binary (under the runfiles) -> the exit status the manifest gives it
    std::vector<std::pair<std::string, int>> builds = {
        {"labs/" + lab + "_sim", static_cast<int>(Num(cJSON_GetObjectItemCaseSensitive(m, "skeleton"), "verdict"))},
        {"solutions/" + lab + "_sim", 0},
    };
    for (const char *list : {"variants", "builds"}) {
        const cJSON *b;
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(m, list)) {
            // A build the bundle leaves off the GPU (a crash, a hang, an early exit) has its
            // verdict checked by the lab's own tests, with what it must report.
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(b, "on_gpu"))) continue;
            builds.push_back({"labs/" + lab + "_" + Str(b, "name") + "_sim", static_cast<int>(Num(b, "verdict"))});
        }
    }
    cJSON_Delete(m);
    for (const auto &[binary, verdict] : builds) {
        // The verdict at the least cost: the run the lab's own tests made of the build with
        // the fast options (kFast, or kFast without a perturbed schedule, through RunLabOnce:
        // the tests above this one in the same process), else one timed run and no perturbed
        // schedule (the simulator is deterministic).
        std::string ran = "with the lab tests' fast options";
        const Outcome *made = RunMade(binary, Args());
        if (!made) made = RunMade(binary, Args({"--schedules", "0"}));
        Outcome o;
        if (made) {
            o = *made;
        } else {
            ran = "once, no perturbed schedule";
            o = RunLab(binary, {"--seed", "7", "--runs", "1", "--schedules", "0", "--json", "--timeout", "10"});
        }
        EXPECT_EQ(o.exit_code, verdict) << binary << " run " << ran << " (labs/" << lab << "/lab.json says " << verdict
                                        << ")\n"
                                        << o.err.substr(0, 2000);
    }
}

}  // namespace

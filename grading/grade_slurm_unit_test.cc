// grading/grade_slurm_unit_test.cc: the parts of grading through Slurm that need no
// cluster: the options (--shard K/N, --time, --partition, what needs --slurm),
// a task's share of the class, the scripts and plan written into OUT/slurm, which tasks
// --only-failed submits again, and quoting for sh. grade_slurm_test runs them on Slurm.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "grading/cmd/grade_options.h"
#include "grading/grade_test_support.h"
#include "grading/slurm/grade_install.h"
#include "grading/slurm/grade_slurm.h"

namespace {

using namespace gradetest;

// The options point into argv: its strings live as long as the test binary.
std::deque<std::string> kept_args;

int Parse(const std::vector<std::string> &args, grade_options *o, std::string *err) {
    std::vector<char *> argv = {const_cast<char *>("grade")};
    for (const auto &a : args) {
        kept_args.push_back(a);
        argv.push_back(kept_args.back().data());
    }
    argv.push_back(nullptr);
    char buf[1024];
    int rc = grade_parse_options((int)argv.size() - 1, argv.data(), o, buf, sizeof(buf));
    *err = buf;
    return rc;
}

TEST(SlurmOptions, ShardAndSlurmOptionsParse) {
    grade_options o;
    std::string err;
    ASSERT_EQ(Parse({"--submissions", "s", "--out", "o", "--shard", "3/8"}, &o, &err), 0) << err;
    EXPECT_EQ(o.shard_k, 3);
    EXPECT_EQ(o.shard_n, 8);
    ASSERT_EQ(Parse({"--slurm", "--submissions", "s", "--out", "o", "--partition", "gpu-a100", "--gpus-per-task", "2",
                     "--time", "1-02:00:00", "--array-size", "40", "--submit"},
                    &o, &err),
              0)
        << err;
    EXPECT_STREQ(o.partition, "gpu-a100");
    EXPECT_EQ(o.gpus_per_task, 2);
    EXPECT_STREQ(o.time_limit, "1-02:00:00");
    EXPECT_EQ(o.array_size, 40);
    EXPECT_TRUE(o.submit);
    // --only-failed needs only --out: the plan has the rest.
    ASSERT_EQ(Parse({"--slurm", "--only-failed", "--out", "o"}, &o, &err), 0) << err;
    // The site's settings.
    ASSERT_EQ(Parse({"--slurm", "--submissions", "s", "--out", "o", "--gres", "gpu:a100:1", "--task-mem", "16G",
                     "--array-throttle", "8", "--prologue", "site.sh", "--sbatch-option=--account=cs101",
                     "--sbatch-option", "--qos=short"},
                    &o, &err),
              0)
        << err;
    EXPECT_STREQ(o.gres, "gpu:a100:1");
    EXPECT_STREQ(o.task_mem, "16G");
    EXPECT_EQ(o.array_throttle, 8);
    EXPECT_STREQ(o.prologue, "site.sh");
    ASSERT_EQ(o.n_sbatch_options, 2);
    EXPECT_STREQ(o.sbatch_options[0], "--account=cs101");
    EXPECT_STREQ(o.sbatch_options[1], "--qos=short");
    // --install stands alone.
    ASSERT_EQ(Parse({"--install", "/shared/streamlab"}, &o, &err), 0) << err;
    EXPECT_STREQ(o.install, "/shared/streamlab");
}

TEST(SlurmOptions, BadOnesAreRefusedSayingWhy) {
    grade_options o;
    std::string err;
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
        {{"--shard", "8/8"}, "--shard must be K/N"},
        {{"--shard", "3"}, "--shard must be K/N"},
        {{"--shard", "a/2"}, "--shard must be K/N"},
        {{"--slurm", "--time", "2h"}, "--time must be a Slurm time limit"},
        {{"--slurm", "--time", "1-2-3"}, "--time must be a Slurm time limit"},
        {{"--slurm", "--partition", "a b"}, "--partition must be a Slurm partition name"},
        {{"--slurm", "--array-size", "0"}, "--array-size must be a whole number"},
        {{"--slurm", "--gpus-per-task", "-1"}, "--gpus-per-task must be a whole number"},
        {{"--submit"}, "are for --slurm"},
        {{"--array-size", "4"}, "are for --slurm"},
        {{"--slurm", "--merge"}, "give one"},
        {{"--merge", "--force"}, "--merge takes a Slurm run's results"},
        {{"--slurm", "--task-mem", "8GB"}, "--task-mem must be a Slurm memory size"},
        {{"--slurm", "--task-mem", "G"}, "--task-mem must be a Slurm memory size"},
        {{"--slurm", "--array-throttle", "0"}, "--array-throttle must be a whole number"},
        {{"--slurm", "--gres", "gpu 1"}, "--gres must be a Slurm resource"},
        {{"--slurm", "--gres", "gpu:1", "--gpus-per-task", "1"}, "--gres and --gpus-per-task both ask for GPUs"},
        {{"--slurm", "--sbatch-option", "account=x"}, "--sbatch-option must be one sbatch option"},
        {{"--slurm", "--sbatch-option", "--account=x\n#SBATCH --qos=y"}, "--sbatch-option must be one sbatch option"},
        {{"--slurm", "--sbatch-option=--mem=4G"}, "the scripts set --mem themselves: use --task-mem"},
        {{"--slurm", "--sbatch-option", "--array=0-9%2"}, "the scripts set --array themselves"},
        {{"--slurm", "--sbatch-option", "--gres=gpu:1"}, "use --gres"},
        {{"--prologue", "p.sh"}, "are for --slurm"},
        {{"--task-mem", "4G"}, "are for --slurm"},
        {{"--install", "/x"}, "--install DIR copies the grader"},
    };
    for (const auto &[args, want] : bad) {
        std::vector<std::string> a = {"--submissions", "s", "--out", "o"};
        a.insert(a.end(), args.begin(), args.end());
        EXPECT_EQ(Parse(a, &o, &err), GRADE_EXIT_USAGE) << args[0];
        EXPECT_NE(err.find(want), std::string::npos) << err;
    }
}

TEST(SlurmShard, EachTaskGetsEveryNthSubmissionInOrder) {
    for (int k = 0; k < 3; k++) {
        grade_submission_list l = {};
        l.items = static_cast<grade_submission *>(calloc(7, sizeof(grade_submission)));
        for (int i = 0; i < 7; i++) {
            l.items[i].name = strdup(("s" + std::to_string(i)).c_str());
            l.items[i].path = strdup("p");
        }
        l.n = 7;
        grade_shard_filter(&l, k, 3);
        std::string got;
        for (size_t i = 0; i < l.n; i++) got += std::string(l.items[i].name) + " ";
        const char *want[] = {"s0 s3 s6 ", "s1 s4 ", "s2 s5 "};
        EXPECT_EQ(got, want[k]);
        grade_submission_list_free(&l);
    }
}

TEST(SlurmPlan, ScriptsPlanAndFailedTasks) {
    std::string out = TempDir("slurm_plan");
    const char *args[] = {"--submissions", "/class/subs", "--seed", "7"};
    const char *merge_args[] = {"--csv-bom"};
    const char *students[] = {"alice", "bob", "it's carol"};
    grade_slurm_plan p = {};
    p.out = out.c_str();
    p.grade = "/shared/grade";
    p.args = args;
    p.n_args = 4;
    p.merge_args = merge_args;
    p.n_merge_args = 1;
    p.partition = "gpu";
    p.time_limit = "2:00:00";
    p.gpus_per_task = 1;
    p.cpus_per_task = 4;
    p.tasks = 3;
    p.students = students;
    p.n_students = 3;
    p.usage = "grade";
    char err[1024];
    ASSERT_EQ(grade_slurm_write(&p, err, sizeof(err)), 0) << err;
    std::string array = Slurp(out + "/slurm/grade_array.sbatch");
    for (const char *want : {"#SBATCH --partition=gpu\n", "#SBATCH --cpus-per-task=4\n", "#SBATCH --gpus-per-task=1\n",
                             "#SBATCH --time=2:00:00\n", "--shard \"$K/3\" --out \"$SHARDS/$K\" --resume",
                             "'--submissions' '/class/subs'", "'--jobs' '4'", "\"$STATUS/$K\""})
        EXPECT_NE(array.find(want), std::string::npos) << want << "\n" << array;
    std::string merge = Slurp(out + "/slurm/merge.sbatch");
    EXPECT_NE(merge.find("'/shared/grade' --merge --out \"$OUT\""), std::string::npos) << merge;
    EXPECT_NE(merge.find("'--csv-bom'"), std::string::npos) << merge;
    EXPECT_EQ(merge.find("--gpus-per-task"), std::string::npos) << "the merge needs no GPU";
    std::string submit = Slurp(out + "/slurm/submit.sh");
    EXPECT_NE(submit.find("TASKS=\"${1:-0-2}\""), std::string::npos) << submit;
    EXPECT_NE(submit.find("--dependency=afterany:\"$array\" merge.sbatch"), std::string::npos) << submit;

    grade_slurm_state st;
    ASSERT_EQ(grade_slurm_read(out.c_str(), &st, err, sizeof(err)), 0) << err;
    EXPECT_EQ(st.tasks, 3);
    ASSERT_EQ(st.n_students, 3u);
    EXPECT_STREQ(st.students[2], "it's carol");
    // No task has run: all three are to be submitted again.
    char *failed = grade_slurm_failed_list(out.c_str(), &st);
    EXPECT_STREQ(failed, "0,1,2");
    free(failed);
    Spit(out + "/slurm/status/0", "0 12_0 node1\n");
    Spit(out + "/slurm/status/1", "143 12_1 node2\n");
    failed = grade_slurm_failed_list(out.c_str(), &st);
    EXPECT_STREQ(failed, "1,2");
    free(failed);
    char why[256];
    EXPECT_FALSE(grade_slurm_task_done(out.c_str(), 1, why, sizeof(why)));
    EXPECT_STREQ(why, "exit status 143");
    EXPECT_FALSE(grade_slurm_task_done(out.c_str(), 2, why, sizeof(why)));
    EXPECT_NE(std::string(why).find("no exit status"), std::string::npos);
    Spit(out + "/slurm/status/1", "0 13_1 node2\n");
    Spit(out + "/slurm/status/2", "0 13_2 node2\n");
    failed = grade_slurm_failed_list(out.c_str(), &st);
    EXPECT_STREQ(failed, "");
    free(failed);
    grade_slurm_state_free(&st);

    // A second plan starts afresh: the first one's statuses are gone.
    ASSERT_EQ(grade_slurm_write(&p, err, sizeof(err)), 0) << err;
    EXPECT_FALSE(fs::exists(out + "/slurm/status/0"));
    // No plan at all.
    EXPECT_EQ(grade_slurm_read(TempDir("slurm_none").c_str(), &st, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("no Slurm plan there"), std::string::npos) << err;
}

// The site-specific lines: GPUs through --gres (no cons_tres), --mem, a throttle on the
// array, the prologue in both jobs before the grader, more #SBATCH lines; none of them
// when not asked for.
TEST(SlurmPlan, SiteSettingsGoIntoTheScripts) {
    std::string out = TempDir("slurm_site");
    const char *args[] = {"--submissions", "/class/subs"};
    const char *students[] = {"alice", "bob"};
    const char *extra[] = {"--account=cs101", "--qos=short"};
    grade_slurm_plan p = {};
    p.out = out.c_str();
    p.grade = "/class/out/slurm/grader/grade";
    p.args = args;
    p.n_args = 2;
    p.gpus_per_task = 1;
    p.gres = "gpu:1";
    p.mem = "8192M";
    p.array_throttle = 3;
    p.prologue = "module load cuda/12.4\nsource /opt/site/env.sh";
    p.sbatch_options = extra;
    p.n_sbatch_options = 2;
    p.cpus_per_task = 2;
    p.tasks = 2;
    p.students = students;
    p.n_students = 2;
    p.usage = "grade";
    char err[1024];
    ASSERT_EQ(grade_slurm_write(&p, err, sizeof(err)), 0) << err;
    std::string array = Slurp(out + "/slurm/grade_array.sbatch");
    std::string merge = Slurp(out + "/slurm/merge.sbatch");
    for (const std::string *script : {&array, &merge}) {
        for (const char *want : {"#SBATCH --mem=8192M\n", "#SBATCH --account=cs101\n", "#SBATCH --qos=short\n",
                                 "module load cuda/12.4\nsource /opt/site/env.sh\n"})
            EXPECT_NE(script->find(want), std::string::npos) << want << "\n" << *script;
        // The prologue runs before the grader, after the #SBATCH lines (sbatch reads those
        // only before the first command).
        EXPECT_LT(script->find("module load"), script->find("'/class/out/slurm/grader/grade'")) << *script;
        EXPECT_GT(script->find("module load"), script->rfind("#SBATCH")) << *script;
    }
    EXPECT_NE(array.find("#SBATCH --gres=gpu:1\n"), std::string::npos) << array;
    EXPECT_EQ(array.find("--gpus-per-task"), std::string::npos) << array;
    EXPECT_EQ(merge.find("--gres"), std::string::npos) << "the merge needs no GPU";
    EXPECT_EQ(array.find("RUNFILES_DIR"), std::string::npos) << array;
    std::string submit = Slurp(out + "/slurm/submit.sh");
    EXPECT_NE(submit.find("THROTTLE=\"%3\"\n"), std::string::npos) << submit;
    EXPECT_NE(submit.find("--array=\"$TASKS$THROTTLE\""), std::string::npos) << submit;

    // Nothing asked: no such lines.
    p.gres = nullptr;
    p.gpus_per_task = 0;
    p.mem = nullptr;
    p.array_throttle = 0;
    p.prologue = nullptr;
    p.n_sbatch_options = 0;
    ASSERT_EQ(grade_slurm_write(&p, err, sizeof(err)), 0) << err;
    array = Slurp(out + "/slurm/grade_array.sbatch");
    for (const char *absent : {"--mem", "--gres", "--gpus-per-task", "--account", "prologue"})
        EXPECT_EQ(array.find(absent), std::string::npos) << absent << "\n" << array;
    EXPECT_NE(Slurp(out + "/slurm/submit.sh").find("THROTTLE=\"\"\n"), std::string::npos);
}

TEST(SlurmPlan, AnOutWithASpaceIsRefused) {
    std::string out = TempDir("slurm plan");
    grade_slurm_plan p = {};
    p.out = out.c_str();
    p.grade = "/g";
    p.tasks = 1;
    p.usage = "grade";
    char err[1024];
    EXPECT_EQ(grade_slurm_write(&p, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("cannot hold a path with a space"), std::string::npos) << err;
}

// grade --install: the grader, the kits (all, or the labs named: a Slurm plan's), the rubric
// and the catalog in a new folder, programs executable; a folder of something else is
// refused and left alone; an earlier install is replaced whole.
TEST(Install, CopiesTheGraderKitsRubricAndCatalog) {
    std::string dir = TempDir("install") + "/streamlab";
    std::string exe = fs::read_symlink("/proc/self/exe").string();
    grade_install_what w = {};
    w.grade = exe.c_str();
    std::string kits = Runfile("grading/kits"), rubric = Runfile("grading/rubric.json"),
                catalog = Runfile("labs/catalog.json");
    w.kits_dir = kits.c_str();
    w.rubric = rubric.c_str();
    w.catalog = catalog.c_str();
    w.usage = "grade";
    char err[1024];
    ASSERT_EQ(grade_install(&w, dir.c_str(), err, sizeof(err)), 0) << err;
    EXPECT_EQ(Slurp(dir + "/grade"), Slurp(exe));
    EXPECT_EQ(Slurp(dir + "/rubric.json"), Slurp(rubric));
    EXPECT_EQ(Slurp(dir + "/labs/catalog.json"), Slurp(catalog));
    EXPECT_TRUE(access((dir + "/grade").c_str(), X_OK) == 0);
    for (const char *kit : {"02_events_sim", "03_double_buffer_sim"}) {
        EXPECT_TRUE(fs::exists(dir + "/kits/" + kit + "/manifest.json")) << kit;
        EXPECT_TRUE(access((dir + "/kits/" + kit + "/bin/referee").c_str(), X_OK) == 0) << kit;
    }
    EXPECT_NE(Slurp(dir + "/INSTALLED.txt").find("kits/03_double_buffer_sim"), std::string::npos);

    // Again, with one lab: the other lab's kit is gone.
    const char *labs[] = {"03_double_buffer"};
    w.labs = labs;
    w.n_labs = 1;
    ASSERT_EQ(grade_install(&w, dir.c_str(), err, sizeof(err)), 0) << err;
    EXPECT_TRUE(fs::exists(dir + "/kits/03_double_buffer_sim/manifest.json"));
    EXPECT_FALSE(fs::exists(dir + "/kits/02_events_sim"));

    // A folder of something else.
    std::string other = TempDir("install_other");
    Spit(other + "/thesis.tex", "keep me");
    EXPECT_EQ(grade_install(&w, other.c_str(), err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("holds files of something else"), std::string::npos) << err;
    EXPECT_EQ(Slurp(other + "/thesis.tex"), "keep me");
    EXPECT_FALSE(fs::exists(other + "/grade"));
    // The installed copy installing over itself would remove its own kits first.
    std::string own_kits = dir + "/kits";
    w.kits_dir = own_kits.c_str();
    EXPECT_EQ(grade_install(&w, dir.c_str(), err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("the kits come from that folder itself"), std::string::npos) << err;
    EXPECT_TRUE(fs::exists(dir + "/kits/03_double_buffer_sim/manifest.json"));
    w.kits_dir = kits.c_str();
    // A lab with no kit.
    const char *none[] = {"07_cuda_graphs"};
    w.labs = none;
    EXPECT_EQ(grade_install(&w, TempDir("install_none").c_str(), err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("no kit of the labs"), std::string::npos) << err;
}

TEST(SlurmQuote, QuotesForSh) {
    char *q = grade_shell_quote("it's $HOME");
    EXPECT_STREQ(q, "'it'\\''s $HOME'");
    free(q);
}

}  // namespace

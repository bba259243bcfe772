// grading/grade_sandbox_test.cc: the sandbox a submission runs in, with ordinary programs
// standing in for misbehaving labs: each limit ends what it should and says so, the child
// sees only the environment and descriptors it is given, Landlock keeps its writes and
// reads where they are allowed, and the process filter lets threads through but no
// processes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "grading/grade_sandbox.h"
#include "grading/grade_seccomp.h"
}

namespace fs = std::filesystem;

namespace {

// Folders under /tmp: when the grader is root, the sandbox user must be able to reach them
// (TEST_TMPDIR may lie under /root). Removed when the test ends.
std::string base;
struct RemoveBase {
    ~RemoveBase() {
        std::error_code ec;
        if (!base.empty()) fs::remove_all(base, ec);
    }
} remove_base;

std::string TempDir(const std::string &name) {
    if (base.empty()) {
        char tmpl[] = "/tmp/grade_sandbox_test.XXXXXX";
        base = mkdtemp(tmpl);
        fs::permissions(base, fs::perms::all);
    }
    fs::path p = fs::path(base) / name;
    fs::remove_all(p);
    fs::create_directories(p);
    fs::permissions(p, fs::perms::all);
    return p.string();
}

std::string Slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const grade_sandbox_config &Config() {
    static grade_sandbox_config cfg;
    static bool probed = false;
    if (!probed) {
        grade_sandbox_probe(&cfg);
        probed = true;
    }
    return cfg;
}

struct Result {
    int rc;
    grade_outcome o;
    std::string out;
    std::string events;
};

void Collect(void *ctx, const char *bytes, size_t n) { static_cast<std::string *>(ctx)->append(bytes, n); }

// Runs argv in the sandbox with working folder dir; output goes to dir/out.txt.
Result Sandboxed(std::vector<std::string> argv, const std::string &dir, grade_limits limits,
                 grade_processes processes = GRADE_PROCESSES_ALLOWED, const char *const *write_dirs = nullptr,
                 const char *const *read_dirs = nullptr, bool events = false, size_t events_cap = 1 << 20) {
    Result r;
    std::string out_path = dir + "/out.txt";
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    EXPECT_GE(out, 0);
    int p[2] = {-1, -1};
    if (events) {
        EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    }
    std::vector<char *> args;
    for (auto &a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    std::string home = "HOME=" + dir;
    char *envp[] = {const_cast<char *>("PATH=/usr/bin:/bin"), home.data(), const_cast<char *>("ONLY=this"), nullptr};
    const char *default_write[] = {dir.c_str(), nullptr};
    grade_spawn s = {};
    s.argv = args.data();
    s.envp = envp;
    s.cwd = dir.c_str();
    s.stdout_fd = out;
    s.stderr_fd = out;
    s.events_fd = p[1];
    s.events_read_fd = p[0];
    s.events_cap = events_cap;
    s.on_events = Collect;
    s.ctx = &r.events;
    s.limits = limits;
    s.write_dirs = write_dirs ? write_dirs : default_write;
    s.read_dirs = read_dirs;
    s.processes = processes;
    grade_sandbox_give(&Config(), dir.c_str(), nullptr, 0);
    r.rc = grade_sandbox_run(&Config(), &s, &r.o);
    close(out);
    if (p[0] >= 0) close(p[0]);
    if (p[1] >= 0) close(p[1]);
    r.out = Slurp(out_path);
    return r;
}

const grade_limits kLimits = {.wall_s = 30, .cpu_s = 30, .mem_mb = 512, .as_mb = 0, .fsize_mb = 16, .nproc = 64, .nofile = 256};

TEST(Sandbox, ProbeSaysWhatProtectsTheGrader) {
    char *d = grade_sandbox_describe(&Config());
    std::string text = d;
    free(d);
    EXPECT_NE(text.find("Submissions ran as"), std::string::npos) << text;
    EXPECT_NE(text.find("Landlock"), std::string::npos) << text;
    if (geteuid() != 0) {
        EXPECT_FALSE(Config().drop_user);
    }
}

TEST(Sandbox, TheChildSeesOnlyItsEnvironmentAndDescriptors) {
    std::string dir = TempDir("env");
    Result r = Sandboxed({"/usr/bin/env"}, dir, kLimits);
    ASSERT_EQ(r.rc, 0) << r.o.error;
    EXPECT_EQ(r.o.end, GRADE_END_EXIT);
    EXPECT_EQ(r.o.code, 0);
    EXPECT_EQ(r.out, "PATH=/usr/bin:/bin\nHOME=" + dir + "\nONLY=this\n");

    // A descriptor the grader has open (not close-on-exec) does not reach the child.
    int fd = open("/dev/null", O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(dup2(fd, 9), 9);
    r = Sandboxed({"/bin/sh", "-c", "echo leaked >&9 && echo open || echo closed"}, dir, kLimits);
    close(9);
    close(fd);
    EXPECT_NE(r.out.find("closed"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("open"), std::string::npos) << r.out;
}

TEST(Sandbox, TheEventStreamIsDescriptorThree) {
    std::string dir = TempDir("events");
    Result r = Sandboxed({"/bin/sh", "-c", "echo hello >&3; echo to-stdout"}, dir, kLimits, GRADE_PROCESSES_ALLOWED,
                         nullptr, nullptr, true);
    EXPECT_EQ(r.o.end, GRADE_END_EXIT);
    EXPECT_EQ(r.events, "hello\n");
    EXPECT_EQ(r.out, "to-stdout\n");
    // Too much on the stream ends the child.
    r = Sandboxed({"/bin/sh", "-c", "exec /usr/bin/yes >&3"}, dir, kLimits, GRADE_PROCESSES_ALLOWED, nullptr, nullptr,
                  true, 1 << 16);
    EXPECT_EQ(r.o.end, GRADE_END_FLOOD);
    EXPECT_LE(r.events.size(), static_cast<size_t>(1 << 16));
}

TEST(Sandbox, TheWallClockLimitEndsASleeper) {
    std::string dir = TempDir("wall");
    grade_limits l = kLimits;
    l.wall_s = 1;
    Result r = Sandboxed({"/bin/sleep", "60"}, dir, l);
    EXPECT_EQ(r.o.end, GRADE_END_WALL);
    EXPECT_LT(r.o.wall_s, 10);
}

TEST(Sandbox, TheCpuLimitEndsASpinner) {
    std::string dir = TempDir("cpu");
    grade_limits l = kLimits;
    l.cpu_s = 1;
    Result r = Sandboxed({"/bin/sh", "-c", "while :; do :; done"}, dir, l);
    EXPECT_EQ(r.o.end, GRADE_END_SIGNAL);
    EXPECT_TRUE(r.o.code == SIGXCPU || r.o.code == SIGKILL) << grade_signal_name(r.o.code);
    EXPECT_GE(r.o.cpu_s, 0.9);
}

TEST(Sandbox, TheMemoryWatchdogEndsAHog) {
    std::string dir = TempDir("memory");
    grade_limits l = kLimits;
    l.mem_mb = 64;
    // tail keeps everything it reads from a file without line ends.
    Result r = Sandboxed({"/usr/bin/tail", "/dev/zero"}, dir, l);
    EXPECT_EQ(r.o.end, GRADE_END_MEMORY);
    EXPECT_GE(r.o.max_rss_kb, 64 * 1024);
}

TEST(Sandbox, TheOutputLimitEndsAFlood) {
    std::string dir = TempDir("output");
    grade_limits l = kLimits;
    l.fsize_mb = 1;
    Result r = Sandboxed({"/usr/bin/yes"}, dir, l);
    EXPECT_EQ(r.o.end, GRADE_END_SIGNAL);
    EXPECT_EQ(r.o.code, SIGXFSZ) << grade_signal_name(r.o.code);
    EXPECT_EQ(fs::file_size(dir + "/out.txt"), 1u << 20);
}

TEST(Sandbox, ProcessesAreRefusedOrKilledButThreadsRun) {
    if (!Config().seccomp) GTEST_SKIP() << Config().seccomp_note;
    std::string dir = TempDir("procs");
    Result r = Sandboxed({"/bin/sh", "-c", "/bin/true; echo after"}, dir, kLimits, GRADE_PROCESSES_KILL);
    EXPECT_EQ(r.o.end, GRADE_END_SIGNAL);
    EXPECT_EQ(r.o.code, SIGSYS);
    EXPECT_EQ(r.out.find("after"), std::string::npos);
    // Refused: the shell is told it cannot fork, and lives to say so.
    r = Sandboxed({"/bin/sh", "-c", "/bin/true"}, dir, kLimits, GRADE_PROCESSES_REFUSE);
    EXPECT_EQ(r.o.end, GRADE_END_EXIT);
    EXPECT_NE(r.o.code, 0);
    EXPECT_NE(r.out.find("fork"), std::string::npos) << r.out;
    // The same filter in a process of our own: a thread starts, a fork ends it.
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        char err[256];
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || grade_seccomp_no_processes(true, err, sizeof(err)) != 0)
            _exit(3);
        std::thread t([] {});
        t.join();
        if (write(p[1], "thread ran\n", 11) != 11) _exit(4);
        if (fork() == 0) _exit(0);
        _exit(5);
    }
    close(p[1]);
    char buf[64] = "";
    ssize_t n = read(p[0], buf, sizeof(buf) - 1);
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "thread ran\n");
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) << status;
}

TEST(Sandbox, LandlockKeepsWritesAndReadsInside) {
    if (Config().landlock_abi <= 0) GTEST_SKIP() << Config().landlock_note;
    std::string dir = TempDir("inside"), outside = TempDir("outside");
    std::string secret = outside + "/secret";
    std::ofstream(secret) << "do not read\n";
    fs::permissions(secret, fs::perms::all);
    std::string script = "echo in > " + dir + "/ok; echo out > " + outside + "/escaped; cat " + secret + "; echo done";
    Result r = Sandboxed({"/bin/sh", "-c", script}, dir, kLimits);
    EXPECT_TRUE(fs::exists(dir + "/ok"));
    EXPECT_FALSE(fs::exists(outside + "/escaped"));
    // Reads are not confined unless asked.
    EXPECT_NE(r.out.find("do not read"), std::string::npos) << r.out;

    const char *reads[] = {"/usr", "/lib", "/lib64", "/bin", "/etc", "/dev/null", dir.c_str(), nullptr};
    r = Sandboxed({"/bin/sh", "-c", script}, dir, kLimits, GRADE_PROCESSES_ALLOWED, nullptr, reads);
    EXPECT_EQ(r.o.end, GRADE_END_EXIT);
    EXPECT_EQ(r.out.find("do not read"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("done"), std::string::npos) << r.out;
    r = Sandboxed({"/bin/cat", "/proc/self/environ"}, dir, kLimits, GRADE_PROCESSES_ALLOWED, nullptr, reads);
    EXPECT_EQ(r.out.find("ONLY=this"), std::string::npos) << r.out;
}

TEST(Sandbox, TheChildRunsAsNobodyWhenTheGraderIsRoot) {
    if (!Config().drop_user) GTEST_SKIP() << Config().user_note;
    std::string dir = TempDir("user");
    Result r = Sandboxed({"/usr/bin/id", "-u"}, dir, kLimits);
    EXPECT_EQ(r.out, std::to_string(Config().uid) + "\n");
}

TEST(Sandbox, AProgramThatCannotStartIsSaidToBeSo) {
    std::string dir = TempDir("missing");
    Result r = Sandboxed({"/nonexistent/program"}, dir, kLimits);
    EXPECT_EQ(r.rc, -1);
    EXPECT_EQ(r.o.end, GRADE_END_NOT_STARTED);
    EXPECT_NE(std::string(r.o.error).find("/nonexistent/program"), std::string::npos) << r.o.error;
}

TEST(Sandbox, AFolderNobodyCanReachIsSeen) {
    if (!Config().drop_user) GTEST_SKIP() << Config().user_note;
    std::string dir = TempDir("reach");
    EXPECT_TRUE(grade_sandbox_can_reach(&Config(), dir.c_str()));
    fs::create_directories(dir + "/closed/inner");
    fs::permissions(dir + "/closed", fs::perms::owner_all);
    EXPECT_FALSE(grade_sandbox_can_reach(&Config(), (dir + "/closed/inner").c_str()));
}

TEST(Sandbox, SignalNames) {
    EXPECT_STREQ(grade_signal_name(SIGSEGV), "SIGSEGV");
    EXPECT_STREQ(grade_signal_name(SIGXFSZ), "SIGXFSZ");
    EXPECT_STREQ(grade_signal_name(0), "an unknown signal");
}

}  // namespace

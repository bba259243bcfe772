// grading/grade_sandbox_test.cc: the sandbox a submission runs in, with ordinary programs
// and grade_sandbox_helper standing in for misbehaving labs: each limit ends what it
// should and says so, the child sees only the environment and descriptors it is given,
// Landlock keeps its writes and reads where they are allowed, the process filter lets
// threads through but no processes, no socket of any family opens (nothing reaches a UDP
// or Unix socket of the host), a lab makes no namespace, mount or memfd, and the scratch
// folder's total size is capped (a filler is stopped at the cap, and what it wrote is gone).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
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
#include "grading/sandbox/grade_sandbox.h"
#include "grading/sandbox/grade_scratch.h"
#include "labs/referee/confine.h"
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

struct Extra {
    const grade_sandbox_config *cfg = nullptr; // nullptr: Config()
    bool gpu = false;
    const char *scratch_dir = nullptr;
    std::string out_dir; // where out.txt goes; "": the working folder
};

// Runs argv in the sandbox with working folder dir; output goes to dir/out.txt.
Result Sandboxed(std::vector<std::string> argv, const std::string &dir, grade_limits limits,
                 grade_processes processes = GRADE_PROCESSES_ALLOWED, const char *const *write_dirs = nullptr,
                 const char *const *read_dirs = nullptr, bool events = false, size_t events_cap = 1 << 20,
                 const Extra &extra = Extra()) {
    Result r;
    const grade_sandbox_config &cfg = extra.cfg ? *extra.cfg : Config();
    std::string out_path = (extra.out_dir.empty() ? dir : extra.out_dir) + "/out.txt";
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
    s.gpu = extra.gpu;
    s.scratch_dir = extra.scratch_dir;
    grade_sandbox_give(&cfg, dir.c_str(), nullptr, 0);
    r.rc = grade_sandbox_run(&cfg, &s, &r.o);
    close(out);
    if (p[0] >= 0) close(p[0]);
    if (p[1] >= 0) close(p[1]);
    r.out = Slurp(out_path);
    return r;
}

const grade_limits kLimits = {
    .wall_s = 30, .cpu_s = 30, .mem_mb = 512, .as_mb = 0, .fsize_mb = 16, .fsize_cut = false, .nproc = 64, .nofile = 256};

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
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || lab_confine_no_processes(true, err, sizeof(err)) != 0)
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

// ---- sockets, namespaces and the scratch folder, tried by grade_sandbox_helper ----------------

// The helper, where the sandbox user can run it (the runfiles may lie under /root).
std::string Helper() {
    static std::string path;
    if (path.empty()) {
        const char *src = std::getenv("TEST_SRCDIR");
        std::string from = std::string(src ? src : ".") + "/streamlab/grading/grade_sandbox_helper";
        path = TempDir("bin") + "/helper";
        fs::copy_file(from, path, fs::copy_options::overwrite_existing);
        fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
    }
    return path;
}

// Runs argv here, outside the sandbox; its stdout.
std::string Direct(std::vector<std::string> argv) {
    int p[2];
    EXPECT_EQ(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        std::vector<char *> args;
        for (auto &a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(p[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(p[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    close(p[0]);
    waitpid(pid, nullptr, 0);
    return out;
}

const char *const kFamilies[] = {"AF_INET SOCK_DGRAM",     "AF_INET SOCK_STREAM",  "AF_INET6 SOCK_DGRAM",
                                 "AF_UNIX SOCK_STREAM",    "AF_UNIX SOCK_DGRAM",   "AF_UNIX SOCK_SEQPACKET",
                                 "AF_NETLINK SOCK_RAW",    "AF_PACKET SOCK_DGRAM", "socketpair AF_UNIX"};

TEST(Sandbox, NoSocketOfAnyFamilyOpens) {
    if (!Config().seccomp) GTEST_SKIP() << Config().seccomp_note;
    // The helper opens them where nothing stops it.
    std::string free_run = Direct({Helper(), "sockets"});
    EXPECT_NE(free_run.find("AF_INET SOCK_DGRAM: ok"), std::string::npos) << free_run;
    EXPECT_NE(free_run.find("AF_UNIX SOCK_STREAM: ok"), std::string::npos) << free_run;
    EXPECT_NE(free_run.find("socketpair AF_UNIX: ok"), std::string::npos) << free_run;

    std::string dir = TempDir("sockets");
    // A lab program, and a compiler (which may start processes): the same.
    for (grade_processes p : {GRADE_PROCESSES_KILL, GRADE_PROCESSES_ALLOWED}) {
        SCOPED_TRACE(p);
        Result r = Sandboxed({Helper(), "sockets"}, dir, kLimits, p);
        EXPECT_EQ(r.o.end, GRADE_END_EXIT) << r.o.error;
        EXPECT_EQ(r.o.code, 0);
        for (const char *f : kFamilies) EXPECT_NE(r.out.find(std::string(f) + ": Permission denied"), std::string::npos) << f << "\n" << r.out;
        EXPECT_NE(r.out.find("io_uring_setup: Function not implemented"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find(": ok"), std::string::npos) << r.out;
    }
}

TEST(Sandbox, OnAGpuOnlyTheDriversUnixSeqpacketSocketOpens) {
    if (!Config().seccomp) GTEST_SKIP() << Config().seccomp_note;
    std::string dir = TempDir("gpu_sockets");
    Extra e;
    e.gpu = true;
    Result r = Sandboxed({Helper(), "sockets"}, dir, kLimits, GRADE_PROCESSES_REFUSE, nullptr, nullptr, false, 1 << 20, e);
    EXPECT_EQ(r.o.end, GRADE_END_EXIT) << r.o.error;
    EXPECT_NE(r.out.find("AF_UNIX SOCK_SEQPACKET: ok"), std::string::npos) << r.out;
    for (const char *f : kFamilies) {
        if (std::string(f) == "AF_UNIX SOCK_SEQPACKET") continue;
        EXPECT_NE(r.out.find(std::string(f) + ": Permission denied"), std::string::npos) << f << "\n" << r.out;
    }
}

TEST(Sandbox, NothingReachesAUdpOrUnixSocketOfTheHost) {
    if (!Config().seccomp) GTEST_SKIP() << Config().seccomp_note;
    int udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(udp, 0);
    struct sockaddr_in at = {};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(udp, reinterpret_cast<struct sockaddr *>(&at), sizeof(at)), 0);
    socklen_t len = sizeof(at);
    ASSERT_EQ(getsockname(udp, reinterpret_cast<struct sockaddr *>(&at), &len), 0);
    std::string port = std::to_string(ntohs(at.sin_port));

    // A Unix socket anyone may write to, as a careless service on the host might leave one.
    std::string path = TempDir("net_sock") + "/open.sock";
    int ux = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(ux, 0);
    struct sockaddr_un un = {};
    un.sun_family = AF_UNIX;
    snprintf(un.sun_path, sizeof(un.sun_path), "%s", path.c_str());
    ASSERT_EQ(bind(ux, reinterpret_cast<struct sockaddr *>(&un), sizeof(un)), 0);
    fs::permissions(path, fs::perms::all);

    char buf[64];
    // From outside the sandbox both arrive: the receivers work.
    Direct({Helper(), "udp", port});
    EXPECT_EQ(recv(udp, buf, sizeof(buf), 0), 7);
    Direct({Helper(), "unix", path});
    EXPECT_EQ(recv(ux, buf, sizeof(buf), 0), 7);

    std::string dir = TempDir("net");
    Result r = Sandboxed({Helper(), "udp", port}, dir, kLimits, GRADE_PROCESSES_KILL);
    EXPECT_NE(r.out.find("socket: Permission denied"), std::string::npos) << r.out;
    r = Sandboxed({Helper(), "unix", path}, dir, kLimits, GRADE_PROCESSES_KILL);
    EXPECT_NE(r.out.find("socket dgram: Permission denied"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("socket stream: Permission denied"), std::string::npos) << r.out;
    EXPECT_EQ(recv(udp, buf, sizeof(buf), 0), -1);
    EXPECT_EQ(errno, EAGAIN);
    EXPECT_EQ(recv(ux, buf, sizeof(buf), 0), -1);
    EXPECT_EQ(errno, EAGAIN);
    close(udp);
    close(ux);
}

TEST(Sandbox, ALabMakesNoNamespaceMountOrMemfd) {
    if (!Config().seccomp) GTEST_SKIP() << Config().seccomp_note;
    std::string dir = TempDir("escape");
    Result r = Sandboxed({Helper(), "escape"}, dir, kLimits, GRADE_PROCESSES_KILL);
    EXPECT_EQ(r.o.end, GRADE_END_EXIT) << r.o.error;
    EXPECT_NE(r.out.find("memfd_create: Operation not permitted"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("unshare: Operation not permitted"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mount: Operation not permitted"), std::string::npos) << r.out;
    // On a GPU the CUDA driver needs memfd_create; namespaces stay refused.
    Extra e;
    e.gpu = true;
    r = Sandboxed({Helper(), "escape"}, dir, kLimits, GRADE_PROCESSES_REFUSE, nullptr, nullptr, false, 1 << 20, e);
    EXPECT_NE(r.out.find("memfd_create: ok"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("unshare: Operation not permitted"), std::string::npos) << r.out;
}

grade_sandbox_config Capped(long mb, grade_scratch_mode mode) {
    grade_sandbox_config cfg = Config();
    cfg.scratch_mb = mb;
    cfg.scratch_mode = mode;
    return cfg;
}

// The modes to try here: the one this machine gives, and the watchdog every machine has.
std::vector<grade_scratch_mode> Modes() {
    std::vector<grade_scratch_mode> modes = {Config().scratch_mode};
    if (Config().scratch_mode != GRADE_SCRATCH_WATCH) modes.push_back(GRADE_SCRATCH_WATCH);
    return modes;
}

size_t Entries(const std::string &dir) {
    size_t n = 0;
    for (const auto &e : fs::directory_iterator(dir)) {
        (void)e;
        n++;
    }
    return n;
}

TEST(Sandbox, AFillerIsStoppedAtTheScratchCap) {
    for (grade_scratch_mode mode : Modes()) {
        SCOPED_TRACE(mode);
        std::string dir = TempDir("fill"), logs = TempDir("fill_logs");
        grade_sandbox_config cfg = Capped(32, mode);
        Extra e;
        e.cfg = &cfg;
        e.scratch_dir = dir.c_str();
        e.out_dir = logs;
        Result r = Sandboxed({Helper(), "fill"}, dir, kLimits, GRADE_PROCESSES_KILL, nullptr, nullptr, false, 1 << 20, e);
        EXPECT_EQ(r.o.end, GRADE_END_SCRATCH) << r.o.error << r.out;
        EXPECT_NE(std::string(r.o.error).find("wrote more than 32 MiB into its scratch folder"), std::string::npos)
            << r.o.error;
        // Stopped at the cap: it got near it, and (on a tmpfs) no further.
        EXPECT_GE(r.o.scratch_bytes, 24ll << 20);
        if (mode != GRADE_SCRATCH_WATCH) {
            EXPECT_LE(r.o.scratch_bytes, 32ll << 20);
            // What it wrote was the run's alone: nothing of it is on the grader's disk.
            EXPECT_EQ(Entries(dir), 0u);
        }
    }
}

TEST(Sandbox, AProgramMakingFilesWithoutEndIsStopped) {
    // The machine's mode only: thousands of files on a disk take seconds to make.
    for (grade_scratch_mode mode : {Config().scratch_mode}) {
        SCOPED_TRACE(mode);
        std::string dir = TempDir("files"), logs = TempDir("files_logs");
        grade_sandbox_config cfg = Capped(32, mode);
        Extra e;
        e.cfg = &cfg;
        e.scratch_dir = dir.c_str();
        e.out_dir = logs;
        Result r = Sandboxed({Helper(), "files"}, dir, kLimits, GRADE_PROCESSES_KILL, nullptr, nullptr, false, 1 << 20, e);
        EXPECT_EQ(r.o.end, GRADE_END_SCRATCH) << r.o.error << r.out;
        EXPECT_NE(std::string(r.o.error).find("made more than 4096 files and folders in its scratch folder"),
                  std::string::npos)
            << r.o.error;
    }
}

TEST(Sandbox, AWriteUnderTheScratchCapWorks) {
    for (grade_scratch_mode mode : Modes()) {
        SCOPED_TRACE(mode);
        std::string dir = TempDir("honest"), logs = TempDir("honest_logs");
        grade_sandbox_config cfg = Capped(32, mode);
        Extra e;
        e.cfg = &cfg;
        e.scratch_dir = dir.c_str();
        e.out_dir = logs;
        Result r = Sandboxed({Helper(), "write", "4"}, dir, kLimits, GRADE_PROCESSES_KILL, nullptr, nullptr, false, 1 << 20, e);
        EXPECT_EQ(r.o.end, GRADE_END_EXIT) << r.o.error;
        EXPECT_EQ(r.o.code, 0) << r.out;
        EXPECT_EQ(r.out, "wrote 4 MiB\n");
        EXPECT_EQ(Entries(dir), mode == GRADE_SCRATCH_WATCH ? 1u : 0u);
    }
}

TEST(Sandbox, TheScratchCapInAUserNamespaceOfItsOwn) {
    // What a grader that may not mount (not root, or a container's root) uses.
    std::string dir = TempDir("userns"), logs = TempDir("userns_logs");
    grade_sandbox_config cfg = Capped(32, GRADE_SCRATCH_USERNS);
    Extra e;
    e.cfg = &cfg;
    e.scratch_dir = dir.c_str();
    e.out_dir = logs;
    Result r = Sandboxed({Helper(), "fill"}, dir, kLimits, GRADE_PROCESSES_KILL, nullptr, nullptr, false, 1 << 20, e);
    if (r.rc != 0 && std::string(r.o.error).find("unshare(CLONE_NEWUSER)") != std::string::npos)
        GTEST_SKIP() << "no user namespaces here: " << r.o.error;
    EXPECT_EQ(r.o.end, GRADE_END_SCRATCH) << r.o.error << r.out;
    EXPECT_LE(r.o.scratch_bytes, 32ll << 20);
    EXPECT_EQ(Entries(dir), 0u);
    // The program in it is not root there: the namespaces stay refused.
    r = Sandboxed({Helper(), "escape"}, dir, kLimits, GRADE_PROCESSES_KILL, nullptr, nullptr, false, 1 << 20, e);
    EXPECT_NE(r.out.find("mount: Operation not permitted"), std::string::npos) << r.out;
}

TEST(Sandbox, TheMemoryWatchdogCountsAProgramsChildren) {
    // A compiler driver whose pass grows: the driver itself stays small.
    std::string dir = TempDir("tree_memory");
    grade_limits l = kLimits;
    l.mem_mb = 64;
    l.as_mb = 512; // should the watchdog miss it, tail stops at this instead of the machine's memory
    Result r = Sandboxed({"/bin/sh", "-c", "/usr/bin/tail /dev/zero; exit 0"}, dir, l);
    EXPECT_EQ(r.o.end, GRADE_END_MEMORY) << r.out;
}

TEST(Sandbox, TheDescriptionGivesTheLimits) {
    grade_sandbox_config cfg = Config();
    cfg.scratch_mb = 48;
    cfg.compile_s = 7;
    cfg.compile_mem_mb = 900;
    char *d = grade_sandbox_describe(&cfg);
    std::string text = d;
    free(d);
    EXPECT_NE(text.find("at most 48 MiB and 4096 files"), std::string::npos) << text;
    EXPECT_NE(text.find("stopped after 7 s of CPU time (30 s in all) or 900 MiB of memory"), std::string::npos) << text;
    if (Config().seccomp) {
        EXPECT_NE(text.find("opening sockets of any family"), std::string::npos) << text;
    }
}

}  // namespace

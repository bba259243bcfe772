// grading/grade_test_support.h: what the grader's tests share: runfile paths, temporary
// and scratch folders (the scratch under /tmp, where the sandbox user can reach it,
// removed when the test binary ends), reading and writing files, running a program with
// a time limit, and running //grading:grade with the tests' usual fast settings.
#ifndef STREAMLAB_GRADING_GRADE_TEST_SUPPORT_H
#define STREAMLAB_GRADING_GRADE_TEST_SUPPORT_H

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gradetest {

namespace fs = std::filesystem;

inline std::string Runfile(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    return std::string(dir ? dir : ".") + "/streamlab/" + rel;
}

inline std::string TempDir(const std::string &name) {
    const char *t = std::getenv("TEST_TMPDIR");
    fs::path p = fs::path(t ? t : "/tmp") / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
}

// A scratch folder for the grader: under /tmp, which the sandbox user can reach (TEST_TMPDIR
// may lie under /root). Removed when the test ends.
inline std::string scratch_base;
struct RemoveScratch {
    ~RemoveScratch() {
        std::error_code ec;
        if (!scratch_base.empty()) fs::remove_all(scratch_base, ec);
    }
};
inline RemoveScratch remove_scratch;

inline std::string ScratchDir(const std::string &name) {
    if (scratch_base.empty()) {
        char tmpl[] = "/tmp/grade_test.XXXXXX";
        scratch_base = mkdtemp(tmpl);
        fs::permissions(scratch_base, fs::perms::all);
    }
    fs::path p = fs::path(scratch_base) / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
}

inline std::string Slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void Spit(const std::string &path, const std::string &text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream out(path, std::ios::binary);
    out << text;
}

struct Outcome {
    int exit_code = -1;
    std::string out, err;
};

// Runs a program with a time limit, collecting stdout and stderr.
inline Outcome RunProgram(std::vector<std::string> argv, int limit_s = 600) {
    int out_p[2], err_p[2];
    EXPECT_EQ(pipe(out_p), 0);
    EXPECT_EQ(pipe(err_p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_p[1], 1);
        dup2(err_p[1], 2);
        for (int fd : {out_p[0], out_p[1], err_p[0], err_p[1]})
            if (fd > 2) close(fd);
        std::vector<char *> args;
        for (auto &a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(out_p[1]);
    close(err_p[1]);
    Outcome r;
    struct pollfd fds[2] = {{out_p[0], POLLIN, 0}, {err_p[0], POLLIN, 0}};
    std::string *bufs[2] = {&r.out, &r.err};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, limit_s * 1000) <= 0) {
            kill(pid, SIGKILL);
            ADD_FAILURE() << argv[0] << " ran for over " << limit_s << " s";
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[65536];
            ssize_t n = read(fds[i].fd, buf, sizeof(buf));
            if (n > 0) {
                bufs[i]->append(buf, static_cast<size_t>(n));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

// The grader with the test's usual settings: fast runs, short limits, the built-in rubric.
inline Outcome Grade(std::vector<std::string> args) {
    std::vector<std::string> argv = {Runfile("grading/grade"), "--runs", "2", "--schedules", "1", "--timeout", "120",
                                     "--memory-mb", "1024", "--no-progress"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProgram(argv);
}

}  // namespace gradetest

#endif

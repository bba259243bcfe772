// labs/referee/privileges_test.cc: what a process that gave up its privileges
// (privileges.h) can still reach of its parent when the parent is not dumpable, as the
// referee is: not its environment, its memory, its descriptors, nor a ptrace attach, as
// root or as any other user; and it holds no capability, even after an exec.
#include "labs/referee/privileges.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace {

// A line of /proc/self/status ("CapEff:\t0000000000000000"), the value alone.
std::string Status(const char *key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(std::string(key) + ":", 0) == 0) return line.substr(line.find_first_not_of(" \t", strlen(key) + 1));
    return "";
}

// Runs check in a child that dropped its privileges; its exit status is the number of the
// first check that failed (0: none).
int InChild(int (*check)(pid_t parent)) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        char err[256];
        if (lab_drop_privileges(err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            _exit(100);
        }
        _exit(check(parent));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

int NoCapabilities(pid_t) {
    if (Status("CapEff") != "0000000000000000") return 1;
    if (Status("CapPrm") != "0000000000000000") return 2;
    if (Status("CapBnd") != "0000000000000000") return 3;
    if (Status("NoNewPrivs") != "1") return 4;
    return 0;
}

TEST(Privileges, NoneAreLeft) { EXPECT_EQ(InChild(NoCapabilities), 0); }

int NothingOfTheParent(pid_t parent) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)parent);
    if (open(path, O_RDONLY) >= 0) return 1;
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)parent);
    if (open(path, O_RDONLY) >= 0) return 2;
    snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)parent);
    if (open(path, O_WRONLY) >= 0) return 3;
    char buf[16];
    struct iovec local = {buf, sizeof(buf)}, remote = {path, sizeof(buf)};
    if (process_vm_readv(parent, &local, 1, &remote, 1, 0) >= 0) return 4;
    if (ptrace(PTRACE_SEIZE, parent, 0, 0) == 0) return 5;
    return 0;
}

TEST(Privileges, ANonDumpableParentIsOutOfReach) {
    ASSERT_EQ(prctl(PR_SET_DUMPABLE, 0), 0);
    int failed = InChild(NothingOfTheParent);
    prctl(PR_SET_DUMPABLE, 1);
    EXPECT_EQ(failed, 0) << "check " << failed << " reached the parent";
}

// An exec (of a program that prints its capabilities) gives none back, root or not.
int ExecGivesNoneBack(pid_t) {
    execl("/bin/grep", "grep", "-q", "^CapEff:[[:space:]]*0000000000000000$", "/proc/self/status", (char *)nullptr);
    return 50;
}

TEST(Privileges, AnExecGivesNoneBack) { EXPECT_EQ(InChild(ExecGivesNoneBack), 0); }

}  // namespace

// labs/referee/process_test.cc: the referee starts a student's process, drives its phases
// and serves its commands; a process that crashes, hangs or writes nonsense ends its phase
// with that said, and the process can read neither the referee's memory nor its kit
// variables.
#include "labs/referee/process.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace {

constexpr uint32_t kOpAddOne = LAB_OP_FIRST_CALL;
constexpr uint32_t kOpNote = LAB_OP_FIRST_CALL + 1;

struct Served {
    uint64_t notes = 0;
    uint64_t sum = 0;
};

int Serve(void *ctx, lab_referee *ref, const lab_ring_record *rec, const void *payload) {
    Served *s = static_cast<Served *>(ctx);
    uint32_t v;
    if (rec->len != sizeof(v)) return -1;
    memcpy(&v, payload, sizeof(v));
    if (rec->op == kOpAddOne) {
        uint32_t answer = v + 1;
        lab_ring_reply(ref->ring, rec->seq, &answer, sizeof(answer));
        return 0;
    }
    if (rec->op == kOpNote) {
        s->notes++;
        s->sum += v;
        return 0;
    }
    return -1;
}

const char *kStudent = "labs/referee/testdata_student";

struct Started {
    lab_referee ref;
    bool ok = false;
    std::string err;
    explicit Started(const char *how, uint32_t flags = 0) {
        char *argv[] = {const_cast<char *>(kStudent), const_cast<char *>(how), const_cast<char *>("x"), nullptr};
        char e[512] = "";
        ok = lab_referee_start(&ref, argv, 8u << 20, 64u << 10, 1u << 20, -1, -1, flags, e, sizeof(e)) == 0;
        err = e;
    }
    ~Started() {
        if (ok) lab_referee_stop(&ref);
    }
};

TEST(Process, PhasesRunInTheStudentsProcessAndItsCommandsAreServed) {
    Started st("honest");
    ASSERT_TRUE(st.ok) << st.err;
    Served served;
    int rc = -1;
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_SETUP, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
    EXPECT_EQ(rc, 0) << "the reply to a synchronising command reached it";
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
    EXPECT_EQ(rc, 7);
    EXPECT_EQ(served.notes, 1000u);
    EXPECT_EQ(served.sum, 999u * 1000u / 2);
    size_t bytes = 0;
    uint64_t shared_sum = 0;
    memcpy(&shared_sum, lab_referee_data(&st.ref, &bytes), sizeof(shared_sum));
    EXPECT_EQ(shared_sum, served.sum) << "both see the same data memory";
    EXPECT_GT(bytes, 0u);
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_TEARDOWN, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
}

TEST(Process, OnARealDeviceTheProcessSaysItIsReadyBeforeATimedPhase) {
    Started st("honest", LAB_CONTROL_REAL_DEVICE);
    ASSERT_TRUE(st.ok) << st.err;
    Served served;
    int rc = -1;
    ASSERT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_SETUP, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
    /* Past its spinning (LAB_REAL_DEVICE_SPIN_NS): the process sleeps on the phase's futex. */
    usleep((useconds_t)(2 * LAB_REAL_DEVICE_SPIN_NS / 1000));
    for (uint32_t round = 1; round <= 3; round++) {
        lab_referee_ready(&st.ref);
        EXPECT_EQ(__atomic_load_n(&st.ref.control->ready_seq, __ATOMIC_SEQ_CST), round);
        /* lab_referee_ready waits a while for the answer; a loaded machine may take longer. */
        for (int i = 0; i < 5000 && __atomic_load_n(&st.ref.control->ready_ack, __ATOMIC_SEQ_CST) != round; i++)
            usleep(1000);
        EXPECT_EQ(__atomic_load_n(&st.ref.control->ready_ack, __ATOMIC_SEQ_CST), round)
            << "woken, it answered before the phase was asked for";
    }
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
    EXPECT_EQ(rc, 7) << "the phase after readiness runs as any other";
}

TEST(Process, OnTheSimulatorReadinessAsksNothing) {
    Started st("honest");
    ASSERT_TRUE(st.ok) << st.err;
    lab_referee_ready(&st.ref);
    EXPECT_EQ(st.ref.control->ready_seq, 0u) << "the simulator's student process never spins";
}

TEST(Process, TheStudentsProcessCanReadTheOutputsButNotWriteThem) {
    Started st("outputs");
    ASSERT_TRUE(st.ok) << st.err;
    size_t bytes = 0;
    uint32_t *out = static_cast<uint32_t *>(lab_referee_outputs(&st.ref, &bytes));
    ASSERT_GE(bytes, 4096u);
    out[0] = 0xfeedu; // the referee writes an output, as a device-to-host copy does
    Served served;
    int rc = 0;
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
    // testdata_student.c: 10 when it read 0xfeed and every way it tried to write failed.
    EXPECT_EQ(rc, 10) << "1x: a way to write the outputs worked (1 mprotect, 2 a writable mapping, 3 reopening "
                         "the file, 4 write()), 2: it did not read what the referee wrote";
    EXPECT_EQ(out[0], 0xfeedu);
}

TEST(Process, ACrashEndsThePhaseAsDied) {
    Started st("crash");
    ASSERT_TRUE(st.ok) << st.err;
    Served served;
    int rc = 0;
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 10000, &rc), LAB_PHASE_DIED);
    EXPECT_TRUE(WIFSIGNALED(st.ref.status) && WTERMSIG(st.ref.status) == SIGILL);
}

TEST(Process, AHangEndsThePhaseAtItsTimeout) {
    Started st("hang");
    ASSERT_TRUE(st.ok) << st.err;
    Served served;
    int rc = 0;
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 200, &rc), LAB_PHASE_TIMEOUT);
    EXPECT_TRUE(st.ref.ended);
}

TEST(Process, NonsenseInTheRingEndsThePhaseAsBroken) {
    Started st("garbage");
    ASSERT_TRUE(st.ok) << st.err;
    Served served;
    int rc = 0;
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 10000, &rc), LAB_PHASE_BROKEN);
    EXPECT_TRUE(st.ref.ended);
}

TEST(Process, TheStudentsProcessGetsNoKitVariables) {
    setenv("STREAMLAB_SECRET", "nonce", 1);
    Started st("env");
    ASSERT_TRUE(st.ok) << st.err;
    Served served;
    int rc = 0;
    EXPECT_EQ(lab_referee_phase(&st.ref, LAB_PHASE_RUN, Serve, &served, 10000, &rc), LAB_PHASE_ENDED);
    EXPECT_EQ(rc, 6) << "a STREAMLAB_ variable reached the student's process";
    unsetenv("STREAMLAB_SECRET");
}

// As the grader runs a lab: the user nobody starts the referee's binary, which starts the
// student's; the student's process tries /proc/<referee>/mem and /proc/<referee>/environ.
// Root reads any process's memory, so the test needs root to become nobody (it runs outside
// Bazel's sandbox for that), and copies of both binaries that nobody may run.
TEST(Process, TheStudentsProcessCannotReadTheRefereesMemory) {
    ASSERT_EQ(geteuid(), 0u) << "this test becomes the user nobody, which takes root";
    char dir[] = "/tmp/referee-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    ASSERT_EQ(chmod(dir, 0755), 0);
    std::string referee = std::string(dir) + "/referee", student = std::string(dir) + "/student";
    std::string cmd = std::string("cp labs/referee/testdata_referee ") + referee + " && cp " + kStudent + " " + student;
    ASSERT_EQ(system(cmd.c_str()), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
        execl(referee.c_str(), referee.c_str(), student.c_str(), static_cast<char *>(nullptr));
        _exit(101);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    unlink(referee.c_str());
    unlink(student.c_str());
    rmdir(dir);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 100) << "cannot become nobody";
    ASSERT_NE(WEXITSTATUS(status), 2) << "the referee did not run its student";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the referee's memory or environment was readable";
}

TEST(Process, AProgramThatCannotStartIsSaidSo) {
    lab_referee ref;
    char *argv[] = {const_cast<char *>("labs/referee/no-such-student"), nullptr};
    char err[512] = "";
    EXPECT_NE(lab_referee_start(&ref, argv, 8u << 20, 64u << 10, 1u << 20, -1, -1, 0, err, sizeof(err)), 0);
    EXPECT_NE(std::string(err).find("no-such-student"), std::string::npos) << err;
}

}  // namespace

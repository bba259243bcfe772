// grading/grade_hostile_test.cc: the sandbox's last exits, end to end against the
// real //grading:grade, in one class run of lab 03 with two honest students (the skeleton
// and the reference) and a hostile submission of each kind (grading/testdata/hostile/):
//  - a UDP datagram to 127.0.0.1 from setup(), and a write to a Unix socket that anyone may
//    write to: nothing arrives, the labs are graded for what they do;
//  - a disk filler (8 MiB files until 3 GiB): stopped at --scratch-mb with the reason, never
//    more than the cap on the grading host's disk, nothing left in --scratch afterwards;
//  - #include "/etc/passwd", and an assembler .incbin of a file anyone may read (another
//    student's, the grader's): "does not compile", and nothing of either file in any report;
//  - a macro bomb: stopped at --compile-timeout (or the memory limit) with the reason;
// and the honest students graded as they would be alone.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";
const long kScratchMb = 32;

std::string Hostile(const std::string &name) { return Slurp(Runfile("grading/testdata/hostile/" + name + ".c")); }

std::string Replace(std::string s, const std::string &from, const std::string &to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

// The bytes below dir, following no links; 0 when it is gone.
long long DiskBytes(const fs::path &dir) {
    long long total = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        struct stat st;
        if (lstat(it->path().c_str(), &st) == 0) total += static_cast<long long>(st.st_blocks) * 512;
    }
    return total;
}

class HostileClass : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        // Where the hostile network submissions aim: a UDP socket, and a Unix socket that
        // anyone may write to.
        udp_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_in at = {};
        at.sin_family = AF_INET;
        at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bind(udp_, reinterpret_cast<struct sockaddr *>(&at), sizeof(at));
        socklen_t len = sizeof(at);
        getsockname(udp_, reinterpret_cast<struct sockaddr *>(&at), &len);
        std::string host = ScratchDir("hostile_host");
        fs::permissions(host, fs::perms::all);
        std::string sock = host + "/service.sock";
        unix_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_un un = {};
        un.sun_family = AF_UNIX;
        snprintf(un.sun_path, sizeof(un.sun_path), "%s", sock.c_str());
        bind(unix_, reinterpret_cast<struct sockaddr *>(&un), sizeof(un));
        chmod(sock.c_str(), 0777);
        // A file anyone may read, standing for another student's lab file.
        std::string secret = host + "/classmate_lab.c";
        Spit(secret, "/* the classmate's solution: secret-marker-7f3a */\n");
        chmod(secret.c_str(), 0644);

        std::string subs = TempDir("hostile_subs");
        Spit(subs + "/alice/" + kLabFile, Slurp(Runfile("labs/03_double_buffer/lab.c")));
        Spit(subs + "/bob/" + kLabFile, Slurp(Runfile("solutions/03_double_buffer.c")));
        Spit(subs + "/mallory_udp/" + kLabFile,
             Replace(Hostile("udp_from_setup"), "@PORT@", std::to_string(ntohs(at.sin_port))));
        Spit(subs + "/mallory_unix/" + kLabFile, Replace(Hostile("unix_socket"), "@SOCKET@", sock));
        Spit(subs + "/mallory_disk/" + kLabFile, Hostile("disk_filler"));
        Spit(subs + "/mallory_passwd/" + kLabFile, Hostile("include_passwd"));
        Spit(subs + "/mallory_incbin/" + kLabFile, Replace(Hostile("incbin_secret"), "@SECRET@", secret));
        Spit(subs + "/mallory_bomb/" + kLabFile, Hostile("macro_bomb"));

        out_ = new std::string(TempDir("hostile_out"));
        scratch_ = new std::string(ScratchDir("hostile_scratch"));
        fs::permissions(*scratch_, fs::perms::all);

        // While the class is graded: the most any lab run's folder held on the host's disk.
        std::atomic<bool> done{false};
        std::thread watch([&] {
            while (!done) {
                std::error_code ec;
                for (fs::recursive_directory_iterator it(*scratch_, fs::directory_options::skip_permission_denied, ec),
                     end;
                     !ec && it != end; it.increment(ec))
                    if (it->path().filename() == "run" && it->is_directory(ec))
                        max_run_bytes_ = std::max(max_run_bytes_, DiskBytes(it->path()));
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        });
        result_ = new Outcome(Grade({"--submissions", subs, "--out", *out_, "--labs", "03", "--seed", "42", "--quiet",
                                     "--jobs", "2", "--compile-timeout", "2", "--scratch-mb", std::to_string(kScratchMb),
                                     "--scratch", *scratch_}));
        done = true;
        watch.join();
    }

    static void TearDownTestSuite() {
        close(udp_);
        close(unix_);
        delete result_;
        delete out_;
        delete scratch_;
    }

    void SetUp() override { ASSERT_EQ(result_->exit_code, 0) << result_->err; }

    static std::string Report(const std::string &student) { return Slurp(*out_ + "/" + student + "/report.txt"); }
    static std::string Row(const std::string &student) {
        std::string book = Slurp(*out_ + "/gradebook.csv");
        size_t at = book.find("\r\n" + student + ",");
        return at == std::string::npos ? "" : book.substr(at + 2, book.find("\r\n", at + 2) - at - 2);
    }
    // Every file the grader wrote, together.
    static std::string Everything() {
        std::string all;
        for (const auto &e : fs::recursive_directory_iterator(*out_))
            if (e.is_regular_file()) all += Slurp(e.path().string());
        return all;
    }
    static std::string Sandbox() {
        std::string r = Report("alice");
        size_t at = r.find("\nsandbox ");
        return at == std::string::npos ? "" : r.substr(at, r.find('\n', at + 1) - at);
    }

    static int udp_, unix_;
    static Outcome *result_;
    static std::string *out_, *scratch_;
    static long long max_run_bytes_;
};

int HostileClass::udp_ = -1;
int HostileClass::unix_ = -1;
Outcome *HostileClass::result_ = nullptr;
std::string *HostileClass::out_ = nullptr;
std::string *HostileClass::scratch_ = nullptr;
long long HostileClass::max_run_bytes_ = 0;

TEST_F(HostileClass, TheHonestStudentsAreGradedAsAlone) {
    // As in a class of the two alone (grade_mistakes_test, the same seed).
    EXPECT_EQ(Row("alice").rfind("alice,60.00,", 0), 0u) << Row("alice");
    EXPECT_EQ(Row("bob").rfind("bob,100.00,", 0), 0u) << Row("bob");
}

TEST_F(HostileClass, NoDatagramLeavesTheSandbox) {
    if (Sandbox().find("NO seccomp") != std::string::npos) GTEST_SKIP() << Sandbox();
    char buf[64];
    EXPECT_EQ(recv(udp_, buf, sizeof(buf), 0), -1);
    EXPECT_EQ(errno, EAGAIN);
    EXPECT_EQ(recv(unix_, buf, sizeof(buf), 0), -1);
    EXPECT_EQ(errno, EAGAIN);
    // Refused, and graded for what they do.
    EXPECT_NE(Report("mallory_udp").find("telemetry socket: Permission denied"), std::string::npos)
        << Report("mallory_udp");
    EXPECT_NE(Report("mallory_unix").find("service socket (datagram): Permission denied"), std::string::npos)
        << Report("mallory_unix");
    EXPECT_NE(Report("mallory_unix").find("service socket (stream): Permission denied"), std::string::npos);
    EXPECT_EQ(Row("mallory_udp").rfind("mallory_udp,100.00,", 0), 0u) << Row("mallory_udp");
    EXPECT_EQ(Row("mallory_unix").rfind("mallory_unix,100.00,", 0), 0u) << Row("mallory_unix");
}

TEST_F(HostileClass, ADiskFillerIsStoppedAtTheScratchCap) {
    EXPECT_NE(Row("mallory_disk").find("wrote more than 32 MiB into its scratch folder, so it was stopped"),
              std::string::npos)
        << Row("mallory_disk");
    EXPECT_NE(Report("mallory_disk").find("wrote more than 32 MiB into its scratch folder"), std::string::npos);
    // On the host's disk a run's folder never held more than the cap (on a tmpfs of its
    // own: nothing at all), and the grader's scratch is gone.
    EXPECT_LE(max_run_bytes_, kScratchMb << 20);
    if (Sandbox().find("private tmpfs") != std::string::npos) {
        EXPECT_LT(max_run_bytes_, 1 << 20);
    }
    EXPECT_TRUE(fs::is_empty(*scratch_)) << *scratch_;
    EXPECT_NE(Sandbox().find("at most 32 MiB"), std::string::npos) << Sandbox();
}

TEST_F(HostileClass, ACompileReadsNothingOfTheHost) {
    if (Sandbox().find("NOT confined by Landlock") != std::string::npos) GTEST_SKIP() << Sandbox();
    std::string passwd = Slurp("/etc/passwd");
    std::string first = passwd.substr(0, passwd.find('\n'));
    ASSERT_FALSE(first.empty());
    std::string all = Everything();
    EXPECT_EQ(all.find(first), std::string::npos) << "the first line of /etc/passwd is in a report";
    EXPECT_EQ(all.find("secret-marker-7f3a"), std::string::npos) << "the classmate's file is in a report";
    EXPECT_NE(Row("mallory_passwd").find("does not compile: labs/03_double_buffer/lab.c:6:10: fatal error: /etc/passwd: "
                                         "Permission denied"),
              std::string::npos)
        << Row("mallory_passwd");
    EXPECT_NE(Row("mallory_incbin").find("does not compile: lab.s:"), std::string::npos) << Row("mallory_incbin");
    EXPECT_NE(Row("mallory_incbin").find("Error: file not found"), std::string::npos) << Row("mallory_incbin");
}

TEST_F(HostileClass, AMacroBombEndsAtTheCompileLimits) {
    std::string row = Row("mallory_bomb");
    bool cpu = row.find("does not compile: the compiler took too long: it was stopped after 2 s of CPU time") !=
               std::string::npos;
    bool memory = row.find("does not compile: the compiler used too much memory: it was stopped at 1024 MiB") !=
                  std::string::npos;
    EXPECT_TRUE(cpu || memory) << row;
    EXPECT_NE(Sandbox().find("stopped after 2 s of CPU time (30 s in all) or 1024 MiB of memory"), std::string::npos)
        << Sandbox();
}

}  // namespace

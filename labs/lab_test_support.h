// labs/lab_test_support.h: what the labs' end-to-end tests share: run a lab binary as
// the grader does (the live event stream on descriptor 3, a 120 s limit), once for every
// test of a suite that reads the same run (RunLabOnce), read its --json object and its
// event stream.
#ifndef STREAMLAB_LABS_LAB_TEST_SUPPORT_H
#define STREAMLAB_LABS_LAB_TEST_SUPPORT_H

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <cjson/cJSON.h>

extern "C" {
#include "trace/stream/events_reader.h"
}

namespace labtest {

struct Outcome {
    int exit_code = -1;
    std::string out, err, events;
    double seconds = 0;
};

inline std::string Binary(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    return std::string(dir ? dir : ".") + "/streamlab/" + rel;
}

// Runs a lab binary with the live event stream on descriptor 3 and the variables of env
// ("NAME=value") set; kills it after 120 s.
inline Outcome RunLab(const std::string &rel, std::vector<std::string> args, const char *nonce = nullptr,
                      const std::vector<std::string> &env = {}) {
    int out_p[2], err_p[2], ev_p[2];
    EXPECT_EQ(pipe(out_p), 0);
    EXPECT_EQ(pipe(err_p), 0);
    EXPECT_EQ(pipe(ev_p), 0);
    std::string path = Binary(rel);
    args.insert(args.begin(), path);
    timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_p[1], 1);
        dup2(err_p[1], 2);
        dup2(ev_p[1], 3);
        for (int fd : {out_p[0], out_p[1], err_p[0], err_p[1], ev_p[0], ev_p[1]})
            if (fd > 3) close(fd);
        if (nonce) setenv("STREAMLAB_EVENTS_NONCE", nonce, 1);
        for (const std::string &v : env) putenv(strdup(v.c_str()));
        std::vector<char *> argv;
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(path.c_str(), argv.data());
        _exit(127);
    }
    close(out_p[1]);
    close(err_p[1]);
    close(ev_p[1]);
    Outcome o;
    struct pollfd fds[3] = {{out_p[0], POLLIN, 0}, {err_p[0], POLLIN, 0}, {ev_p[0], POLLIN, 0}};
    std::string *bufs[3] = {&o.out, &o.err, &o.events};
    int open_fds = 3;
    while (open_fds > 0) {
        if (poll(fds, 3, 120000) <= 0) {
            kill(pid, SIGKILL);
            ADD_FAILURE() << rel << " ran for over 120 s";
            break;
        }
        for (int i = 0; i < 3; i++) {
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
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    o.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return o;
}

// The runs RunLabOnce made in this test process, by binary, arguments, nonce and
// environment.
inline std::map<std::string, Outcome> &RunsMade() {
    static std::map<std::string, Outcome> runs;
    return runs;
}

inline std::string RunKey(const std::string &rel, const std::vector<std::string> &args, const char *nonce,
                          const std::vector<std::string> &env) {
    std::string key = rel;
    for (const auto &a : args) key += std::string(1, '\0') + a;
    key += std::string("\0nonce\0", 7) + (nonce ? nonce : "");
    for (const auto &v : env) key += std::string(1, '\0') + v;
    return key;
}

// RunLab, made once per test process: the same lab binary with the same arguments, nonce
// and environment gives the same outcome on the simulator (the simulator is deterministic
// and the workload comes from the seed; lab 03's TheSameSeedGivesTheSameFigures runs one
// twice to check it), so the tests that read the same run share it, and the manifest's
// verdict check (manifest_verdicts_test.cc) takes it from there instead of running the
// build again. Only for runs that depend on nothing else: not for --hint (it reads what
// earlier runs left), not while this process has set a variable the lab reads, and not
// for a test that means to run the binary again.
inline Outcome RunLabOnce(const std::string &rel, const std::vector<std::string> &args, const char *nonce = nullptr,
                          const std::vector<std::string> &env = {}) {
    std::string key = RunKey(rel, args, nonce, env);
    auto made = RunsMade().find(key);
    if (made != RunsMade().end()) return made->second;
    Outcome o = RunLab(rel, args, nonce, env);
    RunsMade().emplace(key, o);
    return o;
}

// The outcome of the run RunLabOnce made of rel with args (no nonce, no environment), or
// null when it made none.
inline const Outcome *RunMade(const std::string &rel, const std::vector<std::string> &args) {
    auto made = RunsMade().find(RunKey(rel, args, nullptr, {}));
    return made == RunsMade().end() ? nullptr : &made->second;
}

// The --json object on stdout: exactly one line.
// The number of the first line of a runfile that contains marker; 0 when none does.
inline int LineOf(const std::string &rel, const std::string &marker) {
    std::ifstream f(Binary(rel));
    std::string line;
    for (int n = 1; std::getline(f, line); n++)
        if (line.find(marker) != std::string::npos) return n;
    return 0;
}

// Line n (from 1) of a runfile; "" past its end.
inline std::string LineText(const std::string &rel, int n) {
    std::ifstream f(Binary(rel));
    std::string line;
    for (int i = 1; std::getline(f, line); i++)
        if (i == n) return line;
    return "";
}

// Where needle is in text, each with every run of white space (line breaks included) as
// one space: the report's prose is wrapped at 80 columns (labs/harness/wrap.h), so a
// phrase may run over two lines. std::string::npos when it is not there.
inline std::string Flat(const std::string &text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\t') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return out;
}
inline size_t FindFlat(const std::string &text, const std::string &needle) { return Flat(text).find(Flat(needle)); }

inline cJSON *Json(const Outcome &o) {
    EXPECT_FALSE(o.out.empty());
    EXPECT_EQ(o.out.find('\n'), o.out.size() - 1) << "stdout must be one line:\n" << o.out;
    cJSON *j = cJSON_Parse(o.out.c_str());
    EXPECT_NE(j, nullptr) << o.out;
    return j;
}

inline std::string Str(const cJSON *j, const char *key) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, key));
    return s ? s : "";
}

inline double Num(const cJSON *j, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, key)); }

inline bool Bool(const cJSON *j, const char *key) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, key)); }

struct Events {
    std::vector<trace_event_type> types;
    std::vector<std::string> errors;
    int bye_status = -1;
    std::string bye_reason;
    int ops = 0;
    std::map<int64_t, std::string> run_labels;  // recorder run number -> progress label
};

inline Events ReadEvents(const std::string &text, const char *nonce = nullptr) {
    Events e;
    trace_events_reader *r = trace_events_reader_create(nonce);
    trace_events_reader_feed(r, text.data(), text.size());
    trace_events_reader_end(r);
    trace_event ev;
    char err[512];
    int rc;
    while ((rc = trace_events_reader_next(r, &ev, err, sizeof(err))) != 0) {
        if (rc < 0) {
            e.errors.push_back(err);
            continue;
        }
        e.types.push_back(ev.type);
        if (ev.type == TRACE_EVENT_OP) e.ops++;
        if (ev.type == TRACE_EVENT_PROGRESS) e.run_labels[ev.u.progress.done + 1] = ev.u.progress.text;
        if (ev.type == TRACE_EVENT_BYE) {
            e.bye_status = ev.u.bye.status;
            e.bye_reason = ev.u.bye.reason;
        }
    }
    trace_events_reader_destroy(r);
    return e;
}

inline const std::vector<std::string> kFast = {"--seed", "7", "--runs", "3", "--schedules", "1", "--json", "--events-fd", "3"};

inline std::vector<std::string> Args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a = kFast;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

// Where a result stands on the lab's path: "steps done/steps next-step", from its "steps"
// object ("2/3 TODO 3 (wait for every stream)"; "3/3 " when every step is done).
inline std::string NextStep(const cJSON *j) {
    cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "steps");
    return std::to_string(static_cast<int>(Num(st, "done"))) + "/" + std::to_string(static_cast<int>(Num(st, "of"))) +
           " " + Str(st, "next");
}

// What holds the result at its step, in the student's terms (steps.why), and what costs
// the time when every step is done (the top-level "next"); "" when none.
inline std::string Why(const cJSON *j) { return Str(cJSON_GetObjectItemCaseSensitive(j, "steps"), "why"); }
inline std::string Advice(const cJSON *j) { return Str(j, "next"); }

// The i-th wait of the "blame" object (the costliest on the critical path first), or null.
inline const cJSON *Blamed(const cJSON *j, int i = 0) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "blame"), "waits"), i);
}

// Whether any wait of the "blame" object is the call given (its name as the report writes
// it, "cudaEventQuery()").
inline bool AnyBlamed(const cJSON *j, const std::string &call) {
    for (int i = 0; const cJSON *w = Blamed(j, i); i++)
        if (Str(w, "call") == call) return true;
    return false;
}

// The costliest host wait inside the loop, in one sentence, when it held the critical path
// for a twentieth of the run or more ("" when none did).
inline std::string OverSynced(const cJSON *j) { return Str(cJSON_GetObjectItemCaseSensitive(j, "blame"), "costly_wait"); }

// "file.c:N", where N is the first line of runfile rel that contains marker: how a report
// names a line in a sentence (the file's name only).
inline std::string ShortLine(const std::string &rel, const std::string &marker) {
    int n = LineOf(rel, marker);
    EXPECT_GT(n, 0) << marker << " not in " << rel;
    return rel.substr(rel.rfind('/') + 1) + ":" + std::to_string(n);
}

// Whether a blamed wait is the call given, made at the line of rel that contains marker.
inline void ExpectBlamed(const cJSON *w, const std::string &call, const std::string &rel, const std::string &marker) {
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(Str(w, "call"), call);
    EXPECT_EQ(Str(w, "line"), rel + ":" + std::to_string(LineOf(rel, marker))) << Str(w, "call");
}

// One variant's advice: where it stands, the wait the blame puts first (its call and the
// line of file that contains marker, or the line `below` lines under it), and whether that
// wait is a costly one (a host wait inside the loop that held the critical path).
struct AdviceCase {
    std::string lab, next, call, file, marker;
    bool costly;
    int below = 0;
};

inline void ExpectAdvice(const AdviceCase &c, const std::vector<std::string> &args) {
    Outcome o = RunLabOnce(c.lab, args);
    cJSON *j = Json(o);
    ASSERT_NE(j, nullptr) << c.lab;
    EXPECT_EQ(NextStep(j), c.next) << c.lab;
    int n = LineOf(c.file, c.marker);
    EXPECT_GT(n, 0) << c.marker << " not in " << c.file;
    const cJSON *w = Blamed(j);
    EXPECT_EQ(Str(w, "call"), c.call) << c.lab;
    EXPECT_EQ(Str(w, "line"), c.file + ":" + std::to_string(n + c.below)) << c.lab;
    if (c.costly) {
        // "<call> at file.c:N held the host ...", or for a poll "<call> at file.c:N, polled in a
        // loop (K calls), held the host ...".
        std::string line = c.file.substr(c.file.rfind('/') + 1) + ":" + std::to_string(n + c.below);
        std::string said = OverSynced(j), at = c.call + " at " + line;
        bool poll = Num(w, "not_ready") > 0;
        EXPECT_EQ(said.rfind(at + (poll ? ", polled in a loop (" : " held the host"), 0), 0u) << c.lab << ": " << said;
        EXPECT_NE(said.find("held the host"), std::string::npos) << c.lab << ": " << said;
    } else {
        EXPECT_EQ(OverSynced(j), "") << c.lab;
    }
    cJSON_Delete(j);
}

}  // namespace labtest

#endif

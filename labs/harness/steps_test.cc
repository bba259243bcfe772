// labs/harness/steps_test.cc: the advice given once every step is done, from findings made
// by hand. Stream-0 work that uses bytes a stream's work wrote (a cudaMemcpy of a result)
// is told to move onto that stream, and not to make the streams non-blocking, whether or not
// the copy's own wait is the costliest on the path (on a GPU it is; on the simulator the
// legacy stream's stalls are); stream-0 work with nothing handed over keeps the advice that
// non-blocking streams are a fix.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "labs/harness/spec.h"
#include "labs/harness/steps.h"

extern "C" {
const lab_spec LAB_SPEC = {};
}

namespace {

lab_findings Stalled(bool handover, bool copy_is_costly) {
    lab_findings f;
    std::memset(&f, 0, sizeof(f));
    f.correct = f.race_free = true;
    f.run_ms = 8.0;
    f.stalls = 23;
    f.n_streams = 1;
    f.streams[0].id = 2;
    std::snprintf(f.streams[0].label, sizeof(f.streams[0].label), "\"buf A\"");
    if (handover) {
        f.legacy_handovers = 23;
        f.handover_kind = TRACE_OP_COPY;
        f.handover_stream = 2;
    }
    if (copy_is_costly) {
        lab_wait_fact *w = &f.waits[f.n_waits++];
        std::snprintf(w->call, sizeof(w->call), "cudaMemcpy()");
        std::snprintf(w->line, sizeof(w->line), "labs/03_double_buffer/lab.c:145");
        w->host = w->in_loop = true;
        w->times = w->on_path = 23;
        w->cost_ms = w->held_ms = 6.8;
    }
    return f;
}

std::string Beyond(const lab_findings &f) {
    lab_spec spec;
    std::memset(&spec, 0, sizeof(spec));
    char buf[1024];
    lab_steps_beyond(&spec, &f, buf, sizeof(buf));
    return buf;
}

TEST(Steps, StreamZeroWorkThatTakesAStreamsBytesMovesOntoThatStream) {
    for (bool costly : {false, true}) {
        std::string text = Beyond(Stalled(true, costly));
        EXPECT_EQ(text.rfind("your code puts work on stream 0", 0), 0u) << costly << ": " << text;
        EXPECT_NE(text.find("making your streams non-blocking would leave them unordered, a race"), std::string::npos)
            << text;
        EXPECT_NE(text.find("(\"buf A\": cudaMemcpyAsync on that stream, not cudaMemcpy)"), std::string::npos)
            << text;
    }
}

TEST(Steps, StreamZeroWorkOfItsOwnMayGoOnNonBlockingStreams) {
    std::string text = Beyond(Stalled(false, false));
    EXPECT_NE(text.find("or make your streams non-blocking"), std::string::npos) << text;
}

}  // namespace

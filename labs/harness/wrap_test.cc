// labs/harness/wrap_test.cc: the report's prose wrapped at its width, each continuation
// under the line's text; tables, timelines and code left whole; nothing lost.
#include "labs/harness/wrap.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

std::string Wrap(const std::string &text, int width = LAB_WRAP_COLUMNS) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    lab_wrap_text(text.data(), text.size(), width, m);
    fclose(m);
    std::string out(buf, len);
    free(buf);
    return out;
}

std::vector<std::string> Lines(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

// The words of a text, whatever its line breaks.
std::vector<std::string> Words(const std::string &text) {
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

size_t Columns(const std::string &l) { return lab_wrap_columns(l.data(), l.size()); }

const std::string kLabelled =
    "  correct    NO (warm-up): batch 0, element 0: got 0xc0ebced0, expected 0xa2bf28f8, because it was "
    "computed from data read before it was written: kernel process batch 0 on \"compute\" may read what "
    "H2D batch 0 on \"up\" has not written yet\n";

TEST(Wrap, ProseFitsAndContinuesUnderTheLabelColumn) {
    std::string out = Wrap(kLabelled);
    std::vector<std::string> lines = Lines(out);
    ASSERT_GT(lines.size(), 2u) << out;
    for (const std::string &l : lines) EXPECT_LE(Columns(l), 80u) << l;
    EXPECT_EQ(lines[0].rfind("  correct    NO (warm-up):", 0), 0u) << out;
    for (size_t i = 1; i < lines.size(); i++) {
        EXPECT_EQ(lines[i].rfind(std::string(13, ' '), 0), 0u) << lines[i];
        EXPECT_NE(lines[i][13], ' ') << lines[i];
    }
    EXPECT_EQ(Words(out), Words(kLabelled));
}

TEST(Wrap, AColonLabelAndAnIndentHangAsTheyShould) {
    std::string fix = "            fix: " + std::string(30, 'x') + " give \"compute\" and \"up\" buffers of their own, "
                      "so that they share nothing and still overlap\n";
    std::vector<std::string> lines = Lines(Wrap(fix));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[1].find_first_not_of(' '), 17u) << lines[1];  // under the text after "fix: "

    std::string next = "Next: TODO 1 (the kernel waits for its upload): the kernel on \"compute\" may read d_in "
                       "before the upload on \"up\" has written it.\n";
    lines = Lines(Wrap(next));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[1].find_first_not_of(' '), 6u) << lines[1];

    std::string body = std::string(12, ' ') + "kernel process batch 0 (op 1829, on stream \"compute\", "
                       "labs/05_cross_stream_races/lab.c:53) and more words after it\n";
    lines = Lines(Wrap(body));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[1].find_first_not_of(' '), 12u) << lines[1];

    std::string plain = "the kernel on \"compute\" may read d_in before the upload on \"up\" has written it. Make "
                        "the compute stream wait for each upload.\n";
    lines = Lines(Wrap(plain));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[1].find_first_not_of(' '), 0u) << lines[1];
}

TEST(Wrap, TablesTimelinesAndCodeStayWhole) {
    const std::vector<std::string> whole = {
        // A timeline lane and its legend (box drawing, block elements).
        "s3 \"compute\"      \u2593" + std::string(40, '0') + "\u2593\u2593\u2593 " + std::string(30, '1') + "   97%",
        "\u2588 H2D  \u2593 kernel  \u2591 D2H  \u2592 memset/D2D  \u2500 sync  \u254e API  \u2502 event  \u25aa host fn  "
        "\u25ab host access extra extra extra",
        // Columns aligned with spaces after the label.
        "  speedup    2.79x (median of 5; best 2.79x)   target 2.36x   NOT reached   and a long tail of columns",
        // Lines of C.
        "        cudaStreamWaitEvent(compute, uploaded[b % 2], 0); cudaEventRecord(done[b % 2], compute_stream);",
        "    for (int b = 0; b < batches; b++) { cudaStreamWaitEvent(compute, uploaded[b % 2], 0); the rest {",
        "    cudaEvent_t uploaded[2], computed[2], downloaded[2], and_a_few_more_to_be_long, and_longer_still;",
    };
    for (const std::string &l : whole) {
        ASSERT_GT(Columns(l), 80u) << l;
        EXPECT_TRUE(lab_wrap_keeps(l.data(), l.size())) << l;
        EXPECT_EQ(Wrap(l + "\n"), l + "\n");
    }
    // Prose, though it ends as code may.
    const std::vector<std::string> prose = {
        kLabelled.substr(0, kLabelled.size() - 1),
        "            H2D batch 0 (op 1825, on stream \"up\", labs/05_cross_stream_races/lab.c:49);",
        "  returned   run() returned while \"up\" still had work that nothing had waited for (see below)",
        "Next: make the compute stream wait for each upload (cudaStreamWaitEvent);",
    };
    for (const std::string &l : prose) {
        EXPECT_FALSE(lab_wrap_keeps(l.data(), l.size())) << l;
        for (const std::string &w : Lines(Wrap(l + "\n"))) EXPECT_LE(Columns(w), 80u) << w;
    }
}

// Site words ("address 0x... of your program", which the grader replaces with the line
// they name in the program's output) are never broken, wherever the width falls in them.
TEST(Wrap, SiteWordsStayOnOneLine) {
    const std::string words = "address 0x15e7 of your program";
    for (size_t lead = 0; lead < 40; lead++) {
        std::string text = "Next: " + std::string(lead, 'x') + " cudaDeviceSynchronize() at " + words +
                           " held the host 23 times, 6.0 ms of the run's 6.5 ms, before your run had queued all "
                           "its work\n";
        std::string out = Wrap(text);
        EXPECT_NE(out.find(words), std::string::npos) << out;
        EXPECT_EQ(Words(out), Words(text));
        for (const std::string &l : Lines(out)) EXPECT_LE(Columns(l), 80u) << l;
    }
}

TEST(Wrap, AWordLongerThanTheWidthIsNotCut) {
    std::string path = "  source     " + std::string(90, 'p') + " and then words\n";
    std::string out = Wrap(path);
    EXPECT_NE(out.find(std::string(90, 'p')), std::string::npos) << out;
    EXPECT_EQ(Words(out), Words(path));
}

TEST(Wrap, ShortLinesBlankLinesAndALastLineWithoutNewlineAreKept) {
    std::string text = "  races      none\n\nstreamlab \u00b7 05 \u00b7 short\nno newline at the end";
    EXPECT_EQ(Wrap(text), text);
}

TEST(Wrap, TheStreamWrapsProseAndWritesVerbatimTextAsItIs) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lab_wrap w;
    FILE *o = lab_wrap_begin(&w, out, 40);
    fprintf(o, "before: one two three four five six seven eight nine ten\n");
    std::string timeline = "lane  " + std::string(60, '#') + " five words that would wrap\n";
    lab_wrap_verbatim(&w, timeline.c_str());
    fprintf(o, "after: one two three four five six seven eight nine ten\n");
    lab_wrap_end(&w);
    fclose(out);
    std::string got(buf, len);
    free(buf);
    EXPECT_EQ(got,
              "before: one two three four five six\n"
              "        seven eight nine ten\n" +
                  timeline +
                  "after: one two three four five six seven\n"
                  "       eight nine ten\n");
}

}  // namespace

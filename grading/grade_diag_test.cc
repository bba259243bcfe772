// grading/grade_diag_test.cc: the line a "does not compile" reason quotes. An error the
// compiler places in a header of the lab, through a macro the student's line expands,
// is quoted at the student's line; an error in the student's file as it stands; the real
// compiler's output (gcc, as the kits use it, in the C.UTF-8 locale the sandbox sets) is
// read the same way as the samples.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

extern "C" {
#include "grading/build/grade_diag.h"
}

namespace {

namespace fs = std::filesystem;

std::string Quote(const std::string &diag, const std::string &file = "labs/03_double_buffer/lab.c") {
    char *q = grade_diag_first_error(diag.c_str(), file.c_str());
    std::string r = q;
    free(q);
    return r;
}

// gcc 12's output for a ';' left out after LAB_CHECK(...) on line 45 of the student's file.
const char kMissingSemicolon[] =
    "In file included from labs/03_double_buffer/lab.c:16:\n"
    "labs/03_double_buffer/lab.c: In function 'setup':\n"
    "labs/harness/lab.h:106:5: error: expected ';' before 'do'\n"
    "  106 |     do {                                                                                 \\\n"
    "      |     ^~\n"
    "labs/03_double_buffer/lab.c:46:5: note: in expansion of macro 'LAB_CHECK'\n"
    "   46 |     LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));\n"
    "      |     ^~~~~~~~~\n";

TEST(Diag, AnErrorInAMacroOfTheHeaderNamesTheStudentsLine) {
    EXPECT_EQ(Quote(kMissingSemicolon),
              "labs/03_double_buffer/lab.c:46:5: error: expected ';' before 'do' (in expansion of macro 'LAB_CHECK' "
              "from labs/harness/lab.h:106:5)");
}

TEST(Diag, NestedMacrosNameTheOutermostExpansionInTheStudentsFile) {
    std::string diag =
        "labs/harness/lab.h:90:9: error: 'undeclared' undeclared (first use in this function)\n"
        "labs/harness/lab.h:95:5: note: in expansion of macro 'INNER'\n"
        "labs/03_double_buffer/lab.c:12:3: note: in expansion of macro 'OUTER'\n"
        "   12 |   OUTER(x);\n";
    EXPECT_EQ(Quote(diag),
              "labs/03_double_buffer/lab.c:12:3: error: 'undeclared' undeclared (first use in this function) (in "
              "expansion of macro 'OUTER' from labs/harness/lab.h:90:9)");
}

TEST(Diag, TheFirstErrorOfTheStudentsComesFirstWhateverItsForm) {
    // The macro error comes before a plain one about the student's file: it is quoted.
    std::string diag = std::string(kMissingSemicolon) +
                       "labs/03_double_buffer/lab.c:80:1: error: expected declaration or statement at end of input\n";
    EXPECT_NE(Quote(diag).find("lab.c:46:5: error: expected ';' before 'do'"), std::string::npos) << Quote(diag);
    // A plain one first: quoted as it stands.
    std::string plain = "labs/03_double_buffer/lab.c:7:1: error: unknown type name 'nope'\n" +
                        std::string(kMissingSemicolon);
    EXPECT_EQ(Quote(plain), "labs/03_double_buffer/lab.c:7:1: error: unknown type name 'nope'");
}

TEST(Diag, AnErrorOnlyInAHeaderOrTheLinkerIsQuotedAsItStands) {
    // A note of another kind (a definition, not an expansion, in the student's file) does
    // not move the error; and a note after the next diagnostic belongs to that one.
    std::string header =
        "labs/harness/lab.h:50:1: error: conflicting types for 'lab_input'\n"
        "labs/harness/lab.h:49:1: note: previous declaration of 'lab_input' with type 'int(void)'\n"
        "labs/harness/lab.h:60:1: warning: unused\n"
        "labs/03_double_buffer/lab.c:3:1: note: in expansion of macro 'X'\n";
    EXPECT_EQ(Quote(header), "labs/harness/lab.h:50:1: error: conflicting types for 'lab_input'");
    EXPECT_EQ(Quote("/usr/bin/ld: lab.o: in function `run':\nlab.c:(.text+0x1): undefined reference to `nope'\n"),
              "lab.c:(.text+0x1): undefined reference to `nope'");
    EXPECT_EQ(Quote(""), "");
    // A source excerpt that happens to hold "error:" is not a diagnostic.
    EXPECT_EQ(Quote("labs/03_double_buffer/lab.c:9:5: warning: unused variable 'e'\n"
                    "    9 |     const char *e = \"error: x\";\n"
                    "labs/03_double_buffer/lab.c:10:1: error: expected ';'\n"),
              "labs/03_double_buffer/lab.c:10:1: error: expected ';'");
}

// The real compiler, on a header macro whose use lacks its ';' (as lab.h's LAB_CHECK).
TEST(Diag, TheRealCompilersOutputIsReadTheSameWay) {
    const char *tmp = std::getenv("TEST_TMPDIR");
    fs::path root = fs::path(tmp ? tmp : "/tmp") / "diag_gcc";
    fs::remove_all(root);
    fs::create_directories(root / "labs/harness");
    fs::create_directories(root / "labs/03_double_buffer");
    std::ofstream(root / "labs/harness/lab.h") << "#define CHECK(call) \\\n    do { \\\n        if ((call) != 0) return 1; "
                                                  "\\\n    } while (0)\n";
    std::ofstream(root / "labs/03_double_buffer/lab.c") << "#include \"labs/harness/lab.h\"\n"
                                                           "static int f(int x) { return x; }\n"
                                                           "int g(void) {\n"
                                                           "    CHECK(f(1))\n"
                                                           "    CHECK(f(2));\n"
                                                           "    return 0;\n"
                                                           "}\n";
    std::string cmd = "cd '" + root.string() +
                      "' && LANG=C.UTF-8 LC_ALL=C.UTF-8 gcc -std=c11 -I. -c labs/03_double_buffer/lab.c -o lab.o 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    int status = pclose(p);
    if (out.find("not found") != std::string::npos) GTEST_SKIP() << "no gcc: " << out;
    ASSERT_NE(status, 0) << out;
    ASSERT_NE(out.find("labs/harness/lab.h:2:5: error:"), std::string::npos) << out;
    std::string q = Quote(out);
    // The error is before CHECK(f(2)), line 5: the student's line, not the header's.
    EXPECT_EQ(q.rfind("labs/03_double_buffer/lab.c:5:5: error: expected", 0), 0u) << q << "\nfrom:\n" << out;
    EXPECT_NE(q.find("in expansion of macro"), std::string::npos) << q;
    EXPECT_NE(q.find("labs/harness/lab.h:2:5)"), std::string::npos) << q;
}

// A CUDA name the kit does not declare (the graph update API, which the simulated runtime
// does not model) is said to be one the labs do not offer, whichever way gcc words it; an
// error about any other name is left as it is.
std::string Missing(const std::string &quoted) {
    char *m = grade_diag_cuda_missing(quoted.c_str());
    std::string r = m;
    free(m);
    return r;
}

TEST(Diag, ACudaNameTheKitLacksIsNamedAsNotOffered) {
    EXPECT_EQ(Missing("labs/07_cuda_graphs/lab.c:49:9: error: unknown type name 'cudaGraphExecUpdateResultInfo'"),
              "cudaGraphExecUpdateResultInfo is a part of CUDA the labs do not offer (docs/simulator.md says what "
              "the simulated runtime models)");
    EXPECT_EQ(Missing("labs/07_cuda_graphs/lab.c:50:5: error: implicit declaration of function "
                      "'cudaGraphAddKernelNode' [-Wimplicit-function-declaration]")
                  .rfind("cudaGraphAddKernelNode is a part of CUDA", 0),
              0u);
    EXPECT_EQ(Missing("labs/07_cuda_graphs/lab.c:51:20: error: 'cudaGraphExecUpdateSuccess' undeclared (first use "
                      "in this function)")
                  .rfind("cudaGraphExecUpdateSuccess is", 0),
              0u);
    EXPECT_EQ(Missing("lab.c:3:1: error: unknown type name 'CUgraphNode'"), "");
    EXPECT_EQ(Missing("lab.c:3:1: error: unknown type name 'CUgraph'"), "") << "CU..., not cu...";
    EXPECT_EQ(Missing("lab.c:3:1: error: unknown type name 'cuGraphExec'").rfind("cuGraphExec is", 0), 0u);
    EXPECT_EQ(Missing("lab.c:3:1: error: unknown type name 'streem_t'"), "");
    EXPECT_EQ(Missing("lab.c:3:1: error: 'cudaSuccess' redeclared as different kind of symbol"), "");
    EXPECT_EQ(Missing("lab.c:3:1: error: expected ';' before 'do'"), "");
    // gcc in the sandbox's C.UTF-8 locale quotes with U+2018 and U+2019.
    EXPECT_EQ(Missing("labs/07_cuda_graphs/lab.c:49:9: error: unknown type name \u2018cudaGraphExecUpdateResultInfo"
                      "\u2019")
                  .rfind("cudaGraphExecUpdateResultInfo is", 0),
              0u);
}

}  // namespace

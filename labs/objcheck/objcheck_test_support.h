// labs/objcheck/objcheck_test_support.h: what objcheck's tests share: runfiles, files,
// and the refusals of one object as "file:line: message" lines.
#ifndef STREAMLAB_LAB_OBJCHECK_TEST_SUPPORT_H
#define STREAMLAB_LAB_OBJCHECK_TEST_SUPPORT_H

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "labs/objcheck/objcheck.h"

// ASan's runtime entry point, present only where the binary was linked with it.
extern "C" void __asan_init(void) __attribute__((weak));

namespace objcheck_test {

// The runfiles root of the workspace: the tests run there, so the paths the objects were
// compiled with ("grading/testdata/attacks/x.c") are found relative to it.
inline std::string Runfile(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    return (dir ? std::string(dir) + "/streamlab/" : std::string()) + rel;
}

inline std::string Slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::vector<std::string> Lines(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The object files below a runfiles folder, by path.
inline std::vector<std::string> Objects(const std::string &rel) {
    std::vector<std::string> found;
    std::filesystem::path root = Runfile(rel);
    if (!std::filesystem::exists(root)) return found;
    for (const auto &e : std::filesystem::recursive_directory_iterator(
             root, std::filesystem::directory_options::follow_directory_symlink))
        if (e.path().extension() == ".o") found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    return found;
}

struct Checked {
    int rc = -1;
    std::string error;
    std::vector<std::string> lines;    // "where: message", as objcheck prints them
    std::vector<std::string> symbols;  // each refusal's symbol
    std::vector<std::string> messages;
};

// Whether this test, and so the objects Bazel compiled beside it, is a sanitizer build
// (--config=asan): objcheck then accepts what the sanitizers add, as labs/lab.bzl has it.
// That build instruments the C files and links every binary with ASan's runtime, but
// compiles the C++ tests as the default build does (.bazelrc), so __SANITIZE_ADDRESS__
// cannot tell: the runtime linked in can.
inline bool SanitizerBuild() { return __asan_init != nullptr; }

inline Checked Check(const std::string &object, const char *source, bool sanitized = SanitizerBuild()) {
    Checked c;
    lab_objcheck_result r;
    lab_objcheck_options options = {source, sanitized};
    c.rc = lab_objcheck_file(object.c_str(), &options, &r);
    if (r.error) c.error = r.error;
    for (size_t i = 0; i < r.n; i++) {
        c.lines.push_back(std::string(r.refusals[i].where) + ": " + r.refusals[i].message);
        c.symbols.push_back(r.refusals[i].symbol);
        c.messages.push_back(r.refusals[i].message);
    }
    lab_objcheck_result_free(&r);
    return c;
}

}  // namespace objcheck_test

#endif

// labs/objcheck/labs_accepted_test.cc: objcheck accepts every student file the kit ships
// or builds (labs/lab.bzl already refuses to link one it refuses): for each lab of
// labs/catalog.json its skeleton and its reference, and every developers' variant of
// labs/*/testdata/ built as a lab; and its allow-list is the kit's CUDA call list and the
// headers' (lab.h's functions, kernels.h's) plus C library functions that reach nothing of
// the kit and none of the forbidden ones.
#include <cctype>
#include <set>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>

#include "cuda_calls/cuda_calls.h"
#include "labs/objcheck/allow.h"
#include "labs/objcheck/objcheck_test_support.h"

namespace {

using objcheck_test::Check;
using objcheck_test::Objects;
using objcheck_test::Runfile;
using objcheck_test::Slurp;

std::vector<std::string> CatalogLabs() {
    std::vector<std::string> ids;
    cJSON *root = cJSON_Parse(Slurp(Runfile("labs/catalog.json")).c_str());
    const cJSON *lab;
    cJSON_ArrayForEach(lab, cJSON_GetObjectItemCaseSensitive(root, "labs")) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lab, "id"));
        if (id) ids.push_back(id);
    }
    cJSON_Delete(root);
    return ids;
}

std::set<std::string> AllObjects() {
    std::set<std::string> all;
    for (const char *dir : {"labs/_objs", "solutions/_objs"})
        for (const std::string &o : Objects(dir)) all.insert(o);
    return all;
}

bool HasObject(const std::set<std::string> &all, const std::string &dir) {
    for (const std::string &o : all)
        if (o.find("/" + dir + "/") != std::string::npos) return true;
    return false;
}

TEST(LabsAccepted, EverySkeletonReferenceAndVariantIsAccepted) {
    std::set<std::string> all = AllObjects();
    ASSERT_FALSE(all.empty());
    for (const std::string &o : all) {
        SCOPED_TRACE(o);
        objcheck_test::Checked c = Check(o, nullptr);
        EXPECT_EQ(c.rc, 0);
        EXPECT_EQ(c.error, "");
        for (const std::string &line : c.lines) ADD_FAILURE() << line;
    }
}

TEST(LabsAccepted, EveryLabOfTheCatalogHasItsSkeletonAndReferenceChecked) {
    std::set<std::string> all = AllObjects();
    std::vector<std::string> labs = CatalogLabs();
    ASSERT_GE(labs.size(), 10u);
    for (const std::string &id : labs) {
        EXPECT_TRUE(HasObject(all, "labs/_objs/" + id + "_impl_sim")) << id << "'s skeleton";
        EXPECT_TRUE(HasObject(all, "solutions/_objs/" + id + "_impl_sim")) << id << "'s reference";
    }
    // And the developers' variants (labs/*/testdata/variants.c, one lab target each).
    size_t variants = 0;
    for (const std::string &o : all) variants += o.find("/variants.") != std::string::npos;
    EXPECT_GE(variants, labs.size()) << "fewer variants than labs were checked";
}

// The functions a header's code declares whose names start with prefix (an identifier
// followed by '('), its comments left out. (No std::regex: GCC 12 does not compile it at
// -O1 with -Werror=maybe-uninitialized, the sanitizer build's flags.)
std::set<std::string> Declared(const std::string &header, const std::string &prefix) {
    std::string raw = Slurp(Runfile(header)), text;
    for (size_t i = 0; i < raw.size();) {
        if (raw.compare(i, 2, "/*") == 0) {
            size_t end = raw.find("*/", i + 2);
            i = end == std::string::npos ? raw.size() : end + 2;
            text += ' ';
        } else if (raw.compare(i, 2, "//") == 0) {
            size_t end = raw.find('\n', i);
            i = end == std::string::npos ? raw.size() : end;
        } else {
            text += raw[i++];
        }
    }
    auto ident = [](char c) { return isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::set<std::string> names;
    for (size_t i = text.find(prefix); i != std::string::npos; i = text.find(prefix, i + 1)) {
        if (i > 0 && ident(text[i - 1])) continue;
        size_t end = i;
        while (end < text.size() && ident(text[end])) end++;
        size_t paren = end;
        while (paren < text.size() && isspace(static_cast<unsigned char>(text[paren]))) paren++;
        if (paren < text.size() && text[paren] == '(') names.insert(text.substr(i, end - i));
    }
    return names;
}

// The kit's CUDA calls, and their per-thread entry points (cuda_calls/cuda_calls.inc).
std::set<std::string> CudaCalls() {
    return {
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) \
    #name, CUDA_CALLS_IF_PER_THREAD(per_thread, #name "_" #per_thread, )
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY
    };
}

TEST(Allow, TheApiIsTheCudaCallListAndWhatLabHAndKernelsHDeclare) {
    size_t n = 0;
    const char *const *names = lab_objcheck_api_names(&n);
    std::set<std::string> api(names, names + n);
    std::set<std::string> cuda = CudaCalls();
    std::set<std::string> lab = Declared("labs/harness/lab.h", "lab_");
    std::set<std::string> kernels = Declared("kernels/kernels.h", "kernels_");
    ASSERT_GE(cuda.size(), 40u);
    ASSERT_GE(lab.size(), 10u);
    ASSERT_GE(kernels.size(), 3u);
    for (const auto *set : {&cuda, &lab, &kernels})
        for (const std::string &name : *set) {
            EXPECT_TRUE(api.count(name)) << name << " is declared for labs but not allowed";
            EXPECT_TRUE(lab_objcheck_may_use(name.c_str())) << name;
        }
    EXPECT_TRUE(api.count("cudaMemcpyAsync_ptsz"));
    // Nothing else of the toolkit, nor of spec.h: the oracle and the spec's helpers are not
    // a lab file's to call.
    for (const char *name : {"cudaGetDriverEntryPoint", "cudaLaunchKernel", "cuInit", "cuLaunchKernel"})
        EXPECT_FALSE(lab_objcheck_may_use(name)) << name;
    for (const std::string &name : Declared("labs/harness/spec.h", "lab_")) {
        if (lab.count(name)) continue;
        EXPECT_FALSE(lab_objcheck_may_use(name.c_str())) << name << " (spec.h) is allowed";
    }
    EXPECT_FALSE(lab_objcheck_may_use("LAB_SPEC"));
}

TEST(Allow, TheCLibraryListHasNothingOfTheKitAndNothingForbidden) {
    size_t n = 0;
    const char *const *names = lab_objcheck_libc_names(&n);
    ASSERT_GT(n, 50u);
    std::set<std::string> seen;
    for (size_t i = 0; i < n; i++) {
        std::string name = names[i];
        EXPECT_TRUE(seen.insert(name).second) << name << " twice";
        for (const char *prefix : {"cuda", "lab_", "LAB_", "kernels_", "sim_", "trace_", "cli_", "grade_"})
            EXPECT_NE(name.rfind(prefix, 0), 0u) << name;
    }
    for (const char *name : {"memcpy", "memset", "malloc", "free", "snprintf", "fprintf", "stderr", "sqrt",
                             "clock_gettime", "__stack_chk_fail", "exit", "abort"})
        EXPECT_TRUE(lab_objcheck_may_use(name)) << name;
    for (const char *name : {"getenv", "secure_getenv", "environ", "__environ", "setenv", "unsetenv", "putenv",
                             "dlopen", "dlsym", "dlvsym", "syscall", "fork", "vfork", "clone", "execve", "execv",
                             "system", "popen", "posix_spawn", "pthread_create", "kill", "raise", "signal",
                             "sigaction", "sigprocmask", "alarm", "setitimer", "timer_create", "mmap", "mprotect",
                             "socket", "connect", "ptrace", "open", "openat", "fopen", "fdopen", "read", "write",
                             "dup2", "atexit", "on_exit", "at_quick_exit", "__cxa_atexit", "setjmp", "longjmp",
                             "prctl", "seccomp", "getauxval", "nanosleep", "usleep"})
        EXPECT_FALSE(lab_objcheck_may_use(name)) << name;
}

TEST(Allow, OnlyLabStudentMayBeDefined) {
    EXPECT_TRUE(lab_objcheck_may_define("LAB_STUDENT"));
    for (const char *name : {"LAB_SPEC", "main", "lab_verify", "sim_host_now", "helper", "malloc", "cudaMalloc"})
        EXPECT_FALSE(lab_objcheck_may_define(name)) << name;
}

}  // namespace

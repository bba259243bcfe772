"""cuda_calls_check_test: the list of CUDA calls checked against one runtime.

    load("//cuda_calls:calls_check.bzl", "cuda_calls_check_test")
    cuda_calls_check_test(name = "cuda_calls_test", runtime = [":cudart"])

calls_check.cc is compiled against the runtime's cuda_runtime_api.h twice, as a plain unit
and as one built with CUDA_API_PER_THREAD_DEFAULT_STREAM (NAME_per_thread), and linked
with the runtime into the test NAME: a prototype that is not the header's, a per-thread
rename that is not the list's, a role that does not fit its type fails the build; an entry
point the runtime lacks fails the link; calls_check_test.cc checks the per-thread entry
points at run time.
"""

def cuda_calls_check_test(name, runtime):
    native.cc_library(
        name = name + "_per_thread",
        testonly = True,
        srcs = ["//cuda_calls:calls_check.cc"],
        hdrs = ["//cuda_calls:calls_check.h"],
        copts = ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"],
        visibility = ["//visibility:private"],
        deps = ["//cuda_calls"] + runtime,
    )
    native.cc_test(
        name = name,
        size = "small",
        srcs = [
            "//cuda_calls:calls_check.cc",
            "//cuda_calls:calls_check.h",
            "//cuda_calls:calls_check_test.cc",
        ],
        deps = [
            ":" + name + "_per_thread",
            "//cuda_calls",
            "//third_party:gtest_main",
        ] + runtime,
    )

"""cuda_library: compile .cu files with nvcc into objects that cc_library/cc_binary link.

    load("//third_party:cuda.bzl", "CUDA_FOUND", "cuda_library")
    if CUDA_FOUND:
        cuda_library(name = "kernels_gpu", srcs = ["process.cu"], hdrs = ["kernels.h"])

Every .cu file is compiled once, as position-independent code, into a fat object holding
SASS for sm_75, sm_80, sm_86, sm_89 and sm_90 plus compute_90 PTX (so newer GPUs JIT it),
with -fmad=false so that floating-point results are bit-identical to the CPU bodies built
with -ffp-contract=off. The resulting cc_library links the static CUDA runtime and
libstdc++ (nvcc objects need it when a C linker links them).

CUDA_FOUND says whether the GPU variants are built: a toolkit is found and the machine has
a GPU (STREAMLAB_GPU=auto, the default), or a toolkit is found and --config=gpu asks for
them anyway (STREAMLAB_GPU=on; third_party/cuda_configure.bzl). Otherwise (no toolkit, no
GPU, --config=sim_only) CUDA_FOUND is False and BUILD files declare no GPU targets; calling
cuda_library then fails with a clear message.
"""

load("@cuda//:defs.bzl", _CUDA_FOUND = "CUDA_FOUND", _CUDA_STATUS = "CUDA_STATUS", _NVCC = "NVCC")

CUDA_FOUND = _CUDA_FOUND
CUDA_STATUS = _CUDA_STATUS

CUDA_GENCODE = [
    "-gencode=arch=compute_75,code=sm_75",
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_86,code=sm_86",
    "-gencode=arch=compute_89,code=sm_89",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

_NVCC_FLAGS = [
    "-O3",
    "-std=c++17",
    "-fmad=false",
    "-Xcompiler=-fPIC",
    "-Xcompiler=-Wall",
    "-Xcompiler=-Wextra",
    "-Werror=all-warnings",
]

def _nvcc_objects_impl(ctx):
    cc_headers = [dep[CcInfo].compilation_context.headers for dep in ctx.attr.deps if CcInfo in dep]
    headers = depset(ctx.files.hdrs, transitive = cc_headers)
    includes = depset(transitive = [
        dep[CcInfo].compilation_context.system_includes
        for dep in ctx.attr.deps
        if CcInfo in dep
    ] + [
        dep[CcInfo].compilation_context.includes
        for dep in ctx.attr.deps
        if CcInfo in dep
    ])
    objects = []
    for src in ctx.files.srcs:
        stem = src.basename[:-len(src.extension) - 1]
        obj = ctx.actions.declare_file("_nvcc/%s/%s.pic.o" % (ctx.label.name, stem))
        args = ctx.actions.args()
        args.add("-c", src.path)
        args.add("-o", obj.path)
        args.add_all(_NVCC_FLAGS)
        args.add_all(CUDA_GENCODE)
        args.add_all(ctx.attr.copts)
        args.add("-I.")
        args.add("-I" + ctx.genfiles_dir.path)
        args.add("-I" + ctx.bin_dir.path)
        args.add_all(includes, before_each = "-isystem")
        ctx.actions.run(
            executable = _NVCC,
            arguments = [args],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "Nvcc",
            progress_message = "nvcc %s" % src.short_path,
            use_default_shell_env = True,
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

_nvcc_objects = rule(
    implementation = _nvcc_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], visibility = None, **kwargs):
    """A cc_library whose sources are .cu files compiled by nvcc.

    Args:
      name: the cc_library's name.
      srcs: .cu files.
      hdrs: headers the .cu files include and dependents may include.
      deps: cc_library targets whose headers the .cu files include.
      copts: extra nvcc flags.
      visibility: as for cc_library.
      **kwargs: passed to the cc_library.
    """
    if not CUDA_FOUND:
        fail("cuda_library(%s): %s. Guard GPU targets with `if CUDA_FOUND:`." % (name, CUDA_STATUS))
    _nvcc_objects(
        name = name + "_nvcc",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["@cuda//:cuda_headers"],
        copts = copts,
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_nvcc"],
        hdrs = hdrs,
        deps = deps + ["@cuda//:cudart_static"],
        linkopts = ["-lstdc++", "-lm"],
        visibility = visibility,
        **kwargs
    )

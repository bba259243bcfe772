"""lab(): the targets of one lab, built from a student (or solution) file and a spec.

    lab(name = "03_double_buffer", src = "03_double_buffer/lab.c", spec = "03_double_buffer/spec.c")

gives
    :03_double_buffer_sim  the lab on the simulated GPU (always built)
    :03_double_buffer_gpu  the lab on a real GPU (only where a CUDA toolkit was found)
    :03_double_buffer      the launcher: the GPU build when a CUDA device is usable, else
                           the simulator, saying which it chose; --tui opens the live
                           timeline (//tui) on this lab instead
    :03_double_buffer_run  the same launcher without the timeline (what //tui runs)
The student's file is compiled with all warnings shown but not turned into errors, and
with line information (crash reports name its lines); the spec and the harness keep
-Werror. Its object is checked before it is linked (//labs/objcheck: no constructors or
destructors, no global but LAB_STUDENT, only the calls a lab may make); a refused file
fails the build with the refusals, as the grader refuses it.
"""

load("//labs/objcheck:objcheck.bzl", "checked_student_library", _student_objects = "student_objects")
load("//third_party:cuda.bzl", "CUDA_FOUND")

BACKENDS = ["sim", "gpu"] if CUDA_FOUND else ["sim"]

# How the student's file is compiled on top of the workspace's flags (the grader's kits,
# //grading:kit.bzl, compile submissions with the same). -g: line information, so that a
# crash report names the student's line (labs/harness/source_line.h); it is the only code
# in a lab binary built with it, which is how the report tells the student's frames from
# the rest. The binaries keep it because .bazelrc links with --strip=never.
# LAB_STUDENT_SOURCE: lab.h makes memcpy and memmove the kit's (lab_host_memcpy), which the
# simulator charges as the modelled GPU's host would spend on them.
STUDENT_COPTS = ["-Wno-error", "-g", "-DLAB_STUDENT_SOURCE"]

# The object files of every lab() of a package, as objcheck checked them (call it at the
# end of the BUILD file; //labs/objcheck:labs_accepted_test reads them).
student_objects = _student_objects

def _lab_id(spec):
    """The catalog id of the lab whose spec this is: "03_double_buffer" from
    "03_double_buffer/spec.c" or "//labs:03_double_buffer/spec.c"."""
    return spec.split(":")[-1].split("/")[0]

def _referee_copy_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.run_shell(
        inputs = [ctx.file.src],
        outputs = [out],
        command = 'cp "$1" "$2" && chmod 0755 "$2"',
        arguments = [ctx.file.src.path, out.path],
        mnemonic = "CopyLabBinary",
        progress_message = "Copying the lab binary %s" % ctx.label,
    )
    runfiles = ctx.runfiles(files = ctx.files.data)
    for d in ctx.attr.data:
        runfiles = runfiles.merge(d[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = out, files = depset([out]), runfiles = runfiles)]

# A lab binary that is another's, byte for byte, under this name: it starts the student's
# program built beside it (NAME_student, found through /proc/self/exe), so a copy, not a
# link, which would find the other's.
_referee_copy = rule(
    implementation = _referee_copy_impl,
    attrs = {
        "src": attr.label(allow_single_file = True, mandatory = True),
        "data": attr.label_list(allow_files = True),
    },
    executable = True,
)

def lab(name, src, spec, copts = [], spec_copts = [], tags = [], visibility = None, binary_of = None):
    """The targets of one lab; copts are extra flags for the student's file only (tests),
    spec_copts for the spec's (a variant of the lab's workload, for a lesson's second part).
    The spec gets its lab's id, title and lesson from the catalog (LAB_ID, LAB_TITLE and
    LAB_LESSON in "lab_catalog/lab_identity.h", @lab_catalog//:NN_topic_identity).

    binary_of: another lab() of this package with the same spec and spec_copts (a variant
    of the lab's own file): its lab binary, which holds the spec, the harness and the
    referee and none of the student's code, is copied rather than compiled and linked again
    (each variant differs only in its student program)."""
    if binary_of and spec_copts:
        fail("lab(%s): binary_of shares %s's spec as it was built; it cannot take spec_copts" % (name, binary_of))
    for backend in BACKENDS:
        native.cc_library(
            name = "%s_impl_%s" % (name, backend),
            srcs = [src],
            copts = STUDENT_COPTS + copts,
            deps = ["//labs/harness:lab_h_" + backend],
            alwayslink = True,
            visibility = ["//visibility:private"],
        )
        checked_student_library(
            name = "%s_student_%s" % (name, backend),
            library = ":%s_impl_%s" % (name, backend),
            src = src,
            tags = tags,
            visibility = ["//labs/objcheck:__pkg__"],
        )
        # The student's program: the student's file and the client library, nothing of the
        # harness; the lab binary below starts it and referees it (docs/referee.md).
        native.cc_binary(
            name = "%s_%s_student" % (name, backend),
            deps = [
                ":%s_student_%s" % (name, backend),
                "//labs/client:client_" + backend,
            ],
            tags = tags,
            visibility = visibility,
        )
        if binary_of:
            _referee_copy(
                name = "%s_%s" % (name, backend),
                src = ":%s_%s" % (binary_of, backend),
                data = [":%s_%s_student" % (name, backend)],
                tags = tags,
                visibility = visibility,
            )
        else:
            native.cc_library(
                name = "%s_spec_%s" % (name, backend),
                srcs = [spec],
                copts = spec_copts,
                deps = [
                    "//kernels:cpu",
                    "//labs/harness:lab_api_" + backend,
                    "@lab_catalog//:%s_identity" % _lab_id(spec),
                    "//labs/harness:spec_helpers_" + backend,
                ],
                alwayslink = True,
                # The grader links submissions against the same spec library (//grading:kit.bzl).
                visibility = ["//grading:__pkg__"],
            )
            native.cc_binary(
                name = "%s_%s" % (name, backend),
                deps = [
                    ":%s_spec_%s" % (name, backend),
                    "//labs/harness:main_" + backend,
                    "//labs/harness:referee_" + backend,
                ],
                data = [":%s_%s_student" % (name, backend)],
                tags = tags,
                visibility = visibility,
            )
        # The student's code in the lab binary's own process, as before the referee: built only
        # when asked for, to measure what the referee costs on a GPU (kernels/gpu_bundle.sh).
        native.cc_binary(
            name = "%s_%s_one_process" % (name, backend),
            deps = [
                ":%s_student_%s" % (name, backend),
                ":%s_spec_%s" % (binary_of or name, backend),
                "//labs/harness:main_" + backend,
            ],
            tags = tags + ["manual"],
            visibility = visibility,
        )
    # The launcher the live timeline runs (it cannot depend on the timeline itself)...
    native.sh_binary(
        name = name + "_run",
        srcs = ["//labs/harness:launch.sh"],
        data = [":%s_%s" % (name, backend) for backend in BACKENDS],
        tags = tags,
        visibility = visibility,
    )

    # ...and the one students run, which also opens the timeline with --tui.
    native.sh_binary(
        name = name,
        srcs = ["//labs/harness:launch.sh"],
        data = [":%s_%s" % (name, backend) for backend in BACKENDS] + ["//tui"],
        tags = tags,
        visibility = visibility,
    )

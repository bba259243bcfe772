"""grading_kit: everything a lab run is made of except the student's file, prebuilt once.

    grading_kit(
        name = "kits/03_double_buffer_sim",
        lab = "03_double_buffer",
        backend = "sim",
        api = "//labs/harness:lab_h_sim",
        deps = ["//labs/client:client_sim"],
        referee = "//labs:03_double_buffer_sim",
    )

A lab runs as two processes (docs/referee.md): the lab binary, the referee, which owns the
workload, the device, the timing and the verdict, and the student's program, the student's
file linked with the client library (//labs/client), which the referee starts and whose
every call it performs. The grader builds the student's program as labs/lab.bzl does and
runs the kit's referee on it (`bin/referee --student PATH`), so that nothing the grade
depends on is linked with the student's code.

The grader never runs Bazel. Instead this rule gathers, from the CcInfo of `deps` (what the
student's program links: the client library) and of `api` (the headers a lab.c may
include), a directory tree:

    <name>/manifest.json   what the grader reads (see below)
    <name>/include/...     the headers, at their paths relative to Bazel's execution root
    <name>/lib/...         the static archives (and shared libraries) in link order
    <name>/bin/objcheck    the check of the student's object before it is linked
                           (//labs/objcheck, as labs/lab.bzl runs it)
    <name>/bin/referee     the lab binary, prebuilt

The manifest holds the compiler Bazel's C toolchain uses and the exact command lines
Bazel would run to compile the student's file (the toolchain's flags, --copt, --conlyopt
and the lab() macro's student copts) and to link the student's program (the toolchain's
flags, --linkopt), with placeholders the grader fills in:

    @KIT@  the kit's directory     @SRC@  the student's file     @OBJ@  its object file
    @OUT@  the student's program

Libraries are listed in link order, each with its `alwayslink` flag (linked with
--whole-archive, as Bazel does), followed by the libraries' own link flags (-lcjson, ...).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_LINK_EXECUTABLE_ACTION_NAME", "C_COMPILE_ACTION_NAME")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//labs:lab.bzl", "STUDENT_COPTS")

def _kit_dir(path):
    """Where an include directory of the execution root lands inside the kit."""
    if path in ("", "."):
        return "@KIT@/include"
    return "@KIT@/include/" + path

def _numbered(n, basename):
    """lib/007_libfoo.a: numbered so that names never clash and sort in link order."""
    digits = str(n)
    return "lib/" + "0" * (3 - len(digits)) + digits + "_" + basename

def _library_file(lib):
    """The file that stands for one LibraryToLink, and whether it is a shared library."""
    for f in (lib.pic_static_library, lib.static_library):
        if f != None:
            return f, False
    for f in (lib.dynamic_library, lib.interface_library):
        if f != None:
            return f, True
    return None, False

def _grading_kit_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    api = ctx.attr.api[CcInfo].compilation_context
    linking = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).linking_context

    # ---- compile: the same variables Bazel gives a C compile of a lab() student file.
    compile_vars = cc_common.create_compile_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = features,
        source_file = "@SRC@",
        output_file = "@OBJ@",
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.conlyopts + STUDENT_COPTS,
        include_directories = depset([_kit_dir(d) for d in api.includes.to_list()]),
        quote_include_directories = depset([_kit_dir(d) for d in api.quote_includes.to_list()]),
        system_include_directories = depset([_kit_dir(d) for d in api.system_includes.to_list()]),
        preprocessor_defines = api.defines,
        use_pic = cc_toolchain.needs_pic_for_dynamic_libraries(feature_configuration = features),
    )
    compile_argv = cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = C_COMPILE_ACTION_NAME,
        variables = compile_vars,
    )
    compiler = cc_common.get_tool_for_action(feature_configuration = features, action_name = C_COMPILE_ACTION_NAME)

    # ---- link: the toolchain's flags for an executable. @LIBS@ stands where Bazel puts
    # the libraries and their flags (before the toolchain's own trailing flags).
    link_vars = cc_common.create_link_variables(
        cc_toolchain = cc_toolchain,
        feature_configuration = features,
        output_file = "@OUT@",
        user_link_flags = ["@LIBS@"],
        must_keep_debug = False,
        is_using_linker = True,
        is_linking_dynamic_library = False,
        is_static_linking_mode = True,
    )
    link_argv = cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = CPP_LINK_EXECUTABLE_ACTION_NAME,
        variables = link_vars,
    )
    linker = cc_common.get_tool_for_action(feature_configuration = features, action_name = CPP_LINK_EXECUTABLE_ACTION_NAME)

    copies = []  # (source File, path inside the kit)
    seen_headers = {}
    for h in api.headers.to_list():
        if h.path in seen_headers:
            continue
        seen_headers[h.path] = True
        copies.append((h, "include/" + h.path))

    libraries = []
    link_flags = []
    seen_libs = {}
    for linker_input in linking.linker_inputs.to_list():
        for lib in linker_input.libraries:
            f, shared = _library_file(lib)
            if f == None:
                # A library of loose objects (no archive was made): link them as they are.
                for obj in (lib.pic_objects or lib.objects or []):
                    if obj.path in seen_libs:
                        continue
                    seen_libs[obj.path] = True
                    dest = _numbered(len(seen_libs), obj.basename)
                    copies.append((obj, dest))
                    libraries.append({"path": dest, "alwayslink": True, "shared": False})
                continue
            if f.path in seen_libs:
                continue
            seen_libs[f.path] = True
            if shared:
                # Keep the file name: the binary records it (its soname) and finds it through
                # the rpath the grader adds.
                dest = "lib/" + f.basename
            else:
                dest = _numbered(len(seen_libs), f.basename)
            copies.append((f, dest))
            libraries.append({"path": dest, "alwayslink": lib.alwayslink, "shared": shared})
        link_flags.extend(linker_input.user_link_flags)

    sanitized = False
    for flag in compile_argv + link_argv + link_flags + ctx.fragments.cpp.linkopts:
        if flag.startswith("-fsanitize="):
            sanitized = True

    if ctx.file.skeleton:
        copies.append((ctx.file.skeleton, "skeleton/" + ctx.file.skeleton.basename))
    copies.append((ctx.executable._objcheck, "bin/objcheck"))
    copies.append((ctx.executable.referee, "bin/referee"))

    manifest = {
        "version": 1,
        "lab": ctx.attr.lab,
        "backend": ctx.attr.backend,
        "student_file": ctx.attr.student_file or "labs/%s/lab.c" % ctx.attr.lab,
        "compiler": compiler,
        "compile": compile_argv,
        "linker": linker,
        "link": link_argv,
        "libraries": libraries,
        "link_flags": link_flags + ctx.fragments.cpp.linkopts,
        "sanitized": sanitized,
        "objcheck": "bin/objcheck",
        "referee": "bin/referee",
    }
    if ctx.file.skeleton:
        manifest["skeleton"] = "skeleton/" + ctx.file.skeleton.basename
    manifest_file = ctx.actions.declare_file(ctx.label.name + ".manifest.json")
    ctx.actions.write(manifest_file, json.encode(manifest))
    copies.append((manifest_file, "manifest.json"))

    plan = ctx.actions.declare_file(ctx.label.name + ".plan")
    ctx.actions.write(plan, "".join(["%s\t%s\n" % (src.path, dest) for src, dest in copies]))

    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run_shell(
        inputs = [plan] + [src for src, _ in copies],
        outputs = [out],
        arguments = [plan.path, out.path],
        command = """set -eu
while IFS="$(printf '\\t')" read -r src dest; do
  mkdir -p "$2/$(dirname "$dest")"
  cp -L "$src" "$2/$dest"
  chmod u+w,a+r "$2/$dest"
done < "$1"
""",
        mnemonic = "GradingKit",
        progress_message = "Collecting the grading kit %s" % ctx.label.name,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

grading_kit = rule(
    implementation = _grading_kit_impl,
    doc = "A lab's prebuilt parts and its exact compile and link flags, for the grader.",
    attrs = {
        "lab": attr.string(mandatory = True, doc = "the lab's id, e.g. 03_double_buffer"),
        "backend": attr.string(mandatory = True, values = ["sim", "gpu"]),
        "student_file": attr.string(doc = "the student's file; default labs/<lab>/lab.c"),
        "skeleton": attr.label(
            allow_single_file = [".c", ".cu"],
            doc = "the lab's starting file: the grader builds and runs it once before grading anyone, to check its options and learn the lab's target",
        ),
        "api": attr.label(mandatory = True, providers = [CcInfo], doc = "the headers lab.c may include"),
        "deps": attr.label_list(mandatory = True, providers = [CcInfo], doc = "what the student's program links"),
        "referee": attr.label(
            mandatory = True,
            executable = True,
            cfg = "target",
            doc = "the lab binary, which starts the student's program and referees it",
        ),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
        # Runs where the grader runs (in its sandbox, between compile and link).
        "_objcheck": attr.label(default = Label("//labs/objcheck:objcheck"), executable = True, cfg = "target"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

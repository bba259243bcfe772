"""The link-time check of a student's file (//labs/objcheck) in Bazel.

checked_student_library: a lab's student library, usable only once objcheck accepts it.

    checked_student_library(
        name = "03_double_buffer_student_sim",
        library = ":03_double_buffer_impl_sim",  # the cc_library of the student's file
        src = "03_double_buffer/lab.c",
    )

runs //labs/objcheck on the library's object (with the student's file for the lines of
its refusals) and gives the library's CcInfo with objcheck's stamp added as an input of
the link: a binary that depends on it is never linked from a refused file, and the build
fails with objcheck's refusals ("labs/03_double_buffer/lab.c:12: not accepted: ...").
Its output group "objects" is the object files it checked (for the tests).

refused_student_object: the same check, for the tests, of a file that objcheck must refuse
(grading/testdata/attacks/): the action succeeds only when objcheck refuses the object,
and its output is what objcheck printed.

object_files: a cc_library's own object files, unchecked (for the tests).
"""

def _objects(library):
    """The object files of the library itself (not of its dependencies)."""
    objects = []
    for linker_input in library[CcInfo].linking_context.linker_inputs.to_list():
        if linker_input.owner != library.label:
            continue
        for lib in linker_input.libraries:
            objects.extend(lib.pic_objects or lib.objects or [])
    return objects

def _sanitized(ctx):
    """Whether the student's object was compiled with sanitizers (--config=asan)."""
    for flag in ctx.fragments.cpp.copts + ctx.fragments.cpp.conlyopts:
        if flag.startswith("-fsanitize="):
            return True
    return False

def _checked_objects(ctx):
    objects = _objects(ctx.attr.library)
    if not objects:
        fail("%s has no object files to check" % ctx.attr.library.label)
    return objects

def _checked_student_library_impl(ctx):
    objects = _checked_objects(ctx)
    stamp = ctx.actions.declare_file(ctx.label.name + ".accepted")
    args = ctx.actions.args()
    args.add("--source", ctx.file.src)
    if _sanitized(ctx):
        args.add("--sanitized")
    args.add("--stamp", stamp)
    args.add_all(objects)
    ctx.actions.run(
        executable = ctx.executable._objcheck,
        arguments = [args],
        inputs = objects + [ctx.file.src],
        outputs = [stamp],
        mnemonic = "LabObjcheck",
        progress_message = "Checking the student's object of %s" % ctx.file.src.short_path,
    )
    checked = CcInfo(linking_context = cc_common.create_linking_context(linker_inputs = depset([
        cc_common.create_linker_input(owner = ctx.label, additional_inputs = depset([stamp])),
    ])))
    return [
        cc_common.merge_cc_infos(cc_infos = [ctx.attr.library[CcInfo], checked]),
        DefaultInfo(files = depset([stamp])),
        OutputGroupInfo(objects = depset(objects)),
    ]

checked_student_library = rule(
    implementation = _checked_student_library_impl,
    doc = "A student's cc_library, linked only once //labs/objcheck accepts its object.",
    attrs = {
        "library": attr.label(mandatory = True, providers = [CcInfo], doc = "the cc_library of the student's file"),
        "src": attr.label(mandatory = True, allow_single_file = True, doc = "the student's file"),
        "_objcheck": attr.label(
            default = Label("//labs/objcheck:objcheck"),
            executable = True,
            cfg = "exec",
        ),
    },
    fragments = ["cpp"],
)

def _refused_student_object_impl(ctx):
    objects = _checked_objects(ctx)
    out = ctx.actions.declare_file(ctx.label.name + ".refusals")
    args = ctx.actions.args()
    args.add(ctx.executable._objcheck)
    args.add(out)
    args.add("--source", ctx.file.src)
    if _sanitized(ctx):
        args.add("--sanitized")
    args.add_all(objects)
    ctx.actions.run_shell(
        tools = [ctx.executable._objcheck],
        inputs = objects + [ctx.file.src],
        outputs = [out],
        arguments = [args],
        command = """objcheck="$1"; out="$2"; shift 2
"$objcheck" "$@" > "$out"; rc=$?
if [ "$rc" != 1 ]; then
  echo "objcheck accepted what it must refuse, or failed (exit $rc):" >&2; cat "$out" >&2; exit 1
fi""",
        mnemonic = "LabObjcheckRefused",
        progress_message = "Checking that objcheck refuses %s" % ctx.file.src.short_path,
    )
    return [
        DefaultInfo(files = depset([out])),
        OutputGroupInfo(objects = depset(objects)),
    ]

refused_student_object = rule(
    implementation = _refused_student_object_impl,
    doc = "What //labs/objcheck prints for a student's object it must refuse (for the tests).",
    attrs = {
        "library": attr.label(mandatory = True, providers = [CcInfo], doc = "the cc_library of the student's file"),
        "src": attr.label(mandatory = True, allow_single_file = True, doc = "the student's file"),
        "_objcheck": attr.label(
            default = Label("//labs/objcheck:objcheck"),
            executable = True,
            cfg = "exec",
        ),
    },
    fragments = ["cpp"],
)

def student_objects(name, **kwargs):
    """A filegroup of the object files that every checked_student_library of this package
    checked (call it after them, at the end of the BUILD file)."""
    native.filegroup(
        name = name,
        srcs = [":" + r["name"] for r in native.existing_rules().values() if r["kind"] == "checked_student_library"],
        output_group = "objects",
        **kwargs
    )

def _object_files_impl(ctx):
    objects = _objects(ctx.attr.library)
    return [DefaultInfo(files = depset(objects), runfiles = ctx.runfiles(files = objects))]

object_files = rule(
    implementation = _object_files_impl,
    doc = "The object files of a cc_library itself (for the tests).",
    attrs = {"library": attr.label(mandatory = True, providers = [CcInfo])},
)

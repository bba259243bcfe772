"""api_names: the functions a student's lab file may call from the kit, read at build time
from the header a lab file includes.

    api_names(
        name = "api_names",
        api = "//labs/harness:lab_api_sim",
        header = "labs/harness/lab.h",
        prefixes = ["lab_", "kernels_"],
        out = "api_names.inc",
    )

runs the C preprocessor of Bazel's toolchain over `#include "<header>"` with the include
paths of `api` (a cc_library whose headers include it), and writes every function declared
there whose name starts with one of `prefixes`, one `"name",` a line, sorted: lab.h's
functions and kernels.h's. A function added to one of those headers is allowed with no
other change; a function of spec.h, which lab.h does not include, is not.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _api_names_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    cc = ctx.attr.api[CcInfo].compilation_context
    args = ctx.actions.args()
    args.add(cc_toolchain.compiler_executable)
    args.add(ctx.attr.header)
    args.add(ctx.outputs.out)
    args.add("|".join(ctx.attr.prefixes))
    args.add_all(cc.includes, format_each = "-I%s")
    args.add_all(cc.quote_includes, format_each = "-iquote%s")
    args.add_all(cc.system_includes, format_each = "-isystem%s")
    args.add_all(cc.defines, format_each = "-D%s")
    ctx.actions.run_shell(
        inputs = depset(transitive = [cc.headers, cc_toolchain.all_files]),
        outputs = [ctx.outputs.out],
        arguments = [args],
        command = """set -eu
cc="$1"; header="$2"; out="$3"; prefixes="$4"; shift 4
printf '#include "%s"\\n' "$header" | "$cc" -E -P -x c "$@" - > "$out.i"
grep -oE "\\b($prefixes)[A-Za-z0-9_]*[[:space:]]*\\(" "$out.i" | tr -d ' \\t(' | sort -u |
  sed 's/.*/"&",/' > "$out"
rm -f "$out.i"
test -s "$out" || { echo "api_names: no function of $header starts with $prefixes" >&2; exit 1; }
""",
        mnemonic = "ApiNames",
        progress_message = "Listing the functions %s declares" % ctx.attr.header,
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

api_names = rule(
    implementation = _api_names_impl,
    doc = "The functions a header declares whose names start with given prefixes, as C strings.",
    attrs = {
        "api": attr.label(mandatory = True, providers = [CcInfo], doc = "a library whose headers include `header`"),
        "header": attr.string(mandatory = True, doc = "the header, as a lab file includes it"),
        "prefixes": attr.string_list(mandatory = True),
        "out": attr.output(mandatory = True),
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

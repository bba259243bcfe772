"""layering: a dependency the wrong way fails the build, where visibility cannot say it.

Visibility says who may depend on a target; it cannot keep one package from a target that
everyone else may use (the simulator's core from //sim:cudart, which every program links).
This rule can: it fails the analysis when any of `libs` depends, directly or through
others, on a target of a package in `forbidden`.

    layering(
        name = "core_layering",
        libs = [":core"],
        forbidden = ["//sim"],          # the package //sim itself (not //sim/core)
        why = "the simulator's core knows nothing of the CUDA API above it",
    )

`bazel build //...` builds it like any target, so the check runs with every build.
"""

_LayerInfo = provider(fields = ["labels"])

def _collect_impl(target, ctx):
    deps = []
    for attr in ("deps", "implementation_deps"):
        for d in getattr(ctx.rule.attr, attr, []):
            if _LayerInfo in d:
                deps.append(d[_LayerInfo].labels)
    return [_LayerInfo(labels = depset([str(target.label)], transitive = deps))]

_collect = aspect(implementation = _collect_impl, attr_aspects = ["deps", "implementation_deps"])

def _package_of(label):
    label = label.lstrip("@")
    return label.split(":")[0]

def _layering_impl(ctx):
    for lib in ctx.attr.libs:
        for label in lib[_LayerInfo].labels.to_list():
            if _package_of(label) in ctx.attr.forbidden:
                fail("\n\nstreamlab layering: %s depends on %s, which it must not use: %s " % (lib.label, label, ctx.attr.why) +
                     "(docs/architecture.md says which way dependencies point).\n")
    out = ctx.actions.declare_file(ctx.label.name + ".ok")
    ctx.actions.write(out, "no dependency the wrong way\n")
    return [DefaultInfo(files = depset([out]))]

layering = rule(
    implementation = _layering_impl,
    attrs = {
        "libs": attr.label_list(aspects = [_collect]),
        "forbidden": attr.string_list(doc = "packages, as //pkg/path, that libs must not depend on"),
        "why": attr.string(),
    },
)

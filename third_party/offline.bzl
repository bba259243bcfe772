"""Offline stand-ins for the repositories Bazel's built-in WORKSPACE suffix downloads.

Debian's bazel-bootstrap (4.2.3, reporting no version) cannot download anything on a
machine without internet. A repository declared in WORKSPACE takes precedence over the
suffix's, so declaring local ones here is enough:
  rules_cc               a tiny shim whose cc/defs.bzl forwards to the native rules
  rules_java, platforms  the copies Debian ships under /usr/share/bazel
  remote_coverage_tools  the two empty filegroups `bazel test` asks for
Upstream Bazel (which reports its version) keeps its own definitions untouched.
"""

def streamlab_offline_shims():
    if native.bazel_version:
        return
    native.local_repository(
        name = "rules_cc",
        path = "third_party/offline/rules_cc",
    )
    native.local_repository(
        name = "remote_coverage_tools",
        path = "third_party/offline/remote_coverage_tools",
    )
    native.local_repository(
        name = "rules_java",
        path = "/usr/share/bazel/rules/java",
    )
    native.local_repository(
        name = "platforms",
        path = "/usr/share/bazel/tools/platforms",
    )

"""Refuses Bazel versions this workspace cannot work with, with a message that says why."""

_MIN = (4, 2)
_MAX_EXCLUSIVE = (8, 0)

def _parse(version):
    parts = []
    for piece in version.split("-")[0].split(".")[:2]:
        digits = ""
        for ch in piece.elems():
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits) if digits else 0)
    for _ in range(2 - len(parts)):
        parts.append(0)
    return (parts[0], parts[1])

def streamlab_check_bazel_version():
    """Fails the build early with a readable paragraph when Bazel is too old or too new.

    Debian's bazel-bootstrap reports no version at all (an empty string); it is 4.2.3 and
    supported.
    """
    version = native.bazel_version
    if not version:
        return
    found = _parse(version)
    if found < _MIN or found >= _MAX_EXCLUSIVE:
        fail(("\n\nstreamlab: Bazel %s is not supported. This workspace uses a WORKSPACE file, " +
              "which needs Bazel 4.2 up to 7.x (Bazel 8 turns WORKSPACE off and 9 removes it). " +
              "Use the version pinned in .bazelversion (bazelisk reads it), or on Debian run " +
              "./setup.sh, which installs Debian's bazel-bootstrap.\n") % version)

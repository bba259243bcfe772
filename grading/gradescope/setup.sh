#!/usr/bin/env bash
# grading/gradescope/setup.sh: Gradescope runs this once, as root, when it builds the
# autograder's image. The grader and the lab kit's programs come in the zip with every
# shared library they load (runtime/, the C library included), installed here in
# /usr/local/lib/streamlab, where they were set to look; the image only needs what
# compiles and links each submission against the kit (see docs/gradescope.md).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The image's package lists may be missing or stale: without them the install fails.
apt-get update
# gcc and libc6-dev compile the submission; g++ brings libstdc++'s link library (the kit
# links -lstdc++); binutils is the linker (ld.gold, which the kit's link asks for) and
# addr2line (crash reports).
apt-get install -y --no-install-recommends gcc g++ binutils libc6-dev
install -d -m 0755 /usr/local/lib/streamlab
cp "${here}/runtime/"* /usr/local/lib/streamlab/
chmod -R a+rX /usr/local/lib/streamlab
chmod 0755 /usr/local/lib/streamlab/ld-linux* "${here}/grade" "${here}/run_autograder"
# The grader starts: its loader and libraries are in place.
"${here}/grade" --help >/dev/null

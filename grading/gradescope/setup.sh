#!/usr/bin/env bash
# grading/gradescope/setup.sh: Gradescope runs this once, as root, when it builds the
# autograder's image: it installs what the streamlab grader needs at grading time. The
# grader itself and the prebuilt lab kits come in the zip (see docs/gradescope.md).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
# The image's package lists may be missing or stale: without them the install fails.
apt-get update
# libelf1 and libdw1: the kits' objcheck, which reads each student's object before it is linked.
apt-get install -y --no-install-recommends gcc binutils libc6-dev libcjson-dev libarchive13 libyaml-0-2 libelf1 libdw1

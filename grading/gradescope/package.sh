#!/usr/bin/env bash
# grading/gradescope/package.sh: makes the Gradescope autograder zip from what Bazel built:
# the grader, the simulator kits of the labs, the rubric, setup.sh and run_autograder, all
# at the root of the zip as Gradescope wants them.
#   bazel run //grading:gradescope_package -- autograder.zip [LAB]
# LAB (default 03_double_buffer) is the lab this Gradescope assignment grades.
set -euo pipefail
out="${1:-autograder.zip}"
lab="${2:-03_double_buffer}"
[[ "${out}" == /* ]] || out="${BUILD_WORKING_DIRECTORY:-${PWD}}/${out}"
runfiles="${RUNFILES_DIR:-$0.runfiles}"
src="${runfiles}/streamlab/grading"
if [[ ! -d "${src}/kits/${lab}_sim" ]]; then
  echo "package.sh: no simulator kit for lab '${lab}' (have: $(ls "${src}/kits" | tr '\n' ' '))" >&2
  exit 64
fi
stage="$(mktemp -d)"
trap 'rm -rf "${stage}"' EXIT
cp -L "${src}/grade" "${stage}/grade"
mkdir -p "${stage}/kits"
cp -RL "${src}/kits/${lab}_sim" "${stage}/kits/"
cp -L "${src}/rubric.json" "${stage}/rubric.json"
cp -L "${src}/gradescope/setup.sh" "${stage}/setup.sh"
sed "s/@LABS@/${lab}/" "${src}/gradescope/run_autograder" >"${stage}/run_autograder"
chmod 755 "${stage}/grade" "${stage}/setup.sh" "${stage}/run_autograder"
rm -f "${out}"
if command -v zip >/dev/null 2>&1; then
  (cd "${stage}" && zip -qr "${out}" .)
else
  (cd "${stage}" && python3 -m zipfile -c "${out}" grade kits rubric.json setup.sh run_autograder)
fi
echo "wrote ${out}: upload it as the assignment's autograder (docs/gradescope.md)"

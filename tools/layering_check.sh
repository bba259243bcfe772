#!/usr/bin/env bash
# tools/layering_check.sh: the one-way dependencies of docs/architecture.md hold. Each
# `layering_probe` target below depends on something its layer must not use; Bazel must
# refuse to build every one of them, because of visibility or of a `layering` rule
# (third_party/layering.bzl). Exit 0 when it refuses all, 1 (naming the probe) when one
# builds or fails for another reason. .ci/run runs it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

probes=(
  "//trace/record:layering_probe"  # the recorder on the race checker
  "//trace/check:layering_probe"   # the race checker on GPU capture
  "//trace/view:layering_probe"    # a view on the event stream
  "//sim/core:layering_probe"      # the simulator's core on its CUDA API
  "//grading/submissions:layering_probe"  # a platform's layout reader on the sandbox
  "//grading/reports:layering_probe"      # a report writer on the run of a lab
)
bad=0
for probe in "${probes[@]}"; do
  if ! bazel query --noshow_progress "${probe}" >/dev/null 2>&1; then
    echo "layering_check: ${probe} does not exist"
    bad=$((bad + 1))
    continue
  fi
  out="$(bazel build --nobuild --noshow_progress "${probe}" 2>&1)"
  if [[ $? -eq 0 ]]; then
    echo "layering_check: ${probe} builds, but its dependency goes the wrong way"
    bad=$((bad + 1))
  elif ! grep -q "is not visible from target\|which is not visible\|streamlab layering:" <<<"${out}"; then
    echo "layering_check: ${probe} fails, but not because of visibility or a layering rule:"
    echo "${out}" | grep -E "ERROR" | head -5 | sed 's/^/    /'
    bad=$((bad + 1))
  else
    echo "layering_check: ${probe} refused, as it must be"
  fi
done
((bad == 0)) && echo "layering_check: every dependency the wrong way fails to build"
exit $((bad > 0))

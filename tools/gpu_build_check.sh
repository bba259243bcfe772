#!/usr/bin/env bash
# tools/gpu_build_check.sh: a build on a machine without a GPU compiles no GPU code. The
# first lab's launcher (`bazel run //labs:00_default_stream`, what a new student builds
# first) must need no nvcc action and no compile against the CUDA toolkit's headers when
# the GPU builds are off (STREAMLAB_GPU=off), nor under the default STREAMLAB_GPU=auto where
# third_party/gpu_present.sh sees no GPU; and, where a CUDA toolkit is installed, it must
# need them with --config=gpu (so that the check can see such actions at all). `bazel
# aquery` only analyses: nothing is built. Exit 0 when all holds, 1 with what did not.
# .ci/run runs it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target="//labs:00_default_stream"
bad=0

# How many actions under target match an aquery function, with these extra flags.
count() {
  local expr="$1"
  shift
  local out
  out="$(bazel aquery --noshow_progress "$@" "${expr}" 2>&1)" || {
    echo "gpu_build_check: bazel aquery $* '${expr}' failed:" >&2
    grep -E "ERROR" <<<"${out}" | head -5 | sed 's/^/    /' >&2
    echo -1
    return
  }
  grep -c "^action '" <<<"${out}"
}

# nvcc actions and compiles that read the toolkit (its headers, its libraries) under target.
gpu_actions() {
  local nvcc cuda
  nvcc="$(count "mnemonic(\"Nvcc\", deps(${target}))" "$@")"
  cuda="$(count "inputs(\".*external/cuda/.*\", deps(${target}))" "$@")"
  if ((nvcc < 0 || cuda < 0)); then
    echo -1
  else
    echo $((nvcc + cuda))
  fi
}

expect_none() {
  local what="$1"
  shift
  local n
  n="$(gpu_actions "$@")"
  if ((n != 0)); then
    echo "gpu_build_check: ${what}: ${target} needs ${n} nvcc or CUDA toolkit action(s); expected none"
    bad=$((bad + 1))
  else
    echo "gpu_build_check: ${what}: ${target} needs no nvcc and no CUDA toolkit action"
  fi
}

expect_none "STREAMLAB_GPU=off" --repo_env=STREAMLAB_GPU=off
if seen="$(third_party/gpu_present.sh)"; then
  echo "gpu_build_check: this machine has a GPU (${seen}): the default STREAMLAB_GPU=auto builds for it, not checked here"
else
  expect_none "STREAMLAB_GPU=auto on this machine without a GPU" --repo_env=STREAMLAB_GPU=auto
fi

cuda_root="${CUDA_PATH:-/usr/local/cuda}"
if [[ -x "${cuda_root%/}/bin/nvcc" ]]; then
  n="$(bazel aquery --noshow_progress --config=gpu "mnemonic(\"Nvcc\", deps(${target}))" 2>/dev/null | grep -c "^action '")"
  if ((n == 0)); then
    echo "gpu_build_check: --config=gpu: ${target} needs no nvcc action, though a CUDA toolkit is at ${cuda_root}; expected the GPU build"
    bad=$((bad + 1))
  else
    echo "gpu_build_check: --config=gpu: ${target} needs ${n} nvcc action(s), as it must with the toolkit at ${cuda_root}"
  fi
else
  echo "gpu_build_check: no CUDA toolkit at ${cuda_root}: --config=gpu not checked"
fi
# Leave the server as a plain build finds it.
bazel aquery --noshow_progress "${target}" >/dev/null 2>&1
exit $((bad > 0))

#!/usr/bin/env bash
# cuda_calls/wrapped_bzl_test.sh: the checked-in wrapped.bzl (which trace/gpu/BUILD loads:
# Bazel cannot read the C list) is what cuda_calls_gen --bzl prints from the list today.
# Arguments: the generator, the checked-in file.
set -euo pipefail
gen="$1"
checked_in="$2"
expected="$(mktemp)"
trap 'rm -f "${expected}"' EXIT
"${gen}" --bzl >"${expected}"
if ! diff -u "${checked_in}" "${expected}"; then
  echo "wrapped_bzl_test: cuda_calls/wrapped.bzl is not what the list cuda_calls/cuda_calls.inc gives;" >&2
  echo "  write it again: bazel run //cuda_calls:cuda_calls_gen -- --bzl > cuda_calls/wrapped.bzl" >&2
  exit 1
fi
echo "wrapped_bzl_test: wrapped.bzl matches the list ($(grep -c '^    "' "${checked_in}") wrapped entry points)"

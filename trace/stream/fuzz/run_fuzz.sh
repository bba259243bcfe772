#!/usr/bin/env bash
# trace/stream/fuzz/run_fuzz.sh: builds the event stream reader's libFuzzer target with
# clang and
# runs it for a bounded time (seconds: $1, default 20) from the seed corpus in
# trace/stream/testdata/events_corpus, with the schema's names as a dictionary. Fails on any crash, sanitizer report, leak or timeout, and
# fails with a clear message when clang or its fuzzer runtime is missing.
set -euo pipefail

seconds="${1:-20}"
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-streamlab}"
[[ -d "${root}/trace" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
work="${TEST_TMPDIR:-$(mktemp -d)}"

clang_bin=""
for c in clang clang-14 clang-15 clang-16; do
  if command -v "$c" >/dev/null 2>&1; then clang_bin="$(command -v "$c")"; break; fi
done
if [[ -z "${clang_bin}" ]]; then
  echo "FAIL: clang is not installed, so the event stream reader cannot be fuzzed." >&2
  echo "      Run ./setup.sh (it installs clang and libclang-rt-dev), or: sudo apt-get install -y clang libclang-rt-14-dev" >&2
  exit 1
fi

srcs=(trace/stream/events_reader.c trace/stream/events_schema.c trace/check/race.c trace/record/op.c trace/stream/fuzz/events_reader_fuzz.c)
args=(-std=c11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"${root}")
for s in "${srcs[@]}"; do args+=("${root}/${s}"); done
if ! "${clang_bin}" "${args[@]}" -lcjson -lm -o "${work}/events_reader_fuzz" 2>"${work}/build.log"; then
  cat "${work}/build.log" >&2
  if grep -q "libclang_rt.fuzzer\|fsanitize=fuzzer" "${work}/build.log"; then
    echo "FAIL: ${clang_bin} has no libFuzzer runtime: sudo apt-get install -y libclang-rt-14-dev (./setup.sh does)" >&2
  else
    echo "FAIL: building the fuzzer with ${clang_bin} failed (above)" >&2
  fi
  exit 1
fi

# libFuzzer adds what it finds to the first corpus directory: work on a copy of the seeds.
mkdir -p "${work}/corpus"
cp "${root}"/trace/stream/testdata/events_corpus/* "${work}/corpus/"
echo "fuzzing the event stream reader for ${seconds} s from $(ls "${work}/corpus" | wc -l) seeds"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
"${work}/events_reader_fuzz" "${work}/corpus" -dict="${root}/trace/stream/testdata/events.dict" -max_total_time="${seconds}" -max_len=200000 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="${work}/" 2>&1 | tail -n 40
status=${PIPESTATUS[0]}
if ((status != 0)); then
  echo "FAIL: the fuzzer found a crash (exit ${status}); the input is saved under ${work}/" >&2
  exit 1
fi
echo "PASS: no crash in ${seconds} s"

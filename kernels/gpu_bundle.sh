#!/usr/bin/env bash
# kernels/gpu_bundle.sh: packs streamlab's GPU tests and measurement binaries into a folder
# that runs on a machine with an NVIDIA GPU, its driver and CUDA but no Bazel.
#
#   kernels/gpu_bundle.sh OUT_DIR [--no-build]
#
# Builds the targets below (unless --no-build), copies them to OUT_DIR/bin, copies into
# OUT_DIR/lib the shared libraries they need that a bare GPU machine may lack (what ldd
# finds outside the C/C++ runtime, and libcupti, which the collector loads with dlopen),
# and writes OUT_DIR/run_all.sh, which runs them all and prints a summary. Copy OUT_DIR to
# the GPU machine and run OUT_DIR/run_all.sh there.
set -euo pipefail

usage() {
  echo "usage: kernels/gpu_bundle.sh OUT_DIR [--no-build]" >&2
  exit 2
}

out=""
build=1
for arg in "$@"; do
  case "${arg}" in
    --no-build) build=0 ;;
    -h | --help) usage ;;
    -*) echo "gpu_bundle: unknown option ${arg}" >&2; usage ;;
    *) [[ -z "${out}" ]] || usage; out="${arg}" ;;
  esac
done
[[ -n "${out}" ]] || usage

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"

# label -> what run_all.sh does with it: "test" (GoogleTest), "check" (exit 0 ok, 77 no
# device), "measure" (prints figures).
targets=(
  "//kernels:smoke check"
  "//kernels:smoke_test test"
  "//kernels:gpu_bitexact_test test"
  "//kernels:launch_trace_gpu_test test"
  "//trace/gpu:interpose_gpu_test test"
  "//kernels:kernel_probe measure"
  "//trace/gpu:overhead_bench measure"
)
labels=()
for t in "${targets[@]}"; do labels+=("${t%% *}"); done

if ((build)); then
  bazel build "${labels[@]}"
fi
bin_dir="$(bazel info bazel-bin 2>/dev/null)"
[[ -d "${bin_dir}" ]] || { echo "gpu_bundle: no bazel-bin folder; build first" >&2; exit 1; }

mkdir -p "${out}/bin" "${out}/lib" "${out}/logs"
out="$(cd "${out}" && pwd)"

# Libraries every Linux machine has (glibc, the C++ runtime): never copied.
is_base_lib() {
  case "$(basename "$1")" in
    linux-vdso.so* | ld-linux*.so* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | \
      libutil.so* | libstdc++.so* | libgcc_s.so*) return 0 ;;
  esac
  return 1
}

copy_lib() {
  local path="$1"
  local name
  name="$(basename "${path}")"
  install -m 0644 "$(readlink -f "${path}")" "${out}/lib/${name}"
}

manifest="${out}/bin/MANIFEST"
: >"${manifest}"
for t in "${targets[@]}"; do
  label="${t%% *}"
  kind="${t##* }"
  pkg="${label#//}"
  pkg="${pkg%%:*}"
  name="${label##*:}"
  src="${bin_dir}/${pkg}/${name}"
  [[ -x "${src}" ]] || { echo "gpu_bundle: ${src} is missing (build ${label} first)" >&2; exit 1; }
  install -m 0755 "${src}" "${out}/bin/${name}"
  echo "${name} ${kind}" >>"${manifest}"
  # Shared libraries the binary needs, outside the C/C++ runtime.
  while read -r lib_name arrow lib_path _; do
    [[ "${arrow}" == "=>" && -f "${lib_path}" ]] || continue
    is_base_lib "${lib_path}" || copy_lib "${lib_path}"
  done < <(ldd "${src}" 2>/dev/null)
done

# CUPTI, which the collector opens at run time (so ldd does not list it): the one from the
# toolkit the binaries were built against, whose activity records they read.
cuda="${CUDA_PATH:-/usr/local/cuda}"
major="$("${cuda}/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
cupti=""
for dir in lib64 extras/CUPTI/lib64 targets/x86_64-linux/lib; do
  if [[ -e "${cuda}/${dir}/libcupti.so.${major}" ]]; then
    cupti="${cuda}/${dir}/libcupti.so.${major}"
    break
  fi
done
if [[ -n "${cupti}" ]]; then
  copy_lib "${cupti}"
else
  echo "gpu_bundle: no libcupti.so.${major} under ${cuda}; the bundle will use the GPU machine's own" >&2
fi

cat >"${out}/run_all.sh" <<'RUN'
#!/usr/bin/env bash
# run_all.sh: runs streamlab's GPU tests and measurements on this machine and prints a
# summary. Logs go to logs/. Exit status 0 when no test failed.
#   ./run_all.sh              everything
#   T=900 ./run_all.sh        a longer time limit per binary (default 600 s)
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="${here}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
logs="${here}/logs"
mkdir -p "${logs}"
limit="${T:-600}"

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
echo "bundle libraries: $(ls "${here}/lib" | tr '\n' ' ')"

passed=0
skipped=0
failed=0
summary=()

# run NAME LOG_SUFFIX [ENV=VALUE ...] [ARG ...]: runs bin/NAME with the given environment
# and arguments, logging to logs/NAME LOG_SUFFIX.log; prints the exit status.
run() {
  local name="$1" suffix="$2"
  shift 2
  local envs=()
  while (($#)) && [[ "$1" == *=* && "$1" != -* ]]; do
    envs+=("$1")
    shift
  done
  local log="${logs}/${name}${suffix}.log"
  env ${envs[@]+"${envs[@]}"} timeout "${limit}" "${here}/bin/${name}" "$@" >"${log}" 2>&1
  echo $?
}

while read -r name kind; do
  case "${kind}" in
    test | check)
      rc="$(run "${name}" "")"
      log="${logs}/${name}.log"
      if [[ "${rc}" == 0 ]] && grep -q '^\[  SKIPPED \]' "${log}"; then
        status="PASS (some skipped)"
        skipped=$((skipped + 1))
        passed=$((passed + 1))
      elif [[ "${rc}" == 0 ]]; then
        status="PASS"
        passed=$((passed + 1))
      elif [[ "${rc}" == 77 ]]; then
        status="SKIP (no device)"
        skipped=$((skipped + 1))
      else
        status="FAIL (exit ${rc})"
        failed=$((failed + 1))
      fi
      summary+=("${name}: ${status}")
      echo "== ${name}: ${status}"
      if [[ "${status}" == "PASS (some skipped)" ]]; then
        echo "   skipped: $(grep -c '^\[  SKIPPED \] .*(' "${log}") tests; why:"
        grep -A1 ': Skipped$' "${log}" | grep -vE ': Skipped$|^--$' | sort | uniq -c | sed 's/^/   /'
      elif [[ "${status}" == FAIL* ]]; then
        grep -E '^\[  FAILED  \]|Failure|Expected|Which is|Value of|Actual' "${log}" | head -60
        tail -20 "${log}"
      fi
      ;;
    measure)
      if [[ "${name}" == overhead_bench ]]; then
        # A process that never loads CUPTI, as the baseline for the "off" rows below.
        rc="$(run "${name}" "-fresh-off" --modes off)"
        echo "== ${name} (fresh process, tracing off), exit ${rc}"
        cat "${logs}/${name}-fresh-off.log"
        summary+=("${name} (fresh off): exit ${rc}")
        # Which CUPTI API records external correlation needs, and what each costs.
        for api in both runtime driver selected; do
          env_api=()
          [[ "${api}" != both ]] && env_api=(STREAMLAB_CUPTI_API="${api}")
          rc="$(run "${name}" "-${api}" ${env_api[@]+"${env_api[@]}"})"
          echo "== ${name} (CUPTI API records: ${api}), exit ${rc}"
          cat "${logs}/${name}-${api}.log"
          summary+=("${name} (${api}): exit ${rc}")
        done
      else
        rc="$(run "${name}" "")"
        echo "== ${name}, exit ${rc}"
        cat "${logs}/${name}.log"
        summary+=("${name}: exit ${rc}")
      fi
      ;;
  esac
done <"${here}/bin/MANIFEST"

echo
echo "== summary"
printf '  %s\n' "${summary[@]}"
echo "${passed} passed, ${skipped} with skips, ${failed} failed (logs in ${logs})"
((failed == 0))
RUN
chmod 0755 "${out}/run_all.sh"

echo "gpu_bundle: wrote ${out} ($(du -sh "${out}" | cut -f1)); on the GPU machine run ${out##*/}/run_all.sh"

#!/usr/bin/env bash
# kernels/gpu_bundle.sh: packs streamlab's GPU tests and measurement binaries into a folder
# that runs on a machine with an NVIDIA GPU, its driver and CUDA but no Bazel.
#
#   kernels/gpu_bundle.sh OUT_DIR [--no-build] [--only REGEX] [--grader LAB[,LAB...]]
#                         [--class DIR] [--tui]
#
# --only REGEX packs only the targets whose label matches REGEX (an extended regular
# expression, e.g. '05_cross|01_pinned'): the whole bundle is over the 64 MiB a device
# command may carry, so one lab's binaries go in a bundle of their own.
#
# --grader LAB also packs the grader (//grading:grade) with LAB's kits for the GPU and the
# simulator, the rubric, and a class of LAB's submissions (its skeleton, its reference and
# each variant of labs/LAB/testdata/variants.c, one student each; and every case of the
# grader's corpus written for LAB, grading/testdata/*/ and grading/testdata/refereed/*/,
# as student corpus_NAME, with its expected.json beside it in OUT_DIR/grader/expected/
# for grading/corpus_compare.py), and writes
# OUT_DIR/run_grader.sh, which grades that class there with --backend gpu (the machine's
# gcc builds the submissions; the bundle brings the libraries the kits link with). Several
# labs, comma-separated, pack each one's kits and class (a student's folder holds each
# lab's file of that name: `skeleton` hands in every lab's skeleton).
#
# --class DIR (with --grader) adds a class of one's own: every DIR/STUDENT/labs/LAB/lab.c
# of a packed LAB, as student STUDENT (programs written to see what the GPU says of them).
#
# --tui also packs the live timeline (//tui) and writes OUT_DIR/run_tui.sh BINARY LAB
# [ARG...], which runs it on one lab binary of the bundle in a detached tmux window of
# 120x40 and prints the screen once the run has had time to finish (WAIT seconds, 20).
#
# Builds the targets below (unless --no-build), copies them to OUT_DIR/bin, copies into
# OUT_DIR/lib the shared libraries they need that a bare GPU machine may lack (what ldd
# finds outside the C/C++ runtime, and libcupti, which the collector loads with dlopen),
# and writes OUT_DIR/run_all.sh, which runs them all and prints a summary: the tests, the
# kernel probe, overhead_bench over every GPU timing strategy, and the reference lab 03
# under each timing (what tracing costs a lab's timed runs). Copy OUT_DIR to the GPU
# machine and run OUT_DIR/run_all.sh there.
set -euo pipefail

usage() {
  echo "usage: kernels/gpu_bundle.sh OUT_DIR [--no-build] [--only REGEX] [--grader LAB[,LAB...]] [--class DIR] [--tui]" >&2
  exit 2
}

out=""
build=1
only=""
grader_labs=()
class_dir=""
tui=0
while (($#)); do
  case "$1" in
    --no-build) build=0 ;;
    --only)
      [[ $# -ge 2 ]] || { echo "gpu_bundle: --only needs a regular expression" >&2; usage; }
      only="$2"
      shift
      ;;
    --grader)
      [[ $# -ge 2 ]] || { echo "gpu_bundle: --grader needs a lab id (09_two_gpus)" >&2; usage; }
      IFS=, read -r -a grader_labs <<<"$2"
      for lab in "${grader_labs[@]}"; do
        [[ -f "labs/${lab}/lab.c" || -f "$(dirname "${BASH_SOURCE[0]}")/../labs/${lab}/lab.c" ]] ||
          { echo "gpu_bundle: --grader ${lab}: no labs/${lab}/lab.c" >&2; exit 2; }
      done
      shift
      ;;
    --class)
      [[ $# -ge 2 ]] || { echo "gpu_bundle: --class needs a folder of students" >&2; usage; }
      class_dir="$(cd "$2" 2>/dev/null && pwd)" || { echo "gpu_bundle: --class $2: no such folder" >&2; exit 2; }
      shift
      ;;
    --tui) tui=1 ;;
    -h | --help) usage ;;
    -*) echo "gpu_bundle: unknown option $1" >&2; usage ;;
    *) [[ -z "${out}" ]] || usage; out="$1" ;;
  esac
  shift
done
[[ -n "${out}" ]] || usage
[[ -z "${class_dir}" || ${#grader_labs[@]} -gt 0 ]] || { echo "gpu_bundle: --class needs --grader" >&2; usage; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"

# label -> what run_all.sh does with it: "test" (GoogleTest), "check" (exit 0 ok, 77 no
# device), "measure" (prints figures), "lab" (a lab binary, run under each GPU timing to
# measure what tracing costs its timed runs; installed as PACKAGE_NAME), "verdict N" (a
# lab binary whose exit status must be N, as on the simulator, for every seed; installed
# as PACKAGE_NAME), "puzzles" (the puzzle runner: every puzzle is played with --reveal and
# must show the answer its explanation is written for, as on the simulator), "calibrate"
# (the simulator's calibration on this GPU: writes logs/calibrated.json and fails when the
# simulator with it does not reproduce a figure within 10%), "support" (a file another
# binary needs beside it, not run: calibrate's simulator build), "cost" (a lab binary run
# against its one-process build, the student's code in the lab's own process as before the
# referee, seeds interleaved: what the referee costs the graded figures on this GPU; the
# one-process build, LABEL_one_process, is packed beside it). A lab binary's student program
# (LABEL_student, docs/referee.md) is packed beside it as NAME_student.
targets=(
  "//kernels:smoke check"
  "//kernels:smoke_test test"
  "//kernels:gpu_bitexact_test test"
  "//kernels:launch_trace_gpu_test test"
  "//trace/gpu:interpose_gpu_test test"
  "//kernels:kernel_probe measure"
  "//trace/gpu:overhead_bench measure"
  "//sim:conformance_gpu measure"
  "//sim:host_memory_probe measure"
  "//solutions:03_double_buffer_gpu lab"
  "//solutions:03_double_buffer_gpu cost"
  "//solutions:04_priorities_gpu cost"
  "//solutions:06_stream_pool_gpu cost"
  "//solutions:07_cuda_graphs_gpu cost"
)
# Every lab's verdicts, from its manifest (labs/NN_topic/lab.json, docs/labs.md "The lab's
# manifest"), in the catalog's order: the skeleton, the reference (verdict 0), each variant
# and each extra build, each with its "gpu_verdict" where a GPU's differs from the
# simulator's "verdict", leaving out those whose "on_gpu" is false.
command -v jq >/dev/null 2>&1 || { echo "gpu_bundle: needs jq to read the labs' manifests (./setup.sh installs it)" >&2; exit 1; }
lab_verdicts() {
  local id
  local ids
  ids="$(jq -r '.labs[].id' labs/catalog.json)" || { echo "gpu_bundle: labs/catalog.json cannot be read" >&2; return 1; }
  for id in ${ids}; do
    jq -r --arg id "${id}" '
      def verdict: if has("gpu_verdict") then .gpu_verdict else .verdict end;
      (.skeleton | select(.on_gpu != false) | "//labs:\($id)_gpu verdict \(verdict)"),
      (.reference | select(.on_gpu != false) | "//solutions:\($id)_gpu verdict 0"),
      ((.variants + (.builds // []))[] | select(.on_gpu != false) | "//labs:\($id)_\(.name)_gpu verdict \(verdict)")
    ' "labs/${id}/lab.json" || { echo "gpu_bundle: labs/${id}/lab.json cannot be read" >&2; return 1; }
  done
}
verdicts="$(lab_verdicts)" || exit 1
while read -r t; do targets+=("${t}"); done <<<"${verdicts}"
targets+=(
  "//puzzles:puzzles_gpu puzzles"
  "//sim:calibrate_sim support"
  "//sim:calibrate calibrate"
)
if [[ -n "${only}" ]]; then
  kept=()
  for t in "${targets[@]}"; do [[ "${t%% *}" =~ ${only} ]] && kept+=("${t}"); done
  # A grader's bundle may pack no other target.
  ((${#kept[@]} || ${#grader_labs[@]})) || { echo "gpu_bundle: --only '${only}' matches no target" >&2; exit 2; }
  targets=("${kept[@]}")
fi

labels=()
for t in "${targets[@]}"; do
  labels+=("${t%% *}")
  [[ "${t#* }" == cost* ]] && labels+=("${t%% *}_one_process")
done
((${#grader_labs[@]} == 0)) || labels+=("//grading:grade")
for lab in "${grader_labs[@]}"; do labels+=("//grading:kits/${lab}_gpu" "//grading:kits/${lab}_sim"); done
((tui == 0)) || labels+=("//tui:tui")

if ((build)); then
  # --config=gpu: the GPU variants, built here whether or not this machine has a GPU.
  bazel build --config=gpu "${labels[@]}"
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

# Shared libraries a binary needs outside the C/C++ runtime, into the folder given.
copy_needed_libs() {
  local bin="$1" dest="$2"
  while read -r lib_name arrow lib_path _; do
    [[ "${arrow}" == "=>" && -f "${lib_path}" ]] || continue
    is_base_lib "${lib_path}" || install -m 0644 "$(readlink -f "${lib_path}")" "${dest}/${lib_name}"
  done < <(ldd "${bin}" 2>/dev/null)
}

manifest="${out}/bin/MANIFEST"
: >"${manifest}"
for t in "${targets[@]}"; do
  read -r label kind expect <<<"${t}"
  pkg="${label#//}"
  pkg="${pkg%%:*}"
  name="${label##*:}"
  src="${bin_dir}/${pkg}/${name}"
  [[ -x "${src}" ]] || { echo "gpu_bundle: ${src} is missing (build ${label} first)" >&2; exit 1; }
  [[ "${kind}" == lab || "${kind}" == verdict || "${kind}" == cost ]] && name="${pkg//\//_}_${name}"
  install -m 0755 "${src}" "${out}/bin/${name}"
  echo "${name} ${kind} ${expect:-}" >>"${manifest}"
  copy_needed_libs "${src}" "${out}/lib"
  # A lab binary referees its student's program, which it finds beside itself.
  if [[ -x "${src}_student" ]]; then
    install -m 0755 "${src}_student" "${out}/bin/${name}_student"
    copy_needed_libs "${src}_student" "${out}/lib"
  fi
  if [[ "${kind}" == cost ]]; then
    [[ -x "${src}_one_process" ]] || { echo "gpu_bundle: ${src}_one_process is missing" >&2; exit 1; }
    install -m 0755 "${src}_one_process" "${out}/bin/${name}_one_process"
  fi
done

if ((${#grader_labs[@]})); then
  g="${out}/grader"
  rm -rf "${g}"
  mkdir -p "${g}/kits" "${g}/lib" "${g}/class" "${g}/expected"
  install -m 0755 "${bin_dir}/grading/grade" "${g}/grade"
  copy_needed_libs "${bin_dir}/grading/grade" "${g}/lib"
  install -m 0644 grading/rubric.json "${g}/rubric.json"
  for grader_lab in "${grader_labs[@]}"; do
    for backend in gpu sim; do
      kit="${bin_dir}/grading/kits/${grader_lab}_${backend}"
      [[ -f "${kit}/manifest.json" ]] || { echo "gpu_bundle: ${kit} is missing" >&2; exit 1; }
      if grep -q '"sanitized":true' "${kit}/manifest.json"; then
        echo "gpu_bundle: ${kit} was built with sanitizers (--config=asan); build it without" >&2
        exit 1
      fi
      cp -RL "${kit}" "${g}/kits/"
      chmod -R u+w "${g}/kits"
    done
    # The kits' objcheck (labs/objcheck) needs elfutils' libelf and libdw.
    copy_needed_libs "${g}/kits/${grader_lab}_gpu/bin/objcheck" "${g}/lib"
    # The libraries the kits link with by name (-lcjson): the file and the name the linker
    # looks for, which a machine with only the runtime package lacks.
    for flag in $(grep -o '"-l[A-Za-z0-9_+-]*"' "${g}/kits/${grader_lab}_gpu/manifest.json" | tr -d '"' | sort -u); do
      name="lib${flag#-l}.so"
      path="$(ldconfig -p | awk -v n="${name}." '$1 ~ "^"n && !found {print $NF; found = 1}')"
      [[ -n "${path}" ]] || continue
      is_base_lib "${path}" && continue
      install -m 0644 "$(readlink -f "${path}")" "${g}/lib/$(basename "${path}")"
      install -m 0644 "$(readlink -f "${path}")" "${g}/lib/${name}"
    done
    # The class: the skeleton, the reference and each variant, one student each.
    # (A student's folder keeps the repository's path of the file, as students hand it in.)
    student_file() { mkdir -p "${g}/class/$1/labs/${grader_lab}" && echo "${g}/class/$1/labs/${grader_lab}/lab.c"; }
    install -m 0644 "labs/${grader_lab}/lab.c" "$(student_file skeleton)"
    install -m 0644 "solutions/${grader_lab}.c" "$(student_file reference)"
    variants="labs/${grader_lab}/testdata/variants.c"
    if [[ -f "${variants}" ]]; then
      for v in $(grep -o 'LAB_VARIANT_[A-Z0-9][A-Z0-9_]*' "${variants}" | sort -u); do
        f="$(student_file "$(tr 'A-Z' 'a-z' <<<"${v#LAB_VARIANT_}")")"
        { echo "#define ${v}"; cat "${variants}"; } >"${f}"
      done
    fi
    # The grader's corpus for this lab, with what each case expects (compared where the
    # results come back: grading/corpus_compare.py).
    for case_dir in grading/testdata/*/ grading/testdata/refereed/*/; do
      name="$(basename "${case_dir}")"
      [[ -f "${case_dir}labs/${grader_lab}/lab.c" && -f "${case_dir}expected.json" ]] || continue
      install -m 0644 "${case_dir}labs/${grader_lab}/lab.c" "$(student_file "corpus_${name}")"
      install -m 0644 "${case_dir}expected.json" "${g}/expected/corpus_${name}.json"
    done
    # A class of one's own (--class).
    if [[ -n "${class_dir}" ]]; then
      for f in "${class_dir}"/*/labs/"${grader_lab}"/lab.c; do
        [[ -f "${f}" ]] || continue
        student="${f#"${class_dir}"/}"
        install -m 0644 "${f}" "$(student_file "${student%%/*}")"
      done
    fi
  done
  grader_lab="$(IFS=,; echo "${grader_labs[*]}")"
  cat >"${out}/run_grader.sh" <<RUN
#!/usr/bin/env bash
# run_grader.sh: grades the bundle's class of ${grader_lab} with --backend gpu on this machine
# and prints the gradebook and each student's report. Extra arguments go to the grader.
set -u
here="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="\${here}/grader/lib:\${here}/lib\${LD_LIBRARY_PATH:+:\${LD_LIBRARY_PATH}}"
export LIBRARY_PATH="\${here}/grader/lib\${LIBRARY_PATH:+:\${LIBRARY_PATH}}"
# The grader builds and runs submissions with a clean environment, so the linker and the
# loader find cJSON (and the kits' objcheck libelf and libdw) only where the system keeps
# libraries: put the bundled ones there when they are missing (as root).
libdir="\$(dirname "\$(gcc -print-file-name=libc.so)")"
[[ "\${libdir}" == /* ]] || libdir=/usr/lib/x86_64-linux-gnu
for f in "\${here}"/grader/lib/libcjson.so* "\${here}"/grader/lib/libelf*.so* "\${here}"/grader/lib/libdw*.so*; do
  [[ -e "\${f}" ]] || continue
  [[ -e "\${libdir}/\${f##*/}" ]] && continue
  if cp "\${f}" "\${libdir}/" 2>/dev/null; then
    echo "run_grader: installed \${f##*/} into \${libdir} (the kits link with it)"
  else
    echo "run_grader: \${libdir} has no \${f##*/} and cannot be written: install libcjson-dev, libelf1 and libdw1" >&2
  fi
done
out="\${here}/grader/out"
rm -rf "\${out}"
"\${here}/grader/grade" --submissions "\${here}/grader/class" --out "\${out}" --kits "\${here}/grader/kits" \\
  --rubric "\${here}/grader/rubric.json" --labs ${grader_lab} --backend gpu --jobs 2 --seed 21 "\$@"
rc=\$?
echo "== grade exited \${rc}"
for f in "\${out}"/gradebook.csv "\${out}"/summary.txt; do [[ -f "\${f}" ]] && { echo "== \${f##*/}"; cat "\${f}"; }; done
for r in "\${out}"/*/report.txt; do [[ -f "\${r}" ]] && { echo "== \${r#\${out}/}"; head -40 "\${r}"; }; done
exit \${rc}
RUN
  chmod 0755 "${out}/run_grader.sh"
fi

if ((tui)); then
  install -m 0755 "${bin_dir}/tui/tui" "${out}/bin/tui"
  copy_needed_libs "${bin_dir}/tui/tui" "${out}/lib"
  mkdir -p "${out}/tui_runfiles/streamlab/labs"
  install -m 0644 labs/catalog.json "${out}/tui_runfiles/streamlab/labs/catalog.json"
  printf 'set -g default-terminal "screen"\n' >"${out}/tmux.conf"
  cat >"${out}/run_tui.sh" <<'RUN'
#!/usr/bin/env bash
# run_tui.sh BINARY LAB [ARG...]: the live timeline on bin/BINARY as lab LAB, in a detached
# tmux window of 120x40; after WAIT seconds (20) prints the screen and closes the window.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -ge 2 ]] || { echo "usage: run_tui.sh BINARY LAB [ARG...]" >&2; exit 64; }
bin="$1" lab="$2"
shift 2
# Only the timeline gets the bundled libraries: tmux needs the machine's own.
lib_path="${here}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
RUNFILES_DIR="${here}/tui_runfiles"
sock="streamlab-$$"
tmux -L "${sock}" -f "${here}/tmux.conf" new-session -d -s tui -x 120 -y 40   "env RUNFILES_DIR='${RUNFILES_DIR}' LD_LIBRARY_PATH='${lib_path}' '${here}/bin/tui' --no-color --program '${here}/bin/${bin}' ${lab} $*; sleep 3600"
sleep "${WAIT:-20}"
tmux -L "${sock}" capture-pane -p -t tui
tmux -L "${sock}" kill-server
RUN
  chmod 0755 "${out}/run_tui.sh"
fi

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
#   ONLY=verdict ./run_all.sh only the binaries of these kinds (test, check, measure, lab,
#                             verdict; a comma-separated list)
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

while read -r name kind expect; do
  if [[ -n "${ONLY:-}" && ",${ONLY}," != *",${kind},"* ]]; then
    continue
  fi
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
        # A process that never loads CUPTI: the baseline every strategy is compared with.
        rc="$(run "${name}" "-fresh-off" --modes off)"
        echo "== ${name} (fresh process, tracing off), exit ${rc}"
        cat "${logs}/${name}-fresh-off.log"
        fresh="$(awk -F'|' '$2 ~ /^ off $/ { gsub(/ /, "", $3); print $3 }' "${logs}/${name}-fresh-off.log")"
        off_arg=()
        [[ -n "${fresh}" ]] && off_arg=(--off-ms "${fresh}")
        # Every strategy in one process, interleaved round by round.
        rc="$(run "${name}" "-all" ${off_arg[@]+"${off_arg[@]}"})"
        echo "== ${name} (every strategy in one process), exit ${rc}"
        cat "${logs}/${name}-all.log"
        summary+=("${name} (all strategies): exit ${rc}")
        # Each CUPTI strategy alone in a fresh process, to show that switching strategies
        # within one process does not change the figures.
        for s in cupti-callback cupti-stream cupti-external-selected; do
          rc="$(run "${name}" "-${s}" --modes "off,recorder,${s}" ${off_arg[@]+"${off_arg[@]}"})"
          echo "== ${name} (${s} alone), exit ${rc}"
          grep -E '^\| (off|recorder|cupti)|^RESULT' "${logs}/${name}-${s}.log"
          summary+=("${name} (${s} alone): exit ${rc}")
        done
      else
        rc="$(run "${name}" "")"
        echo "== ${name}, exit ${rc}"
        cat "${logs}/${name}.log"
        summary+=("${name}: exit ${rc}")
      fi
      ;;
    cost)
      # What the referee costs: the lab binary (the student's code in a process of its own)
      # and its one-process build, seed by seed, interleaved; the graded figures of each.
      if ! "${here}/bin/${name}" --probe-device >"${logs}/${name}-probe.log" 2>&1; then
        echo "== ${name}: SKIP ($(head -c 200 "${logs}/${name}-probe.log"))"
        summary+=("${name}: SKIP (no device)")
        skipped=$((skipped + 1))
        continue
      fi
      cost_field() { grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2; }
      worst=0
      for seed in 21 22 23 24 25; do
        for build in one_process referee; do
          bin="${name}"
          [[ "${build}" == one_process ]] && bin="${name}_one_process"
          rc="$(run "${bin}" "-cost-${seed}" --json --runs 9 --seed "${seed}")"
          log="${logs}/${bin}-cost-${seed}.log"
          echo "== ${name} seed ${seed} ${build}: exit ${rc}, status $(grep -o '"status":"[^"]*' "${log}" | head -1 | cut -d'"' -f4)," \
            "speedup $(cost_field speedup "${log}"), bound_fraction $(cost_field bound_fraction "${log}")," \
            "yours_median_ms $(cost_field yours_median_ms "${log}"), baseline_median_ms $(cost_field baseline_median_ms "${log}")"
          ((rc > worst)) && worst=${rc}
        done
      done
      if ((worst >= 2)); then
        summary+=("${name}: FAIL (an exit status ${worst})")
        failed=$((failed + 1))
      else
        summary+=("${name}: measured (referee against one process)")
      fi
      ;;
    lab)
      # The lab's timed runs (its median, "yours_median_ms") under each GPU timing, seed by
      # seed, the timings interleaved; "none" records every op but times none of them.
      if ! "${here}/bin/${name}" --probe-device >"${logs}/${name}-probe.log" 2>&1; then
        echo "== ${name}: SKIP ($(head -c 200 "${logs}/${name}-probe.log"))"
        summary+=("${name}: SKIP (no device)")
        skipped=$((skipped + 1))
        continue
      fi
      # "default" is how a lab runs: the bound and the timed runs untraced, the timeline
      # from a traced run after them. "none" never times a device op; the "traced-" rows
      # time the traced runs themselves (STREAMLAB_TIMED_RUNS=traced), to show what
      # tracing would cost the graded figures.
      seeds=(11 12 13)
      timings=("none:STREAMLAB_GPU_TIMING=none" "default:"
        "traced-cupti-callback:STREAMLAB_TIMED_RUNS=traced STREAMLAB_CUPTI_MATCH=callback"
        "traced-cupti-stream:STREAMLAB_TIMED_RUNS=traced STREAMLAB_CUPTI_MATCH=stream"
        "traced-events:STREAMLAB_TIMED_RUNS=traced STREAMLAB_GPU_TIMING=events")
      declare -A lab_ms=() lab_speedup=() lab_fraction=()
      worst=0
      lab_field() { grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2; }
      med() { printf '%s\n' "$@" | grep -v '?' | sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }
      for seed in "${seeds[@]}"; do
        for t in "${timings[@]}"; do
          tname="${t%%:*}"
          # shellcheck disable=SC2086 # the timing's variables, one word each
          rc="$(run "${name}" "-${tname}-${seed}" ${t#*:} --json --runs 9 --seed "${seed}")"
          log="${logs}/${name}-${tname}-${seed}.log"
          ms="$(lab_field yours_median_ms "${log}")"
          sp="$(lab_field speedup "${log}")"
          fr="$(lab_field bound_fraction "${log}")"
          src="$(grep -o '"timing_source":"[^"]*' "${log}" | head -1 | cut -d'"' -f4 | cut -c1-80)"
          from="$(grep -o '"timeline_from":"[^"]*' "${log}" | head -1 | cut -d'"' -f4)"
          lab_ms["${tname}"]+="${ms:-?} "
          lab_speedup["${tname}"]+="${sp:-?} "
          lab_fraction["${tname}"]+="${fr:-?} "
          echo "== ${name} seed ${seed} timing ${tname}: exit ${rc}, yours_median_ms ${ms:-?}, speedup ${sp:-?}," \
            "bound_fraction ${fr:-?}, timeline from ${from:-?} (${src})"
          ((rc > worst)) && worst=${rc}
        done
      done
      echo "== ${name}: median over seeds of the timed runs' median, the speedup and the fraction of the bound"
      # shellcheck disable=SC2086
      none_ms="$(med ${lab_ms[none]})"
      for t in "${timings[@]}"; do
        tname="${t%%:*}"
        # shellcheck disable=SC2086
        awk -v n="${tname}" -v m="$(med ${lab_ms[${tname}]})" -v b="${none_ms}" \
          -v sp="$(med ${lab_speedup[${tname}]})" -v fr="$(med ${lab_fraction[${tname}]})" \
          -v all="${lab_ms[${tname}]}" 'BEGIN {
          if (b + 0 > 0 && m + 0 > 0) printf "   %-22s %8.3f ms  %+6.2f%% vs none  speedup %5.2fx  bound %5.1f%%  (per seed: %s)\n", n, m, 100 * (m - b) / b, sp, 100 * fr, all;
          else printf "   %-22s %s (per seed: %s)\n", n, m, all }'
      done
      # Exit 1 is a lab below its target (not a failure of the bundle); 2 and above are.
      if ((worst >= 2)); then
        summary+=("${name}: FAIL (an exit status ${worst})")
        failed=$((failed + 1))
      else
        summary+=("${name}: measured")
      fi
      ;;
    support) continue ;;
    calibrate)
      # The calibration of the simulator to this GPU (docs/calibration.md): the profile it
      # writes comes back in logs/, and the table of measured against simulated figures.
      rc="$(run "${name}" "" --out "${logs}/calibrated.json")"
      log="${logs}/${name}.log"
      case "${rc}" in
        0) status="PASS (every figure reproduced within 10%)"; passed=$((passed + 1)) ;;
        77) status="SKIP ($(tail -1 "${log}" | head -c 200))"; skipped=$((skipped + 1)) ;;
        *) status="FAIL (exit ${rc})"; failed=$((failed + 1)) ;;
      esac
      echo "== ${name}: ${status}"
      grep -E '^\|' "${log}" | sed 's/^/   /'
      grep -A20 'does not reproduce' "${log}" | sed 's/^/   /'
      summary+=("${name}: ${status}")
      ;;
    puzzles)
      # Every puzzle on this GPU: the answer its runs show must be the one the explanation
      # is written for (the runner notes it when they differ), as on the simulator.
      if ! "${here}/bin/${name}" --probe-device >"${logs}/${name}-probe.log" 2>&1; then
        echo "== ${name}: SKIP ($(head -c 200 "${logs}/${name}-probe.log"))"
        summary+=("${name}: SKIP (no device)")
        skipped=$((skipped + 1))
        continue
      fi
      bad=0
      for id in $("${here}/bin/${name}" | awk '/^  [0-9][0-9][0-9]_/ {print $1}'); do
        rc="$(run "${name}" "-${id}" --reveal --plain --width 120 "${id}")"
        log="${logs}/${name}-${id}.log"
        shows="$(grep -o '^The runs show [a-e])' "${log}" | head -1)"
        if [[ "${rc}" == 0 && -n "${shows}" ]] && ! grep -q '^Note: the explanation below' "${log}"; then
          echo "== ${name} ${id}: PASS (${shows#The runs show })"
        else
          echo "== ${name} ${id}: FAIL (exit ${rc}, ${shows:-no answer shown})"
          bad=$((bad + 1))
        fi
        grep -E '^[A-Z].*: device [0-9.]+ ms|^  [a-z].*ms' "${log}" | head -12 | sed 's/^/   /'
      done
      if ((bad)); then
        summary+=("${name}: FAIL (${bad} puzzles gave another answer)")
        failed=$((failed + 1))
      else
        summary+=("${name}: PASS")
        passed=$((passed + 1))
      fi
      ;;
    verdict)
      # The lab's verdict on this GPU, seed by seed: its exit status must be the one the
      # simulator gives (the manifest's third field), and the figures behind it are shown.
      if ! "${here}/bin/${name}" --probe-device >"${logs}/${name}-probe.log" 2>&1; then
        echo "== ${name}: SKIP ($(head -c 200 "${logs}/${name}-probe.log"))"
        summary+=("${name}: SKIP (no device)")
        skipped=$((skipped + 1))
        continue
      fi
      bad=0
      for seed in 21 22 23; do
        rc="$(run "${name}" "-verdict-${seed}" --json --runs 9 --seed "${seed}")"
        log="${logs}/${name}-verdict-${seed}.log"
        line="$(grep -E '^\{' "${log}" | tail -1)"
        field() { grep -o "\"$1\":[^,}]*" <<<"${line}" | head -1 | cut -d: -f2 | tr -d '"'; }
        printf '== %s seed %s: exit %s (want %s) %s, speedup %s, %s of the bound, baseline %s ms, yours %s ms, races %s, stream-0 stalls %s, next %s\n' \
          "${name}" "${seed}" "${rc}" "${expect}" "$(field status)" "$(field speedup)" "$(field bound_fraction)" \
          "$(field baseline_median_ms)" "$(field yours_median_ms)" "$(field races)" "$(field count)" "$(field next)"
        # The student's lines that its races and stream-0 stalls name (from the call sites
        # the interposer marks), as on the simulator.
        sites="$(grep -oE '[A-Za-z0-9_./]+\.c:[0-9]+' <<<"${line}" | sort -u | tr '\n' ' ')"
        [[ -z "${sites}" ]] || echo "   lines named: ${sites}"
        # A lab that crashed has no result line: show what the harness's report said.
        [[ -n "${line}" ]] || grep -m2 -E 'crashed with|^  at |source line' "${log}" | sed 's/^/   /'
        [[ "${rc}" == "${expect}" ]] || bad=$((bad + 1))
      done
      if ((bad)); then
        summary+=("${name}: FAIL (exit status other than ${expect} for ${bad} seed(s); logs/${name}-verdict-*.log)")
        failed=$((failed + 1))
      else
        summary+=("${name}: verdict ${expect} on every seed, as on the simulator")
        passed=$((passed + 1))
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
# A device command carries at most 64 MiB; a grader's libraries and two labs' GPU kits are
# more, and compress to about a fifth.
if (($(du -sm "${out}" | cut -f1) > 60)); then
  echo "gpu_bundle: over 60 MiB: carry a compressed copy (tar cJf ${out##*/}.txz -C ${out%/*} ${out##*/}) and unpack it there"
fi

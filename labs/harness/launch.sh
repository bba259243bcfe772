#!/usr/bin/env bash
# labs/harness/launch.sh: what `bazel run //labs:NN_topic` runs (the lab() macro installs it
# as NN_topic). It picks the real GPU build of the lab when this machine has a usable CUDA
# device and the simulator build otherwise, says which on stderr, and runs it with the
# arguments given.
#   NN_topic [lab options...]
# --backend=gpu or --backend=sim (as given by the user) forces the choice.
set -u

# A lab that needs two GPUs (lab 09) on a machine with fewer: the GPU build's --probe-device
# says so and fails, and the simulator build runs, with that reason.
# The lab's builds sit next to this launcher (bazel-bin/labs/NN_topic_sim), in bazel-bin and
# in any runfiles tree that holds the launcher, which is NN_topic or NN_topic_run.
lab_path="${0%_run}"
find_variant() {
  [[ -x "${lab_path}_$1" ]] && echo "${lab_path}_$1"
}

sim="$(find_variant sim)" || {
  echo "streamlab: the simulator build of $(basename "${lab_path}") is missing next to its launcher ($0)" >&2
  exit 64
}
gpu="$(find_variant gpu)" || gpu=""

# Under `bazel run`, messages name the command the student typed, not the binary's path
# in Bazel's cache.
if [[ -n "${BUILD_WORKSPACE_DIRECTORY:-}" && -z "${STREAMLAB_USAGE_NAME:-}" ]]; then
  pkg="$(basename "$(dirname "${lab_path}")")"
  export STREAMLAB_USAGE_NAME="bazel run //${pkg}:$(basename "${lab_path}") --"
fi

# --tui: show this lab in the live timeline instead (the timeline runs the lab itself,
# passing on the options it knows).
for arg in "$@"; do
  if [[ "${arg}" == --tui ]]; then
    for tui in "${RUNFILES_DIR:-${0}.runfiles}/streamlab/tui/tui" "${0}.runfiles/streamlab/tui/tui"; do
      if [[ -x "${tui}" ]]; then
        args=()
        for a in "$@"; do [[ "${a}" == --tui ]] || args+=("${a}"); done
        exec "${tui}" ${args[@]+"${args[@]}"} "$(basename "${lab_path}")"
      fi
    done
    echo "streamlab: --tui: the live timeline is not bundled with $(basename "$0"); run: bazel run //tui -- $(basename "${lab_path}")" >&2
    exit 64
  fi
done

choice=auto
previous=""
for arg in "$@"; do
  case "${previous}=${arg}" in
    --backend=gpu | *=--backend=gpu) choice=gpu ;;
    --backend=sim | *=--backend=sim) choice=sim ;;
    --backend=auto | *=--backend=auto) choice=auto ;;
  esac
  previous="${arg}"
done

if [[ "${choice}" != sim ]]; then
  if [[ -n "${gpu}" ]] && device="$("${gpu}" --probe-device 2>/dev/null)"; then
    echo "streamlab: running on the real GPU: ${device}" >&2
    exec "${gpu}" "$@"
  fi
  if [[ "${choice}" == gpu ]]; then
    if [[ -z "${gpu}" ]]; then
      echo "streamlab: --backend=gpu, but the GPU build was not made: it is made where a CUDA toolkit is installed and a GPU is seen when building, or with --config=gpu (run ./setup.sh to see what it finds)." >&2
    else
      echo "streamlab: --backend=gpu, but $("${gpu}" --probe-device 2>&1 >/dev/null | head -n 1)" >&2
    fi
    exit 64
  fi
  if [[ -n "${gpu}" ]]; then
    reason="no usable CUDA device on this machine"
    # A lab that needs two GPUs on a machine with fewer: the GPU build's own words.
    why="$("${gpu}" --probe-device 2>&1 >/dev/null | head -n 1)"
    [[ "${why}" == "this lab needs "* ]] && reason="${why}"
  elif ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    # A GPU now, but none (or no toolkit) when this was built.
    reason="built without the GPU variant: no CUDA toolkit, or no GPU seen, when it was built; bazel sync --configure, then build again"
  else
    reason="no usable CUDA device on this machine"
  fi
  echo "streamlab: running on the SIMULATED GPU (${reason})" >&2
fi
exec "${sim}" "$@"

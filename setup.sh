#!/usr/bin/env bash
# setup.sh: the only set-up streamlab needs. Safe to run again and again.
#
#  1. Installs what is missing from the distribution's packages (Debian/Ubuntu, apt-get):
#     Bazel (Debian's offline bazel-bootstrap, unless a Bazel is already installed), the
#     libraries the build links (ncurses, GoogleTest, cJSON, libarchive, libyaml, elfutils'
#     libelf and libdw), the tools the tests use (tmux, clang with libFuzzer), the
#     Gradescope packager's (patchelf) and jq (it reads the labs' manifests,
#     labs/NN_topic/lab.json). Nothing is downloaded from anywhere else.
#  2. Writes .bazelrc.machine (git-ignored) with this machine's settings.
#  3. Looks for the CUDA toolkit and a GPU, and prints a short summary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "${root}"

say() { printf 'setup: %s\n' "$*"; }
die() {
  printf '\nsetup: %s\n\n' "$*" >&2
  exit 1
}

# --- 1. packages --------------------------------------------------------------------
# Debian package -> what it provides, for the messages.
packages=(
  "libncurses-dev:ncurses (the live timeline)"
  "libgtest-dev:GoogleTest (the tests)"
  "libcjson-dev:cJSON (traces, event stream, reports)"
  "libarchive-dev:libarchive (the grader reads .zip/.tar.gz submissions)"
  "libyaml-dev:libyaml (the grader reads Gradescope's submission_metadata.yml)"
  "libelf-dev:libelf (the check of a student's object before it is linked, labs/objcheck)"
  "libdw-dev:libdw (the student's lines in that check's refusals)"
  "tmux:tmux (the end-to-end test of the live timeline)"
  "clang:clang (the event-stream fuzzer)"
  "libclang-rt-14-dev:libFuzzer and sanitizer runtimes for clang"
  "slurm-wlm:Slurm (the grader's test on a one-node cluster, grade --slurm)"
  "munge:MUNGE (Slurm's authentication, for that test)"
  "patchelf:patchelf (the Gradescope zip's programs load the libraries packed with them)"
  "jq:jq (kernels/gpu_bundle.sh reads the labs' manifests; the build names a bad one's line)"
)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

need=()
if command -v dpkg-query >/dev/null 2>&1; then
  for entry in "${packages[@]}"; do
    pkg="${entry%%:*}"
    have_pkg "${pkg}" || need+=("${pkg}")
  done
  # Bazel: leave any installed Bazel (upstream, bazelisk) alone. Debian's bazel-bootstrap
  # also needs its rules_java and platforms copies for offline use.
  if ! command -v bazel >/dev/null 2>&1; then
    need+=(bazel-bootstrap bazel-rules-java bazel-platforms)
  elif have_pkg bazel-bootstrap; then
    have_pkg bazel-rules-java || need+=(bazel-rules-java)
    have_pkg bazel-platforms || need+=(bazel-platforms)
  fi
fi

if ((${#need[@]})); then
  if ! command -v apt-get >/dev/null 2>&1; then
    die "missing packages: ${need[*]}. This script installs them with apt-get on Debian and
Ubuntu; on other systems install the equivalents (Bazel 4.2-7.x, ncurses, GoogleTest,
cJSON, libarchive, libyaml, elfutils' libelf and libdw, tmux, clang, Slurm and MUNGE) with your package manager and run ./setup.sh again."
  fi
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "missing packages: ${need[*]}, and this is not root and
there is no sudo. As root run: apt-get install -y ${need[*]}"
    sudo="sudo"
  fi
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  ${sudo} apt-get update -qq || die "apt-get update failed. Check the machine's package sources,
then run ./setup.sh again (or install by hand: apt-get install -y ${need[*]})."
  ${sudo} apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
    die "apt-get install ${need[*]} failed (see above). Fix the package sources or install
them by hand, then run ./setup.sh again."
fi

# Optional: Debian's similarity-tester (sim_c) for the grader's --similarity report. The
# grader works without it (and says so), so a failed install does not stop set-up.
sim_desc="sim_c at $(command -v sim_c 2>/dev/null || true) (grade --similarity)"
if ! command -v sim_c >/dev/null 2>&1; then
  sim_desc="not installed (optional: sudo apt-get install similarity-tester, for grade --similarity)"
  if command -v apt-get >/dev/null 2>&1 && { [[ "$(id -u)" == 0 ]] || command -v sudo >/dev/null 2>&1; }; then
    sudo=""
    [[ "$(id -u)" == 0 ]] || sudo="sudo"
    say "installing similarity-tester (optional: the grader's --similarity report)"
    export DEBIAN_FRONTEND=noninteractive
    if ${sudo} apt-get install -y -qq --no-install-recommends similarity-tester >/dev/null 2>&1 ||
      { ${sudo} apt-get update -qq >/dev/null 2>&1 &&
        ${sudo} apt-get install -y -qq --no-install-recommends similarity-tester >/dev/null 2>&1; }; then
      sim_desc="sim_c at $(command -v sim_c) (grade --similarity)"
    else
      say "could not install similarity-tester (optional): grade --similarity will say so and grade as usual"
    fi
  fi
fi

command -v bazel >/dev/null 2>&1 || die "no bazel on PATH after installing. On Debian the package
is bazel-bootstrap (sudo apt-get install bazel-bootstrap bazel-rules-java bazel-platforms);
elsewhere install bazelisk, which reads .bazelversion."

bazel_version="$(bazel --version 2>/dev/null | head -n 1 || true)"
case "${bazel_version}" in
  "bazel no_version") bazel_desc="Debian bazel-bootstrap 4.2.3 (offline)" ;;
  bazel\ [4567].*) bazel_desc="${bazel_version#bazel }" ;;
  bazel\ *)
    die "${bazel_version} is not supported: this workspace uses a WORKSPACE file, which needs
Bazel 4.2 to 7.x. Use bazelisk (it reads .bazelversion) or Debian's bazel-bootstrap."
    ;;
  *) die "'bazel --version' failed. Reinstall Bazel (Debian: apt-get install --reinstall bazel-bootstrap)." ;;
esac

# --- 2. CUDA toolkit, GPU, machine settings --------------------------------------------
cuda_root="${CUDA_PATH:-/usr/local/cuda}"
cuda_root="${cuda_root%/}"
cuda_desc="not found (looked in ${cuda_root}); only the simulated GPU is built"
cuda_ok=0
if [[ -x "${cuda_root}/bin/nvcc" ]]; then
  release="$("${cuda_root}/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
  read -r major minor <<<"${release:-0 0}"
  if ((major >= 12)); then
    cuda_desc="CUDA ${major}.${minor} at ${cuda_root}; GPU and simulated variants are built"
    cuda_ok=1
  else
    cuda_desc="CUDA ${major}.${minor} at ${cuda_root} is too old (need 12.0 or newer); only the
         simulated GPU is built. Install CUDA 12+ and set CUDA_PATH to use a GPU"
  fi
fi

# The build's own test (STREAMLAB_GPU=auto builds the GPU variants only where it says yes).
if gpu_seen="$(third_party/gpu_present.sh)"; then
  gpu_desc="${gpu_seen}"
else
  gpu_desc="none seen (${gpu_seen}); labs run on the simulated GPU"
  if ((cuda_ok)); then
    cuda_desc="CUDA ${major}.${minor} at ${cuda_root}; with no GPU here only the simulated
         variants are built (bazel build --config=gpu builds the GPU ones too)"
  fi
fi

{
  echo "# Written by ./setup.sh for this machine; safe to delete (setup.sh writes it again)."
  if ((cuda_ok)) && [[ "${cuda_root}" != "/usr/local/cuda" ]]; then
    echo "build --repo_env=CUDA_PATH=${cuda_root}"
  fi
} >.bazelrc.machine

say "done"
cat <<SUMMARY
  Bazel:        ${bazel_desc}
  CUDA toolkit: ${cuda_desc}
  GPU:          ${gpu_desc}
  Similarity:   ${sim_desc}
Next: bazel run //labs:00_default_stream    (the first lab; its first build takes a few minutes)
SUMMARY

#!/usr/bin/env bash
# grading/gradescope/package.sh: makes the Gradescope autograder zip from what Bazel built:
# the grader, the simulator kit of the lab, the rubric, setup.sh and run_autograder, all at
# the root of the zip as Gradescope wants them, and runtime/: the shared libraries the
# grader and the kit's programs were linked with (the C library and its loader included),
# which setup.sh installs in /usr/local/lib/streamlab. The programs are set (patchelf) to
# load only those, so they run on an image whose C library is older than the build
# machine's; the image itself only compiles and links each submission (docs/gradescope.md).
#   bazel run //grading:gradescope_package -- autograder.zip [LAB [GRADER OPTIONS...]]
# LAB (default 03_double_buffer) is the lab this Gradescope assignment grades; the grader
# options that follow go into run_autograder (--visibility after_due_date, --leaderboard,
# --output-format md, --runs 5, ...) and are checked here.
set -euo pipefail
out="${1:-autograder.zip}"
lab="${2:-03_double_buffer}"
shift $(($# < 2 ? $# : 2))
[[ "${out}" == /* ]] || out="${BUILD_WORKING_DIRECTORY:-${PWD}}/${out}"
runfiles="${RUNFILES_DIR:-$0.runfiles}"
src="${runfiles}/streamlab/grading"
# Where the zip's programs find their libraries once setup.sh has run.
lib_dir=/usr/local/lib/streamlab

die() {
  echo "package.sh: $*" >&2
  exit "${2:-1}"
}
# A lab's number or the start of its id names it, when it names one lab (03).
if [[ ! -d "${src}/kits/${lab}_sim" ]]; then
  matches=("${src}/kits/${lab}"*_sim)
  [[ ${#matches[@]} == 1 && -d "${matches[0]}" ]] && lab="$(basename "${matches[0]}" _sim)"
fi
if [[ ! -d "${src}/kits/${lab}_sim" ]]; then
  echo "package.sh: no simulator kit for lab '${lab}' (have: $(ls "${src}/kits" | tr '\n' ' '))" >&2
  exit 64
fi
# The options run_autograder passes itself.
for a in "$@"; do
  case "${a%%=*}" in
    --gradescope | --kits | --rubric | --labs | --submission-dir | --results | --submissions | --out)
      die "${a%%=*} is set by run_autograder itself: give only other grader options (--visibility, --leaderboard, --output-format, --runs, ...)" 64 ;;
  esac
done
# The grader checks them as it would on Gradescope (a bad one fails here, not there).
if (($#)) && ! "${src}/grade" --gradescope "$@" --help >/dev/null 2>"${TMPDIR:-/tmp}/package.$$.err"; then
  msg="$(cat "${TMPDIR:-/tmp}/package.$$.err")"
  rm -f "${TMPDIR:-/tmp}/package.$$.err"
  die "the grader options for run_autograder were refused: ${msg}" 64
fi
rm -f "${TMPDIR:-/tmp}/package.$$.err"
command -v patchelf >/dev/null 2>&1 || die "patchelf is not installed (apt-get install patchelf; ./setup.sh installs it)"
out_dir="$(dirname "${out}")"
if [[ ! -d "${out_dir}" ]]; then
  mkdir -p "${out_dir}" || die "cannot make the folder ${out_dir} for ${out}"
  echo "package.sh: made the folder ${out_dir}"
fi
[[ -w "${out_dir}" ]] || die "cannot write in ${out_dir}: choose another place for the zip"

stage="$(mktemp -d)"
trap 'rm -rf "${stage}"' EXIT
cp -L "${src}/grade" "${stage}/grade"
mkdir -p "${stage}/kits" "${stage}/runtime"
cp -RL "${src}/kits/${lab}_sim" "${stage}/kits/"
chmod -R u+w "${stage}/kits"
cp -L "${src}/rubric.json" "${stage}/rubric.json"
cp -L "${src}/gradescope/setup.sh" "${stage}/setup.sh"
# run_autograder: the lab, then the instructor's options, each quoted for the shell.
extra=""
for a in "$@"; do extra+=" $(printf '%q' "${a}")"; done
LAB="${lab}" EXTRA="${extra}" awk '{
    for (k = 1; k <= 2; k++) {
      key = k == 1 ? "@LABS@" : "@EXTRA@"; value = k == 1 ? ENVIRON["LAB"] : ENVIRON["EXTRA"]
      i = index($0, key)
      if (i) $0 = substr($0, 1, i - 1) value substr($0, i + length(key))
    }
    print
  }' "${src}/gradescope/run_autograder" >"${stage}/run_autograder"
chmod 755 "${stage}/grade" "${stage}/setup.sh" "${stage}/run_autograder"

# The programs that run on Gradescope's machine as they were built here, and every shared
# library each one loads (ldd: the loader's own answer, transitive).
programs=("${stage}/grade")
for p in "${stage}/kits/${lab}_sim/bin/"*; do
  [[ -f "${p}" ]] && head -c 4 "${p}" | grep -q 'ELF' && programs+=("${p}")
done
interp=""
for p in "${programs[@]}"; do
  chmod u+w "${p}"
  this="$(patchelf --print-interpreter "${p}")" || die "${p}: not a dynamically linked program"
  interp="${interp:-${this}}"
  [[ "${this}" == "${interp}" ]] || die "${p} uses the loader ${this}, another program ${interp}"
  while read -r lib; do
    [[ -n "${lib}" ]] || continue
    cp -L "${lib}" "${stage}/runtime/$(basename "${lib}")"
  done < <(ldd "${p}" | awk '/=> \//{print $3} /^\t\/[^ ]*ld-linux/{print $1}')
done
cp -L "${interp}" "${stage}/runtime/$(basename "${interp}")"
chmod 644 "${stage}/runtime/"*
chmod 755 "${stage}/runtime/$(basename "${interp}")"
# Each program loads its libraries from there, and its libraries theirs (RPATH, which
# applies to every library loaded, not RUNPATH, which applies to the program's own).
for p in "${programs[@]}"; do
  patchelf --set-interpreter "${lib_dir}/$(basename "${interp}")" --force-rpath --set-rpath "${lib_dir}" "${p}"
done
# The C library it was built with, for the record (docs/gradescope.md).
"${stage}/runtime/$(basename "${interp}")" --library-path "${stage}/runtime" "${stage}/runtime/libc.so.6" 2>/dev/null |
  head -n 1 >"${stage}/runtime/VERSION" || true

rm -f "${out}"
if command -v zip >/dev/null 2>&1; then
  (cd "${stage}" && zip -qr "${out}" .) || die "zip could not write ${out}"
else
  (cd "${stage}" && python3 -m zipfile -c "${out}" grade kits runtime rubric.json setup.sh run_autograder) ||
    die "could not write ${out}"
fi
echo "wrote ${out}: upload it as the assignment's autograder (docs/gradescope.md)"

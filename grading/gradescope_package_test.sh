#!/usr/bin/env bash
# grading/gradescope_package_test.sh: the Gradescope packager (//grading:gradescope_package)
# without Gradescope:
#   1. a zip into a folder that does not exist yet: the folder is made and said;
#   2. the zip holds grade, the lab's kit, rubric.json, setup.sh, run_autograder and
#      runtime/; every program in it loads its libraries only from /usr/local/lib/streamlab
#      (its loader and RPATH), and runtime/ holds every library each one needs;
#   3. setup.sh installs g++ (the kit links -lstdc++) and the runtime; run_autograder
#      carries the instructor's options, quoted;
#   4. the packed grader, run with the packed loader and libraries, grades a submission and
#      writes results.json with those options applied;
#   5. a bad option and an option run_autograder sets itself are refused, with no zip.
# The same zip in a Debian bullseye chroot: grading/gradescope_image_test.sh (.ci/run).
set -uo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rf="${TEST_SRCDIR:?run under bazel test}/streamlab"
pkg="${rf}/grading/gradescope_package"
base="$(mktemp -d /tmp/gradescope_package.XXXXXX)" || fail "mktemp"
chmod 0755 "${base}"
trap 'rm -rf "${base}"' EXIT

echo "== a zip into a folder that does not exist"
zip="${base}/not/yet/autograder.zip"
"${pkg}" "${zip}" 03 --visibility 'after_due_date,speed=hidden' --leaderboard --output-format md --runs 1 \
  >"${base}/pkg.txt" 2>&1 || { cat "${base}/pkg.txt"; fail "the packager failed"; }
grep -q "made the folder ${base}/not/yet" "${base}/pkg.txt" || { cat "${base}/pkg.txt"; fail "the new folder is not said"; }
[[ -s "${zip}" ]] || fail "no zip"

echo "== what the zip holds"
src="${base}/src"
mkdir -p "${src}"
(cd "${src}" && unzip -q "${zip}") || fail "unzip"
for f in grade rubric.json setup.sh run_autograder kits/03_double_buffer_sim/manifest.json \
  kits/03_double_buffer_sim/bin/referee kits/03_double_buffer_sim/bin/objcheck; do
  [[ -s "${src}/${f}" ]] || fail "the zip has no ${f}"
done
[[ -x "${src}/grade" && -x "${src}/setup.sh" && -x "${src}/run_autograder" ]] || fail "programs are not executable"
for p in "${src}/grade" "${src}/kits/03_double_buffer_sim/bin/referee" "${src}/kits/03_double_buffer_sim/bin/objcheck"; do
  interp="$(patchelf --print-interpreter "${p}")"
  [[ "${interp}" == /usr/local/lib/streamlab/ld-linux-x86-64.so.2 ]] || fail "${p}: loader ${interp}"
  [[ "$(patchelf --print-rpath "${p}")" == /usr/local/lib/streamlab ]] || fail "${p}: rpath $(patchelf --print-rpath "${p}")"
  readelf -d "${p}" | grep -q '(RPATH)' || fail "${p}: RUNPATH instead of RPATH (libraries' own would not be found)"
  while read -r lib; do
    [[ -s "${src}/runtime/${lib}" ]] || fail "${p} needs ${lib}, which runtime/ lacks"
  done < <(readelf -d "${p}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
# The libraries' own needs are there too (libarchive's compressors, ...).
for lib in "${src}"/runtime/*.so*; do
  while read -r need; do
    [[ -s "${src}/runtime/${need}" ]] || fail "$(basename "${lib}") needs ${need}, which runtime/ lacks"
  done < <(readelf -d "${lib}" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done

echo "== setup.sh and run_autograder"
grep -qE 'apt-get install .* g\+\+' "${src}/setup.sh" || fail "setup.sh does not install g++"
grep -q '/usr/local/lib/streamlab' "${src}/setup.sh" || fail "setup.sh does not install the runtime"
tail -n 1 "${src}/run_autograder" | grep -qF -- "--labs 03_double_buffer" ||
  grep -qF -- "--labs 03_double_buffer" "${src}/run_autograder" || fail "run_autograder does not grade lab 03"
grep -qF -- "--visibility after_due_date\\,speed=hidden --leaderboard --output-format md --runs 1" "${src}/run_autograder" ||
  { cat "${src}/run_autograder"; fail "run_autograder does not carry the options"; }
bash -n "${src}/run_autograder" || fail "run_autograder is not valid bash"

echo "== the packed grader, on its packed libraries, grades"
sub="${base}/submission"
mkdir -p "${sub}"
cp "${rf}/solutions/03_double_buffer.c" "${sub}/lab.c"
# run_autograder's own command line, with this test's folders for Gradescope's.
cmd="$(sed -n '/^exec /,$p' "${src}/run_autograder" | sed -e 's/^exec //' -e 's/\\$//' | tr '\n' ' ')"
cmd="${cmd//\/autograder\/submission/${sub}}"
cmd="${cmd//\/autograder\/results\/results.json/${base}/results.json}"
# /usr/local/lib/streamlab is the zip's runtime/ in a mount namespace of this test alone,
# as setup.sh installs it on Gradescope's machine.
chmod -R a+rX "${src}"
unshare --mount --propagation private bash -c '
  set -e
  mount -t tmpfs tmpfs /usr/local/lib
  mkdir /usr/local/lib/streamlab
  mount --bind "$1/runtime" /usr/local/lib/streamlab
  cd "$1" && eval "$2 --schedules 0 --scratch $3"' _ "${src}" "${cmd}" "${base}" \
  >"${base}/grade.txt" 2>&1 || { cat "${base}/grade.txt"; fail "the packed grader failed"; }
python3 - "${base}/results.json" <<'EOF' || fail "results.json does not have the packaged settings"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["output_format"] == "md" and r["test_output_format"] == "md", r.get("output_format")
assert r["visibility"] == "after_due_date", r["visibility"]
vis = {t["name"]: t["visibility"] for t in r["tests"]}
assert vis["03_double_buffer: speed"] == "hidden" and vis["03_double_buffer: correct"] == "after_due_date", vis
assert r["leaderboard"][0]["name"] == "03_double_buffer speedup" and r["leaderboard"][0]["value"] > 1, r["leaderboard"]
assert r["score"] == sum(t["max_score"] for t in r["tests"]), r["score"]
EOF

echo "== refusals"
r=0
"${pkg}" "${base}/bad.zip" 03 --visibility later >"${base}/bad.txt" 2>&1 || r=$?
[[ "${r}" == 64 ]] && grep -q "'later' is not a Gradescope visibility" "${base}/bad.txt" ||
  { cat "${base}/bad.txt"; fail "a bad --visibility should be refused with 64"; }
r=0
"${pkg}" "${base}/bad.zip" 03 --labs 02 >"${base}/bad2.txt" 2>&1 || r=$?
[[ "${r}" == 64 ]] && grep -q -- "--labs is set by run_autograder itself" "${base}/bad2.txt" ||
  { cat "${base}/bad2.txt"; fail "--labs should be refused"; }
[[ ! -e "${base}/bad.zip" ]] || fail "a refused packaging wrote a zip"
r=0
"${pkg}" "${base}/bad.zip" 99_nothing >"${base}/bad3.txt" 2>&1 || r=$?
[[ "${r}" == 64 ]] && grep -q "no simulator kit for lab '99_nothing'" "${base}/bad3.txt" ||
  { cat "${base}/bad3.txt"; fail "an unknown lab should be refused"; }
echo "PASS"

#!/usr/bin/env bash
# grading/gradescope_image_test.sh [ZIP]: the Gradescope autograder zip installed and run
# as Gradescope would, in a clean root filesystem of another distribution: Debian 11
# "bullseye", made with debootstrap (minbase) from Debian's archive. Its C library (2.31)
# is older than the build machine's and than Gradescope's Ubuntu 22.04 base image (2.35),
# so a zip that installs and grades there does not lean on the build machine's libraries.
#
#   1. the root filesystem is made once and kept in $STREAMLAB_IMAGE_CACHE
#      (/var/cache/streamlab-gradescope-image/bullseye); every run grades in a fresh copy;
#   2. the zip (ZIP, or one made with bazel run //grading:gradescope_package for lab 03
#      with --visibility after_due_date,speed=hidden --leaderboard --runs 1) is unpacked
#      into /autograder/source, and setup.sh runs there in a chroot, as root;
#   3. run_autograder grades the reference solution and a wrong answer; each results.json
#      is checked: scores, output formats, visibility, the leaderboard.
#
# It needs root (chroot, mounts) and Debian's archive; `.ci/run gradescope_image` runs it.
# Where either is missing, or debootstrap is and cannot be installed, it prints
# "STREAMLAB-TEST-SKIPPED: <why>" and exits 0. The archive is the first non-security
# Debian source in /etc/apt/sources.list*, or $STREAMLAB_DEBIAN_MIRROR. KEEP_WORK=1 keeps
# the chroot's copy and the logs (setup.log, reference.log, wrong.log) in /tmp.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
repo="${PWD}"

skip() {
  echo "STREAMLAB-TEST-SKIPPED: $*"
  exit 0
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
say() { echo "gradescope_image: $*"; }

[[ "$(id -u)" == 0 ]] || skip "needs root (debootstrap, chroot and mounts)"
for prog in chroot mount umount python3; do
  command -v "${prog}" >/dev/null 2>&1 || skip "${prog} is not installed"
done

# The Debian archive this machine uses.
mirror="${STREAMLAB_DEBIAN_MIRROR:-}"
if [[ -z "${mirror}" ]]; then
  mirror="$(
    {
      # deb822 .sources: the URIs of a stanza whose Suites are not security ones.
      for f in /etc/apt/sources.list.d/*.sources; do
        [[ -f "${f}" ]] && awk 'BEGIN{RS=""} !/Suites:[^\n]*security/ && /URIs:/ {
          match($0, /URIs:[ \t]*[^ \t\n]+/); u = substr($0, RSTART, RLENGTH); sub(/URIs:[ \t]*/, "", u); print u }' "${f}"
      done
      # one-line .list: deb URI SUITE ...
      for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f "${f}" ]] && awk '$1 == "deb" && $3 !~ /security/ { u = $2; if (u ~ /^\[/) u = $3; print u }' "${f}"
      done
    } | grep -E '^https?://[^ ]*/debian/?$' | head -n 1
  )"
fi
[[ -n "${mirror}" ]] || skip "no Debian archive in /etc/apt/sources.list* (set STREAMLAB_DEBIAN_MIRROR)"
mirror="${mirror%/}"
python3 - "${mirror}/dists/bullseye/Release" <<'EOF' >/dev/null 2>&1 || skip "Debian's archive ${mirror} cannot be reached from here"
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=20).read(64)
EOF

if ! command -v debootstrap >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || skip "debootstrap is not installed (apt-get install debootstrap)"
  say "installing debootstrap"
  { apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1; }; } ||
    skip "debootstrap is not installed and could not be (apt-get install debootstrap)"
fi
PATH="${PATH}:/usr/sbin:/sbin"

# 1. The root filesystem, once.
cache="${STREAMLAB_IMAGE_CACHE:-/var/cache/streamlab-gradescope-image}"
image="${cache}/bullseye"
if [[ ! -f "${image}/.streamlab-complete" ]]; then
  say "making the bullseye root filesystem in ${image} (once; a few minutes)"
  mkdir -p "${cache}" || fail "cannot make ${cache}"
  rm -rf "${image}.partial"
  keyring=()
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
  debootstrap --variant=minbase "${keyring[@]}" bullseye "${image}.partial" "${mirror}" >"${cache}/debootstrap.log" 2>&1 ||
    { tail -n 20 "${cache}/debootstrap.log" >&2; fail "debootstrap bullseye from ${mirror} failed (log: ${cache}/debootstrap.log)"; }
  rm -rf "${image}"
  { mv "${image}.partial" "${image}" && touch "${image}/.streamlab-complete"; } || fail "cannot keep ${image}"
fi

work="$(mktemp -d /tmp/gradescope_image.XXXXXX)" || fail "mktemp"
root="${work}/root"
mounted=()
cleanup() {
  local m
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null; done
  # Nothing may be left mounted under the copy before it is removed.
  for m in proc dev/pts dev sys; do mountpoint -q "${root}/${m}" 2>/dev/null && return; done
  [[ -n "${KEEP_WORK:-}" ]] && { echo "kept ${work}"; return; }
  rm -rf "${work}"
}
trap cleanup EXIT

# 2. The zip.
zip="${1:-}"
if [[ -z "${zip}" ]]; then
  zip="${work}/autograder.zip"
  say "packaging lab 03 (bazel run //grading:gradescope_package)"
  bazel run --noshow_progress //grading:gradescope_package -- "${zip}" 03_double_buffer \
    --visibility after_due_date,speed=hidden --leaderboard --runs 1 >"${work}/package.log" 2>&1 ||
    { cat "${work}/package.log"; fail "the packager failed"; }
fi
[[ -f "${zip}" ]] || fail "no zip at ${zip}"
zip="$(cd "$(dirname "${zip}")" && pwd)/$(basename "${zip}")"

say "a fresh copy of ${image}"
cp -a "${image}" "${root}" || fail "cannot copy ${image}"
cp /etc/resolv.conf "${root}/etc/resolv.conf" 2>/dev/null
# apt in the chroot uses the same archive as debootstrap did.
echo "deb ${mirror} bullseye main" >"${root}/etc/apt/sources.list"
# dpkg without an fsync per file, as in Docker's images (Gradescope's base image is one:
# its /etc/dpkg/dpkg.cfg.d/docker-apt-speedup): the install's time is dpkg's syncs, not
# what setup.sh asks of it.
echo force-unsafe-io >"${root}/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
mount -t proc proc "${root}/proc" || fail "cannot mount /proc in the chroot"
mounted+=("${root}/proc")
mount --bind /dev "${root}/dev" || fail "cannot bind /dev into the chroot"
mounted+=("${root}/dev")
if mount --bind /dev/pts "${root}/dev/pts"; then mounted+=("${root}/dev/pts"); fi
if mount --bind /sys "${root}/sys"; then mounted+=("${root}/sys"); fi
mkdir -p "${root}/autograder/source" "${root}/autograder/results" "${root}/autograder/submission"
(cd "${root}/autograder/source" && unzip -q "${zip}" 2>/dev/null || python3 -m zipfile -e "${zip}" .) ||
  fail "cannot unpack ${zip}"
in_chroot() {
  chroot "${root}" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 "$@"
}
say "C library in the image: $(in_chroot /usr/bin/ldd --version | head -n 1)"
say "setup.sh (as Gradescope runs it when it builds the image)"
in_chroot /bin/bash -c 'cd /autograder/source && bash ./setup.sh' >"${work}/setup.log" 2>&1 ||
  { tail -n 40 "${work}/setup.log"; fail "setup.sh failed in the bullseye chroot"; }
cp "${root}/autograder/source/run_autograder" "${root}/autograder/run_autograder"
chmod 755 "${root}/autograder/run_autograder"
say "the image's packages the submission's build uses: $(in_chroot dpkg-query -W -f='${Package} ${Version}, ' gcc g++ binutils libc6-dev libstdc++6 | sed 's/, $//')"

# 3. Two submissions, graded as Gradescope runs the autograder.
grade_one() {
  local name="$1" file="$2"
  rm -rf "${root}/autograder/submission" "${root}/autograder/results"
  mkdir -p "${root}/autograder/submission" "${root}/autograder/results"
  cp "${file}" "${root}/autograder/submission/lab.c"
  in_chroot /bin/bash -c 'cd /autograder && ./run_autograder' >"${work}/${name}.log" 2>&1 ||
    { tail -n 40 "${work}/${name}.log"; fail "run_autograder failed on the ${name} submission"; }
  [[ -s "${root}/autograder/results/results.json" ]] || { tail -n 40 "${work}/${name}.log"; fail "no results.json for ${name}"; }
  cp "${root}/autograder/results/results.json" "${work}/${name}.json"
}
grade_one reference "${repo}/solutions/03_double_buffer.c"
grade_one wrong "${repo}/grading/testdata/wrong_answer/labs/03_double_buffer/lab.c"

python3 - "${work}/reference.json" "${work}/wrong.json" <<'EOF' || fail "results.json is not what Gradescope should get (above)"
import json, sys
ref, wrong = (json.load(open(p)) for p in sys.argv[1:3])
problems = []
def check(cond, what):
    if not cond:
        problems.append(what)
for name, r in (("reference", ref), ("wrong", wrong)):
    check(r.get("output_format") == "text" and r.get("test_output_format") == "text",
          f"{name}: output formats {r.get('output_format')}/{r.get('test_output_format')}, not text")
    check(r.get("visibility") == "after_due_date", f"{name}: visibility {r.get('visibility')}")
    tests = {t["name"]: t for t in r.get("tests", [])}
    check(set(tests) == {"03_double_buffer: correct", "03_double_buffer: race-free", "03_double_buffer: speed"},
          f"{name}: tests {sorted(tests)}")
    speed = tests.get("03_double_buffer: speed", {})
    check(speed.get("visibility") == "hidden", f"{name}: the speed test is {speed.get('visibility')}, not hidden")
    board = r.get("leaderboard") or [{}]
    check(board[0].get("name") == "03_double_buffer speedup" and board[0].get("order") == "desc",
          f"{name}: leaderboard {board}")
total = sum(t["max_score"] for t in ref["tests"])
check(ref["score"] == total, f"reference: {ref['score']} of {total}, not full marks")
check(all(t["status"] == "passed" for t in ref["tests"]), "reference: a test did not pass")
check(ref["leaderboard"][0]["value"] > 1, f"reference: speedup {ref['leaderboard'][0]['value']} on the leaderboard")
wt = {t["name"]: t for t in wrong["tests"]}
check(wt["03_double_buffer: correct"]["status"] == "failed", "wrong: the correct test passed")
check(wrong["score"] < ref["score"], f"wrong: {wrong['score']}, not below the reference's {ref['score']}")
check(wrong["leaderboard"][0]["value"] == 0, "wrong: a wrong answer has a speedup on the leaderboard")
check("Graded on the SIMULATED GPU" in ref.get("output", ""), "reference: the output does not say how it was graded")
for p in problems:
    print("  " + p)
print(f"reference: {ref['score']} / {total}; wrong answer: {wrong['score']} / {total}")
sys.exit(1 if problems else 0)
EOF
say "PASS: the zip installs and grades in Debian bullseye (C library 2.31)"

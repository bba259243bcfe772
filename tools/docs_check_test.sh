#!/usr/bin/env bash
# tools/docs_check_test.sh: tools/docs_check.sh on a small tree of its own: it passes when
# the docs match, and fails on a path that is not there, a link that leads nowhere and a
# sample that drifted; --update writes the sample anew.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
check="${here}/docs_check.sh"
tree="${TEST_TMPDIR:-$(mktemp -d)}/tree"
bin="${TEST_TMPDIR:-$(mktemp -d)}/bin"
rm -rf "${tree}" "${bin}"
mkdir -p "${tree}/docs" "${tree}/labs/00_x" "${bin}/labs"
failures=0
expect() { # expect STATUS TEXT-IN-OUTPUT -- what is being checked
  local want="$1" text="$2" what="$3" out rc
  out="$(DOCS_ROOT="${tree}" DOCS_SAMPLES_BIN="${bin}" DOCS_CHECK_NO_BAZEL=1 "${check}" 2>&1)"
  rc=$?
  if [[ "${rc}" != "${want}" || "${out}" != *"${text}"* ]]; then
    echo "FAIL: ${what}: exit ${rc} (want ${want}), output:"
    echo "${out}" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok: ${what}"
  fi
}

printf '#!/bin/sh\necho "report for $*"\necho "second line at 0x7ffc0000beef"\n' >"${bin}/labs/00_x"
chmod +x "${bin}/labs/00_x"
printf 'lab\n' >"${tree}/labs/00_x/lab.c"
cat >"${tree}/README.md" <<'DOC'
# A kit
Edit `labs/00_x/lab.c`; the guide is [here](docs/guide.md).

<!-- sample: labs/00_x --seed 1 -->
```
report for --seed 1
second line at 0x...
```
DOC
printf '# Guide\nSee [the kit](../README.md#a-kit).\n' >"${tree}/docs/guide.md"

expect 0 "are as the kit is" "docs that match pass"

sed -i 's|labs/00_x/lab.c|labs/00_x/spec.c|' "${tree}/README.md"
expect 1 "names labs/00_x/spec.c, which is not in the repository" "a missing path fails"
sed -i 's|labs/00_x/spec.c|labs/00_x/lab.c|' "${tree}/README.md"

printf '# Guide\nSee [the kit](../READ.md).\n' >"${tree}/docs/guide.md"
expect 1 "links to ../READ.md, which does not exist" "a broken link fails"
printf '# Guide\nSee [the kit](../README.md#a-kit).\n' >"${tree}/docs/guide.md"

printf '#!/bin/sh\necho "report for $*, changed"\n' >"${bin}/labs/00_x"
expect 1 "is not what it prints now" "a drifted sample fails"
DOCS_ROOT="${tree}" DOCS_SAMPLES_BIN="${bin}" DOCS_CHECK_NO_BAZEL=1 "${check}" --update >/dev/null 2>&1
expect 0 "are as the kit is" "--update writes the sample anew"
grep -q "report for --seed 1, changed" "${tree}/README.md" || {
  echo "FAIL: --update did not write the new output"
  failures=$((failures + 1))
}

# Which labs exist: the catalog's last number.
printf '{"labs": [{"id": "00_x", "number": 0}, {"id": "01_y", "number": 1}]}\n' >"${tree}/labs/catalog.json"
printf '# Guide\nSee [the kit](../README.md#a-kit). Labs 00 to\n00 exist.\n' >"${tree}/docs/guide.md"
expect 1 "says the labs that exist end at 00, but labs/catalog.json's last is 01" "a stale count of labs fails"
printf '# Guide\nSee [the kit](../README.md#a-kit). Two labs exist, 00 to 01.\n' >"${tree}/docs/guide.md"
expect 0 "are as the kit is" "the right count of labs passes"

# The CUDA Programming Guide's root page: a problem on the pages checked section by section,
# a note elsewhere; a section passes.
cp "${tree}/README.md" "${tree}/README.md.orig"
printf '\n- CUDA Programming Guide: https://docs.nvidia.com/cuda/cuda-programming-guide/\n' >>"${tree}/README.md"
expect 1 "README.md: cites the CUDA Programming Guide's root page" "a root citation in README.md fails"
cp "${tree}/README.md.orig" "${tree}/README.md"
printf '# Guide\nhttps://docs.nvidia.com/cuda/archive/12.9.0/cuda-c-programming-guide/index.html\n' >"${tree}/docs/guide.md"
expect 0 "note: docs/guide.md cites the CUDA Programming Guide's root page" "elsewhere it is a note"
printf '# Guide\nhttps://docs.nvidia.com/cuda/archive/12.9.0/cuda-c-programming-guide/index.html#cuda-environment-variables and\nhttps://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/cuda-graphs.html\n' >"${tree}/docs/guide.md"
out="$(DOCS_ROOT="${tree}" DOCS_SAMPLES_BIN="${bin}" DOCS_CHECK_NO_BAZEL=1 "${check}" 2>&1)"
if [[ "${out}" == *"root page"* ]]; then
  echo "FAIL: a section's address was taken for the root page:"
  echo "${out}" | sed 's/^/    /'
  failures=$((failures + 1))
else
  echo "ok: sections pass"
fi

# README.md's table of labs: the catalog's labs, linked to their lessons with their concept.
printf '{"labs": [{"id": "00_x", "number": 0, "lesson": "labs/00_x/lab.c", "concept": "streams"}, {"id": "01_y", "number": 1, "lesson": "labs/00_x/lab.c", "concept": "events"}]}\n' >"${tree}/labs/catalog.json"
printf '# Guide\nSee [the kit](../README.md#a-kit).\n' >"${tree}/docs/guide.md"
cat >>"${tree}/README.md" <<'DOC'

<!-- labs: from labs/catalog.json -->
| lab | what it teaches |
| --- | --- |
| [00_x](labs/00_x/lab.c) | streams |
<!-- end labs -->
DOC
expect 1 "its table of labs is not labs/catalog.json's" "a table of labs missing a catalog lab fails"
DOCS_ROOT="${tree}" DOCS_SAMPLES_BIN="${bin}" DOCS_CHECK_NO_BAZEL=1 "${check}" --update >/dev/null 2>&1
expect 0 "are as the kit is" "--update writes the table of labs from the catalog"
grep -qF '| [01_y](labs/00_x/lab.c) | events |' "${tree}/README.md" && grep -qF '<!-- end labs -->' "${tree}/README.md" || {
  echo "FAIL: --update did not write lab 01_y's row between the markers"
  failures=$((failures + 1))
}
sed -i 's/| events |/| graphs |/' "${tree}/README.md"
expect 1 "its table of labs is not labs/catalog.json's" "a row that says other than the catalog fails"
# A concept with a backslash is written as it is.
sed -i 's/"concept": "events"/"concept": "events \\\\n not a newline"/' "${tree}/labs/catalog.json"
DOCS_ROOT="${tree}" DOCS_SAMPLES_BIN="${bin}" DOCS_CHECK_NO_BAZEL=1 "${check}" --update >/dev/null 2>&1
expect 0 "are as the kit is" "a concept with a backslash passes once written"
grep -qF '| events \n not a newline |' "${tree}/README.md" || {
  echo "FAIL: --update did not keep the backslash"
  failures=$((failures + 1))
}

((failures == 0)) && echo "all docs_check tests passed"
exit $((failures > 0))

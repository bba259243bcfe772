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

((failures == 0)) && echo "all docs_check tests passed"
exit $((failures > 0))

#!/usr/bin/env bash
# trace/check/race_corpus/expect_exit.sh PROGRAM STATUS: runs a race corpus program with the
# race checker on (STREAMLAB_RACECHECK=1) and passes when it exits with STATUS (66: the
# checker found a race; 0: it found none), printing what the checker said.
set -uo pipefail
program="$1"
want="$2"
STREAMLAB_RACECHECK=1 "${program}" 2>"${TEST_TMPDIR:-/tmp}/stderr.txt"
got=$?
cat "${TEST_TMPDIR:-/tmp}/stderr.txt"
if [[ "${got}" != "${want}" ]]; then
  echo "FAIL: $(basename "${program}") exited with ${got}; expected ${want}" >&2
  exit 1
fi
echo "PASS: $(basename "${program}") exited with ${got}"

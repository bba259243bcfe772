#!/usr/bin/env bash
# puzzles/play_test.sh: the puzzle runner as a player meets it. In a real terminal (tmux,
# on a private socket) puzzle 004 shows its code, asks, takes a wrong answer, then one
# letter, runs the variants on the simulator and draws their timelines one above the other
# in block characters, says what the runs showed and keeps the score; q stops a quiz with
# its score. Right answers are kept between runs (the list marks them). Piped, the runner
# reads the answer from stdin and writes plain ASCII. Bad options are refused with a
# message and status 64.
set -euo pipefail
trap 'echo "FAIL: line ${LINENO}: ${BASH_COMMAND}"' ERR

bin="${TEST_SRCDIR}/streamlab/puzzles/puzzles_sim"
[[ -x "${bin}" ]] || { echo "FAIL: ${bin} is missing"; exit 1; }
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (./setup.sh installs it)"; exit 1; }

export XDG_STATE_HOME="${TEST_TMPDIR}/state"

# --- piped: the answer from stdin, plain ASCII out -------------------------------------
out="$(echo c | "${bin}" 004)"
grep -qF "cudaMemcpyAsync(host_out, dev_out" <<<"${out}" || { echo "FAIL: the code is not shown"; echo "${out}"; exit 1; }
grep -qF "pin_memory=True" <<<"${out}" || { echo "FAIL: no PyTorch twin"; exit 1; }
grep -qF "You said c): right." <<<"${out}" || { echo "FAIL: piped answer not taken"; echo "${out}"; exit 1; }
grep -q '^s[0-9] "matmul"' <<<"${out}" || { echo "FAIL: no matmul lane"; echo "${out}"; exit 1; }
if LC_ALL=C grep -q '[^ -~]' <<<"${out}"; then echo "FAIL: piped output is not plain ASCII"; exit 1; fi
[[ "$(grep -c '^time (' <<<"${out}")" == 3 ]] || { echo "FAIL: not three timelines"; echo "${out}"; exit 1; }
# The multiplies alone (6 ms) beside 327 ms would fill 2 columns: drawn on their own scale, said
# so, in microseconds; the pinned run (12 ms) too; the pageable one on the shared scale.
[[ "$(grep -c '^(on its own time scale: on the others., 0 to [0-9.]* ms, it would fill [0-9]*% of the width)$' <<<"${out}")" == 2 ]] ||
  { echo "FAIL: the short variants are not drawn on their own scale"; echo "${out}"; exit 1; }
[[ "$(grep -c '^time (ms)' <<<"${out}")" == 2 ]] || { echo "FAIL: the scales are not 6 ms, 12 ms and 327 ms"; echo "${out}"; exit 1; }
# The right answer is kept: the list marks the puzzle solved.
listing="$("${bin}")"
grep -qE '^  004_blocking_copies .* solved$' <<<"${listing}" || { echo "FAIL: 004 not marked solved"; echo "${listing}"; exit 1; }
grep -qE '^You have solved 1 of [0-9]+\.$' <<<"${listing}" || { echo "FAIL: no count of solved puzzles"; echo "${listing}"; exit 1; }

# --- refusals ---------------------------------------------------------------------------
expect_usage() {
  local want="$1"
  shift
  set +e
  msg="$("${bin}" "$@" 2>&1 </dev/null)"
  rc=$?
  set -e
  [[ ${rc} == 64 ]] || { echo "FAIL: '$*' exited ${rc}, not 64"; echo "${msg}"; exit 1; }
  grep -qF -- "${want}" <<<"${msg}" || { echo "FAIL: '$*' did not say '${want}'"; echo "${msg}"; exit 1; }
}
expect_usage "no puzzle 999" 999
expect_usage "004_blocking_copies has answers a to d" 004 --answer z
expect_usage "--quiz=0" --quiz 0
expect_usage "--nosuch" --nosuch
expect_usage "the built-in ones are" 004 --profile nosuch --reveal

# --- in a terminal ----------------------------------------------------------------------
sockdir="${TEST_TMPDIR}"
if ((${#sockdir} > 60)); then sockdir="$(mktemp -d /tmp/puzzles-e2e.XXXXXX)"; fi
export TMUX_TMPDIR="${sockdir}"
unset TMUX
T() { tmux -L streamlab-puzzles -f /dev/null "$@"; }
cleanup() {
  T kill-server 2>/dev/null || true
  [[ "${sockdir}" != "${TEST_TMPDIR}" ]] && rm -rf "${sockdir}"
  return 0
}
trap cleanup EXIT
status_file="${TEST_TMPDIR}/status"
wrapper="${TEST_TMPDIR}/run.sh"
cat >"${wrapper}" <<WRAPPER
#!/usr/bin/env bash
"\$@"
echo \$? >"${status_file}.tmp" && mv "${status_file}.tmp" "${status_file}"
sleep 600
WRAPPER
chmod +x "${wrapper}"
screen() { T capture-pane -p -S - -t p; }
fail() {
  echo "FAIL: $1"
  echo "---- the screen ----"
  screen || true
  exit 1
}
wait_for() {
  local want="$1" deadline=$((SECONDS + 60))
  until screen | grep -qF -- "${want}"; do
    ((SECONDS < deadline)) || fail "no '${want}' on the screen after 60 s"
    sleep 0.2
  done
}
wait_status() {
  local deadline=$((SECONDS + 60))
  until [[ -s "${status_file}" ]]; do
    ((SECONDS < deadline)) || fail "the runner did not exit within 60 s"
    sleep 0.1
  done
  cat "${status_file}"
}
T new-session -d -s p -x 120 -y 50 "sleep 600"
T set-option -t p history-limit 5000 >/dev/null

T respawn-pane -k -t p "${wrapper} env LC_ALL=C.UTF-8 TERM=tmux-256color XDG_STATE_HOME=${XDG_STATE_HOME} ${bin} 004"
wait_for "Your answer (a-d, q to stop):"
T send-keys -t p "x" Enter
wait_for "Please answer with one letter, a to d."
T send-keys -t p "b" Enter
wait_for "You said b): not this time."
wait_for "The runs show c)"
screen | grep -q '█' || fail "the timelines are not drawn in block characters"
screen | grep -qF "B: copies from pageable memory: device" || fail "no variant heading"
[[ "$(wait_status)" == 0 ]] || fail "the runner did not exit 0"

rm -f "${status_file}"
T respawn-pane -k -t p "${wrapper} env LC_ALL=C.UTF-8 TERM=tmux-256color XDG_STATE_HOME=${XDG_STATE_HOME} ${bin} --quiz 3 --seed 7"
wait_for "Puzzle 1 of 3"
wait_for "q to stop):"
T send-keys -t p "a" Enter
wait_for "Score: "
wait_for "Puzzle 2 of 3"
T send-keys -t p "q" Enter
wait_for "Final score: "
screen | grep -qE "Final score: [01] of 1" || fail "the quiz's score is not of the one puzzle answered"
[[ "$(wait_status)" == 0 ]] || fail "the quiz did not exit 0"
# The wrong answer at the terminal counted as tried, the piped right one still stands.
"${bin}" | grep -qE '^  004_blocking_copies .* solved$' || { echo "FAIL: the record lost 004"; exit 1; }
echo "PASS"

#!/usr/bin/env bash
# tui/e2e_test.sh: the real TUI in a real terminal (tmux, on a private socket) running lab 03
# on the simulator: the lanes and the skeleton's verdict appear, s shows the reference's
# PASS, resizing redraws (and a too-small window asks for room), q quits with the
# terminal's normal screen back, your lab's verdict printed last and its exit status as the
# TUI's (1: below target), Ctrl-C stops the lab (130), a lab that crashes is reported while
# the TUI stays usable (and quitting then exits 2, the lab's status), and a lab.c saved after
# its build is said to be so, with how to rebuild, until it is not.
set -euo pipefail
trap 'echo "FAIL: line ${LINENO}: ${BASH_COMMAND}"' ERR

tui="${TEST_SRCDIR}/streamlab/tui/tui"
[[ -x "${tui}" ]] || { echo "FAIL: ${tui} is missing"; exit 1; }
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (./setup.sh installs it)"; exit 1; }

# tmux's socket path must be short (108 bytes), and TEST_TMPDIR may not be.
sockdir="${TEST_TMPDIR}"
if ((${#sockdir} > 60)); then sockdir="$(mktemp -d /tmp/tui-e2e.XXXXXX)"; fi
export TMUX_TMPDIR="${sockdir}"
unset TMUX
T() { tmux -L streamlab-e2e -f /dev/null "$@"; }
cleanup() {
  T kill-server 2>/dev/null || true
  [[ "${sockdir}" != "${TEST_TMPDIR}" ]] && rm -rf "${sockdir}"
  return 0
}
trap cleanup EXIT

state="${TEST_TMPDIR}/state"
# The TUI writes nothing on stderr; a sanitizer would. Kept in a file, shown on failure.
errors="${TEST_TMPDIR}/tui_stderr.txt"
: >"${errors}"
# tmux 3.3 sometimes loses a pane's exit status: a wrapper notes it in a file. (bash waits
# for the TUI before it acts on a Ctrl-C, so the TUI's own handling decides.)
status_file="${TEST_TMPDIR}/tui_status"
wrapper="${TEST_TMPDIR}/run_tui.sh"
cat >"${wrapper}" <<WRAPPER
#!/usr/bin/env bash
"\$@" 2>>"${errors}"
echo \$? >"${status_file}.tmp" && mv "${status_file}.tmp" "${status_file}"
WRAPPER
chmod +x "${wrapper}"
# The workspace `bazel run` would have been started from (BUILD_WORKSPACE_DIRECTORY), with the
# student's file of lab 03 in it.
ws="${TEST_TMPDIR}/workspace"
student_file="${ws}/labs/03_double_buffer/lab.c"
mkdir -p "$(dirname "${student_file}")"
echo "/* the student's lab 03 */" >"${student_file}"
touch -d '2000-01-01 00:00' "${student_file}" # older than any build
start_tui() {
  rm -f "${status_file}"
  T respawn-pane -k -t e2e "${wrapper} env LC_ALL=C.UTF-8 TERM=tmux-256color XDG_STATE_HOME=${state} BUILD_WORKSPACE_DIRECTORY=${ws} ${tui} $*"
}

screen() { T capture-pane -p -t "$1"; }
# With what scrolled off the top.
screen_all() { T capture-pane -p -S - -t "$1"; }
fail() {
  echo "FAIL: $1"
  echo "---- the screen ----"
  screen "$2" || true
  echo "---- the TUI's stderr ----"
  cat "${errors}"
  echo "---- processes ----"
  ps -eo pid,ppid,pgid,stat,etime,wchan:20,args | grep -F -e "${tui}" -e 03_double_buffer | grep -v grep || true
  exit 1
}
# Waits (up to 120 s: the lab takes a few seconds a run) until the screen shows $2.
wait_for() {
  local pane="$1" want="$2" deadline=$((SECONDS + 120))
  until screen "${pane}" | grep -qF -- "${want}"; do
    ((SECONDS < deadline)) || fail "no '${want}' on the screen after 120 s" "${pane}"
    sleep 0.2
  done
}
# Waits until the TUI has exited; sets $how to its exit status.
how=""
wait_dead() {
  local pane="$1" deadline=$((SECONDS + 60))
  until [[ -s "${status_file}" ]]; do
    ((SECONDS < deadline)) || fail "the TUI did not exit within 60 s" "${pane}"
    sleep 0.1
  done
  how="$(cat "${status_file}")"
}
expect_screen() {
  local pane="$1"
  shift
  local text
  text="$(screen "${pane}")"
  for want in "$@"; do
    grep -qF -- "${want}" <<<"${text}" || fail "'${want}' is not on the screen" "${pane}"
  done
}

# A session whose pane stays after its program exits, so that its last screen can be read.
T new-session -d -s e2e -x 100 -y 30 'sleep 600'
T set-option -g remain-on-exit on
start_tui --backend=sim --runs 2 --schedules 0 03_double_buffer

wait_for e2e "finished: BELOW TARGET"
expect_screen e2e "03_double_buffer" "simulated h200" "H2D engine" "compute" "D2H engine" "host" \
  's2 "buf A" p0' "BELOW TARGET" "time (us)" "? help" "q quit"

T send-keys -t e2e s
wait_for e2e "finished: PASS"
expect_screen e2e "reference" "PASS" 's2 "buf A" p0' 's3 "buf B" p0' 's4 "buf C" p0' "run 2/2 (reference)"

T resize-window -t e2e -x 80 -y 24
wait_for e2e "H2D engine"
[[ "$(screen e2e | wc -l)" == 24 ]] || fail "the screen is not 24 rows after the resize" e2e
T resize-window -t e2e -x 50 -y 12
wait_for e2e "Please make the window larger."
T resize-window -t e2e -x 100 -y 30
wait_for e2e "s4 \"buf C\" p0"

# Nothing says the build is old: lab.c is older than it.
if screen e2e | grep -qF "newer than its build"; then fail "a notice of an old build with lab.c older than it" e2e; fi

T send-keys -t e2e q
wait_dead e2e
# The exit status is your lab's (1: below target), not the reference's (0).
[[ "${how}" == 1 ]] || fail "the TUI exited with status ${how}, not your lab's 1 (below target)" e2e
# The normal screen is back, with the last verdicts printed on it: yours last.
after="$(screen_all e2e)"
for want in "streamlab: 03_double_buffer yours: finished: BELOW TARGET (exit 1)" \
  "streamlab: 03_double_buffer reference: finished: PASS (exit 0)"; do
  grep -qF -- "${want}" <<<"${after}" || fail "'${want}' was not printed after quitting" e2e
done
last="$(grep -F "streamlab: " <<<"${after}" | tail -n 1)"
[[ "${last}" == "streamlab: 03_double_buffer yours: finished: BELOW TARGET (exit 1)" ]] ||
  fail "the last line printed is '${last}', not your lab's verdict" e2e
if grep -qF "H2D engine" <<<"${after}"; then fail "the timeline is still on the screen after quitting" e2e; fi

# lab.c edited after the build the TUI runs: a notice says so and how to rebuild (as soon as
# it is saved, while the TUI is open), r would rerun the old build; once the build is newer
# again (here: lab.c made older), the notice goes. Quitting repeats it above the verdicts.
start_tui --backend=sim --runs 2 --schedules 0 03_double_buffer
wait_for e2e "finished: BELOW TARGET"
echo "/* the student's edit */" >>"${student_file}" # saved now: newer than the build
wait_for e2e "lab.c newer than its build: bazel build //labs:03_double_buffer, then r"
expect_screen e2e "finished: BELOW TARGET" "H2D engine"
T resize-window -t e2e -x 80 -y 24
wait_for e2e "H2D engine"
expect_screen e2e "lab.c newer than its build: bazel build //labs:03_double_buffer, then r" "finished: BELOW TARGET"
# Wide enough: the whole of it.
T resize-window -t e2e -x 160 -y 30
wait_for e2e "labs/03_double_buffer/lab.c is newer than the build r runs: rebuild with"
expect_screen e2e "\`bazel build //labs:03_double_buffer\` in another terminal, then press r"
T resize-window -t e2e -x 100 -y 30
wait_for e2e "lab.c newer than its build"
T send-keys -t e2e q
wait_dead e2e
grep -qF "streamlab: labs/03_double_buffer/lab.c is newer than the build r runs" <<<"$(screen_all e2e)" ||
  fail "quitting with an old build did not say so" e2e
start_tui --backend=sim --runs 2 --schedules 0 03_double_buffer
wait_for e2e "lab.c newer than its build"
touch -d '2000-01-01 00:00' "${student_file}"
wait_for e2e "finished: BELOW TARGET"
sleep 1.5
if screen e2e | grep -qF "newer than its build"; then fail "the notice stayed once the build was newer" e2e; fi
T send-keys -t e2e q
wait_dead e2e

# Ctrl-C while the lab runs (20 runs: it is still running): the lab is stopped and the
# terminal restored.
start_tui --backend=sim --runs 20 --schedules 0 03_double_buffer
wait_for e2e "H2D engine"
tui_pid="$(pgrep -f -x -- "${tui} --backend=sim --runs 20 --schedules 0 03_double_buffer")" ||
  fail "the TUI's process was not found" e2e
lab_pid="$(pgrep -P "${tui_pid}")" || fail "the lab is not running under the TUI" e2e
T send-keys -t e2e C-c
wait_dead e2e
[[ "${how}" == 130 ]] || fail "Ctrl-C: the TUI exited with status ${how}, not 130" e2e
if screen_all e2e | grep -qF "H2D engine"; then fail "the timeline is still on the screen after Ctrl-C" e2e; fi
if kill -0 "${lab_pid}" 2>/dev/null; then fail "the lab (pid ${lab_pid}) still runs after Ctrl-C" e2e; fi

# A lab that crashes: the status line says where, what was drawn stays, the TUI stays usable.
crash="${TEST_SRCDIR}/streamlab/labs/03_double_buffer_crash_sim"
start_tui --program "${crash}" --runs 2 --schedules 0 03_double_buffer
wait_for e2e "lab crashed: SIGSEGV in run() of your lab"
expect_screen e2e "H2D engine" 's2 "buf A" p0' "failed"
T send-keys -t e2e o
wait_for e2e "what your lab printed"
expect_screen e2e "crashed with SIGSEGV"
T send-keys -t e2e Escape r
wait_for e2e "running yours"
wait_for e2e "lab crashed: SIGSEGV in run() of your lab"
T send-keys -t e2e q
wait_dead e2e
[[ "${how}" == 2 ]] || fail "after a crashed lab, the TUI exited with status ${how}, not the lab's 2" e2e
grep -qF "streamlab: 03_double_buffer yours: lab crashed: SIGSEGV in run() of your lab" <<<"$(screen_all e2e)" ||
  fail "the crash was not printed after quitting" e2e

# The picker remembers the verdicts.
start_tui
wait_for e2e "last: BELOW TARGET"
T send-keys -t e2e q
wait_dead e2e
[[ ! -s "${errors}" ]] || fail "the TUI wrote on stderr" e2e
echo "PASS"

#!/usr/bin/env bash
# grading/grade_slurm_test.sh: grading a class through Slurm for real. It starts
# a single-node Slurm cluster on loopback (grading/slurm_local.sh: munged, slurmctld and
# slurmd under a temporary folder, stopped at the end), makes a class of 12 lab-03
# submissions (the reference, the skeleton and each kind of the grader's test corpus
# once), and checks that
#
#   1. the class graded locally and through Slurm (4 array tasks and the merge) from a
#      grader installed with `grade --install` gives a byte-identical gradebook, and a
#      report per student, with the install moved away and its rubric broken after the
#      plan was written (the jobs run the plan's own copy); the scripts name no Bazel
#      path, --backend auto is written resolved, and --task-mem, --array-throttle,
#      --sbatch-option and --prologue (which runs in each job) are in them;
#   2. a task that fails (its shard folder made unwritable) leaves the other tasks'
#      students graded, its own NOT GRADED rows naming it, INCOMPLETE.txt and the merge's
#      exit status saying so; `grade --slurm --only-failed --submit` then grades just that
#      task, and the gradebook is the local one again;
#   3. --submit without sbatch on PATH, and --only-failed where no plan is, are refused.
#
# The install and the plan's scripts are checked first, with no cluster. Where Slurm cannot
# then be started (not installed, slurmd refusing an unprivileged user), it prints
# "STREAMLAB-TEST-SKIPPED: <why>" and exits 0: .ci/run counts it as skipped.
set -uo pipefail

skip() {
  echo "STREAMLAB-TEST-SKIPPED: $*"
  exit 0
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

rf="${TEST_SRCDIR:?run under bazel test}/streamlab"
grade="${rf}/grading/grade"
cluster="${rf}/grading/slurm_local.sh"
PATH="${PATH}:/usr/sbin:/sbin"

# Short paths (munge's socket) under /tmp, which the sandbox user can reach.
base="$(mktemp -d /tmp/grade_slurm.XXXXXX)" || fail "mktemp"
chmod 0755 "${base}"
cleanup() {
  "${cluster}" stop "${base}/cluster" >/dev/null 2>&1
  rm -rf "${base}"
}
trap cleanup EXIT

# The class: 12 students, each a lab-03 file from the corpus (fast to run; no hangs), three
# to a task of the array of 4: every task grades more than one student, and no file twice
# (a second copy of a file shows nothing the first does not).
subs="${base}/subs"
i=0
add() {
  local file="$1" n
  i=$((i + 1))
  n="$(printf 's%02d' "${i}")"
  mkdir -p "${subs}/${n}/labs/03_double_buffer"
  cp "${file}" "${subs}/${n}/labs/03_double_buffer/lab.c"
}
add "${rf}/solutions/03_double_buffer.c"
add "${rf}/labs/03_double_buffer/lab.c"
for c in wrong_answer does_not_compile racy_but_lucky serialises segfault abort exit_early link_error fake_results \
  macro_error; do
  add "${rf}/grading/testdata/${c}/labs/03_double_buffer/lab.c"
done
((i == 12)) || fail "the class has ${i} students, not 12"

opts=(--labs 03 --runs 1 --schedules 0 --timeout 60 --memory-mb 1024 --seed 4242 --no-progress)

# Waits for the merge job to write its status (the array's tasks all ended before it).
wait_merge() {
  local out="$1"
  for _ in $(seq 600); do
    [[ -s "${out}/slurm/status/merge" ]] && return 0
    sleep 0.5
  done
  squeue >&2
  tail -n 20 "${out}"/slurm/logs/*.log >&2
  fail "the merge job of ${out} did not finish in 300 s"
}

# The plan needs no cluster: written (and checked) before one is started.
echo "== a plan from an installed grader"
"${grade}" --install "${base}/installed" >"${base}/install.txt" 2>&1 || { cat "${base}/install.txt"; fail "--install failed"; }
inst="${base}/installed/grade"
for f in grade rubric.json labs/catalog.json kits/03_double_buffer_sim/bin/referee INSTALLED.txt; do
  [[ -s "${base}/installed/${f}" ]] || fail "--install did not install ${f}"
done
[[ -x "${base}/installed/kits/03_double_buffer_sim/bin/referee" ]] || fail "the installed kit's referee is not executable"
# A prologue (module load ... on a real cluster) that leaves a mark for each job it ran in.
printf 'echo "prologue ran in ${SLURM_JOB_ID:-?}" >> %q\n' "${base}/prologue.txt" >"${base}/prologue.sh"
out="${base}/slurm_out"
"${inst}" --slurm --array-size 4 --array-throttle 2 --jobs 1 --partition debug --time 10 --task-mem 2G \
  --prologue "${base}/prologue.sh" --sbatch-option=--comment=streamlab-test --submissions "${subs}" \
  --out "${out}" "${opts[@]}" >"${base}/plan1.txt" 2>&1 || { cat "${base}/plan1.txt"; fail "--slurm failed"; }
grep -q -- "--backend auto is written as --backend sim" "${base}/plan1.txt" || { cat "${base}/plan1.txt"; fail "auto not resolved"; }
array="${out}/slurm/grade_array.sbatch"
for want in "'${out}/slurm/grader/grade' --shard" "'--backend' 'sim'" "'--rubric' '${out}/slurm/grader/rubric.json'" \
  "#SBATCH --mem=2G" "#SBATCH --comment=streamlab-test" "prologue ran in"; do
  grep -qF -- "${want}" "${array}" || { cat "${array}"; fail "grade_array.sbatch lacks: ${want}"; }
done
grep -q 'THROTTLE="%2"' "${out}/slurm/submit.sh" || fail "submit.sh has no array throttle"
# The plan's copy came from the installed grader's own kits and rubric (not from this
# test's runfiles, which RUNFILES_DIR names).
grep -qF "${base}/installed/kits (the kits)" "${out}/slurm/grader/INSTALLED.txt" &&
  grep -qF "${base}/installed/rubric.json (the rubric)" "${out}/slurm/grader/INSTALLED.txt" ||
  { cat "${out}/slurm/grader/INSTALLED.txt"; fail "the plan's copy is not of the installed grader"; }
if grep -qE 'bazel|runfiles|RUNFILES' "${array}" "${out}/slurm/merge.sbatch"; then fail "the scripts use Bazel's cache"; fi
# Refused before anything is written: #SBATCH lines in the prologue (sbatch would ignore
# them), and a plan from another plan's own copy (which that plan would replace).
printf 'module load cuda\n#SBATCH --account=cs101\n' >"${base}/bad_prologue.sh"
r=0
"${inst}" --slurm --prologue "${base}/bad_prologue.sh" --submissions "${subs}" --out "${base}/badplan" "${opts[@]}" \
  >"${base}/badplan.txt" 2>&1 || r=$?
[[ "${r}" == 1 ]] && grep -q "it holds #SBATCH lines" "${base}/badplan.txt" && [[ ! -e "${base}/badplan/slurm" ]] ||
  { cat "${base}/badplan.txt"; fail "a prologue with #SBATCH lines should be refused"; }
r=0
"${out}/slurm/grader/grade" --slurm --force --submissions "${subs}" --out "${out}" "${opts[@]}" >"${base}/self.txt" 2>&1 || r=$?
[[ "${r}" == 1 ]] && grep -q "which a new plan replaces" "${base}/self.txt" && [[ -x "${out}/slurm/grader/grade" ]] ||
  { cat "${base}/self.txt"; fail "a plan from the plan's own copy should be refused, the copy kept"; }

for prog in munged slurmctld slurmd sbatch squeue; do
  command -v "${prog}" >/dev/null 2>&1 || skip "${prog} is not installed (./setup.sh installs slurm-wlm and munge)"
done
started="$("${cluster}" start "${base}/cluster" 2>"${base}/cluster.err")" ||
  skip "a local Slurm cluster could not be started here: $(cat "${base}/cluster.err")"
export "${started?}"
echo "slurm: ${started}"

echo "== local"
"${grade}" --submissions "${subs}" --out "${base}/local" --jobs 2 "${opts[@]}" >"${base}/local.txt" 2>&1 ||
  { cat "${base}/local.txt"; fail "the local grading failed"; }

echo "== through Slurm, from the plan's own copy"
# Neither the install the plan was written from nor its rubric is needed any more: the
# jobs run the plan's own copy (as after bazel clean, or an edit of the rubric mid-run).
mv "${base}/installed" "${base}/installed.gone"
echo '{ "broken": ' >"${base}/installed.gone/rubric.json"
sh "${out}/slurm/submit.sh" >"${base}/submit.txt" 2>&1 || { cat "${base}/submit.txt"; fail "submit.sh failed"; }
cat "${base}/submit.txt"
grep -q "grading: Slurm job [0-9]* (array tasks 0-3); merge: job [0-9]*, after it" "${base}/submit.txt" ||
  fail "--submit did not print the job ids"
wait_merge "${out}"
for k in 0 1 2 3; do
  [[ "$(cut -d' ' -f1 "${out}/slurm/status/${k}")" == 0 ]] || fail "task ${k}: $(cat "${out}/slurm/status/${k}")"
done
[[ "$(cut -d' ' -f1 "${out}/slurm/status/merge")" == 0 ]] || { cat "${out}/slurm/logs/merge.log"; fail "the merge failed"; }
cmp "${base}/local/gradebook.csv" "${out}/gradebook.csv" ||
  { diff "${base}/local/gradebook.csv" "${out}/gradebook.csv"; fail "the Slurm gradebook differs from the local one"; }
for s in "${subs}"/*; do
  n="$(basename "${s}")"
  for f in report.txt results.json junit.xml; do
    [[ -s "${out}/${n}/${f}" ]] || fail "no ${n}/${f} after the merge"
  done
  # The same score and checks (the timeline and output of a crashed run, and scratch paths,
  # vary from run to run).
  checks='^score |^  \[(PASS|PART|FAIL)\]|^== '
  diff <(grep -E "${checks}" "${base}/local/${n}/report.txt") <(grep -E "${checks}" "${out}/${n}/report.txt") ||
    fail "${n}'s report.txt differs"
done
[[ ! -e "${out}/INCOMPLETE.txt" ]] || fail "INCOMPLETE.txt after a whole run"
[[ "$(grep -c "prologue ran in" "${base}/prologue.txt")" == 5 ]] ||
  { cat "${base}/prologue.txt"; fail "the prologue should have run in the 4 tasks and the merge"; }
echo "gradebook of ${i} students: identical to the local one"

echo "== a task that fails, then --only-failed"
out="${base}/failing"
"${grade}" --slurm --array-size 4 --jobs 1 --submissions "${subs}" --out "${out}" "${opts[@]}" >"${base}/plan.txt" 2>&1 ||
  { cat "${base}/plan.txt"; fail "--slurm (no --submit) failed"; }
grep -q "Submit them with:  sh '${out}/slurm/submit.sh'" "${base}/plan.txt" || { cat "${base}/plan.txt"; fail "no submit line"; }
[[ ! -e "${out}/slurm/status/0" ]] || fail "--slurm without --submit submitted something"
# Task 2's folder is a file: its grader cannot write there and exits 1.
rmdir "${out}/slurm/shards" 2>/dev/null
mkdir -p "${out}/slurm/shards"
echo "not a folder" >"${out}/slurm/shards/2"
sh "${out}/slurm/submit.sh" >"${base}/submit2.txt" 2>&1 || { cat "${base}/submit2.txt"; fail "submit.sh failed"; }
wait_merge "${out}"
[[ "$(cut -d' ' -f1 "${out}/slurm/status/2")" == 1 ]] || fail "task 2 should have failed: $(cat "${out}/slurm/status/2")"
[[ "$(cut -d' ' -f1 "${out}/slurm/status/merge")" == 1 ]] || fail "the merge of an incomplete class should exit 1"
# Task 2 had students 2, 6 and 10 in name order: s03, s07, s11.
for n in s03 s07 s11; do
  grep -q "^${n},,,,.*NOT GRADED: Slurm array task 2, which had this student, did not finish (exit status 1)" \
    "${out}/gradebook.csv" || fail "${n} should be NOT GRADED naming task 2"
done
grep -c "NOT GRADED" "${out}/gradebook.csv" | grep -qx 3 || fail "only task 2's three students should be NOT GRADED"
# Everyone else's rows are the local ones.
diff <(grep -vE '^s(03|07|11),' "${base}/local/gradebook.csv") \
  <(grep -vE '^s(03|07|11),' "${out}/gradebook.csv") || fail "the other students' rows differ"
grep -q "task 2 (exit status 1; its log: ${out}/slurm/logs/task_2.log): 3 of its 3 students not graded: s03, s07, s11" \
  "${out}/INCOMPLETE.txt" || { cat "${out}/INCOMPLETE.txt"; fail "INCOMPLETE.txt does not name task 2"; }
grep -q "NOT GRADED" "${out}/slurm/logs/merge.log" || fail "the merge's summary does not show the NOT GRADED rows"

rm -f "${out}/slurm/shards/2"
"${grade}" --slurm --only-failed --out "${out}" --submit >"${base}/again.txt" 2>&1 ||
  { cat "${base}/again.txt"; fail "--only-failed --submit failed"; }
cat "${base}/again.txt"
grep -q "task 2 of 4 did not finish" "${base}/again.txt" || fail "--only-failed did not name task 2"
grep -q "(array tasks 2)" "${base}/again.txt" || fail "--only-failed submitted more than task 2"
rm -f "${out}/slurm/status/merge"
wait_merge "${out}"
[[ "$(cut -d' ' -f1 "${out}/slurm/status/merge")" == 0 ]] || fail "the second merge failed"
cmp "${base}/local/gradebook.csv" "${out}/gradebook.csv" || fail "after --only-failed the gradebook is not the local one"
[[ ! -e "${out}/INCOMPLETE.txt" ]] || fail "INCOMPLETE.txt is left after --only-failed finished the class"
"${grade}" --slurm --only-failed --out "${out}" >"${base}/none.txt" 2>&1 || fail "--only-failed with nothing failed"
grep -q "every one of the 4 tasks of the array in ${out}/slurm finished: nothing to grade again" "${base}/none.txt" ||
  { cat "${base}/none.txt"; fail "--only-failed with nothing to do"; }

echo "== refusals"
r=0
PATH=/nonexistent "${grade}" --slurm --submit --submissions "${subs}" --out "${base}/nosbatch" "${opts[@]}" \
  >"${base}/nosbatch.txt" 2>&1 || r=$?
[[ "${r}" == 1 ]] && grep -q "sbatch is not on PATH" "${base}/nosbatch.txt" ||
  { cat "${base}/nosbatch.txt"; fail "--submit without sbatch should exit 1 saying so"; }
r=0
"${grade}" --slurm --only-failed --out "${base}/local" >"${base}/noplan.txt" 2>&1 || r=$?
[[ "${r}" == 1 ]] && grep -q "no Slurm plan there" "${base}/noplan.txt" || { cat "${base}/noplan.txt"; fail "no plan"; }
r=0
"${grade}" --shard 4/4 --submissions "${subs}" --out "${base}/x" >"${base}/shard.txt" 2>&1 || r=$?
[[ "${r}" == 64 ]] && grep -q -- "--shard must be K/N" "${base}/shard.txt" || { cat "${base}/shard.txt"; fail "--shard 4/4"; }
echo "PASS"

#!/usr/bin/env bash
# tools/docs_samples.sh: the sample outputs in the docs, made by the kit itself.
#
#   tools/docs_samples.sh --check  DOC...   exit 1 and show a diff where a sample drifted
#   tools/docs_samples.sh --update DOC...   write what the commands print now
#
# A sample is a fenced block right after a comment line that says how it is made:
#
#   <!-- sample: labs/03_double_buffer --seed 544461931 --width 100 -->
#   ```
#   ...what the command prints...
#   ```
#
# The command's first word is a program under bazel-bin (a lab launcher, a solution, the
# grader), run from the repository root with the rest of the words as its arguments,
# stdout and stderr together, in a UTF-8 locale, with a fresh hint state. `| lines 1-12,$`
# after the command keeps only those lines (ranges, `$` for the last line, `-2` for the
# last two), writing "..."
# where lines were left out. Memory addresses (which change from run to run) are written
# as 0x.... Each command runs once, however many samples show it, with a hint state of its
# own, and DOCS_SAMPLES_JOBS of them (default: the number of CPUs) at once: nearly all the
# check's time is these lab runs. tools/docs_check.sh runs the check; .ci/run runs that.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${DOCS_ROOT:-${root}}"

mode="${1:-}"
shift || true
[[ "${mode}" == --check || "${mode}" == --update ]] || {
  echo "usage: tools/docs_samples.sh --check|--update DOC..." >&2
  exit 64
}

# Where the programs are: DOCS_SAMPLES_BIN (the tests), else Bazel's output folder.
if [[ -n "${DOCS_SAMPLES_BIN:-}" ]]; then
  bin="${DOCS_SAMPLES_BIN}"
else
  bin="$(bazel info bazel-bin 2>/dev/null)" || bin="${root}/bazel-bin"
fi
state="$(mktemp -d)"
trap 'rm -rf "${state}"' EXIT

# select SPEC: keeps the lines of stdin that SPEC ("1-12,$") names, "..." between gaps.
select_lines() {
  awk -v spec="$1" '
    { line[NR] = $0 }
    END {
      n = split(spec, parts, ",")
      last = 0
      for (i = 1; i <= n; i++) {
        p = parts[i]
        gsub(/\$/, NR, p)
        if (p ~ /^-/) { a = NR + p + 1; b = NR }
        else if (split(p, ab, "-") == 2) { a = ab[1] + 0; b = ab[2] + 0 } else { a = p + 0; b = a }
        if (a > last + 1) print "..."
        for (k = a; k <= b && k <= NR; k++) print line[k]
        last = b
      }
    }'
}

# A sample spec's command ("CMD ARGS..."), without its "| lines SPEC".
spec_command() {
  local cmd="${1%%|*}"
  cmd="${cmd%"${cmd##*[![:space:]]}"}"
  printf '%s' "${cmd}"
}

# Runs one command (its index N in ${commands[@]}) into ${state}/N.out, with a fresh hint
# state of its own in ${state}/N.
run_command() {
  local n="$1" words program
  read -r -a words <<<"${commands[n]}"
  program="${bin}/${words[0]}"
  if [[ ! -x "${program}" ]]; then
    echo "(docs_samples: ${words[0]} is not built: bazel build //${words[0]%/*}:${words[0]##*/})" >"${state}/${n}.out"
    return
  fi
  mkdir -p "${state}/${n}"
  env -u BUILD_WORKSPACE_DIRECTORY -u STREAMLAB_USAGE_NAME LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    XDG_STATE_HOME="${state}/${n}" NO_COLOR=1 "${program}" "${words[@]:1}" 2>&1 |
    sed -E 's/0x[0-9a-f]{9,16}/0x.../g' >"${state}/${n}.out"
}

# The output of one sample's spec ("CMD ARGS... | lines SPEC"), from its command's run.
make_sample() {
  local spec="$1" cmd lines="" n
  cmd="$(spec_command "${spec}")"
  if [[ "${spec}" == *"|"* ]]; then
    lines="${spec#*|}"
    lines="${lines#"${lines%%[![:space:]]*}"}"
    lines="${lines#lines }"
    lines="${lines// /}"
  fi
  for n in "${!commands[@]}"; do [[ "${commands[n]}" == "${cmd}" ]] && break; done
  local out
  out="$(cat "${state}/${n}.out")"
  if [[ -n "${lines}" ]]; then
    printf '%s\n' "${out}" | select_lines "${lines}"
  else
    printf '%s\n' "${out}"
  fi
}

# Every sample's command, once, run before the documents are compared: DOCS_SAMPLES_JOBS
# at a time.
commands=()
declare -A seen=()
for doc in "$@"; do
  while IFS= read -r spec; do
    cmd="$(spec_command "${spec}")"
    [[ -n "${seen[${cmd}]+x}" ]] && continue
    seen[${cmd}]=1
    commands+=("${cmd}")
  done < <(sed -nE 's/^<!-- sample: (.*) -->$/\1/p' "${doc}")
done
parallel="${DOCS_SAMPLES_JOBS:-$(nproc 2>/dev/null || echo 2)}"
for n in "${!commands[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n; done
  run_command "${n}" &
done
wait

drifted=0
samples=0
for doc in "$@"; do
  mapfile -t text <"${doc}"
  out=()
  i=0
  changed=0
  while ((i < ${#text[@]})); do
    line="${text[i]}"
    out+=("${line}")
    if [[ "${line}" =~ ^\<\!--\ sample:\ (.*)\ --\>$ ]]; then
      spec="${BASH_REMATCH[1]}"
      samples=$((samples + 1))
      if ((i + 1 >= ${#text[@]})) || [[ "${text[i + 1]}" != '```'* ]]; then
        echo "docs_samples: ${doc}:$((i + 1)): a sample comment must be followed by a fenced block"
        drifted=$((drifted + 1))
        i=$((i + 1))
        continue
      fi
      out+=("${text[i + 1]}")
      j=$((i + 2))
      old=()
      while ((j < ${#text[@]})) && [[ "${text[j]}" != '```' ]]; do
        old+=("${text[j]}")
        j=$((j + 1))
      done
      mapfile -t new < <(make_sample "${spec}")
      if [[ "$(printf '%s\n' "${old[@]}")" != "$(printf '%s\n' "${new[@]}")" ]]; then
        changed=1
        if [[ "${mode}" == --check ]]; then
          drifted=$((drifted + 1))
          echo "docs_samples: ${doc}:$((i + 1)): the sample of '${spec}' is not what it prints now:"
          diff <(printf '%s\n' "${old[@]}") <(printf '%s\n' "${new[@]}") | head -40 | sed 's/^/    /'
        fi
      fi
      out+=("${new[@]}")
      i=${j}
      continue
    fi
    i=$((i + 1))
  done
  if [[ "${mode}" == --update ]] && ((changed)); then
    printf '%s\n' "${out[@]}" >"${doc}"
    echo "docs_samples: updated ${doc}"
  fi
done

if [[ "${mode}" == --check ]] && ((drifted)); then
  echo "docs_samples: ${drifted} of ${samples} sample(s) drifted; tools/docs_check.sh --update writes them anew"
  exit 1
fi
exit 0

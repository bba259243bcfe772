#!/usr/bin/env bash
# tools/docs_check.sh: the docs say only what the kit has. Run from anywhere in the
# repository, after a build (`bazel build //labs/... //solutions/... //grading:grade`):
#
#   tools/docs_check.sh            check; exit 0 when all is well, 1 with every problem listed
#   tools/docs_check.sh --update   regenerate the sample outputs in the docs and README.md's
#                                  table of labs (then check)
#
# It reads README.md, docs/*.md and labs/*/README.md and checks that:
#   1. every repository path they name (labs/..., docs/..., sim/..., a relative link)
#      exists;
#   2. every Bazel target they name (bazel run //labs:00_default_stream, //tui, ...)
#      exists (bazel query);
#   3. every sample output marked with a comment line
#          <!-- sample: labs/03_double_buffer --seed 544461931 --width 100 -->
#      before a fenced block is what that command prints today (tools/docs_samples.sh);
#   4. a sentence saying which labs exist ("Labs 00 to 09 exist", "Ten labs exist, 00 to
#      09") names the last lab of labs/catalog.json; and the pages whose sources were checked
#      against the CUDA Programming Guide (CITED_BY_SECTION below) cite its sections, not its
#      root page (the others' root citations are listed as notes, not counted);
#   5. README.md's table of labs, between the lines "<!-- labs: ..." and "<!-- end labs -->",
#      is labs/catalog.json's labs in order, each linked to its lesson with its "concept"
#      (a new lab's row comes from its catalog entry: --update writes it).
# Placeholders (NN_topic, alice/, OUT, ...) and paths outside the repository are not
# checked. .ci/run runs it.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${root}/tools"
# DOCS_ROOT: another tree to check (the tests); DOCS_CHECK_NO_BAZEL=1 skips the targets.
cd "${DOCS_ROOT:-${root}}"

update=0
case "${1:-}" in
  --update) update=1 ;;
  "") ;;
  -h | --help)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "docs_check: unknown option '$1' (try --help)" >&2
    exit 64
    ;;
esac

shopt -s nullglob
docs=(README.md docs/*.md labs/*/README.md)
shopt -u nullglob
problems=0
problem() {
  echo "docs_check: $*"
  problems=$((problems + 1))
}

# Folders and top-level files a path in the docs may start with.
tops='\.ci|shared|docs|grading|kernels|labs|puzzles|sim|solutions|third_party|tools|trace|tui'
top_files='setup\.sh|WORKSPACE|\.bazelrc|\.bazelversion|README\.md'

# ---- 1. paths ----------------------------------------------------------------------------
for doc in "${docs[@]}"; do
  dir="$(dirname "${doc}")"
  # Repository paths written as such (in code spans, links or prose); "x.{h,c}" names
  # both x.h and x.c.
  while IFS= read -r path; do
    path="${path%%[.,;:)]}"
    path="${path%%\`}"
    case "${path}" in
      *NN_topic* | *NN* | *NAME* | *'*'* | *'...'* | *'<'* | *XX*) continue ;;
    esac
    if [[ "${path}" =~ ^(.*)\.\{([a-z,]+)\}$ ]]; then
      stem="${BASH_REMATCH[1]}"
      IFS=, read -r -a exts <<<"${BASH_REMATCH[2]}"
      for ext in "${exts[@]}"; do
        [[ -e "${stem}.${ext}" ]] || problem "${doc}: names ${stem}.${ext}, which is not in the repository"
      done
      continue
    fi
    [[ -e "${path}" ]] || problem "${doc}: names ${path}, which is not in the repository"
  done < <(grep -v '^<!-- sample:' "${doc}" | grep -oE "(^|[^A-Za-z0-9_./-])((${tops})/[A-Za-z0-9_./+-]*[A-Za-z0-9_+-](\.\{[a-z,]+\})?|(${top_files}))" |
    sed -E 's/^[^A-Za-z0-9_.]//' | sort -u)
  # Relative links: [text](path) and [text](path#anchor), resolved from the document.
  while IFS= read -r link; do
    target="${link%%#*}"
    [[ -z "${target}" ]] && continue
    case "${target}" in
      http:* | https:* | mailto:*) continue ;;
    esac
    [[ -e "${dir}/${target}" ]] || problem "${doc}: links to ${target}, which does not exist (from ${dir})"
  done < <(grep -oE '\]\([^)[:space:]]+\)' "${doc}" | sed -E 's/^\]\((.*)\)$/\1/' | sort -u)
done

# ---- 2. Bazel targets --------------------------------------------------------------------
labels=()
while IFS= read -r label; do
  case "${label}" in
    *NN_topic* | *NN* | *'...'*) continue ;;
  esac
  labels+=("${label%/}")
done < <(cat "${docs[@]}" | grep -oE '(^|[^:A-Za-z0-9./])//[a-z_][a-z0-9_/]*(:[A-Za-z0-9_.+-]*[A-Za-z0-9_+]|:\.\.\.)?(\.\.\.)?' |
  sed -E 's|^[^/]||' | sort -u)
if ((${#labels[@]})) && [[ "${DOCS_CHECK_NO_BAZEL:-}" != 1 ]]; then
  if ! command -v bazel >/dev/null 2>&1; then
    problem "bazel is not on PATH, so the ${#labels[@]} targets the docs name were not checked"
  # --config=gpu: the GPU targets the docs name exist wherever a CUDA toolkit is, GPU or not.
  elif ! bazel query --noshow_progress --config=gpu "set(${labels[*]})" >/dev/null 2>&1; then
    for label in "${labels[@]}"; do
      bazel query --noshow_progress --config=gpu "${label}" >/dev/null 2>&1 || problem "the docs name ${label}, which is not a target"
    done
  fi
fi

# ---- 4. claims that drift ------------------------------------------------------------------
# Which labs exist: the catalog's highest number.
if [[ -f labs/catalog.json ]]; then
  last="$(grep -oE '"number": *[0-9]+' labs/catalog.json | grep -oE '[0-9]+$' | sort -n | tail -n 1)"
  if [[ -n "${last}" ]]; then
    last="$(printf '%02d' "$((10#${last}))")"
    for doc in "${docs[@]}"; do
      # Lines joined, so that a sentence broken across lines is still one.
      while IFS= read -r said; do
        [[ "${said}" == "${last}" ]] ||
          problem "${doc}: says the labs that exist end at ${said}, but labs/catalog.json's last is ${last}"
      done < <(tr '\n' ' ' <"${doc}" | grep -oiE '(labs[[:space:]]+00[[:space:]]+to[[:space:]]+[0-9]{2}[[:space:]]+exist|labs[[:space:]]+exist[^.]{0,40}00[[:space:]]+to[[:space:]]+[0-9]{2})' |
        grep -oE '[0-9]{2}[^0-9]*$' | grep -oE '^[0-9]{2}')
    done
  fi
fi
# The CUDA Programming Guide cited by its root page rather than a section. Enforced for the
# pages whose claims were checked against it section by section; the rest are listed.
CITED_BY_SECTION=(README.md docs/concepts.md docs/interview-questions.md docs/instructor-guide.md docs/tui.md
  labs/00_default_stream/README.md labs/01_pinned_memory/README.md labs/02_events/README.md
  labs/03_double_buffer/README.md labs/04_priorities/README.md labs/05_cross_stream_races/README.md
  labs/06_stream_pool/README.md labs/07_cuda_graphs/README.md labs/08_prefetch_loader/README.md
  labs/09_two_gpus/README.md)
root_re='https://docs\.nvidia\.com/cuda/(archive/[0-9.]+/)?cuda-(c-)?programming-guide/(index\.html)?([^#A-Za-z0-9_./-]|$)'
for doc in "${docs[@]}"; do
  [[ -f "${doc}" ]] || continue
  hits="$(grep -nE "${root_re}" "${doc}" | cut -d: -f1 | tr '\n' ' ')"
  [[ -z "${hits}" ]] && continue
  enforced=0
  for page in "${CITED_BY_SECTION[@]}"; do [[ "${doc}" == "${page}" ]] && enforced=1; done
  if ((enforced)); then
    problem "${doc}: cites the CUDA Programming Guide's root page (line ${hits% }): cite the section"
  else
    echo "docs_check: note: ${doc} cites the CUDA Programming Guide's root page (line ${hits% })"
  fi
done

# ---- 5. README.md's table of labs, from the catalog --------------------------------------
# The table the catalog gives: a header, then "| [id](lesson) | concept |" per lab.
catalog_table() {
  printf '| lab | what it teaches |\n| --- | --- |\n'
  jq -r '.labs | sort_by(.number) | .[] | "| [\(.id)](\(.lesson)) | \(.concept) |"' labs/catalog.json
}
if [[ -f labs/catalog.json && -f README.md ]] && grep -q '^<!-- labs: ' README.md; then
  if ! want="$(catalog_table)"; then
    problem "labs/catalog.json: jq could not read it (README.md's table of labs comes from it)"
  else
    have="$(sed -n '/^<!-- labs: /,/^<!-- end labs -->/p' README.md | sed '1d;$d')"
    if [[ "${have}" != "${want}" ]]; then
      if ((update)); then
        tmp="$(mktemp)"
        # The table through the environment: awk -v would read backslashes as escapes.
        table="${want}" awk '
          /^<!-- labs: / { print; print ENVIRON["table"]; skip = 1; next }
          /^<!-- end labs -->/ { skip = 0 }
          !skip { print }' README.md >"${tmp}" && cat "${tmp}" >README.md
        rm -f "${tmp}"
        echo "docs_check: README.md's table of labs rewritten from labs/catalog.json"
      else
        problem "README.md: its table of labs is not labs/catalog.json's (tools/docs_check.sh --update writes it)"
        diff <(echo "${have}") <(echo "${want}") | sed 's/^/    /' | head -n 20
      fi
    fi
  fi
fi

# ---- 3. sample outputs -------------------------------------------------------------------
if ((update)); then
  "${tools}/docs_samples.sh" --update "${docs[@]}" || problems=$((problems + 1))
else
  "${tools}/docs_samples.sh" --check "${docs[@]}" || problems=$((problems + 1))
fi

if ((problems)); then
  echo "docs_check: ${problems} problem(s); fix the docs, or run tools/docs_check.sh --update for samples"
  exit 1
fi
echo "docs_check: ${#docs[@]} documents, their paths, ${#labels[@]} targets and their samples are as the kit is"

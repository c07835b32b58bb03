#!/usr/bin/env bash
# The offline plan (`npm start`) of every stack of a pull request, compared with its base branch, as one
# Markdown document: the pull-request comment and the job summary.
#
#   offline-plan.sh BASE_DIR HEAD_DIR WORK_DIR > plan.md
#
# BASE_DIR and HEAD_DIR are checkouts with dependencies installed; the plans go to WORK_DIR/base and
# WORK_DIR/head. A base that cannot be planned (one from before `npm start` existed, or a broken one)
# only means there is nothing to compare with. Exits 1, after writing the whole document, if the head
# cannot be planned for some stack or its diff has a blocked change (`npm start` exit 3). A stack's plan
# warnings (where its CI runner cannot reach its Kubernetes API) are counted in its summary and lead its
# section.
set -euo pipefail

if [ "$#" -ne 3 ]; then
  echo "usage: $0 BASE_DIR HEAD_DIR WORK_DIR" >&2
  exit 2
fi
base_dir=$(cd "$1" && pwd)
head_dir=$(cd "$2" && pwd)
mkdir -p "$3"
work=$(cd "$3" && pwd)
# A comment holds at most 65,536 characters; long diffs are cut (the artifact has them whole).
max_diff_lines=${MAX_DIFF_LINES:-150}
status=0

# The current stack's warnings, if any, as a block of their own.
show_warnings() {
  if [ -n "$warnings" ]; then
    echo '```text'
    printf '%s\n' "$warnings"
    echo '```'
    echo
  fi
}

echo "<!-- eks-calico:offline-plan -->"
echo "## Offline plan"
echo
echo "\`npm start\` for each stack without a cloud account, compared with the base branch. Values like"
echo "\`<vpc-id:network-vpc>\` are placeholders for what only AWS knows; secrets show as \`[secret]\`."

for file in "$head_dir"/Pulumi.*.yaml; do
  stack=$(basename "$file" .yaml)
  stack=${stack#Pulumi.}
  diff_args=()
  if (cd "$base_dir" && npm start --silent -- --stack "$stack" --out "$work/base") >"$work/base-$stack.log" 2>&1; then
    diff_args=(--diff "$work/base/$stack/resources.json")
  fi

  echo
  planned=0
  (cd "$head_dir" && npm start --silent -- --stack "$stack" --out "$work/head" "${diff_args[@]}") >"$work/head-$stack.log" 2>&1 || planned=$?
  notes=""
  # Exit 3: planned, but the diff has a change `pulumi up` refuses (BLOCKED); the diff is shown.
  if [ "$planned" -eq 3 ]; then
    status=1
    notes="BLOCKED: pulumi up would stop; "
  elif [ "$planned" -ne 0 ]; then
    status=1
    echo "<details open><summary><b>$stack</b>: the plan failed</summary>"
    echo
    echo '```text'
    tail -n 60 "$work/head-$stack.log"
    echo '```'
    echo "</details>"
    continue
  fi

  # The plan's warnings (its `warning: ` lines on stderr): where the stack's CI cannot reach its API.
  warnings=$(grep '^warning: ' "$work/head-$stack.log" || true)
  if [ -n "$warnings" ]; then
    notes="${notes}$(printf '%s\n' "$warnings" | wc -l | tr -d ' ') warning(s); "
  fi

  if [ "${#diff_args[@]}" -gt 0 ]; then
    # The first line ends with the summary: "+ 0 to create, ~ 2 to update, +- 1 to replace, ...".
    counts=$(head -n 1 "$work/head/$stack/diff.txt" | sed -n 's/^Changes to .* against [^:]*: //p')
    echo "<details><summary><b>$stack</b>: ${notes}${counts%.}</summary>"
    echo
    show_warnings
    echo '```diff'
    head -n "$max_diff_lines" "$work/head/$stack/diff.txt"
    lines=$(wc -l <"$work/head/$stack/diff.txt")
    if [ "$lines" -gt "$max_diff_lines" ]; then
      echo "... $((lines - max_diff_lines)) more lines in the offline-plan artifact"
    fi
    echo '```'
  else
    echo "<details><summary><b>$stack</b>: ${notes}planned; the base branch has no plan to compare with</summary>"
    echo
    show_warnings
    echo '```text'
    head -n "$max_diff_lines" "$work/head-$stack.log"
    echo '```'
  fi
  echo
  echo '```mermaid'
  cat "$work/head/$stack/graph.mmd"
  echo '```'
  echo "</details>"
done
exit "$status"

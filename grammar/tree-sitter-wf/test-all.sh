#!/usr/bin/env bash
# Parses every .wf file under examples/ and tests/, and every ```wf block of
# docs/*.md, with this tree-sitter grammar, and fails on any ERROR or
# MISSING node.
# (docs/diagnostics.md is skipped: its examples show the errors explained.)
#
# Files meant to be invalid are skipped, and the skip list is derived, not
# kept by hand: a file is skipped when its own annotations expect a syntax
# error that stops parsing (`// error[WF0001]` … `error[WF0007]`: WF0008, a
# dangling doc comment, and WF0009, a duplicate attribute, parse fine), or
# when its first line says it holds `A syntax error` (fixtures without
# annotations, such as tests/fmt/broken.wf). ```wf-invalid blocks of the
# docs are not ```wf blocks, so they are not taken. Every skip is printed
# with its reason.
#
# Usage: grammar/tree-sitter-wf/test-all.sh   (tree-sitter on the PATH, or
# TREE_SITTER=/path/to/tree-sitter)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ts=${TREE_SITTER:-tree-sitter}
cd "$root"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An empty configuration: the grammar is given with -p, and the CLI should
# neither look for other grammars nor warn that none are configured.
mkdir -p "$tmp/none"
printf '{"parser-directories": ["%s"]}\n' "$tmp/none" >"$tmp/config.json"

: >"$tmp/paths"
checked=0
skipped=0
while IFS= read -r -d '' file; do
  codes=$(grep -oE 'error\[WF000[1-7]\]' "$file" | sed -E 's/error\[(WF[0-9]+)\]/\1/' | sort -u | paste -sd, - || true)
  if [[ $file == tests/lsp/* ]]; then
    echo "skip $file: an LSP fixture, whose cursor markers (\$0, \$1, …) are not .wf syntax"
    skipped=$((skipped + 1))
  elif [[ -n "$codes" ]]; then
    echo "skip $file: its annotations expect syntax errors ($codes)"
    skipped=$((skipped + 1))
  elif head -n 1 "$file" | grep -q 'A syntax error'; then
    echo "skip $file: its first line says it holds a syntax error"
    skipped=$((skipped + 1))
  else
    echo "$file" >>"$tmp/paths"
    checked=$((checked + 1))
  fi
done < <(find examples tests -name '*.wf' -print0 | sort -z)

# The ```wf blocks of the docs, one file each, named after where they are.
mkdir -p "$tmp/docs"
for doc in docs/*.md; do
  if [[ $doc == docs/diagnostics.md ]]; then
    # Generated from the code explanations, whose examples show each error.
    echo "skip $doc: its \`\`\`wf blocks show the errors the codes explain"
    continue
  fi
  awk -v out="$tmp/docs/$(basename "$doc" .md)" '
    /^```wf[ \t]*$/ { inside = 1; n++; file = sprintf("%s-line%d.wf", out, NR); next }
    /^```/ && inside { inside = 0; close(file); next }
    inside { print > file }
  ' "$doc"
done
while IFS= read -r -d '' block; do
  echo "$block" >>"$tmp/paths"
  checked=$((checked + 1))
done < <(find "$tmp/docs" -name '*.wf' -print0 | sort -z)

if [[ $checked -eq 0 ]]; then
  echo "error: no .wf files found under examples/ and tests/" >&2
  exit 1
fi

status=0
"$ts" parse --config-path "$tmp/config.json" -p "$here" -q --paths "$tmp/paths" >"$tmp/out" 2>"$tmp/err" || status=$?
if [[ $status -ne 0 ]]; then
  failed=$(grep -cE '\((ERROR|MISSING)' "$tmp/out" || true)
  echo "files with ERROR or MISSING nodes:"
  sed "s|$tmp/docs/|docs block |" "$tmp/out"
  cat "$tmp/err" >&2
  echo "grammar: $((checked - failed)) passed, $failed failed, $skipped skipped"
  exit 1
fi
echo "grammar: $checked passed, 0 failed, $skipped skipped"

#!/usr/bin/env bash
# Copies the tree-sitter queries of grammar/tree-sitter-wf/queries into
# editors/nvim/queries/wf (real files, no symlinks: plugin managers and
# Windows handle those badly). With --check, only reports whether the copies
# are up to date (exit 1 when not).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
src="$here/../../grammar/tree-sitter-wf/queries"
dst="$here/queries/wf"

if [ ! -d "$src" ]; then
  echo "sync-queries: no queries at $src" >&2
  exit 1
fi
stale=0
for file in "$src"/*.scm; do
  name="$(basename "$file")"
  if ! cmp -s "$file" "$dst/$name"; then
    stale=1
    if [ "${1:-}" = "--check" ]; then
      echo "sync-queries: $dst/$name differs from $file" >&2
    else
      mkdir -p "$dst"
      cp "$file" "$dst/$name"
      echo "updated queries/wf/$name"
    fi
  fi
done
for file in "$dst"/*.scm; do
  [ -e "$file" ] || continue
  if [ ! -e "$src/$(basename "$file")" ]; then
    stale=1
    if [ "${1:-}" = "--check" ]; then
      echo "sync-queries: $file has no counterpart in $src" >&2
    else
      rm "$file"
      echo "removed queries/wf/$(basename "$file")"
    fi
  fi
done
if [ "${1:-}" = "--check" ] && [ "$stale" -ne 0 ]; then
  echo "sync-queries: run editors/nvim/scripts/sync-queries.sh" >&2
  exit 1
fi

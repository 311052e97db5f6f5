#!/usr/bin/env bash
# The tree-sitter grammar in CI: installs the pinned tree-sitter CLI (from
# crates.io, into .tools/, once), regenerates the parser and fails if the
# committed one differs, runs the corpus and highlight tests, parses every
# .wf file of the repository (grammar/tree-sitter-wf/test-all.sh), and
# checks the Helix queries (in sync with the grammar's, captures Helix
# knows, and compiling against the grammar).
#
# Needs Rust (cargo), a C compiler and Node.js (what `tree-sitter generate`
# runs grammar.js with; without node, the CLI's built-in QuickJS is used).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

TREE_SITTER_VERSION=0.27.1
# Where the CLI is installed: .tools/ by default; WFC_TOOLS_DIR moves it (to
# a directory that outlives the checkout, say, so CI builds it only once).
tools="${WFC_TOOLS_DIR:-$repo/.tools}"
ts="$tools/bin/tree-sitter"
grammar="$repo/grammar/tree-sitter-wf"

say() { echo "== grammar: $*"; }
pinned() { [[ -x "$1" ]] && [[ "$("$1" --version 2>/dev/null)" == "tree-sitter $TREE_SITTER_VERSION"* ]]; }

if ! pinned "$ts"; then
  if pinned "$(command -v tree-sitter || true)"; then
    ts="$(command -v tree-sitter)"
  else
    say "installing tree-sitter-cli $TREE_SITTER_VERSION into $tools (several minutes, once)"
    "$repo/.ci/install-tree-sitter.sh" "$tools" "$TREE_SITTER_VERSION"
  fi
fi
export TREE_SITTER="$ts"

# The CLI's own configuration, kept out of $HOME: no other grammars.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/none"
printf '{"parser-directories": ["%s"]}\n' "$work/none" >"$work/config.json"

js_runtime=node
if ! command -v node >/dev/null 2>&1; then
  js_runtime=native
fi

say "tree-sitter generate (the committed parser must be up to date)"
(cd "$grammar" && "$ts" generate --js-runtime "$js_runtime")
if ! git diff --exit-code --stat -- "$grammar/src"; then
  echo "grammar: src/ differs from what grammar.js generates: run \`tree-sitter generate\` in grammar/tree-sitter-wf and commit the result" >&2
  exit 1
fi
untracked=$(git ls-files --others --exclude-standard -- "$grammar/src")
if [[ -n "$untracked" ]]; then
  echo "grammar: generated files are not committed:" >&2
  echo "$untracked" >&2
  exit 1
fi

say "tree-sitter test (corpus and highlight tests)"
(cd "$grammar" && "$ts" test --config-path "$work/config.json")

say "parse every .wf file"
"$grammar/test-all.sh"

say "Helix queries"
"$repo/editors/helix/sync-queries.sh" --check
for query in "$grammar"/queries/*.scm "$repo"/editors/helix/queries/wf/*.scm; do
  "$ts" query --config-path "$work/config.json" -p "$grammar" "$query" "$repo/examples/release.wf" >/dev/null \
    || { echo "grammar: $query does not compile against the grammar" >&2; exit 1; }
done
say "ok"

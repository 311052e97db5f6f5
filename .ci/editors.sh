#!/usr/bin/env bash
# Editor support in CI: the VS Code extension (type check, bundle, TextMate
# grammar tests, .vsix in target/editors/) and the Neovim headless
# diagnostics and tree-sitter tests against a wfc binary ($WFC_BIN, default
# target/debug/wfc, built when missing). Installs Neovim (Debian's package)
# when `nvim` is absent. Needs Node 20+ with npm and the npm registry, cargo
# and a C compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

say() { echo "== editors: $*"; }
die() { echo "editors: error: $*" >&2; exit 1; }

# --- tools -------------------------------------------------------------
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@" || die "'sudo $*' failed (it must not ask for a password in CI)"
  else
    die "need root or sudo to run: $*"
  fi
}

if ! command -v nvim >/dev/null 2>&1; then
  say "installing neovim (apt)"
  command -v apt-get >/dev/null 2>&1 || die "nvim is missing and apt-get is not available: install Neovim 0.7 or later"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
fi
command -v node >/dev/null 2>&1 || die "node is missing: install Node.js 20 or later"
command -v npm >/dev/null 2>&1 || die "npm is missing: install Node.js 20 or later (with npm)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "Node.js $(node --version) is too old: the extension's tools need 20 or later"

# The wfc binary: the unit tests probe it, the Neovim test runs it.
if [ -z "${WFC_BIN:-}" ]; then
  export WFC_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/wfc"
  if [ ! -x "$WFC_BIN" ]; then
    say "building wfc (cargo build -p wfc)"
    cargo build --quiet --locked -p wfc
  fi
fi
case "$WFC_BIN" in /*) ;; *) WFC_BIN="$repo/$WFC_BIN" ;; esac
[ -x "$WFC_BIN" ] || die "WFC_BIN=$WFC_BIN is not an executable file"
export WFC_BIN

# --- VS Code extension ---------------------------------------------------
vscode="$repo/editors/vscode"
say "npm ci (editors/vscode)"
(cd "$vscode" && npm ci --no-audit --no-fund)
say "npm run compile"
(cd "$vscode" && npm run compile)
say "npm test (TextMate grammar tests, unit tests)"
(cd "$vscode" && npm test)
say "packaging the .vsix into target/editors/"
mkdir -p "$repo/target/editors"
"$vscode/scripts/package.sh" "$repo/target/editors"

# --- Neovim -----------------------------------------------------------------
if [ -d "$repo/editors/nvim/queries/wf" ]; then
  say "nvim queries are copies of grammar/tree-sitter-wf/queries"
  "$repo/editors/nvim/scripts/sync-queries.sh" --check
fi
say "Neovim headless diagnostics test (WFC_BIN=$WFC_BIN)"
"$repo/editors/nvim/test/diagnostics.sh"

# Neovim before 0.11 needs the parser regenerated with ABI 14: use the
# tree-sitter CLI that .ci/grammar.sh pins (installing it the same way when
# this script runs alone).
if [ -z "${TREE_SITTER:-}" ]; then
  export TREE_SITTER="$repo/.tools/bin/tree-sitter"
  ts_version="$(sed -n 's/^TREE_SITTER_VERSION=//p' "$repo/.ci/grammar.sh")"
  if [ ! -x "$TREE_SITTER" ] || [[ "$("$TREE_SITTER" --version 2>/dev/null)" != "tree-sitter $ts_version"* ]]; then
    say "installing tree-sitter-cli $ts_version into .tools/ (a few minutes, once)"
    "$repo/.ci/install-tree-sitter.sh" "$repo/.tools" "$ts_version"
  fi
fi
say "Neovim headless tree-sitter test (parser and queries/wf)"
"$repo/editors/nvim/test/treesitter.sh"
say "all passed"

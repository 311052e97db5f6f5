#!/usr/bin/env bash
# Headless Neovim test of the tree-sitter support: builds
# grammar/tree-sitter-wf into parser/wf.so, then checks in Neovim that the
# parser loads, that editors/nvim/queries/wf/*.scm load, and that every
# example parses without ERROR nodes and gets highlighted.
#
# Neovim before 0.11 reads parsers of ABI 14 at most; when the committed
# parser is newer, it is regenerated with `tree-sitter generate --abi 14`
# in a temporary copy (needs the tree-sitter CLI on PATH, or
# $TREE_SITTER). Needs a C compiler ($CC, default cc).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
grammar="$repo/grammar/tree-sitter-wf"

command -v nvim >/dev/null 2>&1 || { echo "FAIL: nvim is not installed" >&2; exit 1; }
[ -f "$grammar/src/parser.c" ] || { echo "FAIL: $grammar/src/parser.c is missing (tree-sitter generate)" >&2; exit 1; }
cc="${CC:-cc}"
command -v "$cc" >/dev/null 2>&1 || { echo "FAIL: no C compiler ($cc)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$grammar/." "$work/grammar"

abi="$(sed -n 's/^#define LANGUAGE_VERSION \([0-9]*\)$/\1/p' "$work/grammar/src/parser.c")"
nvim_minor="$(nvim --version | sed -n '1s/^NVIM v0\.\([0-9]*\).*/\1/p')"
if [ "${abi:-0}" -gt 14 ] && [ -n "$nvim_minor" ] && [ "$nvim_minor" -lt 11 ]; then
  ts="${TREE_SITTER:-tree-sitter}"
  if ! command -v "$ts" >/dev/null 2>&1; then
    echo "FAIL: the parser has ABI $abi, this Neovim reads 14 at most, and the tree-sitter CLI is not" \
      "installed to regenerate it (cargo install tree-sitter-cli --locked, or set TREE_SITTER)" >&2
    exit 1
  fi
  echo "regenerating the parser with ABI 14 for Neovim 0.$nvim_minor"
  (cd "$work/grammar" && "$ts" generate --abi 14 >/dev/null)
fi

mkdir -p "$work/rtp/parser"
sources=("$work/grammar/src/parser.c")
[ -f "$work/grammar/src/scanner.c" ] && sources+=("$work/grammar/src/scanner.c")
"$cc" -O1 -shared -fPIC -I"$work/grammar/src" "${sources[@]}" -o "$work/rtp/parser/wf.so"

state="$work/state"
export XDG_CONFIG_HOME="$state/config" XDG_DATA_HOME="$state/data" \
  XDG_STATE_HOME="$state/state" XDG_CACHE_HOME="$state/cache"
export WFC_NVIM_PLUGIN="$repo/editors/nvim"
export WFC_TS_RTP="$work/rtp"
WFC_TS_FILES="$(find "$repo/examples" -name '*.wf' | sort)"
export WFC_TS_FILES

echo "nvim: $(nvim --version | head -n 1)"
timeout 120s nvim --headless -u NONE -i NONE -n -c "luafile $here/treesitter.lua" </dev/null
echo "PASS: the wf parser and queries/wf work in Neovim"

#!/usr/bin/env bash
# Headless Neovim test: `wfc lsp` diagnostics reach Neovim through
# editors/nvim (filetype detection + require("wfc").setup()).
#
#   WFC_BIN=target/debug/wfc editors/nvim/test/diagnostics.sh
#
# Opens tests/check/graph/cycle_two_nodes.wf (a cycle: WF0201 on line 6),
# waits for the diagnostic, then deletes the line and waits for it to go;
# then checks :WfcFormat (against `wfc fmt -`) and :WfcShowIr.
# Exits non-zero with a message when anything is missing or too slow.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"

bin="${WFC_BIN:-$repo/target/debug/wfc}"
case "$bin" in /*) ;; *) bin="$repo/$bin" ;; esac
timeout_ms="${WFC_TEST_TIMEOUT_MS:-20000}"

if ! command -v nvim >/dev/null 2>&1; then
  echo "FAIL: nvim is not installed (apt-get install -y neovim)" >&2
  exit 1
fi
if [ ! -x "$bin" ]; then
  echo "FAIL: no wfc binary at $bin: build it (cargo build -p wfc) or set WFC_BIN" >&2
  exit 1
fi

export WFC_NVIM_PLUGIN="$repo/editors/nvim"
export WFC_BIN="$bin"
export WFC_TEST_FILE="$repo/tests/check/graph/cycle_two_nodes.wf"
export WFC_TEST_CODE="${WFC_TEST_CODE:-WF0201}"
export WFC_TEST_LINE="${WFC_TEST_LINE:-6}"
export WFC_TEST_TIMEOUT_MS="$timeout_ms"

if [ ! -f "$WFC_TEST_FILE" ]; then
  echo "FAIL: the broken example $WFC_TEST_FILE is missing" >&2
  exit 1
fi

# A private state directory: no user config, shada or swap files, and the
# LSP log goes somewhere we can show.
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
export XDG_CONFIG_HOME="$state/config" XDG_DATA_HOME="$state/data" \
  XDG_STATE_HOME="$state/state" XDG_CACHE_HOME="$state/cache"

echo "nvim: $(nvim --version | head -n 1); wfc: $bin"
# The outer timeout only guards against a hung nvim; the Lua test has its own.
status=0
timeout $(( timeout_ms * 2 / 1000 + 30 ))s \
  nvim --headless -u NONE -i NONE -n -c "luafile $here/diagnostics.lua" </dev/null || status=$?
if [ "$status" -ne 0 ]; then
  if [ "$status" -eq 124 ]; then
    echo "FAIL: nvim did not finish in time" >&2
  fi
  log="$(find "$state" -name 'lsp.log' 2>/dev/null | head -n 1)"
  if [ -n "$log" ]; then
    echo "--- LSP log ($log), last lines:" >&2
    tail -n 40 "$log" >&2
  fi
  exit 1
fi
echo "PASS: Neovim received $WFC_TEST_CODE from wfc lsp; :WfcFormat and :WfcShowIr work"

#!/usr/bin/env bash
# Builds the extension and packages it as wfc-<version>.vsix (never
# publishes). Usage: scripts/package.sh [OUT_DIR]  (default: this directory)
set -euo pipefail
cd "$(dirname "$0")/.."

out_dir="${1:-.}"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi
# `vsce package` runs the `vscode:prepublish` script: type check and minified bundle.

version="$(node -p 'require("./package.json").version')"
vsix="$out_dir/wfc-$version.vsix"
# The bundle inlines the dependencies (esbuild), so vsce need not walk
# node_modules.
npx --no-install vsce package --no-dependencies --out "$vsix"
echo "packaged $vsix"

#!/usr/bin/env bash
# Installs the pinned tree-sitter CLI from crates.io into ROOT/bin (used by
# .ci/grammar.sh and .ci/editors.sh). With Node.js present, `tree-sitter
# generate` runs grammar.js with node (its default), so the CLI is built
# without its QuickJS runtime (the `qjs-rt` default feature): a quarter less
# CPU time for this build, about 90 s of a cold CI run (docs/testing.md).
# Usage: install-tree-sitter.sh ROOT VERSION
set -euo pipefail
root="$1"
version="$2"
features=()
if command -v node >/dev/null 2>&1; then
  features=(--no-default-features)
fi
cargo install tree-sitter-cli --version "=$version" --locked --root "$root" --quiet "${features[@]}"

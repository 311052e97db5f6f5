#!/usr/bin/env bash
# The runtime's layering (docs/architecture.md): `wf-vm` links the IR and
# the engine only, so an embedder that runs compiled workflows pulls in no
# parser, checker or renderer. Fails if its normal or build dependencies
# list a front-end crate; then builds an IR file from `examples/` with
# `wfc build` and runs it with the embedding example `run_ir`.
set -euo pipefail
cd "$(dirname "$0")/.."

forbidden='salsa chumsky logos toml ariadne wf-syntax wf-dot wf-analysis wf-reflex wf-fmt wf-lsp wf-compile'
tree="$(cargo tree --locked -p wf-vm -e normal,build --prefix none)"
found=""
for name in $forbidden; do
    if grep -q "^$name v" <<<"$tree"; then
        found="$found $name"
    fi
done
if [ -n "$found" ]; then
    echo "error: wf-vm depends on front-end crates:$found" >&2
    echo "  see \`cargo tree -p wf-vm -e normal,build -i <crate>\` for the path; the runtime may use them as dev-dependencies only" >&2
    exit 1
fi
echo "wf-vm links none of: $forbidden"

# The binaries come from one workspace build with every target's features
# (`--examples` brings in the dev-dependencies, as `cargo test --workspace`
# does), so this reuses what the test run compiled: `cargo run -p wfc` or
# `-p wf-vm --example run_ir` alone resolve other features (serde_json's
# `float_roundtrip` comes from a dev-dependency, for one) and would compile
# the workspace a second time.
cargo build --quiet --locked --workspace --bins --examples
bin="${CARGO_TARGET_DIR:-target}/debug"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$bin/wfc" build examples/release.wf examples/lib/review.wf -o "$out/release.ir.json"
# The example exits 0 only when the run completed.
if ! "$bin/examples/run_ir" "$out/release.ir.json" Release ticket='"T-1"' > "$out/report.json"; then
    echo "error: the run_ir example did not complete the Release workflow:" >&2
    cat "$out/report.json" >&2
    exit 1
fi
echo "run_ir ran examples/release.wf to completion"

#!/usr/bin/env bash
# Re-check latency after a one-line edit in a 10,000-line file within a
# generated project (default 50 MB): builds the `recheck_latency` example of
# wf-analysis in release mode, generates the project with
# bench/gen_project.py (kept in target/bench-recheck-<MB>mb) and prints the
# median, p90 and max over EDITS edits. Figures go to docs/performance.md.
#
# usage: bench/recheck_latency.sh [MB] [EDITS]
set -euo pipefail
cd "$(dirname "$0")/.."
mb="${1:-50}"
edits="${2:-60}"
dir="target/bench-recheck-${mb}mb"
if [ ! -f "$dir/wf.toml" ]; then
  rm -rf "$dir"
  python3 bench/gen_project.py "$dir" --mb "$mb" --files-per-service 60
fi
cargo build --release --quiet -p wf-analysis --example recheck_latency
./target/release/examples/recheck_latency "$dir" "$edits"

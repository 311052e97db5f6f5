#!/usr/bin/env bash
# Measures `wfc check` on generated workflows of 10k, 100k and 1M edges and
# prints the time per edge for each, so linear scaling shows as a flat
# column. Figures go to docs/performance.md.
#
# usage: bench/check_scaling.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cargo build --release --quiet -p wfc
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
printf '%-10s %-10s %-10s %-12s %-14s\n' edges nodes bytes best_ms ns_per_edge
for edges in 10000 100000 200000 1000000; do
  file="$dir/big_$edges.wf"
  python3 bench/gen_large.py "$edges" > "$file"
  nodes=$((edges / 2))
  bytes=$(wc -c < "$file")
  best=""
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    ./target/release/wfc check --format concise "$file" > /dev/null
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  printf '%-10s %-10s %-10s %-12s %-14s\n' "$edges" "$nodes" "$bytes" "$best" "$(( best * 1000000 / edges ))"
done

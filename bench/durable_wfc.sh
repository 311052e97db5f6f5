#!/usr/bin/env bash
# The whole `wfc run` process on a chain of N step nodes (default 200,000)
# with the `auto` agent, in memory and with a run directory, alternated
# RUNS times (default 3): prints each run's wall time, CPU time (user +
# system) and peak memory, the run directory's file sizes, and the ratio
# of the best CPU times, durable to in memory (docs/performance.md,
# "Durable runs"). WFC=path/to/wfc measures another build (the default
# builds this tree's release binary).
#
# usage: bench/durable_wfc.sh [N] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200000}"
runs="${2:-3}"
if [ -z "${WFC:-}" ]; then
  cargo build --release --quiet -p wfc
  WFC=target/release/wfc
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
file="$dir/chain.wf"
# `start -> n1`, `n1 -> n2`, …, `n{N-2} -> done`: N nodes, N steps.
awk -v n="$n" 'BEGIN {
  print "workflow Chain {\n  max_steps = 100000000"
  prev = "start"
  for (i = 1; i < n - 1; i++) { print "  " prev " -> n" i; prev = "n" i }
  print "  " prev " -> done\n}"
}' > "$file"
best_mem=""
best_dir=""
for _ in $(seq "$runs"); do
  for mode in mem dir; do
    args=()
    if [ "$mode" = dir ]; then
      rm -rf "$dir/run"
      args=(--run-dir "$dir/run")
    fi
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" \
      "$WFC" run "$file" --agent auto "${args[@]}" > /dev/null
    read -r wall user sys rss < "$dir/time"
    cpu=$(echo "$user + $sys" | bc)
    printf '%-4s wall=%6.2fs cpu=%6.2fs (user %5.2f, sys %5.2f) max_rss=%d KB\n' \
      "$mode" "$wall" "$cpu" "$user" "$sys" "$rss"
    if [ "$mode" = mem ]; then
      if [ -z "$best_mem" ] || [ "$(echo "$cpu < $best_mem" | bc)" = 1 ]; then best_mem=$cpu; fi
    else
      if [ -z "$best_dir" ] || [ "$(echo "$cpu < $best_dir" | bc)" = 1 ]; then best_dir=$cpu; fi
    fi
  done
done
for f in program.json log.jsonl snapshot.json; do
  printf '%-14s %12d bytes\n' "$f" "$(wc -c < "$dir/run/$f")"
done
ratio=n/a
if [ "$(echo "$best_mem > 0" | bc)" = 1 ]; then
  ratio=$(echo "scale=2; $best_dir / $best_mem" | bc)
fi
printf 'best cpu: in memory %ss, durable %ss, ratio %s\n' "$best_mem" "$best_dir" "$ratio"

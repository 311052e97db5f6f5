#!/usr/bin/env bash
# Whole-process wall time of `wfc check` on Attractor pipelines (issue 5):
# the kitchen-sink example and the whole shared corpus, one process each,
# with hyperfine. Given a baseline binary, runs it in the same hyperfine
# invocation so the two are compared under the same machine load (a shared
# machine's absolute figures move with other work; ratios hold better).
# Also prints CPU time and page faults per run (`perf stat`), which other
# work disturbs less. Figures go to docs/performance.md.
#
# usage: bench/check_dot.sh [BASELINE_BINARY] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${WFC_CORPUS:-../shared/corpus/attractor}"
[ -d "$corpus" ] || { echo "no corpus at $corpus (set WFC_CORPUS)" >&2; exit 2; }
base="${1:-}"
runs="${2:-40}"
# The binary as shipped: `cargo dist` (.cargo/config.toml) links it static.
cargo dist
new=target/release/wfc
kitchen="$corpus/2389-research+tracker/examples/kitchen-sink.dot"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
commands=()
for target in "$kitchen" "$corpus"; do
  [ -n "$base" ] && commands+=("$base check $target")
  commands+=("$new check $target")
done
# -i: corpus files with errors make `wfc check` exit 1.
hyperfine -N -w 5 -r "$runs" -i "${commands[@]}"
if command -v perf > /dev/null; then
  for command in "${commands[@]}"; do
    # shellcheck disable=SC2086
    perf stat -r "$runs" -e task-clock,page-faults $command 2>&1 > /dev/null |
      awk -v c="$command" '/task-clock/ {t = $1} /page-faults/ {f = $1}
        END {printf "%s: %.2f ms CPU, %s page faults\n", c, t, f}'
  done
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

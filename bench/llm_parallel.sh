#!/bin/sh
# Parallel LLM branches (docs/performance.md, "LLM backends"): the four
# codergen branches of tests/run/dot/llm/parallel.dot under `--agent llm`
# against a fake Anthropic server whose every answer takes 200 ms, with
# `max_parallel` 4 (the default) and 1 (one after another). Prints each
# run's wall time in ms. Usage: bench/llm_parallel.sh [RUNS] (default 5);
# WFC=path picks the binary (default target/debug/wfc, built if missing);
# DELAY=seconds the model's latency (default 0.2; 0 shows wfc's own time).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
wfc=${WFC:-$root/target/debug/wfc}
[ -x "$wfc" ] || (cd "$root" && cargo build -p wfc --quiet)
runs=${1:-5}
delay=${DELAY:-0.2}
tmp=$(mktemp -d)
python3 "$root/bench/llm_fake.py" "$tmp/port" "$delay" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
while [ ! -s "$tmp/port" ]; do sleep 0.05; done
export ANTHROPIC_API_KEY=sk-bench ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$tmp/port")"
cp "$root/tests/run/dot/llm/parallel.dot" "$tmp/parallel.dot"
sed 's/fan      \[shape=component\]/fan      [shape=component, max_parallel=1]/' \
  "$tmp/parallel.dot" >"$tmp/sequential.dot"
for variant in parallel sequential; do
  i=0
  while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    rm -rf "$tmp/run"
    start=$(date +%s%N)
    "$wfc" run "$tmp/$variant.dot" --agent llm --run-dir "$tmp/run" --progress never >/dev/null
    end=$(date +%s%N)
    echo "$variant run $i: $(((end - start) / 1000000)) ms"
  done
done

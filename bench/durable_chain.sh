#!/bin/sh
# Durable-run throughput (docs/performance.md, "Durable runs"): a chain of
# N step nodes run by the `auto` agent in memory and with a run directory,
# for each N given (default 1,000 to 1,000,000). Prints wall and CPU time
# per step, per tenth of the run, and the sizes of the run directory.
set -e
cd "$(dirname "$0")/durable"
cp ../../Cargo.lock .
cargo build --release --offline --quiet
for n in ${@:-1000 20000 200000 1000000}; do
  target/release/durable-bench mem "$n"
  target/release/durable-bench dir "$n"
done

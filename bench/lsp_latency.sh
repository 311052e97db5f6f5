#!/usr/bin/env bash
# Language server latency: didChange of a one-character edit -> published
# diagnostics, for a ~10,000-line file in a 50-file workspace, debounce
# switched off (the `debounceMs: 0` initialization option).
#
# Generates the project with bench/gen_project.py (--files-per-service 60),
# merges the first files of svc_000 into svc_000/big.wf until it has at
# least 10,000 lines (imports of merged files are commented out in big.wf
# and pointed at big.wf elsewhere, so the project still checks clean), and
# drops the highest-numbered service files until 50 `.wf` files remain
# (files import only lower-numbered ones). The project is kept in
# target/bench-lsp. Then builds and runs the `lsp_latency` example of
# wf-lsp in release mode, which prints median, p90, p99 and max.
#
# usage: bench/lsp_latency.sh [EDITS]   (default 400; figures go to
#        docs/performance.md, "Language server latency")
set -euo pipefail
cd "$(dirname "$0")/.."
edits="${1:-400}"
dir="target/bench-lsp"
if [ ! -f "$dir/svc_000/big.wf" ]; then
  rm -rf "$dir"
  python3 bench/gen_project.py "$dir" --mb 1.2 --files-per-service 60 >/dev/null
  python3 - "$dir" <<'PY'
import os, re, sys
root = sys.argv[1]
svc = os.path.join(root, "svc_000")
flows = sorted(f for f in os.listdir(svc) if f.startswith("flow_"))
merged, big = [], ""
for name in flows:
    if big.count("\n") >= 10_000:
        break
    merged.append(name)
    big += open(os.path.join(svc, name)).read()
assert big.count("\n") >= 10_000, "svc_000 too small: raise --mb"
imp = re.compile(r'^import "(%s)"' % "|".join(map(re.escape, merged)), re.M)
for name in merged:
    os.remove(os.path.join(svc, name))
with open(os.path.join(svc, "big.wf"), "w") as f:
    f.write(imp.sub(lambda m: "// (merged) " + m.group(0), big))
files = []
for d, _, names in os.walk(root):
    files += [os.path.join(d, n) for n in names if n.endswith(".wf")]
for path in files:
    text = open(path).read()
    if imp.search(text) and not path.endswith("big.wf"):
        open(path, "w").write(imp.sub('import "big.wf"', text))
# Keep 50 files: drop the highest-numbered flows (nothing imports them).
flows = sorted((p for p in files if "/flow_" in p and os.path.exists(p)),
               key=lambda p: int(re.search(r"flow_(\d+)", p).group(1)))
live = [p for p in files if os.path.exists(p)]
assert len(live) >= 50, f"only {len(live)} files: raise --mb"
for path in flows[::-1][: len(live) - 50]:
    os.remove(path)
PY
fi
cargo build --release --quiet -p wf-lsp --example lsp_latency
./target/release/examples/lsp_latency "$dir" "$edits"

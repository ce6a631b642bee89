#!/usr/bin/env bash
# `make bench-faces`: the same steady heartbeat (a 1,000-member stable group, owned task lists,
# one standby) natively, in Node (objects and strings), in headless Chromium, under wasmtime
# from Python and from Rust (examples/wasi-host/rust) and under node:wasi, in one run; prints a
# Markdown table with each face's cost per heartbeat and its ratio to native (docs/performance.md
# keeps the latest). Needs `make pkg` and the compiled WASI host (the make target builds both).
# The workload is written by `cargo run --release --example faces -- DIR` (see examples/faces.rs)
# and each face checks its first pass against the native outputs.
#   BENCH_FACES_DIR=target/bench-faces (default)
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${BENCH_FACES_DIR:-target/bench-faces}
mkdir -p "$DIR"
results=$DIR/results.jsonl
: >"$results"
cargo run --quiet --release --example faces -- "$DIR" >>"$results"
node --disable-warning=ExperimentalWarning examples/bench-faces/node.mjs "$DIR" >>"$results"
node examples/bench-faces/chromium.mjs "$DIR" >>"$results" 2> >(grep -v 'unexpected operator' >&2)
.venv/bin/python examples/bench-faces/wasmtime_host.py "$DIR" >>"$results"
examples/wasi-host/rust/target/release/sgc-wasi-host faces "$DIR" >>"$results"

python3 - "$results" <<'PY'
import json, os, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
native = rows[0]["us"]
order = ["native", "Node, handle(object)", "Node, handle(string)", "Chromium, handle(object)",
         "Chromium, handle(string)", "wasmtime-py", "wasmtime crate", "node:wasi"]
rows.sort(key=lambda r: next((i for i, o in enumerate(order) if r["face"].startswith(o)), len(order)))
print(f"steady heartbeat, 1,000-member stable group, {rows[0]['heartbeats']} heartbeats a pass, best of 5 passes, CPU time where the host tells it (wall clock in Chromium)"
      f" (load average {os.getloadavg()[0]:.1f})\n")
print("| face | µs per heartbeat | ratio to native |")
print("|---|---:|---:|")
for r in rows:
    print(f"| {r['face']} | {r['us']:.1f} | {r['us'] / native:.2f}x |")
PY

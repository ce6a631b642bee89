#!/usr/bin/env bash
# `make bench-faces`: the same steady heartbeat (a 1,000-member stable group, owned task lists,
# one standby) natively, in Node (objects and strings), in headless Chromium, under wasmtime
# from Python and from Rust (examples/wasi-host/rust) and under node:wasi, in one run; prints a
# Markdown table with each face's cost per heartbeat and its ratio to native and writes it, with
# the commit and date, between the bench-faces markers of docs/performance.md
# (scripts/bench-faces-table.py). Needs `make pkg` and the compiled WASI host (the make target
# builds both).
# The workload is written by `cargo run --release --example faces -- DIR` (see examples/faces.rs)
# and each face checks its first pass against the native outputs.
#   BENCH_FACES_DIR=target/bench-faces (default)
#   BENCH_FACES_DOC=docs/performance.md (default; empty: print the table only)
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

python3 scripts/bench-faces-table.py "$results"

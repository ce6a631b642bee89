#!/usr/bin/env bash
# WASI tests: the three hosts (Python wasmtime, Node node:wasi, Rust wasmtime crate) against
# the native `sgc` and the native core.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin sgc
export SGC_BIN="$PWD/target/debug/sgc"
status=0
.venv/bin/python tests/wasi/test_wasi.py || status=1
node --disable-warning=ExperimentalWarning --test tests/wasi/ || status=1
# The compiled host: its own Cargo project (examples/wasi-host/rust), release only, so that the
# wasmtime crate is built once (a few minutes the first time) and reused after.
bash scripts/build-wasi-host.sh
examples/wasi-host/rust/target/release/sgc-wasi-host test || status=1
exit $status

#!/usr/bin/env bash
# WASI tests: both hosts (Python wasmtime, Node node:wasi) against the native `sgc`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin sgc
export SGC_BIN="$PWD/target/debug/sgc"
status=0
.venv/bin/python tests/wasi/test_wasi.py || status=1
node --disable-warning=ExperimentalWarning --test tests/wasi/ || status=1
exit $status

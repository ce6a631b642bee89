#!/usr/bin/env bash
# Builds the WASI modules into pkg/wasi/: sgc.wasm (command) and sgc-reactor.wasm (plugin ABI).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${CARGO_TARGET_DIR:-target}/wasm32-wasip1/wasm
WASM_OPT=tools/node_modules/.bin/wasm-opt
FEATURES="--enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue"

cargo build --quiet --target wasm32-wasip1 --profile wasm --bin sgc
mkdir -p pkg/wasi
cp "$OUT/sgc.wasm" pkg/wasi/sgc.wasm.tmp
cargo build --quiet --target wasm32-wasip1 --profile wasm --lib --features reactor
cp "$OUT/streams_group_coordinator.wasm" pkg/wasi/sgc-reactor.wasm.tmp
for m in sgc sgc-reactor; do
  # shellcheck disable=SC2086
  "$WASM_OPT" -Oz $FEATURES --strip-debug "pkg/wasi/$m.wasm.tmp" -o "pkg/wasi/$m.wasm"
  rm -f "pkg/wasi/$m.wasm.tmp"
  echo "wasi: pkg/wasi/$m.wasm $(stat -c %s "pkg/wasi/$m.wasm") bytes ($(gzip -9 -c "pkg/wasi/$m.wasm" | wc -c) gzipped)"
done

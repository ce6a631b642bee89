#!/usr/bin/env bash
# Builds the WASI modules into pkg/wasi/: sgc.wasm (command) and sgc-reactor.wasm (plugin ABI),
# for speed (cargo profile wasm-speed, wasm-opt -O3 --low-memory-unused; docs/performance.md).
# Cargo skips what did not change; wasm-opt runs only when cargo's module (or this script) is
# newer than the optimised one.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
STAGE=$TARGET/wasi-stage
WASM_OPT=tools/node_modules/.bin/wasm-opt
FEATURES="--enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue"

mkdir -p pkg/wasi "$STAGE"
# The command is crates/sgc-cli's `sgc`, the reactor crates/sgc-wasi's library.
cargo build --quiet --target wasm32-wasip1 --profile wasm-speed -p sgc-cli -p sgc-wasi
cp -p "$TARGET/wasm32-wasip1/wasm-speed/sgc.wasm" "$STAGE/sgc.wasm"
cp -p "$TARGET/wasm32-wasip1/wasm-speed/sgc_wasi.wasm" "$STAGE/sgc-reactor.wasm"
for m in sgc sgc-reactor; do
  src=$STAGE/$m.wasm dst=pkg/wasi/$m.wasm
  if [ -f "$dst" ] && [ "$dst" -nt "$src" ] && [ "$dst" -nt "$0" ]; then
    echo "wasi: pkg/wasi/$m.wasm is up to date"
  else
    # shellcheck disable=SC2086
    # --low-memory-unused: as for the Node module (scripts/build-pkg.sh): the stack starts at
    # 1 MB and grows down, the data lies above, so the lowest 1 KB is never used.
    "$WASM_OPT" -O3 --low-memory-unused $FEATURES --strip-debug "$src" -o "$dst"
    echo "wasi: pkg/wasi/$m.wasm $(stat -c %s "$dst") bytes ($(gzip -9 -c "$dst" | wc -c) gzipped)"
  fi
done

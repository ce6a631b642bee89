#!/usr/bin/env bash
# What the web module's code is made of, part by part (docs/performance.md, "Size of the web
# module"): builds it as scripts/build-pkg.sh does (profile wasm-size, no default features,
# wasm-bindgen, wasm-opt -Oz) but with v0 symbol names, in a target directory of its own, and
# keeps the names through wasm-opt (-g), then prints `scripts/wasm-sizes.py --parts` of it.
#   scripts/web-size.sh [FEATURES]   e.g. "broker wire-json": the web module with those back
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=target/web-size
features=${1:-}
RUSTFLAGS="-C symbol-mangling-version=v0" CARGO_TARGET_DIR=$TARGET \
  cargo build --quiet --target wasm32-unknown-unknown --profile wasm-size -p sgc-wasm \
  --no-default-features ${features:+--features "$features"}
out=$TARGET/named
rm -rf "$out"
wasm-bindgen --target web --out-dir "$out" --out-name m --remove-producers-section \
  "$TARGET/wasm32-unknown-unknown/wasm-size/sgc_wasm.wasm"
tools/node_modules/.bin/wasm-opt -Oz -g --low-memory-unused --enable-bulk-memory \
  --enable-bulk-memory-opt --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$out/m_bg.wasm" -o "$out/named.wasm"
tools/node_modules/.bin/wasm-opt "$out/named.wasm" --strip-debug --strip-producers \
  --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  -o "$out/stripped.wasm"
echo "web module (features: ${features:-none}): $(stat -c %s "$out/stripped.wasm") bytes," \
  "$(gzip -9 -c "$out/stripped.wasm" | wc -c) gzipped"
python3 scripts/wasm-sizes.py --parts "$out/named.wasm" "${TOP:-40}"

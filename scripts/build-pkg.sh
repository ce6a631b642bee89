#!/usr/bin/env bash
# Builds the npm package into pkg/: the wasm-bindgen glue for Node (CommonJS) and the web
# (ES module), optimised with binaryen's wasm-opt, plus js/ and pkg-template/.
set -euo pipefail
cd "$(dirname "$0")/.."

CRATE=streams_group_coordinator
WASM=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm/$CRATE.wasm
WASM_OPT=tools/node_modules/.bin/wasm-opt

cargo build --quiet --target wasm32-unknown-unknown --profile wasm --lib

rm -rf pkg/node pkg/web
mkdir -p pkg
for target in nodejs web; do
  dir=pkg/$([ "$target" = nodejs ] && echo node || echo web)
  wasm-bindgen --target "$target" --out-dir "$dir" --remove-producers-section "$WASM"
  # Debian's binaryen corrupts wasm-bindgen output (TOOLCHAIN P2); npm binaryen does not.
  "$WASM_OPT" -Oz --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$dir/${CRATE}_bg.wasm" -o "$dir/${CRATE}_bg.wasm"
done
echo '{"type": "module"}' > pkg/web/package.json

cp -r js/. pkg/
cp pkg-template/README.md pkg/README.md
version=$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)
sed "s/\"version\": \"[^\"]*\"/\"version\": \"$version\"/" pkg-template/package.json > pkg/package.json

raw=$(stat -c %s "pkg/web/${CRATE}_bg.wasm")
gz=$(gzip -9 -c "pkg/web/${CRATE}_bg.wasm" | wc -c)
echo "pkg: built streams-group-coordinator $version (wasm $raw bytes, $gz gzipped)"

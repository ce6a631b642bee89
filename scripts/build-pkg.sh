#!/usr/bin/env bash
# Builds the npm package into pkg/: the wasm-bindgen glue for Node (CommonJS) and the web
# (ES module), optimised with binaryen's wasm-opt, plus js/ and pkg-template/.
#   scripts/build-pkg.sh        both (make pkg)
#   scripts/build-pkg.sh web    only the web build (make web: all the playground needs)
# Cargo skips what did not change; wasm-bindgen and wasm-opt run for a target only when
# cargo's module (or this script) is newer than that target's optimised module.
set -euo pipefail
cd "$(dirname "$0")/.."

# The module of crates/sgc-wasm, published under the core's name: for Node built for speed
# (cargo profile wasm-speed, wasm-opt -O3), for the web for size (wasm-size, -Oz); see
# docs/performance.md for what each costs and buys.
CRATE=streams_group_coordinator
WASM_OPT=tools/node_modules/.bin/wasm-opt
targets="nodejs web"
[ "${1:-}" = web ] && targets=web

mkdir -p pkg
for target in $targets; do
  dir=pkg/$([ "$target" = nodejs ] && echo node || echo web)
  # The web build leaves out the heartbeat-text fast path (about 16 KB gzipped), the buffered
  # text path of the Node module (feature `speed`), and what a broker or a test client in Node
  # uses (features `broker` and `wire-json`: handleRequest, the host kit, decodeResponse; about
  # 150 KB gzipped). tests/js/web-build.test.mjs holds the web module to its size budget.
  # --low-memory-unused: the module never uses the lowest 1 KB of its memory (its stack starts at
  # 1 MB and grows down, its data above), so wasm-opt may fold pointer offsets into loads and
  # stores (2.7 KB gzipped of the web module; 15 KB smaller and a little faster for Node).
  if [ "$target" = nodejs ]; then profile=wasm-speed opt="-O3 --low-memory-unused" features=; else profile=wasm-size opt="-Oz --low-memory-unused" features=--no-default-features; fi
  cargo build --quiet --target wasm32-unknown-unknown --profile $profile -p sgc-wasm $features
  WASM=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile/sgc_wasm.wasm
  out="$dir/${CRATE}_bg.wasm"
  if [ -f "$out" ] && [ "$out" -nt "$WASM" ] && [ "$out" -nt "$0" ]; then
    echo "pkg: $dir is up to date"
    continue
  fi
  rm -rf "$dir"
  wasm-bindgen --target "$target" --out-dir "$dir" --out-name "$CRATE" --remove-producers-section "$WASM"
  # Debian's binaryen corrupts wasm-bindgen output (TOOLCHAIN P2); npm binaryen does not.
  "$WASM_OPT" $opt --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$out" -o "$out"
done
echo '{"type": "module"}' > pkg/web/package.json

cp -r js/. pkg/
node scripts/esm-to-cjs.mjs js/api.mjs pkg/api.cjs
cp pkg-template/README.md pkg/README.md
version=$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)
sed "s/\"version\": \"[^\"]*\"/\"version\": \"$version\"/" pkg-template/package.json > pkg/package.json

raw=$(stat -c %s "pkg/web/${CRATE}_bg.wasm")
gz=$(gzip -9 -c "pkg/web/${CRATE}_bg.wasm" | wc -c)
echo "pkg: streams-group-coordinator $version ready (wasm $raw bytes, $gz gzipped)"

#!/usr/bin/env bash
# Builds the compiled WASI host (examples/wasi-host/rust, on the wasmtime crate) in release
# mode into its own target folder; cargo skips it when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=examples/wasi-host/rust
if [ ! -x "$dir/target/release/sgc-wasi-host" ]; then
  echo "wasi-host: building $dir (the wasmtime crate: several minutes, once)"
fi
CARGO_TARGET_DIR="$dir/target" cargo build --quiet --release --locked --manifest-path "$dir/Cargo.toml"

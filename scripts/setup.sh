#!/usr/bin/env bash
# Idempotent set-up: installs what a fresh machine lacks, and is quick when all is present.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }

if ! need cargo; then
  echo "setup: cargo is missing; install Rust with rustup (https://rustup.rs)" >&2
  exit 1
fi
if need rustup; then
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
  done
fi
if ! need python3; then
  echo "setup: python3 is needed by the topology-id cross-check" >&2
  if need apt-get; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3
  fi
fi
# Fetch crates once so that later steps do not stall on the network.
cargo fetch --quiet
echo "setup: ok"

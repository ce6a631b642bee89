#!/usr/bin/env bash
# Idempotent set-up: installs only what is missing, so it is quick on a machine that has
# everything. With no arguments it installs everything (`make setup`, `make test`); each make
# target asks only for the parts it uses:
#   cargo         cargo itself (always checked; all `make demo` needs)
#   rust-tools    rustfmt and clippy
#   wasm          the wasm32-unknown-unknown and wasm32-wasip1 targets
#   wasm-bindgen  wasm-bindgen-cli at the Cargo.lock version
#   npm-tools     Node.js and tools/ (binaryen's wasm-opt, TypeScript)
#   browser       Debian's Chromium and tests/browser/ (playwright-core)
#   python        Python with a .venv holding wasmtime (the WASI host)
#   node          Node.js and npm
#   clients       Kafka clients this project did not write, for `sgc serve`'s tests: Debian's
#                 kcat and the confluent-kafka wheel (both librdkafka) in .venv
#   nightly       the nightly toolchain, for `make test-nisshi` only (Nisshi's dependencies need
#                 a newer rustc than the stable one); never installed by `make setup` alone
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1; }
say() { echo "setup: $*"; }
ALL=$([ $# -eq 0 ] && echo 1 || echo 0)
WANT=" $* "
want() { [ "$ALL" = 1 ] || [[ "$WANT" == *" $1 "* ]]; }

need cargo || { echo "setup: cargo is missing; install Rust with rustup (https://rustup.rs)" >&2; exit 1; }
# What the parts need of each other.
want npm-tools && WANT+=" node "
want browser && WANT+=" node "
want wasm-bindgen && WANT+=" wasm "
want clients && WANT+=" python "

# 1. Rust components and targets.
if need rustup; then
  if want rust-tools; then
    installed=$(rustup component list --installed 2>/dev/null || true)
    for c in rustfmt clippy; do
      grep -q "^$c" <<<"$installed" || { say "rustup component add $c"; rustup component add "$c"; }
    done
  fi
  if [[ "$WANT" == *" nightly "* ]] && ! rustup toolchain list | grep -q '^nightly'; then
    say "rustup toolchain install nightly --profile minimal"
    rustup toolchain install nightly --profile minimal
  fi
  if want wasm; then
    targets=$(rustup target list --installed 2>/dev/null || true)
    for t in wasm32-unknown-unknown wasm32-wasip1; do
      grep -qx "$t" <<<"$targets" || { say "rustup target add $t"; rustup target add "$t"; }
    done
  fi
fi

# 2. Debian packages: Node.js and npm for the package tests, Python for the WASI host.
missing=()
if want node; then
  need node || missing+=(nodejs)
  need npm || missing+=(npm)
fi
if want python; then
  need python3 || missing+=(python3)
  python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
fi
if want clients; then
  need kcat || missing+=(kcat)
fi
# Debian's Chromium for the playground's browser tests (driven by playwright-core).
if want browser; then
  [ -x /usr/bin/chromium ] || missing+=(chromium)
fi
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# 3. wasm-bindgen CLI at exactly the Cargo.lock version (TOOLCHAIN P1).
if want wasm-bindgen; then
  wb=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' Cargo.lock)
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wb"; then
    say "cargo install wasm-bindgen-cli $wb (a few minutes, once)"
    cargo install wasm-bindgen-cli --version "$wb" --locked --quiet \
      || cargo install wasm-bindgen-cli --version "$wb" --quiet
  fi
fi

# 4. npm tools (wasm-opt from binaryen, TypeScript), pinned by tools/package-lock.json.
if want npm-tools; then
  if [ ! -x tools/node_modules/.bin/wasm-opt ] || [ tools/package-lock.json -nt tools/node_modules/.package-lock.json ]; then
    say "npm ci in tools/"
    (cd tools && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# 4b. playwright-core for the browser tests, pinned by tests/browser/package-lock.json.
if want browser; then
  if [ -f tests/browser/package.json ] && { [ ! -d tests/browser/node_modules ] || [ tests/browser/package-lock.json -nt tests/browser/node_modules/.package-lock.json ]; }; then
    say "npm ci in tests/browser/"
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# 5. Python virtual environment with wasmtime for the WASI plugin host.
if want python; then
  if ! .venv/bin/python -c 'import wasmtime' 2>/dev/null; then
    say "python venv .venv with wasmtime"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check 'wasmtime==50.0.1'
  fi
fi

if want clients; then
  if ! .venv/bin/python -c 'import confluent_kafka' 2>/dev/null; then
    say "confluent-kafka in .venv"
    .venv/bin/pip install --quiet --disable-pip-version-check 'confluent-kafka==2.16.2'
  fi
fi

[ "$ALL" = 1 ] && cargo fetch --quiet
say "ok${*:+ ($*)}"

#!/usr/bin/env bash
# The JS suites: node --test against the assembled package in pkg/ (`make pkg` builds it;
# `make test-js` runs both). Needs the native references too: the committed scenario
# outputs (tests/scenarios/<name>.out.jsonl) and the `sgc` command, built here if missing or stale.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f pkg/package.json ] || [ ! -f pkg/node/streams_group_coordinator_bg.wasm ]; then
  echo "test-js: no package in pkg/; building it" >&2
  bash scripts/build-pkg.sh
fi
if [ ! -x tools/node_modules/.bin/tsc ]; then
  (cd tools && npm ci --no-audit --no-fund)
fi

# Native references: the committed tests/scenarios/<name>.out.jsonl and the sgc command.
cargo build --quiet --bin sgc
target_dir=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export SGC_BIN="$target_dir/debug/sgc"

node --version
# Node 20's V8 can abort ("unreachable code" in Deoptimizer::DoComputeBuiltinContinuation) when
# it deoptimizes a function that inlined a call into wasm, about every other run of the
# 400-member Cluster test; without turbo inlining it does not, at no measurable cost. The test
# runner passes the flag on to every test file's process.
node --no-turbo-inlining --test tests/js/*.test.mjs

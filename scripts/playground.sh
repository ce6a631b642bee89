#!/usr/bin/env bash
# Serves the protocol playground (examples/playground/) on 127.0.0.1. It builds nothing: it
# assembles a static site from the page and the web build of the package (run `make web`
# first; `make playground` does), then runs Python's static file server in the foreground.
#   PORT=8080 (default)   SITE=target/playground-site (default)
#   scripts/playground.sh --assemble-only   only assemble the site and print its folder
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-8080}"
SITE="${SITE:-target/playground-site}"

if [ ! -f pkg/web.mjs ] || [ ! -f pkg/web/streams_group_coordinator_bg.wasm ]; then
  echo "playground: pkg/web.mjs or pkg/web/ is missing; run 'make web' first (or 'make playground')" >&2
  exit 1
fi

rm -rf "$SITE"
mkdir -p "$SITE"
cp examples/playground/index.html examples/playground/*.mjs examples/playground/*.css "$SITE"/
mkdir -p "$SITE/view"
cp examples/playground/view/*.mjs "$SITE/view/"
cp pkg/web.mjs pkg/api.mjs "$SITE"/
mkdir -p "$SITE/testing"
cp pkg/testing/simulation.mjs "$SITE/testing/"
mkdir -p "$SITE/web"
cp pkg/web/streams_group_coordinator.js pkg/web/streams_group_coordinator_bg.wasm pkg/web/package.json "$SITE/web/"

if [ "${1:-}" = "--assemble-only" ]; then
  echo "$SITE"
  exit 0
fi

echo "playground: serving $SITE"
echo "playground: open http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$SITE"

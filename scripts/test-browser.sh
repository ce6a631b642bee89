#!/usr/bin/env bash
# Browser tests of the playground: assembles the site (scripts/playground.sh --assemble-only),
# serves it on 127.0.0.1, runs tests/browser/*.test.mjs on node:test (playwright-core driving
# Debian's /usr/bin/chromium) and stops the server by its PID. Needs `make pkg` (pkg/web and
# pkg/node). Exits non-zero on failure.
#   BROWSER_TEST_PORT=8765 (default)   ONLY=regex (run only the tests whose names match)
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${BROWSER_TEST_PORT:-8765}"
SITE=target/playground-test-site

fail() { echo "test-browser: $*" >&2; exit 1; }

[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing (make setup installs Debian's chromium)"
[ -f pkg/node.mjs ] || fail "pkg/ is missing; run 'make pkg' first"
if [ ! -d tests/browser/node_modules/playwright-core ]; then
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi
SITE="$SITE" bash scripts/playground.sh --assemble-only >/dev/null
rm -rf test-output/playground
mkdir -p test-output/playground

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  fail "port $PORT is already in use; set BROWSER_TEST_PORT"
fi
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$SITE" >test-output/playground/server.log 2>&1 &
SRV=$!
trap 'kill "$SRV" 2>/dev/null || true; wait "$SRV" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  kill -0 "$SRV" 2>/dev/null || fail "the server did not start (see test-output/playground/server.log)"
  sleep 0.1
done

set +e
BASE_URL="http://127.0.0.1:$PORT/" node --test --test-reporter=spec ${ONLY:+--test-name-pattern="$ONLY"} \
  tests/browser/*.test.mjs 2> >(grep -v 'unexpected operator' >&2)
rc=$?
set -e
exit $rc

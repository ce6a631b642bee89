#!/usr/bin/env bash
echo "scripts/test-browser.sh: not built yet" >&2
exit 1

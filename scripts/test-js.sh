#!/usr/bin/env bash
echo "scripts/test-js.sh: not built yet" >&2
exit 1

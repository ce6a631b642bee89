#!/usr/bin/env bash
echo "scripts/playground.sh: not built yet" >&2
exit 1

#!/usr/bin/env bash
# `sgc serve` against Kafka clients this project did not write: Debian's kcat and the
# confluent-kafka admin client (both librdkafka).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin sgc
export SGC_BIN="$PWD/target/debug/sgc"
.venv/bin/python tests/clients/test_clients.py

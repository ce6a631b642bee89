#!/usr/bin/env bash
# `make fuzz`: runs every cargo-fuzz target in fuzz/ for FUZZ_SECONDS (default 60) each, one
# after the other, on the nightly toolchain. Each target starts from its committed seeds
# (fuzz/seeds/<target>, read only) and its working corpus (fuzz/corpus/<target>, not committed);
# crashes land in fuzz/artifacts/<target>/ (see fuzz/README.md for turning one into a
# regression). Installs cargo-fuzz from crates.io when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_TARGETS=${FUZZ_TARGETS:-$(cd fuzz/fuzz_targets && ls *.rs | sed 's/\.rs$//')}

cargo +nightly --version >/dev/null 2>&1 || {
  echo "fuzz: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
  exit 1
}
cargo +nightly fuzz --version >/dev/null 2>&1 || {
  echo "fuzz: cargo install cargo-fuzz"
  cargo install cargo-fuzz --locked
}

status=0
for target in $FUZZ_TARGETS; do
  mkdir -p "fuzz/corpus/$target"
  # The JSON words of the scenarios (fuzz/dict/, written by `make fuzz-seeds`).
  dict=()
  case $target in
    handle_json*) dict=(-dict=dict/handle_json.dict) ;;
    settings) dict=(-dict=dict/settings.dict) ;;
  esac
  echo "fuzz: $target for ${FUZZ_SECONDS}s"
  # The core forbids unsafe code, so no sanitizer; debug assertions make arithmetic overflow a
  # crash, as it is in `cargo test`. -rss_limit_mb and -timeout turn runaway memory or time
  # into reported failures.
  (cd fuzz && cargo +nightly fuzz run --sanitizer none --debug-assertions "$target" "corpus/$target" "seeds/$target" -- \
    -max_total_time="$FUZZ_SECONDS" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${dict[@]}") || status=1
done
exit $status

# streams-group-coordinator: `make demo` and `make test` work on a fresh machine; both run
# `make setup` first, which installs only what is missing.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: setup demo test fmt-check clippy test-rust test-wasm-unit test-js test-wasi test-browser pkg wasi playground bench fuzz fuzz-seeds

setup:
	@bash scripts/setup.sh

demo: setup
	@$(CARGO) run --quiet --example demo -- examples/demo/three-instances.jsonl

test: setup fmt-check clippy test-rust test-wasm-unit test-js test-wasi test-browser

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --all-targets -- -D warnings

test-rust:
	$(CARGO) test --lib --bins --tests --examples
	$(CARGO) test --doc

# The core's unit tests again, compiled to wasm32 and run in Node (no -q: TOOLCHAIN P10).
test-wasm-unit:
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner $(CARGO) test --target wasm32-unknown-unknown --lib

bench: setup
	$(CARGO) bench

pkg: wasi
	@bash scripts/build-pkg.sh

test-js: pkg
	@bash scripts/test-js.sh

wasi: setup
	@bash scripts/build-wasi.sh

test-wasi: wasi
	@bash scripts/test-wasi.sh

playground: pkg
	@bash scripts/playground.sh

test-browser: pkg
	@bash scripts/test-browser.sh

# Every fuzz target for FUZZ_SECONDS (default 60) each, on nightly; not part of `make test`,
# which replays the committed seeds and past crashes on stable (tests/fuzz_corpus.rs).
fuzz:
	@bash scripts/fuzz.sh

# Regenerates the fuzz seed corpus (fuzz/seeds/) from tests/scenarios/*.json.
fuzz-seeds:
	SGC_WRITE_FUZZ_SEEDS=1 $(CARGO) test --test fuzz_corpus seed_corpus

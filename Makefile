# streams-group-coordinator: `make demo` and `make test` work on a fresh machine; both run
# `make setup` first, which installs only what is missing.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: update-scenarios setup demo test fmt-check clippy test-rust test-wasm-unit test-js test-wasi test-browser pkg wasi playground bench

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

# Rewrites tests/scenarios/*.out.jsonl from the native core; review the diff before committing.
update-scenarios:
	UPDATE_SCENARIOS=1 $(CARGO) test --test scenarios

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

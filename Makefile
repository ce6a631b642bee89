# streams-group-coordinator: `make demo` and `make test` work on a fresh machine. `make setup`
# (and `make test`) installs everything missing; every other target installs only the parts it
# uses (scripts/setup.sh PART...): `make demo` needs only cargo.
SHELL := /bin/bash
CARGO ?= cargo

PHONY_SERVER := test-clients serve-load
PHONY_DIFF := kafka-diff
PHONY_NISSHI := test-nisshi
.PHONY: $(PHONY_SERVER) $(PHONY_DIFF) $(PHONY_NISSHI) update-scenarios setup demo test web fmt-check clippy test-rust test-wasm-unit test-js test-wasi test-browser pkg wasi playground bench bench-faces fuzz fuzz-seeds

setup:
	@bash scripts/setup.sh

demo:
	@bash scripts/setup.sh cargo
	@$(CARGO) run --quiet --example demo -- examples/demo/three-instances.jsonl

test: setup fmt-check clippy test-rust test-wasm-unit test-js test-wasi test-browser test-clients

fmt-check:
	$(CARGO) fmt --all -- --check
	$(CARGO) fmt --manifest-path examples/wasi-host/rust/Cargo.toml -- --check

# The core, the CLI and the WASI ABI natively; the binding crates again on their wasm targets.
clippy:
	@bash scripts/setup.sh wasm
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy -p sgc-wasm --target wasm32-unknown-unknown -- -D warnings
	$(CARGO) clippy -p sgc-wasi -p sgc-cli --target wasm32-wasip1 -- -D warnings

# Streams groups in Nisshi (crates/sgc-nisshi, a workspace of its own; docs/nisshi.md): builds
# Nisshi's dependencies (several minutes the first time), so `make test` does not run it.
test-nisshi:
	@bash scripts/setup.sh cargo nightly clients
	cd crates/sgc-nisshi && nice -n 19 $(CARGO) test

test-rust:
	$(CARGO) test --lib --bins --tests --examples
	$(CARGO) test --doc

# The core's unit tests again, compiled to wasm32 and run in Node (no -q: TOOLCHAIN P10).
test-wasm-unit:
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner $(CARGO) test --target wasm32-unknown-unknown -p streams-group-coordinator --lib

# Rewrites tests/scenarios/*.out.jsonl from the native core; review the diff before committing.
update-scenarios:
	@bash scripts/setup.sh cargo
	UPDATE_SCENARIOS=1 $(CARGO) test --test scenarios

# Random client sequences answered by sgc and by Kafka's own coordinator of each release
# (tools/kafka-diff/README.md): make kafka-diff ORACLE=../shared/kafka-oracle [DIFF_ARGS=...]
kafka-diff:
	@bash scripts/setup.sh cargo
	$(CARGO) build --release -p sgc-cli
	python3 tools/kafka-diff/kafka-diff.py --oracle "$(ORACLE)" $(DIFF_ARGS)

bench:
	@bash scripts/setup.sh cargo
	$(CARGO) bench

# The same steady heartbeat through every face in one run, as a table it also writes into
# docs/performance.md (between its bench-faces markers).
bench-faces: pkg
	@bash scripts/setup.sh node python browser
	@bash scripts/build-wasi-host.sh
	@bash scripts/bench-faces.sh

pkg: wasi
	@bash scripts/setup.sh wasm wasm-bindgen npm-tools
	@bash scripts/build-pkg.sh

# Only the web build of the package: all the playground needs.
web:
	@bash scripts/setup.sh wasm wasm-bindgen npm-tools
	@bash scripts/build-pkg.sh web

test-js: pkg
	@bash scripts/test-js.sh

wasi:
	@bash scripts/setup.sh wasm npm-tools
	@bash scripts/build-wasi.sh

test-wasi: wasi
	@bash scripts/setup.sh node python
	@bash scripts/test-wasi.sh

playground: web
	@bash scripts/playground.sh

# `sgc serve` on this machine: steady-heartbeat throughput and latency over loopback, the
# core's cost beside the server's, and the restart of a 1 GB log (docs/server.md).
serve-load:
	@bash scripts/setup.sh cargo
	$(CARGO) build --release --bin sgc
	$(CARGO) run --release -p sgc-server --example load -- --sgc target/release/sgc $(LOAD_ARGS)

# `sgc serve` against Kafka clients this project did not write (librdkafka: kcat and the
# confluent-kafka admin client).
test-clients:
	@bash scripts/setup.sh clients
	@bash scripts/test-clients.sh

test-browser: pkg
	@bash scripts/setup.sh browser
	@bash scripts/test-browser.sh

# Every fuzz target for FUZZ_SECONDS (default 60) each, on nightly; not part of `make test`,
# which replays the committed seeds and past crashes on stable (tests/fuzz_corpus.rs).
fuzz:
	@bash scripts/fuzz.sh

# Regenerates the fuzz seed corpus (fuzz/seeds/) from tests/scenarios/*.json.
fuzz-seeds:
	SGC_WRITE_FUZZ_SEEDS=1 $(CARGO) test --test fuzz_corpus seed_corpus

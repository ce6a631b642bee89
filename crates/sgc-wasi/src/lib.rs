//! The coordinator as a WASI plugin: `sgc-reactor.wasm`, the `sgc_*` ABI of docs/wasi-abi.md,
//! for brokers written in other languages: JSON inputs, or Kafka's request frames as they
//! arrive on a connection (ABI version 3).
//!
//! [`abi`] is the ABI's bookkeeping (allocations, handles, outputs, statuses) in safe,
//! target-independent Rust, unit-tested natively; on `wasm32-wasip1` the `extern "C"` exports
//! (`exports.rs`) forward to it. The only `unsafe` of the crate is the call of the linker's
//! constructors in `_initialize`.
#![deny(unsafe_code)]

pub mod abi;

#[cfg(all(target_arch = "wasm32", target_os = "wasi"))]
#[allow(unsafe_code)]
mod exports;

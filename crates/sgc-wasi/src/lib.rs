//! The coordinator as a WASI plugin: `sgc-reactor.wasm`, the `sgc_*` ABI of docs/wasi-abi.md,
//! for brokers written in other languages: JSON inputs, or Kafka's request frames as they
//! arrive on a connection (ABI version 3), routed to the coordinators of a broker's partitions
//! by the host kit (ABI version 4).
//!
//! [`abi`] is the ABI's bookkeeping (allocations, handles, outputs, statuses) in safe,
//! target-independent Rust, unit-tested natively, and [`host`] its host-kit calls; on `wasm32-wasip1` the `extern "C"` exports
//! (`exports.rs`) forward to it. The only `unsafe` of the crate is the call of the linker's
//! constructors in `_initialize`.
#![deny(unsafe_code)]

pub mod abi;
pub mod host;

#[cfg(all(target_arch = "wasm32", target_os = "wasi"))]
#[allow(unsafe_code)]
mod exports;

//! Host bindings: thin layers over the core that know how to talk to a host. Only this folder
//! may use wasm-bindgen, js-sys or `unsafe`.
#![cfg_attr(target_arch = "wasm32", allow(unsafe_code))]

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod js;

#[cfg(all(target_arch = "wasm32", target_os = "wasi", feature = "reactor"))]
pub mod wasi;

/// The WASI plugin ABI's bookkeeping in safe Rust, on every target (the reactor's exports
/// forward to it; natively it is unit-tested and usable as a model of the ABI).
pub mod wasi_abi;

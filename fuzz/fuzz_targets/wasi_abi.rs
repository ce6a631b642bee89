#![no_main]
//! See `fuzz/src/wasi_abi.rs` for the input layout and the invariants checked.

#[path = "../src/wasi_abi.rs"]
mod body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::wasi_abi(data));

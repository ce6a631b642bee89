#![no_main]
//! See `sgc_fuzz::record_bytes` for the input layout and the invariants checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| sgc_fuzz::record_bytes(data));

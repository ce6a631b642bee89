#![no_main]
//! See `sgc_fuzz::frames` for the input layout and the invariants checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| sgc_fuzz::frames(data));

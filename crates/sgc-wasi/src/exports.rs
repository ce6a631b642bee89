//! The `sgc_*` plugin ABI of the WASI reactor module (`wasm32-wasip1`), for brokers written in
//! other languages (DESIGN 5, docs/wasi-abi.md).
//!
//! A thin `extern "C"` layer: every export forwards to one [`Abi`] (`abi.rs`, safe Rust,
//! unit-tested natively), which owns the allocation table, the handles and the outputs. The
//! only `unsafe` here is the call of the linker's constructors in `_initialize`; pointers
//! arrive as plain `usize` offsets and are only ever looked up in the table.
//!
//! Version 1: `sgc_alloc`, `sgc_free`, `sgc_create`, `sgc_destroy`, `sgc_call`,
//! `sgc_output_ptr`, `sgc_output_len`. Version 2 adds `sgc_call2` (one call per request, the
//! answer packed in an `i64`), `sgc_free_checked` and `sgc_realloc`.

use std::cell::RefCell;

use crate::abi::{Abi, Answer, FREE_NOT_ALLOCATED, STATUS_INTERNAL_ERROR};

thread_local! {
    static ABI: RefCell<Abi> = RefCell::new(Abi::new());
}

/// Runs `f` on the instance's state; `fallback` if the state is busy (a re-entrant call, which
/// no import can make today) so that no export ever panics.
fn with_abi<T>(fallback: T, f: impl FnOnce(&mut Abi) -> T) -> T {
    ABI.with(|cell| match cell.try_borrow_mut() {
        Ok(mut abi) => f(&mut abi),
        Err(_) => fallback,
    })
}

extern "C" {
    fn __wasm_call_ctors();
}

/// Runs static constructors once; hosts call it right after instantiation (TOOLCHAIN P12).
#[no_mangle]
pub extern "C" fn _initialize() {
    // SAFETY: the linker-provided constructor function takes no arguments and is called once,
    // before any other export, as the WASI reactor convention requires.
    unsafe { __wasm_call_ctors() }
}

/// Marker export of ABI version 1; it returns 1.
#[no_mangle]
pub extern "C" fn sgc_abi_version_1() -> i32 {
    1
}

/// Marker export of ABI version 2 (`sgc_call2`, `sgc_free_checked`, `sgc_realloc`); it returns 2.
#[no_mangle]
pub extern "C" fn sgc_abi_version_2() -> i32 {
    2
}

/// Allocates `len` zeroed bytes for the host to write into; 0 when `len` is 0 or too large.
#[no_mangle]
pub extern "C" fn sgc_alloc(len: usize) -> usize {
    with_abi(0, |abi| abi.alloc(len))
}

/// Frees a buffer from `sgc_alloc(len)`; anything else is ignored (see `sgc_free_checked`).
#[no_mangle]
pub extern "C" fn sgc_free(ptr: usize, len: usize) {
    with_abi(FREE_NOT_ALLOCATED, |abi| abi.free(ptr, len));
}

/// Frees a buffer from `sgc_alloc(len)`: 0 freed, 1 not a live allocation, 2 wrong length;
/// on 1 and 2 nothing changed.
#[no_mangle]
pub extern "C" fn sgc_free_checked(ptr: usize, len: usize) -> i32 {
    with_abi(FREE_NOT_ALLOCATED, |abi| abi.free(ptr, len))
}

/// Replaces the allocation `(ptr, len)` by one of `new_len` bytes keeping the common prefix;
/// 0 (and the old buffer untouched) on failure; `ptr` 0 with `len` 0 allocates.
#[no_mangle]
pub extern "C" fn sgc_realloc(ptr: usize, len: usize, new_len: usize) -> usize {
    with_abi(0, |abi| abi.realloc(ptr, len, new_len))
}

/// Creates a coordinator from UTF-8 JSON settings (`len` 0 = defaults); 0 on error, with the
/// boundary error as the output.
#[no_mangle]
pub extern "C" fn sgc_create(cfg_ptr: usize, cfg_len: usize) -> u32 {
    with_abi(0, |abi| abi.create(cfg_ptr, cfg_len))
}

/// Drops a coordinator; unknown handles are ignored.
#[no_mangle]
pub extern "C" fn sgc_destroy(handle: u32) {
    with_abi(false, |abi| abi.destroy(handle));
}

/// Version 1: handles one input (UTF-8 JSON) on `handle`; the output is at
/// `sgc_output_ptr()` / `sgc_output_len()`.
#[no_mangle]
pub extern "C" fn sgc_call(handle: u32, in_ptr: usize, in_len: usize) -> i32 {
    with_abi(STATUS_INTERNAL_ERROR, |abi| {
        abi.call(handle, in_ptr, in_len)
    })
}

/// Where version 1's last output starts.
#[no_mangle]
pub extern "C" fn sgc_output_ptr() -> usize {
    with_abi(0, |abi| abi.output().0)
}

/// The length in bytes of version 1's last output.
#[no_mangle]
pub extern "C" fn sgc_output_len() -> usize {
    with_abi(0, |abi| abi.output().1)
}

/// Version 2: handles one input on `handle` and answers status, output address and length in
/// one `i64` (bits 62-63, 0-31, 32-61); the output stays valid until the next `sgc_call2` or
/// `sgc_destroy` of the same handle.
#[no_mangle]
pub extern "C" fn sgc_call2(handle: u32, in_ptr: usize, in_len: usize) -> i64 {
    let refused = Answer {
        status: STATUS_INTERNAL_ERROR,
        ptr: 0,
        len: 0,
    };
    let packed = with_abi(refused, |abi| abi.call2(handle, in_ptr, in_len)).packed();
    i64::from_ne_bytes(packed.to_ne_bytes())
}

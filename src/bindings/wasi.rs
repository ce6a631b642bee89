//! The `sgc_*` plugin ABI of the WASI reactor module (`wasm32-wasip1`), for brokers written in
//! other languages (DESIGN 5, docs/wasi-abi.md).
//!
//! The host copies UTF-8 JSON into guest memory it got from `sgc_alloc`, calls `sgc_create` or
//! `sgc_call`, and reads the answer at `sgc_output_ptr()` / `sgc_output_len()`, valid until the
//! next call. Several coordinators (handles) may live in one instance, one per
//! `__consumer_offsets` partition the broker hosts.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::api::boundary_error_json;
use crate::error::{BoundaryCode, BoundaryError};
use crate::Coordinator;

/// Status of `sgc_call`: the output is a regular output.
pub const STATUS_OK: i32 = 0;
/// The input could not be understood; the output is `{"error": ...}`.
pub const STATUS_INPUT_ERROR: i32 = 1;
/// The call itself was wrong (unknown handle, pointer outside memory); the output says why.
pub const STATUS_INTERNAL_ERROR: i32 = 2;

#[derive(Default)]
struct State {
    next_handle: u32,
    coordinators: BTreeMap<u32, Coordinator>,
    output: Vec<u8>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
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

/// Marker export: its presence names the ABI version; it returns 1.
#[no_mangle]
pub extern "C" fn sgc_abi_version_1() -> i32 {
    1
}

/// Allocates `len` bytes for the host to write into; 0 when `len` is 0 or too large.
#[no_mangle]
pub extern "C" fn sgc_alloc(len: usize) -> *mut u8 {
    if len == 0 || len > isize::MAX as usize / 2 {
        return std::ptr::null_mut();
    }
    let mut buf: Vec<u8> = Vec::new();
    if buf.try_reserve_exact(len).is_err() {
        return std::ptr::null_mut();
    }
    // A boxed slice has exactly `len` bytes, so `sgc_free` can rebuild it from `(ptr, len)`.
    buf.resize(len, 0);
    let mut buf = buf.into_boxed_slice();
    let ptr = buf.as_mut_ptr();
    std::mem::forget(buf);
    ptr
}

/// Frees memory from `sgc_alloc(len)`; other pointers are ignored where detectable.
#[no_mangle]
pub extern "C" fn sgc_free(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len == 0 || !in_memory(ptr, len) {
        return;
    }
    // SAFETY: the host contract is that `(ptr, len)` came from `sgc_alloc(len)`, which leaked a
    // boxed slice of exactly `len` bytes at `ptr`; rebuilding and dropping it frees it once.
    unsafe {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)));
    }
}

/// Creates a coordinator from UTF-8 JSON settings (`len` 0 = defaults); 0 on error, with the
/// boundary error as the output.
#[no_mangle]
pub extern "C" fn sgc_create(cfg_ptr: *const u8, cfg_len: usize) -> u32 {
    let text = match read_input(cfg_ptr, cfg_len) {
        Ok(t) => t,
        Err((_, e)) => {
            set_output(boundary_error_json(&e).to_string());
            return 0;
        }
    };
    let config = if text.trim().is_empty() {
        Ok(serde_json::Value::Null)
    } else {
        serde_json::from_str(&text).map_err(|e| {
            BoundaryError::new(
                BoundaryCode::InvalidConfig,
                "",
                format!("malformed JSON: {e}"),
            )
        })
    };
    match config.and_then(|c| Coordinator::from_json_config(&c)) {
        Ok(coordinator) => STATE.with(|s| {
            let mut s = s.borrow_mut();
            s.next_handle = s.next_handle.wrapping_add(1).max(1);
            while s.coordinators.contains_key(&s.next_handle) {
                s.next_handle = s.next_handle.wrapping_add(1).max(1);
            }
            let handle = s.next_handle;
            s.coordinators.insert(handle, coordinator);
            s.output.clear();
            handle
        }),
        Err(e) => {
            set_output(boundary_error_json(&e).to_string());
            0
        }
    }
}

/// Drops a coordinator; unknown handles are ignored.
#[no_mangle]
pub extern "C" fn sgc_destroy(handle: u32) {
    STATE.with(|s| s.borrow_mut().coordinators.remove(&handle));
}

/// Handles one input (UTF-8 JSON) on `handle`; see the status constants.
#[no_mangle]
pub extern "C" fn sgc_call(handle: u32, in_ptr: *const u8, in_len: usize) -> i32 {
    let text = match read_input(in_ptr, in_len) {
        Ok(t) => t,
        Err((status, e)) => {
            set_output(boundary_error_json(&e).to_string());
            return status;
        }
    };
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let Some(coordinator) = s.coordinators.get_mut(&handle) else {
            let e = BoundaryError::input("", format!("unknown coordinator handle {handle}"));
            s.output = boundary_error_json(&e).to_string().into_bytes();
            return STATUS_INTERNAL_ERROR;
        };
        let out = coordinator.handle_json(&text);
        let status = if out.starts_with("{\"error\":") {
            STATUS_INPUT_ERROR
        } else {
            STATUS_OK
        };
        s.output = out.into_bytes();
        status
    })
}

/// Where the last output starts.
#[no_mangle]
pub extern "C" fn sgc_output_ptr() -> *const u8 {
    STATE.with(|s| s.borrow().output.as_ptr())
}

/// The length in bytes of the last output.
#[no_mangle]
pub extern "C" fn sgc_output_len() -> usize {
    STATE.with(|s| s.borrow().output.len())
}

fn set_output(text: String) {
    STATE.with(|s| s.borrow_mut().output = text.into_bytes());
}

/// Whether `[ptr, ptr + len)` lies inside linear memory.
fn in_memory(ptr: *const u8, len: usize) -> bool {
    let size = core::arch::wasm32::memory_size(0).saturating_mul(65_536);
    (ptr as usize)
        .checked_add(len)
        .is_some_and(|end| end <= size)
}

/// Copies the host's bytes out of linear memory as UTF-8.
fn read_input(ptr: *const u8, len: usize) -> Result<String, (i32, BoundaryError)> {
    if len == 0 {
        return Ok(String::new());
    }
    if ptr.is_null() || !in_memory(ptr, len) {
        return Err((
            STATUS_INTERNAL_ERROR,
            BoundaryError::input(
                "",
                format!(
                    "the input [{}, +{len}) lies outside linear memory",
                    ptr as usize
                ),
            ),
        ));
    }
    // SAFETY: the range was checked to lie inside linear memory, which is always readable in
    // wasm, and it is copied at once, so no reference outlives this call or aliases a Rust
    // object mutably (the host owns that buffer between calls).
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec();
    String::from_utf8(bytes).map_err(|e| {
        (
            STATUS_INPUT_ERROR,
            BoundaryError::input("", format!("the input is not UTF-8: {e}")),
        )
    })
}

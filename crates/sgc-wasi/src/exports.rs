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
//! answer packed in an `i64`), `sgc_free_checked` and `sgc_realloc`. Version 3 adds Kafka's
//! wire protocol: `sgc_call_frame` (a request frame in, the response frame and the output's
//! other fields out, answered as `sgc_call2`), `sgc_encode_request` and `sgc_decode_response`.
//! Version 4 adds the host kit (`host.rs`): `sgc_route_request`, `sgc_merge_responses`,
//! `sgc_error_response`, `sgc_answer_api_versions` and `sgc_is_mine`. Version 5 adds
//! `sgc_call_frame_authorized` (`sgc_call_frame` behind Kafka's authorization, the principal's
//! decisions as a JSON allow-list).

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

/// Marker export of ABI version 3 (`sgc_call_frame`, `sgc_encode_request`,
/// `sgc_decode_response`); it returns 3.
#[no_mangle]
pub extern "C" fn sgc_abi_version_3() -> i32 {
    3
}

/// Marker export of ABI version 4 (the host kit: `sgc_route_request`, `sgc_merge_responses`,
/// `sgc_error_response`, `sgc_answer_api_versions`, `sgc_is_mine`); it returns 4.
#[no_mangle]
pub extern "C" fn sgc_abi_version_4() -> i32 {
    4
}

/// Marker export of ABI version 5 (`sgc_call_frame_authorized`); it returns 5.
#[no_mangle]
pub extern "C" fn sgc_abi_version_5() -> i32 {
    5
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
/// one `i64` (bits 62-63, 0-31, 32-61); the output stays valid until the next version 2 or 3
/// call or `sgc_destroy` of the same handle.
#[no_mangle]
pub extern "C" fn sgc_call2(handle: u32, in_ptr: usize, in_len: usize) -> i64 {
    packed(|abi| abi.call2(handle, in_ptr, in_len))
}

/// A version 2 or 3 answer as the `i64` the host reads; status 2 when the state is busy.
fn packed(f: impl FnOnce(&mut Abi) -> Answer) -> i64 {
    let refused = Answer {
        status: STATUS_INTERNAL_ERROR,
        ptr: 0,
        len: 0,
    };
    i64::from_ne_bytes(with_abi(refused, f).packed().to_ne_bytes())
}

/// Version 3: handles one Kafka request frame (header and body, without the 4-byte size) on
/// `handle` at `now_ms`, from the client whose address is the UTF-8 text at `host_ptr`
/// (`host_len` 0: none). Answered as `sgc_call2`; status 0's output is the response frame
/// after its 4-byte size, then the JSON of the output's other fields.
#[no_mangle]
pub extern "C" fn sgc_call_frame(
    handle: u32,
    frame_ptr: usize,
    frame_len: usize,
    now_ms: i64,
    host_ptr: usize,
    host_len: usize,
) -> i64 {
    packed(|abi| abi.call_frame(handle, (frame_ptr, frame_len), now_ms, (host_ptr, host_len)))
}

/// Version 5: `sgc_call_frame` behind Kafka's authorization: the request's principal is
/// allowed what the UTF-8 JSON allow-list at `decisions_ptr` grants (docs/authorization.md);
/// a client that is not allowed is answered as Kafka answers it. Answered as `sgc_call_frame`;
/// decisions that do not read are status 1 (`INVALID_INPUT` at `decisions`).
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn sgc_call_frame_authorized(
    handle: u32,
    frame_ptr: usize,
    frame_len: usize,
    now_ms: i64,
    host_ptr: usize,
    host_len: usize,
    decisions_ptr: usize,
    decisions_len: usize,
) -> i64 {
    packed(|abi| {
        abi.call_frame_authorized(
            handle,
            (frame_ptr, frame_len),
            now_ms,
            (host_ptr, host_len),
            (decisions_ptr, decisions_len),
        )
    })
}

/// Version 3: the request frame of a JSON input (`nowMs` may be left out) at `api_version`
/// with `correlation_id`, in `handle`'s dialect. Answered as `sgc_call2`.
#[no_mangle]
pub extern "C" fn sgc_encode_request(
    handle: u32,
    in_ptr: usize,
    in_len: usize,
    api_version: i32,
    correlation_id: i32,
) -> i64 {
    packed(|abi| abi.encode_request(handle, (in_ptr, in_len), api_version, correlation_id))
}

/// Version 3: a response frame of `api_key` at `api_version` read as
/// `{"correlationId", "response"}` in `handle`'s dialect. Answered as `sgc_call2`.
#[no_mangle]
pub extern "C" fn sgc_decode_response(
    handle: u32,
    api_key: i32,
    api_version: i32,
    frame_ptr: usize,
    frame_len: usize,
) -> i64 {
    packed(|abi| abi.decode_response(handle, (api_key, api_version), (frame_ptr, frame_len)))
}

/// Version 4: where the request frame at `frame_ptr` goes among `partitions`
/// `__consumer_offsets` partitions, in `handle`'s dialect. Answered as `sgc_call2`; status 0's
/// output is the route's JSON after its int32 length, then each part's frame after its size.
#[no_mangle]
pub extern "C" fn sgc_route_request(
    handle: u32,
    frame_ptr: usize,
    frame_len: usize,
    partitions: i32,
) -> i64 {
    packed(|abi| abi.route_request(handle, (frame_ptr, frame_len), partitions))
}

/// Version 4: the response to a request `sgc_route_request` split, from its parts' responses
/// at `answers_ptr` (each after its int32 size, in the order of the parts). Answered as
/// `sgc_call2`; status 0's output is the response frame after its size.
#[no_mangle]
pub extern "C" fn sgc_merge_responses(
    handle: u32,
    frame_ptr: usize,
    frame_len: usize,
    partitions: i32,
    answers_ptr: usize,
    answers_len: usize,
) -> i64 {
    packed(|abi| {
        let (frame, answers) = ((frame_ptr, frame_len), (answers_ptr, answers_len));
        abi.merge_responses(handle, frame, partitions, answers)
    })
}

/// Version 4: the response answering the request frame with `error_code` for every group it
/// names. Answered as `sgc_call2`; status 0's output is the response frame after its size.
#[no_mangle]
pub extern "C" fn sgc_error_response(
    handle: u32,
    frame_ptr: usize,
    frame_len: usize,
    error_code: i32,
) -> i64 {
    packed(|abi| abi.error_response(handle, (frame_ptr, frame_len), error_code))
}

/// Version 4: the `ApiVersions` response with the host's APIs (JSON at `apis_ptr`; `apis_len`
/// 0: none), a shared API at the versions both serve. Answered as `sgc_call2`; status 0's
/// output is the response frame after its size.
#[no_mangle]
pub extern "C" fn sgc_answer_api_versions(
    handle: u32,
    frame_ptr: usize,
    frame_len: usize,
    apis_ptr: usize,
    apis_len: usize,
) -> i64 {
    packed(|abi| abi.answer_api_versions(handle, (frame_ptr, frame_len), (apis_ptr, apis_len)))
}

/// Version 4: whether the group named at `group_ptr` is in the JSON list of partitions at
/// `owned_ptr`, of `partitions`. Answered as `sgc_call2`; status 0's output is
/// `{"partition", "mine"}`.
#[no_mangle]
pub extern "C" fn sgc_is_mine(
    handle: u32,
    group_ptr: usize,
    group_len: usize,
    partitions: i32,
    owned_ptr: usize,
    owned_len: usize,
) -> i64 {
    packed(|abi| {
        let (group, owned) = ((group_ptr, group_len), (owned_ptr, owned_len));
        abi.is_mine(handle, group, partitions, owned)
    })
}

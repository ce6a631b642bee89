//! The `sgc_*` plugin ABI (docs/wasi-abi.md) as safe, target-independent Rust: the allocation
//! table, the handle table, the outputs and every status. The `wasm32-wasip1` reactor
//! (`exports.rs`) is a thin `extern "C"` layer over one [`Abi`]; natively the same
//! logic runs in unit tests, with heap addresses standing in for linear-memory offsets.
//!
//! Addresses are `usize` here. On wasm32 they are the guest's linear-memory offsets, and every
//! buffer a host may read or write is one this table owns:
//!
//! - **Allocations** from [`Abi::alloc`] / [`Abi::realloc`], keyed by their start address. A free
//!   of anything else (null, an address never handed out, an address already freed, an interior
//!   address, an output buffer, an address outside memory, a wrong length) changes nothing and
//!   answers a status ([`FREE_NOT_ALLOCATED`], [`FREE_WRONG_LENGTH`]).
//! - **Inputs** are read only from inside a live allocation (any sub-range of one), in place,
//!   without a copy; anything else answers [`STATUS_INTERNAL_ERROR`].
//! - **Outputs** belong to the guest: version 1 has one output for the instance, versions 2
//!   and 3 one per handle (so one handle never moves another handle's output) plus one for
//!   calls that name no live handle.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use serde_json::Value;
use streams_group_coordinator::api::{boundary_error_json, Input};
use streams_group_coordinator::wire::authz::{Authorizer, Decisions};
use streams_group_coordinator::wire::{self, Peer};
use streams_group_coordinator::Coordinator;
use streams_group_coordinator::{BoundaryCode, BoundaryError};

/// Status of `sgc_call` / `sgc_call2`: the output is a regular output.
pub const STATUS_OK: i32 = 0;
/// The input could not be understood; the output is `{"error": ...}`; nothing changed.
pub const STATUS_INPUT_ERROR: i32 = 1;
/// The call itself was wrong (unknown handle, an input outside every `sgc_alloc` buffer, an
/// output too large to describe); the output says why; nothing changed.
pub const STATUS_INTERNAL_ERROR: i32 = 2;

/// `sgc_free_checked`: the allocation was freed.
pub const FREE_OK: i32 = 0;
/// No live allocation starts at this address (null, never handed out, already freed, an
/// interior address, an output buffer, outside memory); nothing changed.
pub const FREE_NOT_ALLOCATED: i32 = 1;
/// A live allocation starts at this address but has another length; nothing changed.
pub const FREE_WRONG_LENGTH: i32 = 2;

/// The largest buffer `sgc_alloc` hands out, and the largest output `sgc_call2` can describe
/// (its length has 30 bits in the packed result): 1 GiB - 1.
pub const MAX_LEN: usize = (1 << 30) - 1;

/// What `sgc_call2` answers: a status and where its output lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: i32,
    pub ptr: usize,
    pub len: usize,
}

impl Answer {
    /// The answer as `sgc_call2` returns it: bits 0-31 the output's address, bits 32-61 its
    /// length, bits 62-63 the status. Unrepresentable answers (an address above 32 bits, which
    /// cannot happen on wasm32, a length above [`MAX_LEN`] or an unknown status) become status 2
    /// with address and length 0.
    pub fn packed(&self) -> u64 {
        match (
            u32::try_from(self.ptr),
            u64::try_from(self.len),
            u64::try_from(self.status),
        ) {
            (Ok(ptr), Ok(len), Ok(status)) if self.len <= MAX_LEN && status <= 2 => {
                (status << 62) | (len << 32) | u64::from(ptr)
            }
            _ => (STATUS_INTERNAL_ERROR as u64) << 62,
        }
    }

    /// Reads a packed answer back (what a host does).
    pub fn unpack(packed: u64) -> Answer {
        Answer {
            status: ((packed >> 62) & 3) as i32,
            ptr: (packed & 0xFFFF_FFFF) as usize,
            len: ((packed >> 32) & 0x3FFF_FFFF) as usize,
        }
    }
}

struct Slot {
    coordinator: Coordinator,
    /// The handle's last output of a version 2 or 3 call (`sgc_call2`, `sgc_call_frame`,
    /// `sgc_encode_request`, `sgc_decode_response`).
    output: Vec<u8>,
    /// What `sgc_call_frame` keeps from one frame to the next (no allocation for a steady
    /// heartbeat).
    frames: Frames,
}

/// The live allocations, by start address.
pub(crate) type Allocations = BTreeMap<usize, Box<[u8]>>;

/// One plugin instance: what a reactor module holds between export calls.
#[derive(Default)]
pub struct Abi {
    allocations: Allocations,
    coordinators: BTreeMap<u32, Slot>,
    next_handle: u32,
    /// Version 1's output: the last `sgc_create` error or `sgc_call` output.
    output: Vec<u8>,
    /// Version 2's output for a call that names no live handle.
    stray: Vec<u8>,
}

impl Abi {
    pub fn new() -> Abi {
        Abi::default()
    }

    /// `sgc_alloc`: a zeroed buffer of `len` bytes; 0 when `len` is 0, above [`MAX_LEN`], or
    /// memory is exhausted.
    pub fn alloc(&mut self, len: usize) -> usize {
        if len == 0 || len > MAX_LEN {
            return 0;
        }
        let mut buf: Vec<u8> = Vec::new();
        if buf.try_reserve_exact(len).is_err() {
            return 0;
        }
        buf.resize(len, 0);
        let buf = buf.into_boxed_slice();
        let ptr = buf.as_ptr() as usize;
        self.allocations.insert(ptr, buf);
        ptr
    }

    /// `sgc_free_checked`: frees a live allocation of exactly `len` bytes at `ptr`; anything
    /// else changes nothing and answers why.
    pub fn free(&mut self, ptr: usize, len: usize) -> i32 {
        match self.allocations.get(&ptr) {
            None => FREE_NOT_ALLOCATED,
            Some(buf) if buf.len() != len => FREE_WRONG_LENGTH,
            Some(_) => {
                self.allocations.remove(&ptr);
                FREE_OK
            }
        }
    }

    /// `sgc_realloc`: a buffer of `new_len` bytes holding the first `min(len, new_len)` bytes of
    /// the live allocation `(ptr, len)`, which is freed. `ptr` 0 (with `len` 0) allocates. On
    /// failure (not a live allocation of that length, `new_len` 0 or too large, memory
    /// exhausted) it answers 0 and the old buffer stays as it was.
    pub fn realloc(&mut self, ptr: usize, len: usize, new_len: usize) -> usize {
        if ptr == 0 && len == 0 {
            return self.alloc(new_len);
        }
        if self.allocations.get(&ptr).map(|b| b.len()) != Some(len) {
            return 0;
        }
        let new_ptr = self.alloc(new_len);
        if new_ptr == 0 {
            return 0;
        }
        if let Some(old) = self.allocations.remove(&ptr) {
            let keep = len.min(new_len);
            if let (Some(dst), Some(src)) = (self.allocations.get_mut(&new_ptr), old.get(..keep)) {
                if let Some(dst) = dst.get_mut(..keep) {
                    dst.copy_from_slice(src);
                }
            }
        }
        new_ptr
    }

    /// `sgc_create`: a coordinator from the JSON settings at `(ptr, len)` (`len` 0 = defaults);
    /// 0 with the boundary error as version 1's output.
    pub fn create(&mut self, ptr: usize, len: usize) -> u32 {
        let config = match input(&self.allocations, ptr, len) {
            Ok(text) if text.trim().is_empty() => Ok(serde_json::Value::Null),
            Ok(text) => serde_json::from_str(text).map_err(|e| {
                BoundaryError::new(
                    BoundaryCode::InvalidConfig,
                    "",
                    format!("malformed JSON: {e}"),
                )
            }),
            Err((_, e)) => Err(e),
        };
        match config.and_then(|c| Coordinator::from_json_config(&c)) {
            Ok(coordinator) => {
                self.next_handle = self.next_handle.wrapping_add(1).max(1);
                while self.coordinators.contains_key(&self.next_handle) {
                    self.next_handle = self.next_handle.wrapping_add(1).max(1);
                }
                let handle = self.next_handle;
                self.coordinators.insert(
                    handle,
                    Slot {
                        coordinator,
                        output: Vec::new(),
                        frames: Frames::default(),
                    },
                );
                self.output.clear();
                handle
            }
            Err(e) => {
                self.output = error_bytes(&e);
                0
            }
        }
    }

    /// `sgc_destroy`: drops a coordinator and its version 2 output; whether it existed.
    pub fn destroy(&mut self, handle: u32) -> bool {
        self.coordinators.remove(&handle).is_some()
    }

    /// Whether `handle` names a live coordinator.
    pub fn has_handle(&self, handle: u32) -> bool {
        self.coordinators.contains_key(&handle)
    }

    /// `sgc_call` (version 1): handles the input at `(ptr, len)` on `handle`; the output
    /// replaces version 1's output ([`Abi::output`]).
    pub fn call(&mut self, handle: u32, ptr: usize, len: usize) -> i32 {
        let (status, out) = match input(&self.allocations, ptr, len) {
            Err((status, e)) => (status, error_bytes(&e)),
            Ok(text) => match self.coordinators.get_mut(&handle) {
                None => (STATUS_INTERNAL_ERROR, unknown_handle(handle)),
                Some(slot) => handle_text(&mut slot.coordinator, text),
            },
        };
        self.output = out;
        status
    }

    /// Version 1's output: `(address, length)` of the last `sgc_create` error or `sgc_call`
    /// output (`sgc_output_ptr`, `sgc_output_len`).
    pub fn output(&self) -> (usize, usize) {
        (self.output.as_ptr() as usize, self.output.len())
    }

    /// `sgc_call2` (version 2): handles the input at `(ptr, len)` on `handle`. The output is
    /// the handle's own buffer, valid until the next version 2 or 3 call or `sgc_destroy` of
    /// that handle; a call naming no live handle answers in the instance's stray buffer instead.
    pub fn call2(&mut self, handle: u32, ptr: usize, len: usize) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            match input(allocations, ptr, len) {
                Err((status, e)) => (status, error_bytes(&e)),
                Ok(text) => handle_text(coordinator, text),
            }
        })
    }

    /// `sgc_call_frame` (version 3): handles the Kafka request frame at `(ptr, len)` (header
    /// and body, without the 4-byte size) on `handle` at `now_ms`, from the client at the UTF-8
    /// address text `(host_ptr, host_len)` (`host_len` 0: none). Status 0's output is the
    /// response frame with Kafka's 4-byte big-endian size before it, then the JSON of the
    /// output's other fields ([`frame_output`]); a frame Kafka would close the connection on
    /// is status 1 (`INVALID_FRAME`) and changes nothing. Where the output lies: as `call2`.
    pub fn call_frame(
        &mut self,
        handle: u32,
        frame: (usize, usize),
        now_ms: i64,
        host: (usize, usize),
    ) -> Answer {
        self.frame_call(handle, frame, now_ms, host, None)
    }

    /// `sgc_call_frame_authorized` (version 5): [`Abi::call_frame`] behind Kafka's
    /// authorization, the request's principal allowed what the JSON allow-list at
    /// `(decisions_ptr, decisions_len)` grants (`Decisions`' JSON form,
    /// docs/authorization.md). A client that is not allowed is answered as Kafka answers it
    /// (`GROUP_AUTHORIZATION_FAILED`, ...), status 0; decisions that do not read are status 1
    /// (`INVALID_INPUT` at `decisions`) and change nothing.
    pub fn call_frame_authorized(
        &mut self,
        handle: u32,
        frame: (usize, usize),
        now_ms: i64,
        host: (usize, usize),
        decisions: (usize, usize),
    ) -> Answer {
        self.frame_call(handle, frame, now_ms, host, Some(decisions))
    }

    /// `sgc_call_frame`, with the allow-list at `decisions` when there is one.
    fn frame_call(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        now_ms: i64,
        (host_ptr, host_len): (usize, usize),
        decisions: Option<(usize, usize)>,
    ) -> Answer {
        let Some(slot) = self.coordinators.get_mut(&handle) else {
            self.stray = unknown_handle(handle);
            return answer(STATUS_INTERNAL_ERROR, &self.stray);
        };
        let frame = bytes(&self.allocations, ptr, len);
        let host = bytes(&self.allocations, host_ptr, host_len).and_then(|b| utf8(b, "clientHost"));
        let decisions = decisions
            .map(|(ptr, len)| read_decisions(&self.allocations, ptr, len))
            .transpose();
        // The answer is written into the handle's output buffer, its capacity kept.
        let mut out = std::mem::take(&mut slot.output);
        let status = match (frame, host, decisions) {
            (Err((status, e)), _, _) | (_, Err((status, e)), _) | (_, _, Err((status, e))) => {
                out = error_bytes(&e);
                status
            }
            (Ok(frame), Ok(host), Ok(decisions)) => {
                let call = (frame, now_ms, host);
                let authorizer = decisions.as_ref().map(|d| d as &dyn Authorizer);
                frame_output(
                    &mut slot.coordinator,
                    &mut slot.frames,
                    call,
                    authorizer,
                    &mut out,
                )
            }
        };
        let (status, out) = bound_output(status, out, MAX_LEN);
        slot.output = out;
        answer(status, &slot.output)
    }

    /// `sgc_encode_request` (version 3): the request frame (without the size) a client sends
    /// for the JSON input at `(ptr, len)` (a coordinator input; `nowMs` may be left out) at
    /// `api_version` with `correlation_id`, in `handle`'s dialect. Status 1 when the input
    /// cannot be understood or is no request the dialect serves at that version.
    pub fn encode_request(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        api_version: i32,
        correlation_id: i32,
    ) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            let dialect = coordinator.config().dialect;
            let encoded = input(allocations, ptr, len).and_then(|text| {
                request_frame(dialect, text, api_version, correlation_id)
                    .map_err(|e| (STATUS_INPUT_ERROR, e))
            });
            match encoded {
                Ok(frame) => (STATUS_OK, frame),
                Err((status, e)) => (status, error_bytes(&e)),
            }
        })
    }

    /// `sgc_decode_response` (version 3): the response frame at `(ptr, len)` (without the
    /// size) of API `api_key` at `api_version`, read as `{"correlationId", "response"}`, the
    /// response in Kafka's JSON form of the message; status 1 for bytes that do not read.
    pub fn decode_response(
        &mut self,
        handle: u32,
        (api_key, api_version): (i32, i32),
        (ptr, len): (usize, usize),
    ) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            let dialect = coordinator.config().dialect;
            let read = bytes(allocations, ptr, len).and_then(|frame| {
                let key = short(api_key, "apiKey")?;
                let version = short(api_version, "apiVersion")?;
                wire::response_json(dialect, key, version, frame)
                    .map_err(|e| (STATUS_INPUT_ERROR, e))
            });
            match read {
                Ok((correlation_id, response)) => {
                    let out = serde_json::json!({
                        "correlationId": correlation_id,
                        "response": response,
                    });
                    (STATUS_OK, out.to_string().into_bytes())
                }
                Err((status, e)) => (status, error_bytes(&e)),
            }
        })
    }

    /// A version 2 or 3 call on `handle`: `f`'s status and output become the handle's output;
    /// a call naming no live handle answers status 2 in the stray buffer.
    pub(crate) fn on_handle(
        &mut self,
        handle: u32,
        f: impl FnOnce(&Allocations, &mut Coordinator) -> (i32, Vec<u8>),
    ) -> Answer {
        let Some(slot) = self.coordinators.get_mut(&handle) else {
            self.stray = unknown_handle(handle);
            return answer(STATUS_INTERNAL_ERROR, &self.stray);
        };
        let (status, out) = f(&self.allocations, &mut slot.coordinator);
        let (status, out) = bound_output(status, out, MAX_LEN);
        slot.output = out;
        answer(status, &slot.output)
    }

    /// Copies `bytes` into a live allocation at `ptr` (any address inside it), as a host
    /// writes into linear memory; false, writing nothing, when the range is not inside one.
    pub fn write(&mut self, ptr: usize, bytes: &[u8]) -> bool {
        let Some((&start, buf)) = self.allocations.range_mut(..=ptr).next_back() else {
            return false;
        };
        let Some(dst) = ptr
            .checked_sub(start)
            .and_then(|off| Some(off..off.checked_add(bytes.len())?))
            .and_then(|range| buf.get_mut(range))
        else {
            return false;
        };
        dst.copy_from_slice(bytes);
        true
    }

    /// The bytes at `(ptr, len)` if they lie inside a buffer of this instance (an allocation or
    /// an output), as a host reads linear memory.
    pub fn read(&self, ptr: usize, len: usize) -> Option<&[u8]> {
        if let Some((&start, buf)) = self.allocations.range(..=ptr).next_back() {
            if let Some(bytes) = inside(buf, start, ptr, len) {
                return Some(bytes);
            }
        }
        std::iter::once(&self.output)
            .chain(std::iter::once(&self.stray))
            .chain(self.coordinators.values().map(|s| &s.output))
            .find_map(|buf| inside(buf, buf.as_ptr() as usize, ptr, len))
    }

    /// The number of live allocations (for tests and leak checks).
    pub fn live_allocations(&self) -> usize {
        self.allocations.len()
    }
}

/// `buf` starts at `start`; the part of it at `(ptr, len)` if it lies wholly inside.
fn inside(buf: &[u8], start: usize, ptr: usize, len: usize) -> Option<&[u8]> {
    let off = ptr.checked_sub(start)?;
    buf.get(off..off.checked_add(len)?)
}

/// The bytes at `(ptr, len)`, in place: `len` 0 is no bytes; otherwise the range must lie
/// inside one live allocation.
pub(crate) fn bytes(
    allocations: &Allocations,
    ptr: usize,
    len: usize,
) -> Result<&[u8], (i32, BoundaryError)> {
    if len == 0 {
        return Ok(&[]);
    }
    allocations
        .range(..=ptr)
        .next_back()
        .and_then(|(&start, buf)| inside(buf, start, ptr, len))
        .ok_or_else(|| {
            (
                STATUS_INTERNAL_ERROR,
                BoundaryError::input(
                    "",
                    format!("the input [{ptr}, +{len}) is not inside a buffer from sgc_alloc"),
                ),
            )
        })
}

/// `bytes` as text; `path` names them in the error.
pub(crate) fn utf8<'a>(bytes: &'a [u8], path: &str) -> Result<&'a str, (i32, BoundaryError)> {
    std::str::from_utf8(bytes).map_err(|e| {
        let what = if path.is_empty() { "the input" } else { path };
        (
            STATUS_INPUT_ERROR,
            BoundaryError::input(path, format!("{what} is not UTF-8: {e}")),
        )
    })
}

/// The authorization decisions at `(ptr, len)`: `Decisions`' JSON form (UTF-8); status 1
/// (`INVALID_INPUT` at `decisions`) for text that does not read as one.
fn read_decisions(
    allocations: &Allocations,
    ptr: usize,
    len: usize,
) -> Result<Decisions, (i32, BoundaryError)> {
    let text = utf8(bytes(allocations, ptr, len)?, "decisions")?;
    Decisions::from_json(text).map_err(|message| {
        (
            STATUS_INPUT_ERROR,
            BoundaryError::input("decisions", message),
        )
    })
}

/// The input at `(ptr, len)`, in place: `len` 0 is the empty text; otherwise the range must lie
/// inside one live allocation and be UTF-8.
fn input(allocations: &Allocations, ptr: usize, len: usize) -> Result<&str, (i32, BoundaryError)> {
    utf8(bytes(allocations, ptr, len)?, "")
}

/// A 16-bit field of the wire (an API key or version) given as an `i32`.
pub(crate) fn short(value: i32, path: &str) -> Result<i16, (i32, BoundaryError)> {
    i16::try_from(value).map_err(|_| {
        (
            STATUS_INPUT_ERROR,
            BoundaryError::input(path, format!("{value} is not a 16-bit integer")),
        )
    })
}

/// What a handle keeps for `sgc_call_frame` from one frame to the next: the frame's decoded
/// request, the response frame and the client's address, each reused.
#[derive(Debug, Default)]
pub struct Frames {
    scratch: wire::FrameScratch,
    response: Vec<u8>,
    peer: Peer,
}

/// What `sgc_call_frame` answers for `frame` at `now_ms` from `client_host`, written into
/// `out` (cleared first), and its status: status 0 with the response frame, size first
/// (Kafka's int32, big-endian: the bytes to write to the connection as they are), followed by
/// the JSON object `{"records", "topicsToCreate", "explain", "nextDeadlineMs"}` of the JSON
/// face's output (its `response` is the frame); or status 1 with the boundary error, and
/// nothing changed. With an `authorizer`, the frame is handled behind Kafka's authorization
/// (`wire::handle_frame_authorized`).
pub fn frame_output(
    coordinator: &mut Coordinator,
    frames: &mut Frames,
    (frame, now_ms, client_host): (&[u8], i64, &str),
    authorizer: Option<&dyn Authorizer>,
    out: &mut Vec<u8>,
) -> i32 {
    out.clear();
    if now_ms < 0 {
        let e = BoundaryError::input("nowMs", "must be a non-negative integer");
        *out = error_bytes(&e);
        return STATUS_INPUT_ERROR;
    }
    frames.peer.client_host.clear();
    frames.peer.client_host.push_str(client_host);
    let Frames {
        scratch,
        response,
        peer,
    } = frames;
    let handled = match authorizer {
        None => wire::handle_frame_with(coordinator, scratch, frame, now_ms, peer, response),
        Some(authorizer) => {
            let broker = wire::Broker {
                topics: None,
                authorizer,
            };
            wire::handle_frame_authorized(
                coordinator,
                scratch,
                frame,
                now_ms,
                peer,
                response,
                broker,
            )
        }
    };
    let output = match handled {
        Ok(output) => output,
        Err(e) => {
            *out = error_bytes(&e);
            return STATUS_INPUT_ERROR;
        }
    };
    let Ok(size) = i32::try_from(response.len()) else {
        let e = BoundaryError::input("", "the response frame is longer than Kafka's int32 size");
        *out = error_bytes(&e);
        return STATUS_INTERNAL_ERROR;
    };
    let config = coordinator.config();
    out.reserve(4 + response.len());
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(response);
    // The other fields, written after the frame in the one buffer (no JSON tree).
    if !output.append_fields_json(config.dialect, config.record_bytes, out) {
        let e = BoundaryError::input("", "the output could not be written as JSON");
        *out = error_bytes(&e);
        return STATUS_INTERNAL_ERROR;
    }
    STATUS_OK
}

/// The request frame of the JSON input `text` (`nowMs` may be left out) in `dialect`.
fn request_frame(
    dialect: streams_group_coordinator::Dialect,
    text: &str,
    api_version: i32,
    correlation_id: i32,
) -> Result<Vec<u8>, BoundaryError> {
    let mut value = streams_group_coordinator::api::json_tree(text, "")?;
    if let Value::Object(map) = &mut value {
        map.entry("nowMs").or_insert(Value::from(0));
    }
    let input = Input::from_value(&value)?;
    let version = i16::try_from(api_version).map_err(|_| {
        BoundaryError::input(
            "apiVersion",
            format!("{api_version} is not a 16-bit integer"),
        )
    })?;
    wire::encode_request(dialect, &input.kind, version, correlation_id).ok_or_else(|| {
        BoundaryError::input(
            "type",
            format!(
                "no request frame: a {} input is no request {} serves at version {version}",
                input_type(&value),
                dialect.name()
            ),
        )
    })
}

/// The `type` of a JSON input, for messages.
fn input_type(value: &Value) -> &str {
    value.get("type").and_then(Value::as_str).unwrap_or("")
}

fn handle_text(coordinator: &mut Coordinator, text: &str) -> (i32, Vec<u8>) {
    let out = coordinator.handle_json(text);
    let status = if out.starts_with("{\"error\":") {
        STATUS_INPUT_ERROR
    } else {
        STATUS_OK
    };
    (status, out.into_bytes())
}

/// An output longer than `max` cannot be described by a packed answer: it becomes an error.
fn bound_output(status: i32, out: Vec<u8>, max: usize) -> (i32, Vec<u8>) {
    if out.len() <= max {
        return (status, out);
    }
    let e = BoundaryError::input(
        "",
        format!(
            "the output has {} bytes, more than sgc_call2 can describe ({max}); the input was handled",
            out.len()
        ),
    );
    (STATUS_INTERNAL_ERROR, error_bytes(&e))
}

fn answer(status: i32, out: &[u8]) -> Answer {
    Answer {
        status,
        ptr: out.as_ptr() as usize,
        len: out.len(),
    }
}

pub(crate) fn error_bytes(e: &BoundaryError) -> Vec<u8> {
    boundary_error_json(e).to_string().into_bytes()
}

fn unknown_handle(handle: u32) -> Vec<u8> {
    error_bytes(&BoundaryError::input(
        "",
        format!("unknown coordinator handle {handle}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const ADVANCE: &[u8] = br#"{"nowMs": 5, "type": "AdvanceTime"}"#;

    fn join(member: &str) -> Vec<u8> {
        json!({"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": member, "memberEpoch": 0, "topologyId": "t",
            "processId": "p", "rebalanceTimeoutMs": 1000,
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
        .to_string()
        .into_bytes()
    }

    /// Allocates and fills a buffer, as a host does.
    fn put(abi: &mut Abi, bytes: &[u8]) -> usize {
        let ptr = abi.alloc(bytes.len());
        assert_ne!(ptr, 0);
        assert!(abi.write(ptr, bytes));
        ptr
    }

    fn json_at(abi: &Abi, ptr: usize, len: usize) -> Value {
        serde_json::from_slice(abi.read(ptr, len).expect("inside a buffer")).expect("JSON")
    }

    fn created(abi: &mut Abi, config: Option<Value>) -> u32 {
        let text = config.map(|c| c.to_string()).unwrap_or_default();
        let ptr = if text.is_empty() {
            0
        } else {
            put(abi, text.as_bytes())
        };
        let h = abi.create(ptr, text.len());
        assert_ne!(h, 0);
        if ptr != 0 {
            assert_eq!(abi.free(ptr, text.len()), FREE_OK);
        }
        h
    }

    #[test]
    fn alloc_and_free_round_trip() {
        let mut abi = Abi::new();
        let p = abi.alloc(16);
        assert_ne!(p, 0);
        assert_eq!(abi.read(p, 16), Some(&[0u8; 16][..]));
        assert_eq!(abi.live_allocations(), 1);
        assert_eq!(abi.free(p, 16), FREE_OK);
        assert_eq!(abi.live_allocations(), 0);
    }

    #[test]
    fn alloc_refuses_zero_and_too_large() {
        let mut abi = Abi::new();
        assert_eq!(abi.alloc(0), 0);
        assert_eq!(abi.alloc(MAX_LEN + 1), 0);
        assert_eq!(abi.alloc(usize::MAX), 0);
        assert_eq!(abi.live_allocations(), 0);
    }

    #[test]
    fn every_bad_free_changes_nothing_and_answers_a_status() {
        let mut abi = Abi::new();
        let h = created(&mut abi, None);
        let p = put(&mut abi, ADVANCE);
        let n = ADVANCE.len();
        assert_eq!(abi.call(h, p, n), STATUS_OK);
        let (out_ptr, out_len) = abi.output();
        let before = abi.read(out_ptr, out_len).map(<[u8]>::to_vec);
        let q = abi.alloc(8);

        assert_eq!(abi.free(0, n), FREE_NOT_ALLOCATED, "null");
        assert_eq!(abi.free(0, 0), FREE_NOT_ALLOCATED, "null, length 0");
        assert_eq!(abi.free(out_ptr, out_len), FREE_NOT_ALLOCATED, "own output");
        assert_eq!(abi.free(p + 1, n - 1), FREE_NOT_ALLOCATED, "interior");
        assert_eq!(abi.free(p, n + 1), FREE_WRONG_LENGTH, "too long");
        assert_eq!(abi.free(p, n - 1), FREE_WRONG_LENGTH, "too short");
        assert_eq!(abi.free(p, 0), FREE_WRONG_LENGTH, "length 0");
        assert_eq!(abi.free(usize::MAX, 1), FREE_NOT_ALLOCATED, "out of memory");
        assert_eq!(abi.free(usize::MAX - 3, 1 << 20), FREE_NOT_ALLOCATED);

        // Nothing changed: both allocations are live and hold their bytes, the output is intact,
        // and the coordinator still answers.
        assert_eq!(abi.live_allocations(), 2);
        assert_eq!(abi.read(p, n), Some(ADVANCE));
        assert_eq!(abi.read(out_ptr, out_len).map(<[u8]>::to_vec), before);
        assert_eq!(abi.call(h, p, n), STATUS_OK);

        assert_eq!(abi.free(p, n), FREE_OK);
        assert_eq!(abi.free(p, n), FREE_NOT_ALLOCATED, "double free");
        assert_eq!(abi.live_allocations(), 1);
        assert_eq!(abi.free(q, 8), FREE_OK);
        assert_eq!(abi.live_allocations(), 0);
    }

    #[test]
    fn a_freed_buffer_is_no_longer_an_input() {
        let mut abi = Abi::new();
        let h = created(&mut abi, None);
        let p = put(&mut abi, ADVANCE);
        assert_eq!(abi.free(p, ADVANCE.len()), FREE_OK);
        assert_eq!(abi.call(h, p, ADVANCE.len()), STATUS_INTERNAL_ERROR);
        assert!(!abi.write(p, b"x"));
        let answer = abi.call2(h, p, ADVANCE.len());
        assert_eq!(answer.status, STATUS_INTERNAL_ERROR);
        let out = json_at(&abi, answer.ptr, answer.len);
        assert!(out["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not inside a buffer from sgc_alloc")));
    }

    #[test]
    fn realloc_keeps_the_prefix_and_frees_the_old_buffer() {
        let mut abi = Abi::new();
        let p = put(&mut abi, b"abcdef");
        let q = abi.realloc(p, 6, 10);
        assert_ne!(q, 0);
        assert_eq!(abi.read(q, 10), Some(&b"abcdef\0\0\0\0"[..]));
        assert_eq!(abi.free(p, 6), FREE_NOT_ALLOCATED, "the old buffer is gone");
        let r = abi.realloc(q, 10, 3);
        assert_eq!(abi.read(r, 3), Some(&b"abc"[..]));
        assert_eq!(abi.live_allocations(), 1);
        // ptr 0 allocates.
        let s = abi.realloc(0, 0, 4);
        assert_ne!(s, 0);
        assert_eq!(abi.live_allocations(), 2);
    }

    #[test]
    fn realloc_of_something_not_handed_out_changes_nothing() {
        let mut abi = Abi::new();
        let p = put(&mut abi, b"abcdef");
        assert_eq!(abi.realloc(p, 5, 10), 0, "wrong length");
        assert_eq!(abi.realloc(p + 1, 5, 10), 0, "interior");
        assert_eq!(abi.realloc(usize::MAX, 1, 10), 0, "outside memory");
        assert_eq!(abi.realloc(p, 6, 0), 0, "new length 0");
        assert_eq!(abi.realloc(p, 6, MAX_LEN + 1), 0, "too large");
        assert_eq!(abi.live_allocations(), 1);
        assert_eq!(abi.read(p, 6), Some(&b"abcdef"[..]));
        assert_eq!(abi.free(p, 6), FREE_OK);
    }

    #[test]
    fn inputs_must_lie_inside_one_allocation() {
        let mut abi = Abi::new();
        let h = created(&mut abi, None);
        let mut padded = b"xx".to_vec();
        padded.extend_from_slice(ADVANCE);
        padded.extend_from_slice(b"yy");
        let p = put(&mut abi, &padded);
        let n = ADVANCE.len();
        assert_eq!(abi.call(h, p + 2, n), STATUS_OK, "a sub-range is fine");
        assert_eq!(abi.call2(h, p + 2, n).status, STATUS_OK);
        for (ptr, len) in [
            (p + 3, n + 2),
            (0, n),
            (usize::MAX, 1),
            (p, usize::MAX),
            (usize::MAX - 1, 4),
        ] {
            assert_eq!(abi.call(h, ptr, len), STATUS_INTERNAL_ERROR, "{ptr} +{len}");
            assert_eq!(abi.call2(h, ptr, len).status, STATUS_INTERNAL_ERROR);
        }
        // The v1 output of a failed call is an error saying why.
        let (ptr, len) = abi.output();
        assert_eq!(json_at(&abi, ptr, len)["error"]["code"], "INVALID_INPUT");
        // An output is not an input.
        let answer = abi.call2(h, p + 2, n);
        assert_eq!(
            abi.call2(h, answer.ptr, answer.len).status,
            STATUS_INTERNAL_ERROR
        );
    }

    #[test]
    fn statuses_of_calls() {
        let mut abi = Abi::new();
        let h = created(&mut abi, None);
        let bad = put(&mut abi, b"{not json");
        assert_eq!(abi.call(h, bad, 9), STATUS_INPUT_ERROR);
        assert_eq!(abi.call2(h, bad, 9).status, STATUS_INPUT_ERROR);
        let latin1 = put(&mut abi, b"\xff\xfe");
        assert_eq!(abi.call(h, latin1, 2), STATUS_INPUT_ERROR);
        assert_eq!(abi.call2(h, latin1, 2).status, STATUS_INPUT_ERROR);
        assert_eq!(abi.call(h, 0, 0), STATUS_INPUT_ERROR, "the empty input");
        let p = put(&mut abi, ADVANCE);
        assert_eq!(abi.call(h + 41, p, ADVANCE.len()), STATUS_INTERNAL_ERROR);
        let (ptr, len) = abi.output();
        assert!(json_at(&abi, ptr, len)["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown coordinator handle")));
        let answer = abi.call2(h + 41, p, ADVANCE.len());
        assert_eq!(answer.status, STATUS_INTERNAL_ERROR);
        assert!(json_at(&abi, answer.ptr, answer.len)["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown coordinator handle")));
        assert!(abi.destroy(h));
        assert!(!abi.destroy(h));
        assert_eq!(abi.call2(h, p, ADVANCE.len()).status, STATUS_INTERNAL_ERROR);
    }

    #[test]
    fn create_answers_errors_in_the_v1_output() {
        let mut abi = Abi::new();
        let cfg = br#"{"group.streams.session.timeout.ms": -5}"#;
        let p = put(&mut abi, cfg);
        assert_eq!(abi.create(p, cfg.len()), 0);
        let (ptr, len) = abi.output();
        assert_eq!(json_at(&abi, ptr, len)["error"]["code"], "INVALID_CONFIG");
        assert_eq!(abi.create(usize::MAX, 3), 0, "outside memory");
        let q = put(&mut abi, b"{bad");
        assert_eq!(abi.create(q, 4), 0);
        let (ptr, len) = abi.output();
        assert_eq!(json_at(&abi, ptr, len)["error"]["code"], "INVALID_CONFIG");
        assert_ne!(abi.create(0, 0), 0, "defaults");
    }

    #[test]
    fn call2_gives_what_handle_json_gives() {
        let mut abi = Abi::new();
        let h = created(
            &mut abi,
            Some(json!({"group.streams.heartbeat.interval.ms": 7000})),
        );
        let mut native =
            Coordinator::from_json_config(&json!({"group.streams.heartbeat.interval.ms": 7000}))
                .expect("config");
        for input in [join("m1"), join("m2"), ADVANCE.to_vec()] {
            let p = put(&mut abi, &input);
            let answer = abi.call2(h, p, input.len());
            assert_eq!(answer.status, STATUS_OK);
            let expected = native.handle_json(std::str::from_utf8(&input).expect("UTF-8"));
            assert_eq!(abi.read(answer.ptr, answer.len), Some(expected.as_bytes()));
            assert_eq!(abi.free(p, input.len()), FREE_OK);
        }
    }

    #[test]
    fn one_handle_never_disturbs_another() {
        let mut abi = Abi::new();
        let a = created(&mut abi, None);
        let b = created(
            &mut abi,
            Some(json!({"group.streams.heartbeat.interval.ms": 7000})),
        );
        let input = join("m");
        let p = put(&mut abi, &input);
        let answer_a = abi.call2(a, p, input.len());
        let bytes_a = abi.read(answer_a.ptr, answer_a.len).map(<[u8]>::to_vec);
        // Calls on b, good and bad, a v1 call, bad frees and a failed create leave a's
        // output where it was, byte for byte.
        let answer_b = abi.call2(b, p, input.len());
        assert_eq!(
            json_at(&abi, answer_b.ptr, answer_b.len)["response"]["heartbeatIntervalMs"],
            7000
        );
        assert_eq!(abi.call2(b, usize::MAX, 4).status, STATUS_INTERNAL_ERROR);
        assert_eq!(
            abi.call2(b + 7, p, input.len()).status,
            STATUS_INTERNAL_ERROR
        );
        assert_eq!(abi.call(b, p, input.len()), STATUS_OK);
        assert_eq!(abi.free(answer_a.ptr, answer_a.len), FREE_NOT_ALLOCATED);
        assert_eq!(abi.create(p, 3), 0);
        assert_eq!(
            abi.read(answer_a.ptr, answer_a.len).map(<[u8]>::to_vec),
            bytes_a
        );
        let out_a: Value = serde_json::from_slice(&bytes_a.unwrap_or_default()).expect("JSON");
        assert_eq!(out_a["response"]["heartbeatIntervalMs"], 5000);
        let describe =
            br#"{"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}"#;
        let d = put(&mut abi, describe);
        assert!(abi.destroy(b));
        let answer = abi.call2(a, d, describe.len());
        let out = json_at(&abi, answer.ptr, answer.len);
        assert_eq!(out["response"]["groups"][0]["members"][0]["memberId"], "m");
        assert_eq!(out["response"]["groups"][0]["groupEpoch"], 1);
    }

    /// ApiVersions version 0 from client `c`, correlation id 5, written by hand.
    const API_VERSIONS_V0: &[u8] = &[0, 18, 0, 0, 0, 0, 0, 5, 0, 1, b'c'];

    /// A version 3 answer's output split into the response frame (after its size) and the JSON
    /// of the other fields.
    fn frame_and_fields(abi: &Abi, a: Answer) -> (Vec<u8>, Value) {
        assert_eq!(a.status, STATUS_OK, "{}", json_at(abi, a.ptr, a.len));
        let out = abi.read(a.ptr, a.len).expect("inside a buffer");
        let size = i32::from_be_bytes([out[0], out[1], out[2], out[3]]);
        let end = 4 + usize::try_from(size).expect("a size");
        let fields = serde_json::from_slice(&out[end..]).expect("JSON after the frame");
        (out[4..end].to_vec(), fields)
    }

    fn call_frame(abi: &mut Abi, h: u32, frame: &[u8], now_ms: i64, host: &str) -> Answer {
        let p = if frame.is_empty() { 0 } else { put(abi, frame) };
        let q = if host.is_empty() {
            0
        } else {
            put(abi, host.as_bytes())
        };
        let a = abi.call_frame(h, (p, frame.len()), now_ms, (q, host.len()));
        if p != 0 {
            assert_eq!(abi.free(p, frame.len()), FREE_OK);
        }
        if q != 0 {
            assert_eq!(abi.free(q, host.len()), FREE_OK);
        }
        a
    }

    fn encode(abi: &mut Abi, h: u32, input: &[u8], version: i32, correlation: i32) -> Answer {
        let p = put(abi, input);
        let a = abi.encode_request(h, (p, input.len()), version, correlation);
        assert_eq!(abi.free(p, input.len()), FREE_OK);
        a
    }

    fn decode(abi: &mut Abi, h: u32, key: i32, version: i32, frame: &[u8]) -> Answer {
        let p = put(abi, frame);
        let a = abi.decode_response(h, (key, version), (p, frame.len()));
        assert_eq!(abi.free(p, frame.len()), FREE_OK);
        a
    }

    #[test]
    fn api_versions_is_answered_through_a_frame() {
        for dialect in ["kip1071-draft", "kafka-4.2", "kafka-4.4"] {
            let mut abi = Abi::new();
            let h = created(&mut abi, Some(json!({ "dialect": dialect })));
            let a = call_frame(&mut abi, h, API_VERSIONS_V0, 1, "");
            let (frame, fields) = frame_and_fields(&abi, a);
            assert_eq!(
                fields,
                json!({"records": [], "topicsToCreate": [], "explain": [], "nextDeadlineMs": null})
            );
            let d = decode(&mut abi, h, 18, 0, &frame);
            let read = json_at(&abi, d.ptr, d.len);
            assert_eq!(read["correlationId"], 5);
            assert_eq!(read["response"]["errorCode"], 0);
            let keys: Vec<i64> = read["response"]["apiKeys"]
                .as_array()
                .expect("apiKeys")
                .iter()
                .filter_map(|k| k["apiKey"].as_i64())
                .collect();
            let dialect = streams_group_coordinator::Dialect::from_name(dialect).expect("known");
            let served: Vec<i64> = wire::served(dialect)
                .iter()
                .map(|a| i64::from(a.key))
                .collect();
            assert_eq!(keys, served, "{dialect:?}");
        }
    }

    #[test]
    fn a_join_built_by_encoding_answers_as_the_json_face() {
        for dialect in ["kip1071-draft", "kafka-4.2"] {
            let config = json!({ "dialect": dialect });
            let mut abi = Abi::new();
            let h = created(&mut abi, Some(config.clone()));
            let mut native = Coordinator::from_json_config(&config).expect("config");
            let mut input: Value = serde_json::from_slice(&join("m")).expect("JSON");
            input["client"] = json!({"clientId": "app-1", "clientHost": "/10.0.0.1"});
            if dialect != "kip1071-draft" {
                let request = input["request"].as_object_mut().expect("request");
                request.remove("topologyId");
                request.insert("topology".into(), json!({"epoch": 0, "subtopologies": []}));
                request.insert("endpointInformationEpoch".into(), json!(0));
            }
            let text = input.to_string();
            let e = encode(&mut abi, h, text.as_bytes(), 0, 41);
            assert_eq!(e.status, STATUS_OK, "{}", json_at(&abi, e.ptr, e.len));
            let request = abi.read(e.ptr, e.len).expect("the frame").to_vec();
            let key = i16::from_be_bytes([request[0], request[1]]);
            assert_eq!(key, if dialect == "kafka-4.2" { 88 } else { 89 });
            let a = call_frame(&mut abi, h, &request, 1, "/10.0.0.1");
            let (frame, fields) = frame_and_fields(&abi, a);
            let mut expected: Value =
                serde_json::from_str(&native.handle_json(&text)).expect("JSON");
            let response = expected
                .as_object_mut()
                .and_then(|o| o.remove("response"))
                .expect("a response");
            assert_eq!(fields, expected, "{dialect}");
            assert!(fields["records"].to_string().contains("/10.0.0.1"));
            let d = decode(&mut abi, h, i32::from(key), 0, &frame);
            let read = json_at(&abi, d.ptr, d.len);
            assert_eq!(read["correlationId"], 41);
            assert_eq!(read["response"]["memberId"], "m");
            assert_eq!(read["response"]["errorCode"], response["errorCode"]);
            assert_eq!(read["response"]["memberEpoch"], response["memberEpoch"]);
        }
    }

    /// A kafka-4.2 join of group `g` (an empty topology) as the JSON input and its frame.
    fn join_42(abi: &mut Abi, h: u32) -> (String, Vec<u8>) {
        let mut input: Value = serde_json::from_slice(&join("m")).expect("JSON");
        let request = input["request"].as_object_mut().expect("request");
        request.remove("topologyId");
        request.insert("topology".into(), json!({"epoch": 0, "subtopologies": []}));
        request.insert("endpointInformationEpoch".into(), json!(0));
        let text = input.to_string();
        let e = encode(abi, h, text.as_bytes(), 0, 7);
        assert_eq!(e.status, STATUS_OK, "{}", json_at(abi, e.ptr, e.len));
        (text, abi.read(e.ptr, e.len).expect("the frame").to_vec())
    }

    fn call_frame_authorized(abi: &mut Abi, h: u32, frame: &[u8], decisions: &str) -> Answer {
        let p = put(abi, frame);
        let d = if decisions.is_empty() {
            0
        } else {
            put(abi, decisions.as_bytes())
        };
        let a = abi.call_frame_authorized(h, (p, frame.len()), 1, (0, 0), (d, decisions.len()));
        assert_eq!(abi.free(p, frame.len()), FREE_OK);
        if d != 0 {
            assert_eq!(abi.free(d, decisions.len()), FREE_OK);
        }
        a
    }

    #[test]
    fn a_frame_is_answered_behind_the_decisions() {
        let config = json!({"dialect": "kafka-4.2"});
        let mut abi = Abi::new();
        let h = created(&mut abi, Some(config.clone()));
        let (text, request) = join_42(&mut abi, h);
        // Nothing granted: the group's READ is denied, and the join changes nothing.
        let a = call_frame_authorized(&mut abi, h, &request, r#"{"allow": []}"#);
        let (frame, fields) = frame_and_fields(&abi, a);
        assert_eq!(fields["records"], json!([]));
        let d = decode(&mut abi, h, 88, 0, &frame);
        let read = json_at(&abi, d.ptr, d.len);
        assert_eq!(read["response"]["errorCode"], 30, "{read}");
        // The group's READ granted: answered as the JSON face answers the join.
        let grant = r#"{"allow": [{"operation": "READ", "resourceType": "GROUP", "name": "g"}]}"#;
        let a = call_frame_authorized(&mut abi, h, &request, grant);
        let (frame, fields) = frame_and_fields(&abi, a);
        let mut native = Coordinator::from_json_config(&config).expect("config");
        let mut expected: Value = serde_json::from_str(&native.handle_json(&text)).expect("JSON");
        expected.as_object_mut().map(|o| o.remove("response"));
        assert_eq!(fields, expected);
        let d = decode(&mut abi, h, 88, 0, &frame);
        assert_eq!(json_at(&abi, d.ptr, d.len)["response"]["errorCode"], 0);
        // A super user is allowed everything.
        let a = call_frame_authorized(&mut abi, h, &request, r#"{"superUser": true}"#);
        assert_eq!(a.status, STATUS_OK);
    }

    #[test]
    fn decisions_that_do_not_read_are_status_1_and_change_nothing() {
        let mut abi = Abi::new();
        let h = created(&mut abi, Some(json!({"dialect": "kafka-4.2"})));
        let (_, request) = join_42(&mut abi, h);
        for bad in [
            "",
            "not JSON",
            "[]",
            r#"{"allow": [{"operation": "READ", "resourceType": "GROUP"}]}"#,
            r#"{"allow": [{"operation": "EAT", "resourceType": "GROUP", "name": "g"}]}"#,
            r#"{"superUser": true, "deny": []}"#,
            "\u{ff}",
        ] {
            let a = call_frame_authorized(&mut abi, h, &request, bad);
            assert_eq!(a.status, STATUS_INPUT_ERROR, "{bad}");
            let out = json_at(&abi, a.ptr, a.len);
            assert_eq!(out["error"]["code"], "INVALID_INPUT", "{out}");
            assert_eq!(out["error"]["path"], "decisions", "{out}");
        }
        let latin1 = put(&mut abi, b"\xff");
        let p = put(&mut abi, &request);
        let a = abi.call_frame_authorized(h, (p, request.len()), 1, (0, 0), (latin1, 1));
        assert_eq!(a.status, STATUS_INPUT_ERROR);
        assert_eq!(json_at(&abi, a.ptr, a.len)["error"]["path"], "decisions");
        let a = abi.call_frame_authorized(h, (p, request.len()), 1, (0, 0), (usize::MAX, 4));
        assert_eq!(a.status, STATUS_INTERNAL_ERROR);
        let a = abi.call_frame_authorized(h + 9, (p, request.len()), 1, (0, 0), (0, 0));
        assert_eq!(a.status, STATUS_INTERNAL_ERROR);
        // Nothing changed: the join is still the group's first.
        let a = call_frame_authorized(&mut abi, h, &request, r#"{"superUser": true}"#);
        let (_, fields) = frame_and_fields(&abi, a);
        assert!(fields["records"].to_string().contains("\"m\""), "{fields}");
    }

    #[test]
    fn a_bad_frame_is_status_1_and_changes_nothing() {
        let mut abi = Abi::new();
        let h = created(&mut abi, None);
        let mut control = Coordinator::from_json_config(&Value::Null).expect("config");
        let e = encode(&mut abi, h, &join("m"), 0, 1);
        let request = abi.read(e.ptr, e.len).expect("the frame").to_vec();
        let mut unknown = request.clone();
        unknown[1] = 0; // API key 0 (Produce)
        let mut unsupported = request.clone();
        unsupported[3] = 99; // version 99
        let cut = &request[..request.len() - 3];
        for (frame, path) in [
            (&request[..5], "header"),
            (cut, ""),
            (&unknown[..], "header.RequestApiKey"),
            (&unsupported[..], "header.RequestApiVersion"),
            (&[][..], "header"),
        ] {
            let a = call_frame(&mut abi, h, frame, 1, "");
            assert_eq!(a.status, STATUS_INPUT_ERROR, "{path}");
            let out = json_at(&abi, a.ptr, a.len);
            assert_eq!(out["error"]["code"], "INVALID_FRAME", "{out}");
            let at = out["error"]["path"].as_str().expect("a path");
            assert!(at.starts_with(path), "{at} for {path:?}");
        }
        let a = call_frame(&mut abi, h, &request, -1, "");
        assert_eq!(a.status, STATUS_INPUT_ERROR);
        assert_eq!(json_at(&abi, a.ptr, a.len)["error"]["path"], "nowMs");
        let latin1 = put(&mut abi, b"\xff");
        let p = put(&mut abi, &request);
        let a = abi.call_frame(h, (p, request.len()), 1, (latin1, 1));
        assert_eq!(a.status, STATUS_INPUT_ERROR);
        assert_eq!(json_at(&abi, a.ptr, a.len)["error"]["path"], "clientHost");
        for (frame, host) in [
            ((usize::MAX, 4), (0, 0)),
            ((p, request.len()), (p + 1, request.len())),
        ] {
            assert_eq!(
                abi.call_frame(h, frame, 1, host).status,
                STATUS_INTERNAL_ERROR
            );
        }
        let a = abi.call_frame(h + 9, (p, request.len()), 1, (0, 0));
        assert_eq!(a.status, STATUS_INTERNAL_ERROR);
        assert!(json_at(&abi, a.ptr, a.len)["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown coordinator handle")));
        // Nothing changed: the join answers as on a coordinator that saw none of it.
        let a = abi.call_frame(h, (p, request.len()), 1, (0, 0));
        let (_, fields) = frame_and_fields(&abi, a);
        let expected: Value = serde_json::from_str(
            &control.handle_json(std::str::from_utf8(&join("m")).expect("UTF-8")),
        )
        .expect("JSON");
        assert_eq!(fields["records"], expected["records"]);
        assert_eq!(fields["explain"], expected["explain"]);
    }

    #[test]
    fn encode_and_decode_refuse_what_they_cannot_do() {
        let mut abi = Abi::new();
        let h = created(&mut abi, Some(json!({"dialect": "kafka-4.2"})));
        for (input, version, path) in [
            (ADVANCE, 0, "type"),
            (&b"{not json"[..], 0, ""),
            (&join("m")[..], 99, "type"),
            (&join("m")[..], 1 << 16, "apiVersion"),
            (
                &br#"{"type": "StreamsGroupInitialize", "request": {"groupId": "g", "topologyId": "t", "topology": []}}"#[..],
                0,
                "type",
            ),
        ] {
            let a = encode(&mut abi, h, input, version, 1);
            let out = json_at(&abi, a.ptr, a.len);
            assert_eq!(a.status, STATUS_INPUT_ERROR, "{version} {out}");
            assert_eq!(out["error"]["path"], path, "{out}");
        }
        let no_now = br#"{"type": "DeleteGroups", "groupIds": ["g"]}"#;
        let a = encode(&mut abi, h, no_now, 0, 3);
        assert_eq!(a.status, STATUS_OK, "nowMs may be left out");
        let d = decode(&mut abi, h, 42, 0, &[0, 0]);
        assert_eq!(d.status, STATUS_INPUT_ERROR);
        assert_eq!(
            json_at(&abi, d.ptr, d.len)["error"]["code"],
            "INVALID_FRAME"
        );
        let d = decode(&mut abi, h, 1 << 20, 0, &[0, 0, 0, 1]);
        assert_eq!(json_at(&abi, d.ptr, d.len)["error"]["path"], "apiKey");
        let a = abi.decode_response(h + 1, (42, 0), (0, 0));
        assert_eq!(a.status, STATUS_INTERNAL_ERROR);
    }

    #[test]
    fn frame_calls_share_the_handles_output_and_never_move_another() {
        let mut abi = Abi::new();
        let a = created(&mut abi, None);
        let b = created(&mut abi, None);
        let input = join("m");
        let p = put(&mut abi, &input);
        let answer_a = abi.call2(a, p, input.len());
        let bytes_a = abi.read(answer_a.ptr, answer_a.len).map(<[u8]>::to_vec);
        let e = encode(&mut abi, b, &input, 0, 1);
        let request = abi.read(e.ptr, e.len).expect("the frame").to_vec();
        let f = call_frame(&mut abi, b, &request, 1, "");
        assert_eq!(f.status, STATUS_OK);
        assert_eq!(
            call_frame(&mut abi, b, &request[..3], 1, "").status,
            STATUS_INPUT_ERROR
        );
        assert_eq!(
            abi.read(answer_a.ptr, answer_a.len).map(<[u8]>::to_vec),
            bytes_a
        );
    }

    #[test]
    fn packing_round_trips_and_refuses_what_it_cannot_say() {
        for a in [
            Answer {
                status: 0,
                ptr: 0x1234_5678,
                len: 99,
            },
            Answer {
                status: 2,
                ptr: u32::MAX as usize,
                len: MAX_LEN,
            },
            Answer {
                status: 1,
                ptr: 0,
                len: 0,
            },
        ] {
            assert_eq!(Answer::unpack(a.packed()), a);
        }
        let refused = Answer {
            status: STATUS_INTERNAL_ERROR,
            ptr: 0,
            len: 0,
        };
        for bad in [
            Answer {
                status: 0,
                ptr: 1,
                len: MAX_LEN + 1,
            },
            Answer {
                status: 3,
                ptr: 1,
                len: 1,
            },
            Answer {
                status: -1,
                ptr: 1,
                len: 1,
            },
        ] {
            assert_eq!(Answer::unpack(bad.packed()), refused);
        }
        // Status 2 sets the sign bit of the i64 a host sees; masking recovers it.
        let packed = Answer {
            status: 2,
            ptr: 8,
            len: 8,
        }
        .packed();
        assert!((packed as i64) < 0);
        assert_eq!(Answer::unpack(packed).status, 2);
    }

    #[test]
    fn an_output_too_large_to_describe_is_an_error() {
        let (status, out) = bound_output(STATUS_OK, vec![b'x'; 11], 10);
        assert_eq!(status, STATUS_INTERNAL_ERROR);
        let v: Value = serde_json::from_slice(&out).expect("JSON");
        assert_eq!(v["error"]["code"], "INVALID_INPUT");
        assert_eq!(
            bound_output(STATUS_OK, vec![b'x'; 10], 10),
            (STATUS_OK, vec![b'x'; 10])
        );
    }

    #[test]
    fn writes_outside_allocations_are_refused() {
        let mut abi = Abi::new();
        let p = abi.alloc(4);
        assert!(!abi.write(p + 1, b"abcd"));
        assert!(!abi.write(0, b"a"));
        assert!(!abi.write(usize::MAX, b"a"));
        assert!(abi.write(p + 1, b"abc"));
        assert_eq!(abi.read(p, 4), Some(&b"\0abc"[..]));
        assert_eq!(abi.read(p, 5), None);
    }
}

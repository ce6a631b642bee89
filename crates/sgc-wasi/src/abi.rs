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
//! - **Outputs** belong to the guest: version 1 has one output for the instance, version 2 one
//!   per handle (so one handle never moves another handle's output) plus one for calls that
//!   name no live handle.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use streams_group_coordinator::api::boundary_error_json;
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
    /// The handle's last `sgc_call2` output.
    output: Vec<u8>,
}

/// One plugin instance: what a reactor module holds between export calls.
#[derive(Default)]
pub struct Abi {
    allocations: BTreeMap<usize, Box<[u8]>>,
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
    /// the handle's own buffer, valid until the next `sgc_call2` or `sgc_destroy` of that
    /// handle; a call naming no live handle answers in the instance's stray buffer instead.
    pub fn call2(&mut self, handle: u32, ptr: usize, len: usize) -> Answer {
        let Some(slot) = self.coordinators.get_mut(&handle) else {
            self.stray = unknown_handle(handle);
            return answer(STATUS_INTERNAL_ERROR, &self.stray);
        };
        let (status, out) = match input(&self.allocations, ptr, len) {
            Err((status, e)) => (status, error_bytes(&e)),
            Ok(text) => handle_text(&mut slot.coordinator, text),
        };
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

/// The input at `(ptr, len)`, in place: `len` 0 is the empty text; otherwise the range must lie
/// inside one live allocation and be UTF-8.
fn input(
    allocations: &BTreeMap<usize, Box<[u8]>>,
    ptr: usize,
    len: usize,
) -> Result<&str, (i32, BoundaryError)> {
    if len == 0 {
        return Ok("");
    }
    let bytes = allocations
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
        })?;
    std::str::from_utf8(bytes).map_err(|e| {
        (
            STATUS_INPUT_ERROR,
            BoundaryError::input("", format!("the input is not UTF-8: {e}")),
        )
    })
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

fn error_bytes(e: &BoundaryError) -> Vec<u8> {
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

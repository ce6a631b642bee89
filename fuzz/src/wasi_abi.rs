//! The body of the `wasi_abi` fuzz target: sequences of calls of the WASI plugin ABI on its
//! native bookkeeping (crate `sgc-wasi`). It lives beside the other bodies but apart from
//! `lib.rs`, because the core's tests include that file and know nothing of the WASI crate:
//! `fuzz_targets/wasi_abi.rs` and the stable test `crates/sgc-wasi/tests/fuzz_corpus.rs`
//! include this file (`#[path]`), the latter to replay the seeds and past crashes.

use serde_json::Value;
use sgc_wasi::abi::{Abi, Answer, FREE_NOT_ALLOCATED, FREE_OK, FREE_WRONG_LENGTH};

/// `wasi_abi`: the plugin ABI's bookkeeping (`sgc_wasi::abi`, what the reactor module's
/// exports call), driven natively by a sequence of export calls, each
/// op three bytes: the export (byte 0), then two argument bytes. A model tracks what the host
/// was handed out; after every call the ABI must agree with it:
///
/// - `sgc_alloc` hands out distinct buffers, and exactly the model's are live;
/// - a free answers `FREE_OK` only for a live `(ptr, len)` pair; an interior pointer, a wrong
///   length, a double free, an output buffer or a made-up address answer a status and free
///   nothing (the heap is never corrupted: the allocation count stays the model's);
/// - `sgc_realloc` keeps the prefix of the old buffer and frees it, or answers 0 and keeps it;
/// - every `sgc_call` / `sgc_call2` output is readable and JSON (a status of 0 or 1 is an
///   output, 2 a refused call), and a call on one handle leaves another handle's version 2
///   output as it was.
pub fn wasi_abi(data: &[u8]) {
    const INPUTS: [&str; 6] = [
        r#"{"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 2}]}"#,
        r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p", "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#,
        r#"{"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}"#,
        r#"{"nowMs": 50000, "type": "AdvanceTime"}"#,
        r#"{"nowMs": 3, "type": "Nope"}"#,
        "{not json",
    ];
    const CONFIGS: [&str; 4] = ["", r#"{"dialect": "kafka-4.2"}"#, r#"{"nope": 1}"#, "[}"];
    let mut abi = Abi::new();
    // What the host holds: live allocations (ptr, len) and handles.
    let mut live: Vec<(usize, usize)> = Vec::new();
    let mut handles: Vec<u32> = Vec::new();
    let mut outputs: std::collections::BTreeMap<u32, Vec<u8>> = Default::default();
    let pick = |n: usize, b: u8| usize::from(b) % n.max(1);
    // Writes `text` into a fresh allocation; its (ptr, len).
    let put = |abi: &mut Abi, live: &mut Vec<(usize, usize)>, text: &str| -> (usize, usize) {
        if text.is_empty() {
            return (0, 0);
        }
        let ptr = abi.alloc(text.len());
        assert_ne!(ptr, 0, "sgc_alloc({}) failed", text.len());
        assert!(abi.write(ptr, text.as_bytes()));
        live.push((ptr, text.len()));
        (ptr, text.len())
    };
    let check_json = |bytes: &[u8], what: &str| {
        let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
        serde_json::from_str::<Value>(text)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
    };
    for op in data.chunks(3).take(200) {
        let (a, b) = (
            op.get(1).copied().unwrap_or(0),
            op.get(2).copied().unwrap_or(0),
        );
        match op[0] % 9 {
            0 => {
                let len = usize::from(a) * 16 + usize::from(b % 16) + 1;
                let ptr = abi.alloc(len);
                assert_ne!(ptr, 0);
                assert!(
                    live.iter().all(|(p, _)| *p != ptr),
                    "sgc_alloc handed out {ptr} twice"
                );
                live.push((ptr, len));
            }
            1 => {
                // A free of every kind: exact, interior, wrong length, own output, made up.
                let (ptr, len) = live.get(pick(live.len(), a)).copied().unwrap_or((0, 0));
                let (fptr, flen) = match b % 6 {
                    0 => (ptr, len),
                    1 => (ptr + 1, len.saturating_sub(1)),
                    2 => (ptr, len + 1),
                    3 => abi.output(),
                    4 => (usize::from(a) << 12, usize::from(b)),
                    _ => (ptr, len),
                };
                let status = abi.free(fptr, flen);
                let expected = match live.iter().position(|(p, _)| *p == fptr) {
                    Some(i) if live[i].1 == flen => {
                        live.remove(i);
                        FREE_OK
                    }
                    Some(_) => FREE_WRONG_LENGTH,
                    None => FREE_NOT_ALLOCATED,
                };
                assert_eq!(status, expected, "free({fptr}, {flen})");
            }
            2 => {
                let i = pick(live.len(), a);
                let Some(&(ptr, len)) = live.get(i) else {
                    continue;
                };
                let new_len = usize::from(b) * 8 + 1;
                let before = abi.read(ptr, len).map(<[u8]>::to_vec);
                let new_ptr = abi.realloc(ptr, len, new_len);
                if new_ptr == 0 {
                    assert_eq!(abi.read(ptr, len).map(<[u8]>::to_vec), before);
                } else {
                    live[i] = (new_ptr, new_len);
                    let keep = len.min(new_len);
                    let prefix = before.as_deref().and_then(|b| b.get(..keep));
                    assert_eq!(abi.read(new_ptr, keep), prefix, "realloc lost the prefix");
                }
            }
            3 => {
                let config = CONFIGS[pick(CONFIGS.len(), a)];
                let (ptr, len) = put(&mut abi, &mut live, config);
                let handle = abi.create(ptr, len);
                if handle == 0 {
                    let (optr, olen) = abi.output();
                    check_json(abi.read(optr, olen).unwrap_or_default(), "create error");
                } else {
                    assert!(
                        !handles.contains(&handle),
                        "handle {handle} handed out twice"
                    );
                    handles.push(handle);
                }
            }
            4 => {
                let handle = handles
                    .get(pick(handles.len(), a))
                    .copied()
                    .unwrap_or(u32::from(b));
                let existed = handles.contains(&handle);
                assert_eq!(abi.destroy(handle), existed);
                handles.retain(|h| *h != handle);
                outputs.remove(&handle);
            }
            5 | 6 => {
                let handle = handles
                    .get(pick(handles.len() + 1, a))
                    .copied()
                    .unwrap_or(u32::from(b) + 1000);
                let (ptr, len) = match b % 4 {
                    // A bad range: past the end of a live buffer, or made up.
                    0 => live
                        .first()
                        .map_or((usize::from(a) << 8, 7), |(p, l)| (*p, l + 1)),
                    _ => put(&mut abi, &mut live, INPUTS[pick(INPUTS.len(), b)]),
                };
                if op[0] % 9 == 5 {
                    let status = abi.call(handle, ptr, len);
                    assert!((0..=2).contains(&status), "status {status}");
                    let (optr, olen) = abi.output();
                    check_json(abi.read(optr, olen).unwrap_or_default(), "sgc_call output");
                } else {
                    let answer = abi.call2(handle, ptr, len);
                    // The packed form holds 32-bit addresses (wasm32); natively only some fit.
                    if u32::try_from(answer.ptr).is_ok() {
                        assert_eq!(Answer::unpack(answer.packed()), answer);
                    }
                    assert!((0..=2).contains(&answer.status));
                    let out = abi
                        .read(answer.ptr, answer.len)
                        .unwrap_or_else(|| panic!("sgc_call2 output not readable: {answer:?}"))
                        .to_vec();
                    check_json(&out, "sgc_call2 output");
                    if handles.contains(&handle) {
                        outputs.insert(handle, out);
                    }
                }
            }
            7 => {
                // A host write outside every buffer is refused and changes nothing.
                let (ptr, len) = live.get(pick(live.len(), a)).copied().unwrap_or((0, 0));
                let bytes = vec![b; usize::from(b % 8) + 1];
                let inside = live
                    .iter()
                    .any(|(p, l)| ptr + len + 1 >= *p && ptr + len + 1 + bytes.len() <= p + l);
                let wrote = abi.write(ptr + len + 1, &bytes);
                assert!(!wrote || inside, "a write past a buffer's end was accepted");
            }
            _ => {
                // Every handle's last version 2 output is still readable, unchanged.
                for (h, out) in &outputs {
                    let answer = abi.call2(*h, 0, 0);
                    let again = abi.read(answer.ptr, answer.len).map(<[u8]>::to_vec);
                    check_json(again.as_deref().unwrap_or_default(), "empty sgc_call2");
                    assert!(!out.is_empty());
                }
            }
        }
        assert_eq!(
            abi.live_allocations(),
            live.len(),
            "allocation count drifted"
        );
    }
    // Other handles' outputs survive calls on one handle.
    if let (Some(&h1), Some(&h2)) = (handles.first(), handles.get(1)) {
        let (ptr, len) = put(&mut abi, &mut live, INPUTS[2]);
        let first = abi.call2(h1, ptr, len);
        let kept = abi.read(first.ptr, first.len).map(<[u8]>::to_vec);
        let (ptr, len) = put(&mut abi, &mut live, INPUTS[0]);
        abi.call2(h2, ptr, len);
        assert_eq!(
            abi.read(first.ptr, first.len).map(<[u8]>::to_vec),
            kept,
            "a call on one handle changed another's output"
        );
    }
}

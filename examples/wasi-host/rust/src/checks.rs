//! The checks `make test-wasi` runs on this host: every scenario through both ABI versions
//! gives exactly the native outputs, a killed and restarted broker ends in the same state,
//! hostile calls answer statuses without trapping or disturbing another handle, and Kafka's
//! request frames (ABI version 3) answer as their JSON inputs do.

use std::path::Path;

use serde_json::{json, Value};
use streams_group_coordinator::Coordinator;

use crate::broker::BrokerPartition;
use crate::plugin::{
    split_frame_output, Abi, Compiled, Plugin, Result, FREE_NOT_ALLOCATED, FREE_OK,
    FREE_WRONG_LENGTH, STATUS_INPUT_ERROR, STATUS_INTERNAL_ERROR, STATUS_OK, WASI_IMPORTS,
};
use crate::repo_root;

macro_rules! check {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

type Check = fn(&Compiled) -> Result<()>;

pub fn run_all(compiled: &Compiled) -> bool {
    let checks: [(&str, Check); 9] = [
        ("imports_are_the_five_this_host_provides", imports),
        ("scenarios_match_native_through_both_versions", scenarios),
        ("kill_restart_replay_keeps_the_state", kill_restart),
        ("bad_frees_answer_a_status_and_change_nothing", bad_frees),
        (
            "v2_bad_pointers_never_trap_nor_disturb_another_handle",
            bad_pointers,
        ),
        (
            "v1_output_survives_v2_calls_and_the_input_buffer_grows",
            mixed_versions,
        ),
        ("v3_api_versions_through_a_frame", api_versions),
        (
            "v3_a_join_built_by_encoding_answers_as_the_json_input",
            frame_join,
        ),
        ("v3_a_bad_frame_is_status_1_and_changes_nothing", bad_frames),
    ];
    let (mut passed, mut failed) = (0, 0);
    for (name, check) in checks {
        match check(compiled) {
            Ok(()) => {
                passed += 1;
                println!("ok - {name}");
            }
            Err(e) => {
                failed += 1;
                println!("FAILED - {name}: {e}");
            }
        }
    }
    println!("wasi-rust: {passed} passed, {failed} failed");
    failed == 0
}

fn imports(compiled: &Compiled) -> Result<()> {
    let mut got = compiled.imports();
    got.sort();
    let want: Vec<String> = WASI_IMPORTS
        .iter()
        .map(|n| format!("wasi_snapshot_preview1.{n}"))
        .collect();
    check!(got == want, "imports {got:?}");
    let exports = compiled.exports();
    for e in [
        "sgc_abi_version_1",
        "sgc_abi_version_2",
        "sgc_call",
        "sgc_call2",
        "sgc_free",
        "sgc_abi_version_3",
        "sgc_call_frame",
        "sgc_encode_request",
        "sgc_decode_response",
    ] {
        check!(exports.iter().any(|x| x == e), "no export {e}");
    }
    Ok(())
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn scenarios(compiled: &Compiled) -> Result<()> {
    let dir = repo_root().join("tests/scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    check!(!files.is_empty(), "no scenarios in {}", dir.display());
    let mut plugins = [Plugin::new(compiled)?, Plugin::new(compiled)?];
    plugins[1].abi = Abi::V1;
    for file in &files {
        let s = read_json(file)?;
        let config = s.get("config").filter(|c| !c.is_null());
        let mut native = Coordinator::from_json_config(config.unwrap_or(&Value::Null))
            .map_err(|e| format!("{}: {}", file.display(), e.message))?;
        let config_text = config.map(Value::to_string);
        let lines: Vec<String> = s["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|step| step["input"].to_string())
            .collect();
        let expected: Vec<String> = lines.iter().map(|l| native.handle_json(l)).collect();
        for plugin in &mut plugins {
            let h = plugin.create(config_text.as_deref())?;
            for (i, (line, want)) in lines.iter().zip(&expected).enumerate() {
                let (_, got) = plugin.handle(h, line.as_bytes())?;
                check!(
                    got == want.as_bytes(),
                    "{} step {i} ({:?}): the reactor's output differs from native",
                    file.display(),
                    plugin.abi
                );
            }
            plugin.destroy(h)?;
        }
    }
    Ok(())
}

fn final_groups(
    compiled: &Compiled,
    lines: &[String],
    restart_after: Option<usize>,
    log: &Path,
) -> Result<Value> {
    if log.exists() {
        std::fs::remove_file(log).map_err(|e| e.to_string())?;
    }
    let mut p = BrokerPartition::start(compiled, None, Some(log.to_path_buf()), Abi::V2)?;
    let mut last = String::new();
    for (i, line) in lines.iter().enumerate() {
        if restart_after == Some(i) {
            p.kill();
            p.restart()?;
        }
        last = p.handle_input(line)?;
    }
    let out: Value = serde_json::from_str(&last).map_err(|e| e.to_string())?;
    Ok(out["response"]["groups"].clone())
}

fn kill_restart(compiled: &Compiled) -> Result<()> {
    let path = repo_root().join("examples/demo/three-instances.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    let dir = std::env::temp_dir().join(format!("sgc-wasi-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join("partition-0.log");
    let result = (|| {
        let baseline = final_groups(compiled, &lines, None, &log)?;
        check!(
            baseline[0]["groupState"] == "Stable",
            "baseline ends in {}",
            baseline[0]["groupState"]
        );
        for restart_after in 1..lines.len().saturating_sub(1) {
            let got = final_groups(compiled, &lines, Some(restart_after), &log)?;
            check!(got == baseline, "restart after line {restart_after}");
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

const ADVANCE: &[u8] = br#"{"nowMs": 1, "type": "AdvanceTime"}"#;

fn join() -> Vec<u8> {
    json!({"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
        "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
    .to_string()
    .into_bytes()
}

/// `(ptr, len)` that no `sgc_alloc` handed out.
const BAD: [(u32, u32); 7] = [
    (0, 4),
    (8, 16),
    (0xFFFF_FF00, 4096),
    (0xFFFF_FFFF, 1),
    (0xFFFF_FFFF, 0xFFFF_FFFF),
    (0x7FFF_FFFF, 0x7FFF_FFFF),
    (0xFFFF_0000, 0x2_0000),
];

fn bad_frees(compiled: &Compiled) -> Result<()> {
    let mut p = Plugin::new(compiled)?;
    let mut control = Plugin::new(compiled)?;
    let h = p.create(None)?;
    let hc = control.create(None)?;
    let n = ADVANCE.len() as u32;
    let ptr = p.put(ADVANCE)?;
    check!(p.call1_raw(h, ptr, n)? == STATUS_OK, "v1 call");
    let out_before = p.output()?.to_vec();
    let (out_ptr, out_len) = p.output_at()?;
    let a = p.call2_raw(h, ptr, n)?;
    check!(a.status == STATUS_OK, "v2 call");
    let v2_before = p.read(a.ptr, a.len)?.to_vec();
    let mut cases = vec![
        (out_ptr, out_len, FREE_NOT_ALLOCATED),
        (out_ptr, 1, FREE_NOT_ALLOCATED),
        (a.ptr, a.len, FREE_NOT_ALLOCATED),
        (ptr + 1, n - 1, FREE_NOT_ALLOCATED),
        (ptr + 4, n, FREE_NOT_ALLOCATED),
        (ptr, n + 1, FREE_WRONG_LENGTH),
        (ptr, n - 1, FREE_WRONG_LENGTH),
        (ptr, 0, FREE_WRONG_LENGTH),
        (0, n, FREE_NOT_ALLOCATED),
        (0, 0, FREE_NOT_ALLOCATED),
    ];
    cases.extend(BAD.iter().map(|&(p, l)| (p, l, FREE_NOT_ALLOCATED)));
    for (fp, fl, want) in cases {
        p.free(fp, fl)?;
        let got = p.free_checked(fp, fl)?;
        check!(
            got == want,
            "free({fp:#x}, {fl}) answered {got}, not {want}"
        );
        if (fp, fl) != (0, 0) {
            check!(p.realloc(fp, fl, 64)? == 0, "realloc({fp:#x}, {fl})");
        }
    }
    check!(p.output()? == out_before, "the v1 output changed");
    check!(p.read(a.ptr, a.len)? == v2_before, "the v2 output changed");
    check!(p.read(ptr, n)? == ADVANCE, "the input buffer changed");
    check!(p.free_checked(ptr, n)? == FREE_OK, "the real free");
    check!(p.free_checked(ptr, n)? == FREE_NOT_ALLOCATED, "double free");
    check!(
        p.call2_raw(h, ptr, n)?.status == STATUS_INTERNAL_ERROR,
        "a freed input"
    );
    // The heap is sound: the plugin answers as one that never saw a bad free.
    let join = join();
    for i in 0..200 {
        let line = format!(r#"{{"nowMs": {}, "type": "AdvanceTime"}}"#, 10 + i);
        let got = p.handle(h, line.as_bytes())?.1.to_vec();
        check!(got == control.handle(hc, line.as_bytes())?.1, "call {i}");
    }
    let got = p.handle(h, &join)?.1.to_vec();
    check!(got == control.handle(hc, &join)?.1, "join after bad frees");
    Ok(())
}

fn bad_pointers(compiled: &Compiled) -> Result<()> {
    let mut p = Plugin::new(compiled)?;
    let a = p.create(None)?;
    let b = p.create(Some(r#"{"group.streams.heartbeat.interval.ms": 7000}"#))?;
    let join = join();
    let jp = p.put(&join)?;
    let ra = p.call2_raw(a, jp, join.len() as u32)?;
    check!(ra.status == STATUS_OK, "a's join");
    let bytes_a = p.read(ra.ptr, ra.len)?.to_vec();
    let n = ADVANCE.len() as u32;
    let freed = p.put(ADVANCE)?;
    let live = p.put(ADVANCE)?;
    check!(p.free_checked(freed, n)? == FREE_OK, "free");
    let mut bad = BAD.to_vec();
    bad.extend([
        (freed, n),
        (ra.ptr, ra.len),
        (live, n + 1),
        (live + n, 1),
        (live - 1, 2),
    ]);
    for (bp, bl) in bad {
        for handle in [b, 0, 999, u32::MAX] {
            let r = p.call2_raw(handle, bp, bl)?;
            check!(
                r.status == STATUS_INTERNAL_ERROR,
                "call2({handle}, {bp:#x}, {bl}) answered {}",
                r.status
            );
            let out: Value =
                serde_json::from_slice(p.read(r.ptr, r.len)?).map_err(|e| e.to_string())?;
            check!(
                out["error"]["code"] == "INVALID_INPUT",
                "error output {out}"
            );
            check!(
                p.call1_raw(handle, bp, bl)? == STATUS_INTERNAL_ERROR,
                "v1 call"
            );
        }
        check!(p.read(ra.ptr, ra.len)? == bytes_a, "a's output moved");
    }
    p.abi = Abi::V2;
    let (status, _) = p.handle(b, b"{not json")?;
    check!(status == STATUS_INPUT_ERROR, "bad JSON answered {status}");
    let not_utf8 = p.put(b"\xff\xfe{}")?;
    check!(
        p.call2_raw(b, not_utf8, 4)?.status == STATUS_INPUT_ERROR,
        "not UTF-8"
    );
    let (status, out) = p.handle(b, &join)?;
    let out: Value = serde_json::from_slice(out).map_err(|e| e.to_string())?;
    check!(
        status == STATUS_OK && out["response"]["heartbeatIntervalMs"] == 7000,
        "b: {out}"
    );
    check!(
        p.read(ra.ptr, ra.len)? == bytes_a,
        "a call on b moved a's output"
    );
    p.destroy(b)?;
    p.destroy(b)?;
    check!(
        p.call2_raw(b, live, n)?.status == STATUS_INTERNAL_ERROR,
        "destroyed b"
    );
    check!(
        p.read(ra.ptr, ra.len)? == bytes_a,
        "destroying b moved a's output"
    );
    let a_out: Value = serde_json::from_slice(&bytes_a).map_err(|e| e.to_string())?;
    check!(
        a_out["response"]["heartbeatIntervalMs"] == 5000,
        "a: {a_out}"
    );
    let describe =
        br#"{"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}"#;
    let (_, out) = p.handle(a, describe)?;
    let out: Value = serde_json::from_slice(out).map_err(|e| e.to_string())?;
    check!(
        out["response"]["groups"][0]["members"][0]["memberId"] == "m",
        "a: {out}"
    );
    Ok(())
}

fn mixed_versions(compiled: &Compiled) -> Result<()> {
    let mut p = Plugin::new(compiled)?;
    let h = p.create(None)?;
    p.abi = Abi::V1;
    let (_, v1) = p.handle(h, &join())?;
    let v1 = v1.to_vec();
    p.abi = Abi::V2;
    let topics: Vec<Value> = (0..500)
        .map(|i| json!({"name": format!("tópico-{i:05}-{}", "x".repeat(200)), "partitions": 3}))
        .collect();
    let big = json!({"nowMs": 3, "type": "TopicMetadata", "topics": topics}).to_string();
    check!(big.len() > 100_000, "the big input is small");
    let (status, out) = p.handle(h, big.as_bytes())?;
    check!(
        status == STATUS_OK,
        "big input: {}",
        String::from_utf8_lossy(out)
    );
    check!(p.output()? == v1, "a v2 call moved v1's output");
    Ok(())
}

fn json(bytes: &[u8]) -> Result<Value> {
    serde_json::from_slice(bytes).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(bytes)))
}

/// ApiVersions version 0 (correlation id 5, client "c"), written by hand.
const API_VERSIONS_V0: [u8; 11] = [0, 18, 0, 0, 0, 0, 0, 5, 0, 1, b'c'];

fn join_input() -> Vec<u8> {
    let mut input: Value = serde_json::from_slice(&join()).unwrap_or(Value::Null);
    input["client"] = json!({"clientId": "app-1", "clientHost": "/10.0.0.1"});
    input.to_string().into_bytes()
}

/// The JSON output of `input` on `handle` without its `response`, and the response.
fn json_face(p: &mut Plugin, handle: u32, input: &[u8]) -> Result<(Value, Value)> {
    let (status, out) = p.handle(handle, input)?;
    check!(status == STATUS_OK, "the JSON input answered {status}");
    let mut out = json(out)?;
    let response = out
        .as_object_mut()
        .and_then(|o| o.remove("response"))
        .unwrap_or(Value::Null);
    Ok((out, response))
}

fn api_versions(compiled: &Compiled) -> Result<()> {
    let mut p = Plugin::new(compiled)?;
    let h = p.create(Some(r#"{"dialect": "kafka-4.2"}"#))?;
    let (status, out) = p.handle_frame(h, &API_VERSIONS_V0, 0, "")?;
    check!(status == STATUS_OK, "status {status}");
    let (frame, fields) = split_frame_output(out)?;
    let (frame, fields) = (frame.to_vec(), json(fields)?);
    check!(
        fields
            == json!({"records": [], "topicsToCreate": [], "explain": [], "nextDeadlineMs": null}),
        "fields {fields}"
    );
    let (status, read) = p.decode_response(h, 18, 0, &frame[4..])?;
    let read = json(read)?;
    check!(status == STATUS_OK, "decode: {read}");
    check!(read["correlationId"] == 5, "correlation id: {read}");
    check!(read["response"]["errorCode"] == 0, "{read}");
    let keys = read["response"]["apiKeys"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    check!(
        keys.iter().any(|k| k["apiKey"] == 88),
        "StreamsGroupHeartbeat is not served: {read}"
    );
    Ok(())
}

fn frame_join(compiled: &Compiled) -> Result<()> {
    let mut p = Plugin::new(compiled)?;
    let h = p.create(None)?;
    let control = p.create(None)?;
    let input = join_input();
    let (status, request) = p.encode_request(h, &input, 0, 41)?;
    check!(
        status == STATUS_OK,
        "encode: {}",
        String::from_utf8_lossy(request)
    );
    let request = request.to_vec();
    let (status, out) = p.handle_frame(h, &request, 1, "/10.0.0.1")?;
    check!(status == STATUS_OK, "{}", String::from_utf8_lossy(out));
    let (frame, fields) = split_frame_output(out)?;
    let (frame, fields) = (frame.to_vec(), json(fields)?);
    let (expected, response) = json_face(&mut p, control, &input)?;
    check!(fields == expected, "fields {fields}\nJSON face {expected}");
    check!(
        fields["records"].to_string().contains("/10.0.0.1"),
        "no client host in {fields}"
    );
    let key = i16::from_be_bytes([request[0], request[1]]);
    let (status, read) = p.decode_response(h, i32::from(key), 0, &frame[4..])?;
    let read = json(read)?;
    check!(status == STATUS_OK, "decode: {read}");
    check!(read["correlationId"] == 41, "{read}");
    check!(read["response"]["memberId"] == "m", "{read}");
    check!(
        read["response"]["memberEpoch"] == response["memberEpoch"],
        "{read} against {response}"
    );
    let (status, out) = p.encode_request(h, ADVANCE, 0, 1)?;
    let out = json(out)?;
    check!(
        status == STATUS_INPUT_ERROR && out["error"]["path"] == "type",
        "AdvanceTime encoded: {out}"
    );
    Ok(())
}

fn bad_frames(compiled: &Compiled) -> Result<()> {
    let mut p = Plugin::new(compiled)?;
    let h = p.create(None)?;
    let control = p.create(None)?;
    let input = join_input();
    let request = p.encode_request(h, &input, 0, 1)?.1.to_vec();
    let mut unknown_key = request.clone();
    unknown_key[1] = 0;
    for bad in [
        &request[..5],
        &request[..request.len() - 2],
        &unknown_key[..],
        &[][..],
    ] {
        let (status, out) = p.handle_frame(h, bad, 1, "")?;
        let out = json(out)?;
        check!(status == STATUS_INPUT_ERROR, "{bad:?}: status {status}");
        check!(out["error"]["code"] == "INVALID_FRAME", "{out}");
    }
    let (status, out) = p.handle_frame(h, &request, -1, "")?;
    let out = json(out)?;
    check!(
        status == STATUS_INPUT_ERROR && out["error"]["path"] == "nowMs",
        "{out}"
    );
    for (bp, bl) in BAD {
        let a = p.call_frame_raw(h, (bp, bl), 1, (0, 0))?;
        check!(
            a.status == STATUS_INTERNAL_ERROR,
            "call_frame({bp:#x}, {bl}) answered {}",
            a.status
        );
    }
    let (status, _) = p.handle_frame(h + 9, &request, 1, "")?;
    check!(status == STATUS_INTERNAL_ERROR, "unknown handle: {status}");
    let (status, out) = p.handle_frame(h, &request, 1, "/10.0.0.1")?;
    check!(status == STATUS_OK, "{}", String::from_utf8_lossy(out));
    let fields = json(split_frame_output(out)?.1)?;
    let (expected, _) = json_face(&mut p, control, &input)?;
    check!(
        fields == expected,
        "something changed: {fields}\n{expected}"
    );
    Ok(())
}

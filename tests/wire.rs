//! Every scenario file driven through Kafka's wire face: each request input is encoded as the
//! frame a client sends (at every version the dialect serves), handled by a second coordinator
//! through `wire::handle_frame`, and must give the same output as the JSON face (records,
//! topics, explain, deadline), a response frame that reads back to its typed response, and a
//! response whose JSON is the JSON face's (the schema's names: 4.4 calls version 0's
//! `acceptableRecoveryLag` `acceptableRecoveryLagLegacy`).
//!
//! `OffsetCommit`, `OffsetFetch`, `StreamsGroupHeartbeat` and `StreamsGroupDescribe` inputs
//! carry their version: at each other version the JSON
//! face answers the input at that version on a copy, and the input's own version changes the
//! state (through the JSON face when no client could send it at that version, as a version-10
//! topic without an id).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use streams_group_coordinator::wire::{
    encode_request, handle_frame_with, response_as_wire_json, response_json, served, FrameOutput,
    FrameScratch, Peer,
};
use streams_group_coordinator::{Coordinator, Input, InputKind, Response};

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/scenarios exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// A value a wire response holds where the JSON face's has no key: the schema's default.
fn is_default(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => true,
        Value::Number(n) => n.as_i64() == Some(0) || n.as_i64() == Some(-1),
        // An empty list, or a uuid the version does not carry (all zeros).
        Value::Array(a) => a.iter().all(|x| x.as_i64() == Some(0)),
        Value::String(s) => s.is_empty(),
        Value::Bool(true) | Value::Object(_) => false,
    }
}

/// Why the JSON face's response `face` is not what the wire's reads back as (`wire`).
fn differs(face: &Value, wire: &Value, path: &str, v: i16) -> Option<String> {
    match (face, wire) {
        (Value::Object(f), Value::Object(w)) => {
            for (k, fv) in f {
                let legacy = v == 0 && w.contains_key("acceptableRecoveryLagLegacy");
                let wk = match (k.as_str(), legacy) {
                    ("acceptableRecoveryLag", true) => "acceptableRecoveryLagLegacy",
                    _ => k.as_str(),
                };
                match w.get(wk) {
                    None => return Some(format!("{path}.{k}: not in the wire response")),
                    Some(wv) => {
                        if let Some(d) = differs(fv, wv, &format!("{path}.{k}"), v) {
                            return Some(d);
                        }
                    }
                }
            }
            for (k, wv) in w {
                let known = f.contains_key(k)
                    || (k == "acceptableRecoveryLagLegacy"
                        && f.contains_key("acceptableRecoveryLag"));
                if !known && !is_default(wv) {
                    return Some(format!("{path}.{k}: {wv} in the wire response only"));
                }
            }
            None
        }
        (Value::Array(f), Value::Array(w)) if f.len() == w.len() => f
            .iter()
            .zip(w)
            .enumerate()
            .find_map(|(i, (a, b))| differs(a, b, &format!("{path}[{i}]"), v)),
        (a, b) if a == b => None,
        (a, b) => Some(format!("{path}: {a} through JSON, {b} through the wire")),
    }
}

fn is_request(kind: &InputKind) -> bool {
    matches!(
        kind,
        InputKind::StreamsGroupHeartbeat { .. }
            | InputKind::StreamsGroupDescribe { .. }
            | InputKind::StreamsGroupInitialize { .. }
            | InputKind::DeleteGroups { .. }
            | InputKind::OffsetCommit { .. }
            | InputKind::OffsetFetch { .. }
            | InputKind::ListGroups { .. }
            | InputKind::OffsetDelete { .. }
            | InputKind::DescribeGroups { .. }
            | InputKind::ConsumerGroupDescribe { .. }
            | InputKind::TxnOffsetCommit { .. }
    )
}

/// Whether a version may not carry the input: the offsets APIs' own limits, a filter a
/// `ListGroups` version lacks, a describe asking for the topology description below version 1,
/// a `DescribeGroups` asking for the authorized operations below version 3 (Kafka's client
/// refuses to send any of them).
fn may_not_encode(kind: &InputKind) -> bool {
    match kind {
        InputKind::OffsetCommit { .. }
        | InputKind::OffsetFetch { .. }
        | InputKind::TxnOffsetCommit { .. }
        | InputKind::ListGroups { .. } => true,
        InputKind::StreamsGroupDescribe { request } => request.include_topology_description,
        InputKind::DescribeGroups { request, .. } => request.include_authorized_operations,
        _ => false,
    }
}

/// The version an input came at, if it carries one.
fn own_version(kind: &InputKind) -> Option<i16> {
    match kind {
        InputKind::OffsetCommit { api_version, .. }
        | InputKind::OffsetFetch { api_version, .. }
        | InputKind::DescribeGroups { api_version, .. }
        | InputKind::TxnOffsetCommit { api_version, .. } => Some(*api_version),
        InputKind::StreamsGroupHeartbeat { request, .. } => Some(request.api_version),
        InputKind::StreamsGroupDescribe { request } => Some(request.api_version),
        _ => None,
    }
}

/// The input as it came at version `v`.
fn at_version(kind: &InputKind, v: i16) -> InputKind {
    let mut kind = kind.clone();
    match &mut kind {
        InputKind::OffsetCommit { api_version, .. }
        | InputKind::OffsetFetch { api_version, .. }
        | InputKind::DescribeGroups { api_version, .. }
        | InputKind::TxnOffsetCommit { api_version, .. } => *api_version = v,
        InputKind::StreamsGroupHeartbeat { request, .. } => request.api_version = v,
        InputKind::StreamsGroupDescribe { request } => request.api_version = v,
        _ => {}
    }
    kind
}

/// Whether the JSON face's response has the wire's shape at version `v` (below 8 a fetch has
/// one group at the top level; at 10 topics are named by id only; a listed group has its state
/// from 4 and its type from 5).
fn same_shape(response: &Response, v: i16) -> bool {
    match response {
        Response::OffsetCommit(_) => v < 10,
        Response::TxnOffsetCommit(_) => v < 6,
        Response::OffsetFetch(_) => (8..10).contains(&v),
        Response::ListGroups(_) => v >= 5,
        _ => true,
    }
}

/// What Kafka's broker does to a version-10 fetch of all offsets before it answers: a topic
/// without an id cannot be named, and is left out (the wire face does it; the JSON face lists
/// it with the zero id).
fn as_broker_answers(kind: &InputKind, v: i16, response: &mut Response) {
    let (InputKind::OffsetFetch { request, .. }, Response::OffsetFetch(r)) = (kind, response)
    else {
        return;
    };
    if v < 10 {
        return;
    }
    for (asked, g) in request.groups.iter().zip(&mut r.groups) {
        if asked.topics.is_none() && g.error_code == 0 {
            g.topics
                .retain(|t| t.topic_id.as_deref() != Some("AAAAAAAAAAAAAAAAAAAAAA"));
        }
    }
}

/// Runs one scenario at each served version of its APIs; the number of requests sent.
fn run(path: &Path) -> Result<usize, String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let scenario: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let config = scenario.get("config").cloned().unwrap_or(Value::Null);
    let steps = scenario["steps"].as_array().ok_or("no steps")?;
    let mut json = Coordinator::from_json_config(&config).map_err(|e| e.to_string())?;
    let mut wire = Coordinator::from_json_config(&config).map_err(|e| e.to_string())?;
    let dialect = json.config().dialect;
    let apis = served(dialect);
    let mut sent = 0;
    // One scratch and response buffer for the whole scenario, as a host keeps them: what a
    // frame leaves in them must not reach the next one.
    let mut scratch = FrameScratch::default();
    let mut frame_out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let Ok(input) = Input::parse(&step["input"].to_string()) else {
            continue;
        };
        // The offsets APIs are answered at each version from the state before.
        let before = own_version(&input.kind).map(|_| json.clone());
        let expected = json.handle(input.clone());
        if !is_request(&input.kind) {
            let actual = wire.handle(input);
            if actual != expected {
                return Err(format!("step {i}: the coordinators parted"));
            }
            continue;
        }
        let Ok(expected) = expected else { continue };
        let host = match &input.kind {
            InputKind::StreamsGroupHeartbeat { client, .. }
            | InputKind::StreamsGroupInitialize { client, .. } => client.client_host.clone(),
            _ => String::new(),
        };
        let peer = Peer { client_host: host };
        // `StreamsGroupInitialize` is not an API of a `kafka-*` dialect (its JSON input is
        // answered UNSUPPORTED_VERSION; a client cannot send it).
        let Some(key) = (0..=i16::MAX)
            .take(16)
            .find_map(|v| encode_request(dialect, &input.kind, v, 0))
            .or_else(|| encode_request(dialect, &input.kind, 10, 0))
            .map(|f| i16::from_be_bytes([f[0], f[1]]))
        else {
            if matches!(input.kind, InputKind::StreamsGroupInitialize { .. }) && dialect.is_kafka()
            {
                let _ = wire.handle(input);
                continue;
            }
            return Err(format!("step {i}: no frame"));
        };
        let api = apis
            .iter()
            .find(|a| a.key == key)
            .ok_or("an API not served")?;
        // The version that changes the state: the input's own, else the newest served; every
        // other one is checked first on a copy.
        let state_version = own_version(&input.kind).unwrap_or(api.max);
        let mut state_changed = false;
        for v in (api.min..=api.max)
            .filter(|v| *v != state_version)
            .chain([state_version])
        {
            let kind = at_version(&input.kind, v);
            let Some(frame) = encode_request(dialect, &kind, v, i as i32) else {
                if may_not_encode(&kind) {
                    continue;
                }
                return Err(format!("step {i} v{v}: no frame"));
            };
            let expected = match &before {
                Some(before) if v != state_version => before
                    .clone()
                    .handle(Input {
                        now_ms: input.now_ms,
                        kind: kind.clone(),
                    })
                    .map_err(|e| format!("step {i} v{v}: {e}"))?,
                _ => expected.clone(),
            };
            let mut target = if v == state_version {
                state_changed = true;
                None
            } else {
                Some(wire.clone())
            };
            let c = target.as_mut().unwrap_or(&mut wire);
            let output =
                handle_frame_with(c, &mut scratch, &frame, input.now_ms, &peer, &mut frame_out)
                    .map_err(|e| format!("step {i} v{v}: {e}"))?;
            let out = FrameOutput {
                frame: frame_out.clone(),
                output,
            };
            sent += 1;
            let mut without = expected.clone();
            without.response = None;
            if out.output != without {
                return Err(format!(
                    "step {i} v{v}: the wire's output differs:\n{:?}\n{:?}",
                    out.output, without
                ));
            }
            let mut response = expected.response.clone().ok_or("no response")?;
            as_broker_answers(&kind, v, &mut response);
            let (correlation, read) = response_json(dialect, key, v, &out.frame)
                .map_err(|e| format!("step {i} v{v}: {e}"))?;
            if correlation != i as i32 {
                return Err(format!("step {i}: correlation id {correlation}"));
            }
            if Some(&read) != response_as_wire_json(dialect, v, &response).as_ref() {
                return Err(format!(
                    "step {i} v{v}: the response frame reads back as {read}"
                ));
            }
            if same_shape(&response, v) {
                let face = serde_json::to_value(&response).map_err(|e| e.to_string())?;
                if let Some(d) = differs(&face, &read, "response", v) {
                    return Err(format!("step {i} v{v}: {d}"));
                }
            }
        }
        if !state_changed {
            // No client can send it at its version: the state changes through the JSON face.
            let actual = wire.handle(input);
            if actual.as_ref().ok() != Some(&expected) {
                return Err(format!("step {i}: the coordinators parted"));
            }
        }
    }
    Ok(sent)
}

#[test]
fn every_scenario_answers_alike_through_the_wire() {
    let mut failures = Vec::new();
    let mut total = 0;
    for path in scenario_files() {
        match run(&path) {
            Ok(n) => total += n,
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(total > 500, "only {total} requests went through the wire");
}

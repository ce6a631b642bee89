//! Every scenario file driven through Kafka's wire face: each request input is encoded as the
//! frame a client sends (at every version the dialect serves), handled by a second coordinator
//! through `wire::handle_frame`, and must give the same output as the JSON face (records,
//! topics, explain, deadline), a response frame that reads back to its typed response, and a response whose JSON is the JSON face's (the schema's names: 4.4 calls
//! version 0's `acceptableRecoveryLag` `acceptableRecoveryLagLegacy`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use streams_group_coordinator::wire::{
    encode_request, handle_frame, response_as_wire_json, response_json, served, Peer,
};
use streams_group_coordinator::{Coordinator, Input, InputKind};

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
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Bool(true) | Value::Object(_) => false,
    }
}

/// Why the JSON face's response `face` is not what the wire's reads back as (`wire`).
fn differs(face: &Value, wire: &Value, path: &str) -> Option<String> {
    match (face, wire) {
        (Value::Object(f), Value::Object(w)) => {
            for (k, fv) in f {
                let wk = match (k.as_str(), w.contains_key("acceptableRecoveryLagLegacy")) {
                    ("acceptableRecoveryLag", true) => "acceptableRecoveryLagLegacy",
                    _ => k.as_str(),
                };
                match w.get(wk) {
                    None => return Some(format!("{path}.{k}: not in the wire response")),
                    Some(wv) => {
                        if let Some(d) = differs(fv, wv, &format!("{path}.{k}")) {
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
            .find_map(|(i, (a, b))| differs(a, b, &format!("{path}[{i}]"))),
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
    )
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
    for (i, step) in steps.iter().enumerate() {
        let Ok(input) = Input::parse(&step["input"].to_string()) else {
            continue;
        };
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
        // The newest version the dialect serves changes the state; every older one is checked
        // first to decode and answer alike on a copy.
        // `StreamsGroupInitialize` is not an API of a `kafka-*` dialect (its JSON input is
        // answered UNSUPPORTED_VERSION; a client cannot send it).
        let Some(frame) = encode_request(dialect, &input.kind, 0, i as i32) else {
            if matches!(input.kind, InputKind::StreamsGroupInitialize { .. }) && dialect.is_kafka()
            {
                let _ = wire.handle(input);
                continue;
            }
            return Err(format!("step {i}: no frame"));
        };
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let api = apis
            .iter()
            .find(|a| a.key == key)
            .ok_or("an API not served")?;
        for v in api.min..=api.max {
            let frame = encode_request(dialect, &input.kind, v, i as i32).ok_or("no frame")?;
            let mut target = if v == api.max {
                None
            } else {
                Some(wire.clone())
            };
            let c = target.as_mut().unwrap_or(&mut wire);
            let out = handle_frame(c, &frame, input.now_ms, &peer)
                .map_err(|e| format!("step {i} v{v}: {e}"))?;
            sent += 1;
            let mut without = expected.clone();
            without.response = None;
            if out.output != without {
                return Err(format!(
                    "step {i} v{v}: the wire's output differs:\n{:?}\n{:?}",
                    out.output, without
                ));
            }
            let response = expected.response.as_ref().ok_or("no response")?;
            let (correlation, read) = response_json(dialect, key, v, &out.frame)
                .map_err(|e| format!("step {i} v{v}: {e}"))?;
            if correlation != i as i32 {
                return Err(format!("step {i}: correlation id {correlation}"));
            }
            if Some(&read) != response_as_wire_json(dialect, v, response).as_ref() {
                return Err(format!(
                    "step {i} v{v}: the response frame reads back as {read}"
                ));
            }
            let face = serde_json::to_value(response).map_err(|e| e.to_string())?;
            if let Some(d) = differs(&face, &read, "response") {
                return Err(format!("step {i} v{v}: {d}"));
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

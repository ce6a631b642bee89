//! A `Replay` of bytes-form records takes a fast way in (`handle_json` decodes the records
//! straight from the text). Every text here, well-formed or not, must get the same answer and
//! leave the same state as the general way (`Input::parse`, then `handle`), in both dialects.

mod common;

use common::observed;
use serde_json::{json, Value};
use streams_group_coordinator::api::{boundary_error_json, Input};
use streams_group_coordinator::records::Dialect;
use streams_group_coordinator::{Config, Coordinator};

fn config(dialect: Dialect) -> Config {
    Config {
        dialect,
        record_bytes: true,
        ..Default::default()
    }
}

/// The records a small group writes, as `{keyBytes, valueBytes}` objects.
fn log(dialect: Dialect) -> Vec<Value> {
    let mut c = Coordinator::new(config(dialect)).expect("a valid config");
    let topology = json!([{"subtopologyId": "0", "sourceTopics": ["a"],
        "stateChangelogTopics": [{"name": "g-store-changelog"}]}]);
    let mut inputs = vec![json!({"nowMs": 0, "type": "TopicMetadata",
        "topics": [{"name": "a", "partitions": 4}, {"name": "g-store-changelog", "partitions": 4}]})];
    if dialect == Dialect::Kip1071Draft {
        inputs.push(
            json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {
            "groupId": "g", "topologyId": "t", "topology": topology}}),
        );
    }
    for (i, m) in ["m1", "m2", "m3"].iter().enumerate() {
        let mut request = json!({"groupId": "g", "memberId": m, "memberEpoch": 0,
            "processId": format!("p{i}"), "rebalanceTimeoutMs": 60000,
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
        if dialect == Dialect::Kip1071Draft {
            request["topologyId"] = json!("t");
        } else {
            request["topology"] = json!({"epoch": 0, "subtopologies": topology});
            request["endpointInformationEpoch"] = json!(-1);
        }
        inputs.push(json!({"nowMs": 10 + i, "type": "StreamsGroupHeartbeat", "request": request}));
    }
    // m2 leaves: tombstones.
    let mut leave = json!({"groupId": "g", "memberId": "m2", "memberEpoch": -1});
    if dialect == Dialect::Kafka42 {
        leave["endpointInformationEpoch"] = json!(-1);
    }
    inputs.push(json!({"nowMs": 20, "type": "StreamsGroupHeartbeat", "request": leave}));
    let mut records = Vec::new();
    for input in inputs {
        let out: Value = serde_json::from_str(&c.handle_json(&input.to_string())).expect("JSON");
        for r in out["records"].as_array().into_iter().flatten() {
            records.push(json!({"keyBytes": r["keyBytes"], "valueBytes": r["valueBytes"]}));
        }
    }
    assert!(records.len() > 10, "the log has records: {}", records.len());
    records
}

/// The general way: what `handle_json` answers without its fast way in.
fn general(c: &mut Coordinator, dialect: Dialect, text: &str) -> String {
    match Input::parse(text).and_then(|input| c.handle(input)) {
        Ok(out) => out.to_json_string(dialect, true),
        Err(e) => boundary_error_json(&e).to_string(),
    }
}

fn texts(records: &[Value]) -> Vec<String> {
    let list = Value::Array(records.to_vec()).to_string();
    let with = |f: &dyn Fn(&mut Vec<Value>)| {
        let mut r = records.to_vec();
        f(&mut r);
        format!(
            r#"{{"nowMs": 100, "type": "Replay", "records": {}}}"#,
            Value::Array(r)
        )
    };
    vec![
        format!(r#"{{"nowMs": 100, "type": "Replay", "records": {list}}}"#),
        format!(r#"{{"type": "Replay", "records": {list}, "nowMs": 5}}"#),
        // Escaped slashes in the base64 text.
        format!(r#"{{"nowMs": 100, "type": "Replay", "records": {list}}}"#).replace('/', "\\/"),
        r#"{"nowMs": 1, "type": "Replay", "records": []}"#.to_string(),
        format!(r#"{{"nowMs": -1, "type": "Replay", "records": {list}}}"#),
        format!(r#"{{"nowMs": 1.5, "type": "Replay", "records": {list}}}"#),
        format!(r#"{{"nowMs": 1, "type": "Replay", "records": {list}, "extra": 1}}"#),
        format!(r#"{{"nowMs": 1, "type": "Replay", "type": "Replay", "records": {list}}}"#),
        format!(r#"{{"nowMs": 1, "type": "Replay", "records": {list}, "records": []}}"#),
        format!(r#"{{"nowMs": 1, "type": "Replay ", "records": {list}}}"#),
        format!(r#"{{"nowMs": 1, "type": "AdvanceTime", "records": {list}}}"#),
        r#"{"nowMs": 1, "type": "Replay"}"#.to_string(),
        with(&|r| r[0] = json!({"keyBytes": r[0]["keyBytes"]})),
        with(&|r| r[1]["valueBytes"] = Value::Null),
        with(&|r| r[2]["keyBytes"] = json!("not base64!")),
        with(&|r| r[2]["valueBytes"] = json!("AAAA")),
        with(&|r| r[3]["keyBytes"] = json!("AA==")),
        with(&|r| r[3]["keyBytes"] = json!("AAE=")),
        with(&|r| r[3]["keyBytes"] = json!("AAEAAWc=")),
        with(&|r| r[4]["extra"] = json!(1)),
        with(&|r| r[5] = json!({"keyBytes": 1, "valueBytes": null})),
        with(&|r| r[5] = json!([1])),
        with(&|r| r.push(json!({"key": {"type": 99, "data": {}}, "value": null}))),
        with(&|r| r.reverse()),
        with(&|r| r[0]["keyBytes"] = json!("A".repeat(40_000))),
    ]
}

#[test]
fn replay_text_answers_as_the_general_way() {
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let records = log(dialect);
        for text in texts(&records) {
            let mut fast = Coordinator::new(config(dialect)).expect("a valid config");
            let mut slow = Coordinator::new(config(dialect)).expect("a valid config");
            let a = fast.handle_json(&text);
            let b = general(&mut slow, dialect, &text);
            let shown: String = text.chars().take(160).collect();
            assert_eq!(a, b, "{dialect:?}: {shown}");
            assert_eq!(observed(&fast), observed(&slow), "{dialect:?}: {shown}");
            // A second replay of the same text on the rebuilt state, too.
            assert_eq!(
                fast.handle_json(&text),
                general(&mut slow, dialect, &text),
                "{dialect:?}, again: {shown}"
            );
        }
        // The plain log rebuilds the group.
        let mut c = Coordinator::new(config(dialect)).expect("a valid config");
        let text = format!(
            r#"{{"nowMs": 100, "type": "Replay", "records": {}}}"#,
            Value::Array(records.clone())
        );
        let out: Value = serde_json::from_str(&c.handle_json(&text)).expect("JSON");
        assert!(out.get("error").is_none(), "{out}");
        let group = c.group("g").expect("the group is rebuilt");
        assert_eq!(group.members.len(), 2, "m1 and m3 remain");
    }
}

//! A `Replay` of bytes-form records takes a fast way in (`handle_json` decodes the records
//! straight from the text). Every text here, well-formed or not, must get the same answer and
//! leave the same state as the general way (`Input::parse`, then `handle`), in both dialects;
//! and so must `Coordinator::replay_bytes` given the same records' bytes.

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

/// `Coordinator::replay_bytes` of bytes-form records (valid base64), answered as `handle_json`
/// answers.
#[cfg(feature = "replay-text")]
fn direct(c: &mut Coordinator, dialect: Dialect, records: &[Value], now_ms: i64) -> String {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    let bytes = |v: &Value| v.as_str().map(|s| STANDARD.decode(s).expect("base64"));
    let owned: Vec<(Vec<u8>, Option<Vec<u8>>)> = records
        .iter()
        .map(|r| {
            (
                bytes(&r["keyBytes"]).expect("a key"),
                bytes(&r["valueBytes"]),
            )
        })
        .collect();
    let borrowed: Vec<(&[u8], Option<&[u8]>)> = owned
        .iter()
        .map(|(k, v)| (k.as_slice(), v.as_deref()))
        .collect();
    match c.replay_bytes(&borrowed, now_ms) {
        Ok(out) => out.to_json_string(dialect, true),
        Err(e) => boundary_error_json(&e).to_string(),
    }
}

/// `replay_bytes` answers and leaves the state as a `Replay` input of the same records does:
/// the log, and the log with a record the general path skips or refuses, or in another order;
/// each twice, the second time on the rebuilt state.
#[cfg(feature = "replay-text")]
#[test]
fn replay_bytes_answers_as_a_replay_input() {
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let records = log(dialect);
        let mut cases = vec![records.clone(), Vec::new()];
        cases.extend(changed_logs(&records));
        let mut refused = 0;
        for case in cases {
            let text = format!(
                r#"{{"nowMs": 100, "type": "Replay", "records": {}}}"#,
                Value::Array(case.clone())
            );
            let mut fast = Coordinator::new(config(dialect)).expect("a valid config");
            let mut slow = Coordinator::new(config(dialect)).expect("a valid config");
            for pass in ["first", "again"] {
                let a = direct(&mut fast, dialect, &case, 100);
                let b = general(&mut slow, dialect, &text);
                let shown: String = text.chars().take(160).collect();
                assert_eq!(a, b, "{dialect:?}, {pass}: {shown}");
                assert_eq!(observed(&fast), observed(&slow), "{dialect:?}: {shown}");
                refused += usize::from(a.starts_with("{\"error\""));
            }
        }
        assert!(refused >= 4, "{dialect:?}: {refused} refusals");
    }
}

/// The log with one record that the general path skips or refuses, or in another order: records
/// in the bytes form still, with valid base64.
fn changed_logs(records: &[Value]) -> Vec<Vec<Value>> {
    let with = |f: &dyn Fn(&mut Vec<Value>)| {
        let mut r = records.to_vec();
        f(&mut r);
        r
    };
    vec![
        with(&|r| r[1]["valueBytes"] = Value::Null),
        with(&|r| r[2]["valueBytes"] = json!("AAAA")),
        with(&|r| r[3]["keyBytes"] = json!("AA==")),
        with(&|r| r[3]["keyBytes"] = json!("AAE=")),
        with(&|r| r[3]["keyBytes"] = json!("AAEAAWc=")),
        with(&|r| r[3]["keyBytes"] = json!("")),
        with(&|r| r.reverse()),
    ]
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
        // Escapes in the type and in a key's base64 (the fast way borrows its strings).
        format!(r#"{{"nowMs": 1, "type": "Repl\u0061y", "records": {list}}}"#),
        format!(r#"{{"nowMs": 1, "type": "Replay", "records": {list}}}"#)
            .replacen("A", "\\u0041", 3),
        format!(r#"{{"nowMs": 1, "type": "AdvanceTime", "records": {list}}}"#),
        r#"{"nowMs": 1, "type": "Replay"}"#.to_string(),
        with(&|r| r[0] = json!({"keyBytes": r[0]["keyBytes"]})),
        with(&|r| r[2]["keyBytes"] = json!("not base64!")),
        with(&|r| r[4]["extra"] = json!(1)),
        with(&|r| r[5] = json!({"keyBytes": 1, "valueBytes": null})),
        with(&|r| r[5] = json!([1])),
        with(&|r| r.push(json!({"key": {"type": 99, "data": {}}, "value": null}))),
        with(&|r| r[0]["keyBytes"] = json!("A".repeat(40_000))),
    ]
    .into_iter()
    .chain(changed_logs(records).into_iter().map(|r| {
        format!(
            r#"{{"nowMs": 100, "type": "Replay", "records": {}}}"#,
            Value::Array(r)
        )
    }))
    .collect()
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

/// Member records in the bytes form that the log above lacks: metadata with every optional
/// field, and irregular assignments the coordinator never writes (lists out of order, a
/// subtopology twice, epochs of another length, a null epochs list).
fn member_records(dialect: Dialect) -> Vec<Value> {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use streams_group_coordinator::records::{
        encode_key, encode_value, CurrentMemberAssignmentValue, Endpoint, KeyValue,
        MemberMetadataValue, RecordKey, RecordValue, TargetAssignmentMemberValue, TaskIds,
    };
    let ids = |sub: &str, parts: &[i32], epochs: Option<&[i32]>| TaskIds {
        subtopology_id: sub.into(),
        partitions: parts.to_vec(),
        assignment_epochs: epochs.map(<[i32]>::to_vec),
    };
    let current = CurrentMemberAssignmentValue {
        member_epoch: 7,
        previous_member_epoch: 6,
        state: 2,
        active_tasks: vec![
            ids("0", &[3, 1], Some(&[5, 6])),
            ids("0", &[2], None),
            ids("1", &[0], Some(&[1, 2])),
        ],
        standby_tasks: vec![ids("1", &[1, 1], Some(&[]))],
        active_tasks_pending_revocation: vec![ids("1", &[2], Some(&[4]))],
        ..Default::default()
    };
    let target = TargetAssignmentMemberValue {
        active_tasks: vec![ids("1", &[0], None), ids("0", &[1, 0], None)],
        standby_tasks: vec![ids("0", &[], None)],
        warmup_tasks: vec![],
    };
    let metadata = MemberMetadataValue {
        instance_id: Some("i-1".into()),
        rack_id: Some("r1".into()),
        client_id: "c".into(),
        client_host: "/h".into(),
        rebalance_timeout_ms: 1000,
        topology_id: if dialect == Dialect::Kip1071Draft {
            "t".into()
        } else {
            String::new()
        },
        topology_epoch: 3,
        process_id: "p9".into(),
        user_endpoint: Some(Endpoint {
            host: "h".into(),
            port: 9,
        }),
        client_tags: vec![KeyValue {
            key: "k".into(),
            value: "v".into(),
        }],
    };
    let m = |member: &str| (String::from("g"), member.to_string());
    let (g4, m4) = m("m4");
    let (g1, m1) = m("m1");
    let (g3, m3) = m("m3");
    [
        (
            RecordKey::MemberMetadata {
                group_id: g4,
                member_id: m4,
            },
            RecordValue::MemberMetadata(Box::new(metadata)),
        ),
        (
            RecordKey::CurrentMemberAssignment {
                group_id: g1,
                member_id: m1,
            },
            RecordValue::CurrentMemberAssignment(Box::new(current)),
        ),
        (
            RecordKey::TargetAssignmentMember {
                group_id: g3,
                member_id: m3,
            },
            RecordValue::TargetAssignmentMember(target),
        ),
    ]
    .iter()
    .map(|(k, v)| {
        json!({"keyBytes": STANDARD.encode(encode_key(dialect, k)),
               "valueBytes": STANDARD.encode(encode_value(dialect, v))})
    })
    .collect()
}

/// The fast way reads member metadata, target and current assignment records in place: after
/// the log, each such record (the coordinator's and the ones above), with each of its value's
/// bytes changed and cut at each length, must answer and leave the state as the general way
/// does.
#[test]
fn member_records_read_in_place_answer_as_the_general_way() {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use streams_group_coordinator::records::{codec::record_type, RecordType};
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let log = log(dialect);
        let mut cases = log.clone();
        cases.extend(member_records(dialect));
        let mut checked = 0;
        for record in &cases {
            let key = STANDARD
                .decode(record["keyBytes"].as_str().expect("key"))
                .expect("base64");
            let kind = record_type(dialect, i16::from_be_bytes([key[0], key[1]]));
            let Some(value) = record["valueBytes"].as_str() else {
                continue;
            };
            if !matches!(
                kind,
                Some(
                    RecordType::MemberMetadata
                        | RecordType::TargetAssignmentMember
                        | RecordType::CurrentMemberAssignment
                )
            ) {
                continue;
            }
            let value = STANDARD.decode(value).expect("base64");
            let mut variants = vec![value.clone()];
            for at in 0..value.len() {
                variants.push(value[..at].to_vec());
                for flip in [1u8, 0x80] {
                    let mut changed = value.clone();
                    changed[at] ^= flip;
                    variants.push(changed);
                }
            }
            for v in variants {
                let mut records = log.clone();
                records.push(json!({"keyBytes": record["keyBytes"],
                                    "valueBytes": STANDARD.encode(&v)}));
                let text = format!(
                    r#"{{"nowMs": 100, "type": "Replay", "records": {}}}"#,
                    Value::Array(records.clone())
                );
                let mut fast = Coordinator::new(config(dialect)).expect("a valid config");
                let mut slow = Coordinator::new(config(dialect)).expect("a valid config");
                let a = fast.handle_json(&text);
                let b = general(&mut slow, dialect, &text);
                assert_eq!(a, b, "{dialect:?}: value {v:?}");
                assert_eq!(observed(&fast), observed(&slow), "{dialect:?}: value {v:?}");
                #[cfg(feature = "replay-text")]
                {
                    let mut bytes = Coordinator::new(config(dialect)).expect("a valid config");
                    let c = direct(&mut bytes, dialect, &records, 100);
                    assert_eq!(c, b, "{dialect:?}, replay_bytes: value {v:?}");
                    assert_eq!(observed(&bytes), observed(&slow), "{dialect:?}: {v:?}");
                }
                checked += 1;
            }
        }
        assert!(checked > 200, "{dialect:?}: {checked} variants");
    }
}

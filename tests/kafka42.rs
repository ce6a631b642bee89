//! Targeted tests of the `kafka-4.2` dialect that a single scenario file cannot express (two
//! coordinators with different settings sharing one log).

use serde_json::{json, Value};
use streams_group_coordinator::Coordinator;

mod common;
use common::send;

fn join(now: i64, member: &str) -> Value {
    json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": member, "memberEpoch": 0, "endpointInformationEpoch": -1,
        "processId": member, "rebalanceTimeoutMs": 60000,
        "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"],
            "stateChangelogTopics": [{"name": "store-changelog"}]}]},
        "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
}

fn topics(now: i64) -> Value {
    json!({"nowMs": now, "type": "TopicMetadata", "topics": [
        {"name": "in", "partitions": 2}, {"name": "store-changelog", "partitions": 2}]})
}

/// PROTOCOL 4.6: LastAssignmentConfigs are persisted, so a coordinator restarted with another
/// standby setting bumps each group at its next heartbeat and assigns standbys.
#[test]
fn a_changed_standby_setting_bumps_after_a_rebuild() {
    let config = |n: i32| {
        json!({"dialect": "kafka-4.2", "recordBytes": true,
               "group.streams.initial.rebalance.delay.ms": 0, "group.streams.num.standby.replicas": n})
    };
    let mut live = Coordinator::from_json_config(&config(0)).unwrap();
    let mut log: Vec<Value> = Vec::new();
    for input in [topics(0), join(1000, "a"), join(2000, "b")] {
        let out = send(&mut live, input);
        log.extend(
            out["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| json!({"keyBytes": r["keyBytes"], "valueBytes": r["valueBytes"]})),
        );
    }
    let mut rebuilt = Coordinator::from_json_config(&config(1)).unwrap();
    let out = send(
        &mut rebuilt,
        json!({"nowMs": 3000, "type": "Replay", "records": log}),
    );
    assert!(out.get("error").is_none(), "{out}");
    assert_eq!(rebuilt.groups(), live.groups());
    send(&mut rebuilt, topics(3000));
    let out = send(
        &mut rebuilt,
        json!({"nowMs": 4000, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "a", "memberEpoch": 2, "endpointInformationEpoch": 0}}),
    );
    assert_eq!(out["response"]["errorCode"], 0, "{out}");
    let bump = &out["explain"][0];
    assert_eq!(bump["code"], "GROUP_EPOCH_BUMPED");
    assert_eq!(bump["reasons"], json!(["ASSIGNMENT_CONFIG_CHANGED"]));
    let metadata = &out["records"][0]["value"]["data"];
    assert_eq!(metadata["epoch"], 4);
    assert_eq!(
        metadata["lastAssignmentConfigs"],
        json!([{"key": "num.standby.replicas", "value": "1"}])
    );
    // Every member now has a standby target (two processes, one replica each).
    let g = rebuilt.group("g").unwrap();
    assert!(g.targets.values().all(|t| !t.standby.is_empty()));
    // The same coordinator without the change writes nothing for the same heartbeat.
    let out = send(
        &mut live,
        json!({"nowMs": 4000, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "a", "memberEpoch": 2, "endpointInformationEpoch": 0}}),
    );
    assert!(out["explain"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["code"] != "GROUP_EPOCH_BUMPED"));
}

/// A topology whose configuration fails (here: a repartition topic nobody writes) is
/// STREAMS_INVALID_TOPOLOGY (130) and writes nothing (PROTOCOL 4.3, 4.11).
#[test]
fn a_configuration_failure_is_130() {
    let mut c = Coordinator::from_json_config(&json!({"dialect": "kafka-4.2"})).unwrap();
    send(&mut c, topics(0));
    let out = send(
        &mut c,
        json!({"nowMs": 1000, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "m", "memberEpoch": 0, "endpointInformationEpoch": -1,
            "processId": "p", "rebalanceTimeoutMs": 60000,
            "topology": {"epoch": 0, "subtopologies": [
                {"subtopologyId": "0", "sourceTopics": ["in"], "repartitionSinkTopics": ["r1"]},
                {"subtopologyId": "1", "repartitionSourceTopics": [{"name": "r1"}, {"name": "r2"}]}]},
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}),
    );
    assert_eq!(out["response"]["errorCode"], 130, "{out}");
    assert_eq!(
        out["response"]["errorMessage"],
        "Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic."
    );
    assert_eq!(out["records"], json!([]));
    assert!(c.group("g").is_none());
}

/// PROTOCOL 5.6: `LastAssignmentConfigs` defaults to the empty list, so Kafka leaves an empty
/// list out of the bytes and the JSON form. A group replayed with an empty list (as a log may
/// hold it) writes its next group metadata record without tag 1.
#[test]
fn an_empty_last_assignment_configs_list_is_left_out_of_later_writes() {
    let config = json!({"dialect": "kafka-4.2", "recordBytes": true,
                        "group.streams.initial.rebalance.delay.ms": 0});
    let mut live = Coordinator::from_json_config(&config).unwrap();
    let mut log: Vec<Value> = Vec::new();
    for input in [topics(0), join(1000, "a"), join(2000, "b")] {
        let out = send(&mut live, input);
        log.extend(out["records"].as_array().unwrap().iter().map(|r| {
            let mut r = r.clone();
            let obj = r.as_object_mut().unwrap();
            obj.remove("keyBytes");
            obj.remove("valueBytes");
            if r["key"]["type"] == 17 {
                r["value"]["data"]["lastAssignmentConfigs"] = json!([]);
            }
            r
        }));
    }
    let mut rebuilt = Coordinator::from_json_config(&config).unwrap();
    let out = send(
        &mut rebuilt,
        json!({"nowMs": 3000, "type": "Replay", "records": log}),
    );
    assert!(out.get("error").is_none(), "{out}");
    // "b" leaves: the fence bumps the epoch with the group's stored configs.
    let out = send(
        &mut rebuilt,
        json!({"nowMs": 4000, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "b", "memberEpoch": -1, "endpointInformationEpoch": 0}}),
    );
    assert_eq!(out["response"]["errorCode"], 0, "{out}");
    let metadata: Vec<&Value> = out["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["key"]["type"] == 17)
        .collect();
    assert_eq!(metadata.len(), 1, "{out}");
    let data = &metadata[0]["value"]["data"];
    assert!(data.get("lastAssignmentConfigs").is_none(), "{data}");
    // Version, epoch, hash, then a tag section with tag 0 (the validated epoch) only.
    let epoch = data["epoch"].as_i64().unwrap() as i32;
    let hash = data["metadataHash"].as_i64().unwrap();
    let validated = data["validatedTopologyEpoch"].as_i64().unwrap() as i32;
    let mut expected = vec![0u8, 0];
    expected.extend(epoch.to_be_bytes());
    expected.extend(hash.to_be_bytes());
    expected.extend([1, 0, 4]);
    expected.extend(validated.to_be_bytes());
    assert_eq!(metadata[0]["valueBytes"], json!(b64(&expected)));
}

/// Standard base64 with padding, as the outputs carry record bytes.
fn b64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

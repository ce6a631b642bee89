//! Bounded cost: the work one input may ask for is limited by settings with Kafka-style names,
//! and work over a limit is refused with a clear answer before it is done.

use serde_json::{json, Value};
use streams_group_coordinator::Coordinator;

mod common;
use common::send;

fn k42(extra: Value) -> Coordinator {
    let mut config = json!({"dialect": "kafka-4.2", "group.streams.initial.rebalance.delay.ms": 0});
    for (k, v) in extra.as_object().unwrap() {
        config[k] = v.clone();
    }
    Coordinator::from_json_config(&config).unwrap()
}

fn join42(now: i64, member: &str, topology: Value) -> Value {
    json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": member, "memberEpoch": 0, "endpointInformationEpoch": -1,
        "processId": member, "rebalanceTimeoutMs": 60000, "topology": topology,
        "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
}

fn simple_topology() -> Value {
    json!({"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]})
}

/// A host reporting a topic with a million partitions: the group is not ready (status 2 names
/// the limit) and no assignment is computed; the answer is immediate.
#[test]
fn a_host_reported_partition_count_over_the_limit_leaves_the_group_not_ready() {
    let mut c = k42(json!({}));
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 1_000_000}]}),
    );
    let out = send(&mut c, join42(1000, "m1", simple_topology()));
    assert_eq!(out["response"]["errorCode"], 0, "{out}");
    let status = &out["response"]["status"];
    assert_eq!(status[0]["statusCode"], 2, "{out}");
    let detail = status[0]["statusDetail"].as_str().unwrap();
    assert!(
        detail.contains("group.streams.max.tasks.per.subtopology"),
        "{detail}"
    );
    // The target is empty: the assignor never ran over a million tasks.
    let targets: Vec<&Value> = out["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["key"]["type"] == 21)
        .collect();
    assert_eq!(targets.len(), 1, "{out}");
    assert_eq!(
        targets[0]["value"]["data"]["activeTasks"],
        json!([]),
        "{out}"
    );
    // Past the default limit but under a raised one, a group is assigned.
    let mut c = k42(json!({"group.streams.max.tasks.per.subtopology": 40_000}));
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 35_000}]}),
    );
    let out = send(&mut c, join42(1000, "m1", simple_topology()));
    assert_eq!(out["response"]["status"], json!([]), "{out}");
}

/// A client declaring a repartition topic of five million partitions is refused at the join.
#[test]
fn a_declared_repartition_topic_over_the_limit_is_an_invalid_topology() {
    let mut c = k42(json!({}));
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 4}]}),
    );
    let topology = json!({"epoch": 0, "subtopologies": [
        {"subtopologyId": "0", "sourceTopics": ["in"], "repartitionSinkTopics": ["r"]},
        {"subtopologyId": "1", "sourceTopics": ["r"],
         "repartitionSourceTopics": [{"name": "r", "partitions": 5_000_000}]}]});
    let out = send(&mut c, join42(1000, "m1", topology));
    assert_eq!(out["response"]["errorCode"], 130, "{out}");
    let message = out["response"]["errorMessage"].as_str().unwrap();
    assert!(message.contains("r has 5000000 partitions"), "{message}");
    assert!(c.group("g").is_none(), "a refused join stored a group");
}

fn draft() -> Coordinator {
    Coordinator::from_json_config(&json!({})).unwrap()
}

fn initialize(now: i64, topology: Value) -> Value {
    json!({"nowMs": now, "type": "StreamsGroupInitialize", "request": {
        "groupId": "g", "topologyId": "t", "topology": topology}})
}

fn draft_join(c: &mut Coordinator, now: i64) -> String {
    let out = send(
        c,
        json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "", "memberEpoch": 0, "topologyId": "t", "processId": "p",
            "rebalanceTimeoutMs": 60000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}),
    );
    out["response"]["memberId"].as_str().unwrap().to_string()
}

#[test]
fn too_many_or_too_large_regexes_are_an_invalid_topology() {
    let mut c = draft();
    draft_join(&mut c, 0);
    let many: Vec<String> = (0..11).map(|i| format!("t{i}-.*")).collect();
    let out = send(
        &mut c,
        initialize(
            10,
            json!([{"subtopologyId": "0", "sourceTopicRegex": many}]),
        ),
    );
    assert_eq!(out["response"]["errorCode"], 129, "{out}");
    assert!(out["response"]["errorMessage"]
        .as_str()
        .unwrap()
        .contains("11 source topic regular expressions"));
    // A short pattern whose compiled program is huge.
    let out = send(
        &mut c,
        initialize(
            20,
            json!([{"subtopologyId": "0", "sourceTopicRegex": ["(?:[a-z]?){600}"]}]),
        ),
    );
    assert_eq!(out["response"]["errorCode"], 129, "{out}");
    assert!(out["response"]["errorMessage"]
        .as_str()
        .unwrap()
        .contains("group.streams.topology.max.regex.compiled.bytes"));
}

#[test]
fn out_of_range_or_too_many_owned_tasks_are_refused_in_the_draft() {
    let mut c = Coordinator::from_json_config(&json!({"group.streams.max.tasks": 1000})).unwrap();
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 2}]}),
    );
    let member = draft_join(&mut c, 0);
    let out = send(
        &mut c,
        initialize(10, json!([{"subtopologyId": "0", "sourceTopics": ["in"]}])),
    );
    assert_eq!(out["response"]["errorCode"], 0, "{out}");
    let heartbeat = |owned: Value| {
        json!({"nowMs": 20, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": member, "memberEpoch": 1,
            "activeTasks": owned, "standbyTasks": [], "warmupTasks": []}})
    };
    let out = send(
        &mut c,
        heartbeat(json!([{"subtopologyId": "0", "partitions": [0, 7]}])),
    );
    assert_eq!(out["response"]["errorCode"], 42, "{out}");
    assert_eq!(
        out["response"]["errorMessage"],
        "Task 7 for subtopology 0 is invalid. Number of tasks for this subtopology: 2"
    );
    let many: Vec<i32> = (0..1001).collect();
    let out = send(
        &mut c,
        heartbeat(json!([{"subtopologyId": "0", "partitions": many}])),
    );
    assert_eq!(out["response"]["errorCode"], 42, "{out}");
    assert!(out["response"]["errorMessage"]
        .as_str()
        .unwrap()
        .contains("1001 owned tasks"));
    let offsets: Vec<Value> = (0..1001)
        .map(|p| json!({"subtopologyId": "0", "partition": p, "offset": 1}))
        .collect();
    let out = send(
        &mut c,
        json!({"nowMs": 30, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": member, "memberEpoch": 1, "taskOffsets": offsets}}),
    );
    assert_eq!(out["response"]["errorCode"], 42, "{out}");
    assert!(out["response"]["errorMessage"]
        .as_str()
        .unwrap()
        .contains("1001 task offsets"));
}

/// An assignment whose records could not fit the batch is refused before it is computed.
#[test]
fn an_assignment_that_cannot_fit_the_batch_is_refused_up_front() {
    let mut c = k42(json!({"maxRecordBatchBytes": 2000}));
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 1000}]}),
    );
    let out = send(&mut c, join42(1000, "m1", simple_topology()));
    assert_eq!(out["response"]["errorCode"], -1, "{out}");
    // Kafka answers -1 without a message; the cause is in `explain`.
    assert_eq!(out["response"]["errorMessage"], Value::Null, "{out}");
    assert_eq!(out["explain"][0]["code"], "SERVER_ERROR", "{out}");
    let message = out["explain"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("would take at least 4000 bytes"),
        "{message}"
    );
    assert!(c.group("g").is_none());
}

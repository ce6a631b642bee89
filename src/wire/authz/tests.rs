//! Authorization as Kafka answers it: the vocabulary, the allow-list, and whole frames through
//! [`handle_frame_authorized`], API by API, allowed, group denied, topic denied and partial.

use super::*;
use crate::api::{Input, Output};
use crate::records::Dialect;
use crate::wire::{
    encode_request, handle_frame_authorized, response_json, Broker, FrameScratch, Peer,
};
use crate::{Config, Coordinator};
use serde_json::Value;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use AclOperation::*;
use ResourceType::*;

fn coordinator(dialect: Dialect) -> Coordinator {
    Coordinator::new(Config {
        dialect,
        ..Config::default()
    })
    .expect("a valid config")
}

/// Runs `input` as a frame of version `v` through the authorized entry point: the response as
/// Kafka's JSON, and the output.
fn run(c: &mut Coordinator, input: &str, v: i16, a: &dyn Authorizer) -> (Value, Output) {
    let dialect = c.config().dialect;
    let input = Input::parse(input).expect("an input");
    let frame = encode_request(dialect, &input.kind, v, 7).expect("a frame");
    let key = i16::from_be_bytes([frame[0], frame[1]]);
    let mut out = Vec::new();
    let peer = Peer {
        client_host: "/10.0.0.1".into(),
    };
    let broker = Broker {
        topics: None,
        authorizer: a,
    };
    let output = handle_frame_authorized(
        c,
        &mut FrameScratch::default(),
        &frame,
        input.now_ms,
        &peer,
        &mut out,
        broker,
    )
    .expect("an answer");
    let (_, json) = response_json(dialect, key, v, &out).expect("readable");
    (json, output)
}

/// Feeds plain inputs (no authorization) to set a coordinator up.
fn feed(c: &mut Coordinator, lines: &[&str]) {
    for l in lines {
        let _ = c.handle(Input::parse(l).expect("an input")).expect("done");
    }
}

fn codes(topics: &Value) -> Vec<(String, Vec<i64>)> {
    topics
        .as_array()
        .expect("topics")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or_default().to_string();
            let codes = t["partitions"]
                .as_array()
                .expect("partitions")
                .iter()
                .map(|p| p["errorCode"].as_i64().unwrap_or(-9))
                .collect();
            (name, codes)
        })
        .collect()
}

const TOPICS: &str = r#"{"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 2}, {"name": "secret", "partitions": 1}]}"#;

// ---------------------------------------------------------------------------------------------
// The vocabulary and the allow-list.

#[test]
fn operations_and_resource_types_have_kafkas_codes() {
    let ops: Vec<(i8, &str)> = AclOperation::CONCRETE
        .iter()
        .map(|o| (o.code(), o.name()))
        .collect();
    assert_eq!(ops[0], (3, "READ"));
    assert_eq!(ops[5], (8, "DESCRIBE"));
    assert_eq!(ops[9], (12, "IDEMPOTENT_WRITE"));
    assert_eq!(All.code(), 2);
    for o in AclOperation::CONCRETE {
        assert_eq!(AclOperation::from_code(o.code()), Some(o));
    }
    assert_eq!(AclOperation::from_code(0), None);
    assert_eq!(AclOperation::from_code(1), None);
    let types: Vec<i8> = [Topic, Group, Cluster, TransactionalId]
        .iter()
        .map(|r| r.code())
        .collect();
    assert_eq!(types, [2, 3, 4, 5]);
    assert_eq!(ResourceType::from_code(5), Some(TransactionalId));
    assert_eq!(TransactionalId.name(), "TRANSACTIONAL_ID");
}

#[test]
fn decisions_imply_describe_as_kafka_does() {
    let d = Decisions::none()
        .allow(Read, Group, "g")
        .allow(AlterConfigs, Group, "g")
        .allow_prefix(Write, Topic, "app-")
        .allow(Delete, Group, "*");
    assert!(d.authorize(Read, Group, "g"));
    assert!(d.authorize(Describe, Group, "g"), "READ implies DESCRIBE");
    assert!(d.authorize(DescribeConfigs, Group, "g"));
    assert!(!d.authorize(Read, Group, "h"));
    assert!(
        d.authorize(Describe, Group, "h"),
        "DELETE on * implies DESCRIBE"
    );
    assert!(d.authorize(Describe, Topic, "app-x"));
    assert!(!d.authorize(Read, Topic, "app-x"));
    assert!(!d.authorize(Describe, Topic, "ap"));
    assert!(!d.authorize(Describe, Cluster, CLUSTER_NAME));
    assert!(Decisions::super_user().authorize(Create, Cluster, CLUSTER_NAME));
    assert!(Decisions::none()
        .allow(All, Topic, "t")
        .authorize(Create, Topic, "t"));
}

#[test]
fn decisions_read_from_json() {
    let d = Decisions::from_json(
        r#"{"allow": [{"operation": "READ", "resourceType": "GROUP", "name": "g"},
                      {"operation": "DESCRIBE", "resourceType": "TOPIC", "name": "in", "patternType": "PREFIXED"}]}"#,
    )
    .expect("decisions");
    assert!(d.authorize(Describe, Group, "g"));
    assert!(d.authorize(Describe, Topic, "inner"));
    assert!(!d.super_user);
    let e = Decisions::from_json(
        r#"{"allow": [{"operation": "READ", "resourceType": "NOPE", "name": "g"}]}"#,
    );
    assert!(e
        .expect_err("refused")
        .starts_with("authorization decisions: "));
    assert!(Decisions::from_json(r#"{"superUser": true}"#)
        .expect("decisions")
        .authorize(Alter, Cluster, CLUSTER_NAME));
    // Lists of fields in order are no decisions and no grants.
    for list in [
        "[true]",
        "[]",
        r#"{"allow": [["READ", "GROUP", "g"]]}"#,
        "",
        "null",
    ] {
        assert!(
            Decisions::from_json(list).is_err(),
            "{list} is not decisions"
        );
    }
}

#[test]
fn authorized_operations_are_the_bits_of_the_supported_operations_allowed() {
    let d = Decisions::none().allow(Read, Group, "g");
    assert_eq!(authorized_operations(&d, Group, "g"), (1 << 3) | (1 << 8));
    let all = Decisions::super_user();
    let bits = (1 << 3) | (1 << 8) | (1 << 6) | (1 << 10) | (1 << 11);
    assert_eq!(authorized_operations(&all, Group, "g"), bits);
    assert_eq!(authorized_operations(&Decisions::none(), Group, "g"), 0);
    // A closure is an authorizer too.
    let f = |op: AclOperation, _: ResourceType, _: &str| op == Delete;
    assert_eq!(authorized_operations(&f, Group, "g"), 1 << 6);
}

// ---------------------------------------------------------------------------------------------
// Offsets: OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete.

fn commit(group: &str) -> String {
    format!(
        r#"{{"nowMs": 1, "type": "OffsetCommit", "request": {{"groupId": "{group}", "topics": [{{"name": "secret", "partitions": [{{"partitionIndex": 0, "committedOffset": 5}}]}}, {{"name": "in", "partitions": [{{"partitionIndex": 0, "committedOffset": 7}}, {{"partitionIndex": 1, "committedOffset": 8}}]}}]}}}}"#
    )
}

/// Reads `in` and `secret`'s offsets of `admin`, every one committed.
fn offsets_set_up(dialect: Dialect) -> Coordinator {
    let mut c = coordinator(dialect);
    feed(&mut c, &[TOPICS, &commit("admin")]);
    c
}

#[test]
fn offset_commit_needs_the_groups_read_and_each_topics_read() {
    for dialect in [Dialect::Kafka42, Dialect::Kafka43, Dialect::Kafka44] {
        let mut c = offsets_set_up(dialect);
        // Allowed: both topics committed.
        let all = Decisions::none()
            .allow(Read, Group, "admin")
            .allow(Read, Topic, "*");
        let (json, out) = run(&mut c, &commit("admin"), 9, &all);
        assert_eq!(
            codes(&json["topics"]),
            [("secret".into(), vec![0]), ("in".into(), vec![0, 0])]
        );
        assert_eq!(out.records.len(), 3);

        // The group denied: every partition GROUP_AUTHORIZATION_FAILED, nothing written.
        let no_group = Decisions::none()
            .allow(Read, Topic, "*")
            .allow(Describe, Group, "admin");
        let (json, out) = run(&mut c, &commit("admin"), 9, &no_group);
        assert_eq!(
            codes(&json["topics"]),
            [("secret".into(), vec![30]), ("in".into(), vec![30, 30])]
        );
        assert_eq!(out, Output::default());

        // One topic denied: TOPIC_AUTHORIZATION_FAILED first, then the coordinator's answer.
        let partial = Decisions::none()
            .allow(Read, Group, "admin")
            .allow(Read, Topic, "in");
        let (json, out) = run(&mut c, &commit("admin"), 9, &partial);
        assert_eq!(
            codes(&json["topics"]),
            [("secret".into(), vec![29]), ("in".into(), vec![0, 0])]
        );
        assert_eq!(out.records.len(), 2);

        // No topic allowed: answered without the coordinator.
        let none = Decisions::none().allow(Read, Group, "admin");
        let (json, out) = run(&mut c, &commit("admin"), 9, &none);
        assert_eq!(
            codes(&json["topics"]),
            [("secret".into(), vec![29]), ("in".into(), vec![29, 29])]
        );
        assert_eq!(out, Output::default());
    }
}

#[test]
fn txn_offset_commit_checks_the_transactional_id_then_the_group_then_topics() {
    let txn = r#"{"nowMs": 2, "type": "TxnOffsetCommit", "request": {"transactionalId": "tx", "groupId": "admin", "producerId": 1, "producerEpoch": 0, "generationIdOrMemberEpoch": -1, "memberId": "", "topics": [{"name": "in", "partitions": [{"partitionIndex": 0, "committedOffset": 9}]}, {"name": "secret", "partitions": [{"partitionIndex": 0, "committedOffset": 9}]}]}}"#;
    let mut c = offsets_set_up(Dialect::Kafka42);
    let nothing = Decisions::none();
    let (json, out) = run(&mut c, txn, 3, &nothing);
    assert_eq!(
        codes(&json["topics"]),
        [("in".into(), vec![53]), ("secret".into(), vec![53])]
    );
    assert_eq!(out, Output::default());
    let txn_only = Decisions::none().allow(Write, TransactionalId, "tx");
    let (json, _) = run(&mut c, txn, 3, &txn_only);
    assert_eq!(
        codes(&json["topics"]),
        [("in".into(), vec![30]), ("secret".into(), vec![30])]
    );
    let partial = txn_only
        .allow(Read, Group, "admin")
        .allow(Read, Topic, "in");
    let (json, out) = run(&mut c, txn, 3, &partial);
    assert_eq!(
        codes(&json["topics"]),
        [("secret".into(), vec![29]), ("in".into(), vec![0])]
    );
    assert_eq!(out.records.len(), 1);
}

#[test]
fn offset_fetch_hides_groups_and_topics_the_client_may_not_describe() {
    let mut c = offsets_set_up(Dialect::Kafka43);
    let fetch = r#"{"nowMs": 3, "type": "OffsetFetch", "request": {"groups": [{"groupId": "hidden", "topics": null}, {"groupId": "admin", "topics": [{"name": "secret", "partitionIndexes": [0]}, {"name": "in", "partitionIndexes": [1]}]}, {"groupId": "admin", "topics": null}]}}"#;
    let d = Decisions::none()
        .allow(Describe, Group, "admin")
        .allow(Describe, Topic, "in");
    let (json, _) = run(&mut c, fetch, 8, &d);
    let groups = json["groups"].as_array().expect("groups");
    assert_eq!(groups[0]["groupId"], "hidden");
    assert_eq!(groups[0]["errorCode"], 30);
    assert_eq!(groups[0]["topics"], serde_json::json!([]));
    // The listed topic denied comes after the coordinator's topics, offset -1.
    assert_eq!(
        codes(&groups[1]["topics"]),
        [("in".into(), vec![0]), ("secret".into(), vec![29])]
    );
    assert_eq!(
        groups[1]["topics"][0]["partitions"][0]["committedOffset"],
        8
    );
    assert_eq!(
        groups[1]["topics"][1]["partitions"][0]["committedOffset"],
        -1
    );
    // All offsets: the denied topic silently left out.
    assert_eq!(codes(&groups[2]["topics"]), [("in".into(), vec![0, 0])]);

    // Version 1 has no group error: every partition asked for carries it.
    let single = r#"{"nowMs": 3, "type": "OffsetFetch", "request": {"groups": [{"groupId": "hidden", "topics": [{"name": "in", "partitionIndexes": [0, 1]}]}]}}"#;
    let (json, _) = run(&mut c, single, 1, &d);
    assert_eq!(codes(&json["topics"]), [("in".into(), vec![30, 30])]);
    let (json, _) = run(&mut c, single, 7, &d);
    assert_eq!(json["errorCode"], 30);
    assert_eq!(json["topics"], serde_json::json!([]));
}

#[test]
fn offset_delete_needs_the_groups_delete_and_each_topics_read() {
    let mut c = offsets_set_up(Dialect::Kafka44);
    let delete = r#"{"nowMs": 4, "type": "OffsetDelete", "request": {"groupId": "admin", "topics": [{"name": "secret", "partitions": [{"partitionIndex": 0}]}, {"name": "in", "partitions": [{"partitionIndex": 0}]}]}}"#;
    let (json, out) = run(
        &mut c,
        delete,
        0,
        &Decisions::none().allow(Read, Group, "admin"),
    );
    assert_eq!(json["errorCode"], 30);
    assert_eq!(json["topics"], serde_json::json!([]));
    assert_eq!(out, Output::default());
    let partial = Decisions::none()
        .allow(Delete, Group, "admin")
        .allow(Read, Topic, "in");
    let (json, out) = run(&mut c, delete, 0, &partial);
    assert_eq!(json["errorCode"], 0);
    assert_eq!(
        codes(&json["topics"]),
        [("secret".into(), vec![29]), ("in".into(), vec![0])]
    );
    assert_eq!(out.records.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// Groups: DeleteGroups, ListGroups, DescribeGroups, ConsumerGroupDescribe.

#[test]
fn delete_groups_answers_denied_groups_after_the_others_once_each() {
    let mut c = offsets_set_up(Dialect::Kafka42);
    feed(&mut c, &[&commit("other")]);
    let del = r#"{"nowMs": 5, "type": "DeleteGroups", "groupIds": ["other", "admin", "other"]}"#;
    let d = Decisions::none().allow(Delete, Group, "admin");
    let (json, out) = run(&mut c, del, 2, &d);
    let results: Vec<(String, i64)> = json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["groupId"].as_str().unwrap_or("").into(),
                r["errorCode"].as_i64().unwrap_or(-9),
            )
        })
        .collect();
    assert_eq!(results, [("admin".into(), 0), ("other".into(), 30)]);
    assert!(!out.records.is_empty());
    // Nothing allowed: the coordinator is not asked.
    let (json, out) = run(&mut c, del, 2, &Decisions::none());
    assert_eq!(json["results"].as_array().expect("results").len(), 2);
    assert_eq!(out, Output::default());
}

#[test]
fn list_groups_shows_only_describable_groups_without_the_clusters_describe() {
    let mut c = offsets_set_up(Dialect::Kafka42);
    feed(&mut c, &[&commit("other")]);
    let list = r#"{"nowMs": 5, "type": "ListGroups", "request": {}}"#;
    let ids = |json: &Value| -> Vec<String> {
        let mut v: Vec<String> = json["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .map(|g| g["groupId"].as_str().unwrap_or("").to_string())
            .collect();
        v.sort();
        v
    };
    let (json, _) = run(
        &mut c,
        list,
        5,
        &Decisions::none().allow(Describe, Cluster, CLUSTER_NAME),
    );
    assert_eq!(ids(&json), ["admin", "other"]);
    let (json, _) = run(
        &mut c,
        list,
        5,
        &Decisions::none().allow(Read, Group, "other"),
    );
    assert_eq!(ids(&json), ["other"]);
    let (json, _) = run(&mut c, list, 5, &Decisions::none());
    assert_eq!(ids(&json), Vec::<String>::new());
}

#[test]
fn classic_and_consumer_describes_answer_denied_groups_first() {
    let mut c = offsets_set_up(Dialect::Kafka42);
    let d = Decisions::none().allow(Describe, Group, "admin");
    let describe = r#"{"nowMs": 5, "type": "DescribeGroups", "request": {"groups": ["admin", "hidden"], "includeAuthorizedOperations": true}}"#;
    let (json, _) = run(&mut c, describe, 5, &d);
    let groups = json["groups"].as_array().expect("groups");
    assert_eq!(
        (
            groups[0]["groupId"].as_str(),
            groups[0]["errorCode"].as_i64()
        ),
        (Some("hidden"), Some(30))
    );
    assert_eq!(groups[0]["authorizedOperations"], i32::MIN);
    assert_eq!(groups[1]["groupId"], "admin");
    let consumer = r#"{"nowMs": 5, "type": "ConsumerGroupDescribe", "request": {"groupIds": ["admin", "hidden"]}}"#;
    let (json, _) = run(&mut c, consumer, 0, &d);
    let groups = json["groups"].as_array().expect("groups");
    assert_eq!(
        (
            groups[0]["groupId"].as_str(),
            groups[0]["errorCode"].as_i64()
        ),
        (Some("hidden"), Some(30))
    );
    assert_eq!(groups[1]["groupId"], "admin");
}

// ---------------------------------------------------------------------------------------------
// Streams: StreamsGroupHeartbeat, StreamsGroupDescribe, StreamsGroupTopologyDescriptionUpdate.

fn join(sub: &str) -> String {
    format!(
        r#"{{"nowMs": 1000, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "app", "memberId": "m1", "memberEpoch": 0, "endpointInformationEpoch": -1, "topology": {{"epoch": 0, "subtopologies": [{sub}]}}, "processId": "p1", "rebalanceTimeoutMs": 30000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}}}"#
    )
}

const STATEFUL: &str = r#"{"subtopologyId": "0", "sourceTopics": ["in"], "stateChangelogTopics": [{"name": "app-store-changelog"}]}"#;

/// Everything the app needs: its group, its topics, and creating its internal topics.
fn app() -> Decisions {
    Decisions::none()
        .allow(Read, Group, "app")
        .allow(Describe, Topic, "in")
        .allow_prefix(All, Topic, "app-")
}

#[test]
fn a_heartbeat_needs_the_groups_read_then_its_topics_describe() {
    for dialect in [Dialect::Kafka42, Dialect::Kafka43, Dialect::Kafka44] {
        let v = if dialect == Dialect::Kafka44 { 1 } else { 0 };
        let mut c = coordinator(dialect);
        feed(&mut c, &[TOPICS]);
        let no_group = Decisions::none()
            .allow(Describe, Topic, "*")
            .allow(Describe, Group, "app");
        let (json, out) = run(&mut c, &join(STATEFUL), v, &no_group);
        assert_eq!(json["errorCode"], 30);
        assert_eq!(json["errorMessage"], Value::Null);
        assert_eq!(json["memberId"], "");
        assert_eq!(out, Output::default());

        let no_changelog = Decisions::none()
            .allow(Read, Group, "app")
            .allow(Describe, Topic, "in");
        let (json, out) = run(&mut c, &join(STATEFUL), v, &no_changelog);
        assert_eq!(json["errorCode"], 29);
        assert_eq!(json["errorMessage"], Value::Null);
        assert_eq!(out, Output::default());

        // A Kafka-internal topic is the coordinator's to refuse, before any topic is checked.
        let internal = r#"{"subtopologyId": "0", "sourceTopics": ["__consumer_offsets"]}"#;
        let (json, _) = run(&mut c, &join(internal), v, &no_changelog);
        assert_eq!(json["errorCode"], 130, "{json}");

        let (json, out) = run(&mut c, &join(STATEFUL), v, &app());
        assert_eq!(json["errorCode"], 0, "{json}");
        assert_eq!(json["memberEpoch"], 1);
        let names: Vec<&str> = out
            .topics_to_create
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["app-store-changelog"], "{dialect:?}");
    }
}

#[test]
fn internal_topics_the_client_may_not_create_are_reported_and_not_created() {
    let mut c = coordinator(Dialect::Kafka42);
    feed(&mut c, &[TOPICS]);
    let no_create = Decisions::none()
        .allow(Read, Group, "app")
        .allow(Describe, Topic, "*");
    let (json, out) = run(&mut c, &join(STATEFUL), 0, &no_create);
    assert_eq!(json["errorCode"], 0, "{json}");
    assert!(out.topics_to_create.is_empty());
    let missing: Vec<&Value> = json["status"]
        .as_array()
        .expect("status")
        .iter()
        .filter(|s| s["statusCode"] == 3)
        .collect();
    assert_eq!(missing.len(), 1, "{json}");
    let detail = missing[0]["statusDetail"].as_str().expect("detail");
    assert!(
        detail.ends_with("; Unauthorized to CREATE on topics app-store-changelog."),
        "{detail}"
    );
    // CREATE on the cluster is enough.
    let mut c = coordinator(Dialect::Kafka42);
    feed(&mut c, &[TOPICS]);
    let cluster = no_create.allow(Create, Cluster, CLUSTER_NAME);
    let (_, out) = run(&mut c, &join(STATEFUL), 0, &cluster);
    assert_eq!(out.topics_to_create.len(), 1);
}

#[test]
fn a_streams_describe_hides_groups_and_topologies_the_client_may_not_describe() {
    for dialect in [Dialect::Kafka42, Dialect::Kafka44] {
        let mut c = coordinator(dialect);
        feed(&mut c, &[TOPICS]);
        let v = if dialect == Dialect::Kafka44 { 1 } else { 0 };
        let _ = run(&mut c, &join(STATEFUL), v, &app());
        let describe = r#"{"nowMs": 1001, "type": "StreamsGroupDescribe", "request": {"groupIds": ["app", "hidden"], "includeAuthorizedOperations": true}}"#;
        let (json, _) = run(&mut c, describe, v, &app());
        let groups = json["groups"].as_array().expect("groups");
        assert_eq!(groups[0]["groupId"], "hidden");
        assert_eq!(groups[0]["errorCode"], 30);
        assert_eq!(groups[0]["authorizedOperations"], i32::MIN);
        assert_eq!(groups[1]["groupId"], "app");
        assert_eq!(groups[1]["errorCode"], 0);
        assert_eq!(groups[1]["authorizedOperations"], (1 << 3) | (1 << 8));

        // The changelog may not be described: the group is answered without its topology.
        let no_changelog = Decisions::none()
            .allow(Read, Group, "app")
            .allow(Describe, Topic, "in");
        let (json, _) = run(&mut c, describe, v, &no_changelog);
        let app = &json["groups"][1];
        assert_eq!(app["errorCode"], 29);
        assert_eq!(
            app["errorMessage"],
            "The described group uses topics that the client is not authorized to describe."
        );
        assert_eq!(app["topology"], Value::Null);
        assert_eq!(app["members"], serde_json::json!([]));
        assert_eq!(app["authorizedOperations"], i32::MIN);
    }
}

#[test]
fn a_topology_description_update_needs_the_groups_read() {
    let mut c = coordinator(Dialect::Kafka44);
    let update = r#"{"nowMs": 1, "type": "StreamsGroupTopologyDescriptionUpdate", "request": {"groupId": "app", "memberId": "m1", "topologyEpoch": 0, "topologyDescription": {"subtopologies": [], "globalStores": []}}}"#;
    let (json, out) = run(
        &mut c,
        update,
        0,
        &Decisions::none().allow(Describe, Group, "app"),
    );
    assert_eq!(json["errorCode"], 30);
    assert_eq!(json["errorMessage"], Value::Null);
    assert_eq!(out, Output::default());
    let (json, _) = run(
        &mut c,
        update,
        0,
        &Decisions::none().allow(Read, Group, "app"),
    );
    assert_ne!(json["errorCode"], 30);
}

#[test]
fn the_draft_follows_kafka_4_2_for_the_group_apis() {
    let mut c = coordinator(Dialect::Kip1071Draft);
    let describe =
        r#"{"nowMs": 1, "type": "StreamsGroupDescribe", "request": {"groupIds": ["hidden"]}}"#;
    let (json, _) = run(&mut c, describe, 0, &Decisions::none());
    assert_eq!(json["groups"][0]["errorCode"], 30);
    let hb = r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "app", "memberId": "m1", "memberEpoch": 0, "topologyId": "t", "processId": "p1", "rebalanceTimeoutMs": 30000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#;
    let (json, out) = run(&mut c, hb, 0, &Decisions::none());
    assert_eq!(json["errorCode"], 30);
    assert_eq!(out, Output::default());
}

//! The wire face's own answers: `ApiVersions`, frames Kafka would close the connection on, and
//! a heartbeat frame written out by hand from the schema.

use super::*;
use crate::api::HeartbeatRequest;
use crate::Config;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn coordinator(dialect: Dialect) -> Coordinator {
    Coordinator::new(Config {
        dialect,
        ..Config::default()
    })
    .expect("a valid config")
}

/// A frame: header version 1 or 2, then `body`.
fn frame(key: i16, version: i16, flexible: bool, body: &[u8]) -> Vec<u8> {
    let mut w = Vec::new();
    w.extend_from_slice(&key.to_be_bytes());
    w.extend_from_slice(&version.to_be_bytes());
    w.extend_from_slice(&7i32.to_be_bytes());
    w.extend_from_slice(&[0, 1, b'c']);
    if flexible {
        w.push(0);
    }
    w.extend_from_slice(body);
    w
}

fn peer() -> Peer {
    Peer {
        client_host: "/10.0.0.1".into(),
    }
}

/// The leaving heartbeat of member `m` of group `g`, version 0 of 4.2's schema, byte by byte.
fn leave_body() -> Vec<u8> {
    let mut b = vec![2, b'g', 2, b'm'];
    b.extend_from_slice(&(-1i32).to_be_bytes()); // MemberEpoch
    b.extend_from_slice(&0i32.to_be_bytes()); // EndpointInformationEpoch
    b.extend_from_slice(&[0, 0]); // InstanceId, RackId: null
    b.extend_from_slice(&(-1i32).to_be_bytes()); // RebalanceTimeoutMs
    b.push(0xff); // Topology: null struct
    b.extend_from_slice(&[0, 0, 0]); // Active, standby, warm-up tasks: null
    b.push(0); // ProcessId: null
    b.push(0xff); // UserEndpoint: null struct
    b.extend_from_slice(&[0, 0, 0]); // ClientTags, TaskOffsets, TaskEndOffsets: null
    b.push(0); // ShutdownApplication
    b.push(0); // tagged fields
    b
}

#[test]
fn a_heartbeat_written_by_hand_decodes_and_encodes_to_the_same_bytes() {
    let f = frame(88, 0, true, &leave_body());
    let (header, kind) = decode_request(Dialect::Kafka42, &f).expect("a heartbeat");
    assert_eq!(header.correlation_id, 7);
    assert_eq!(header.client_id.as_deref(), Some("c"));
    let Some(InputKind::StreamsGroupHeartbeat { request, .. }) = kind else {
        panic!("{kind:?}")
    };
    assert_eq!(
        *request,
        HeartbeatRequest {
            group_id: "g".into(),
            member_id: "m".into(),
            member_epoch: -1,
            endpoint_information_epoch: Some(0),
            rebalance_timeout_ms: -1,
            ..HeartbeatRequest::default()
        }
    );
    let kind = InputKind::StreamsGroupHeartbeat {
        client: ClientInfo {
            client_id: "c".into(),
            client_host: String::new(),
        },
        request,
    };
    assert_eq!(encode_request(Dialect::Kafka42, &kind, 0, 7), Some(f));
}

#[test]
fn api_versions_lists_what_the_dialect_serves() {
    let mut c = coordinator(Dialect::Kafka42);
    // Version 3: ClientSoftwareName and ClientSoftwareVersion, compact strings.
    let body = [4, b'j', b'a', b'v', 2, b'4', 0];
    let out = handle_frame(&mut c, &frame(18, 3, true, &body), 0, &peer()).expect("an answer");
    // Response header version 0 (the correlation id only), as Kafka writes it for ApiVersions.
    assert_eq!(out.frame[..4], 7i32.to_be_bytes());
    let (id, json) = response_json(Dialect::Kafka42, 18, 3, &out.frame).expect("readable");
    assert_eq!(id, 7);
    assert_eq!(json["errorCode"], 0);
    let keys: Vec<(i64, i64, i64)> = json["apiKeys"]
        .as_array()
        .expect("apiKeys")
        .iter()
        .map(|k| {
            let n = |f: &str| k[f].as_i64().unwrap_or(-9);
            (n("apiKey"), n("minVersion"), n("maxVersion"))
        })
        .collect();
    assert_eq!(
        keys,
        [
            (8, 2, 10),
            (9, 1, 10),
            (15, 0, 6),
            (16, 0, 5),
            (18, 0, 4),
            (28, 0, 5),
            (42, 0, 2),
            (47, 0, 0),
            (69, 0, 1),
            (88, 0, 0),
            (89, 0, 0)
        ]
    );
    assert_eq!(out.output, Output::default());
}

#[test]
fn api_versions_answers_an_unsupported_version_at_version_0() {
    let mut c = coordinator(Dialect::Kafka42);
    let out = handle_frame(&mut c, &frame(18, 9, true, &[1, 2, 3]), 0, &peer()).expect("an answer");
    let (_, json) = response_json(Dialect::Kafka42, 18, 0, &out.frame).expect("readable at v0");
    assert_eq!(json["errorCode"], 35);
    assert_eq!(
        json["apiKeys"],
        serde_json::json!([{"apiKey": 18, "minVersion": 0, "maxVersion": 4}])
    );
    // A name Kafka's pattern refuses: INVALID_REQUEST.
    let body = [4, b'j', b'a', b'-', 2, b'4', 0];
    let out = handle_frame(&mut c, &frame(18, 3, true, &body), 0, &peer()).expect("an answer");
    let (_, json) = response_json(Dialect::Kafka42, 18, 3, &out.frame).expect("readable");
    assert_eq!(json["errorCode"], 42);
    assert_eq!(json["apiKeys"], serde_json::json!([]));
}

/// Each frame Kafka closes the connection on: a boundary error at the named path, and nothing
/// changed.
#[test]
fn frames_kafka_would_close_the_connection_on_change_nothing() {
    let mut c = coordinator(Dialect::Kafka42);
    let join = crate::Input::parse(
        r#"{"nowMs": 0, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 1000, "topology": {"epoch": 0, "subtopologies": []}}}"#,
    )
    .expect("an input");
    let f = encode_request(Dialect::Kafka42, &join.kind, 0, 1).expect("a frame");
    handle_frame(&mut c, &f, 0, &peer()).expect("joined");
    let before = format!("{:?}", c.groups());
    let mut hostile = frame(88, 0, true, &[2, b'g', 2, b'm']);
    hostile.extend_from_slice(&[0; 12]);
    hostile.extend_from_slice(&[0xff; 5]); // ActiveTasks: a count of 2^32 - 2 in 5 bytes
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0, 88, 0], "header"),
        (frame(77, 0, true, &[]), "header.RequestApiKey"),
        (frame(93, 0, true, &[]), "header.RequestApiKey"),
        (
            frame(88, 1, true, &leave_body()),
            "header.RequestApiVersion",
        ),
        (
            frame(88, 0, true, &leave_body()[..9]),
            "body.EndpointInformationEpoch",
        ),
        (frame(88, 0, true, &[3, 0xff, 0xfe]), "body.GroupId"),
        (hostile, "body.ActiveTasks"),
    ];
    for (f, path) in cases {
        let e = handle_frame(&mut c, &f, 0, &peer()).expect_err(path);
        assert_eq!(
            (e.code, e.path.as_str()),
            (BoundaryCode::InvalidFrame, path),
            "{e}"
        );
        assert_eq!(format!("{:?}", c.groups()), before);
    }
}

#[test]
fn size_prefixed_streams_split_into_frames() {
    let stream = [0, 0, 0, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 9];
    assert_eq!(
        split_frames(&stream).expect("three frames"),
        [&[1u8, 2][..], &[][..], &[9][..]]
    );
    assert!(split_frames(&[0, 0, 0, 5, 1]).is_err());
    assert!(split_frames(&[0, 0]).is_err());
    assert!(split_frames(&[0xff, 0xff, 0xff, 0xff]).is_err());
}

#[test]
fn only_a_served_version_encodes() {
    let kind = InputKind::DeleteGroups {
        group_ids: vec!["g".into()],
    };
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let api = served(dialect)
            .into_iter()
            .find(|a| a.key == 42)
            .expect("DeleteGroups is served");
        for v in api.min..=api.max {
            assert!(encode_request(dialect, &kind, v, 1).is_some(), "v{v}");
        }
        for v in [api.min - 1, api.max + 1, i16::MAX] {
            assert_eq!(encode_request(dialect, &kind, v, 1), None, "v{v}");
        }
    }
}

/// A coordinator with topic `in` known by id `ID`, and `admin`'s offset of `in`-0 committed.
const ID: &str = "AAECAwQFBgcICQoLDA0ODw";

fn with_offsets(dialect: Dialect) -> Coordinator {
    let mut c = coordinator(dialect);
    for line in [
        format!(
            r#"{{"nowMs": 0, "type": "TopicMetadata", "topics": [{{"name": "in", "partitions": 2, "topicId": "{ID}"}}, {{"name": "plain", "partitions": 1}}]}}"#
        ),
        r#"{"nowMs": 1, "type": "OffsetCommit", "apiVersion": 9, "request": {"groupId": "admin", "topics": [{"name": "in", "partitions": [{"partitionIndex": 0, "committedOffset": 7, "committedLeaderEpoch": 4, "committedMetadata": "m"}]}, {"name": "plain", "partitions": [{"partitionIndex": 0, "committedOffset": 8}]}]}}"#.into(),
    ] {
        let _ = c.handle(crate::Input::parse(&line).expect("an input")).expect("done");
    }
    c
}

fn frame_of(dialect: Dialect, input: &str, v: i16) -> Vec<u8> {
    let input = crate::Input::parse(input).expect("an input");
    encode_request(dialect, &input.kind, v, 7).expect("a frame")
}

/// Version 10 names topics by id: the topic image names them, an id it does not know is
/// answered UNKNOWN_TOPIC_ID before the coordinator's topics, and a commit with no topic left
/// reaches no coordinator (no group is checked, nothing is written).
#[test]
fn version_10_topics_are_named_by_the_topic_image() {
    let mut c = with_offsets(Dialect::Kafka42);
    let unknown = "AAAAAAAAAAAAAAAAAAAAAQ";
    let commit = format!(
        r#"{{"nowMs": 2, "type": "OffsetCommit", "request": {{"groupId": "admin", "topics": [{{"name": "", "topicId": "{ID}", "partitions": [{{"partitionIndex": 1, "committedOffset": 9}}]}}, {{"name": "", "topicId": "{unknown}", "partitions": [{{"partitionIndex": 0, "committedOffset": 1}}, {{"partitionIndex": 1, "committedOffset": 1}}]}}]}}}}"#
    );
    let out = handle_frame(&mut c, &frame_of(Dialect::Kafka42, &commit, 10), 2, &peer())
        .expect("an answer");
    let (_, json) = response_json(Dialect::Kafka42, 8, 10, &out.frame).expect("readable");
    let codes: Vec<(u8, Vec<i64>)> = json["topics"]
        .as_array()
        .expect("topics")
        .iter()
        .map(|t| {
            let last = t["topicId"][15].as_u64().unwrap_or(99) as u8;
            let codes = t["partitions"]
                .as_array()
                .expect("partitions")
                .iter()
                .map(|p| p["errorCode"].as_i64().unwrap_or(-9))
                .collect();
            (last, codes)
        })
        .collect();
    assert_eq!(codes, [(1, vec![100, 100]), (15, vec![0])]);
    assert_eq!(out.output.records.len(), 1, "{:?}", out.output.records);

    // Only unknown topics, from a member the group would refuse: answered before any check.
    let only_unknown = format!(
        r#"{{"nowMs": 2, "type": "OffsetCommit", "request": {{"groupId": "admin", "generationIdOrMemberEpoch": 3, "memberId": "nobody", "topics": [{{"name": "", "topicId": "{unknown}", "partitions": [{{"partitionIndex": 0, "committedOffset": 1}}]}}]}}}}"#
    );
    let out = handle_frame(
        &mut c,
        &frame_of(Dialect::Kafka42, &only_unknown, 10),
        2,
        &peer(),
    )
    .expect("an answer");
    let (_, json) = response_json(Dialect::Kafka42, 8, 10, &out.frame).expect("readable");
    assert_eq!(json["topics"][0]["partitions"][0]["errorCode"], 100);
    assert_eq!(out.output, Output::default());

    // A fetch: the unknown id after the coordinator's topics; all offsets leave out `plain`,
    // which has no id.
    let fetch = format!(
        r#"{{"nowMs": 3, "type": "OffsetFetch", "request": {{"groups": [{{"groupId": "admin", "topics": [{{"name": "", "topicId": "{unknown}", "partitionIndexes": [0]}}, {{"name": "", "topicId": "{ID}", "partitionIndexes": [0]}}]}}, {{"groupId": "admin", "topics": null}}]}}}}"#
    );
    let out = handle_frame(&mut c, &frame_of(Dialect::Kafka42, &fetch, 10), 3, &peer())
        .expect("an answer");
    let (_, json) = response_json(Dialect::Kafka42, 9, 10, &out.frame).expect("readable");
    let asked = &json["groups"][0]["topics"];
    assert_eq!(asked[0]["topicId"][15], 15);
    assert_eq!(asked[0]["partitions"][0]["committedOffset"], 7);
    assert_eq!(asked[0]["partitions"][0]["committedLeaderEpoch"], 4);
    assert_eq!(asked[1]["topicId"][15], 1);
    assert_eq!(asked[1]["partitions"][0]["errorCode"], 100);
    let all = json["groups"][1]["topics"].as_array().expect("topics");
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["topicId"][15], 15);
}

/// A host's metadata cache for [`handle_frame_checked`]: `ck-a` of 3 partitions with id `ID`.
struct Cache;

impl MetadataCache for Cache {
    fn topic_name(&self, id: crate::records::Uuid) -> Option<String> {
        (id.to_text() == ID).then(|| "ck-a".to_string())
    }
    fn partition_count(&self, name: &str) -> Option<i32> {
        (name == "ck-a").then_some(3)
    }
}

/// `(name or last id byte, [(partition, code)])` of each topic of a commit-shaped answer.
fn answered(json: &serde_json::Value, by_id: bool) -> Vec<(String, Vec<(i64, i64)>)> {
    json["topics"]
        .as_array()
        .expect("topics")
        .iter()
        .map(|t| {
            let key = if by_id {
                t["topicId"][15].to_string()
            } else {
                t["name"].as_str().unwrap_or_default().to_string()
            };
            let parts = t["partitions"]
                .as_array()
                .expect("partitions")
                .iter()
                .map(|p| {
                    let i = p["partitionIndex"].as_i64().unwrap_or(-9);
                    (i, p["errorCode"].as_i64().unwrap_or(-9))
                })
                .collect();
            (key, parts)
        })
        .collect()
}

/// Kafka's broker front-end with a host's metadata cache: a commit of a topic that does not
/// exist, or of a partition past a topic's count, is answered UNKNOWN_TOPIC_OR_PARTITION for
/// it, the builder's topics first and the coordinator's partitions merged into them, and only
/// the rest is written; version 10's ids are named by the cache (UNKNOWN_TOPIC_ID for one it
/// does not know); transactional commits and offset deletes are checked alike, a delete's
/// group error answering alone.
#[test]
fn a_hosts_metadata_cache_refuses_unknown_topics_and_partitions() {
    let mut c = coordinator(Dialect::Kafka42);
    let mut scratch = FrameScratch::default();
    let mut call = |c: &mut Coordinator, input: String, key: i16, v: i16| {
        let mut out = Vec::new();
        let f = frame_of(Dialect::Kafka42, &input, v);
        let output = handle_frame_checked(c, &mut scratch, &f, 5, &peer(), &mut out, &Cache)
            .expect("an answer");
        let (_, json) = response_json(Dialect::Kafka42, key, v, &out).expect("readable");
        (json, output)
    };
    let part = |p: i32| format!(r#"{{"partitionIndex": {p}, "committedOffset": 4}}"#);
    let commit = format!(
        r#"{{"nowMs": 5, "type": "OffsetCommit", "request": {{"groupId": "g", "topics": [{{"name": "no-such-topic", "partitions": [{}]}}, {{"name": "ck-a", "partitions": [{}, {}]}}]}}}}"#,
        part(0),
        part(99),
        part(1)
    );
    let (json, output) = call(&mut c, commit, 8, 8);
    assert_eq!(
        answered(&json, false),
        [
            ("no-such-topic".to_string(), vec![(0, 3)]),
            ("ck-a".to_string(), vec![(99, 3), (1, 0)])
        ]
    );
    assert_eq!(output.records.len(), 1, "{:?}", output.records);
    let stored = c.offsets().group("g").expect("the group's offsets");
    assert!(stored.get("ck-a", 1).is_some());
    assert!(stored.get("ck-a", 99).is_none() && stored.get("no-such-topic", 0).is_none());

    // Version 10: an id the cache does not know, then ck-a by its id with a partition too many.
    let unknown = "AAAAAAAAAAAAAAAAAAAAAQ";
    let commit = format!(
        r#"{{"nowMs": 5, "type": "OffsetCommit", "request": {{"groupId": "g", "topics": [{{"name": "", "topicId": "{unknown}", "partitions": [{}]}}, {{"name": "", "topicId": "{ID}", "partitions": [{}, {}]}}]}}}}"#,
        part(0),
        part(2),
        part(3)
    );
    let (json, _) = call(&mut c, commit, 8, 10);
    assert_eq!(
        answered(&json, true),
        [
            ("1".to_string(), vec![(0, 100)]),
            ("15".to_string(), vec![(3, 3), (2, 0)])
        ]
    );

    // Nothing left for the coordinator: answered without it (no group or member checked).
    let commit = format!(
        r#"{{"nowMs": 5, "type": "TxnOffsetCommit", "request": {{"transactionalId": "t", "groupId": "g", "producerId": 1, "producerEpoch": 0, "generationIdOrMemberEpoch": 9, "memberId": "nobody", "topics": [{{"name": "gone", "partitions": [{}]}}, {{"name": "ck-a", "partitions": [{}]}}]}}}}"#,
        part(0),
        part(-1)
    );
    let (json, output) = call(&mut c, commit, 28, 3);
    assert_eq!(
        answered(&json, false),
        [
            ("gone".to_string(), vec![(0, 3)]),
            ("ck-a".to_string(), vec![(-1, 3)])
        ]
    );
    assert_eq!(output, Output::default());

    // A delete: the coordinator is asked even with nothing left; its group error answers alone.
    let delete = |group: &str| {
        format!(
            r#"{{"nowMs": 5, "type": "OffsetDelete", "request": {{"groupId": "{group}", "topics": [{{"name": "gone", "partitions": [{{"partitionIndex": 0}}]}}, {{"name": "ck-a", "partitions": [{{"partitionIndex": 7}}, {{"partitionIndex": 1}}]}}]}}}}"#
        )
    };
    let (json, _) = call(&mut c, delete("g"), 47, 0);
    assert_eq!(json["errorCode"], 0);
    assert_eq!(
        answered(&json, false),
        [
            ("gone".to_string(), vec![(0, 3)]),
            ("ck-a".to_string(), vec![(7, 3), (1, 0)])
        ]
    );
    assert!(c
        .offsets()
        .group("g")
        .is_none_or(|g| g.get("ck-a", 1).is_none()));
    let (json, _) = call(&mut c, delete("nobody"), 47, 0);
    assert_eq!(json["errorCode"], 69);
    assert_eq!(json["topics"], serde_json::json!([]));

    // Without a cache the same commit reaches the coordinator whole (the core's own face).
    let commit = format!(
        r#"{{"nowMs": 5, "type": "OffsetCommit", "request": {{"groupId": "h", "topics": [{{"name": "no-such-topic", "partitions": [{}]}}]}}}}"#,
        part(0)
    );
    let out = handle_frame(&mut c, &frame_of(Dialect::Kafka42, &commit, 8), 5, &peer())
        .expect("an answer");
    let (_, json) = response_json(Dialect::Kafka42, 8, 8, &out.frame).expect("readable");
    assert_eq!(
        answered(&json, false),
        [("no-such-topic".to_string(), vec![(0, 0)])]
    );
}

/// Kafka's controller answers each name a CreateTopics request lists more than once once, in
/// a Java HashSet's order (here "11", "2", "10", as Java iterates those three).
#[test]
fn duplicate_topic_names_come_once_each_in_a_java_hash_sets_order() {
    let names = ["10", "a", "10", "11", "2", "11", "2", "2", "b"];
    assert_eq!(duplicate_topic_names(names), ["11", "2", "10"]);
    assert!(duplicate_topic_names(["a", "b"]).is_empty());
}

/// Below version 8 a fetch has one group at the top level, with its error there from
/// version 2; below 5 no leader epoch; a client cannot send several groups below 8, or ask
/// for all topics below 2.
#[test]
fn fetches_below_version_8_have_one_group_at_the_top_level() {
    let mut c = with_offsets(Dialect::Kip1071Draft);
    let fetch = r#"{"nowMs": 3, "type": "OffsetFetch", "request": {"groups": [{"groupId": "admin", "topics": [{"name": "in", "partitionIndexes": [0, 1]}]}]}}"#;
    for v in 1..8 {
        let f = frame_of(Dialect::Kip1071Draft, fetch, v);
        let (_, kind) = decode_request(Dialect::Kip1071Draft, &f).expect("decoded");
        let Some(InputKind::OffsetFetch {
            api_version,
            request,
        }) = kind
        else {
            panic!("{kind:?}")
        };
        assert_eq!((api_version, request.groups.len()), (v, 1));
        let out = handle_frame(&mut c, &f, 3, &peer()).expect("an answer");
        let (_, json) = response_json(Dialect::Kip1071Draft, 9, v, &out.frame).expect("readable");
        assert_eq!(json["groups"], serde_json::json!([]), "v{v}");
        let p = &json["topics"][0]["partitions"];
        assert_eq!(p[0]["committedOffset"], 7, "v{v}");
        assert_eq!(p[0]["metadata"], "m", "v{v}");
        let epoch = if v >= 5 { 4 } else { -1 };
        assert_eq!(p[0]["committedLeaderEpoch"], epoch, "v{v}");
        assert_eq!(p[1]["committedOffset"], -1, "v{v}");
    }
    let two = r#"{"nowMs": 3, "type": "OffsetFetch", "request": {"groups": [{"groupId": "a", "topics": null}, {"groupId": "b", "topics": null}]}}"#;
    let two = crate::Input::parse(two).expect("an input");
    assert!(encode_request(Dialect::Kafka42, &two.kind, 7, 1).is_none());
    assert!(encode_request(Dialect::Kafka42, &two.kind, 8, 1).is_some());
    let all = r#"{"nowMs": 3, "type": "OffsetFetch", "request": {"groups": [{"groupId": "a", "topics": null}]}}"#;
    let all = crate::Input::parse(all).expect("an input");
    assert!(encode_request(Dialect::Kafka42, &all.kind, 1, 1).is_none());
    assert!(encode_request(Dialect::Kafka42, &all.kind, 2, 1).is_some());
}

/// Offset frames Kafka would close the connection on: a version outside 2-10 and 1-10, a cut
/// body.
#[test]
fn offset_frames_outside_the_served_versions_are_refused() {
    let mut c = with_offsets(Dialect::Kafka43);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (frame(8, 1, false, &[]), "header.RequestApiVersion"),
        (frame(8, 11, true, &[]), "header.RequestApiVersion"),
        (frame(9, 0, false, &[]), "header.RequestApiVersion"),
        // One group `g` whose topics count 2^32 - 2 in 5 bytes.
        (
            frame(9, 8, true, &[2, 2, b'g', 0xff, 0xff, 0xff, 0xff, 0x0f]),
            "body.Topics",
        ),
        (
            frame(8, 9, true, &[2, b'g']),
            "body.GenerationIdOrMemberEpoch",
        ),
    ];
    let before = format!("{:?}", c.offsets());
    for (f, path) in cases {
        let e = handle_frame(&mut c, &f, 0, &peer()).expect_err(path);
        assert_eq!(
            (e.code, e.path.as_str()),
            (BoundaryCode::InvalidFrame, path),
            "{e}"
        );
        assert_eq!(format!("{:?}", c.offsets()), before);
    }
}

/// `ListGroups`: the group's state from version 4, its type from 5; a filter a version lacks
/// cannot be sent.
#[test]
fn listed_groups_carry_what_their_version_has() {
    let mut c = with_offsets(Dialect::Kafka42);
    let list = r#"{"nowMs": 3, "type": "ListGroups", "request": {"typesFilter": []}}"#;
    for (v, state, ty) in [
        (0, "", ""),
        (3, "", ""),
        (4, "Empty", ""),
        (5, "Empty", "classic"),
    ] {
        let out = handle_frame(&mut c, &frame_of(Dialect::Kafka42, list, v), 3, &peer())
            .expect("an answer");
        let (_, json) = response_json(Dialect::Kafka42, 16, v, &out.frame).expect("readable");
        let g = &json["groups"][0];
        assert_eq!(
            (
                &g["groupId"],
                &g["protocolType"],
                &g["groupState"],
                &g["groupType"]
            ),
            (&"admin".into(), &"".into(), &state.into(), &ty.into()),
            "v{v}"
        );
    }
    let filtered = r#"{"nowMs": 3, "type": "ListGroups", "request": {"statesFilter": ["empty"]}}"#;
    let filtered = crate::Input::parse(filtered).expect("an input");
    assert!(encode_request(Dialect::Kafka42, &filtered.kind, 3, 1).is_none());
    assert!(encode_request(Dialect::Kafka42, &filtered.kind, 4, 1).is_some());
    let typed = r#"{"nowMs": 3, "type": "ListGroups", "request": {"typesFilter": ["streams"]}}"#;
    let typed = crate::Input::parse(typed).expect("an input");
    assert!(encode_request(Dialect::Kafka42, &typed.kind, 4, 1).is_none());
    assert!(encode_request(Dialect::Kafka42, &typed.kind, 5, 1).is_some());
}

#[test]
fn a_message_read_into_a_kept_one_is_the_message_read_fresh() {
    use messages::kafka::streams_group_heartbeat_request as m;
    let tasks = |n: usize| {
        (0..n)
            .map(|i| m::TaskIds {
                subtopology_id: format!("sub-{i}-{}", "x".repeat(i)),
                partitions: (0..i as i32 * 3).collect(),
            })
            .collect::<Vec<_>>()
    };
    // Longer lists, then shorter, null, longer again; strings null and back.
    let messages = [
        m::StreamsGroupHeartbeatRequest {
            group_id: "a-long-group-id".into(),
            member_id: "member".into(),
            instance_id: Some("instance".into()),
            active_tasks: Some(tasks(3)),
            standby_tasks: Some(tasks(2)),
            client_tags: Some(vec![m::KeyValue {
                key: "k".into(),
                value: "v".into(),
            }]),
            ..Default::default()
        },
        m::StreamsGroupHeartbeatRequest {
            group_id: "g".into(),
            member_id: "another-member".into(),
            active_tasks: Some(tasks(1)),
            warmup_tasks: Some(Vec::new()),
            ..Default::default()
        },
        m::StreamsGroupHeartbeatRequest::default(),
        m::StreamsGroupHeartbeatRequest {
            group_id: "g2".into(),
            member_id: "m".into(),
            rack_id: Some("rack".into()),
            active_tasks: Some(tasks(4)),
            ..Default::default()
        },
    ];
    for v in 0..=1 {
        let mut kept = m::StreamsGroupHeartbeatRequest::default();
        for message in messages.iter().chain(messages.iter().rev()) {
            let mut bytes = Vec::new();
            message.write(&mut bytes, v);
            kept.read_into(&mut codec::Reader::new(&bytes), v)
                .expect("reads");
            let fresh = m::StreamsGroupHeartbeatRequest::read(&mut codec::Reader::new(&bytes), v)
                .expect("reads");
            assert_eq!(kept, fresh, "v{v}");
        }
    }
}

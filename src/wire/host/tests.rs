//! The host kit on frames a client sends: routes, multi-group requests split over several
//! partitions and merged in Kafka's order, error responses per API, `ApiVersions` with a
//! host's codec.

use super::*;
use crate::api::Input;
use crate::records::Dialect;
use crate::wire::messages::versions::ApiRange;
use crate::wire::{encode_request, handle_frame, response_json, Peer};
use crate::{BoundaryCode, Config, Coordinator};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The partitions of `__consumer_offsets` in these tests: "" and "my-app" sit on 0, "g" on 3,
/// "wordcount" on 41, and a Java `HashMap` of them lists 0, 41, 3 (`partition.rs`).
const PARTITIONS: i32 = 50;

/// `ApiVersions` v3 from client "c", correlation id 7, software "ja" 4.
const API_VERSIONS_V3: &[u8] = &[
    0, 18, 0, 3, 0, 0, 0, 7, 0, 1, b'c', 0, 3, b'j', b'a', 2, b'4', 0,
];

/// The request frame of a JSON input at version `v`, correlation id 7.
fn frame(dialect: Dialect, input: Value, v: i16) -> Vec<u8> {
    let mut input = input;
    input["nowMs"] = json!(0);
    let input = Input::from_value(&input).expect("an input");
    encode_request(dialect, &input.kind, v, 7).expect("a request the dialect serves")
}

fn split_of(routed: Routed) -> Split {
    match routed.route {
        Route::Groups(split) | Route::EveryPartition(split) => split,
        other => panic!("not split: {other:?}"),
    }
}

/// Each part answered with its own error code, 100 + its position, for every group it names.
fn answers(dialect: Dialect, split: &Split) -> Vec<Vec<u8>> {
    (split.parts.iter().enumerate())
        .map(|(i, p)| error_response(dialect, &p.frame, 100 + i as i16).expect("an answer"))
        .collect()
}

/// `(groupId, errorCode)` of each entry of `field` in a response frame.
fn entries(dialect: Dialect, key: i16, v: i16, frame: &[u8], field: &str) -> Vec<(String, i64)> {
    let (corr, json) = response_json(dialect, key, v, frame).expect("a response");
    assert_eq!(corr, 7);
    (json[field].as_array().expect("a list").iter())
        .map(|e| {
            let id = e["groupId"].as_str().expect("an id").to_string();
            (id, e["errorCode"].as_i64().expect("a code"))
        })
        .collect()
}

fn owned(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(g, c)| (g.to_string(), *c)).collect()
}

#[test]
fn one_group_requests_go_to_their_groups_partition() {
    let d = Dialect::Kafka44;
    let heartbeat = frame(
        d,
        json!({"type": "StreamsGroupHeartbeat", "request": {"groupId": "wordcount",
            "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
            "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [],
            "warmupTasks": []}}),
        0,
    );
    let routed = route_request(d, &heartbeat, PARTITIONS).unwrap();
    assert_eq!((routed.api_key, routed.api_version), (88, 0));
    assert_eq!(
        routed.route,
        Route::Group {
            group_id: "wordcount".into(),
            partition: 41
        }
    );
    // A transactional commit names its group second, after its transactional id.
    let txn = frame(
        d,
        json!({"type": "TxnOffsetCommit", "request": {"transactionalId": "tx",
            "groupId": "g", "producerId": 1, "producerEpoch": 0, "generationId": -1,
            "memberId": "", "topics": []}}),
        3,
    );
    let routed = route_request(d, &txn, PARTITIONS).unwrap();
    assert_eq!(
        routed.route,
        Route::Group {
            group_id: "g".into(),
            partition: 3
        }
    );
    // A one-group fetch (before v8) too.
    let fetch = frame(
        d,
        json!({"type": "OffsetFetch", "request": {"groups": [{"groupId": "my-app",
            "topics": null}]}}),
        7,
    );
    assert_eq!(
        route_request(d, &fetch, PARTITIONS).unwrap().route,
        Route::Group {
            group_id: "my-app".into(),
            partition: 0
        }
    );
    assert!(is_mine("wordcount", PARTITIONS, |p| p == 41));
    assert!(!is_mine("wordcount", PARTITIONS, |p| [0, 3].contains(&p)));
}

#[test]
fn api_versions_and_the_hosts_apis_are_told_apart_and_bad_frames_refused() {
    let d = Dialect::Kafka42;
    let api_versions = API_VERSIONS_V3;
    assert_eq!(
        route_request(d, api_versions, 1).unwrap().route,
        Route::ApiVersions
    );
    // Metadata v12, and an API the dialect does not serve (4.4's description update).
    for (key, v) in [(3, 12), (93, 0)] {
        let mut f = vec![0; 12];
        f[..2].copy_from_slice(&i16::to_be_bytes(key));
        f[2..4].copy_from_slice(&i16::to_be_bytes(v));
        let routed = route_request(d, &f, PARTITIONS).unwrap();
        assert_eq!((routed.api_key, routed.api_version), (key, v));
        assert_eq!(routed.route, Route::Host);
    }
    let e = route_request(d, &[0, 8], PARTITIONS).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (BoundaryCode::InvalidFrame, "header")
    );
    // A commit whose group id runs past the frame.
    let mut commit = frame(
        d,
        json!({"type": "OffsetCommit", "request": {"groupId": "g",
            "generationIdOrMemberEpoch": -1, "memberId": "", "topics": []}}),
        8,
    );
    let (_, at) = crate::wire::read_header(&commit).unwrap();
    commit.truncate(at + 1);
    let e = route_request(d, &commit, PARTITIONS).unwrap_err();
    assert_eq!(
        (e.code, e.path.as_str()),
        (BoundaryCode::InvalidFrame, "body.GroupId")
    );
    let e = route_request(d, api_versions, 0).unwrap_err();
    assert_eq!(e.path, "partitions");
}

#[test]
fn a_streams_describe_answers_an_empty_id_first_then_partition_by_partition() {
    let d = Dialect::Kafka42;
    let f = frame(
        d,
        json!({"type": "StreamsGroupDescribe", "request": {"groupIds": ["wordcount", "", "g",
            "my-app"], "includeAuthorizedOperations": false}}),
        0,
    );
    let split = split_of(route_request(d, &f, PARTITIONS).unwrap());
    let partitions: Vec<i32> = split.parts.iter().map(|p| p.partition).collect();
    // The empty id alone (partition 0's coordinator answers it), then 0, 41, 3.
    assert_eq!(partitions, [0, 0, 41, 3]);
    assert_eq!(split.len(), 4);
    let merged = split.merge(&answers(d, &split)).unwrap();
    assert_eq!(
        entries(d, 89, 0, &merged, "groups"),
        owned(&[("", 100), ("my-app", 101), ("wordcount", 102), ("g", 103)])
    );
}

#[test]
fn describe_and_delete_groups_merge_in_batch_order_an_empty_id_with_its_partition() {
    let d = Dialect::Kafka44;
    let describe = frame(
        d,
        json!({"type": "DescribeGroups", "request": {"groups": ["wordcount", "", "g",
            "my-app"]}}),
        5,
    );
    let split = split_of(route_request(d, &describe, PARTITIONS).unwrap());
    assert_eq!(
        split.parts.iter().map(|p| p.partition).collect::<Vec<_>>(),
        [0, 41, 3]
    );
    let merged = split.merge(&answers(d, &split)).unwrap();
    assert_eq!(
        entries(d, 15, 5, &merged, "groups"),
        owned(&[("", 100), ("my-app", 100), ("wordcount", 101), ("g", 102)])
    );
    let delete = frame(
        d,
        json!({"type": "DeleteGroups", "groupIds": ["g", "wordcount", "my-app", ""]}),
        2,
    );
    let split = split_of(route_request(d, &delete, PARTITIONS).unwrap());
    let merged = split.merge(&answers(d, &split)).unwrap();
    assert_eq!(
        entries(d, 42, 2, &merged, "results"),
        owned(&[("my-app", 100), ("", 100), ("wordcount", 101), ("g", 102)])
    );
}

#[test]
fn offset_fetch_and_the_drafts_describe_merge_in_request_order() {
    let d = Dialect::Kafka43;
    let fetch = frame(
        d,
        json!({"type": "OffsetFetch", "request": {"groups": [
            {"groupId": "wordcount", "topics": null}, {"groupId": "g", "topics": null},
            {"groupId": "my-app", "topics": null}, {"groupId": "", "topics": null}]}}),
        9,
    );
    let split = split_of(route_request(d, &fetch, PARTITIONS).unwrap());
    assert_eq!(
        split.parts.iter().map(|p| p.partition).collect::<Vec<_>>(),
        [0, 41, 3]
    );
    let merged = split.merge(&answers(d, &split)).unwrap();
    assert_eq!(
        entries(d, 9, 9, &merged, "groups"),
        owned(&[("wordcount", 101), ("g", 102), ("my-app", 100), ("", 100)])
    );
    let d = Dialect::Kip1071Draft;
    let describe = frame(
        d,
        json!({"type": "StreamsGroupDescribe", "request": {"groupIds": ["g", "my-app",
            "wordcount"], "includeAuthorizedOperations": false}}),
        0,
    );
    let split = split_of(route_request(d, &describe, PARTITIONS).unwrap());
    assert_eq!(
        split.parts.iter().map(|p| p.partition).collect::<Vec<_>>(),
        [0, 41, 3]
    );
    let merged = split.merge(&answers(d, &split)).unwrap();
    assert_eq!(
        entries(d, 90, 0, &merged, "groups"),
        owned(&[("g", 102), ("my-app", 100), ("wordcount", 101)])
    );
}

#[test]
fn parts_are_requests_the_partitions_coordinators_answer() {
    let d = Dialect::Kafka42;
    let delete = frame(
        d,
        json!({"type": "DeleteGroups", "groupIds": ["g", "wordcount"]}),
        2,
    );
    let mut split = split_of(route_request(d, &delete, PARTITIONS).unwrap());
    // The parts moved out: merging needs only the answers.
    let parts = std::mem::take(&mut split.parts);
    let answers: Vec<Vec<u8>> = parts
        .iter()
        .map(|p| {
            let mut c = Coordinator::new(Config {
                dialect: d,
                ..Config::default()
            })
            .unwrap();
            handle_frame(&mut c, &p.frame, 0, &Peer::default())
                .unwrap()
                .frame
        })
        .collect();
    let merged = split.merge(&answers).unwrap();
    // GROUP_ID_NOT_FOUND for both, wordcount's partition (41) first.
    assert_eq!(
        entries(d, 42, 2, &merged, "results"),
        owned(&[("wordcount", 69), ("g", 69)])
    );
    assert_eq!(
        merge_responses(d, &delete, PARTITIONS, &answers).unwrap(),
        merged
    );
    assert_eq!(split.merge(&answers[..1]).unwrap_err().path, "answers");
    let one = frame(d, json!({"type": "DeleteGroups", "groupIds": ["g"]}), 2);
    assert!(merge_responses(d, &one, PARTITIONS, &answers[..1]).is_ok());
    let heartbeat = &[0, 88, 0, 0, 0, 0, 0, 7, 0, 1, b'c', 0, 2, b'g'];
    assert!(merge_responses(d, heartbeat, PARTITIONS, &answers[..1]).is_err());
    let e = split.merge(&[answers[0].clone(), vec![0, 0]]).unwrap_err();
    assert!(e.path.starts_with("answers[1]"), "{e:?}");
}

#[test]
fn groups_of_one_partition_keep_the_frame_and_its_answer_as_they_came() {
    let d = Dialect::Kafka42;
    let describe = frame(
        d,
        json!({"type": "StreamsGroupDescribe", "request": {"groupIds": ["my-app", "my-app"],
            "includeAuthorizedOperations": false}}),
        0,
    );
    let split = split_of(route_request(d, &describe, PARTITIONS).unwrap());
    assert_eq!(
        split.parts,
        [Part {
            partition: 0,
            frame: describe.clone()
        }]
    );
    assert_eq!(split.merge(&[b"as it is"]).unwrap(), b"as it is");
}

#[test]
fn list_groups_asks_every_partition_and_keeps_the_first_error() {
    let d = Dialect::Kafka44;
    let list = frame(d, json!({"type": "ListGroups", "request": {}}), 5);
    let split = split_of(route_request(d, &list, 3).unwrap());
    assert_eq!(
        split.parts.iter().map(|p| p.partition).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(split.parts.iter().all(|p| p.frame == list));
    let answer = |code: i64, groups: &[&str]| {
        let (_, mut json) = response_json(
            d,
            16,
            5,
            &error_response(d, &list, code as i16).expect("an answer"),
        )
        .unwrap();
        json["groups"] = groups
            .iter()
            .map(|g| {
                json!({"groupId": g, "protocolType": "streams", "groupState": "Stable",
                "groupType": "streams"})
            })
            .collect();
        super::frames::response(d, split.header(), json).unwrap()
    };
    let merged = split
        .merge(&[answer(0, &["a"]), answer(15, &["b", "c"]), answer(16, &[])])
        .unwrap();
    let (_, json) = response_json(d, 16, 5, &merged).unwrap();
    assert_eq!(json["errorCode"], 15);
    let ids: Vec<&str> = (json["groups"].as_array().unwrap().iter())
        .map(|g| g["groupId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
}

#[test]
fn error_responses_name_every_group_or_partition_of_each_api() {
    let d = Dialect::Kafka44;
    let cases = [
        (
            json!({"type": "DeleteGroups", "groupIds": ["a", "b"]}),
            42,
            2,
            "results",
        ),
        (
            json!({"type": "DescribeGroups", "request": {"groups": ["a", "b"]}}),
            15,
            5,
            "groups",
        ),
        (
            json!({"type": "ConsumerGroupDescribe", "request": {"groupIds": ["a", "b"]}}),
            69,
            0,
            "groups",
        ),
        (
            json!({"type": "StreamsGroupDescribe", "request": {"groupIds": ["a", "b"],
                "includeAuthorizedOperations": false}}),
            89,
            1,
            "groups",
        ),
        (
            json!({"type": "OffsetFetch", "request": {"groups": [{"groupId": "a",
                "topics": null}, {"groupId": "b", "topics": null}]}}),
            9,
            8,
            "groups",
        ),
    ];
    for (input, key, v, field) in cases {
        let request = frame(d, input, v);
        let answer = error_response(d, &request, NOT_COORDINATOR).unwrap();
        assert_eq!(
            entries(d, key, v, &answer, field),
            owned(&[("a", 16), ("b", 16)]),
            "{key}"
        );
    }
    // A commit (v2 by name, v9 flexible): each partition; a heartbeat, ListGroups,
    // OffsetDelete: the request.
    for v in [2, 9] {
        let commit = frame(
            d,
            json!({"type": "OffsetCommit", "request": {"groupId": "g",
                "generationIdOrMemberEpoch": -1, "memberId": "", "topics": [{"name": "in",
                "partitions": [{"partitionIndex": 0, "committedOffset": 1},
                               {"partitionIndex": 3, "committedOffset": 2}]}]}}),
            v,
        );
        let answer = error_response(d, &commit, COORDINATOR_NOT_AVAILABLE).unwrap();
        let (_, json) = response_json(d, 8, v, &answer).unwrap();
        let parts: Vec<(i64, i64)> = (json["topics"][0]["partitions"].as_array().unwrap())
            .iter()
            .map(|p| {
                (
                    p["partitionIndex"].as_i64().unwrap(),
                    p["errorCode"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            (json["topics"][0]["name"].as_str(), parts),
            (Some("in"), vec![(0, 15), (3, 15)]),
            "v{v}"
        );
    }
    for (input, key, v) in [
        (
            json!({"type": "StreamsGroupHeartbeat", "request": {"groupId": "g",
                "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
                "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [],
                "warmupTasks": []}}),
            88,
            1,
        ),
        (json!({"type": "ListGroups", "request": {}}), 16, 5),
        (
            json!({"type": "OffsetDelete", "request": {"groupId": "g", "topics": [{"name": "t",
                "partitions": [{"partitionIndex": 0}]}]}}),
            47,
            0,
        ),
    ] {
        let request = frame(d, input, v);
        let answer = error_response(d, &request, NOT_COORDINATOR).unwrap();
        let (corr, json) = response_json(d, key, v, &answer).unwrap();
        assert_eq!((corr, json["errorCode"].as_i64()), (7, Some(16)), "{key}");
        if key == 47 {
            assert_eq!(json["topics"].as_array().map(Vec::len), Some(0));
        }
    }
    // ApiVersions and frames that do not read: Kafka closes the connection.
    let api_versions = API_VERSIONS_V3;
    assert!(error_response(d, api_versions, 16).is_err());
    let e = error_response(d, b"\x00\x12", 15).unwrap_err();
    assert_eq!(e.code, BoundaryCode::InvalidFrame);
}

#[test]
fn api_versions_lists_a_shared_api_at_the_versions_both_serve() {
    let d = Dialect::Kafka44;
    let host = [
        // Metadata: the host's own.
        ApiRange {
            key: 3,
            name: "Metadata",
            min: 0,
            max: 12,
        },
        // OffsetCommit: the host's codec reads 0-8; the dialect serves 2-10.
        ApiRange {
            key: 8,
            name: "OffsetCommit",
            min: 0,
            max: 8,
        },
        // StreamsGroupHeartbeat: the host's codec reads only a version the dialect does not.
        ApiRange {
            key: 88,
            name: "StreamsGroupHeartbeat",
            min: 2,
            max: 3,
        },
    ];
    let ranges = |shared| -> Vec<(i16, i16, i16)> {
        (api_ranges(d, &host, shared).iter())
            .map(|a| (a.key, a.min, a.max))
            .collect()
    };
    let both = ranges(SharedApis::Intersection);
    assert!(
        both.contains(&(3, 0, 12)) && both.contains(&(8, 2, 8)),
        "{both:?}"
    );
    assert!(!both.iter().any(|a| a.0 == 88), "{both:?}");
    let dialect = ranges(SharedApis::Dialect);
    assert!(dialect.contains(&(8, 2, 10)) && dialect.contains(&(88, 0, 1)));
    // The answer on the wire, and the old function's unchanged.
    let request = API_VERSIONS_V3;
    let listed = |frame: &[u8]| -> Vec<(i64, i64, i64)> {
        let (_, json) = response_json(d, 18, 3, frame).unwrap();
        assert_eq!(json["errorCode"], 0);
        (json["apiKeys"].as_array().unwrap().iter())
            .map(|a| {
                let n = |f: &str| a[f].as_i64().unwrap();
                (n("apiKey"), n("minVersion"), n("maxVersion"))
            })
            .collect()
    };
    let answer = answer_api_versions_with(d, request, &host, SharedApis::Intersection).unwrap();
    let want: Vec<(i64, i64, i64)> = both
        .iter()
        .map(|&(k, a, b)| (k.into(), a.into(), b.into()))
        .collect();
    assert_eq!(listed(&answer), want);
    let old = crate::wire::answer_api_versions(d, request, &host).unwrap();
    assert_eq!(
        old,
        answer_api_versions_with(d, request, &host, SharedApis::Dialect).unwrap()
    );
    assert!(listed(&old).contains(&(88, 0, 1)));
}

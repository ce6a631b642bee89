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
    assert_eq!(keys, [(18, 0, 4), (42, 0, 2), (88, 0, 0), (89, 0, 0)]);
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

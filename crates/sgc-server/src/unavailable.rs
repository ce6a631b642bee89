//! Kafka's answer to a group request when the coordinator cannot serve it: every group (or
//! the request) answered with one error code, as Kafka's `GroupCoordinatorService` answers
//! when its runtime refuses (a failed write: `COORDINATOR_NOT_AVAILABLE`; a partition not
//! loaded here: `NOT_COORDINATOR`).

use serde_json::{json, Value};
use streams_group_coordinator::records::Dialect;
use streams_group_coordinator::wire::{self, messages};

use crate::shard::Reply;

/// Kafka's `COORDINATOR_NOT_AVAILABLE`.
pub const COORDINATOR_NOT_AVAILABLE: i16 = 15;

fn strings(body: &Value, field: &str) -> Vec<String> {
    body.get(field)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|g| g.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

macro_rules! frame {
    ($m:path, $t:ident, $json:expr, $corr:expr, $v:expr) => {{
        use $m as m;
        let body: m::$t = serde_json::from_value($json).ok()?;
        let header_version = i16::from($v >= m::FLEXIBLE_FROM);
        Some(wire::respond($corr, header_version, |w| body.write(w, $v)))
    }};
}

/// The response frame that answers `frame` with `code` for every group it names; `None` for
/// a frame that cannot be read or an API with no such answer.
pub fn error_frame(dialect: Dialect, frame: &[u8], code: i16) -> Option<Vec<u8>> {
    use messages::{draft, kafka};
    let (header, body) = wire::request_json(dialect, frame).ok()?;
    let (v, corr) = (header.api_version, header.correlation_id);
    let per_group = |field: &str| -> Vec<Value> {
        strings(&body, field)
            .into_iter()
            .map(|g| json!({"groupId": g, "errorCode": code}))
            .collect()
    };
    let draft = dialect == Dialect::Kip1071Draft;
    let group_ids_of = |field: &str| -> Vec<Value> {
        let all = body
            .get(field)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        all.iter()
            .map(|g| json!({"groupId": g.get("groupId").cloned().unwrap_or_default(), "errorCode": code}))
            .collect()
    };
    // A commit's partitions each carry the error, as Kafka's commit response does.
    let commit_topics = || -> Value {
        let topics = body
            .get("topics")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        Value::Array(
            topics
                .iter()
                .map(|t| {
                    let partitions: Vec<Value> = t["partitions"]
                        .as_array()
                        .map(|ps| {
                            ps.iter()
                                .map(|p| json!({"partitionIndex": p["partitionIndex"], "errorCode": code}))
                                .collect()
                        })
                        .unwrap_or_default();
                    let mut topic = json!({"partitions": partitions});
                    for field in ["name", "topicId"] {
                        if let Some(value) = t.get(field) {
                            topic[field] = value.clone();
                        }
                    }
                    topic
                })
                .collect(),
        )
    };
    match header.api_key {
        8 => frame!(
            kafka::offset_commit_response,
            OffsetCommitResponse,
            json!({"topics": commit_topics()}),
            corr,
            v
        ),
        9 if v < 8 => frame!(
            kafka::offset_fetch_response,
            OffsetFetchResponse,
            json!({"errorCode": code}),
            corr,
            v
        ),
        9 => frame!(
            kafka::offset_fetch_response,
            OffsetFetchResponse,
            json!({"groups": group_ids_of("groups")}),
            corr,
            v
        ),
        16 => frame!(
            kafka::list_groups_response,
            ListGroupsResponse,
            json!({"errorCode": code}),
            corr,
            v
        ),
        42 => frame!(
            kafka::delete_groups_response,
            DeleteGroupsResponse,
            json!({"results": per_group("groupsNames")}),
            corr,
            v
        ),
        93 if !draft => frame!(
            kafka::streams_group_topology_description_update_response,
            StreamsGroupTopologyDescriptionUpdateResponse,
            json!({"errorCode": code}),
            corr,
            v
        ),
        88 if !draft => frame!(
            kafka::streams_group_heartbeat_response,
            StreamsGroupHeartbeatResponse,
            json!({"errorCode": code}),
            corr,
            v
        ),
        89 if !draft => frame!(
            kafka::streams_group_describe_response,
            StreamsGroupDescribeResponse,
            json!({"groups": per_group("groupIds")}),
            corr,
            v
        ),
        88 => frame!(
            draft::streams_group_initialize_response,
            StreamsGroupInitializeResponse,
            json!({"errorCode": code}),
            corr,
            v
        ),
        89 => frame!(
            draft::streams_group_heartbeat_response,
            StreamsGroupHeartbeatResponse,
            json!({"errorCode": code}),
            corr,
            v
        ),
        90 => frame!(
            draft::streams_group_describe_response,
            StreamsGroupDescribeResponse,
            json!({"groups": per_group("groupIds")}),
            corr,
            v
        ),
        _ => None,
    }
}

/// `COORDINATOR_NOT_AVAILABLE` for `frame`, or closing the connection where Kafka has no
/// such answer.
pub fn reply(dialect: Dialect, frame: &[u8]) -> Reply {
    match error_frame(dialect, frame, COORDINATOR_NOT_AVAILABLE) {
        Some(frame) => Reply::Frame {
            frame,
            topics_to_create: Vec::new(),
        },
        None => Reply::Close("the coordinator is not available".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streams_group_coordinator::api::{DescribeRequest, InputKind};

    #[test]
    fn every_group_of_a_describe_gets_the_code() {
        let kind = InputKind::StreamsGroupDescribe {
            request: DescribeRequest {
                group_ids: vec!["a".into(), "b".into()],
                ..Default::default()
            },
        };
        let request = wire::encode_request(Dialect::Kafka42, &kind, 0, 7).unwrap();
        let frame = error_frame(Dialect::Kafka42, &request, 15).unwrap();
        let (corr, json) = wire::response_json(Dialect::Kafka42, 89, 0, &frame).unwrap();
        assert_eq!(corr, 7);
        let codes: Vec<_> = json["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["groupId"].as_str().unwrap(),
                    g["errorCode"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(codes, [("a", 15), ("b", 15)]);
        assert!(error_frame(Dialect::Kafka42, b"\x00\x12", 15).is_none());
    }

    #[test]
    fn every_partition_of_a_commit_gets_the_code() {
        let input = streams_group_coordinator::api::Input::parse(
            r#"{"nowMs": 0, "type": "OffsetCommit", "request": {"groupId": "g",
                "generationIdOrMemberEpoch": -1, "memberId": "", "topics": [{"name": "in",
                "partitions": [{"partitionIndex": 0, "committedOffset": 1},
                               {"partitionIndex": 3, "committedOffset": 2}]}]}}"#,
        )
        .unwrap();
        for v in [2, 9] {
            let request = wire::encode_request(Dialect::Kafka42, &input.kind, v, 3).unwrap();
            let frame = error_frame(Dialect::Kafka42, &request, 15).unwrap();
            let (_, json) = wire::response_json(Dialect::Kafka42, 8, v, &frame).unwrap();
            let parts = &json["topics"][0]["partitions"];
            assert_eq!(json["topics"][0]["name"], "in", "{json}");
            assert_eq!(
                (
                    parts[0]["errorCode"].as_i64(),
                    parts[1]["partitionIndex"].as_i64()
                ),
                (Some(15), Some(3))
            );
        }
    }
}

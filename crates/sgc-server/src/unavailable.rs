//! Kafka's answer to a group request when the coordinator cannot serve it: every group (or
//! the request) answered with one error code, as Kafka's `GroupCoordinatorService` answers
//! when its runtime refuses (a failed write: `COORDINATOR_NOT_AVAILABLE`; a partition not
//! loaded here: `NOT_COORDINATOR`).

use serde_json::{json, Value};
use streams_group_coordinator::records::Dialect;
use streams_group_coordinator::wire;

use crate::json_frames;
use crate::shard::Reply;

/// Kafka's `COORDINATOR_NOT_AVAILABLE`.
pub const COORDINATOR_NOT_AVAILABLE: i16 = 15;

/// The group of an entry of a request's group list: a group id, or an object with one.
pub fn group_id(entry: &Value) -> String {
    entry
        .as_str()
        .or_else(|| entry.get("groupId").and_then(Value::as_str))
        .unwrap_or_default()
        .to_string()
}

/// The response frame that answers `frame` with `code` for every group it names (every
/// partition of a commit); `None` for a frame that cannot be read or an API with no such
/// answer.
pub fn error_frame(dialect: Dialect, frame: &[u8], code: i16) -> Option<Vec<u8>> {
    let (header, request) = wire::request_json(dialect, frame).ok()?;
    let empty = Vec::new();
    let list = |field: &str| {
        request
            .get(field)
            .and_then(Value::as_array)
            .unwrap_or(&empty)
    };
    let per_group = |field: &str| -> Value {
        let groups = list(field)
            .iter()
            .map(|g| json!({"groupId": group_id(g), "errorCode": code}));
        Value::Array(groups.collect())
    };
    let draft = dialect == Dialect::Kip1071Draft;
    let body = match header.api_key {
        // A commit's partitions each carry the error, as Kafka's commit responses do.
        8 | 28 => {
            let topics = list("topics").iter().map(|t| {
                let partitions: Vec<Value> = t["partitions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| json!({"partitionIndex": p["partitionIndex"], "errorCode": code}))
                    .collect();
                let mut topic = json!({"partitions": partitions});
                for field in ["name", "topicId"] {
                    if let Some(value) = t.get(field) {
                        topic[field] = value.clone();
                    }
                }
                topic
            });
            json!({"topics": topics.collect::<Vec<_>>()})
        }
        9 if header.api_version >= 8 => json!({"groups": per_group("groups")}),
        15 => json!({"groups": per_group("groups")}),
        42 => json!({"results": per_group("groupsNames")}),
        69 => json!({"groups": per_group("groupIds")}),
        89 if !draft => json!({"groups": per_group("groupIds")}),
        90 => json!({"groups": per_group("groupIds")}),
        // One error for the request: the heartbeats, initialize, a one-group fetch, ListGroups,
        // OffsetDelete, the description update.
        _ => json!({"errorCode": code}),
    };
    json_frames::response(dialect, &header, body)
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

    #[test]
    fn every_group_of_the_other_describes_and_an_offset_delete_get_the_code() {
        let cases = [
            (
                15,
                r#"{"nowMs": 0, "type": "DescribeGroups", "request": {"groups": ["a", "b"]}}"#,
            ),
            (
                69,
                r#"{"nowMs": 0, "type": "ConsumerGroupDescribe", "request": {"groupIds": ["a", "b"]}}"#,
            ),
        ];
        for (key, text) in cases {
            let input = streams_group_coordinator::api::Input::parse(text).unwrap();
            let request = wire::encode_request(Dialect::Kafka42, &input.kind, 0, 3).unwrap();
            let frame = error_frame(Dialect::Kafka42, &request, 15).unwrap();
            let (_, json) = wire::response_json(Dialect::Kafka42, key, 0, &frame).unwrap();
            let codes: Vec<_> = json["groups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| (g["groupId"].as_str().unwrap(), g["errorCode"].as_i64()))
                .collect();
            assert_eq!(codes, [("a", Some(15)), ("b", Some(15))], "{key}");
        }
        let input = streams_group_coordinator::api::Input::parse(
            r#"{"nowMs": 0, "type": "OffsetDelete", "request": {"groupId": "g", "topics": [{"name": "t", "partitions": [{"partitionIndex": 0}]}]}}"#,
        )
        .unwrap();
        let request = wire::encode_request(Dialect::Kafka42, &input.kind, 0, 3).unwrap();
        let frame = error_frame(Dialect::Kafka42, &request, 15).unwrap();
        let (_, json) = wire::response_json(Dialect::Kafka42, 47, 0, &frame).unwrap();
        assert_eq!(
            (
                json["errorCode"].as_i64(),
                json["topics"].as_array().map(Vec::len)
            ),
            (Some(15), Some(0))
        );
    }
}

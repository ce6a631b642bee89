//! Kafka's answer to a group request when the coordinator cannot serve it: every group (or
//! the request) answered with one error code, as Kafka's `GroupCoordinatorService` answers
//! when its runtime refuses (a failed write: `COORDINATOR_NOT_AVAILABLE`; a partition not
//! led here: `NOT_COORDINATOR`). The client then looks for the coordinator again.

use serde_json::{json, Value};

use super::super::{frame_error, request_json};
use super::frames::{self, group_id};
use crate::records::Dialect;
use crate::BoundaryError;

/// Kafka's `COORDINATOR_NOT_AVAILABLE`: the partition's coordinator is loading, stopped, or
/// failed to write.
pub const COORDINATOR_NOT_AVAILABLE: i16 = 15;
/// Kafka's `NOT_COORDINATOR`: the partition is not led here.
pub const NOT_COORDINATOR: i16 = 16;

/// The response frame that answers the request `frame` with `error_code` for every group it
/// names (every partition of a commit), or for the request where its response has one error
/// (the heartbeats, a one-group fetch, `ListGroups`, `OffsetDelete`). An error where Kafka has
/// no such answer and closes the connection: a frame that does not read, `ApiVersions`, an API
/// the coordinator does not serve.
pub fn error_response(
    dialect: Dialect,
    frame: &[u8],
    error_code: i16,
) -> Result<Vec<u8>, BoundaryError> {
    let (header, request) = request_json(dialect, frame)?;
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
            .map(|g| json!({"groupId": group_id(g), "errorCode": error_code}));
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
                    .map(
                        |p| json!({"partitionIndex": p["partitionIndex"], "errorCode": error_code}),
                    )
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
        _ => json!({"errorCode": error_code}),
    };
    frames::response(dialect, &header, body).ok_or_else(|| {
        frame_error(
            "header.RequestApiKey",
            format!(
                "API key {} has no error response here; Kafka closes the connection",
                header.api_key
            ),
        )
    })
}

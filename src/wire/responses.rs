//! The coordinator's typed responses as response bodies, and response frames read back as
//! Kafka's JSON form of the message.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::codec::Reader;
use super::messages::kafka::response_header::ResponseHeader;
use super::messages::{draft, kafka};
use super::requests::flexible_from;
use super::{frame_error, offsets, Header};
use crate::api::{
    EndpointJson, HeartbeatResponse, HeartbeatResponse42, ListGroupsResponse, Response, StatusJson,
    TaskIdsJson, TopicPartitionJson,
};
use crate::records::Dialect;
use crate::BoundaryError;

/// A response body of one of the generated messages.
#[allow(clippy::large_enum_variant)]
enum Body {
    KafkaHeartbeat(kafka::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse),
    DraftHeartbeat(draft::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse),
    KafkaDescribe(kafka::streams_group_describe_response::StreamsGroupDescribeResponse),
    DraftDescribe(draft::streams_group_describe_response::StreamsGroupDescribeResponse),
    Initialize(draft::streams_group_initialize_response::StreamsGroupInitializeResponse),
    DeleteGroups(kafka::delete_groups_response::DeleteGroupsResponse),
    OffsetCommit(kafka::offset_commit_response::OffsetCommitResponse),
    OffsetFetch(kafka::offset_fetch_response::OffsetFetchResponse),
    ListGroups(kafka::list_groups_response::ListGroupsResponse),
    OffsetDelete(kafka::offset_delete_response::OffsetDeleteResponse),
    DescribeGroups(kafka::describe_groups_response::DescribeGroupsResponse),
    ConsumerGroupDescribe(kafka::consumer_group_describe_response::ConsumerGroupDescribeResponse),
    TxnOffsetCommit(kafka::txn_offset_commit_response::TxnOffsetCommitResponse),
    DescriptionUpdate(
        kafka::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse,
    ),
}

impl Body {
    fn write(&self, w: &mut Vec<u8>, v: i16) {
        match self {
            Body::KafkaHeartbeat(b) => b.write(w, v),
            Body::DraftHeartbeat(b) => b.write(w, v),
            Body::KafkaDescribe(b) => b.write(w, v),
            Body::DraftDescribe(b) => b.write(w, v),
            Body::Initialize(b) => b.write(w, v),
            Body::DeleteGroups(b) => b.write(w, v),
            Body::OffsetCommit(b) => b.write(w, v),
            Body::OffsetFetch(b) => b.write(w, v),
            Body::ListGroups(b) => b.write(w, v),
            Body::OffsetDelete(b) => b.write(w, v),
            Body::DescribeGroups(b) => b.write(w, v),
            Body::ConsumerGroupDescribe(b) => b.write(w, v),
            Body::TxnOffsetCommit(b) => b.write(w, v),
            Body::DescriptionUpdate(b) => b.write(w, v),
        }
    }
}

/// A typed response as a generated one with the same JSON form (the responses read rarely:
/// describe, initialize, delete); the heartbeat's, read on every beat, is mapped by hand.
fn convert<T: Serialize, U: DeserializeOwned + Default>(value: &T) -> U {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .unwrap_or_default()
}

macro_rules! task_lists {
    ($m:path, $l:expr) => {{
        use $m as m;
        $l.map(|l: Vec<TaskIdsJson>| {
            l.into_iter()
                .map(|t| m::TaskIds {
                    subtopology_id: t.subtopology_id,
                    partitions: t.partitions,
                })
                .collect()
        })
    }};
}

macro_rules! statuses {
    ($m:path, $l:expr) => {{
        use $m as m;
        $l.map(|l: Vec<StatusJson>| {
            l.into_iter()
                .map(|s| m::Status {
                    status_code: s.status_code,
                    status_detail: s.status_detail,
                })
                .collect()
        })
    }};
}

fn kafka_heartbeat(
    h: HeartbeatResponse42,
) -> kafka::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse {
    use kafka::streams_group_heartbeat_response as m;
    let endpoint = |e: EndpointJson| m::Endpoint {
        host: e.host,
        port: e.port,
    };
    let partitions = |l: Vec<TopicPartitionJson>| {
        l.into_iter()
            .map(|p| m::TopicPartition {
                topic: p.topic,
                partitions: p.partitions,
            })
            .collect()
    };
    m::StreamsGroupHeartbeatResponse {
        throttle_time_ms: h.throttle_time_ms,
        error_code: h.error_code,
        error_message: h.error_message,
        member_id: h.member_id,
        member_epoch: h.member_epoch,
        heartbeat_interval_ms: h.heartbeat_interval_ms,
        // One value in the JSON face; the version writes the field it has (v0's is never set).
        acceptable_recovery_lag_legacy: i32::try_from(h.acceptable_recovery_lag).unwrap_or(0),
        acceptable_recovery_lag: h.acceptable_recovery_lag,
        task_offset_interval_ms: h.task_offset_interval_ms,
        status: statuses!(kafka::streams_group_heartbeat_response, h.status),
        active_tasks: task_lists!(kafka::streams_group_heartbeat_response, h.active_tasks),
        standby_tasks: task_lists!(kafka::streams_group_heartbeat_response, h.standby_tasks),
        warmup_tasks: task_lists!(kafka::streams_group_heartbeat_response, h.warmup_tasks),
        topology_description_required: h.topology_description_required.unwrap_or(false),
        endpoint_information_epoch: h.endpoint_information_epoch,
        partitions_by_user_endpoint: h.partitions_by_user_endpoint.map(|l| {
            l.into_iter()
                .map(|e| m::EndpointToPartitions {
                    user_endpoint: endpoint(e.user_endpoint),
                    active_partitions: partitions(e.active_partitions),
                    standby_partitions: partitions(e.standby_partitions),
                })
                .collect()
        }),
    }
}

fn draft_heartbeat(
    h: HeartbeatResponse,
) -> draft::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse {
    use draft::streams_group_heartbeat_response as m;
    m::StreamsGroupHeartbeatResponse {
        throttle_time_ms: h.throttle_time_ms,
        error_code: h.error_code,
        error_message: h.error_message,
        member_id: h.member_id,
        member_epoch: h.member_epoch,
        heartbeat_interval_ms: h.heartbeat_interval_ms,
        acceptable_recovery_lag: h.acceptable_recovery_lag,
        task_offset_interval_ms: h.task_offset_interval_ms,
        should_initialize_topology: h.should_initialize_topology,
        group_topology_id: h.group_topology_id,
        status: statuses!(draft::streams_group_heartbeat_response, h.status),
        active_tasks: task_lists!(draft::streams_group_heartbeat_response, h.active_tasks),
        standby_tasks: task_lists!(draft::streams_group_heartbeat_response, h.standby_tasks),
        warmup_tasks: task_lists!(draft::streams_group_heartbeat_response, h.warmup_tasks),
        partitions_by_user_endpoint: h.partitions_by_user_endpoint.map(|l| {
            l.into_iter()
                .map(|e| m::EndpointToPartitions {
                    user_endpoint: m::Endpoint {
                        host: e.user_endpoint.host,
                        port: e.user_endpoint.port,
                    },
                    partitions: e
                        .partitions
                        .into_iter()
                        .map(|p| m::TopicPartition {
                            topic: p.topic,
                            partitions: p.partitions,
                        })
                        .collect(),
                })
                .collect()
        }),
    }
}

/// `ListGroups`: the version writes the fields it has (the state from 4, the type from 5).
fn list_groups(l: ListGroupsResponse) -> kafka::list_groups_response::ListGroupsResponse {
    use kafka::list_groups_response as m;
    m::ListGroupsResponse {
        throttle_time_ms: l.throttle_time_ms,
        error_code: l.error_code,
        groups: l
            .groups
            .into_iter()
            .map(|g| m::ListedGroup {
                group_id: g.group_id,
                protocol_type: g.protocol_type,
                group_state: g.group_state,
                group_type: g.group_type,
            })
            .collect(),
    }
}

/// The generated body of a typed response at version `v` (`None`: not a wire response,
/// `SetTargetAssignment`).
fn body(response: Response, v: i16) -> Option<Body> {
    Some(match response {
        Response::Heartbeat42(h) => Body::KafkaHeartbeat(kafka_heartbeat(*h)),
        Response::Heartbeat(h) => Body::DraftHeartbeat(draft_heartbeat(*h)),
        Response::Describe42(d) => Body::KafkaDescribe(convert(&d)),
        Response::Describe(d) => Body::DraftDescribe(convert(&d)),
        Response::Initialize(i) => Body::Initialize(convert(&i)),
        Response::DeleteGroups(d) => Body::DeleteGroups(convert(&d)),
        Response::OffsetCommit(c) => Body::OffsetCommit(offsets::commit_response(c)),
        Response::OffsetFetch(f) => Body::OffsetFetch(offsets::fetch_response(f, v)),
        Response::ListGroups(l) => Body::ListGroups(list_groups(l)),
        Response::OffsetDelete(d) => Body::OffsetDelete(convert(&d)),
        Response::DescribeGroups(d) => Body::DescribeGroups(convert(&d)),
        Response::ConsumerGroupDescribe(d) => Body::ConsumerGroupDescribe(convert(&d)),
        Response::TxnOffsetCommit(c) => Body::TxnOffsetCommit(offsets::txn_commit_response(c)),
        Response::TopologyDescriptionUpdate(u) => Body::DescriptionUpdate(convert(&u)),
        Response::SetTargetAssignment(_) => return None,
    })
}

/// Writes the response frame of a request into `out` (cleared first); the typed response is
/// moved into the message, not copied. A heartbeat's response comes back, its member id's
/// buffer in it, for [`crate::Coordinator::recycle`].
pub(super) fn encode_into(
    header: &Header,
    response: Response,
    out: &mut Vec<u8>,
) -> Option<Response> {
    let v = header.api_version;
    let header_version = i16::from(v >= flexible_from(header.api_key));
    out.clear();
    ResponseHeader {
        correlation_id: header.correlation_id,
    }
    .write(out, header_version);
    match response {
        Response::Heartbeat42(mut h) => {
            let mut m = kafka_heartbeat(std::mem::take(&mut *h));
            m.write(out, v);
            h.member_id = std::mem::take(&mut m.member_id);
            Some(Response::Heartbeat42(h))
        }
        Response::Heartbeat(mut h) => {
            let mut m = draft_heartbeat(std::mem::take(&mut *h));
            m.write(out, v);
            h.member_id = m.member_id.take();
            Some(Response::Heartbeat(h))
        }
        response => {
            if let Some(b) = body(response, v) {
                b.write(out, v);
            }
            None
        }
    }
}

/// A typed response as the JSON its wire form at version `v` reads back to (fields the
/// version lacks take their defaults).
pub(super) fn as_wire_json(dialect: Dialect, v: i16, response: &Response) -> Option<Value> {
    let (key, body) = (key_of(dialect, response)?, body(response.clone(), v)?);
    let header = Header {
        api_key: key,
        api_version: v,
        correlation_id: 0,
        client_id: None,
    };
    let mut frame = Vec::new();
    ResponseHeader { correlation_id: 0 }.write(&mut frame, i16::from(v >= flexible_from(key)));
    body.write(&mut frame, v);
    let _ = header;
    decode_json(dialect, key, v, &frame)
        .ok()
        .map(|(_, json)| json)
}

/// The API key a typed response answers in a dialect.
fn key_of(dialect: Dialect, response: &Response) -> Option<i16> {
    let draft = dialect == Dialect::Kip1071Draft;
    Some(match (draft, response) {
        (_, Response::DeleteGroups(_)) => kafka::delete_groups_request::API_KEY,
        (_, Response::OffsetCommit(_)) => kafka::offset_commit_request::API_KEY,
        (_, Response::OffsetFetch(_)) => kafka::offset_fetch_request::API_KEY,
        (_, Response::ListGroups(_)) => kafka::list_groups_request::API_KEY,
        (_, Response::OffsetDelete(_)) => kafka::offset_delete_request::API_KEY,
        (_, Response::DescribeGroups(_)) => kafka::describe_groups_request::API_KEY,
        (_, Response::ConsumerGroupDescribe(_)) => kafka::consumer_group_describe_request::API_KEY,
        (_, Response::TxnOffsetCommit(_)) => kafka::txn_offset_commit_request::API_KEY,
        (false, Response::Heartbeat42(_)) => kafka::streams_group_heartbeat_request::API_KEY,
        (false, Response::Describe42(_)) => kafka::streams_group_describe_request::API_KEY,
        (false, Response::TopologyDescriptionUpdate(_)) => {
            kafka::streams_group_topology_description_update_request::API_KEY
        }
        (true, Response::Heartbeat(_)) => draft::streams_group_heartbeat_request::API_KEY,
        (true, Response::Describe(_)) => draft::streams_group_describe_request::API_KEY,
        (true, Response::Initialize(_)) => draft::streams_group_initialize_request::API_KEY,
        _ => return None,
    })
}

fn read_json<T: Serialize>(
    r: &mut Reader<'_>,
    v: i16,
    read: impl FnOnce(&mut Reader<'_>, i16) -> Result<T, super::codec::WireError>,
) -> Result<Value, BoundaryError> {
    let body = read(r, v).map_err(|e| frame_error(&format!("body.{}", e.field), e.to_string()))?;
    Ok(serde_json::to_value(body).unwrap_or(Value::Null))
}

/// A response frame of API `key` version `v` read back: its correlation id and body as JSON.
pub(super) fn decode_json(
    dialect: Dialect,
    key: i16,
    v: i16,
    frame: &[u8],
) -> Result<(i32, Value), BoundaryError> {
    let header_version = if key == kafka::api_versions_request::API_KEY {
        0
    } else {
        i16::from(v >= flexible_from(key))
    };
    let mut r = Reader::new(frame);
    let header = kafka::response_header::ResponseHeader::read(&mut r, header_version)
        .map_err(|e| frame_error("header", e.to_string()))?;
    let draft = dialect == Dialect::Kip1071Draft;
    let json = match (draft, key) {
        (_, kafka::api_versions_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::api_versions_response::ApiVersionsResponse::read,
        )?,
        (_, kafka::delete_groups_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::delete_groups_response::DeleteGroupsResponse::read,
        )?,
        (_, kafka::offset_commit_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::offset_commit_response::OffsetCommitResponse::read,
        )?,
        (_, kafka::offset_fetch_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::offset_fetch_response::OffsetFetchResponse::read,
        )?,
        (_, kafka::list_groups_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::list_groups_response::ListGroupsResponse::read,
        )?,
        (_, kafka::offset_delete_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::offset_delete_response::OffsetDeleteResponse::read,
        )?,
        (_, kafka::describe_groups_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::describe_groups_response::DescribeGroupsResponse::read,
        )?,
        (_, kafka::consumer_group_describe_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::consumer_group_describe_response::ConsumerGroupDescribeResponse::read,
        )?,
        (_, kafka::txn_offset_commit_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::txn_offset_commit_response::TxnOffsetCommitResponse::read,
        )?,
        (false, kafka::streams_group_heartbeat_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse::read,
        )?,
        (false, kafka::streams_group_describe_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::streams_group_describe_response::StreamsGroupDescribeResponse::read,
        )?,
        (false, kafka::streams_group_topology_description_update_request::API_KEY) => read_json(
            &mut r,
            v,
            kafka::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse::read,
        )?,
        (true, draft::streams_group_heartbeat_request::API_KEY) => read_json(
            &mut r,
            v,
            draft::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse::read,
        )?,
        (true, draft::streams_group_describe_request::API_KEY) => read_json(
            &mut r,
            v,
            draft::streams_group_describe_response::StreamsGroupDescribeResponse::read,
        )?,
        (true, draft::streams_group_initialize_request::API_KEY) => read_json(
            &mut r,
            v,
            draft::streams_group_initialize_response::StreamsGroupInitializeResponse::read,
        )?,
        _ => {
            return Err(frame_error(
                "header",
                format!("API key {key} is not served"),
            ))
        }
    };
    if r.remaining() != 0 {
        return Err(frame_error(
            "body",
            format!("{} bytes after the body", r.remaining()),
        ));
    }
    Ok((header.correlation_id, json))
}

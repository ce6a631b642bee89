//! Frames of the coordinator's messages written from Kafka's JSON form of them, through the
//! generated types: what a host writes when it splits a request by partition, merges the
//! answers, or answers a request for a coordinator that is not there.

use serde_json::Value;

use super::super::messages::kafka::request_header::RequestHeader;
use super::super::messages::{draft, kafka};
use super::super::{respond, Header};
use crate::records::Dialect;

/// Runs `$body` with `m` bound to the generated module of `$key`'s message (`$kind`: request or
/// response) in `$dialect`, and `$t` its type; `None` for a key without one here.
macro_rules! with_message {
    ($dialect:expr, $key:expr, $kind:ident, |$m:ident, $t:ident| $body:expr) => {{
        let draft = $dialect == Dialect::Kip1071Draft;
        macro_rules! go {
            ($module:path, $ty:ident) => {{
                use $module as $m;
                type $t = $m::$ty;
                $body
            }};
        }
        with_message!(@$kind draft, $key, go)
    }};
    (@response $draft:ident, $key:expr, $go:ident) => {
        match $key {
            8 => $go!(kafka::offset_commit_response, OffsetCommitResponse),
            9 => $go!(kafka::offset_fetch_response, OffsetFetchResponse),
            15 => $go!(kafka::describe_groups_response, DescribeGroupsResponse),
            16 => $go!(kafka::list_groups_response, ListGroupsResponse),
            28 => $go!(kafka::txn_offset_commit_response, TxnOffsetCommitResponse),
            42 => $go!(kafka::delete_groups_response, DeleteGroupsResponse),
            69 => $go!(kafka::consumer_group_describe_response, ConsumerGroupDescribeResponse),
            47 => $go!(kafka::offset_delete_response, OffsetDeleteResponse),
            88 if !$draft => $go!(kafka::streams_group_heartbeat_response, StreamsGroupHeartbeatResponse),
            89 if !$draft => $go!(kafka::streams_group_describe_response, StreamsGroupDescribeResponse),
            93 if !$draft => $go!(
                kafka::streams_group_topology_description_update_response,
                StreamsGroupTopologyDescriptionUpdateResponse
            ),
            88 => $go!(draft::streams_group_initialize_response, StreamsGroupInitializeResponse),
            89 => $go!(draft::streams_group_heartbeat_response, StreamsGroupHeartbeatResponse),
            90 => $go!(draft::streams_group_describe_response, StreamsGroupDescribeResponse),
            _ => None,
        }
    };
    (@request $draft:ident, $key:expr, $go:ident) => {
        match $key {
            9 => $go!(kafka::offset_fetch_request, OffsetFetchRequest),
            15 => $go!(kafka::describe_groups_request, DescribeGroupsRequest),
            42 => $go!(kafka::delete_groups_request, DeleteGroupsRequest),
            69 => $go!(kafka::consumer_group_describe_request, ConsumerGroupDescribeRequest),
            89 if !$draft => $go!(kafka::streams_group_describe_request, StreamsGroupDescribeRequest),
            90 if $draft => $go!(draft::streams_group_describe_request, StreamsGroupDescribeRequest),
            _ => None,
        }
    };
}

/// The response frame of `body` (Kafka's JSON form) to the request of `header`; `None` for an
/// API without a response here or a body that is not its message.
pub(super) fn response(dialect: Dialect, header: &Header, body: Value) -> Option<Vec<u8>> {
    let (v, corr) = (header.api_version, header.correlation_id);
    with_message!(dialect, header.api_key, response, |m, T| {
        let typed: T = serde_json::from_value(body).ok()?;
        let header_version = i16::from(v >= m::FLEXIBLE_FROM);
        Some(respond(corr, header_version, |w| typed.write(w, v)))
    })
}

/// The request frame of `body` (Kafka's JSON form) with `header`: a part of a multi-group
/// request split by partition. `None` for an API that names no groups.
pub(super) fn request(dialect: Dialect, header: &Header, body: &Value) -> Option<Vec<u8>> {
    let v = header.api_version;
    with_message!(dialect, header.api_key, request, |m, T| {
        let typed: T = serde_json::from_value(body.clone()).ok()?;
        let mut w = Vec::with_capacity(256);
        RequestHeader {
            request_api_key: header.api_key,
            request_api_version: v,
            correlation_id: header.correlation_id,
            client_id: header.client_id.clone(),
        }
        .write(&mut w, if v >= m::FLEXIBLE_FROM { 2 } else { 1 });
        typed.write(&mut w, v);
        Some(w)
    })
}

/// The group of an entry of a request's group list: a group id, or an object with one
/// (`OffsetFetch` v8+).
pub(super) fn group_id(entry: &Value) -> &str {
    entry
        .as_str()
        .or_else(|| entry.get("groupId").and_then(Value::as_str))
        .unwrap_or_default()
}

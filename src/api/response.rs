//! Typed responses: one variant per request and dialect, serialised only at the boundary
//! (DESIGN 3), so that the core never builds a `serde_json::Value` for an answer.

// The fields are the responses' in the contract's camelCase (DESIGN 3).
#![allow(missing_docs)]

use serde::Serialize;

use super::describe::{DescribeResponse, DescribeResponse42};
use super::heartbeat::{HeartbeatResponse, HeartbeatResponse42};
use super::initialize::InitializeResponse;

/// What the coordinator answers to a request; each variant serialises as its schema's fields
/// in schema order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Response {
    /// Draft `StreamsGroupHeartbeat` (PROTOCOL 3.4).
    Heartbeat(Box<HeartbeatResponse>),
    /// 4.2 `StreamsGroupHeartbeat` (PROTOCOL 4.2).
    Heartbeat42(Box<HeartbeatResponse42>),
    /// `StreamsGroupInitialize` (PROTOCOL 3.13; unsupported in 4.2).
    Initialize(InitializeResponse),
    /// Draft `StreamsGroupDescribe`.
    Describe(DescribeResponse),
    /// 4.2 `StreamsGroupDescribe` (PROTOCOL 4.10).
    Describe42(DescribeResponse42),
    /// `DeleteGroups` (PROTOCOL 2.9).
    DeleteGroups(DeleteGroupsResponse),
    /// `SetTargetAssignment`, the manual assignor's input (PROTOCOL 2.10).
    SetTargetAssignment(SetTargetAssignmentResponse),
    /// `OffsetCommit`.
    OffsetCommit(super::offsets::OffsetCommitResponse),
    /// `OffsetFetch`.
    OffsetFetch(super::offsets::OffsetFetchResponse),
    /// `OffsetDelete`.
    OffsetDelete(super::offsets::OffsetDeleteResponse),
    /// `DescribeGroups` (the classic groups' describe).
    DescribeGroups(super::describe_groups::DescribeGroupsResponse),
    /// `ConsumerGroupDescribe`.
    ConsumerGroupDescribe(super::describe_groups::ConsumerGroupDescribeResponse),
    /// `TxnOffsetCommit`: the shape of `OffsetCommit`'s (`topicId` at version 6).
    TxnOffsetCommit(super::offsets::OffsetCommitResponse),
    /// `ListGroups`.
    ListGroups(super::list_groups::ListGroupsResponse),
    /// `StreamsGroupTopologyDescriptionUpdate` (4.4).
    TopologyDescriptionUpdate(super::topology_description::TopologyDescriptionUpdateResponse),
}

/// `DeleteGroups`: one result per requested group, in request order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DeleteGroupsResponse {
    pub results: Vec<DeletedGroup>,
}

/// One group of a `DeleteGroups` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletedGroup {
    pub group_id: String,
    pub error_code: i16,
}

/// `SetTargetAssignment`: the error pair (`0` and `null` when the targets were written).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTargetAssignmentResponse {
    pub error_code: i16,
    pub error_message: Option<String>,
}

/// Heartbeat responses a host gave back once their frames were written
/// ([`crate::Coordinator::recycle`]): the next response of the kind is built in the box and
/// its member id in the old one's buffer, so a steady heartbeat's answer allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recycled {
    kafka: Option<Box<HeartbeatResponse42>>,
    draft: Option<Box<HeartbeatResponse>>,
}

/// A response `build` makes of the member id, built in `kept` (its member id's buffer, which
/// `take_id` takes out, reused) when there is one.
fn rebuild<T>(
    kept: Option<Box<T>>,
    take_id: fn(&mut T) -> String,
    member_id: &str,
    build: impl FnOnce(String) -> T,
) -> Box<T> {
    match kept {
        Some(mut kept) => {
            let mut id = take_id(&mut kept);
            id.clear();
            id.push_str(member_id);
            *kept = build(id);
            kept
        }
        None => Box::new(build(member_id.to_string())),
    }
}

impl Recycled {
    /// Keeps a heartbeat response for the next one; any other response is dropped.
    pub(crate) fn keep(&mut self, response: Response) {
        match response {
            Response::Heartbeat42(h) => self.kafka = Some(h),
            Response::Heartbeat(h) => self.draft = Some(h),
            _ => {}
        }
    }

    /// A 4.2-family response `build` makes of the member id, in a kept box when there is one.
    pub(crate) fn kafka(
        &mut self,
        member_id: &str,
        build: impl FnOnce(String) -> HeartbeatResponse42,
    ) -> Box<HeartbeatResponse42> {
        let take_id = |r: &mut HeartbeatResponse42| std::mem::take(&mut r.member_id);
        rebuild(self.kafka.take(), take_id, member_id, build)
    }

    /// A draft response `build` makes of the member id, in a kept box when there is one.
    pub(crate) fn draft(
        &mut self,
        member_id: &str,
        build: impl FnOnce(String) -> HeartbeatResponse,
    ) -> Box<HeartbeatResponse> {
        let take_id = |r: &mut HeartbeatResponse| r.member_id.take().unwrap_or_default();
        rebuild(self.draft.take(), take_id, member_id, build)
    }
}

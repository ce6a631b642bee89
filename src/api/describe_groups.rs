//! `DescribeGroups` (Kafka's API key 15, the classic groups' describe) and
//! `ConsumerGroupDescribe` (69) at the JSON boundary: Kafka's request and response field names.
//! This coordinator holds no classic group with members and no consumer group, so a described
//! group never lists members (`members` is always empty).

// The fields are Kafka's schema fields in camelCase (DescribeGroupsRequest.json, ...).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

/// The `DescribeGroups` versions Kafka 4.2-4.4 serve (6 brought the error message and
/// `GROUP_ID_NOT_FOUND`).
pub const DESCRIBE_GROUPS_VERSIONS: std::ops::RangeInclusive<i16> = 0..=6;

/// No member: the type of a member list that is always empty here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum NoMember {}

/// `DescribeGroupsRequest`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeGroupsRequest {
    pub groups: Vec<String>,
    /// Version 3+; the broker's authorizer answers it (`authorizedOperations` stays Kafka's
    /// default here).
    #[serde(default)]
    pub include_authorized_operations: bool,
}

/// `DescribeGroupsResponse`: one entry per requested group, in request order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeGroupsResponse {
    pub throttle_time_ms: i32,
    pub groups: Vec<DescribedClassicGroup>,
}

/// One group of a `DescribeGroups` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedClassicGroup {
    pub error_code: i16,
    /// Version 6+; null when there is no error.
    pub error_message: Option<String>,
    pub group_id: String,
    /// `Dead` for a group that is not a classic group, `Empty` for Kafka's simple group.
    pub group_state: String,
    pub protocol_type: String,
    pub protocol_data: String,
    pub members: Vec<NoMember>,
    pub authorized_operations: i32,
}

/// `ConsumerGroupDescribeRequest`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConsumerGroupDescribeRequest {
    pub group_ids: Vec<String>,
    /// The broker's authorizer answers it (`authorizedOperations` stays Kafka's default here).
    #[serde(default)]
    pub include_authorized_operations: bool,
}

/// `ConsumerGroupDescribeResponse`: an empty group id's entry first, then one per requested
/// group in request order (Kafka's `GroupCoordinatorService` order for one partition).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupDescribeResponse {
    pub throttle_time_ms: i32,
    pub groups: Vec<DescribedConsumerGroup>,
}

/// One group of a `ConsumerGroupDescribe` answer: here always an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedConsumerGroup {
    pub error_code: i16,
    pub error_message: Option<String>,
    pub group_id: String,
    pub group_state: String,
    pub group_epoch: i32,
    pub assignment_epoch: i32,
    pub assignor_name: String,
    pub members: Vec<NoMember>,
    pub authorized_operations: i32,
}

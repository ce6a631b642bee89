//! `OffsetCommit`, `OffsetFetch` and `OffsetDelete` (Kafka's API keys 8, 9 and 47) at the JSON
//! boundary: Kafka's request and response field names, one input per request with the API
//! version it came at.

// The fields are Kafka's schema fields in camelCase (OffsetCommitRequest.json, ...).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

fn minus_one() -> i32 {
    -1
}

fn minus_one_i64() -> i64 {
    -1
}

/// The OffsetCommit versions Kafka 4.2-4.4 serve.
pub const OFFSET_COMMIT_VERSIONS: std::ops::RangeInclusive<i16> = 2..=10;
/// The OffsetFetch versions Kafka 4.2-4.4 serve.
pub const OFFSET_FETCH_VERSIONS: std::ops::RangeInclusive<i16> = 1..=10;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetCommitRequest {
    pub group_id: String,
    #[serde(default = "minus_one")]
    pub generation_id_or_member_epoch: i32,
    #[serde(default)]
    pub member_id: String,
    #[serde(default)]
    pub group_instance_id: Option<String>,
    /// Versions 2-4 only; -1: the broker's retention.
    #[serde(default = "minus_one_i64")]
    pub retention_time_ms: i64,
    pub topics: Vec<OffsetCommitTopic>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetCommitTopic {
    pub name: String,
    /// Version 10's topic id (Kafka's 22-character form); the zero UUID when absent.
    #[serde(default)]
    pub topic_id: Option<String>,
    pub partitions: Vec<OffsetCommitPartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetCommitPartition {
    pub partition_index: i32,
    pub committed_offset: i64,
    #[serde(default = "minus_one")]
    pub committed_leader_epoch: i32,
    #[serde(default)]
    pub committed_metadata: Option<String>,
}

/// `OffsetCommitResponse`: topics in request order; `topicId` only at version 10.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetCommitResponse {
    pub throttle_time_ms: i32,
    pub topics: Vec<OffsetCommitResponseTopic>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetCommitResponseTopic {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_id: Option<String>,
    pub partitions: Vec<OffsetCommitResponsePartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetCommitResponsePartition {
    pub partition_index: i32,
    pub error_code: i16,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetFetchRequest {
    pub groups: Vec<OffsetFetchGroup>,
    /// Version 7+.
    #[serde(default)]
    pub require_stable: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetFetchGroup {
    pub group_id: String,
    /// Version 9+; null: the admin's way.
    #[serde(default)]
    pub member_id: Option<String>,
    #[serde(default = "minus_one")]
    pub member_epoch: i32,
    /// Null: every committed offset of the group.
    pub topics: Option<Vec<OffsetFetchTopic>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetFetchTopic {
    pub name: String,
    /// Version 10's topic id (Kafka's 22-character form): echoed in the answer, and an offset
    /// committed under another id reads as none.
    #[serde(default)]
    pub topic_id: Option<String>,
    pub partition_indexes: Vec<i32>,
}

/// `OffsetFetchResponse` in its version 8+ shape (one entry per group, in request order; the
/// wire face writes the single group of versions 1-7 at the top level).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetFetchResponse {
    pub throttle_time_ms: i32,
    pub groups: Vec<OffsetFetchResponseGroup>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetFetchResponseGroup {
    pub group_id: String,
    pub topics: Vec<OffsetFetchResponseTopic>,
    pub error_code: i16,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetFetchResponseTopic {
    pub name: String,
    /// Version 10 only: the request's id, or for a fetch of all offsets the topic image's (the
    /// zero id when the host gave none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_id: Option<String>,
    pub partitions: Vec<OffsetFetchResponsePartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetFetchResponsePartition {
    pub partition_index: i32,
    pub committed_offset: i64,
    pub committed_leader_epoch: i32,
    pub metadata: String,
    pub error_code: i16,
}

/// `OffsetDeleteRequest` (Kafka's API key 47, version 0 only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetDeleteRequest {
    pub group_id: String,
    pub topics: Vec<OffsetDeleteTopic>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetDeleteTopic {
    pub name: String,
    pub partitions: Vec<OffsetDeletePartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffsetDeletePartition {
    pub partition_index: i32,
}

/// `OffsetDeleteResponse`: a group-level error with no topics, or every topic and partition of
/// the request in its order, each partition with its error.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetDeleteResponse {
    pub error_code: i16,
    pub throttle_time_ms: i32,
    pub topics: Vec<OffsetDeleteResponseTopic>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetDeleteResponseTopic {
    pub name: String,
    pub partitions: Vec<OffsetDeleteResponsePartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetDeleteResponsePartition {
    pub partition_index: i32,
    pub error_code: i16,
}

/// The `TxnOffsetCommit` versions any release serves (6, with topic ids, is Kafka 4.4's; the
/// coordinator refuses it in another dialect).
pub const TXN_OFFSET_COMMIT_VERSIONS: std::ops::RangeInclusive<i16> = 0..=6;
/// An input's `TxnOffsetCommit` version when it names none: the newest every release serves.
pub const TXN_OFFSET_COMMIT_DEFAULT_VERSION: i16 = 5;

/// `TxnOffsetCommitRequest` (Kafka's API key 28): a transactional producer's commit, pending
/// until the transaction completes. Topics and partitions as `OffsetCommit`'s (`topicId`: version
/// 6's; `committedLeaderEpoch`: version 2+).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TxnOffsetCommitRequest {
    pub transactional_id: String,
    pub group_id: String,
    pub producer_id: i64,
    pub producer_epoch: i16,
    /// Version 3+ (4.2 and 4.3 call it `GenerationId`, accepted too); -1: no member.
    #[serde(default = "minus_one", alias = "generationId")]
    pub generation_id_or_member_epoch: i32,
    /// Version 3+.
    #[serde(default)]
    pub member_id: String,
    /// Version 3+.
    #[serde(default)]
    pub group_instance_id: Option<String>,
    pub topics: Vec<OffsetCommitTopic>,
}

/// How a transaction ended (Kafka's `TransactionResult`, the end marker's control type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TransactionResult {
    Commit,
    Abort,
}

impl TransactionResult {
    /// `COMMIT` or `ABORT`.
    pub fn name(self) -> &'static str {
        match self {
            TransactionResult::Commit => "COMMIT",
            TransactionResult::Abort => "ABORT",
        }
    }
}

//! `explain`: why each thing an output holds happened (DESIGN 3), one entry per cause, in the
//! contract's codes and keys.

use serde::Serialize;

/// One entry of `explain`: why something happened (DESIGN 3). Variants and fields are the
/// contract's codes and keys (`GROUP_EPOCH_BUMPED`, `groupId`, ...), documented there.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "code", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Explain {
    #[serde(rename_all = "camelCase")]
    GroupEpochBumped {
        group_id: String,
        from: i32,
        to: i32,
        reasons: Vec<&'static str>,
    },
    #[serde(rename_all = "camelCase")]
    MemberFenced {
        group_id: String,
        member_id: String,
        cause: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        instance_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    StaticMemberReplaced {
        group_id: String,
        instance_id: String,
        old_member_id: String,
        new_member_id: String,
    },
    #[serde(rename_all = "camelCase")]
    StaticMemberLeftTemporarily {
        group_id: String,
        member_id: String,
        instance_id: String,
        /// When the session timeout fences the member unless it comes back.
        expires_at_ms: i64,
    },
    #[serde(rename_all = "camelCase")]
    StaticMemberExpired {
        group_id: String,
        member_id: String,
        instance_id: String,
    },
    #[serde(rename_all = "camelCase")]
    TargetAssignmentComputed {
        group_id: String,
        assignment_epoch: i32,
        tasks_moved: u64,
        /// Active tasks of members that left or were fenced, handed to others.
        tasks_reassigned: u64,
        assignor: &'static str,
    },
    #[serde(rename_all = "camelCase")]
    MemberStateChanged {
        group_id: String,
        member_id: String,
        from: &'static str,
        to: &'static str,
        member_epoch: i32,
    },
    #[serde(rename_all = "camelCase")]
    GroupStateChanged {
        group_id: String,
        from: &'static str,
        to: &'static str,
    },
    #[serde(rename_all = "camelCase")]
    GroupDeleted {
        group_id: String,
        cause: &'static str,
    },
    #[serde(rename_all = "camelCase")]
    TopologyInitializationRequested {
        group_id: String,
        member_id: String,
        topology_id: String,
    },
    /// No target is computed before `untilMs`: in 4.2 the first member of a memberless group
    /// armed the initial rebalance delay (PROTOCOL 4.7); with `cause` `ASSIGNMENT_INTERVAL`, the
    /// group epoch was bumped within `group.streams.assignment.interval.ms` of the last
    /// computation (assignment batching), and members reconcile towards the last target.
    /// A warm-up in a new target: the task stays active on a caught-up member while this one
    /// restores its state, until its lag is at most `acceptableRecoveryLag`.
    #[serde(rename_all = "camelCase")]
    WarmupAssigned {
        group_id: String,
        member_id: String,
        subtopology_id: String,
        partition: i32,
        active_member_id: String,
        /// The member's lag on the task as reported; none when unknown.
        lag: Option<u64>,
        acceptable_recovery_lag: i32,
    },
    #[serde(rename_all = "camelCase")]
    AssignmentDelayed {
        group_id: String,
        until_ms: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        cause: Option<&'static str>,
    },
    #[serde(rename_all = "camelCase")]
    TimerDropped {
        group_id: String,
        timer: &'static str,
        message: String,
    },
    /// A request failed with `UNKNOWN_SERVER_ERROR`, which a `kafka-*` dialect answers without
    /// a message, as Kafka does (Kafka logs the cause): the cause.
    #[serde(rename_all = "camelCase")]
    ServerError { group_id: String, message: String },
    /// The periodic cleanup expired committed offsets of a group (`partitions` of them).
    #[serde(rename_all = "camelCase")]
    OffsetsExpired { group_id: String, partitions: usize },
    /// A transaction with pending offsets in the group completed (`TransactionCompleted`):
    /// `partitions` pending offsets left, `committed` of them became the committed ones (0 on
    /// an abort; a commit keeps a newer committed offset of a partition).
    #[serde(rename_all = "camelCase")]
    TransactionCompleted {
        group_id: String,
        producer_id: i64,
        result: &'static str,
        partitions: usize,
        committed: usize,
    },
    /// An offsets request (`OffsetCommit`, `OffsetFetch`, `OffsetDelete`, `TxnOffsetCommit`)
    /// was refused as a whole: its responses carry no message, so Kafka's exception message is
    /// here (`request`: the input type).
    #[serde(rename_all = "camelCase")]
    OffsetsRefused {
        group_id: String,
        request: &'static str,
        error: &'static str,
        message: String,
    },
}

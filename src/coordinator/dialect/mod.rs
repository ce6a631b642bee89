//! The dialect seam: everything in which `kip1071-draft` and `kafka-4.2` differ, answered by one
//! implementation each ([`draft::Draft`], [`kafka42::Kafka42`]), so that the operations hold no
//! `match` on the dialect. Record layouts differ too; they live in [`crate::records`].

pub(crate) mod draft;
pub(crate) mod kafka42;
pub(crate) mod release;

use super::Coordinator;
use crate::api::{DescribeRequest, HeartbeatRequest, Output, Response};
use crate::error::{BoundaryError, ProtocolError};
use crate::group::{Group, GroupState};
use crate::records::build::GroupMetadataFields;
use crate::records::{Dialect, Record, TopologyValue};
use crate::topology::Configuration;

/// The message of the UNKNOWN_SERVER_ERROR of a heartbeat whose endpoint map Kafka cannot
/// build (never sent: Kafka answers such errors without a message).
pub(crate) const ENDPOINT_MAP_FAILED: &str = "The endpoint map needs a ready topology.";

/// A heartbeat Kafka fails while building its response: its records and timeline state are
/// undone, but what Kafka keeps outside its timeline before the failure stays.
#[derive(Debug)]
pub(crate) struct ResponseFailure {
    /// The answer.
    pub(crate) error: ProtocolError,
    /// The group's endpoint-information epoch, a plain field of Kafka's group object that it
    /// moved before the failure (the stored group's, not a group this heartbeat created).
    pub(crate) endpoint_epoch: Option<i32>,
}

/// The rules of the dialect `dialect`.
pub(crate) fn rules(dialect: Dialect) -> &'static dyn DialectRules {
    match dialect {
        Dialect::Kip1071Draft => &draft::Draft,
        Dialect::Kafka42 => &kafka42::KAFKA_4_2,
        Dialect::Kafka43 => &kafka42::KAFKA_4_3,
        Dialect::Kafka44 => &kafka42::KAFKA_4_4,
    }
}

/// What one heartbeat's topic view decided (R8; 4.2: 4.4 steps 5-6).
#[derive(Debug, Default)]
pub(crate) struct TopicView {
    /// The configuration this heartbeat computed, when it computed one.
    pub refreshed: Option<Configuration>,
    /// Records of the view (the draft's partition metadata).
    pub records: Vec<Record>,
    /// Bump reasons of the view (2.8).
    pub reasons: Vec<&'static str>,
    /// The group metadata fields a bump of this heartbeat writes.
    pub fields: GroupMetadataFields,
}

/// What a heartbeat changed of its member, as a response's task lists and the
/// endpoint-information epoch look at it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemberChange {
    /// The heartbeat is a join (epoch 0).
    pub join: bool,
    /// The member's tasks differ from what it held before.
    pub tasks: bool,
    /// The member's endpoint differs from what it had before (a new member had none).
    pub endpoint: bool,
}

/// A committed regular heartbeat, as the dialect's response step sees it.
pub(crate) struct Committed<'a> {
    pub now: i64,
    pub group_id: &'a str,
    /// The member, as stored after the heartbeat.
    pub member_id: &'a str,
    /// Whether the member's tasks differ from what it held before.
    pub tasks_changed: bool,
    /// Whether the member's endpoint differs from what it had before (a new member had none).
    pub endpoint_changed: bool,
    /// The slots of the group's member table before the heartbeat (Kafka answers from the map
    /// as it was before the heartbeat's records).
    pub member_slots_before: usize,
    /// Kafka 4.3+: the target assignment waits for the assignment interval.
    pub interval_delayed: bool,
    /// Whether this heartbeat created the group (Kafka works on a group object it does not
    /// keep: what the heartbeat sets only in memory is lost).
    pub created: bool,
    pub request: &'a HeartbeatRequest,
}

/// One dialect's answers (PROTOCOL 3 for the draft, 4 for 4.2).
pub(crate) trait DialectRules: Sync + std::fmt::Debug {
    /// Schema checks made at the boundary, before any timer fires (PROTOCOL 1.3).
    fn precheck_heartbeat(&self, req: &HeartbeatRequest) -> Result<(), BoundaryError>;

    /// Request validation, in order (3.5; 4.3).
    fn validate(&self, req: &HeartbeatRequest) -> Result<(), ProtocolError>;

    /// The response of a failed heartbeat.
    fn error_response(&self, e: &ProtocolError) -> Response;

    /// The response of a successful leave.
    fn leave_response(&self, member_id: &str, member_epoch: i32) -> Response;

    /// The message of `GROUP_ID_NOT_FOUND` for a leave.
    fn leave_group_not_found(&self, group_id: &str) -> String;

    /// R3: whether a join with a blank member id gets one generated (the draft); 4.2 member ids
    /// are the client's.
    fn generates_member_ids(&self) -> bool;

    /// R7: whether a join's `topology` sets the member's topology epoch (and resets its
    /// endpoint before the request's is applied).
    fn join_carries_topology(&self) -> bool;

    /// 4.4 step 4: the topology record a join writes, if any (none in the draft, whose topology
    /// arrives by `StreamsGroupInitialize`).
    fn topology_step(
        &self,
        c: &Coordinator,
        group: &Group,
        req: &HeartbeatRequest,
    ) -> Result<Option<TopologyValue>, ProtocolError>;

    /// R8 (4.4 steps 5-6): the topic view of a heartbeat. `topology` is the stored one or the
    /// one this join stores; `bumps` says whether the heartbeat bumps the epoch anyway.
    fn topic_view(
        &self,
        c: &Coordinator,
        group: &Group,
        topology: Option<&TopologyValue>,
        topology_initialized: bool,
        bumps: bool,
    ) -> Result<TopicView, ProtocolError>;

    /// Keeps the configuration a committed heartbeat computed, where the dialect keeps it in
    /// memory (4.2; the draft derives its own from the partition metadata record).
    /// `provisional`: computed by the heartbeat that created the group (see
    /// [`crate::group::Kafka42State::provisional`]).
    fn keep_configuration(&self, group: &mut Group, configured: Configuration, provisional: bool);

    /// Whether the configuration lives in memory only (4.2), so that a rebuilt coordinator has
    /// none until a heartbeat refreshes it; the draft derives it from its records.
    fn keeps_configuration(&self) -> bool;

    /// The group's configured topology (PROTOCOL 2.1).
    fn configured<'a>(&self, group: &'a Group) -> Option<&'a Configuration>;

    /// The group epoch after one bump (2.3, 2.8).
    fn next_group_epoch(&self, epoch: i32) -> i32;

    /// Whether current assignment records carry per-task assignment epochs (4.8).
    fn writes_assignment_epochs(&self) -> bool;

    /// Whether the first member of a memberless group arms the initial rebalance delay (4.7).
    fn has_initial_rebalance_delay(&self) -> bool;

    /// The newest `StreamsGroupHeartbeat` and `StreamsGroupDescribe` version served (4.4: 1).
    fn streams_max_version(&self) -> i16 {
        self.release()
            .map_or(0, release::Release::streams_max_version)
    }

    /// The released Kafka the dialect answers as (none for the draft).
    fn release(&self) -> Option<release::Release> {
        None
    }

    /// Whether group deletion writes a partition metadata tombstone (5.5).
    fn has_partition_metadata(&self) -> bool;

    /// The group state (2.2).
    fn group_state(&self, group: &Group) -> GroupState;

    /// R13-R14 (4.4 step 10): the last-sent values and the response of a committed heartbeat.
    fn respond(&self, c: &mut Coordinator, done: Committed<'_>, out: &mut Output) -> Response;

    /// Checks made before anything is written that the response would fail on (Kafka fails a
    /// heartbeat whose endpoint map it cannot build while the topology has no subtopologies).
    // The heartbeat's whole view, as Kafka's response builder reads it.
    #[allow(clippy::too_many_arguments)]
    fn check_response(
        &self,
        _group: &Group,
        _created: bool,
        _member: &crate::group::Member,
        _change: MemberChange,
        _configured: Option<&Configuration>,
        _req: &HeartbeatRequest,
        _topics: &crate::topics::Topics,
    ) -> Option<ResponseFailure> {
        None
    }

    /// `StreamsGroupDescribe` (3.15; 4.10).
    fn describe(&self, c: &Coordinator, req: &DescribeRequest) -> Response;

    /// Whether the dialect has `StreamsGroupInitialize` (3.13; 4.2 has none, 3.16).
    fn supports_initialize(&self) -> bool;
}

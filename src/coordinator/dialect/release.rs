//! A released Kafka as a value: what the `kafka-*` dialects do differently, one answer per
//! question, read by the one implementation of their rules ([`super::kafka42::Kafka`]).

use crate::assignor::KafkaRelease;

/// A Kafka release that a `kafka-*` dialect answers as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Release {
    /// 4.2.0.
    V4_2,
    /// 4.3.0.
    V4_3,
    /// The 4.4 release branch.
    V4_4,
}

impl Release {
    /// Its sticky assignor.
    pub(crate) fn assignor(self) -> KafkaRelease {
        match self {
            Release::V4_2 => KafkaRelease::V4_2,
            Release::V4_3 => KafkaRelease::V4_3,
            Release::V4_4 => KafkaRelease::V4_4,
        }
    }

    /// 4.2 and 4.3 refuse static members, task offsets and warm-up tasks up front.
    pub(crate) fn refuses_unsupported_features(self) -> bool {
        self != Release::V4_4
    }

    /// A new group's first bump: 0 -> 2 in 4.2; from 4.3 a group starts at epoch 1 (see
    /// `Group::new`) and every bump adds one (KAFKA-20268).
    pub(crate) fn next_group_epoch(self, epoch: i32) -> i32 {
        match (self, epoch) {
            (Release::V4_2, 0) => 2,
            _ => epoch.saturating_add(1),
        }
    }

    /// The assignment epoch answered while the initial rebalance delay holds the assignment
    /// back: at least 1 in 4.2, the group's own from 4.3 (which starts at 1).
    pub(crate) fn delayed_assignment_epoch(self, assignment_epoch: i32) -> i32 {
        match self {
            Release::V4_2 => assignment_epoch.max(1),
            _ => assignment_epoch,
        }
    }

    /// From 4.3 the target assignment metadata record carries when it was computed, and a
    /// computation within `group.streams.assignment.interval.ms` of it waits (KIP-1263).
    pub(crate) fn has_assignment_interval(self) -> bool {
        self != Release::V4_2
    }

    /// The v0 heartbeat response's `TaskOffsetIntervalMs`: 4.2 and 4.3 answer 0; 4.4 the
    /// setting. `AcceptableRecoveryLag` stays 0 in v0 (4.4 answers it in v1's int64 field).
    pub(crate) fn answers_task_offset_interval(self) -> bool {
        self == Release::V4_4
    }

    /// 4.4's assignment configs (the group metadata's `lastAssignmentConfigs`, a change of
    /// which bumps the group) carry `rack.aware.assignment.tags` beside the standby count,
    /// when any are set.
    pub(crate) fn assignment_configs_carry_rack_tags(self) -> bool {
        self == Release::V4_4
    }

    /// The newest streams heartbeat and describe version: 4.4 adds 1 (KIP-1331's topology
    /// description, the int64 recovery lag, `MISSING_CLIENT_TAGS`).
    pub(crate) fn streams_max_version(self) -> i16 {
        match self {
            Release::V4_4 => 1,
            _ => 0,
        }
    }

    /// The newest `TxnOffsetCommit` version: 4.4 adds 6 (KIP-1319: topics by id, and
    /// `GROUP_ID_NOT_FOUND` and `STALE_MEMBER_EPOCH` answered as they are).
    pub(crate) fn txn_offset_commit_max_version(self) -> i16 {
        match self {
            Release::V4_4 => 6,
            _ => 5,
        }
    }

    /// 4.3 only: a transactional commit checked against a member's assignment that names a
    /// topic the metadata image lacks fails with `ILLEGAL_GENERATION` (4.3 resolved the topic's
    /// id from its image for the validator; 4.4 takes it from the request).
    pub(crate) fn txn_commit_needs_known_topics(self) -> bool {
        self == Release::V4_3
    }

    /// 4.4 only: fencing the last member also writes the target assignment metadata at the
    /// new group epoch with timestamp 0, so the empty group is settled and its next assignment
    /// is not held back by the assignment interval.
    pub(crate) fn settles_emptied_group(self) -> bool {
        self == Release::V4_4
    }

    /// 4.4's static join (KAFKA-20169) with the instance id already held by the joining member
    /// id: refused with `UNRELEASED_INSTANCE_ID` while the member is active, and at -2 the
    /// member is replaced by itself (its tombstones, then its records again). The draft takes
    /// such a join as a normal rejoin (PROTOCOL 6.4).
    pub(crate) fn replaces_same_id_static_member(self) -> bool {
        self == Release::V4_4
    }

    /// 4.4's endpoint maps: warm-up partitions among the standby ones, and each topic with only
    /// the partitions it has (KAFKA-20899, KAFKA-20868, KAFKA-20665).
    pub(crate) fn lists_warmups_in_endpoints(self) -> bool {
        self == Release::V4_4
    }

    /// 4.4 moves the endpoint-information epoch when the member's endpoint changed or a member
    /// with one got other tasks; 4.2 and 4.3 when a member with one joined or got other tasks.
    pub(crate) fn endpoint_epoch_follows_changes(self) -> bool {
        self == Release::V4_4
    }

    /// Whether the heartbeat keeps each member's endpoint entry until it changes (4.4's
    /// `endpointToPartitionsCache`) rather than building every entry again.
    pub(crate) fn caches_endpoint_maps(self) -> bool {
        self == Release::V4_4
    }

    /// How a member's task changes its role in reconciliation: 4.4 changes it in place.
    pub(crate) fn roles(self) -> crate::reconcile::Roles {
        match self {
            Release::V4_4 => crate::reconcile::Roles::InPlace,
            _ => crate::reconcile::Roles::Revoked,
        }
    }

    /// 4.2 and 4.3 refuse every join to a full group, a member's own rejoin too; 4.4 lets a
    /// member of the group or the holder of a static instance id rejoin.
    pub(crate) fn full_group_refuses_every_join(self) -> bool {
        self != Release::V4_4
    }

    /// From 4.3 an `OffsetCommit` below v10 records the topic id of the broker's metadata
    /// cache (`KafkaApis` fills it in before the coordinator sees the request).
    pub(crate) fn commits_take_topic_ids_from_image(self) -> bool {
        self != Release::V4_2
    }

    /// 4.4 does the same for a `TxnOffsetCommit` below v6.
    pub(crate) fn txn_commits_take_topic_ids_from_image(self) -> bool {
        self == Release::V4_4
    }

    /// From 4.3 a deleted topic's offsets are deleted by topic id (`onTopicsDeleted`: those
    /// recorded under its id or the zero id); 4.2 deletes its partitions by name.
    pub(crate) fn deletes_offsets_by_topic_id(self) -> bool {
        self != Release::V4_2
    }
}

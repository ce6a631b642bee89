//! One builder per record kind the coordinator writes, as Kafka's
//! `StreamsCoordinatorRecordHelpers`: operations say what they write, not how a record is laid
//! out. The builders take record values and task sets; a group's member converts itself into
//! [`MemberFields`], so that the records know no group.

use super::{
    CurrentMemberAssignmentValue, GroupMetadataValue, KeyValue, MemberMetadataValue,
    PartitionMetadataValue, Record, RecordKey, RecordValue, TargetAssignmentMemberValue,
    TargetAssignmentMetadataValue, TopologyValue,
};
use crate::tasks::{Assignment, TaskEpochs};

/// A member as its records write it: the group's `Member` converts into this (`&member`), and
/// the builders read nothing else of it.
#[derive(Clone, Copy, Debug)]
pub struct MemberFields<'a> {
    /// The member id.
    pub member_id: &'a str,
    /// Its metadata, as the member metadata record holds it.
    pub metadata: &'a MemberMetadataValue,
    /// The member epoch.
    pub member_epoch: i32,
    /// The epoch before the last change.
    pub previous_member_epoch: i32,
    /// The raw state code.
    pub state: i8,
    /// The tasks it holds.
    pub assigned: &'a Assignment,
    /// The tasks it must still revoke.
    pub pending: &'a Assignment,
    /// The assignment epoch of each active task, held and pending revocation (4.2).
    pub active_epochs: &'a TaskEpochs,
}

/// The group-level fields of a group metadata record besides the epoch (the 4.2 dialect's topic
/// view; the draft writes its defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupMetadataFields {
    /// The metadata hash (4.2).
    pub metadata_hash: i64,
    /// The validated topology epoch (4.2).
    pub validated_topology_epoch: i32,
    /// The last assignment configs (4.2).
    pub last_assignment_configs: Option<Vec<KeyValue>>,
    /// The description store's topology epoch (4.4; -1: none).
    pub stored_description_topology_epoch: i32,
    /// The topology epoch the description store refused (4.4; -1: none).
    pub failed_description_topology_epoch: i32,
}

impl Default for GroupMetadataFields {
    fn default() -> Self {
        GroupMetadataFields {
            metadata_hash: 0,
            validated_topology_epoch: 0,
            last_assignment_configs: None,
            stored_description_topology_epoch: -1,
            failed_description_topology_epoch: -1,
        }
    }
}

/// `StreamsGroupMetadata` at `epoch`.
pub fn group_metadata(group_id: &str, epoch: i32, fields: GroupMetadataFields) -> Record {
    Record::new(
        RecordKey::GroupMetadata {
            group_id: group_id.to_string(),
        },
        RecordValue::GroupMetadata(GroupMetadataValue {
            epoch,
            metadata_hash: fields.metadata_hash,
            validated_topology_epoch: fields.validated_topology_epoch,
            last_assignment_configs: fields.last_assignment_configs,
            stored_description_topology_epoch: fields.stored_description_topology_epoch,
            failed_description_topology_epoch: fields.failed_description_topology_epoch,
        }),
    )
}

/// `StreamsGroupTopology`.
pub fn topology(group_id: &str, topology: TopologyValue) -> Record {
    Record::new(
        RecordKey::Topology {
            group_id: group_id.to_string(),
        },
        RecordValue::Topology(topology),
    )
}

/// `StreamsGroupPartitionMetadata` (draft only).
pub fn partition_metadata(group_id: &str, metadata: PartitionMetadataValue) -> Record {
    Record::new(
        RecordKey::PartitionMetadata {
            group_id: group_id.to_string(),
        },
        RecordValue::PartitionMetadata(metadata),
    )
}

/// `StreamsGroupMemberMetadata` of `member` as it stands.
pub fn member_metadata<'a>(group_id: &str, member: impl Into<MemberFields<'a>>) -> Record {
    let member = member.into();
    member_metadata_value(group_id, member.member_id, member.metadata.clone())
}

/// `StreamsGroupMemberMetadata` with the given value.
pub fn member_metadata_value(
    group_id: &str,
    member_id: &str,
    metadata: MemberMetadataValue,
) -> Record {
    Record::new(
        RecordKey::MemberMetadata {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        },
        RecordValue::MemberMetadata(Box::new(metadata)),
    )
}

/// `StreamsGroupTargetAssignmentMember` with the full target.
pub fn target_member(group_id: &str, member_id: &str, target: &Assignment) -> Record {
    let (active, standby, warmup) = target.to_task_ids();
    Record::new(
        RecordKey::TargetAssignmentMember {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        },
        RecordValue::TargetAssignmentMember(TargetAssignmentMemberValue {
            active_tasks: active,
            standby_tasks: standby,
            warmup_tasks: warmup,
        }),
    )
}

/// `StreamsGroupTargetAssignmentMetadata` at `assignment_epoch`, computed at
/// `assignment_timestamp` (0: not recorded; dialects before Kafka 4.3 write none).
pub fn target_metadata(group_id: &str, assignment_epoch: i32, assignment_timestamp: i64) -> Record {
    Record::new(
        RecordKey::TargetAssignmentMetadata {
            group_id: group_id.to_string(),
        },
        RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
            assignment_epoch,
            assignment_timestamp,
        }),
    )
}

/// `StreamsGroupCurrentMemberAssignment` of `member` as it stands. With `assignment_epochs`
/// (the 4.2 dialect, PROTOCOL 4.8) both active lists carry the per-task assignment epochs; the
/// draft has no such field, and leaving it out keeps live state equal to replayed state.
pub fn current_assignment<'a>(
    group_id: &str,
    member: impl Into<MemberFields<'a>>,
    assignment_epochs: bool,
) -> Record {
    let member = member.into();
    let (mut active, standby, warmup) = member.assigned.to_task_ids();
    let (mut pa, ps, pw) = member.pending.to_task_ids();
    if assignment_epochs {
        for t in active.iter_mut().chain(pa.iter_mut()) {
            t.assignment_epochs = Some(
                t.partitions
                    .iter()
                    .map(|p| {
                        member
                            .active_epochs
                            .get(&t.subtopology_id, *p)
                            .unwrap_or(member.member_epoch)
                    })
                    .collect(),
            );
        }
    }
    Record::new(
        RecordKey::CurrentMemberAssignment {
            group_id: group_id.to_string(),
            member_id: member.member_id.to_string(),
        },
        RecordValue::CurrentMemberAssignment(Box::new(CurrentMemberAssignmentValue {
            member_epoch: member.member_epoch,
            previous_member_epoch: member.previous_member_epoch,
            state: member.state,
            active_tasks: active,
            standby_tasks: standby,
            warmup_tasks: warmup,
            active_tasks_pending_revocation: pa,
            standby_tasks_pending_revocation: ps,
            warmup_tasks_pending_revocation: pw,
        })),
    )
}

/// The three tombstones that remove a member, in replayable order (current assignment, target,
/// metadata).
pub fn member_tombstones(group_id: &str, member_id: &str) -> [Record; 3] {
    let (g, m) = (group_id.to_string(), member_id.to_string());
    [
        Record::tombstone(RecordKey::CurrentMemberAssignment {
            group_id: g.clone(),
            member_id: m.clone(),
        }),
        Record::tombstone(RecordKey::TargetAssignmentMember {
            group_id: g.clone(),
            member_id: m.clone(),
        }),
        Record::tombstone(RecordKey::MemberMetadata {
            group_id: g,
            member_id: m,
        }),
    ]
}

/// The tombstones that delete a memberless group (PROTOCOL 5.5): its members' targets, the
/// target metadata, the partition metadata (draft only), the topology and the group metadata.
pub fn group_tombstones<'a>(
    group_id: &str,
    target_members: impl Iterator<Item = &'a String>,
    partition_metadata: bool,
) -> Vec<Record> {
    let g = || group_id.to_string();
    let mut out: Vec<Record> = target_members
        .map(|member_id| {
            Record::tombstone(RecordKey::TargetAssignmentMember {
                group_id: g(),
                member_id: member_id.clone(),
            })
        })
        .collect();
    out.push(Record::tombstone(RecordKey::TargetAssignmentMetadata {
        group_id: g(),
    }));
    if partition_metadata {
        out.push(Record::tombstone(RecordKey::PartitionMetadata {
            group_id: g(),
        }));
        out.push(Record::tombstone(RecordKey::Topology { group_id: g() }));
        out.push(Record::tombstone(RecordKey::GroupMetadata {
            group_id: g(),
        }));
    } else {
        // Kafka's order: the group epoch before the topology.
        out.push(Record::tombstone(RecordKey::GroupMetadata {
            group_id: g(),
        }));
        out.push(Record::tombstone(RecordKey::Topology { group_id: g() }));
    }
    out
}

/// The tombstone of Kafka's classic group record (type 2, `GroupMetadataKey`), which deletes
/// the simple classic group of an admin's commit (Kafka's `ClassicGroup.createGroupTombstoneRecords`).
pub fn classic_group_tombstone(group_id: &str) -> Record {
    Record::tombstone(RecordKey::ClassicGroupMetadata {
        group_id: group_id.to_string(),
    })
}

//! Removing members (PROTOCOL 2.9) and deleting groups (5.5), plus the record builders the
//! operations share.

use super::{Batch, Coordinator, Output};
use crate::api::Explain;
use crate::group::{Group, Member};
use crate::records::{
    CurrentMemberAssignmentValue, Dialect, GroupMetadataValue, Record, RecordKey, RecordValue,
};
use crate::timers::{TimerData, TimerKind};

/// Why a member was removed, as `explain` and the bump reasons name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FenceCause {
    Leave,
    SessionTimeout,
    RebalanceTimeout,
    InitializationTimeout,
}

impl FenceCause {
    pub fn name(self) -> &'static str {
        match self {
            FenceCause::Leave => "LEAVE",
            FenceCause::SessionTimeout => "SESSION_TIMEOUT",
            FenceCause::RebalanceTimeout => "REBALANCE_TIMEOUT",
            FenceCause::InitializationTimeout => "INITIALIZATION_TIMEOUT",
        }
    }

    fn bump_reason(self) -> &'static str {
        match self {
            FenceCause::Leave => "MEMBER_LEFT",
            _ => "MEMBER_FENCED",
        }
    }
}

pub(crate) fn group_metadata_record(group: &Group, epoch: i32) -> Record {
    Record::new(
        RecordKey::GroupMetadata {
            group_id: group.group_id.clone(),
        },
        RecordValue::GroupMetadata(GroupMetadataValue {
            epoch,
            metadata_hash: group.metadata_hash,
            validated_topology_epoch: group.validated_topology_epoch,
            last_assignment_configs: group.last_assignment_configs.clone(),
        }),
    )
}

/// The group epoch after one bump (PROTOCOL 2.3, 2.8): +1, except that the 4.2 dialect takes
/// a new group's first bump from 0 straight to 2 (Kafka 4.2's quirk, 4.7).
pub(crate) fn next_group_epoch(dialect: Dialect, epoch: i32) -> i32 {
    match (dialect, epoch) {
        (Dialect::Kafka42, 0) => 2,
        _ => epoch.saturating_add(1),
    }
}

/// Bumps the group epoch to `to`: the group metadata record and its `explain` entry.
pub(crate) fn bump(group: &Group, to: i32, reasons: Vec<&'static str>, batch: &mut Batch) {
    batch.push(group_metadata_record(group, to));
    batch.explain.push(Explain::GroupEpochBumped {
        group_id: group.group_id.clone(),
        from: group.group_epoch,
        to,
        reasons,
    });
}

/// The current assignment record of `member` as it stands. In the 4.2 dialect both active lists
/// carry the per-task assignment epochs (PROTOCOL 4.8); the draft has no such field, and leaving
/// it out keeps live state equal to state replayed from the draft's records.
pub(crate) fn current_record(dialect: Dialect, group_id: &str, member: &Member) -> Record {
    let (mut active, standby, warmup) = member.assigned.to_task_ids();
    let (mut pa, ps, pw) = member.pending.to_task_ids();
    if dialect == Dialect::Kafka42 {
        for t in active.iter_mut().chain(pa.iter_mut()) {
            t.assignment_epochs = Some(
                t.partitions
                    .iter()
                    .map(|p| {
                        member
                            .active_epochs
                            .get(&(t.subtopology_id.clone(), *p))
                            .copied()
                            .unwrap_or(member.member_epoch)
                    })
                    .collect(),
            );
        }
    }
    Record::new(
        RecordKey::CurrentMemberAssignment {
            group_id: group_id.to_string(),
            member_id: member.member_id.clone(),
        },
        RecordValue::CurrentMemberAssignment(CurrentMemberAssignmentValue {
            member_epoch: member.member_epoch,
            previous_member_epoch: member.previous_member_epoch,
            state: member.state,
            active_tasks: active,
            standby_tasks: standby,
            warmup_tasks: warmup,
            active_tasks_pending_revocation: pa,
            standby_tasks_pending_revocation: ps,
            warmup_tasks_pending_revocation: pw,
        }),
    )
}

pub(crate) fn member_record(group_id: &str, member: &Member) -> Record {
    Record::new(
        RecordKey::MemberMetadata {
            group_id: group_id.to_string(),
            member_id: member.member_id.clone(),
        },
        RecordValue::MemberMetadata(member.metadata.clone()),
    )
}

/// The three tombstones that remove a member, in replayable order.
pub(crate) fn member_tombstones(group_id: &str, member_id: &str, batch: &mut Batch) {
    let g = group_id.to_string();
    let m = member_id.to_string();
    batch.push(Record::tombstone(RecordKey::CurrentMemberAssignment {
        group_id: g.clone(),
        member_id: m.clone(),
    }));
    batch.push(Record::tombstone(RecordKey::TargetAssignmentMember {
        group_id: g.clone(),
        member_id: m.clone(),
    }));
    batch.push(Record::tombstone(RecordKey::MemberMetadata {
        group_id: g,
        member_id: m,
    }));
}

impl Coordinator {
    /// The fence records of `member_id` (2.9) with their explanations.
    pub(crate) fn fence_batch(&self, group: &Group, member_id: &str, cause: FenceCause) -> Batch {
        let mut batch = Batch::default();
        member_tombstones(&group.group_id, member_id, &mut batch);
        let epoch = next_group_epoch(self.config.dialect, group.group_epoch);
        batch.push(group_metadata_record(group, epoch));
        let instance_id = group
            .members
            .get(member_id)
            .and_then(|m| m.metadata.instance_id.clone());
        if cause == FenceCause::SessionTimeout {
            if let Some(instance) = &instance_id {
                batch.explain.push(Explain::StaticMemberExpired {
                    group_id: group.group_id.clone(),
                    member_id: member_id.to_string(),
                    instance_id: instance.clone(),
                });
            }
        }
        batch.explain.push(Explain::MemberFenced {
            group_id: group.group_id.clone(),
            member_id: member_id.to_string(),
            cause: cause.name(),
            instance_id,
        });
        batch.explain.push(Explain::GroupEpochBumped {
            group_id: group.group_id.clone(),
            from: group.group_epoch,
            to: epoch,
            reasons: vec![cause.bump_reason()],
        });
        batch
    }

    /// Soft effects of a committed fence: the member's timers go, and a memberless group
    /// forgets its shutdown request and starts its retention countdown.
    pub(crate) fn after_fence(&mut self, now: i64, group_id: &str, member_id: &str) {
        self.cancel_member_timers(group_id, member_id);
        let retention = self.config.retention_ms();
        if let Some(group) = self.groups.get_mut(group_id) {
            if group.members.is_empty() {
                group.soft.shutdown_requester = None;
                self.schedule(
                    TimerKind::Retention,
                    group_id,
                    "",
                    now.saturating_add(retention),
                    TimerData::None,
                );
            }
        }
    }

    /// Cancels a member's session and rebalance timers and an initialization timer it was
    /// asked for (the 4.2 delay timer belongs to the group and stays).
    pub(crate) fn cancel_member_timers(&mut self, group_id: &str, member_id: &str) {
        self.cancel(TimerKind::SessionTimeout, group_id, member_id);
        self.cancel(TimerKind::RebalanceTimeout, group_id, member_id);
        let asked: Vec<_> = self
            .timers
            .iter()
            .filter(|(k, t)| {
                k.kind == TimerKind::TopologyInitialization
                    && k.group_id == group_id
                    && t.data == TimerData::AskedMember(member_id.to_string())
            })
            .map(|(k, _)| k.clone())
            .collect();
        for k in asked {
            self.timers.cancel(&k);
        }
    }

    /// Fences `member_id` as one atomic operation; `false` when the batch limit refused it.
    pub(crate) fn fence(
        &mut self,
        now: i64,
        group_id: &str,
        member_id: &str,
        cause: FenceCause,
        out: &mut Output,
    ) -> bool {
        let Some(group) = self.groups.get(group_id) else {
            return true;
        };
        let batch = self.fence_batch(group, member_id, cause);
        if self.commit_group(group_id, batch, out).is_err() {
            return false;
        }
        self.after_fence(now, group_id, member_id);
        true
    }

    /// The deletion records of a memberless group (5.5).
    pub(crate) fn deletion_batch(&self, group: &Group, cause: &'static str) -> Batch {
        let mut batch = Batch::default();
        let g = group.group_id.clone();
        for member_id in group.targets.keys() {
            batch.push(Record::tombstone(RecordKey::TargetAssignmentMember {
                group_id: g.clone(),
                member_id: member_id.clone(),
            }));
        }
        batch.push(Record::tombstone(RecordKey::TargetAssignmentMetadata {
            group_id: g.clone(),
        }));
        if self.config.dialect == Dialect::Kip1071Draft {
            batch.push(Record::tombstone(RecordKey::PartitionMetadata {
                group_id: g.clone(),
            }));
        }
        batch.push(Record::tombstone(RecordKey::Topology {
            group_id: g.clone(),
        }));
        batch.push(Record::tombstone(RecordKey::GroupMetadata {
            group_id: g.clone(),
        }));
        batch
            .explain
            .push(Explain::GroupDeleted { group_id: g, cause });
        batch
    }
}

//! Removing members (PROTOCOL 2.9) and deleting groups (5.5): the batches and their soft
//! effects, shared by the operations and the timers.

use super::{Batch, Coordinator, Output};
use crate::api::Explain;
use crate::descriptions::{STORED_NONE, STORED_UNCERTAIN};
use crate::group::Group;
use crate::records::build::{self, GroupMetadataFields};
use crate::records::Record;
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
    pub(crate) fn name(self) -> &'static str {
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

/// Bumps the group epoch to `to`: the group metadata record (the group's stored fields) and
/// its `explain` entry.
pub(crate) fn bump(group: &Group, to: i32, reasons: Vec<&'static str>, batch: &mut Batch) {
    batch.push(build::group_metadata(
        &group.group_id,
        to,
        group.metadata_fields(),
    ));
    batch.explain.push(Explain::GroupEpochBumped {
        group_id: group.group_id.clone(),
        from: group.group_epoch,
        to,
        reasons,
    });
}

impl Coordinator {
    /// The fence records of `member_id` (2.9) with their explanations.
    pub(crate) fn fence_batch(&self, group: &Group, member_id: &str, cause: FenceCause) -> Batch {
        let mut batch = Batch::default();
        batch
            .records
            .extend(build::member_tombstones(&group.group_id, member_id));
        let epoch = self.rules.next_group_epoch(group.group_epoch);
        batch.push(build::group_metadata(
            &group.group_id,
            epoch,
            group.metadata_fields(),
        ));
        let last = group.members.len() == 1 && group.members.contains_key(member_id);
        if last
            && self
                .rules
                .release()
                .is_some_and(|r| r.settles_emptied_group())
        {
            batch.push(build::target_metadata(&group.group_id, epoch, 0));
        }
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
        let per_group = !self.config.dialect.is_kafka();
        if let Some(group) = self.groups.get_mut(group_id) {
            if group.members.is_empty() {
                group.soft.shutdown_requester = None;
            }
            // A `kafka-*` group waits for the coordinator's periodic cleanup instead.
            if group.members.is_empty() && per_group {
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
        self.timers.cancel_asked(group_id, member_id);
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
        let g = group.group_id.clone();
        let mut batch = self.all_offset_tombstones(&g);
        batch.records.extend(build::group_tombstones(
            &g,
            group.targets.keys(),
            self.rules.has_partition_metadata(),
        ));
        batch
            .explain
            .push(Explain::GroupDeleted { group_id: g, cause });
        batch
    }

    /// The deletion records of Kafka's simple classic group of an admin's commit: its offsets'
    /// tombstones, then its classic group tombstone (type 2), as Kafka's `deleteAllOffsets` and
    /// `ClassicGroup.createGroupTombstoneRecords` write them.
    pub(crate) fn simple_group_deletion_batch(&self, group_id: &str, cause: &'static str) -> Batch {
        let mut batch = self.all_offset_tombstones(group_id);
        batch.push(build::classic_group_tombstone(group_id));
        batch.explain.push(Explain::GroupDeleted {
            group_id: group_id.to_string(),
            cause,
        });
        batch
    }

    /// A tombstone for every offset of the group: Kafka deletes a group's offsets in its map's
    /// order (`deleteAllOffsets`), then each partition that only has pending transactional
    /// offsets, in the order of its open transactions.
    fn all_offset_tombstones(&self, g: &str) -> Batch {
        let mut batch = Batch {
            records: self.offset_tombstones(g, |_, _, _| true),
            ..Batch::default()
        };
        if let Some(offsets) = self.offsets.group(g) {
            let pending_only = offsets
                .pending_partitions()
                .filter(|(t, p)| offsets.get(t, *p).is_none());
            let group_name: std::sync::Arc<str> = g.into();
            batch.records.extend(pending_only.map(|(topic, partition)| {
                crate::records::Record::tombstone(crate::records::RecordKey::OffsetCommit {
                    group_id: group_name.clone(),
                    topic: topic.to_string().into(),
                    partition,
                })
            }));
        }
        batch
    }

    /// A tombstone for each committed partition of the group that `which` picks (topic,
    /// partition, offset), in Kafka's order.
    pub(crate) fn offset_tombstones(
        &self,
        group_id: &str,
        mut which: impl FnMut(&str, i32, crate::offsets::CommittedRef<'_>) -> bool,
    ) -> Vec<crate::records::Record> {
        let Some(offsets) = self.offsets.group(group_id) else {
            return Vec::new();
        };
        // The records share the group's name, and a topic's name (offsets come topic by topic).
        let group_name: std::sync::Arc<str> = group_id.into();
        let mut topic_name: Option<std::sync::Arc<str>> = None;
        offsets
            .iter()
            .filter(|(t, p, c)| which(t, *p, *c))
            .map(|(topic, partition, _)| {
                let name = match &topic_name {
                    Some(n) if **n == *topic => n.clone(),
                    _ => topic_name.insert(topic.into()).clone(),
                };
                crate::records::Record::tombstone(crate::records::RecordKey::OffsetCommit {
                    group_id: group_name.clone(),
                    topic: name,
                    partition,
                })
            })
            .collect()
    }
}

/// Kafka 4.4 with a description plugin, for a memberless group the store may hold a description
/// of (stored epoch not -1), before `DeleteGroups` or the cleanup deletes it: the stored epoch
/// marked uncertain (unless it is), then, once the store forgot the description, cleared
/// (`markStoredDescriptionTopologyEpochUncertain`, `finalizeStoredDescriptionTopologyEpochAfterDelete`).
pub(crate) fn description_clear_records(g: &Group) -> Vec<Record> {
    let fields = g.metadata_fields();
    let stored = fields.stored_description_topology_epoch;
    if stored == STORED_NONE {
        return Vec::new();
    }
    let record = |stored: i32| {
        build::group_metadata(
            &g.group_id,
            g.group_epoch,
            GroupMetadataFields {
                stored_description_topology_epoch: stored,
                ..fields.clone()
            },
        )
    };
    let mut out = Vec::new();
    if stored != STORED_UNCERTAIN {
        out.push(record(STORED_UNCERTAIN));
    }
    out.push(record(STORED_NONE));
    out
}

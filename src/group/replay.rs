//! Applying one record to the coordinator's groups (PROTOCOL 5.4). The coordinator's own
//! operations and a host's `Replay` input go through this one function, so live state always
//! equals replayed state.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{DialectState, Group, Member, MemberState};
#[cfg(feature = "replay-text")]
use crate::records::in_place::{list as list_of, MemberRecord, MemberValue, TaskIdsRef, TaskList};
use crate::records::{Dialect, MemberMetadataValue, Record, RecordKey, RecordValue};
#[cfg(feature = "replay-text")]
use crate::tasks::task_map_of;
use crate::tasks::{Assignment, TaskEpochs};
use crate::topology::{self, Limits, SourcePatterns};

/// Why a record cannot be applied: Kafka's replay errors, word for word where Kafka has one.
/// The fields are what the message names.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    #[error("the record's key and value are of different types")]
    /// A record's key and value are of different kinds.
    KeyValueMismatch,
    #[error("Received a tombstone record to delete group {group_id} but the group still has {members} members.")]
    /// A group tombstone while the group has members.
    GroupHasMembers { group_id: String, members: usize },
    #[error("Received a tombstone record to delete group {group_id} before its target assignment metadata tombstone.")]
    /// A group tombstone before the target metadata tombstone.
    GroupBeforeTargetMetadata { group_id: String },
    #[error("Received a target assignment metadata tombstone for group {group_id} while {targets} member targets remain.")]
    /// A target metadata tombstone while member targets remain.
    TargetMetadataBeforeMembers { group_id: String, targets: usize },
    #[error("Received a member metadata tombstone for member {member_id} of group {group_id} before its current assignment and target assignment tombstones.")]
    /// A member metadata tombstone before its assignment tombstones.
    MemberBeforeAssignments { group_id: String, member_id: String },
}

/// What applying a record did, for the soft effects a `Replay` input has (PROTOCOL 5.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ApplyEffect {
    /// The record added a member (a `Replay` cancels the group's retention then).
    pub(crate) member_added: bool,
    /// The record's member as the record left it, when the record wrote to the member: what
    /// a `Replay` arms the member's timers from, without looking the member up again.
    pub(crate) member: MemberAfter,
}

/// A member as a record left it, for its timers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum MemberAfter {
    /// The record did not write to a member (a target record, a group-level record).
    #[default]
    Untouched,
    /// The record removed the member.
    Removed,
    /// The member is there.
    Present {
        /// It keeps tasks it must revoke (its rebalance timeout runs).
        revoking: bool,
        /// Its member epoch.
        member_epoch: i32,
        /// Its rebalance timeout.
        rebalance_timeout_ms: i32,
    },
}

impl MemberAfter {
    pub(crate) fn of(member: &Member) -> Self {
        MemberAfter::Present {
            revoking: member.member_state() == MemberState::UnrevokedTasks
                && member.member_epoch != -2,
            member_epoch: member.member_epoch,
            rebalance_timeout_ms: member.metadata.rebalance_timeout_ms,
        }
    }
}

/// Applies `record`; an error leaves the groups untouched. Only tombstones can fail against the
/// state (their ordering rules); any other record fails only when its key and value disagree,
/// which is checked before anything changes.
pub(crate) fn apply(
    groups: &mut BTreeMap<String, Group>,
    record: &Record,
    limits: &Limits,
    dialect: Dialect,
) -> Result<ApplyEffect, ApplyError> {
    let group_id = record.key.group_id();
    let mut effect = ApplyEffect::default();
    // An offset commit is the offsets' state (`offsets::apply`), never a group's; so is the
    // classic group record (the simple group is kept with the offsets).
    if let RecordKey::OffsetCommit { .. } | RecordKey::ClassicGroupMetadata { .. } = record.key {
        return if record.is_consistent() {
            Ok(effect)
        } else {
            Err(ApplyError::KeyValueMismatch)
        };
    }
    let Some(value) = &record.value else {
        return apply_tombstone(groups, &record.key, limits);
    };
    if !record.is_consistent() {
        return Err(ApplyError::KeyValueMismatch);
    }
    // One search for a known group (no key allocated); a new one is made, then found.
    let Some(group) = groups.get_mut(group_id) else {
        groups.insert(group_id.to_string(), Group::new(group_id, dialect));
        return apply(groups, record, limits, dialect);
    };
    match (&record.key, value) {
        (RecordKey::GroupMetadata { .. }, RecordValue::GroupMetadata(v)) => {
            group.group_epoch = v.epoch;
            // The draft's group metadata has no topic-view fields (they decode as defaults).
            if let DialectState::Kafka42(k) = &mut group.dialect {
                k.metadata_hash = v.metadata_hash;
                k.validated_topology_epoch = v.validated_topology_epoch;
                k.last_assignment_configs = v.last_assignment_configs.clone();
                k.stored_description_topology_epoch = v.stored_description_topology_epoch;
                k.failed_description_topology_epoch = v.failed_description_topology_epoch;
            }
        }
        (RecordKey::PartitionMetadata { .. }, RecordValue::PartitionMetadata(v)) => {
            // Only the draft has partition metadata records (PROTOCOL 5.2).
            if let DialectState::Draft(d) = &mut group.dialect {
                d.partition_metadata = v.clone();
            }
            reconfigure(group, limits);
        }
        (RecordKey::TargetAssignmentMetadata { .. }, RecordValue::TargetAssignmentMetadata(v)) => {
            group.assignment_epoch = v.assignment_epoch;
            group.assignment_timestamp = v.assignment_timestamp;
            group.recount_unreconciled();
            group.orphaned.clear();
        }
        (
            RecordKey::TargetAssignmentMember { member_id, .. },
            RecordValue::TargetAssignmentMember(v),
        ) => {
            let target = Assignment::from_task_ids_sharing(
                &v.active_tasks,
                &v.standby_tasks,
                &v.warmup_tasks,
                &group.soft.subtopology_ids,
            );
            set_target(group, member_id, target);
        }
        (RecordKey::Topology { .. }, RecordValue::Topology(v)) => {
            group.topology = Some(v.clone());
            reconfigure(group, limits);
        }
        (RecordKey::MemberMetadata { member_id, .. }, RecordValue::MemberMetadata(v)) => {
            (effect.member_added, effect.member) = set_metadata(group, member_id, (**v).clone());
        }
        (
            RecordKey::CurrentMemberAssignment { member_id, .. },
            RecordValue::CurrentMemberAssignment(v),
        ) => {
            let shared = &group.soft.subtopology_ids;
            let assigned = Assignment::from_task_ids_sharing(
                &v.active_tasks,
                &v.standby_tasks,
                &v.warmup_tasks,
                shared,
            );
            let pending = Assignment::from_task_ids_sharing(
                &v.active_tasks_pending_revocation,
                &v.standby_tasks_pending_revocation,
                &v.warmup_tasks_pending_revocation,
                shared,
            );
            let active_epochs = active_epochs(
                v.active_tasks
                    .iter()
                    .chain(&v.active_tasks_pending_revocation)
                    .map(|t| {
                        let epochs = t.assignment_epochs.as_deref().unwrap_or_default();
                        (
                            t.subtopology_id.as_str(),
                            t.partitions.iter().copied(),
                            epochs.iter().copied(),
                        )
                    }),
                v.member_epoch,
                shared,
            );
            let epochs = (v.member_epoch, v.previous_member_epoch, v.state);
            (effect.member_added, effect.member) =
                set_current(group, member_id, epochs, assigned, pending, active_epochs);
        }
        _ => return Err(ApplyError::KeyValueMismatch),
    }
    Ok(effect)
}

/// [`apply`] of a member record read in place (a log read back): the same changes, the
/// member's strings and task maps built straight from the record's bytes. Such a record is never a tombstone and
/// its key and value always agree, so it cannot fail.
#[cfg(feature = "replay-text")]
pub(crate) fn apply_in_place(
    groups: &mut BTreeMap<String, Group>,
    record: &MemberRecord<'_>,
    tasks: &[TaskIdsRef<'_>],
    dialect: Dialect,
) -> ApplyEffect {
    let mut effect = ApplyEffect::default();
    let group_id = record.group_id;
    // One search for a known group; a new one is made, then found.
    let Some(group) = groups.get_mut(group_id) else {
        groups.insert(group_id.to_string(), Group::new(group_id, dialect));
        return apply_in_place(groups, record, tasks, dialect);
    };
    let shared = &group.soft.subtopology_ids;
    let map = |list: &TaskList| {
        task_map_of(
            list_of(tasks, *list)
                .iter()
                .map(|t| (t.subtopology_id, t.partitions())),
            shared,
        )
    };
    match &record.value {
        MemberValue::Metadata(v) => {
            (effect.member_added, effect.member) =
                set_metadata(group, record.member_id, v.to_value());
        }
        MemberValue::Target([active, standby, warmup]) => {
            let target = Assignment {
                active: map(active),
                standby: map(standby),
                warmup: map(warmup),
            };
            set_target(group, record.member_id, target);
        }
        MemberValue::Current {
            member_epoch,
            previous_member_epoch,
            state,
            lists: [active, standby, warmup, active_pending, standby_pending, warmup_pending],
        } => {
            let assigned = Assignment {
                active: map(active),
                standby: map(standby),
                warmup: map(warmup),
            };
            let pending = Assignment {
                active: map(active_pending),
                standby: map(standby_pending),
                warmup: map(warmup_pending),
            };
            let active_epochs = active_epochs(
                list_of(tasks, *active)
                    .iter()
                    .chain(list_of(tasks, *active_pending))
                    .map(|t| (t.subtopology_id, t.partitions(), t.epochs())),
                *member_epoch,
                shared,
            );
            let epochs = (*member_epoch, *previous_member_epoch, *state);
            (effect.member_added, effect.member) = set_current(
                group,
                record.member_id,
                epochs,
                assigned,
                pending,
                active_epochs,
            );
        }
    }
    effect
}

/// Stores a member's target assignment.
fn set_target(group: &mut Group, member_id: &str, target: Assignment) {
    group.soft.assignor_memo = None;
    // One search; the key's copy costs less than a second search for a new member's.
    group.targets.insert(member_id.to_string(), target);
}

/// Stores a current assignment record's value: the member's `(epoch, previous epoch, state)`,
/// its tasks and per-task epochs.
fn set_current(
    group: &mut Group,
    member_id: &str,
    (member_epoch, previous_member_epoch, state): (i32, i32, i8),
    assigned: Assignment,
    pending: Assignment,
    active_epochs: TaskEpochs,
) -> (bool, MemberAfter) {
    set_assignment(group, member_id, assigned, pending, |member| {
        member.member_epoch = member_epoch;
        member.previous_member_epoch = previous_member_epoch;
        member.state = MemberState::from_code(state).code();
        member.active_epochs = active_epochs;
    })
}

fn apply_tombstone(
    groups: &mut BTreeMap<String, Group>,
    key: &RecordKey,
    limits: &Limits,
) -> Result<ApplyEffect, ApplyError> {
    let mut effect = ApplyEffect::default();
    if key.member_id().is_some() {
        // A member record of a group that does not exist leaves no member.
        effect.member = MemberAfter::Removed;
    }
    let Some(group) = groups.get_mut(key.group_id()) else {
        return Ok(effect);
    };
    match key {
        RecordKey::GroupMetadata { group_id } => {
            if !group.members.is_empty() {
                return Err(ApplyError::GroupHasMembers {
                    group_id: group_id.clone(),
                    members: group.members.len(),
                });
            }
            if group.assignment_epoch != -1 {
                return Err(ApplyError::GroupBeforeTargetMetadata {
                    group_id: group_id.clone(),
                });
            }
            groups.remove(group_id);
        }
        RecordKey::PartitionMetadata { .. } => {
            if let DialectState::Draft(d) = &mut group.dialect {
                d.partition_metadata = Default::default();
            }
            reconfigure(group, limits);
        }
        RecordKey::TargetAssignmentMetadata { .. } => {
            if !group.targets.is_empty() {
                return Err(ApplyError::TargetMetadataBeforeMembers {
                    group_id: group.group_id.clone(),
                    targets: group.targets.len(),
                });
            }
            group.assignment_epoch = -1;
            group.recount_unreconciled();
        }
        RecordKey::TargetAssignmentMember { member_id, .. } => {
            effect.member = MemberAfter::Untouched;
            group.soft.assignor_memo = None;
            if let Some(old) = group.targets.remove(member_id) {
                for (sub, parts) in &old.active {
                    group
                        .orphaned
                        .extend(parts.iter().map(|&p| (sub.to_string(), p)));
                }
            }
        }
        RecordKey::Topology { .. } => {
            group.topology = None;
            reconfigure(group, limits);
        }
        RecordKey::OffsetCommit { .. } | RecordKey::ClassicGroupMetadata { .. } => {}
        RecordKey::CurrentMemberAssignment { member_id, .. } => {
            if group.members.contains_key(member_id) {
                (_, effect.member) = set_assignment(
                    group,
                    member_id,
                    Assignment::default(),
                    Assignment::default(),
                    |member| {
                        member.member_epoch = -1;
                        member.previous_member_epoch = -1;
                        member.active_epochs.clear();
                    },
                );
            }
        }
        RecordKey::MemberMetadata { member_id, .. } => {
            let Some(old) = group.members.get(member_id) else {
                return Ok(effect);
            };
            if old.member_epoch != -1 || group.targets.contains_key(member_id) {
                return Err(ApplyError::MemberBeforeAssignments {
                    group_id: group.group_id.clone(),
                    member_id: member_id.clone(),
                });
            }
            let had_endpoint = old.endpoint().is_some();
            if let Some(old) = group.members.remove(member_id) {
                if !old.is_reconciled_to(group.assignment_epoch) {
                    group.unreconciled = group.unreconciled.saturating_sub(1);
                }
                group
                    .owners
                    .remove(old.process_id(), &old.assigned, &old.pending);
                unmap_instance(
                    &mut group.static_index,
                    old.metadata.instance_id.as_ref(),
                    member_id,
                );
            }
            if had_endpoint {
                group.with_endpoint = group.with_endpoint.saturating_sub(1);
                if endpoints_follow_records(group) {
                    group.soft.endpoint_epoch += 1;
                }
            }
        }
    }
    Ok(effect)
}

/// Stores a member metadata record's value in place, keeping the derived indexes (owners,
/// static index) and the endpoint-information epoch exact; whether the member is new.
fn set_metadata(
    group: &mut Group,
    member_id: &str,
    metadata: MemberMetadataValue,
) -> (bool, MemberAfter) {
    let follow = endpoints_follow_records(group);
    let result = group.members.with(member_id, Member::new, |member, added| {
        if added {
            member.soft.java_seq = group.soft.java_next_seq;
            group.soft.java_next_seq += 1;
        }
        let old = std::mem::replace(&mut member.metadata, metadata);
        let member = &*member;
        match (old.user_endpoint.is_some(), member.endpoint().is_some()) {
            (false, true) => group.with_endpoint += 1,
            (true, false) => group.with_endpoint = group.with_endpoint.saturating_sub(1),
            _ => {}
        }
        if added && !member.is_reconciled_to(group.assignment_epoch) {
            group.unreconciled += 1;
        }
        if old.process_id != member.metadata.process_id {
            group
                .owners
                .remove(&old.process_id, &member.assigned, &member.pending);
            group
                .owners
                .add(member.process_id(), &member.assigned, &member.pending);
        } else {
            // The same process re-asserts its active tasks (the last record written wins).
            group
                .owners
                .claim_active(member.process_id(), &member.assigned, &member.pending);
        }
        let endpoint_event = follow
            && if added {
                member.endpoint().is_some()
            } else {
                old.user_endpoint != member.metadata.user_endpoint
            };
        if old.instance_id != member.metadata.instance_id {
            unmap_instance(&mut group.static_index, old.instance_id.as_ref(), member_id);
        }
        index_member(
            &mut group.static_index,
            &mut group.soft.endpoint_epoch,
            member,
            member_id,
            endpoint_event,
        );
        (added, MemberAfter::of(member))
    });
    group.soft.java_member_slots =
        crate::java::timeline_grow(group.soft.java_member_slots, group.members.len());
    result
}

/// Stores a member's tasks (and what `edit` sets) in place, keeping the derived indexes and the
/// endpoint-information epoch exact; whether the member is new.
fn set_assignment(
    group: &mut Group,
    member_id: &str,
    assigned: Assignment,
    pending: Assignment,
    edit: impl FnOnce(&mut Member),
) -> (bool, MemberAfter) {
    let follow = endpoints_follow_records(group);
    let result = group.members.with(member_id, Member::new, |member, added| {
        let was_unreconciled = !added && !member.is_reconciled_to(group.assignment_epoch);
        if added {
            member.soft.java_seq = group.soft.java_next_seq;
            group.soft.java_next_seq += 1;
        }
        edit(member);
        if was_unreconciled {
            group.unreconciled = group.unreconciled.saturating_sub(1);
        }
        if !member.is_reconciled_to(group.assignment_epoch) {
            group.unreconciled += 1;
        }
        let old_assigned = std::mem::replace(&mut member.assigned, assigned);
        let old_pending = std::mem::replace(&mut member.pending, pending);
        let member = &*member;
        group
            .owners
            .remove(member.process_id(), &old_assigned, &old_pending);
        group
            .owners
            .add(member.process_id(), &member.assigned, &member.pending);
        let endpoint_event = follow
            && if added {
                member.endpoint().is_some()
            } else {
                old_assigned != member.assigned && member.endpoint().is_some()
            };
        index_member(
            &mut group.static_index,
            &mut group.soft.endpoint_epoch,
            member,
            member_id,
            endpoint_event,
        );
        (added, MemberAfter::of(member))
    });
    group.soft.java_member_slots =
        crate::java::timeline_grow(group.soft.java_member_slots, group.members.len());
    result
}

/// Whether the endpoint-information epoch moves with the records (the draft, PROTOCOL 3); a
/// released Kafka keeps it in memory and moves it in the heartbeat (4.2).
fn endpoints_follow_records(group: &Group) -> bool {
    matches!(group.dialect, crate::group::DialectState::Draft(_))
}

/// What a member record ends with: the member's static instance mapped to it, and the
/// endpoint-information epoch moved when what members serve changed (`endpoint_event`).
fn index_member(
    static_index: &mut BTreeMap<String, String>,
    endpoint_epoch: &mut i32,
    member: &Member,
    member_id: &str,
    endpoint_event: bool,
) {
    map_instance(
        static_index,
        member.metadata.instance_id.as_ref(),
        member_id,
    );
    if endpoint_event {
        *endpoint_epoch += 1;
    }
}

/// Maps `instance` to `member_id` (a later record of another member takes the instance over).
fn map_instance(index: &mut BTreeMap<String, String>, instance: Option<&String>, member_id: &str) {
    if let Some(instance) = instance {
        if index.get(instance).map(String::as_str) != Some(member_id) {
            index.insert(instance.clone(), member_id.to_string());
        }
    }
}

/// Unmaps `instance` if it still maps to `member_id`.
fn unmap_instance(
    index: &mut BTreeMap<String, String>,
    instance: Option<&String>,
    member_id: &str,
) {
    if let Some(instance) = instance {
        if index.get(instance).map(String::as_str) == Some(member_id) {
            index.remove(instance);
        }
    }
}

/// Per-task epochs of the active tasks, assigned and pending revocation (PROTOCOL 4.8): a list
/// without `AssignmentEpochs` (or with a length mismatch) reads as `member_epoch` for each task.
fn active_epochs<'s, P, E>(
    active: impl Iterator<Item = (&'s str, P, E)> + Clone,
    member_epoch: i32,
    shared: &[Arc<str>],
) -> TaskEpochs
where
    P: ExactSizeIterator<Item = i32>,
    E: ExactSizeIterator<Item = i32>,
{
    let mut out = Vec::with_capacity(active.clone().map(|(_, p, _)| p.len()).sum());
    for (sub, partitions, epochs) in active {
        if partitions.len() == 0 {
            continue;
        }
        let sub = crate::tasks::shared_id(shared, sub);
        if epochs.len() == partitions.len() {
            out.extend(
                partitions
                    .zip(epochs)
                    .map(|(p, e)| (Arc::clone(&sub), p, e)),
            );
        } else {
            out.extend(partitions.map(|p| (Arc::clone(&sub), p, member_epoch)));
        }
    }
    TaskEpochs::from_entries(out)
}

/// Recomputes the derived configured topology (draft: from the stored partition metadata).
fn reconfigure(group: &mut Group, limits: &Limits) {
    let subs = group
        .topology
        .as_ref()
        .map_or(&[][..], |t| &t.subtopologies);
    if !group.soft.patterns.is_for(subs) {
        group.soft.patterns = SourcePatterns::compile(subs);
    }
    let mut ids: Vec<&str> = subs.iter().map(|s| s.subtopology_id.as_str()).collect();
    crate::ordered::sort(&mut ids);
    ids.dedup();
    if !ids
        .iter()
        .copied()
        .eq(group.soft.subtopology_ids.iter().map(|id| &**id))
    {
        group.soft.subtopology_ids = ids.into_iter().map(Arc::from).collect();
    }
    // 4.2 configures in memory at refresh time (PROTOCOL 4.4 step 5), not from records.
    if !matches!(group.dialect, DialectState::Draft(_)) {
        return;
    }
    let view = group.view();
    let configured = group.topology.as_ref().map(|t| {
        limits.bound(topology::configure_with(
            &t.subtopologies,
            &group.soft.patterns,
            &view,
        ))
    });
    if let DialectState::Draft(d) = &mut group.dialect {
        d.configured = configured;
    }
}

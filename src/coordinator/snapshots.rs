//! What Kafka's snapshot registry undoes when a write fails. Kafka's runtime takes a snapshot
//! of its timeline state at each offset it appends records at, and a write that fails reverts
//! the shard to the last one. A heartbeat that writes no records but configures a group's
//! topology (`StreamsGroup.setConfiguredTopology`, a timeline object) is in no snapshot yet:
//! the next failed write of the shard (any group's) undoes it, and the next write with records
//! keeps it. A coordinator is one shard.

use super::{Batch, Coordinator};
use crate::group::{DialectState, MemberState, Soft};
use crate::records::{RecordKey, RecordValue};
use crate::timers::{TimerData, TimerKind};
use crate::topology::Configuration;

/// A group's configured topology before a write without records changed it.
#[derive(Clone, Debug)]
pub(super) struct Unsnapshotted {
    group_id: String,
    configured: Option<Configuration>,
    provisional: bool,
}

impl Coordinator {
    /// Notes the configured topology of `group_id` before a write without records changes it
    /// (the oldest note of a group stands).
    pub(super) fn note_unsnapshotted(&mut self, group_id: &str) {
        if self.unsnapshotted.iter().any(|u| u.group_id == group_id) {
            return;
        }
        if let Some(DialectState::Kafka42(k)) = self.groups.get(group_id).map(|g| &g.dialect) {
            let note = Unsnapshotted {
                group_id: group_id.to_string(),
                configured: k.configured.0.clone(),
                provisional: k.provisional.0,
            };
            self.unsnapshotted.push(note);
        }
    }

    /// Records were written: the snapshot at their offset holds every change before them.
    pub(super) fn snapshot_taken(&mut self) {
        self.unsnapshotted.clear();
    }

    /// A write failed: the changes no snapshot holds are undone.
    pub(super) fn revert_to_snapshot(&mut self) {
        for u in std::mem::take(&mut self.unsnapshotted) {
            if let Some(DialectState::Kafka42(k)) =
                self.groups.get_mut(&u.group_id).map(|g| &mut g.dialect)
            {
                k.configured = Soft(u.configured);
                k.provisional = Soft(u.provisional);
            }
        }
    }

    /// A heartbeat whose response fails after its member was reconciled: Kafka scheduled (or
    /// cancelled) the member's rebalance timeout while reconciling, and a timer is not undone.
    pub(super) fn keep_reconciliation_timer(
        &mut self,
        now: i64,
        group_id: &str,
        member_id: &str,
        batch: &Batch,
    ) {
        let mut current = None;
        let mut timeout = None;
        for r in &batch.records {
            match (&r.key, &r.value) {
                (
                    RecordKey::CurrentMemberAssignment { member_id: m, .. },
                    Some(RecordValue::CurrentMemberAssignment(v)),
                ) if m == member_id => current = Some((v.member_epoch, v.state)),
                (
                    RecordKey::MemberMetadata { member_id: m, .. },
                    Some(RecordValue::MemberMetadata(v)),
                ) if m == member_id => timeout = Some(v.rebalance_timeout_ms),
                _ => {}
            }
        }
        let Some((epoch, state)) = current else {
            return;
        };
        let stored = self
            .groups
            .get(group_id)
            .and_then(|g| g.members.get(member_id))
            .map(|m| m.metadata.rebalance_timeout_ms);
        let kind = TimerKind::RebalanceTimeout;
        match (MemberState::from_code(state), timeout.or(stored)) {
            (MemberState::UnrevokedTasks, Some(ms)) => {
                let deadline = now.saturating_add(i64::from(ms));
                let data = TimerData::MemberEpoch(epoch);
                self.schedule(kind, group_id, member_id, deadline, data);
            }
            _ => self.cancel(kind, group_id, member_id),
        }
    }

    /// A heartbeat whose response fails after it bumped the group epoch: Kafka set the group's
    /// metadata refresh deadline (a plain field) to the bumped epoch, which a failed write does
    /// not undo; a refresh the topic image asked for is forgotten with it.
    pub(super) fn keep_refresh_deadline(&mut self, group_id: &str, batch: &Batch) {
        let bumped = batch
            .records
            .iter()
            .rev()
            .find_map(|r| match (&r.key, &r.value) {
                (RecordKey::GroupMetadata { group_id: g }, Some(RecordValue::GroupMetadata(v)))
                    if g == group_id =>
                {
                    Some(v.epoch)
                }
                _ => None,
            });
        if let (Some(epoch), Some(group)) = (bumped, self.groups.get_mut(group_id)) {
            group.soft.refresh_due = false;
            group.soft.refresh_epoch = epoch;
        }
    }
}

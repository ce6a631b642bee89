//! Firing due timers before an input is handled (DESIGN 2, PROTOCOL 2.9).

use super::fence::FenceCause;
use super::{Checkpoint, Coordinator, Output};
use crate::api::Explain;
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::Configuration;

impl Coordinator {
    /// Fires every timer due at or before `now`, each at its own deadline, in order; with a
    /// checkpoint, each group a timer may change is kept there first.
    pub(super) fn fire_timers(
        &mut self,
        now: i64,
        out: &mut Output,
        mut checkpoint: Option<&mut Checkpoint>,
    ) {
        while let Some((key, timer)) = self.timers.pop_due(now) {
            if let Some(checkpoint) = checkpoint.as_deref_mut() {
                checkpoint.keep(self, &key.group_id);
            }
            let at = timer.deadline.max(self.now_ms);
            self.now_ms = at;
            self.fire(at, &key, &timer.data, out);
        }
    }

    fn fire(&mut self, at: i64, key: &TimerKey, data: &TimerData, out: &mut Output) {
        let gid: &str = &key.group_id;
        let Some(group) = self.groups.get(gid) else {
            return;
        };
        let ok = match key.kind {
            TimerKind::SessionTimeout => {
                if !group.members.contains_key(&key.subject) {
                    return;
                }
                self.fence(at, gid, &key.subject, FenceCause::SessionTimeout, out)
            }
            TimerKind::RebalanceTimeout => {
                let Some(member) = group.members.get(&key.subject) else {
                    return;
                };
                if *data != TimerData::MemberEpoch(member.member_epoch) {
                    return;
                }
                self.fence(at, gid, &key.subject, FenceCause::RebalanceTimeout, out)
            }
            TimerKind::TopologyInitialization => {
                let TimerData::AskedMember(asked) = data else {
                    return;
                };
                if group.topology.is_some() || !group.members.contains_key(asked) {
                    return;
                }
                let asked = asked.clone();
                self.fence(at, gid, &asked, FenceCause::InitializationTimeout, out)
            }
            TimerKind::InitialRebalanceDelay => self.fire_initial_delay(gid, out),
            // A pending 4.2 initial rebalance delay holds every assignment back; it computes
            // when it fires.
            TimerKind::AssignmentInterval => {
                self.initial_delay_pending(gid) || self.fire_due_assignment(gid, out)
            }
            TimerKind::Retention => {
                if !group.members.is_empty() {
                    return;
                }
                let batch = self.deletion_batch(group, "RETENTION_EXPIRED");
                let ok = self.commit_group(gid, batch, out).is_ok();
                if ok {
                    self.timers.cancel_group(gid, None);
                }
                ok
            }
        };
        if !ok {
            out.explain.push(Explain::TimerDropped {
                group_id: gid.to_string(),
                timer: key.kind.name(),
                message: "its records would exceed maxRecordBatchBytes; nothing was written".into(),
            });
        }
    }

    /// The delay timer fires: the target assignment for the current group epoch, unless the
    /// group became memberless or has no ready topology (4.7). `false` when the batch limit
    /// refused the records.
    fn fire_initial_delay(&mut self, group_id: &str, out: &mut Output) -> bool {
        let ready = self
            .groups
            .get(group_id)
            .is_some_and(|g| matches!(self.rules.configured(g), Some(Configuration::Ready(_))));
        !ready || self.fire_due_assignment(group_id, out)
    }
}

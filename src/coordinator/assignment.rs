//! Target assignment computation (PROTOCOL 2.7) and held-back assignments: assignment batching
//! (`group.streams.assignment.interval.ms`) and the 4.2 initial rebalance delay (4.7).

use std::collections::BTreeMap;

use super::{Batch, Coordinator};
use crate::api::Explain;
use crate::assignor::{
    tasks_moved, tasks_reassigned, GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec,
    TaskAssignor,
};
use crate::config::AssignorKind;
use crate::error::{ErrorCode, ProtocolError};
use crate::records::build;
use crate::records::MemberMetadataValue;
use crate::tasks::Assignment;
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::{self, Configuration};

impl Coordinator {
    /// Computes every member's new target for `epoch`, writes the target member records of the
    /// members whose target changed (or who had none) and the target metadata record, and
    /// returns the new targets. `members` is the member list as updated by the operation.
    pub(crate) fn compute_targets(
        &self,
        group_id: &str,
        members: &BTreeMap<String, &MemberMetadataValue>,
        previous: &BTreeMap<String, Assignment>,
        configured: Option<&Configuration>,
        epoch: i32,
        batch: &mut Batch,
    ) -> Result<BTreeMap<String, Assignment>, ProtocolError> {
        let new_targets: BTreeMap<String, Assignment> = match (self.config.assignor, configured) {
            (AssignorKind::Manual, _) => members
                .keys()
                .map(|id| (id.clone(), previous.get(id).cloned().unwrap_or_default()))
                .collect(),
            (AssignorKind::Sticky, Some(Configuration::Ready(subs))) => {
                self.check_assignment_cost(subs, members, previous, epoch)?;
                let specs: Vec<MemberSpec> = members
                    .iter()
                    .map(|(id, md)| MemberSpec {
                        member_id: id.clone(),
                        process_id: md.process_id.clone(),
                        instance_id: md.instance_id.clone(),
                        rack_id: md.rack_id.clone(),
                        client_tags: md
                            .client_tags
                            .iter()
                            .map(|kv| (kv.key.clone(), kv.value.clone()))
                            .collect(),
                        previous: previous.get(id).cloned().unwrap_or_default(),
                    })
                    .collect();
                let subtopologies: Vec<SubtopologySpec> = subs
                    .iter()
                    .map(|s| SubtopologySpec {
                        subtopology_id: s.subtopology_id.clone(),
                        num_tasks: s.num_tasks,
                        stateful: s.stateful,
                    })
                    .collect();
                let spec = GroupSpec {
                    members: &specs,
                    subtopologies: &subtopologies,
                    num_standby_replicas: self.config.num_standby_replicas,
                };
                let mut result = StickyAssignor.assign(&spec).map_err(|reason| {
                    ProtocolError::new(
                        ErrorCode::UnknownServerError,
                        format!(
                            "Failed to compute a new target assignment for epoch {epoch}: {reason}"
                        ),
                    )
                })?;
                members
                    .keys()
                    .map(|id| (id.clone(), result.remove(id).unwrap_or_default()))
                    .collect()
            }
            // No topology, or not ready: every target is empty.
            _ => members
                .keys()
                .map(|id| (id.clone(), Assignment::default()))
                .collect(),
        };
        for (id, target) in &new_targets {
            if previous.get(id) != Some(target) {
                batch.push(build::target_member(group_id, id, target));
            }
        }
        batch.push(build::target_metadata(group_id, epoch));
        let previous_of_members: BTreeMap<String, Assignment> = previous
            .iter()
            .filter(|(id, _)| members.contains_key(*id))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        batch.explain.push(Explain::TargetAssignmentComputed {
            group_id: group_id.to_string(),
            assignment_epoch: epoch,
            tasks_moved: tasks_moved(&previous_of_members, &new_targets),
            tasks_reassigned: self.groups.get(group_id).map_or(0, |g| {
                tasks_reassigned(&g.orphaned, &previous_of_members, &new_targets)
            }),
            assignor: self.config.assignor.name(),
        });
        Ok(new_targets)
    }

    /// Assignment batching: the group's next target assignment is due at `until` (once per
    /// delay: a pending timer is left as it is).
    pub(crate) fn batch_assignment(&mut self, group_id: &str, until: i64, out: &mut crate::Output) {
        let key = TimerKey::new(TimerKind::AssignmentInterval, group_id, "");
        if self.timers.get(&key).is_some() {
            return;
        }
        self.timers.schedule(key, until, TimerData::None);
        out.explain.push(Explain::AssignmentDelayed {
            group_id: group_id.to_string(),
            until_ms: until,
            cause: Some("ASSIGNMENT_INTERVAL"),
        });
    }

    /// Arms the initial rebalance delay of a group that was memberless (4.7).
    pub(crate) fn arm_initial_delay(&mut self, now: i64, group_id: &str, out: &mut crate::Output) {
        let until = now.saturating_add(i64::from(self.config.initial_rebalance_delay_ms));
        self.schedule(
            TimerKind::InitialRebalanceDelay,
            group_id,
            "",
            until,
            TimerData::None,
        );
        out.explain.push(Explain::AssignmentDelayed {
            group_id: group_id.to_string(),
            until_ms: until,
            cause: None,
        });
    }

    /// A held-back assignment is due (assignment batching, and the 4.2 initial rebalance delay):
    /// the target assignment for the current group epoch, unless one was computed meanwhile or
    /// the group has no members. `false` when the batch limit refused the records.
    pub(crate) fn fire_due_assignment(&mut self, group_id: &str, out: &mut crate::Output) -> bool {
        let Some(group) = self.groups.get(group_id) else {
            return true;
        };
        if group.members.is_empty() || group.group_epoch <= group.assignment_epoch {
            return true;
        }
        let configured = self.rules.configured(group);
        // A dialect that keeps its configuration in memory has none until a heartbeat refreshed
        // it; that heartbeat computes instead.
        if self.rules.keeps_configuration() && configured.is_none() {
            return true;
        }
        let members: BTreeMap<String, &MemberMetadataValue> = group
            .members
            .iter()
            .map(|(id, m)| (id.clone(), &m.metadata))
            .collect();
        let mut batch = Batch::default();
        if self
            .compute_targets(
                group_id,
                &members,
                &group.targets,
                configured,
                group.group_epoch,
                &mut batch,
            )
            .is_err()
        {
            return true;
        }
        self.commit_group(group_id, batch, out).is_ok()
    }

    /// Refuses an assignment whose records could not fit the batch before computing it: every
    /// active task and standby copy that no member's previous target holds must appear in a
    /// target record written now, at 4 bytes at least each (bounded cost; the batch limit would
    /// refuse the records only after the whole computation).
    fn check_assignment_cost(
        &self,
        subs: &[topology::ConfiguredSubtopology],
        members: &BTreeMap<String, &MemberMetadataValue>,
        previous: &BTreeMap<String, Assignment>,
        epoch: i32,
    ) -> Result<(), ProtocolError> {
        let held = |list: fn(&Assignment) -> &crate::tasks::TaskMap| -> i64 {
            members
                .keys()
                .filter_map(|id| previous.get(id))
                .map(|a| list(a).values().map(|p| p.len() as i64).sum::<i64>())
                .sum()
        };
        // Standbys: each stateful task gets min(replicas, other processes) copies.
        let processes: std::collections::BTreeSet<&str> =
            members.values().map(|m| m.process_id.as_str()).collect();
        let copies = i64::from(self.config.num_standby_replicas)
            .min(processes.len().saturating_sub(1) as i64);
        let stateful: i64 = subs
            .iter()
            .filter(|s| s.stateful)
            .map(|s| i64::from(s.num_tasks.max(0)))
            .sum();
        let placed = (topology::total_tasks(subs) - held(|a| &a.active)).max(0)
            + (stateful.saturating_mul(copies) - held(|a| &a.standby)).max(0);
        let at_least = placed.saturating_mul(4);
        if at_least > self.config.max_record_batch_bytes {
            return Err(ProtocolError::new(
                ErrorCode::UnknownServerError,
                format!(
                    "Failed to compute a new target assignment for epoch {epoch}: its records \
                     would take at least {at_least} bytes, more than the maximum record batch \
                     size of {} bytes.",
                    self.config.max_record_batch_bytes
                ),
            ));
        }
        Ok(())
    }
}

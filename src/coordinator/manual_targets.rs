//! `SetTargetAssignment`: the manual assignor's input; the host sets every member's target
//! (PROTOCOL 2.10).

use std::collections::BTreeMap;

use super::fence::bump;
use super::{Batch, Coordinator};
use crate::api::{AssignmentJson, Explain, Output, Response, SetTargetAssignmentResponse};
use crate::assignor::{validate_manual, ManualTarget, SubtopologySpec};
use crate::config::AssignorKind;
use crate::error::{ErrorCode, ProtocolError};
use crate::ordered::Ordered;
use crate::records::build;
use crate::tasks::Assignment;
use crate::timers::TimerKind;
use crate::topology::Configuration;

impl Coordinator {
    /// The manual assignor's input (2.10).
    pub(super) fn set_target_assignment(
        &mut self,
        group_id: &str,
        assignment: &BTreeMap<String, AssignmentJson>,
        out: &mut Output,
    ) {
        let result = self.try_set_target_assignment(group_id, assignment, out);
        let (error_code, error_message) = match result {
            Ok(()) => (0, None),
            Err(e) => (e.code.code(), Some(e.message)),
        };
        out.response = Some(Response::SetTargetAssignment(SetTargetAssignmentResponse {
            error_code,
            error_message,
        }));
    }

    fn try_set_target_assignment(
        &mut self,
        group_id: &str,
        assignment: &BTreeMap<String, AssignmentJson>,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let group = self.groups.get(group_id).ok_or_else(|| {
            ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                format!("Streams group {group_id} not found."),
            )
        })?;
        if self.config.assignor != AssignorKind::Manual {
            return Err(ProtocolError::invalid_request(
                "SetTargetAssignment requires the manual assignor, but this coordinator uses the sticky assignor.",
            ));
        }
        let members: BTreeMap<String, String> = group
            .members
            .iter()
            .map(|(id, m)| (id.clone(), m.metadata.process_id.clone()))
            .to_map();
        let specs: Option<Vec<SubtopologySpec>> = match self.configured_of(group) {
            Some(Configuration::Ready(subs)) => Some(
                subs.iter()
                    .map(|s| SubtopologySpec {
                        subtopology_id: s.subtopology_id.clone(),
                        num_tasks: s.num_tasks,
                        stateful: s.stateful,
                    })
                    .collect(),
            ),
            _ => None,
        };
        let targets: Vec<ManualTarget> = assignment
            .iter()
            .map(|(id, a)| ManualTarget {
                member_id: id.clone(),
                active: crate::api::task_ids(&a.active_tasks),
                standby: crate::api::task_ids(&a.standby_tasks),
                warmup: crate::api::task_ids(&a.warmup_tasks),
            })
            .collect();
        validate_manual(group_id, &members, specs.as_deref(), &targets)
            .map_err(ProtocolError::invalid_request)?;
        let mut batch = Batch::default();
        let epoch = self.rules.next_group_epoch(group.group_epoch);
        bump(group, epoch, vec!["MANUAL_ASSIGNMENT"], &mut batch);
        let mut moved = 0u64;
        let mut new_targets = BTreeMap::new();
        for member_id in group.members.keys() {
            let target = match assignment.get(member_id) {
                Some(a) => Assignment::from_task_ids(
                    &crate::api::task_ids(&a.active_tasks),
                    &crate::api::task_ids(&a.standby_tasks),
                    &crate::api::task_ids(&a.warmup_tasks),
                ),
                None => Assignment::default(),
            };
            if group.targets.get(member_id) != Some(&target) {
                batch.push(build::target_member(group_id, member_id, &target));
            }
            new_targets.insert(member_id.clone(), target);
        }
        moved += crate::assignor::tasks_moved(&group.targets, &new_targets);
        let reassigned =
            crate::assignor::tasks_reassigned(&group.orphaned, &group.targets, &new_targets);
        let timestamp = match self.rules.release() {
            Some(r) if r.has_assignment_interval() => self.now_ms,
            _ => 0,
        };
        batch.push(build::target_metadata(group_id, epoch, timestamp));
        batch.explain.push(Explain::TargetAssignmentComputed {
            group_id: group_id.to_string(),
            assignment_epoch: epoch,
            tasks_moved: moved,
            tasks_reassigned: reassigned,
            assignor: "manual",
        });
        self.commit_group(group_id, batch, out)?;
        // 4.2 (rule): the members reconcile towards the targets just set, not a placeholder.
        self.cancel(TimerKind::InitialRebalanceDelay, group_id, "");
        Ok(())
    }
}

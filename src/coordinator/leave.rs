//! Leaving (PROTOCOL 3.7; 4.4 for the 4.2 differences): a dynamic member (epoch -1) is fenced at
//! once; a static member (epoch -2) leaves temporarily and keeps its tasks until its session
//! times out or its instance id comes back.

use super::fence::FenceCause;
use super::{Batch, Coordinator};
use crate::api::{Explain, HeartbeatRequest, Output};
use crate::error::{ErrorCode, ProtocolError};
use crate::records::build;
use crate::tasks::Assignment;
use crate::timers::{TimerKey, TimerKind};

impl Coordinator {
    /// PROTOCOL 3.7 (4.4 for the 4.2 differences).
    pub(super) fn leave(
        &mut self,
        now: i64,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let gid = req.group_id.as_str();
        let group = self.groups.get(gid).ok_or_else(|| {
            // Kafka's `streamsGroup(groupId)` casts the simple classic group of an admin's
            // commit, which is not a streams group.
            let message = match self.offsets.is_simple_group(gid) && self.config.dialect.is_kafka()
            {
                true => format!("Group {gid} is not a streams group."),
                false => self.rules.leave_group_not_found(gid),
            };
            ProtocolError::new(ErrorCode::GroupIdNotFound, message)
        })?;
        let member_id = req.member_id.as_str();
        let member = match &req.instance_id {
            None => group
                .members
                .get(member_id)
                .ok_or_else(|| ProtocolError::unknown_member(gid, member_id))?,
            Some(instance) => {
                let holder = group
                    .static_index
                    .get(instance)
                    .ok_or_else(|| ProtocolError::unknown_instance(instance))?;
                if holder != member_id {
                    return Err(ProtocolError::fenced_instance(member_id, instance, holder));
                }
                group
                    .members
                    .get(holder)
                    .ok_or_else(|| ProtocolError::unknown_member(gid, member_id))?
            }
        };
        if req.member_epoch == -1 {
            let batch = self.fence_batch(group, member_id, FenceCause::Leave);
            self.commit_group(gid, batch, out)?;
            if req.shutdown_application {
                self.request_shutdown(gid, member_id);
            }
            self.after_fence(now, gid, member_id);
        } else {
            let mut left = member.clone();
            left.member_epoch = -2;
            left.pending = Assignment::default();
            let assigned = &left.assigned.active;
            left.active_epochs.retain(|s, p| assigned.contains(s, p));
            left.active_epochs.set_all(0);
            let mut batch = Batch::default();
            batch.push(build::current_assignment(
                gid,
                &left,
                self.rules.writes_assignment_epochs(),
            ));
            let deadline = self
                .timers
                .get(&TimerKey::new(TimerKind::SessionTimeout, gid, member_id))
                .map_or(now, |t| t.deadline);
            batch.explain.push(Explain::StaticMemberLeftTemporarily {
                group_id: gid.to_string(),
                member_id: member_id.to_string(),
                instance_id: req.instance_id.clone().unwrap_or_default(),
                expires_at_ms: deadline,
            });
            self.commit_group(gid, batch, out)?;
            // Kafka 4.4's temporary leave cancels no timer: a rebalance timeout pending for
            // the member stays (and finds it at epoch -2 when it fires).
            if !self.config.dialect.is_kafka() {
                self.cancel(TimerKind::RebalanceTimeout, gid, member_id);
            }
            if req.shutdown_application {
                self.request_shutdown(gid, member_id);
            }
        }
        out.response = Some(self.rules.leave_response(member_id, req.member_epoch));
        Ok(())
    }

    fn request_shutdown(&mut self, group_id: &str, member_id: &str) {
        if let Some(g) = self.groups.get_mut(group_id) {
            if g.soft.shutdown_requester.is_none() && !g.members.is_empty() {
                g.soft.shutdown_requester = Some(member_id.to_string());
            }
        }
    }
}

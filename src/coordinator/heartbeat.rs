//! `StreamsGroupHeartbeat` on the shared state machine (PROTOCOL 3.6, 3.7; 4.4 for the changes of
//! the 4.2 dialect). The dialects differ only at the edges: request validation, the topology
//! step, the topic view, response shapes and statuses live in [`super::draft`] and
//! [`super::kafka42`]; everything else (group and member lookup, static membership, epoch
//! validation, the metadata merge, the bump, the target assignment, reconciliation, timers) is
//! this one path.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::fence::{
    current_record, group_metadata_record, member_record, member_tombstones, next_group_epoch,
    FenceCause,
};
use super::kafka42::Refresh;
use super::{assignment::target_record, draft, kafka42, Batch, Coordinator};
use crate::api::{ClientInfo, Explain, HeartbeatRequest, Output};
use crate::error::bug;
use crate::error::{ErrorCode, ProtocolError};
use crate::group::member_id::{generate, MemberIdSeed};
use crate::group::{Group, Member, MemberState, TaskOffset};
use crate::reconcile::reconcile_owned;
use crate::records::{Dialect, KeyValue, MemberMetadataValue, TopologyValue};
use crate::tasks::{is_subset, task_map, Assignment, TaskMap};
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::{self, Configuration};

/// Java's `String.trim().isEmpty()` on a non-null string.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c <= '\u{20}')
}

pub(super) fn invalid(message: impl Into<String>) -> ProtocolError {
    ProtocolError::invalid_request(message)
}

/// The owned lists of a request, or `None` when any of the three is null.
fn owned(req: &HeartbeatRequest) -> Option<Assignment> {
    match (&req.active_tasks, &req.standby_tasks, &req.warmup_tasks) {
        (Some(a), Some(s), Some(w)) => Some(Assignment {
            active: task_map(&crate::api::task_ids(a)),
            standby: task_map(&crate::api::task_ids(s)),
            warmup: task_map(&crate::api::task_ids(w)),
        }),
        _ => None,
    }
}

/// Everything of a regular heartbeat that is decided before records are applied.
struct Plan {
    member_id: String,
    batch: Batch,
    /// The member as stored after this heartbeat.
    member: Member,
    /// Whether a current assignment record was written for it.
    current_written: bool,
    /// Tasks as the member held them before (for a replacement: the replaced member).
    assigned_before: Option<Assignment>,
    replaced: Option<String>,
    topics_to_create: Vec<topology::TopicToCreate>,
    /// 4.2: the configured topology this heartbeat refreshed, to keep as soft state.
    refreshed: Option<Configuration>,
    /// 4.2: this heartbeat found the group memberless and arms the initial rebalance delay.
    arm_delay: bool,
    /// Assignment batching: the bump's assignment waits until then.
    batched_until: Option<i64>,
}

impl Coordinator {
    pub(crate) fn heartbeat(
        &mut self,
        now: i64,
        raw_now: i64,
        client: &ClientInfo,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) {
        let valid = match self.config.dialect {
            Dialect::Kip1071Draft => draft::validate(req),
            Dialect::Kafka42 => kafka42::validate(req),
        };
        let result = valid
            .and_then(|()| self.check_request_size(req))
            .and_then(|()| {
                if req.member_epoch == -1 || req.member_epoch == -2 {
                    self.leave(now, req, out)
                } else {
                    self.regular_heartbeat(now, raw_now, client, req, out)
                }
            });
        if let Err(e) = result {
            out.response = Some(match self.config.dialect {
                Dialect::Kip1071Draft => draft::error_response(&e),
                Dialect::Kafka42 => kafka42::error_response(&e),
            });
        }
    }

    /// Bounded cost: one heartbeat lists at most `group.streams.max.tasks` owned tasks, task
    /// offsets and task end offsets, as many as a group may have tasks.
    fn check_request_size(&self, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
        let max = self.config.max_tasks.max(0) as usize;
        let owned: usize = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks]
            .into_iter()
            .flatten()
            .flatten()
            .map(|t| t.partitions.len())
            .sum();
        let lists = [
            ("owned tasks", owned),
            (
                "task offsets",
                req.task_offsets.as_ref().map_or(0, Vec::len),
            ),
            (
                "task end offsets",
                req.task_end_offsets.as_ref().map_or(0, Vec::len),
            ),
        ];
        match lists.iter().find(|(_, n)| *n > max) {
            Some((what, n)) => Err(invalid(format!(
                "The heartbeat lists {n} {what}, more than the {max} tasks that \
                 group.streams.max.tasks allows."
            ))),
            None => Ok(()),
        }
    }

    /// PROTOCOL 3.7 (4.4 for the 4.2 differences).
    fn leave(
        &mut self,
        now: i64,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let gid = req.group_id.as_str();
        let group = self.groups.get(gid).ok_or_else(|| {
            ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                match self.config.dialect {
                    Dialect::Kip1071Draft => format!("Group {gid} not found."),
                    Dialect::Kafka42 => format!("Streams group {gid} not found."),
                },
            )
        })?;
        let member_id = req.member_id.as_str();
        let member = match &req.instance_id {
            None => group
                .members
                .get(member_id)
                .ok_or_else(|| unknown_member(gid, member_id))?,
            Some(instance) => {
                let holder = group.static_index.get(instance).ok_or_else(|| {
                    ProtocolError::new(
                        ErrorCode::UnknownMemberId,
                        format!("Instance id {instance} is unknown."),
                    )
                })?;
                if holder != member_id {
                    return Err(fenced_instance(member_id, instance, holder));
                }
                group
                    .members
                    .get(holder)
                    .ok_or_else(|| unknown_member(gid, member_id))?
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
            left.active_epochs = left
                .active_epochs
                .keys()
                .filter(|(s, p)| left.assigned.active.get(s).is_some_and(|ps| ps.contains(p)))
                .map(|k| (k.clone(), 0))
                .collect();
            let mut batch = Batch::default();
            batch.push(current_record(self.config.dialect, gid, &left));
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
            self.cancel(TimerKind::RebalanceTimeout, gid, member_id);
            if req.shutdown_application {
                self.request_shutdown(gid, member_id);
            }
        }
        out.response = Some(match self.config.dialect {
            Dialect::Kip1071Draft => draft::leave_response(member_id, req.member_epoch),
            Dialect::Kafka42 => kafka42::leave_response(member_id, req.member_epoch),
        });
        Ok(())
    }

    fn request_shutdown(&mut self, group_id: &str, member_id: &str) {
        if let Some(g) = self.groups.get_mut(group_id) {
            if g.soft.shutdown_requester.is_none() && !g.members.is_empty() {
                g.soft.shutdown_requester = Some(member_id.to_string());
            }
        }
    }

    /// PROTOCOL 3.6, R1-R15 (4.4 in the 4.2 dialect).
    fn regular_heartbeat(
        &mut self,
        now: i64,
        raw_now: i64,
        client: &ClientInfo,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let plan = self.plan_heartbeat(now, raw_now, client, req)?;
        let gid = req.group_id.clone();
        let member_id = plan.member_id.clone();
        self.commit_group(&gid, plan.batch, out)?;
        out.topics_to_create = plan.topics_to_create;

        // Soft state: timers, refresh flag, shutdown requester, reported offsets.
        if let Some(old) = &plan.replaced {
            self.cancel_member_timers(&gid, old);
        }
        if req.member_epoch == 0 {
            self.cancel(TimerKind::Retention, &gid, "");
        }
        if plan.current_written {
            if plan.member.member_state() == MemberState::UnrevokedTasks {
                let deadline =
                    now.saturating_add(i64::from(plan.member.metadata.rebalance_timeout_ms));
                self.schedule(
                    TimerKind::RebalanceTimeout,
                    &gid,
                    &member_id,
                    deadline,
                    TimerData::MemberEpoch(plan.member.member_epoch),
                );
            } else {
                self.cancel(TimerKind::RebalanceTimeout, &gid, &member_id);
            }
        }
        let session = now.saturating_add(i64::from(self.config.session_timeout_ms));
        self.schedule(
            TimerKind::SessionTimeout,
            &gid,
            &member_id,
            session,
            TimerData::None,
        );
        // The committed heartbeat left its group and member in place.
        let Some(group) = self.groups.get_mut(&gid) else {
            bug("the group of a committed heartbeat is gone");
        };
        group.soft.refresh_due = false;
        if let Some(configured) = plan.refreshed {
            group.soft.configured = Some(configured);
        }
        if req.shutdown_application && group.soft.shutdown_requester.is_none() {
            group.soft.shutdown_requester = Some(member_id.clone());
        }
        if let Some(stored) = group.members.get_mut(&member_id) {
            if req.task_offsets.is_some() {
                stored.soft.task_offsets = req.task_offsets.as_ref().map(|l| offsets(l));
            }
            if req.task_end_offsets.is_some() {
                stored.soft.task_end_offsets = req.task_end_offsets.as_ref().map(|l| offsets(l));
            }
        }
        if let Some(until) = plan.batched_until {
            self.batch_assignment(&gid, until, out);
        }
        let response = match self.config.dialect {
            Dialect::Kip1071Draft => self.finish_draft_heartbeat(
                now,
                &gid,
                &plan.member,
                plan.assigned_before.as_ref(),
                req,
                out,
            ),
            Dialect::Kafka42 => {
                if plan.arm_delay {
                    self.arm_initial_delay(now, &gid, out);
                }
                self.kafka42_response(&gid, &member_id, plan.assigned_before.as_ref(), req)
            }
        };
        out.response = Some(response);
        Ok(())
    }

    /// R1-R10: decides every record of a regular heartbeat without changing state.
    fn plan_heartbeat(
        &self,
        now: i64,
        raw_now: i64,
        client: &ClientInfo,
        req: &HeartbeatRequest,
    ) -> Result<Plan, ProtocolError> {
        let gid = req.group_id.as_str();
        let join = req.member_epoch == 0;
        // R1
        let fresh;
        let group: &Group = match self.groups.get(gid) {
            Some(g) => g,
            None if join => {
                fresh = Group::new(gid);
                &fresh
            }
            None => {
                return Err(ProtocolError::new(
                    ErrorCode::GroupIdNotFound,
                    format!("Streams group {gid} not found."),
                ))
            }
        };
        // R2
        if join
            && group.members.len() as i64 >= i64::from(self.config.max_size)
            && !group.members.contains_key(&req.member_id)
            && !req
                .instance_id
                .as_ref()
                .is_some_and(|i| group.static_index.contains_key(i))
        {
            return Err(ProtocolError::new(
                ErrorCode::GroupMaxSizeReached,
                format!(
                    "The streams group has reached its maximum capacity of {} members.",
                    self.config.max_size
                ),
            ));
        }
        // R3 (the 4.2 dialect never generates: its member ids are never blank, 4.3 #4)
        let dialect = self.config.dialect;
        let member_id = if dialect == Dialect::Kip1071Draft && join && req.member_id.is_empty() {
            generate(
                &MemberIdSeed {
                    group_id: gid,
                    group_epoch: group.group_epoch,
                    now_ms: raw_now,
                    client_id: &client.client_id,
                    client_host: &client.client_host,
                    instance_id: req.instance_id.as_deref(),
                },
                Some(group),
            )
        } else {
            req.member_id.clone()
        };
        // R4
        let mut batch = Batch::default();
        let mut replaced: Option<&Member> = None;
        // Borrowed from the group unless this heartbeat makes a new member (no clone of a member
        // that may not change).
        let found: Cow<'_, Member> = match &req.instance_id {
            None => match group.members.get(&member_id) {
                Some(m) => Cow::Borrowed(m),
                None if join => Cow::Owned(Member::new(&member_id)),
                None => return Err(unknown_member(gid, &member_id)),
            },
            Some(instance) => match (join, group.static_index.get(instance)) {
                (true, None) => group
                    .members
                    .get(&member_id)
                    .map_or_else(|| Cow::Owned(Member::new(&member_id)), Cow::Borrowed),
                (true, Some(h)) if *h == member_id => group
                    .members
                    .get(h)
                    .map_or_else(|| Cow::Owned(Member::new(&member_id)), Cow::Borrowed),
                (true, Some(h)) => {
                    let holder = group.members.get(h).ok_or_else(|| unknown_member(gid, h))?;
                    if holder.member_epoch != -2 {
                        return Err(ProtocolError::new(
                            ErrorCode::UnreleasedInstanceId,
                            format!(
                                "Static member {member_id} with instance id {instance} cannot join the group because the instance id is owned by {h} member."
                            ),
                        ));
                    }
                    if group.members.contains_key(&member_id) {
                        return Err(invalid(format!(
                            "Member {member_id} cannot take over instance id {instance} because it is already a member of the group."
                        )));
                    }
                    replaced = Some(holder);
                    let mut copy = holder.clone();
                    copy.member_id = member_id.clone();
                    copy.member_epoch = 0;
                    copy.previous_member_epoch = 0;
                    copy.pending = Assignment::default();
                    copy.soft = Default::default();
                    for e in copy.active_epochs.values_mut() {
                        *e = 0;
                    }
                    member_tombstones(gid, h, &mut batch);
                    batch.push(member_record(gid, &copy));
                    let target = group.targets.get(h).cloned().unwrap_or_default();
                    batch.push(target_record(gid, &member_id, &target));
                    batch.push(current_record(dialect, gid, &copy));
                    batch.explain.push(Explain::StaticMemberReplaced {
                        group_id: gid.to_string(),
                        instance_id: instance.clone(),
                        old_member_id: h.clone(),
                        new_member_id: member_id.clone(),
                    });
                    Cow::Owned(copy)
                }
                (false, None) => {
                    return Err(ProtocolError::new(
                        ErrorCode::UnknownMemberId,
                        format!("Instance id {instance} is unknown."),
                    ))
                }
                (false, Some(h)) if *h != member_id => {
                    return Err(fenced_instance(&member_id, instance, h))
                }
                (false, Some(h)) => group
                    .members
                    .get(h)
                    .map(Cow::Borrowed)
                    .ok_or_else(|| unknown_member(gid, h))?,
            },
        };
        let is_new = replaced.is_none() && !group.members.contains_key(&member_id);
        // R5
        if !join {
            validate_epoch(&found, req)?;
        }
        // R6
        if !join {
            if let Some(t) = &req.topology_id {
                if *t != found.metadata.topology_id {
                    return Err(invalid("TopologyId can only be changed when (re-)joining."));
                }
            }
        }
        // R7
        let mut member = found.clone().into_owned();
        merge(dialect, &mut member.metadata, client, req);
        let mut reasons: Vec<&'static str> = Vec::new();
        if is_new || member.metadata != found.metadata {
            batch.push(member_record(gid, &member));
        }
        let is_static = req.instance_id.is_some() || found.metadata.instance_id.is_some();
        if is_new {
            reasons.push("MEMBER_JOINED");
        } else if is_static {
            // Topology identity is the id in the draft and the epoch in 4.2; the other one never
            // changes, so comparing both is dialect-neutral.
            let (a, b) = (&member.metadata, &found.metadata);
            if a.topology_id != b.topology_id
                || a.topology_epoch != b.topology_epoch
                || a.rack_id != b.rack_id
                || a.client_tags != b.client_tags
                || a.process_id != b.process_id
            {
                reasons.push("MEMBER_METADATA_CHANGED");
            }
        } else if member.metadata != found.metadata {
            reasons.push("MEMBER_METADATA_CHANGED");
        }
        if !is_new
            && self.warmup_caught_up(
                gid,
                &member_id,
                req.task_offsets.as_deref(),
                req.task_end_offsets.as_deref(),
            )
        {
            reasons.push("WARMUP_CAUGHT_UP");
        }
        // 4.4 step 4 (4.2): the topology arrives in the join.
        let new_topology: Option<TopologyValue> = match dialect {
            Dialect::Kip1071Draft => None,
            Dialect::Kafka42 => kafka42::topology_step(group, req, &self.limits())?,
        };
        if let Some(t) = &new_topology {
            batch.push(crate::records::Record::new(
                crate::records::RecordKey::Topology {
                    group_id: gid.to_string(),
                },
                crate::records::RecordValue::Topology(t.clone()),
            ));
            reasons.push("TOPOLOGY_INITIALIZED");
        }
        let topology = new_topology.as_ref().or(group.topology.as_ref());
        // R8 (draft) / 4.4 steps 5-6 (4.2): the topic view.
        let mut new_configuration = None;
        let mut refresh: Option<Refresh> = None;
        match dialect {
            Dialect::Kip1071Draft => {
                if group.soft.refresh_due || !reasons.is_empty() {
                    let pm = self.partition_metadata(
                        group.topology.as_ref().map(|t| t.subtopologies.as_slice()),
                        &group.soft.patterns,
                    );
                    if pm != group.partition_metadata {
                        new_configuration = group.topology.as_ref().map(|t| {
                            self.limits().bound(topology::configure_with(
                                &t.subtopologies,
                                &group.soft.patterns,
                                &crate::group::view_of(&pm),
                            ))
                        });
                        batch.push(crate::records::Record::new(
                            crate::records::RecordKey::PartitionMetadata {
                                group_id: gid.to_string(),
                            },
                            crate::records::RecordValue::PartitionMetadata(pm),
                        ));
                        reasons.push("TOPIC_METADATA_CHANGED");
                    }
                }
            }
            Dialect::Kafka42 => {
                let r = self.kafka42_refresh(group, topology, !reasons.is_empty())?;
                kafka42::check_owned_tasks(r.configured(group), req)?;
                r.bump_reasons(group, new_topology.is_some(), &mut reasons);
                refresh = Some(r);
            }
        }
        let configured = match &refresh {
            Some(r) => r.configured(group),
            None => new_configuration.as_ref().or(group.configured.as_ref()),
        };
        if dialect == Dialect::Kip1071Draft {
            // Bounded soft state: owned tasks must exist, as in 4.2 (PROTOCOL 4.4 step 5).
            kafka42::check_owned_tasks(configured, req)?;
        }
        let mut group_epoch = group.group_epoch;
        if !reasons.is_empty() {
            group_epoch = next_group_epoch(dialect, group.group_epoch);
            batch.push(match &refresh {
                Some(r) => r.group_metadata_record(gid, group_epoch),
                None => group_metadata_record(group, group_epoch),
            });
            batch.explain.push(Explain::GroupEpochBumped {
                group_id: gid.to_string(),
                from: group.group_epoch,
                to: group_epoch,
                reasons,
            });
        }
        // 4.7 (4.2): the initial rebalance delay; while it is pending no target is computed.
        let delay_pending = self.initial_delay_pending(gid);
        let arm_delay = dialect == Dialect::Kafka42
            && self.config.initial_rebalance_delay_ms > 0
            && group.members.is_empty()
            && !delay_pending;
        // R9
        let mut previous: Cow<'_, BTreeMap<String, Assignment>> = Cow::Borrowed(&group.targets);
        if let Some(h) = replaced {
            let targets = previous.to_mut();
            let t = targets.remove(&h.member_id).unwrap_or_default();
            targets.insert(member_id.clone(), t);
        }
        // Assignment batching: within the interval of the last computation, the bump waits;
        // except for a member that moved to another process, whose old target could put two
        // copies of a task on one process.
        let interval = i64::from(self.config.assignment_interval_ms);
        let moved = !is_new && member.metadata.process_id != found.metadata.process_id;
        let batched_until = group
            .soft
            .last_assignment_ms
            .map(|last| last.saturating_add(interval))
            .filter(|until| {
                interval > 0 && !moved && now < *until && group_epoch > group.assignment_epoch
            });
        let (target, assignment_epoch) = if arm_delay || delay_pending {
            // The placeholder: an empty assignment at epoch max(1, assignmentEpoch) (4.7).
            (Assignment::default(), group.assignment_epoch.max(1))
        } else if group_epoch > group.assignment_epoch && batched_until.is_none() {
            let mut members: BTreeMap<String, &MemberMetadataValue> = group
                .members
                .iter()
                .filter(|(id, _)| replaced.is_none_or(|h| h.member_id != **id))
                .map(|(id, m)| (id.clone(), &m.metadata))
                .collect();
            members.insert(member_id.clone(), &member.metadata);
            let mut targets = self.compute_targets(
                gid,
                &members,
                &previous,
                configured,
                group_epoch,
                super::assignment::Reported {
                    member_id: &member_id,
                    task_offsets: req.task_offsets.as_deref(),
                    task_end_offsets: req.task_end_offsets.as_deref(),
                },
                &mut batch,
            )?;
            (targets.remove(&member_id).unwrap_or_default(), group_epoch)
        } else {
            (
                previous.get(&member_id).cloned().unwrap_or_default(),
                group.assignment_epoch,
            )
        };
        // R10
        let owned = owned(req);
        let reconciled = reconcile_owned(
            member,
            assignment_epoch,
            &target,
            owned.as_ref(),
            &group.owners,
        )?;
        let current_written = is_new || !same_assignment(&reconciled, &found);
        if current_written {
            batch.push(current_record(dialect, gid, &reconciled));
        }
        let topics_to_create = match configured {
            Some(Configuration::MissingInternalTopics(t)) => t.clone(),
            _ => Vec::new(),
        };
        Ok(Plan {
            member_id,
            batch,
            member: reconciled,
            current_written,
            assigned_before: match replaced {
                Some(h) => Some(h.assigned.clone()),
                None if is_new => None,
                None => Some(found.assigned.clone()),
            },
            replaced: replaced.map(|h| h.member_id.clone()),
            topics_to_create,
            refreshed: refresh.and_then(Refresh::into_refreshed),
            arm_delay,
            batched_until,
        })
    }
}

/// The persisted fields of a current assignment record.
fn same_assignment(a: &Member, b: &Member) -> bool {
    a.member_epoch == b.member_epoch
        && a.previous_member_epoch == b.previous_member_epoch
        && a.state == b.state
        && a.assigned == b.assigned
        && a.pending == b.pending
}

/// PROTOCOL 2.4.
fn validate_epoch(member: &Member, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
    let (r, e, p) = (
        req.member_epoch,
        member.member_epoch,
        member.previous_member_epoch,
    );
    if r == e {
        return Ok(());
    }
    if r > e {
        return Err(ProtocolError::new(
            ErrorCode::FencedMemberEpoch,
            format!("The streams group member has a greater member epoch ({r}) than the one known by the group coordinator ({e}). The member must abandon all its partitions and rejoin."),
        ));
    }
    if r == p {
        if let Some(o) = owned(req) {
            let a = &member.assigned;
            if is_subset(&o.active, &a.active)
                && is_subset(&o.standby, &a.standby)
                && is_subset(&o.warmup, &a.warmup)
            {
                return Ok(());
            }
        }
    }
    Err(ProtocolError::new(
        ErrorCode::FencedMemberEpoch,
        format!("The streams group member has a smaller member epoch ({r}) than the one known by the group coordinator ({e}). The member must abandon all its partitions and rejoin."),
    ))
}

/// R7: applies the request to the member's persisted metadata. 4.2 (4.4 step 3): a join's
/// `topology.epoch` becomes the member's topology epoch and its `userEndpoint` is set, null
/// included; the draft ignores a topology, and a draft join's endpoint only replaces.
fn merge(
    dialect: Dialect,
    md: &mut MemberMetadataValue,
    client: &ClientInfo,
    req: &HeartbeatRequest,
) {
    if let (Dialect::Kafka42, Some(t)) = (dialect, &req.topology) {
        md.topology_epoch = t.epoch;
        md.user_endpoint = None;
    }
    if let Some(v) = &req.instance_id {
        md.instance_id = Some(v.clone());
    }
    if let Some(v) = &req.rack_id {
        md.rack_id = Some(v.clone());
    }
    if let Some(v) = &req.topology_id {
        md.topology_id = v.clone();
    }
    if let Some(v) = &req.process_id {
        md.process_id = v.clone();
    }
    if let Some(v) = &req.user_endpoint {
        md.user_endpoint = Some(v.into());
    }
    if req.rebalance_timeout_ms != -1 {
        md.rebalance_timeout_ms = req.rebalance_timeout_ms;
    }
    if let Some(tags) = &req.client_tags {
        let mut tags: Vec<KeyValue> = tags
            .iter()
            .map(|t| KeyValue {
                key: t.key.clone(),
                value: t.value.clone(),
            })
            .collect();
        tags.sort();
        md.client_tags = tags;
    }
    md.client_id = client.client_id.clone();
    md.client_host = client.client_host.clone();
}

fn offsets(list: &[crate::api::TaskOffsetJson]) -> Vec<TaskOffset> {
    list.iter()
        .map(|o| TaskOffset {
            subtopology_id: o.subtopology_id.clone(),
            partition: o.partition,
            offset: o.offset,
        })
        .collect()
}

pub(crate) fn unknown_member(group_id: &str, member_id: &str) -> ProtocolError {
    ProtocolError::new(
        ErrorCode::UnknownMemberId,
        format!("Member {member_id} is not a member of group {group_id}."),
    )
}

fn fenced_instance(member_id: &str, instance: &str, holder: &str) -> ProtocolError {
    ProtocolError::new(
        ErrorCode::FencedInstanceId,
        format!(
            "Static member {member_id} with instance id {instance} was fenced by member {holder}."
        ),
    )
}

/// The subtopologies of a ready configuration with their input topics and partition counts
/// (external sources and repartition sources), for the IQ endpoint maps (PROTOCOL 2.13).
pub(super) fn subtopology_inputs(
    configured: Option<&Configuration>,
) -> BTreeMap<&str, &[(String, i32)]> {
    match configured {
        Some(Configuration::Ready(subs)) => subs
            .iter()
            .map(|s| (s.subtopology_id.as_str(), s.input_topics.as_slice()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// Adds the partitions of `tasks` to `topics`: for task `(s, p)`, partition `p` of every input
/// topic of `s` that has more than `p` partitions (KAFKA-20885).
pub(super) fn task_partitions(
    inputs: &BTreeMap<&str, &[(String, i32)]>,
    tasks: &TaskMap,
    topics: &mut BTreeMap<String, BTreeSet<i32>>,
) {
    for (sub, parts) in tasks {
        let Some(inputs) = inputs.get(sub.as_str()) else {
            continue;
        };
        for (topic, count) in inputs.iter() {
            for p in parts.iter().filter(|p| **p < *count) {
                topics.entry(topic.clone()).or_default().insert(*p);
            }
        }
    }
}

//! `StreamsGroupHeartbeat` in the draft dialect (PROTOCOL 3.5-3.12).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::fence::{
    current_record, group_metadata_record, member_record, member_tombstones, FenceCause,
};
use super::{assignment::target_record, Batch, Coordinator};
use crate::api::{
    task_ids_json, ClientInfo, EndpointJson, EndpointToPartitionsJson, Explain, HeartbeatRequest,
    HeartbeatResponse, Output, StatusJson, TaskIdsJson, TopicPartitionJson,
};
use crate::error::{ErrorCode, ProtocolError};
use crate::group::member_id::{generate, MemberIdSeed};
use crate::group::{Group, Member, MemberState, Status, TaskOffset};
use crate::reconcile::reconcile;
use crate::records::{KeyValue, MemberMetadataValue};
use crate::tasks::{is_subset, task_map, Assignment};
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::{self, Configuration};

/// Java's `String.trim().isEmpty()` on a non-null string.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c <= '\u{20}')
}

fn invalid(message: impl Into<String>) -> ProtocolError {
    ProtocolError::invalid_request(message)
}

/// Request validation, PROTOCOL 3.5, in order.
fn validate(req: &HeartbeatRequest) -> Result<(), ProtocolError> {
    let epoch = req.member_epoch;
    let join = epoch == 0;
    if is_blank(&req.group_id) {
        return Err(invalid("GroupId can't be empty."));
    }
    if req.instance_id.as_deref().is_some_and(is_blank) {
        return Err(invalid("InstanceId can't be empty."));
    }
    if req.rack_id.as_deref().is_some_and(is_blank) {
        return Err(invalid("RackId can't be empty."));
    }
    if (epoch > 0 || epoch == -1) && is_blank(&req.member_id) {
        return Err(invalid("MemberId can't be empty."));
    }
    if join && !req.member_id.is_empty() && is_blank(&req.member_id) {
        return Err(invalid("MemberId can't be empty."));
    }
    if join && req.rebalance_timeout_ms == -1 {
        return Err(invalid(
            "RebalanceTimeoutMs must be provided in first request.",
        ));
    }
    if join && req.rebalance_timeout_ms <= 0 {
        return Err(invalid(
            "RebalanceTimeoutMs must be positive when (re-)joining.",
        ));
    }
    if req.rebalance_timeout_ms == 0 || req.rebalance_timeout_ms < -1 {
        return Err(invalid(format!(
            "RebalanceTimeoutMs is {}, but must be -1 or positive.",
            req.rebalance_timeout_ms
        )));
    }
    if join {
        for (list, name) in [
            (&req.active_tasks, "ActiveTasks"),
            (&req.standby_tasks, "StandbyTasks"),
            (&req.warmup_tasks, "WarmupTasks"),
        ] {
            if list.as_ref().is_none_or(|l| !l.is_empty()) {
                return Err(invalid(format!("{name} must be empty when (re-)joining.")));
            }
        }
        if req.topology_id.as_deref().is_none_or(is_blank) {
            return Err(invalid("TopologyId must be non-empty when joining."));
        }
        if req.process_id.is_none() {
            return Err(invalid("ProcessId must be provided in first request."));
        }
    }
    if epoch == -2 && is_blank(&req.member_id) {
        return Err(invalid("MemberId can't be empty."));
    }
    if epoch == -2 && req.instance_id.is_none() {
        return Err(invalid("InstanceId can't be null."));
    }
    if epoch < -2 {
        return Err(invalid("MemberEpoch is invalid."));
    }
    if let Some(tags) = &req.client_tags {
        let mut keys: Vec<&str> = tags.iter().map(|t| t.key.as_str()).collect();
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(invalid("ClientTags must not contain duplicate keys."));
        }
    }
    Ok(())
}

fn error_response(e: &ProtocolError) -> serde_json::Value {
    serde_json::to_value(HeartbeatResponse {
        error_code: e.code.code(),
        error_message: Some(e.message.clone()),
        ..Default::default()
    })
    .unwrap_or_default()
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
        if let Err(e) = validate(req) {
            out.response = Some(error_response(&e));
            return;
        }
        let result = if req.member_epoch == -1 || req.member_epoch == -2 {
            self.leave(now, req, out)
        } else {
            self.regular_heartbeat(now, raw_now, client, req, out)
        };
        if let Err(e) = result {
            out.response = Some(error_response(&e));
        }
    }

    /// PROTOCOL 3.7.
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
                format!("Group {gid} not found."),
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
            for e in left.active_epochs.values_mut() {
                *e = 0;
            }
            let mut batch = Batch::default();
            batch.push(current_record(gid, &left));
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
        out.response = Some(
            serde_json::to_value(HeartbeatResponse {
                member_id: Some(member_id.to_string()),
                member_epoch: req.member_epoch,
                ..Default::default()
            })
            .unwrap_or_default(),
        );
        Ok(())
    }

    fn request_shutdown(&mut self, group_id: &str, member_id: &str) {
        if let Some(g) = self.groups.get_mut(group_id) {
            if g.soft.shutdown_requester.is_none() && !g.members.is_empty() {
                g.soft.shutdown_requester = Some(member_id.to_string());
            }
        }
    }

    /// PROTOCOL 3.6, R1-R15.
    fn regular_heartbeat(
        &mut self,
        now: i64,
        raw_now: i64,
        client: &ClientInfo,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let plan = self.plan_heartbeat(raw_now, client, req)?;
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

        // R13: ask this member to initialize the topology.
        let topology_id = plan.member.metadata.topology_id.clone();
        let mut should_initialize = false;
        let no_topology = self.groups.get(&gid).is_none_or(|g| g.topology.is_none());
        let init_key = TimerKey::new(TimerKind::TopologyInitialization, &gid, &topology_id);
        if no_topology && self.timers.get(&init_key).is_none() {
            should_initialize = true;
            let deadline = now.saturating_add(i64::from(plan.member.metadata.rebalance_timeout_ms));
            self.timers.schedule(
                init_key,
                deadline,
                TimerData::AskedMember(member_id.clone()),
            );
            out.explain.push(Explain::TopologyInitializationRequested {
                group_id: gid.clone(),
                member_id: member_id.clone(),
                topology_id: topology_id.clone(),
            });
        }

        let join = req.member_epoch == 0;
        let full = req.active_tasks.is_some()
            && req.standby_tasks.is_some()
            && req.warmup_tasks.is_some()
            && req.rebalance_timeout_ms != -1;
        let Some(group) = self.groups.get_mut(&gid) else {
            return Err(ProtocolError::new(
                ErrorCode::UnknownServerError,
                "Internal error: group vanished.",
            ));
        };
        group.soft.refresh_due = false;
        if req.shutdown_application && group.soft.shutdown_requester.is_none() {
            group.soft.shutdown_requester = Some(member_id.clone());
        }
        let statuses = statuses(group, &plan.member);
        let group_topology_id = group
            .topology
            .as_ref()
            .map_or(String::new(), |t| t.topology_id.clone());
        let endpoint_epoch = group.soft.endpoint_epoch;
        let last_endpoint_epoch = group
            .members
            .get(&member_id)
            .and_then(|m| m.soft.last_endpoint_epoch);
        let send_endpoints = join || last_endpoint_epoch != Some(endpoint_epoch);
        // The map is O(group); build it only when this member is to receive it.
        let endpoints = send_endpoints.then(|| endpoint_partitions(group));
        let Some(stored) = group.members.get_mut(&member_id) else {
            return Err(ProtocolError::new(
                ErrorCode::UnknownServerError,
                "Internal error: member vanished.",
            ));
        };
        if req.task_offsets.is_some() {
            stored.soft.task_offsets = req.task_offsets.as_ref().map(|l| offsets(l));
        }
        if req.task_end_offsets.is_some() {
            stored.soft.task_end_offsets = req.task_end_offsets.as_ref().map(|l| offsets(l));
        }
        let send_status = join || stored.soft.last_status.as_ref() != Some(&statuses);
        let send_topology_id =
            join || stored.soft.last_topology_id.as_ref() != Some(&group_topology_id);
        stored.soft.last_status = Some(statuses.clone());
        stored.soft.last_topology_id = Some(group_topology_id.clone());
        stored.soft.last_endpoint_epoch = Some(endpoint_epoch);

        let send_tasks = join || full || plan.assigned_before.as_ref() != Some(&stored.assigned);
        let (active, standby, warmup) = stored.assigned.to_task_ids();
        let tasks = |l: Vec<crate::records::TaskIds>| -> Option<Vec<TaskIdsJson>> {
            send_tasks.then(|| task_ids_json(&l))
        };
        let response = HeartbeatResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: Some(member_id.clone()),
            member_epoch: stored.member_epoch,
            heartbeat_interval_ms: self.config.heartbeat_interval_ms,
            acceptable_recovery_lag: self.config.acceptable_recovery_lag,
            task_offset_interval_ms: self.config.task_offset_interval_ms,
            should_initialize_topology: should_initialize,
            group_topology_id: send_topology_id.then_some(group_topology_id),
            status: send_status.then(|| {
                statuses
                    .iter()
                    .map(|s| StatusJson {
                        status_code: s.code,
                        status_detail: s.detail.clone(),
                    })
                    .collect()
            }),
            active_tasks: tasks(active),
            standby_tasks: tasks(standby),
            warmup_tasks: tasks(warmup),
            partitions_by_user_endpoint: endpoints,
        };
        out.response = Some(serde_json::to_value(response).unwrap_or_default());
        Ok(())
    }

    /// R1-R10: decides every record of a regular heartbeat without changing state.
    fn plan_heartbeat(
        &self,
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
        // R3
        let member_id = if join && req.member_id.is_empty() {
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
        let found: Member = match &req.instance_id {
            None => match group.members.get(&member_id) {
                Some(m) => m.clone(),
                None if join => Member::new(&member_id),
                None => return Err(unknown_member(gid, &member_id)),
            },
            Some(instance) => match (join, group.static_index.get(instance)) {
                (true, None) => group
                    .members
                    .get(&member_id)
                    .cloned()
                    .unwrap_or_else(|| Member::new(&member_id)),
                (true, Some(h)) if *h == member_id => group
                    .members
                    .get(h)
                    .cloned()
                    .unwrap_or_else(|| Member::new(&member_id)),
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
                    batch.push(current_record(gid, &copy));
                    batch.explain.push(Explain::StaticMemberReplaced {
                        group_id: gid.to_string(),
                        instance_id: instance.clone(),
                        old_member_id: h.clone(),
                        new_member_id: member_id.clone(),
                    });
                    copy
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
                    .cloned()
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
        let mut member = found.clone();
        merge(&mut member.metadata, client, req);
        let mut reasons: Vec<&'static str> = Vec::new();
        if is_new || member.metadata != found.metadata {
            batch.push(member_record(gid, &member));
        }
        let is_static = req.instance_id.is_some() || found.metadata.instance_id.is_some();
        if is_new {
            reasons.push("MEMBER_JOINED");
        } else if is_static {
            let (a, b) = (&member.metadata, &found.metadata);
            if a.topology_id != b.topology_id
                || a.rack_id != b.rack_id
                || a.client_tags != b.client_tags
                || a.process_id != b.process_id
            {
                reasons.push("MEMBER_METADATA_CHANGED");
            }
        } else if member.metadata != found.metadata {
            reasons.push("MEMBER_METADATA_CHANGED");
        }
        // R8
        let mut new_configuration = None;
        if group.soft.refresh_due || !reasons.is_empty() {
            let pm = self
                .partition_metadata(group.topology.as_ref().map(|t| t.subtopologies.as_slice()));
            if pm != group.partition_metadata {
                new_configuration = group
                    .topology
                    .as_ref()
                    .map(|t| topology::configure(&t.subtopologies, &crate::group::view_of(&pm)));
                batch.push(crate::records::Record::new(
                    crate::records::RecordKey::PartitionMetadata {
                        group_id: gid.to_string(),
                    },
                    crate::records::RecordValue::PartitionMetadata(pm),
                ));
                reasons.push("TOPIC_METADATA_CHANGED");
            }
        }
        let configured = new_configuration.as_ref().or(group.configured.as_ref());
        let mut group_epoch = group.group_epoch;
        if !reasons.is_empty() {
            group_epoch = group.group_epoch.saturating_add(1);
            batch.push(group_metadata_record(group, group_epoch));
            batch.explain.push(Explain::GroupEpochBumped {
                group_id: gid.to_string(),
                from: group.group_epoch,
                to: group_epoch,
                reasons,
            });
        }
        // R9
        let mut previous: Cow<'_, BTreeMap<String, Assignment>> = Cow::Borrowed(&group.targets);
        if let Some(h) = replaced {
            let targets = previous.to_mut();
            let t = targets.remove(&h.member_id).unwrap_or_default();
            targets.insert(member_id.clone(), t);
        }
        let (target, assignment_epoch) = if group_epoch > group.assignment_epoch {
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
        let reconciled = reconcile(
            &member,
            assignment_epoch,
            &target,
            owned.as_ref(),
            &group.owners,
        )?;
        let current_written = is_new || !same_assignment(&reconciled, &found);
        if current_written {
            batch.push(current_record(gid, &reconciled));
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
                None => Some(found.assigned),
            },
            replaced: replaced.map(|h| h.member_id.clone()),
            topics_to_create,
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

/// R7: applies the request to the member's persisted metadata.
fn merge(md: &mut MemberMetadataValue, client: &ClientInfo, req: &HeartbeatRequest) {
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

/// PROTOCOL 3.10: the statuses of `member`, in code order.
pub(crate) fn statuses(group: &Group, member: &Member) -> Vec<Status> {
    let g = &group.group_id;
    let mut out = Vec::new();
    match &group.topology {
        None => out.push(Status {
            code: 0,
            detail: format!("The topology of streams group {g} is not initialized."),
        }),
        Some(t) => {
            if member.metadata.topology_id != t.topology_id {
                out.push(Status {
                    code: 1,
                    detail: format!(
                        "The topology id {} of member {} is inconsistent with the topology id {} of the group.",
                        member.metadata.topology_id, member.member_id, t.topology_id
                    ),
                });
            }
            match &group.configured {
                Some(Configuration::MissingSourceTopics(list)) => out.push(Status {
                    code: 2,
                    detail: format!("Missing source topics: {}", list.join(", ")),
                }),
                Some(Configuration::SourceTopicsIncorrectlyPartitioned(msg)) => out.push(Status {
                    code: 2,
                    detail: msg.clone(),
                }),
                Some(Configuration::MissingInternalTopics(topics)) => out.push(Status {
                    code: 3,
                    detail: format!(
                        "Internal topics are missing: [{}]",
                        topics
                            .iter()
                            .map(|t| t.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }),
                Some(Configuration::InternalTopicsIncorrectlyPartitioned(msg))
                | Some(Configuration::Invalid(msg)) => out.push(Status {
                    code: 3,
                    detail: msg.clone(),
                }),
                Some(Configuration::InternalTopicsMismatch(list)) => out.push(Status {
                    code: 3,
                    detail: mismatch_message(list),
                }),
                Some(Configuration::Ready(_)) | None => {}
            }
        }
    }
    if let Some(requester) = &group.soft.shutdown_requester {
        out.push(Status {
            code: 4,
            detail: format!(
                "Streams group member {requester} encountered a fatal error and requested a shutdown for the entire application."
            ),
        });
    }
    out
}

/// PROTOCOL 3.13 step 4's message for existing internal topics of the wrong size.
pub(crate) fn mismatch_message(list: &[(String, i32, i32)]) -> String {
    let parts: Vec<String> = list
        .iter()
        .map(|(t, n, k)| format!("{t} (expected {n}, found {k})"))
        .collect();
    format!(
        "Existing internal topics have a different number of partitions: {}",
        parts.join(", ")
    )
}

/// PROTOCOL 3.12: partitions of the active tasks per distinct endpoint.
pub(crate) fn endpoint_partitions(group: &Group) -> Vec<EndpointToPartitionsJson> {
    let inputs: BTreeMap<&str, &[(String, i32)]> = match &group.configured {
        Some(Configuration::Ready(subs)) => subs
            .iter()
            .map(|s| (s.subtopology_id.as_str(), s.input_topics.as_slice()))
            .collect(),
        _ => BTreeMap::new(),
    };
    let mut by_endpoint: BTreeMap<
        (String, u16),
        BTreeMap<String, std::collections::BTreeSet<i32>>,
    > = BTreeMap::new();
    for m in group.members.values() {
        let Some(ep) = m.endpoint() else { continue };
        let topics = by_endpoint.entry((ep.host.clone(), ep.port)).or_default();
        for (sub, parts) in &m.assigned.active {
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
    by_endpoint
        .into_iter()
        .map(|((host, port), topics)| EndpointToPartitionsJson {
            user_endpoint: EndpointJson { host, port },
            partitions: topics
                .into_iter()
                .map(|(topic, ps)| TopicPartitionJson {
                    topic,
                    partitions: ps.into_iter().collect(),
                })
                .collect(),
        })
        .collect()
}

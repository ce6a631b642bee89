//! The `kip1071-draft` dialect (PROTOCOL 3): request validation (3.5), generated member ids,
//! the topic view over the draft's partition metadata (2.12), the topology initialization
//! request (3.8), statuses, the endpoint map and the response shapes (3.4, 3.9-3.12).

use super::{Committed, DialectRules, TopicView};
use crate::api::{
    task_ids_json, DescribeRequest, DescribeResponse, Explain, HeartbeatRequest, HeartbeatResponse,
    Output, Response, TaskIdsJson,
};
use crate::coordinator::views::{describe, endpoints, statuses};
use crate::coordinator::Coordinator;
use crate::error::{bug, BoundaryError, ProtocolError};
use crate::group::{Group, GroupState};
use crate::java::is_blank;
use crate::ordered;
use crate::records::build;
use crate::records::TopologyValue;
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topics;
use crate::topology::{self, Configuration};

fn invalid(message: impl Into<String>) -> ProtocolError {
    ProtocolError::invalid_request(message)
}

/// The draft dialect.
#[derive(Debug)]
pub(crate) struct Draft;

impl DialectRules for Draft {
    fn precheck_heartbeat(&self, _req: &HeartbeatRequest) -> Result<(), BoundaryError> {
        Ok(())
    }

    fn validate(&self, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
        validate(req)
    }

    fn error_response(&self, e: &ProtocolError) -> Response {
        error_response(e)
    }

    fn leave_response(&self, member_id: &str, member_epoch: i32) -> Response {
        leave_response(member_id, member_epoch)
    }

    fn leave_group_not_found(&self, group_id: &str) -> String {
        format!("Group {group_id} not found.")
    }

    fn generates_member_ids(&self) -> bool {
        true
    }

    fn join_carries_topology(&self) -> bool {
        false
    }

    fn topology_step(
        &self,
        _c: &Coordinator,
        _group: &Group,
        _req: &HeartbeatRequest,
    ) -> Result<Option<TopologyValue>, ProtocolError> {
        Ok(None)
    }

    /// R8: the partition metadata of the group's required topics, recomputed when the group is
    /// refresh-due or bumps anyway; a change writes the record and bumps.
    fn topic_view(
        &self,
        c: &Coordinator,
        group: &Group,
        _topology: Option<&TopologyValue>,
        _topology_initialized: bool,
        bumps: bool,
    ) -> Result<TopicView, ProtocolError> {
        let mut view = TopicView {
            fields: group.metadata_fields(),
            ..Default::default()
        };
        let stored = group.draft().map(|d| &d.partition_metadata);
        if group.soft.refresh_due || bumps {
            let pm = topics::partition_metadata(
                &c.topics,
                group.topology.as_ref().map(|t| t.subtopologies.as_slice()),
                &group.soft.patterns,
            );
            if stored != Some(&pm) {
                view.refreshed = group.topology.as_ref().map(|t| {
                    c.limits().bound(topology::configure_with(
                        &t.subtopologies,
                        &group.soft.patterns,
                        &crate::group::view_of(&pm),
                    ))
                });
                view.records
                    .push(build::partition_metadata(&group.group_id, pm));
                view.reasons.push("TOPIC_METADATA_CHANGED");
            }
        }
        Ok(view)
    }

    fn keep_configuration(
        &self,
        _group: &mut Group,
        _configured: Configuration,
        _provisional: bool,
    ) {
    }

    fn keeps_configuration(&self) -> bool {
        false
    }

    fn configured<'a>(&self, group: &'a Group) -> Option<&'a Configuration> {
        group.configured()
    }

    fn next_group_epoch(&self, epoch: i32) -> i32 {
        epoch.saturating_add(1)
    }

    fn writes_assignment_epochs(&self) -> bool {
        false
    }

    fn has_initial_rebalance_delay(&self) -> bool {
        false
    }

    fn has_partition_metadata(&self) -> bool {
        true
    }

    fn group_state(&self, group: &Group) -> GroupState {
        group.state()
    }

    fn respond(&self, c: &mut Coordinator, done: Committed<'_>, out: &mut Output) -> Response {
        respond(c, done, out)
    }

    fn describe(&self, c: &Coordinator, req: &DescribeRequest) -> Response {
        Response::Describe(DescribeResponse {
            throttle_time_ms: 0,
            groups: describe::entries(
                &c.groups,
                &c.offsets,
                &req.group_ids,
                crate::java::is_blank,
                describe::draft_group,
                describe::draft_error,
            ),
        })
    }

    fn supports_initialize(&self) -> bool {
        true
    }
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
        ordered::sort(&mut keys);
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(invalid("ClientTags must not contain duplicate keys."));
        }
    }
    Ok(())
}

/// The draft response of a failed heartbeat (PROTOCOL 3.4, error column).
fn error_response(e: &ProtocolError) -> Response {
    Response::Heartbeat(Box::new(HeartbeatResponse {
        error_code: e.code.code(),
        error_message: Some(e.message.clone()),
        ..Default::default()
    }))
}

/// The draft response of a successful leave (PROTOCOL 3.4, leave column).
fn leave_response(member_id: &str, member_epoch: i32) -> Response {
    Response::Heartbeat(Box::new(HeartbeatResponse {
        member_id: Some(member_id.to_string()),
        member_epoch,
        ..Default::default()
    }))
}

/// R13 and R14 of a committed draft heartbeat: the initialization request (3.8), the last-sent
/// values and the response (3.4, 3.9, 3.10, 3.12).
fn respond(c: &mut Coordinator, done: Committed<'_>, out: &mut Output) -> Response {
    let Committed {
        now,
        group_id: gid,
        member_id,
        tasks_changed,
        request: req,
        ..
    } = done;
    {
        // The committed heartbeat left its group and member in place.
        let Some(group) = c.groups.get(gid) else {
            bug("the group of a committed heartbeat is gone");
        };
        let Some(member) = group.members.get(member_id) else {
            bug("the member of a committed heartbeat is gone");
        };
        // R13: ask this member to initialize the topology.
        let mut should_initialize = false;
        let topology_id = member.metadata.topology_id.as_str();
        let init_key = group
            .topology
            .is_none()
            .then(|| TimerKey::new(TimerKind::TopologyInitialization, gid, topology_id))
            .filter(|key| c.timers.get(key).is_none());
        if let Some(init_key) = init_key {
            should_initialize = true;
            let topology_id = topology_id.to_string();
            let deadline = now.saturating_add(i64::from(member.metadata.rebalance_timeout_ms));
            c.timers.schedule(
                init_key,
                deadline,
                TimerData::AskedMember(member_id.to_string()),
            );
            out.explain.push(Explain::TopologyInitializationRequested {
                group_id: gid.to_string(),
                member_id: member_id.to_string(),
                topology_id: topology_id.clone(),
            });
        }

        let join = req.member_epoch == 0;
        let full = req.active_tasks.is_some()
            && req.standby_tasks.is_some()
            && req.warmup_tasks.is_some()
            && req.rebalance_timeout_ms != -1;
        // What the response reads comes from the member found above (scheduling the timer
        // changed neither group nor member).
        let statuses = statuses::draft(group, member);
        let group_topology_id = group
            .topology
            .as_ref()
            .map_or("", |t| t.topology_id.as_str());
        let endpoint_epoch = group.soft.endpoint_epoch;
        let send_endpoints = join || member.soft.last_endpoint_epoch != Some(endpoint_epoch);
        // The map is O(group); build it only when this member is to receive it.
        let endpoints = send_endpoints.then(|| endpoints::draft(group));
        let send_status = join || member.soft.last_status.as_ref() != Some(&statuses);
        let send_topology_id =
            join || member.soft.last_topology_id.as_deref() != Some(group_topology_id);
        // Copied only when sent (a steady heartbeat copies nothing).
        let group_topology_id = send_topology_id.then(|| group_topology_id.to_string());
        let member_epoch = member.member_epoch;
        let send_tasks = join || full || tasks_changed;
        let (active, standby, warmup) = if send_tasks {
            member.assigned.to_task_ids()
        } else {
            Default::default()
        };
        // Last-sent values change rarely: the member is looked up again, to change, only when
        // one of them does.
        if send_status || send_topology_id || send_endpoints {
            let Some(stored) = c
                .groups
                .get_mut(gid)
                .and_then(|g| g.members.get_mut(member_id))
            else {
                bug("the member of a committed heartbeat is gone");
            };
            if send_status {
                stored.soft.last_status = Some(statuses.clone());
            }
            if send_topology_id {
                stored.soft.last_topology_id.clone_from(&group_topology_id);
            }
            stored.soft.last_endpoint_epoch = Some(endpoint_epoch);
        }
        let tasks = |l: Vec<crate::records::TaskIds>| -> Option<Vec<TaskIdsJson>> {
            send_tasks.then(|| task_ids_json(&l))
        };
        let heartbeat_interval_ms = c.heartbeat_interval_ms(gid);
        let acceptable_recovery_lag = c.acceptable_recovery_lag(gid);
        let task_offset_interval_ms = c.task_offset_interval_ms(gid);
        let response = c.recycled.draft(member_id, |member_id| HeartbeatResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: Some(member_id),
            member_epoch,
            heartbeat_interval_ms,
            acceptable_recovery_lag,
            task_offset_interval_ms,
            should_initialize_topology: should_initialize,
            group_topology_id,
            status: send_status.then(|| statuses::status_json(&statuses)),
            active_tasks: tasks(active),
            standby_tasks: tasks(standby),
            warmup_tasks: tasks(warmup),
            partitions_by_user_endpoint: endpoints,
        });
        Response::Heartbeat(response)
    }
}

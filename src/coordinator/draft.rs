//! The edges of the `kip1071-draft` dialect around the shared heartbeat (PROTOCOL 3.5, 3.8-3.12):
//! request validation, the topology initialization request, statuses, the endpoint map and the
//! response shape.

use std::collections::{BTreeMap, BTreeSet};

use super::heartbeat::{invalid, is_blank, subtopology_inputs, task_partitions};
use super::Coordinator;
use crate::api::{
    task_ids_json, EndpointJson, EndpointToPartitionsJson, Explain, HeartbeatRequest,
    HeartbeatResponse, Output, Response, StatusJson, TaskIdsJson, TopicPartitionJson,
};
use crate::error::bug;
use crate::error::ProtocolError;
use crate::group::{Group, Member, Status};
use crate::tasks::Assignment;
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::Configuration;

/// Request validation, PROTOCOL 3.5, in order.
pub(super) fn validate(req: &HeartbeatRequest) -> Result<(), ProtocolError> {
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

/// The draft response of a failed heartbeat (PROTOCOL 3.4, error column).
pub(super) fn error_response(e: &ProtocolError) -> Response {
    Response::Heartbeat(Box::new(HeartbeatResponse {
        error_code: e.code.code(),
        error_message: Some(e.message.clone()),
        ..Default::default()
    }))
}

/// The draft response of a successful leave (PROTOCOL 3.4, leave column).
pub(super) fn leave_response(member_id: &str, member_epoch: i32) -> Response {
    Response::Heartbeat(Box::new(HeartbeatResponse {
        member_id: Some(member_id.to_string()),
        member_epoch,
        ..Default::default()
    }))
}

impl Coordinator {
    /// R13 and R14 of a committed draft heartbeat: the initialization request (3.8), the
    /// last-sent values and the response (3.4, 3.9, 3.10, 3.12).
    pub(super) fn finish_draft_heartbeat(
        &mut self,
        now: i64,
        gid: &str,
        member: &Member,
        assigned_before: Option<&Assignment>,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) -> Response {
        let member_id = member.member_id.as_str();
        // R13: ask this member to initialize the topology.
        let topology_id = member.metadata.topology_id.clone();
        let mut should_initialize = false;
        let no_topology = self.groups.get(gid).is_none_or(|g| g.topology.is_none());
        let init_key = TimerKey::new(TimerKind::TopologyInitialization, gid, &topology_id);
        if no_topology && self.timers.get(&init_key).is_none() {
            should_initialize = true;
            let deadline = now.saturating_add(i64::from(member.metadata.rebalance_timeout_ms));
            self.timers.schedule(
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
        let Some(group) = self.groups.get_mut(gid) else {
            bug("the group of a committed heartbeat is gone");
        };
        let statuses = statuses(group, member);
        let group_topology_id = group
            .topology
            .as_ref()
            .map_or(String::new(), |t| t.topology_id.clone());
        let endpoint_epoch = group.soft.endpoint_epoch;
        let last_endpoint_epoch = group
            .members
            .get(member_id)
            .and_then(|m| m.soft.last_endpoint_epoch);
        let send_endpoints = join || last_endpoint_epoch != Some(endpoint_epoch);
        // The map is O(group); build it only when this member is to receive it.
        let endpoints = send_endpoints.then(|| endpoint_partitions(group));
        let Some(stored) = group.members.get_mut(member_id) else {
            bug("the member of a committed heartbeat is gone");
        };
        let send_status = join || stored.soft.last_status.as_ref() != Some(&statuses);
        let send_topology_id =
            join || stored.soft.last_topology_id.as_ref() != Some(&group_topology_id);
        // Last-sent values change rarely: copy them only when they do.
        if send_status {
            stored.soft.last_status = Some(statuses.clone());
        }
        if send_topology_id {
            stored.soft.last_topology_id = Some(group_topology_id.clone());
        }
        stored.soft.last_endpoint_epoch = Some(endpoint_epoch);

        let send_tasks = join || full || assigned_before != Some(&stored.assigned);
        let (active, standby, warmup) = if send_tasks {
            stored.assigned.to_task_ids()
        } else {
            Default::default()
        };
        let tasks = |l: Vec<crate::records::TaskIds>| -> Option<Vec<TaskIdsJson>> {
            send_tasks.then(|| task_ids_json(&l))
        };
        let response = HeartbeatResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: Some(member_id.to_string()),
            member_epoch: stored.member_epoch,
            heartbeat_interval_ms: self.config.heartbeat_interval_ms,
            acceptable_recovery_lag: self.config.acceptable_recovery_lag,
            task_offset_interval_ms: self.config.task_offset_interval_ms,
            should_initialize_topology: should_initialize,
            group_topology_id: send_topology_id.then_some(group_topology_id),
            status: send_status.then(|| status_json(&statuses)),
            active_tasks: tasks(active),
            standby_tasks: tasks(standby),
            warmup_tasks: tasks(warmup),
            partitions_by_user_endpoint: endpoints,
        };
        Response::Heartbeat(Box::new(response))
    }
}

/// Statuses in their wire form.
pub(super) fn status_json(statuses: &[Status]) -> Vec<StatusJson> {
    statuses
        .iter()
        .map(|s| StatusJson {
            status_code: s.code,
            status_detail: s.detail.clone(),
        })
        .collect()
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
            detail: shutdown_detail(requester),
        });
    }
    out
}

/// PROTOCOL 2.14's status detail.
pub(super) fn shutdown_detail(requester: &str) -> String {
    format!(
        "Streams group member {requester} encountered a fatal error and requested a shutdown for the entire application."
    )
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
    let inputs = subtopology_inputs(group.configured.as_ref());
    let mut by_endpoint: BTreeMap<(String, u16), BTreeMap<String, BTreeSet<i32>>> = BTreeMap::new();
    for m in group.members.values() {
        let Some(ep) = m.endpoint() else { continue };
        let topics = by_endpoint.entry((ep.host.clone(), ep.port)).or_default();
        task_partitions(&inputs, &m.assigned.active, topics);
    }
    by_endpoint
        .into_iter()
        .map(|((host, port), topics)| EndpointToPartitionsJson {
            user_endpoint: EndpointJson { host, port },
            partitions: topic_partitions_json(topics),
        })
        .collect()
}

/// `[TopicPartition]` sorted by topic, partitions ascending.
pub(super) fn topic_partitions_json(
    topics: BTreeMap<String, BTreeSet<i32>>,
) -> Vec<TopicPartitionJson> {
    topics
        .into_iter()
        .map(|(topic, ps)| TopicPartitionJson {
            topic,
            partitions: ps.into_iter().collect(),
        })
        .collect()
}

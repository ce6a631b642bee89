//! Describe, topic metadata, deletion, replay and manual targets (PROTOCOL 2.9-2.12, 3.14,
//! 5.4).

use std::collections::{BTreeMap, BTreeSet};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};

use super::fence::{bump, next_group_epoch};
use super::heartbeat::is_blank;
use super::kafka42;
use super::{assignment::target_record, Batch, Coordinator, TopicImage};
use crate::api::{
    AssignmentJson, DeleteGroupsResponse, DeletedGroup, DescribeRequest, DescribeResponse,
    DescribeResponse42, DescribedGroup, DescribedMember, DescribedSubtopology, Explain, InputKind,
    KeyValueJson, Output, Response, SetTargetAssignmentResponse, TaskOffsetJson, TopicSpec,
};
use crate::assignor::{validate_manual, ManualTarget, SubtopologySpec};
use crate::config::AssignorKind;
use crate::error::{BoundaryCode, BoundaryError, ErrorCode, ProtocolError};
use crate::group::{self, Group, MemberState};
use crate::records::{record_from_json, Dialect, Record, Uuid};
use crate::tasks::Assignment;
use crate::timers::{TimerData, TimerKind};
use crate::topology::{self, Configuration};

impl Coordinator {
    /// Boundary checks that must happen before any timer fires.
    pub(super) fn precheck(&self, input: &crate::api::Input) -> Result<(), BoundaryError> {
        match &input.kind {
            InputKind::TopicMetadata {
                topics,
                deleted_topics,
            } => {
                let deleted: BTreeSet<&str> = deleted_topics.iter().map(String::as_str).collect();
                for (i, t) in topics.iter().enumerate() {
                    if deleted.contains(t.name.as_str()) {
                        return Err(BoundaryError::input(
                            format!("topics[{i}].name"),
                            format!("topic {:?} is both in topics and in deletedTopics", t.name),
                        ));
                    }
                    topic_image(t, &format!("topics[{i}]"))?;
                }
                Ok(())
            }
            InputKind::StreamsGroupHeartbeat { request, .. }
                if self.config.dialect == Dialect::Kafka42 =>
            {
                // The 4.2 schema has no `TopologyId` and requires `EndpointInformationEpoch`
                // (PROTOCOL 1.3, 4.2).
                if request.topology_id.is_some() {
                    return Err(BoundaryError::input(
                        "request.topologyId",
                        "unknown field `topologyId` in the kafka-4.2 dialect (a join carries `topology`)",
                    ));
                }
                if request.endpoint_information_epoch.is_none() {
                    return Err(BoundaryError::input(
                        "request.endpointInformationEpoch",
                        "missing field `endpointInformationEpoch`",
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Decodes a Replay input's records, each with its index in the input (records the dialect
    /// skips, PROTOCOL 5.4, are left out).
    pub(super) fn decode_records(
        &self,
        records: &[Value],
    ) -> Result<Vec<(usize, Record)>, BoundaryError> {
        let mut out = Vec::with_capacity(records.len());
        for (i, v) in records.iter().enumerate() {
            if let Some(r) = record_from_json(self.config.dialect, v, &format!("records[{i}]"))? {
                out.push((i, r));
            }
        }
        Ok(out)
    }

    /// Applies records atomically and then their soft effects (PROTOCOL 5.4).
    pub(super) fn replay_records<'r>(
        &mut self,
        now: i64,
        records: impl Iterator<Item = (usize, &'r Record)> + Clone,
    ) -> Result<(), BoundaryError> {
        let touched: BTreeSet<String> = records
            .clone()
            .map(|(_, r)| r.key.group_id().to_string())
            .collect();
        let mut work: BTreeMap<String, Group> = touched
            .iter()
            .filter_map(|g| self.groups.get(g).map(|x| (g.clone(), x.clone())))
            .collect();
        let mut touched_members: BTreeSet<(String, String)> = BTreeSet::new();
        let mut added_member: BTreeSet<String> = BTreeSet::new();
        let limits = self.limits();
        for (i, r) in records {
            let effect = group::apply(&mut work, r, &limits).map_err(|e| {
                BoundaryError::new(BoundaryCode::InvalidRecord, format!("records[{i}]"), e)
            })?;
            if let Some(m) = r.key.member_id() {
                touched_members.insert((r.key.group_id().to_string(), m.to_string()));
            }
            if effect.member_added {
                added_member.insert(r.key.group_id().to_string());
            }
        }
        for g in &touched {
            match work.remove(g) {
                Some(group) => {
                    self.groups.insert(g.clone(), group);
                }
                None => {
                    self.groups.remove(g);
                    self.timers.cancel_group(g, None);
                }
            }
        }
        let session = i64::from(self.config.session_timeout_ms);
        let retention = self.config.retention_ms();
        for g in &touched {
            let Some(group) = self.groups.get_mut(g) else {
                continue;
            };
            group.soft.refresh_due = true;
            if added_member.contains(g) {
                self.timers
                    .cancel(&crate::timers::TimerKey::new(TimerKind::Retention, g, ""));
            }
            if group.members.is_empty() {
                group.soft.shutdown_requester = None;
                self.timers.schedule(
                    crate::timers::TimerKey::new(TimerKind::Retention, g, ""),
                    now.saturating_add(retention),
                    TimerData::None,
                );
            }
        }
        for (g, m) in &touched_members {
            let member = self
                .groups
                .get(g)
                .and_then(|grp| grp.members.get(m))
                .cloned();
            match member {
                Some(member) => {
                    self.schedule(
                        TimerKind::SessionTimeout,
                        g,
                        m,
                        now.saturating_add(session),
                        TimerData::None,
                    );
                    if member.member_state() == MemberState::UnrevokedTasks
                        && member.member_epoch != -2
                    {
                        self.schedule(
                            TimerKind::RebalanceTimeout,
                            g,
                            m,
                            now.saturating_add(i64::from(member.metadata.rebalance_timeout_ms)),
                            TimerData::MemberEpoch(member.member_epoch),
                        );
                    } else {
                        self.cancel(TimerKind::RebalanceTimeout, g, m);
                    }
                }
                None => self.cancel_member_timers(g, m),
            }
        }
        Ok(())
    }

    /// Upserts and removes topics; groups that use a changed topic become refresh-due (2.12).
    pub(super) fn topic_metadata(
        &mut self,
        topics: &[TopicSpec],
        deleted: &[String],
    ) -> Result<(), BoundaryError> {
        let mut changed: BTreeSet<String> = BTreeSet::new();
        for (i, t) in topics.iter().enumerate() {
            let image = topic_image(t, &format!("topics[{i}]"))?;
            if self.topics.get(&t.name) != Some(&image) {
                changed.insert(t.name.clone());
                self.topics.insert(t.name.clone(), image);
            }
        }
        for name in deleted {
            if self.topics.remove(name).is_some() {
                changed.insert(name.clone());
            }
        }
        if changed.is_empty() {
            return Ok(());
        }
        let topics = &self.topics;
        for group in self.groups.values_mut() {
            let Some(t) = &group.topology else { continue };
            // Matches of deleted topics are forgotten, so that memory follows the image.
            group
                .soft
                .patterns
                .retain_topics(|name| topics.contains_key(name));
            if changed
                .iter()
                .any(|c| topology::concerns_topic_with(&t.subtopologies, &group.soft.patterns, c))
            {
                group.soft.refresh_due = true;
            }
        }
        Ok(())
    }

    pub(super) fn describe(&self, req: &DescribeRequest) -> Response {
        if self.config.dialect == Dialect::Kafka42 {
            return self.describe_kafka42(req);
        }
        let groups = req
            .group_ids
            .iter()
            .map(|gid| {
                if is_blank(gid) {
                    return DescribedGroup {
                        error_code: ErrorCode::InvalidGroupId.code(),
                        error_message: Some("The group id can't be empty.".into()),
                        group_id: gid.clone(),
                        authorized_operations: i32::MIN,
                        ..Default::default()
                    };
                }
                match self.groups.get(gid) {
                    None => DescribedGroup {
                        error_code: ErrorCode::GroupIdNotFound.code(),
                        error_message: Some(format!("Group {gid} not found.")),
                        group_id: gid.clone(),
                        authorized_operations: i32::MIN,
                        ..Default::default()
                    },
                    Some(g) => describe_group(g),
                }
            })
            .collect();
        Response::Describe(DescribeResponse {
            throttle_time_ms: 0,
            groups,
        })
    }

    /// PROTOCOL 4.10.
    fn describe_kafka42(&self, req: &DescribeRequest) -> Response {
        let groups = req
            .group_ids
            .iter()
            .map(|gid| {
                if is_blank(gid) {
                    return kafka42::describe_error(
                        gid,
                        ErrorCode::InvalidGroupId,
                        "The group id can't be empty.".into(),
                    );
                }
                match self.groups.get(gid) {
                    None => kafka42::describe_error(
                        gid,
                        ErrorCode::GroupIdNotFound,
                        format!("Group {gid} not found."),
                    ),
                    Some(g) => kafka42::describe_group(g),
                }
            })
            .collect();
        Response::Describe42(DescribeResponse42 {
            throttle_time_ms: 0,
            groups,
        })
    }

    /// The group's configured topology: the draft's derived one, or 4.2's as the last refresh
    /// left it (PROTOCOL 2.1).
    pub(super) fn configured_of<'a>(&self, group: &'a Group) -> Option<&'a Configuration> {
        match self.config.dialect {
            Dialect::Kip1071Draft => group.configured.as_ref(),
            Dialect::Kafka42 => group.soft.configured.as_ref(),
        }
    }

    /// Deletes memberless groups, each its own atomic batch (2.9).
    pub(super) fn delete_groups(&mut self, _now: i64, group_ids: &[String], out: &mut Output) {
        let mut results = Vec::new();
        for gid in group_ids {
            let code = if is_blank(gid) {
                ErrorCode::InvalidGroupId
            } else {
                match self.groups.get(gid) {
                    None => ErrorCode::GroupIdNotFound,
                    Some(g) if !g.members.is_empty() => ErrorCode::NonEmptyGroup,
                    Some(g) => {
                        let batch = self.deletion_batch(g, "DELETE_GROUPS");
                        match self.commit_group(gid, batch, out) {
                            Ok(()) => {
                                self.timers.cancel_group(gid, None);
                                ErrorCode::None
                            }
                            Err(e) => e.code,
                        }
                    }
                }
            };
            results.push(DeletedGroup {
                group_id: gid.clone(),
                error_code: code.code(),
            });
        }
        out.response = Some(Response::DeleteGroups(DeleteGroupsResponse { results }));
    }

    /// The manual assignor's input (2.10).
    pub(super) fn set_target_assignment(
        &mut self,
        _now: i64,
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
            .collect();
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
        let epoch = next_group_epoch(self.config.dialect, group.group_epoch);
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
                batch.push(target_record(group_id, member_id, &target));
            }
            new_targets.insert(member_id.clone(), target);
        }
        moved += crate::assignor::tasks_moved(&group.targets, &new_targets);
        let reassigned =
            crate::assignor::tasks_reassigned(&group.orphaned, &group.targets, &new_targets);
        batch.push(Record::new(
            crate::records::RecordKey::TargetAssignmentMetadata {
                group_id: group_id.to_string(),
            },
            crate::records::RecordValue::TargetAssignmentMetadata(
                crate::records::TargetAssignmentMetadataValue {
                    assignment_epoch: epoch,
                },
            ),
        ));
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

/// A `TopicMetadata` topic as the image stores it.
fn topic_image(t: &TopicSpec, path: &str) -> Result<TopicImage, BoundaryError> {
    if t.partitions < 1 {
        return Err(BoundaryError::input(
            format!("{path}.partitions"),
            "must be at least 1",
        ));
    }
    let topic_id = match &t.topic_id {
        None => Uuid::default(),
        Some(text) => {
            let bytes = URL_SAFE_NO_PAD
                .decode(text)
                .ok()
                .filter(|b| b.len() == 16)
                .ok_or_else(|| {
                    BoundaryError::input(
                        format!("{path}.topicId"),
                        "must be a 22-character URL-safe base64 UUID",
                    )
                })?;
            let mut id = [0u8; 16];
            id.copy_from_slice(&bytes);
            Uuid(id)
        }
    };
    let racks = match &t.racks {
        None => Vec::new(),
        Some(r) => {
            if r.len() > t.partitions as usize {
                return Err(BoundaryError::input(
                    format!("{path}.racks"),
                    "lists more partitions than the topic has",
                ));
            }
            r.iter()
                .map(|racks| {
                    let set: BTreeSet<String> = racks.iter().cloned().collect();
                    set.into_iter().collect()
                })
                .collect()
        }
    };
    Ok(TopicImage::new(t.partitions, topic_id, racks))
}

fn describe_group(g: &Group) -> DescribedGroup {
    let topology = g.topology.as_ref().map(|t| {
        t.subtopologies
            .iter()
            .map(|s| DescribedSubtopology {
                subtopology_id: s.subtopology_id.clone(),
                source_topics: s.source_topics.clone(),
                repartition_sink_topics: s.repartition_sink_topics.clone(),
                source_topic_regex: s.source_topic_regex.clone(),
                state_changelog_topics: s.state_changelog_topics.clone(),
                repartition_source_topics: s.repartition_source_topics.clone(),
            })
            .collect()
    });
    let members = g
        .members
        .values()
        .map(|m| DescribedMember {
            member_id: m.member_id.clone(),
            member_epoch: m.member_epoch,
            instance_id: m.metadata.instance_id.clone(),
            rack_id: m.metadata.rack_id.clone(),
            client_id: m.metadata.client_id.clone(),
            client_host: m.metadata.client_host.clone(),
            topology_id: m.metadata.topology_id.clone(),
            process_id: m.metadata.process_id.clone(),
            client_tags: m
                .metadata
                .client_tags
                .iter()
                .map(KeyValueJson::from)
                .collect(),
            task_offsets: task_offsets_json(&m.soft.task_offsets),
            task_end_offsets: task_offsets_json(&m.soft.task_end_offsets),
            assignment: AssignmentJson::from(&m.assigned),
            target_assignment: g
                .targets
                .get(&m.member_id)
                .map(AssignmentJson::from)
                .unwrap_or_default(),
        })
        .collect();
    DescribedGroup {
        error_code: 0,
        error_message: None,
        group_id: g.group_id.clone(),
        group_state: g.state().display().to_string(),
        group_epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        topology,
        members,
        authorized_operations: i32::MIN,
    }
}

impl Coordinator {
    /// Every group as `StreamsGroupDescribe` describes it, with each member's reconciliation
    /// state, plus the pending timers and the topic image: what a view such as the playground
    /// draws.
    pub fn snapshot(&self) -> Value {
        let groups: Vec<Value> = self
            .groups
            .values()
            .map(|g| {
                let mut v = match self.config.dialect {
                    Dialect::Kip1071Draft => serde_json::to_value(describe_group(g)),
                    Dialect::Kafka42 => serde_json::to_value(kafka42::describe_group(g)),
                }
                .unwrap_or_default();
                if let Some(members) = v.get_mut("members").and_then(Value::as_array_mut) {
                    for m in members.iter_mut() {
                        let id = m["memberId"].as_str().unwrap_or_default().to_string();
                        let Some(member) = g.members.get(&id) else {
                            continue;
                        };
                        m["previousMemberEpoch"] = json!(member.previous_member_epoch);
                        m["memberState"] = json!(member.member_state().name());
                        m["pendingRevocation"] =
                            serde_json::to_value(AssignmentJson::from(&member.pending))
                                .unwrap_or_default();
                        m["userEndpoint"] = json!(member
                            .metadata
                            .user_endpoint
                            .as_ref()
                            .map(|e| json!({"host": e.host, "port": e.port})));
                    }
                }
                v["state"] = json!(self.group_state(g).code());
                if self.config.dialect == Dialect::Kip1071Draft {
                    v["topologyId"] = json!(g.topology.as_ref().map(|t| t.topology_id.clone()));
                }
                v["shutdownRequestedBy"] = json!(g.soft.shutdown_requester);
                v["configuration"] = configuration_json(self.configured_of(g));
                v
            })
            .collect();
        let timers: Vec<Value> = self
            .timers
            .iter()
            .map(|(k, t)| {
                json!({"kind": k.kind.name(), "groupId": k.group_id, "subject": k.subject, "deadlineMs": t.deadline})
            })
            .collect();
        let topics: Vec<Value> = self
            .topics
            .iter()
            .map(|(name, t)| json!({"name": name, "partitions": t.partitions}))
            .collect();
        json!({"nowMs": self.now_ms, "groups": groups, "timers": timers, "topics": topics})
    }
}

/// Last reported task offsets (soft) as describe shows them; `[]` when none were reported.
pub(crate) fn task_offsets_json(o: &Option<Vec<crate::group::TaskOffset>>) -> Vec<TaskOffsetJson> {
    o.iter()
        .flatten()
        .map(|t| TaskOffsetJson {
            subtopology_id: t.subtopology_id.clone(),
            partition: t.partition,
            offset: t.offset,
        })
        .collect()
}

/// Why a group has (or has no) tasks: the configuration result of PROTOCOL 2.11, for views.
fn configuration_json(configured: Option<&Configuration>) -> Value {
    let (status, detail): (&str, Value) = match configured {
        None => ("NO_TOPOLOGY", Value::Null),
        Some(Configuration::Ready(_)) => ("READY", Value::Null),
        Some(Configuration::MissingSourceTopics(list)) => ("MISSING_SOURCE_TOPICS", json!(list)),
        Some(Configuration::Invalid(m)) => ("INVALID", json!(m)),
        Some(Configuration::SourceTopicsIncorrectlyPartitioned(m)) => {
            ("SOURCE_TOPICS_INCORRECTLY_PARTITIONED", json!(m))
        }
        Some(Configuration::InternalTopicsIncorrectlyPartitioned(m)) => {
            ("INTERNAL_TOPICS_INCORRECTLY_PARTITIONED", json!(m))
        }
        Some(Configuration::InternalTopicsMismatch(list)) => (
            "INTERNAL_TOPICS_MISMATCH",
            json!(list
                .iter()
                .map(
                    |(t, expected, found)| json!({"name": t, "expected": expected, "found": found})
                )
                .collect::<Vec<_>>()),
        ),
        Some(Configuration::MissingInternalTopics(topics)) => (
            "MISSING_INTERNAL_TOPICS",
            json!(topics.iter().map(|t| t.name.clone()).collect::<Vec<_>>()),
        ),
    };
    let subtopologies: Vec<Value> = match configured {
        Some(Configuration::Ready(subs)) => subs
            .iter()
            .map(|s| json!({"subtopologyId": s.subtopology_id, "numTasks": s.num_tasks, "stateful": s.stateful}))
            .collect(),
        _ => Vec::new(),
    };
    json!({"status": status, "detail": detail, "subtopologies": subtopologies})
}

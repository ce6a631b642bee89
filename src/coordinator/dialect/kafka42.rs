//! The edges of the `kafka-4.2` dialect around the shared heartbeat (PROTOCOL 4): request
//! validation (4.3), the topology that arrives in the join (4.4 step 4), the topic view with its
//! metadata hash, readiness and assignment configs (4.4 steps 5-6, 4.5, 4.6), the initial
//! rebalance delay (4.7), statuses, the response and describe shapes (4.2, 4.9, 4.10).
//!
//! Decisions where the specification leaves room:
//! - The metadata hash uses hash4j's encoding, which Kafka 4.2 feeds to XXH3-64 ([`HashInput`]:
//!   little-endian integers, strings as UTF-16 code units followed by their length), so that it
//!   should match Kafka's values; it changes whenever a required topic's id, name, partition
//!   count or racks change.
//! - The configuration (and so the hash) is recomputed when the group gets its topology, has no
//!   configured topology in memory, or its metadata expired (Kafka's refresh deadline); the owned
//!   task lists are checked against every ready configuration, refreshed or not (Kafka checks
//!   them on every heartbeat with a ready topology).
//! - `ASSIGNMENT_DELAYED` reads `Assignment delayed due to the configured initial rebalance
//!   delay.`; an existing internal topic of the wrong size reads `Existing topic <t> has
//!   different number of partitions: expected <n>, found <k>` for the first one by name.
//! - A heartbeat request without `endpointInformationEpoch` (required by the schema) or with the
//!   draft's `topologyId` is a boundary error.
//! - Explain: a group's first bump says `MEMBER_JOINED` and `TOPOLOGY_INITIALIZED`; later topic
//!   view changes say `TOPIC_METADATA_CHANGED`, `TOPOLOGY_READINESS_CHANGED` (the validated
//!   topology epoch changed) and `ASSIGNMENT_CONFIG_CHANGED`; arming the delay says
//!   `ASSIGNMENT_DELAYED` with `untilMs`.

use super::release::Release;
use super::{Committed, DialectRules, MemberChange, ResponseFailure, TopicView};
use crate::api::{
    task_ids_json, DescribeRequest, DescribeResponse42, HeartbeatRequest, HeartbeatResponse42,
    Output, Response, TaskIdsJson,
};
use crate::coordinator::views::{describe, endpoints, statuses};
use crate::coordinator::Coordinator;
use crate::error::{bug, BoundaryError, ErrorCode, ProtocolError};
use crate::group::{DialectState, Group, GroupState, Kafka42State, Member, Soft};
use crate::java::is_blank;
use crate::records::build::GroupMetadataFields;
use crate::records::{KeyValue, TopologyValue};
use crate::topics;
use crate::topology::{self, Configuration, Limits, ValidationRule};

fn invalid(message: impl Into<String>) -> ProtocolError {
    ProtocolError::invalid_request(message)
}

/// The one assignment configuration of Kafka 4.2 (PROTOCOL 4.6).
const NUM_STANDBY_REPLICAS: &str = "num.standby.replicas";
/// 4.4's second one, when rack-aware assignment tags are set.
const RACK_AWARE_ASSIGNMENT_TAGS: &str = "rack.aware.assignment.tags";

fn invalid_topology(message: String) -> ProtocolError {
    ProtocolError::new(ErrorCode::StreamsInvalidTopology42, message)
}

/// The features Kafka 4.2 and 4.3 refuse before any other check of the coordinator
/// (`INVALID_REQUEST`): static members, task offsets, warm-up tasks and source-topic regexes.
fn refuse_unsupported(req: &HeartbeatRequest) -> Result<(), ProtocolError> {
    if req.instance_id.is_some() {
        return Err(invalid("Static membership is not yet supported."));
    }
    if req.task_offsets.is_some() {
        return Err(invalid("TaskOffsets are not supported yet."));
    }
    if req.task_end_offsets.is_some() {
        return Err(invalid("TaskEndOffsets are not supported yet."));
    }
    if req.warmup_tasks.as_ref().is_some_and(|w| !w.is_empty()) {
        return Err(invalid("WarmupTasks are not supported yet."));
    }
    let regex = req.topology.as_ref().is_some_and(|t| {
        t.subtopologies
            .iter()
            .any(|s| !s.source_topic_regex.is_empty())
    });
    if regex {
        return Err(invalid(
            "Regular expressions for source topics are not supported yet.",
        ));
    }
    Ok(())
}

/// Request validation, PROTOCOL 4.3, in order: the broker front end's topic-name checks, the
/// refused features, then the coordinator service's checks.
fn validate(req: &HeartbeatRequest, release: Release) -> Result<(), ProtocolError> {
    let epoch = req.member_epoch;
    let join = epoch == 0;
    let subtopologies = req.topology.as_ref().map(|t| t.subtopologies.as_slice());
    if let Some(subs) = subtopologies {
        // #1, #2: Kafka checks topic names in the broker front end, before anything else.
        topology::check(subs, ValidationRule::KafkaInternalTopics).map_err(invalid_topology)?;
        topology::check(subs, ValidationRule::InvalidTopicNames).map_err(invalid_topology)?;
    }
    if release.refuses_unsupported_features() {
        refuse_unsupported(req)?;
    } else if req.topology.as_ref().is_some_and(|t| {
        t.subtopologies
            .iter()
            .any(|s| !s.source_topic_regex.is_empty())
    }) {
        return Err(invalid(
            "Regular expressions for source topics are not supported yet.",
        ));
    }
    if is_blank(&req.member_id) {
        return Err(invalid("MemberId can't be empty."));
    }
    if is_blank(&req.group_id) {
        return Err(invalid("GroupId can't be empty."));
    }
    if req.instance_id.as_deref().is_some_and(is_blank) {
        return Err(invalid("InstanceId can't be empty."));
    }
    if req.rack_id.as_deref().is_some_and(is_blank) {
        return Err(invalid("RackId can't be empty."));
    }
    if join && req.rebalance_timeout_ms == -1 {
        return Err(invalid(
            "RebalanceTimeoutMs must be provided in first request.",
        ));
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
        let Some(subs) = subtopologies else {
            return Err(invalid("Topology must be non-null when (re-)joining."));
        };
        topology::check(subs, ValidationRule::ChangelogPartitions).map_err(invalid_topology)?;
    }
    if epoch == -2 && req.instance_id.is_none() {
        return Err(invalid("InstanceId can't be null."));
    }
    if epoch < -2 {
        return Err(invalid(format!(
            "MemberEpoch is {epoch}, but must be greater than or equal to -2."
        )));
    }
    let given = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks]
        .iter()
        .filter(|l| l.is_some())
        .count();
    if given != 0 && given != 3 {
        return Err(invalid(
            "If one task-type is non-null, all must be non-null.",
        ));
    }
    if !join && req.topology.is_some() {
        return Err(invalid("Topology can only be provided when (re-)joining."));
    }
    if let Some(subs) = subtopologies {
        // #17 (rule): the other structural checks Kafka leaves to later stages; a duplicate
        // subtopology id fails later, in the topology step, as Kafka's does.
        for rule in [
            ValidationRule::BlankSubtopologyId,
            ValidationRule::RepartitionPartitions,
            ValidationRule::ReplicationFactor,
            ValidationRule::CopartitionIndices,
        ] {
            topology::check(subs, rule).map_err(invalid_topology)?;
        }
    }
    Ok(())
}

/// The 4.2 response of a failed heartbeat: every field but the error pair at its default.
fn error_response(e: &ProtocolError) -> Response {
    Response::Heartbeat42(Box::new(HeartbeatResponse42 {
        error_code: e.code.code(),
        // Kafka answers every unexpected exception as UNKNOWN_SERVER_ERROR without a message.
        error_message: (e.code != ErrorCode::UnknownServerError).then(|| e.message.clone()),
        ..Default::default()
    }))
}

/// The 4.2 response of a successful leave: member id and epoch, `status` `[]`.
fn leave_response(member_id: &str, member_epoch: i32) -> Response {
    Response::Heartbeat42(Box::new(HeartbeatResponse42 {
        member_id: member_id.to_string(),
        member_epoch,
        ..Default::default()
    }))
}

/// PROTOCOL 4.4 step 4: the topology record this join writes, if any. The first joiner's
/// topology is stored; a later joiner with a lower epoch keeps the group's (its responses carry
/// `STALE_TOPOLOGY`); any other difference is refused.
fn topology_step(
    group: &Group,
    req: &HeartbeatRequest,
    limits: &Limits,
) -> Result<Option<TopologyValue>, ProtocolError> {
    let Some(t) = &req.topology else {
        return Ok(None);
    };
    // Kafka builds its topology map from every joining request first, and a duplicate
    // subtopology id throws there: an unexpected exception, UNKNOWN_SERVER_ERROR.
    if topology::check(&t.subtopologies, ValidationRule::DuplicateSubtopologyId).is_err() {
        return Err(ProtocolError::new(
            ErrorCode::UnknownServerError,
            "Duplicate subtopology id in the topology.",
        ));
    }
    match &group.topology {
        None => limits
            .check(&t.subtopologies)
            .map_err(invalid_topology)
            .map(|()| {
                Some(TopologyValue {
                    topology_id: String::new(),
                    epoch: t.epoch,
                    subtopologies: t.subtopologies.clone(),
                })
            }),
        Some(g) if g.epoch > t.epoch => Ok(None),
        Some(g) if g.epoch == t.epoch && g.subtopologies == t.subtopologies => Ok(None),
        Some(_) => Err(invalid("Topology updates are not supported yet.")),
    }
}

/// Kafka 4.4 (`maybeSetTopologyDescriptionRequired`): whether a successful v1 heartbeat asks
/// for the topology description: a store is configured, the group has a topology whose epoch
/// the store neither holds nor refused, the member is not told its topology is stale, and no
/// back-off window is in effect for the epoch (this arms one).
fn description_required(
    c: &mut Coordinator,
    group_id: &str,
    response: &HeartbeatResponse42,
    now: i64,
) -> bool {
    if !c.descriptions.enabled() {
        return false;
    }
    let Some(group) = c.groups.get(group_id) else {
        return false;
    };
    let current = group.topology.as_ref().map_or(-1, |t| t.epoch);
    let (stored, failed) = group.kafka42().map_or((-1, -1), |k| {
        (
            k.stored_description_topology_epoch,
            k.failed_description_topology_epoch,
        )
    });
    let stale = response
        .status
        .iter()
        .flatten()
        .any(|s| s.status_code == statuses::STALE_TOPOLOGY);
    if current < 0 || stored == current || failed == current || stale {
        return false;
    }
    c.descriptions.arm_if_not_active(group_id, current, now)
}

/// Task lists as Kafka's heartbeat response lists them: subtopologies in the iteration order
/// of the Java `HashMap` the member's tasks are kept in (ids `0`-`9` ascending, as sorted;
/// other ids, such as `subtopology1` or `10`, by their hash), partitions ascending.
fn java_order(mut list: Vec<crate::records::TaskIds>) -> Vec<crate::records::TaskIds> {
    if list.len() < 2 {
        return list;
    }
    let order = crate::java::hash_map_keys(list.iter().map(|t| t.subtopology_id.as_str()));
    let rank = |id: &str| order.iter().position(|o| *o == id).unwrap_or(usize::MAX);
    let ranks: Vec<usize> = list.iter().map(|t| rank(&t.subtopology_id)).collect();
    let mut indexed: Vec<(usize, crate::records::TaskIds)> =
        ranks.into_iter().zip(list.drain(..)).collect();
    crate::ordered::sort_by(&mut indexed, |a, b| a.0.cmp(&b.0));
    indexed.into_iter().map(|(_, t)| t).collect()
}

/// The endpoint-information epoch a heartbeat compares the member's with, and whether the
/// heartbeat moves it: Kafka 4.2 and 4.3 move it, in memory, when a member with an endpoint
/// joins or gets other tasks; 4.4 when the member's endpoint changed or a member with an
/// endpoint got other tasks (a static member replacing its old self with the same endpoint
/// and tasks moves nothing). A group this heartbeat creates starts from 0 on an object it
/// then drops.
fn endpoint_epochs(
    group: &Group,
    created: bool,
    member: &Member,
    change: MemberChange,
    release: Release,
) -> (i32, bool) {
    let bump = if release.endpoint_epoch_follows_changes() {
        change.endpoint || (change.tasks && member.endpoint().is_some())
    } else {
        (change.join || change.tasks) && member.endpoint().is_some()
    };
    let stored = if created {
        0
    } else {
        group.soft.endpoint_epoch
    };
    (stored.saturating_add(i32::from(bump)), bump)
}

/// The `kafka-*` dialects: one set of rules, with what each release does differently read
/// from its [`Release`].
#[derive(Debug)]
pub(crate) struct Kafka {
    pub(crate) release: Release,
}

impl Kafka {
    /// What Kafka's assignment configs of the group hold: the standby replica count, and the
    /// rack-aware assignment tags where the release carries them and there are any.
    fn config_values<'c>(&self, c: &'c Coordinator, group: &Group) -> (i32, Option<&'c [String]>) {
        let tags = c.rack_aware_assignment_tags(&group.group_id);
        let carried = self.release.assignment_configs_carry_rack_tags() && !tags.is_empty();
        (
            c.num_standby_replicas(&group.group_id),
            carried.then_some(tags),
        )
    }

    /// Kafka's assignment configs of the group, a `TreeMap`: in key order.
    fn assignment_configs(&self, c: &Coordinator, group: &Group) -> Vec<KeyValue> {
        let (standby, tags) = self.config_values(c, group);
        let mut configs = vec![KeyValue {
            key: NUM_STANDBY_REPLICAS.to_string(),
            value: standby.to_string(),
        }];
        if let Some(tags) = tags {
            configs.push(KeyValue {
                key: RACK_AWARE_ASSIGNMENT_TAGS.to_string(),
                value: tags.join(","),
            });
        }
        configs
    }

    /// Whether `stored` is [`Kafka::assignment_configs`], compared without building them.
    fn same_assignment_configs(
        &self,
        c: &Coordinator,
        group: &Group,
        stored: Option<&[KeyValue]>,
    ) -> bool {
        let standby_is = |s: &KeyValue, n| s.key == NUM_STANDBY_REPLICAS && is_decimal(&s.value, n);
        match (self.config_values(c, group), stored) {
            ((n, None), Some([s])) => standby_is(s, n),
            ((n, Some(tags)), Some([s, t])) => {
                standby_is(s, n) && t.key == RACK_AWARE_ASSIGNMENT_TAGS && is_joined(&t.value, tags)
            }
            _ => false,
        }
    }
}

/// Whether `text` is `n.to_string()`.
fn is_decimal(text: &str, n: i32) -> bool {
    use std::fmt::Write;
    // i32's longest decimal form is 11 bytes.
    struct Digits([u8; 12], usize);
    impl Write for Digits {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let end = self.1 + s.len();
            self.0
                .get_mut(self.1..end)
                .ok_or(std::fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.1 = end;
            Ok(())
        }
    }
    let mut d = Digits([0; 12], 0);
    write!(d, "{n}").is_ok() && d.0.get(..d.1) == Some(text.as_bytes())
}

/// Whether `text` is `parts.join(",")`.
fn is_joined(text: &str, parts: &[String]) -> bool {
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            match rest.strip_prefix(',') {
                Some(r) => rest = r,
                None => return false,
            }
        }
        match rest.strip_prefix(part.as_str()) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

/// `kafka-4.2`.
pub(crate) static KAFKA_4_2: Kafka = Kafka {
    release: Release::V4_2,
};
/// `kafka-4.3`.
pub(crate) static KAFKA_4_3: Kafka = Kafka {
    release: Release::V4_3,
};
/// `kafka-4.4`.
pub(crate) static KAFKA_4_4: Kafka = Kafka {
    release: Release::V4_4,
};

impl DialectRules for Kafka {
    /// The 4.2 schema has no `TopologyId` and requires `EndpointInformationEpoch` (PROTOCOL 1.3,
    /// 4.2).
    fn precheck_heartbeat(&self, req: &HeartbeatRequest) -> Result<(), BoundaryError> {
        if req.topology_id.is_some() {
            return Err(BoundaryError::input(
                "request.topologyId",
                "unknown field `topologyId` in the kafka-4.2 dialect (a join carries `topology`)",
            ));
        }
        if req.endpoint_information_epoch.is_none() {
            return Err(BoundaryError::input(
                "request.endpointInformationEpoch",
                "missing field `endpointInformationEpoch`",
            ));
        }
        Ok(())
    }

    fn validate(&self, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
        validate(req, self.release)
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

    /// 4.3 #4: 4.2 member ids are never blank, so never generated.
    fn generates_member_ids(&self) -> bool {
        false
    }

    fn join_carries_topology(&self) -> bool {
        true
    }

    fn topology_step(
        &self,
        c: &Coordinator,
        group: &Group,
        req: &HeartbeatRequest,
    ) -> Result<Option<TopologyValue>, ProtocolError> {
        topology_step(group, req, &c.limits())
    }

    /// PROTOCOL 4.4 steps 5-6 for `group` with `topology`. The configuration runs when the
    /// topology is new to the group, when none is in memory, or when the group's metadata
    /// expired (`hasMetadataExpired`: the topic image asked for a refresh, or the group's epoch
    /// is below the one of its refresh deadline, which a failed bump leaves behind); a member's
    /// own changes bump without one, as in Kafka. A configuration failure is
    /// `STREAMS_INVALID_TOPOLOGY` (130). A group whose topology this heartbeat stores bumps for
    /// the join anyway; its view "changes" from nothing, which explains nothing.
    fn topic_view(
        &self,
        c: &Coordinator,
        group: &Group,
        topology: Option<&TopologyValue>,
        topology_initialized: bool,
        bumps: bool,
    ) -> Result<TopicView, ProtocolError> {
        let default = Kafka42State::default();
        let stored = group.kafka42().unwrap_or(&default);
        let reconfigure = group.topology.is_none()
            || group.stored_configuration().is_none()
            || group.soft.refresh_due
            || group.group_epoch < group.soft.refresh_epoch;
        let (refreshed, metadata_hash, validated_topology_epoch) = match topology {
            _ if !reconfigure => (None, stored.metadata_hash, stored.validated_topology_epoch),
            None => (None, 0, -1),
            Some(t) => {
                let required = topology::required_topics(
                    &t.subtopologies,
                    c.topics.keys().map(String::as_str),
                );
                let metadata_hash = topics::metadata_hash_within(
                    required
                        .iter()
                        .filter_map(|name| c.topics.get(name).map(|image| (name.as_str(), image))),
                    c.config.max_tasks_per_subtopology,
                );
                let configured = c.limits().bound(topology::configure(
                    &t.subtopologies,
                    &topics::partition_counts(&c.topics),
                ));
                if let Configuration::Invalid(message) = &configured {
                    return Err(invalid_topology(message.clone()));
                }
                let validated = match configured {
                    Configuration::Ready(_) => t.epoch,
                    _ => -1,
                };
                (Some(configured), metadata_hash, validated)
            }
        };
        let mut reasons = Vec::new();
        if !topology_initialized {
            if metadata_hash != stored.metadata_hash {
                reasons.push("TOPIC_METADATA_CHANGED");
            }
            if validated_topology_epoch != stored.validated_topology_epoch {
                reasons.push("TOPOLOGY_READINESS_CHANGED");
            }
            if !self.same_assignment_configs(c, group, stored.last_assignment_configs.as_deref()) {
                reasons.push("ASSIGNMENT_CONFIG_CHANGED");
            }
        }
        // The configs are written only by a bump: a steady heartbeat builds none.
        let bump = bumps || topology_initialized || !reasons.is_empty();
        Ok(TopicView {
            refreshed,
            records: Vec::new(),
            reasons,
            // A bump carries the description epochs as the group holds them.
            fields: GroupMetadataFields {
                metadata_hash,
                validated_topology_epoch,
                last_assignment_configs: bump.then(|| self.assignment_configs(c, group)),
                stored_description_topology_epoch: stored.stored_description_topology_epoch,
                failed_description_topology_epoch: stored.failed_description_topology_epoch,
            },
        })
    }

    fn keep_configuration(&self, group: &mut Group, configured: Configuration, provisional: bool) {
        if let DialectState::Kafka42(k) = &mut group.dialect {
            k.configured = Soft(Some(configured));
            k.provisional = Soft(provisional);
        }
    }

    fn keeps_configuration(&self) -> bool {
        true
    }

    fn configured<'a>(&self, group: &'a Group) -> Option<&'a Configuration> {
        group.configured()
    }

    /// Kafka 4.2 takes a new group's first bump from 0 straight to 2 (4.7); 4.3 to 1.
    fn next_group_epoch(&self, epoch: i32) -> i32 {
        self.release.next_group_epoch(epoch)
    }

    fn writes_assignment_epochs(&self) -> bool {
        true
    }

    fn has_initial_rebalance_delay(&self) -> bool {
        true
    }

    fn release(&self) -> Option<Release> {
        Some(self.release)
    }

    fn has_partition_metadata(&self) -> bool {
        false
    }

    fn group_state(&self, group: &Group) -> GroupState {
        group.state()
    }

    /// Kafka builds the endpoint map of a response from the configured topology's
    /// subtopologies; while it has none (source topics missing, an invalid or incorrectly
    /// partitioned topology; internal topics missing still configures them), the map of a
    /// member with an endpoint fails with UNKNOWN_SERVER_ERROR (`NoSuchElementException`, r10
    /// of the measured differences). Kafka has moved the stored group's endpoint-information
    /// epoch by then (a plain field), and keeps it.
    // The heartbeat's whole view, as Kafka's response builder reads it.
    #[allow(clippy::too_many_arguments)]
    fn check_response(
        &self,
        group: &Group,
        created: bool,
        member: &Member,
        change: MemberChange,
        configured: Option<&Configuration>,
        req: &HeartbeatRequest,
        topics: &crate::topics::Topics,
    ) -> Option<ResponseFailure> {
        let (epoch, bumped) = endpoint_epochs(group, created, member, change, self.release);
        if req.endpoint_information_epoch == Some(epoch) {
            return None;
        }
        let failure = || ResponseFailure {
            error: ProtocolError::new(ErrorCode::UnknownServerError, super::ENDPOINT_MAP_FAILED),
            endpoint_epoch: (bumped && !created).then_some(epoch),
        };
        if let Some(Configuration::Ready(subs)) = configured {
            // Before 4.4 every entry is built again: a member with an endpoint holding tasks
            // of a subtopology one of whose input topics left the image since the topology
            // was configured fails it (`IllegalStateException`, "Topic t not found in
            // metadata image"). 4.4 keeps built entries and builds only changed ones.
            if self.release.caches_endpoint_maps() {
                return None;
            }
            let missing = |m: &Member| {
                m.endpoint().is_some()
                    && m.assigned
                        .active
                        .keys()
                        .chain(m.assigned.standby.keys())
                        .filter_map(|sub| subs.iter().find(|s| s.subtopology_id == sub))
                        .any(|s| s.input_topics.iter().any(|(t, _)| !topics.contains_key(t)))
            };
            let others = group
                .members
                .values()
                .filter(|m| m.member_id != member.member_id);
            return (missing(member) || others.into_iter().any(missing)).then(failure);
        }
        if matches!(configured, Some(Configuration::MissingInternalTopics(_))) {
            return None;
        }
        let stored_has = group
            .members
            .get(&member.member_id)
            .is_some_and(|m| m.endpoint().is_some());
        let others = group.with_endpoint > usize::from(stored_has);
        (member.endpoint().is_some() || others).then(failure)
    }

    /// PROTOCOL 4.2, 4.4 step 10: the response of a committed 4.2 heartbeat.
    fn respond(&self, c: &mut Coordinator, done: Committed<'_>, _out: &mut Output) -> Response {
        let Committed {
            group_id,
            member_id,
            tasks_changed,
            endpoint_changed,
            member_slots_before,
            created,
            interval_delayed,
            request: req,
            ..
        } = done;
        let delay_pending = c.initial_delay_pending(group_id);
        let send_tasks = req.member_epoch == 0 || tasks_changed;
        // The group's own settings (group-level configs), read before the group is borrowed.
        let heartbeat_interval_ms = c.heartbeat_interval_ms(group_id);
        let acceptable_recovery_lag = c.acceptable_recovery_lag(group_id);
        let task_offset_interval_ms = c.task_offset_interval_ms(group_id);
        let rack_tags =
            (req.api_version >= 1).then(|| c.rack_aware_assignment_tags(group_id).to_vec());
        // The committed heartbeat left its group and member in place.
        let Some(group) = c.groups.get_mut(group_id) else {
            bug("the group of a committed heartbeat is gone");
        };
        let Some(member) = group.members.get(member_id) else {
            bug("the member of a committed heartbeat is gone");
        };
        let change = MemberChange {
            join: req.member_epoch == 0,
            tasks: tasks_changed,
            endpoint: endpoint_changed,
        };
        let (compared, bumped) = endpoint_epochs(group, created, member, change, self.release);
        if bumped && !created {
            group.soft.endpoint_epoch = compared;
        }
        let group = &*group;
        let Some(member) = group.members.get(member_id) else {
            bug("the member of a committed heartbeat is gone");
        };
        let delayed = if delay_pending {
            Some(statuses::ASSIGNMENT_DELAYED_DETAIL)
        } else if interval_delayed {
            Some(statuses::ASSIGNMENT_INTERVAL_DETAIL)
        } else {
            None
        };
        let mut statuses = statuses::kafka42(group, member, delayed);
        if created && req.shutdown_application {
            // The creating heartbeat's group object holds its shutdown request for its own
            // response only.
            statuses.push(crate::group::Status {
                code: 4,
                detail: statuses::shutdown_detail(member_id),
            });
        }
        if let Some(tags) = &rack_tags {
            if let Some(missing) = statuses::missing_client_tags(tags, member) {
                statuses.push(missing);
            }
        }
        // A heartbeat that is not sent its tasks builds no list of them.
        let (active, standby, warmup) = if send_tasks {
            member.assigned.to_task_ids()
        } else {
            Default::default()
        };
        let tasks = |l: Vec<crate::records::TaskIds>| -> Option<Vec<TaskIdsJson>> {
            send_tasks.then(|| task_ids_json(&java_order(l)))
        };
        let endpoints = (req.endpoint_information_epoch != Some(compared)).then(|| {
            endpoints::kafka42(
                group,
                group.java_member_order_in(member_slots_before).into_iter(),
                member_id,
                self.release.lists_warmups_in_endpoints(),
            )
        });
        let endpoint_information_epoch = if created {
            0
        } else {
            group.soft.endpoint_epoch
        };
        let mut response = c
            .recycled
            .kafka(member_id, |member_id| HeartbeatResponse42 {
                throttle_time_ms: 0,
                error_code: 0,
                error_message: None,
                member_id,
                member_epoch: member.member_epoch,
                heartbeat_interval_ms,
                // Kafka 4.2 and 4.3 set neither field; 4.4's v0 answer has the offset interval, its
                // v1 answer the recovery lag too (v0's int32 field is never set).
                acceptable_recovery_lag: if req.api_version >= 1 {
                    i64::from(acceptable_recovery_lag)
                } else {
                    0
                },
                task_offset_interval_ms: if self.release.answers_task_offset_interval() {
                    task_offset_interval_ms
                } else {
                    0
                },
                status: Some(statuses::status_json(&statuses)),
                active_tasks: tasks(active),
                standby_tasks: tasks(standby),
                warmup_tasks: tasks(warmup),
                topology_description_required: (req.api_version >= 1).then_some(false),
                // A group this heartbeat created keeps no epoch: the response says 0.
                endpoint_information_epoch,
                partitions_by_user_endpoint: endpoints,
            });
        if req.api_version >= 1 && description_required(c, group_id, &response, done.now) {
            response.topology_description_required = Some(true);
        }
        Response::Heartbeat42(response)
    }

    fn describe(&self, c: &Coordinator, req: &DescribeRequest) -> Response {
        // Kafka's service refuses only an empty id (a blank one is looked up), and merges the
        // answers empty ids first, then partition by partition.
        let mut groups = describe::entries(
            &c.groups,
            &c.offsets,
            crate::partition::kafka_order(
                &req.group_ids,
                c.config.offsets_topic_num_partitions,
                true,
            ),
            str::is_empty,
            describe::kafka42_group,
            describe::kafka42_error,
        );
        if req.api_version >= 1 {
            for g in &mut groups {
                g.v1 = Some(describe::kafka44_v1(c, g, req.include_topology_description));
            }
        }
        Response::Describe42(DescribeResponse42 {
            throttle_time_ms: 0,
            groups,
        })
    }

    fn supports_initialize(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::java_order;
    use crate::records::TaskIds;

    fn ids(list: &[&str]) -> Vec<String> {
        let tasks = list
            .iter()
            .map(|s| TaskIds {
                subtopology_id: s.to_string(),
                partitions: vec![0],
                assignment_epochs: None,
            })
            .collect();
        java_order(tasks)
            .into_iter()
            .map(|t| t.subtopology_id)
            .collect()
    }

    #[test]
    fn response_task_lists_follow_java_hash_map_order() {
        // Java's String.hashCode spread over 16 buckets: "subtopology-1" 8, "-0" 9, "-2" 15.
        assert_eq!(
            ids(&["subtopology-0", "subtopology-1", "subtopology-2"]),
            ["subtopology-1", "subtopology-0", "subtopology-2"]
        );
        // "11" shares bucket 0 with "0" (after it), "10" is in bucket 15.
        assert_eq!(
            ids(&["0", "1", "10", "11", "2"]),
            ["0", "11", "1", "2", "10"]
        );
        assert_eq!(ids(&["0", "1", "2"]), ["0", "1", "2"]);
    }
}

#[cfg(test)]
mod config_text_tests {
    use super::{is_decimal, is_joined};

    #[test]
    fn the_configs_compare_as_their_text_would() {
        for n in [0, 1, -1, 7, 10, -42, i32::MAX, i32::MIN] {
            assert!(is_decimal(&n.to_string(), n), "{n}");
            assert!(!is_decimal(&(i64::from(n) + 1).to_string(), n), "{n}");
        }
        assert!(!is_decimal("01", 1));
        assert!(!is_decimal("", 0));
        assert!(!is_decimal("1 ", 1));
        let parts = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for p in [
            &[][..],
            &["a"],
            &["a", "b"],
            &["", ""],
            &["a,b", "c"],
            &["zone", "rack"],
        ] {
            let p = parts(p);
            assert!(is_joined(&p.join(","), &p), "{p:?}");
            assert!(!is_joined(&format!("{},", p.join(",")), &p), "{p:?}");
        }
        assert!(!is_joined("a,b", &parts(&["a"])));
        assert!(!is_joined("a", &parts(&["a", "b"])));
        assert!(!is_joined("ab", &parts(&["a", "b"])));
    }
}

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
//!   configured topology in memory, is refresh-due, or bumps its epoch anyway (2.12); the owned
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

use std::collections::{BTreeMap, BTreeSet};
use xxhash_rust::xxh3::Xxh3Default;

use super::draft::{shutdown_detail, status_json, topic_partitions_json};
use super::heartbeat::{invalid, is_blank, subtopology_inputs, task_partitions};
use super::{Coordinator, Output, TopicImage};
use crate::api::{
    task_ids_json, AssignmentJson, DescribedGroup42, DescribedMember42, DescribedSubtopology42,
    DescribedTopology42, EndpointJson, EndpointToPartitions42Json, Explain, HeartbeatRequest,
    HeartbeatResponse42, KeyValueJson, Response, TaskIdsJson,
};
use crate::error::bug;
use crate::error::{ErrorCode, ProtocolError};
use crate::group::{Group, Member, Status};
use crate::records::{GroupMetadataValue, KeyValue, Record, RecordKey, RecordValue, TopologyValue};
use crate::tasks::{union, Assignment};
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::Limits;
use crate::topology::{self, Configuration, Subtopology, TopicConfig, TopicInfo, ValidationRule};

/// `ASSIGNMENT_DELAYED`'s detail; Kafka's wording is not known (PROTOCOL 4.5).
pub const ASSIGNMENT_DELAYED_DETAIL: &str =
    "Assignment delayed due to the configured initial rebalance delay.";

/// The one assignment configuration of Kafka 4.2 (PROTOCOL 4.6).
const NUM_STANDBY_REPLICAS: &str = "num.standby.replicas";

fn invalid_topology(message: String) -> ProtocolError {
    ProtocolError::new(ErrorCode::StreamsInvalidTopology42, message)
}

/// Request validation, PROTOCOL 4.3, in order.
pub(super) fn validate(req: &HeartbeatRequest) -> Result<(), ProtocolError> {
    let epoch = req.member_epoch;
    let join = epoch == 0;
    let subtopologies = req.topology.as_ref().map(|t| t.subtopologies.as_slice());
    if let Some(subs) = subtopologies {
        // #1, #2: Kafka checks topic names in the broker front end, before anything else.
        topology::check(subs, ValidationRule::KafkaInternalTopics).map_err(invalid_topology)?;
        topology::check(subs, ValidationRule::InvalidTopicNames).map_err(invalid_topology)?;
        if subs.iter().any(|s| !s.source_topic_regex.is_empty()) {
            return Err(invalid(
                "Regular expressions for source topics are not supported yet.",
            ));
        }
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
    if join && req.rebalance_timeout_ms <= 0 {
        return Err(invalid(
            "RebalanceTimeoutMs must be positive when (re-)joining.",
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
        // #17 (rule): the other structural checks Kafka leaves to later stages.
        for rule in [
            ValidationRule::BlankSubtopologyId,
            ValidationRule::DuplicateSubtopologyId,
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
pub(super) fn error_response(e: &ProtocolError) -> Response {
    Response::Heartbeat42(Box::new(HeartbeatResponse42 {
        error_code: e.code.code(),
        error_message: Some(e.message.clone()),
        ..Default::default()
    }))
}

/// The 4.2 response of a successful leave: member id and epoch, `status` `[]`.
pub(super) fn leave_response(member_id: &str, member_epoch: i32) -> Response {
    Response::Heartbeat42(Box::new(HeartbeatResponse42 {
        member_id: member_id.to_string(),
        member_epoch,
        ..Default::default()
    }))
}

/// PROTOCOL 4.4 step 4: the topology record this join writes, if any. The first joiner's
/// topology is stored; a later joiner with a lower epoch keeps the group's (its responses carry
/// `STALE_TOPOLOGY`); any other difference is refused.
pub(super) fn topology_step(
    group: &Group,
    req: &HeartbeatRequest,
    limits: &Limits,
) -> Result<Option<TopologyValue>, ProtocolError> {
    let Some(t) = &req.topology else {
        return Ok(None);
    };
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

/// PROTOCOL 4.4 step 5: with a ready topology, the owned task lists must name existing tasks.
pub(super) fn check_owned_tasks(
    configured: Option<&Configuration>,
    req: &HeartbeatRequest,
) -> Result<(), ProtocolError> {
    let Some(Configuration::Ready(subs)) = configured else {
        return Ok(());
    };
    let lists = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks];
    for t in lists.into_iter().flatten().flatten() {
        let Some(sub) = subs.iter().find(|s| s.subtopology_id == t.subtopology_id) else {
            return Err(invalid(format!(
                "Subtopology {} does not exist in the topology.",
                t.subtopology_id
            )));
        };
        if let Some(p) = t
            .partitions
            .iter()
            .find(|p| **p < 0 || **p >= sub.num_tasks)
        {
            return Err(invalid(format!(
                "Task {p} for subtopology {} is invalid. Number of tasks for this subtopology: {}",
                t.subtopology_id, sub.num_tasks
            )));
        }
    }
    Ok(())
}

/// The 4.2 topic view of one heartbeat (PROTOCOL 4.4 steps 5-7): the metadata hash, the
/// validated topology epoch and the assignment configs this heartbeat would persist.
pub(super) struct Refresh {
    /// The configuration, when this heartbeat ran it.
    refreshed: Option<Configuration>,
    metadata_hash: i64,
    validated_topology_epoch: i32,
    configs: Vec<KeyValue>,
}

impl Refresh {
    /// The configured topology from here on: the refreshed one, else the one in memory.
    pub(super) fn configured<'a>(&'a self, group: &'a Group) -> Option<&'a Configuration> {
        self.refreshed.as_ref().or(group.soft.configured.as_ref())
    }

    /// The bump reasons of the topic view (2.8). A group whose topology this heartbeat stores
    /// bumps for the join anyway; its view "changes" from nothing, which explains nothing.
    pub(super) fn bump_reasons(
        &self,
        group: &Group,
        topology_initialized: bool,
        reasons: &mut Vec<&'static str>,
    ) {
        if topology_initialized {
            return;
        }
        if self.metadata_hash != group.metadata_hash {
            reasons.push("TOPIC_METADATA_CHANGED");
        }
        if self.validated_topology_epoch != group.validated_topology_epoch {
            reasons.push("TOPOLOGY_READINESS_CHANGED");
        }
        if group.last_assignment_configs.as_ref() != Some(&self.configs) {
            reasons.push("ASSIGNMENT_CONFIG_CHANGED");
        }
    }

    /// The group metadata record of a bump to `epoch` (4.4 step 7).
    pub(super) fn group_metadata_record(&self, group_id: &str, epoch: i32) -> Record {
        Record::new(
            RecordKey::GroupMetadata {
                group_id: group_id.to_string(),
            },
            RecordValue::GroupMetadata(GroupMetadataValue {
                epoch,
                metadata_hash: self.metadata_hash,
                validated_topology_epoch: self.validated_topology_epoch,
                last_assignment_configs: Some(self.configs.clone()),
            }),
        )
    }

    /// The configuration to keep as soft state, when this heartbeat ran it.
    pub(super) fn into_refreshed(self) -> Option<Configuration> {
        self.refreshed
    }
}

impl Coordinator {
    /// PROTOCOL 4.4 steps 5-6 for `group` with `topology` (the stored one or the one this join
    /// stores). The configuration runs when the topology is new to the group, when none is in
    /// memory, when the group is refresh-due, or when the heartbeat bumps anyway (2.12); a
    /// configuration failure is `STREAMS_INVALID_TOPOLOGY` (130).
    pub(super) fn kafka42_refresh(
        &self,
        group: &Group,
        topology: Option<&TopologyValue>,
        bumps: bool,
    ) -> Result<Refresh, ProtocolError> {
        let configs = vec![KeyValue {
            key: NUM_STANDBY_REPLICAS.to_string(),
            value: self.config.num_standby_replicas.to_string(),
        }];
        let reconfigure = group.topology.is_none()
            || group.soft.configured.is_none()
            || group.soft.refresh_due
            || bumps;
        if !reconfigure {
            return Ok(Refresh {
                refreshed: None,
                metadata_hash: group.metadata_hash,
                validated_topology_epoch: group.validated_topology_epoch,
                configs,
            });
        }
        let Some(t) = topology else {
            return Ok(Refresh {
                refreshed: None,
                metadata_hash: 0,
                validated_topology_epoch: -1,
                configs,
            });
        };
        let required =
            topology::required_topics(&t.subtopologies, self.topics.keys().map(String::as_str));
        let metadata_hash = metadata_hash_within(
            required
                .iter()
                .filter_map(|name| self.topics.get(name).map(|image| (name.as_str(), image))),
            self.config.max_tasks_per_subtopology,
        );
        let configured = self
            .limits()
            .bound(topology::configure(&t.subtopologies, &self.image_view()));
        if let Configuration::Invalid(message) = &configured {
            return Err(invalid_topology(message.clone()));
        }
        let validated_topology_epoch = match configured {
            Configuration::Ready(_) => t.epoch,
            _ => -1,
        };
        Ok(Refresh {
            refreshed: Some(configured),
            metadata_hash,
            validated_topology_epoch,
            configs,
        })
    }

    /// Whether the group's initial rebalance delay is pending (4.7).
    pub(super) fn initial_delay_pending(&self, group_id: &str) -> bool {
        self.timers
            .get(&TimerKey::new(
                TimerKind::InitialRebalanceDelay,
                group_id,
                "",
            ))
            .is_some()
    }

    /// Arms the initial rebalance delay of a group that was memberless (4.7).
    pub(super) fn arm_initial_delay(&mut self, now: i64, group_id: &str, out: &mut Output) {
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

    /// The delay timer fires: the target assignment for the current group epoch, unless the
    /// group became memberless or has no ready topology (4.7). `false` when the batch limit
    /// refused the records.
    pub(super) fn fire_initial_delay(&mut self, group_id: &str, out: &mut Output) -> bool {
        let ready = self
            .groups
            .get(group_id)
            .is_some_and(|g| matches!(g.soft.configured, Some(Configuration::Ready(_))));
        !ready || self.fire_due_assignment(group_id, out)
    }

    /// PROTOCOL 4.2, 4.4 step 10: the response of a committed 4.2 heartbeat.
    pub(super) fn kafka42_response(
        &self,
        group_id: &str,
        member_id: &str,
        assigned_before: Option<&Assignment>,
        req: &HeartbeatRequest,
    ) -> Response {
        // The committed heartbeat left its group and member in place.
        let Some(group) = self.groups.get(group_id) else {
            bug("the group of a committed heartbeat is gone");
        };
        let Some(member) = group.members.get(member_id) else {
            bug("the member of a committed heartbeat is gone");
        };
        let statuses = statuses(group, member, self.initial_delay_pending(group_id));
        let send_tasks = req.member_epoch == 0 || assigned_before != Some(&member.assigned);
        let (active, standby, warmup) = member.assigned.to_task_ids();
        let tasks = |l: Vec<crate::records::TaskIds>| -> Option<Vec<TaskIdsJson>> {
            send_tasks.then(|| task_ids_json(&l))
        };
        let endpoint_epoch = group.soft.endpoint_epoch;
        let endpoints = (req.endpoint_information_epoch != Some(endpoint_epoch))
            .then(|| endpoint_entries(group));
        let response = HeartbeatResponse42 {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: member_id.to_string(),
            member_epoch: member.member_epoch,
            heartbeat_interval_ms: self.config.heartbeat_interval_ms,
            acceptable_recovery_lag: self.config.acceptable_recovery_lag,
            task_offset_interval_ms: self.config.task_offset_interval_ms,
            status: Some(status_json(&statuses)),
            active_tasks: tasks(active),
            standby_tasks: tasks(standby),
            warmup_tasks: tasks(warmup),
            endpoint_information_epoch: endpoint_epoch,
            partitions_by_user_endpoint: endpoints,
        };
        Response::Heartbeat42(Box::new(response))
    }
}

/// PROTOCOL 4.5: the statuses of `member`, in the order of 4.4 step 10: `STALE_TOPOLOGY`,
/// `ASSIGNMENT_DELAYED`, the configuration's status, `SHUTDOWN_APPLICATION`.
pub(crate) fn statuses(group: &Group, member: &Member, delay_pending: bool) -> Vec<Status> {
    let mut out = Vec::new();
    if let Some(t) = &group.topology {
        if member.metadata.topology_epoch < t.epoch {
            out.push(Status {
                code: 0,
                detail: format!(
                    "The member's topology epoch {} is behind the group's topology epoch {}.",
                    member.metadata.topology_epoch, t.epoch
                ),
            });
        }
    }
    if delay_pending {
        out.push(Status {
            code: 5,
            detail: ASSIGNMENT_DELAYED_DETAIL.to_string(),
        });
    }
    match &group.soft.configured {
        Some(Configuration::MissingSourceTopics(list)) => out.push(Status {
            code: 1,
            detail: missing_sources_detail(list),
        }),
        Some(Configuration::SourceTopicsIncorrectlyPartitioned(msg))
        | Some(Configuration::InternalTopicsIncorrectlyPartitioned(msg)) => out.push(Status {
            code: 2,
            detail: msg.clone(),
        }),
        Some(Configuration::InternalTopicsMismatch(list)) => {
            if let Some((t, n, k)) = list.first() {
                out.push(Status {
                    code: 2,
                    detail: format!(
                        "Existing topic {t} has different number of partitions: expected {n}, found {k}"
                    ),
                });
            }
        }
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
        // An invalid configuration fails the heartbeat (130) and is never kept.
        Some(Configuration::Invalid(_)) | Some(Configuration::Ready(_)) | None => {}
    }
    if let Some(requester) = &group.soft.shutdown_requester {
        out.push(Status {
            code: 4,
            detail: shutdown_detail(requester),
        });
    }
    out
}

/// `Source topics <a, b, c> and <n> additional topics are missing.`: at most three named, from
/// the sorted list (PROTOCOL 4.5).
pub fn missing_sources_detail(list: &[String]) -> String {
    let named = list.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match list.len().saturating_sub(3) {
        0 => format!("Source topics {named} are missing."),
        more => format!("Source topics {named} and {more} additional topics are missing."),
    }
}

/// PROTOCOL 4.9: one entry per member with an endpoint, in member id order; active partitions
/// from its active tasks, standby partitions from its standby and warm-up tasks.
fn endpoint_entries(group: &Group) -> Vec<EndpointToPartitions42Json> {
    let inputs = subtopology_inputs(group.soft.configured.as_ref());
    group
        .members
        .values()
        .filter_map(|m| {
            let ep = m.endpoint()?;
            let mut active = BTreeMap::new();
            task_partitions(&inputs, &m.assigned.active, &mut active);
            let mut standby = BTreeMap::new();
            task_partitions(
                &inputs,
                &union(&m.assigned.standby, &m.assigned.warmup),
                &mut standby,
            );
            Some(EndpointToPartitions42Json {
                user_endpoint: EndpointJson::from(ep),
                active_partitions: topic_partitions_json(active),
                standby_partitions: topic_partitions_json(standby),
            })
        })
        .collect()
}

// -------------------------------------------------------------------------------------------
// The metadata hash (PROTOCOL 4.5)

/// The input of one XXH3-64 hash, encoded as Kafka encodes it: Kafka 4.2 feeds its values to
/// hash4j's `HashStream` (`Hashing.xxh3_64().hashStream()`), whose encoding this reproduces, so
/// that the hash is XXH3-64 (seed 0, default secret) of these bytes:
///
/// - a byte as itself;
/// - an `int` as 4 bytes and a `long` as 8 bytes, little-endian two's complement;
/// - a string as its UTF-16 code units, each 2 bytes little-endian, followed by the number of
///   code units as an `int` (hash4j's `putString`).
struct HashInput {
    /// Bytes not yet fed to the hasher (bounded, so that a topic with very many partitions
    /// hashes in constant memory).
    pending: Vec<u8>,
    hasher: Xxh3Default,
}

impl Default for HashInput {
    fn default() -> Self {
        HashInput {
            pending: Vec::with_capacity(HashInput::CHUNK),
            hasher: Xxh3Default::new(),
        }
    }
}

impl HashInput {
    const CHUNK: usize = 4096;

    fn put(&mut self, bytes: &[u8]) -> &mut Self {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= HashInput::CHUNK {
            self.hasher.update(&self.pending);
            self.pending.clear();
        }
        self
    }

    fn byte(&mut self, b: u8) -> &mut Self {
        self.put(&[b])
    }

    fn int(&mut self, v: i32) -> &mut Self {
        self.put(&v.to_le_bytes())
    }

    fn long(&mut self, v: i64) -> &mut Self {
        self.put(&v.to_le_bytes())
    }

    fn string(&mut self, s: &str) -> &mut Self {
        let mut units = 0i32;
        for u in s.encode_utf16() {
            self.put(&u.to_le_bytes());
            units = units.saturating_add(1);
        }
        self.int(units)
    }

    fn hash(&mut self) -> i64 {
        self.hasher.update(&self.pending);
        self.pending.clear();
        self.hasher.digest() as i64
    }
}

/// The number of UTF-16 code units of `s` (Java's `String.length()`).
fn java_length(s: &str) -> i32 {
    i32::try_from(s.encode_utf16().count()).unwrap_or(i32::MAX)
}

/// A topic's hash (Kafka's `computeTopicHash`): XXH3-64 over the magic byte 0, the topic id's
/// most and least significant 64 bits, the name, the partition count, then for each partition
/// `i` in order: `i` and, for each of its racks in sorted order, the rack's length and the rack.
/// Encoding: [`HashInput`]. Any change of the topic's id, name, partition count or racks changes
/// the input bytes, so (barring an XXH3 collision) the hash.
pub fn topic_hash(name: &str, topic: &TopicImage) -> i64 {
    let mut input = topic_header(name, topic);
    for i in 0..topic.partitions {
        input.int(i);
        let racks = usize::try_from(i)
            .ok()
            .and_then(|p| topic.racks.get(p))
            .map_or(&[][..], Vec::as_slice);
        for rack in racks {
            input.int(java_length(rack)).string(rack);
        }
    }
    input.hash()
}

/// The topic hash without the partitions' part, for topics over the task limits.
pub fn topic_header_hash(name: &str, topic: &TopicImage) -> i64 {
    topic_header(name, topic).hash()
}

fn topic_header(name: &str, topic: &TopicImage) -> HashInput {
    let id = topic.topic_id.0;
    let (mut msb, mut lsb) = ([0u8; 8], [0u8; 8]);
    msb.copy_from_slice(id.get(..8).unwrap_or(&[0; 8]));
    lsb.copy_from_slice(id.get(8..).unwrap_or(&[0; 8]));
    let mut input = HashInput::default();
    input
        .byte(0)
        .long(i64::from_be_bytes(msb))
        .long(i64::from_be_bytes(lsb))
        .string(name)
        .int(topic.partitions);
    input
}

/// The group's metadata hash (Kafka's `computeGroupHash`): 0 when `topics` (the existing
/// required topics) is empty, else XXH3-64 over their hashes as `long`s in name order.
pub fn metadata_hash<'a>(topics: impl Iterator<Item = (&'a str, &'a TopicImage)>) -> i64 {
    metadata_hash_within(topics, i32::MAX)
}

/// [`metadata_hash`], walking the partitions of topics up to `walk_limit` only.
pub(super) fn metadata_hash_within<'a>(
    topics: impl Iterator<Item = (&'a str, &'a TopicImage)>,
    walk_limit: i32,
) -> i64 {
    let sorted: BTreeMap<&str, &TopicImage> = topics.collect();
    if sorted.is_empty() {
        return 0;
    }
    let mut input = HashInput::default();
    for (name, topic) in sorted {
        input.long(topic.hash(name, walk_limit));
    }
    input.hash()
}

// -------------------------------------------------------------------------------------------
// StreamsGroupDescribe (PROTOCOL 4.10)

/// A group as the 4.2 describe shows it.
pub(crate) fn describe_group(g: &Group) -> DescribedGroup42 {
    let topology = Some(match &g.topology {
        None => DescribedTopology42 {
            epoch: -1,
            subtopologies: None,
        },
        Some(t) => DescribedTopology42 {
            epoch: t.epoch,
            subtopologies: Some(match &g.soft.configured {
                Some(Configuration::Ready(configured)) => {
                    configured_subtopologies(&t.subtopologies, configured)
                }
                _ => t.subtopologies.iter().map(stored_subtopology).collect(),
            }),
        },
    });
    let members = g
        .members
        .values()
        .map(|m| DescribedMember42 {
            member_id: m.member_id.clone(),
            member_epoch: m.member_epoch,
            instance_id: m.metadata.instance_id.clone(),
            rack_id: m.metadata.rack_id.clone(),
            client_id: m.metadata.client_id.clone(),
            client_host: m.metadata.client_host.clone(),
            topology_epoch: m.metadata.topology_epoch,
            process_id: m.metadata.process_id.clone(),
            user_endpoint: m.endpoint().map(EndpointJson::from),
            client_tags: m
                .metadata
                .client_tags
                .iter()
                .map(KeyValueJson::from)
                .collect(),
            task_offsets: super::admin::task_offsets_json(&m.soft.task_offsets),
            task_end_offsets: super::admin::task_offsets_json(&m.soft.task_end_offsets),
            assignment: AssignmentJson::from(&m.assigned),
            target_assignment: g
                .targets
                .get(&m.member_id)
                .map(AssignmentJson::from)
                .unwrap_or_default(),
            is_classic: false,
        })
        .collect();
    DescribedGroup42 {
        error_code: 0,
        error_message: None,
        group_id: g.group_id.clone(),
        group_state: g.state_kafka42().display().to_string(),
        group_epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        topology,
        members,
        authorized_operations: i32::MIN,
    }
}

/// A describe error entry (24, 69).
pub(crate) fn describe_error(group_id: &str, code: ErrorCode, message: String) -> DescribedGroup42 {
    DescribedGroup42 {
        error_code: code.code(),
        error_message: Some(message),
        group_id: group_id.to_string(),
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// A stored subtopology as the describe schema has it (no regexes, no copartition groups).
fn stored_subtopology(s: &Subtopology) -> DescribedSubtopology42 {
    DescribedSubtopology42 {
        subtopology_id: s.subtopology_id.clone(),
        source_topics: s.source_topics.clone(),
        repartition_sink_topics: s.repartition_sink_topics.clone(),
        state_changelog_topics: s.state_changelog_topics.clone(),
        repartition_source_topics: s.repartition_source_topics.clone(),
    }
}

/// The configured subtopologies (KAFKA-19730): sorted by id, topics sorted by name and
/// deduplicated, repartition source topics with their decided partition counts, changelogs with
/// the subtopology's task count, topic configs sorted by key.
fn configured_subtopologies(
    stored: &[Subtopology],
    configured: &[topology::ConfiguredSubtopology],
) -> Vec<DescribedSubtopology42> {
    configured
        .iter()
        .filter_map(|c| {
            let s = stored
                .iter()
                .find(|s| s.subtopology_id == c.subtopology_id)?;
            let counts: BTreeMap<&str, i32> = c
                .input_topics
                .iter()
                .map(|(name, n)| (name.as_str(), *n))
                .collect();
            let sorted = |names: &[String]| -> Vec<String> {
                names
                    .iter()
                    .cloned()
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect()
            };
            let infos = |list: &[TopicInfo], count: &dyn Fn(&TopicInfo) -> i32| -> Vec<TopicInfo> {
                let mut by_name: BTreeMap<&str, TopicInfo> = BTreeMap::new();
                for t in list {
                    by_name.entry(t.name.as_str()).or_insert_with(|| {
                        let mut configs: Vec<TopicConfig> = t.topic_configs.clone();
                        configs.sort();
                        TopicInfo {
                            name: t.name.clone(),
                            partitions: count(t),
                            replication_factor: t.replication_factor,
                            topic_configs: configs,
                        }
                    });
                }
                by_name.into_values().collect()
            };
            Some(DescribedSubtopology42 {
                subtopology_id: c.subtopology_id.clone(),
                source_topics: sorted(&s.source_topics),
                repartition_sink_topics: sorted(&s.repartition_sink_topics),
                state_changelog_topics: infos(&s.state_changelog_topics, &|_| c.num_tasks),
                repartition_source_topics: infos(&s.repartition_source_topics, &|t| {
                    counts.get(t.name.as_str()).copied().unwrap_or(t.partitions)
                }),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Uuid;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn image(partitions: i32, racks: Vec<Vec<&str>>) -> TopicImage {
        TopicImage::new(
            partitions,
            Uuid([7; 16]),
            racks
                .into_iter()
                .map(|r| r.into_iter().map(String::from).collect())
                .collect(),
        )
    }

    #[test]
    fn the_hash_input_is_hash4j_encoding() {
        let mut input = HashInput::default();
        input.byte(0).int(1).long(-2).string("ab");
        let bytes = [
            0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, b'a', 0, b'b', 0, 2, 0,
            0, 0,
        ];
        assert_eq!(input.pending, bytes);
        assert_eq!(input.hash(), xxhash_rust::xxh3::xxh3_64(&bytes) as i64);
        // XXH3-64 of the empty input (seed 0), the reference value of the algorithm.
        assert_eq!(HashInput::default().hash() as u64, 0x2d06_8005_38d3_94c2);
        // Streaming in chunks gives the one-shot hash of the whole input.
        let mut long = HashInput::default();
        let mut all = Vec::new();
        for i in 0..10_000 {
            long.int(i);
            all.extend_from_slice(&i.to_le_bytes());
        }
        assert_eq!(long.hash(), xxhash_rust::xxh3::xxh3_64(&all) as i64);
    }

    #[test]
    fn the_hash_changes_with_every_topic_property() {
        let base = image(2, vec![vec!["r1"], vec!["r1", "r2"]]);
        let h = topic_hash("in", &base);
        let mut other = base.clone();
        other.partitions = 3;
        assert_ne!(topic_hash("in", &other), h);
        let mut other = base.clone();
        other.topic_id = Uuid([8; 16]);
        assert_ne!(topic_hash("in", &other), h);
        let other = image(2, vec![vec!["r1"], vec!["r2"]]);
        assert_ne!(topic_hash("in", &other), h);
        assert_ne!(topic_hash("in2", &base), h);
        // Rack lists are length-prefixed: ["a", "b"] and ["ab"] differ.
        assert_ne!(
            topic_hash("t", &image(1, vec![vec!["a", "b"]])),
            topic_hash("t", &image(1, vec![vec!["ab"]]))
        );
        assert_eq!(metadata_hash(std::iter::empty()), 0);
        let one = metadata_hash([("in", &base)].into_iter());
        assert_ne!(one, 0);
        let two = metadata_hash([("in", &base), ("x", &other)].into_iter());
        assert_ne!(one, two);
        // Name order, not iteration order.
        assert_eq!(
            two,
            metadata_hash([("x", &other), ("in", &base)].into_iter())
        );
    }

    #[test]
    fn missing_sources_name_at_most_three() {
        let list = |n: usize| (0..n).map(|i| format!("t{i}")).collect::<Vec<_>>();
        assert_eq!(
            missing_sources_detail(&list(1)),
            "Source topics t0 are missing."
        );
        assert_eq!(
            missing_sources_detail(&list(3)),
            "Source topics t0, t1, t2 are missing."
        );
        assert_eq!(
            missing_sources_detail(&list(5)),
            "Source topics t0, t1, t2 and 2 additional topics are missing."
        );
    }
}

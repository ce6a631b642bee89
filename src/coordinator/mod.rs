//! The coordinator: groups, the topic image, timers, and dispatch of inputs (DESIGN 2).
//!
//! Every operation first computes its records without touching state, then checks the batch
//! limit, then applies the records through [`group::apply`], the same path a `Replay` input
//! takes. Soft state (timers, last-sent values) is committed only after that.
//!
//! Layout: [`handle`](Coordinator::handle) is the one way in. Each input type is an operation
//! in its own file (`heartbeat`, `leave`, `initialize`, `topic_metadata`, `delete`,
//! `manual_targets`, `replay`, `offset_commit`, `offset_fetch`, `offset_delete`,
//! `txn_offset_commit`, `transaction_completed`, `topology_description`); operations never
//! import each other. They share the services
//! `fence` (removing members and groups), `assignment` (target computation, held-back
//! assignments) and `timers_fire`, the dialect seam `dialect`, and the read-only `views`
//! (describe, snapshot, statuses, endpoints), which import no operation or service.

mod assignment;
mod delete;
pub(crate) mod dialect;
mod fence;
mod group_config;
mod heartbeat;
mod initialize;
mod leave;
mod manual_targets;
mod offset_commit;
mod offset_delete;
mod offset_fetch;
mod replay;
mod snapshots;
mod timers_fire;
mod topic_metadata;
mod topology_description;
mod transaction_completed;
mod txn_offset_commit;
pub(crate) mod views;

use std::collections::BTreeMap;

use serde_json::Value;

use self::dialect::DialectRules;
use self::replay::Replayed;
use crate::api::{Explain, Input, InputKind, Output, Response};
use crate::config::Config;
use crate::descriptions::Descriptions;
use crate::error::{BoundaryError, ErrorCode, ProtocolError};
use crate::group::{self, Group, GroupState, MemberState};
use crate::group_config::GroupConfigs;
use crate::offsets::{GroupOffsets, Offsets, Partitions};
use crate::ordered;
use crate::records::Dialect;
use crate::records::{encoded_size, Record, RecordKey};
use crate::timers::{TimerData, TimerKey, TimerKind, Timers};
use crate::topics::Topics;
use crate::topology::{self, Configuration};

pub use crate::topics::TopicImage;
pub use views::snapshot::Snapshot;

/// A deterministic, sans-IO streams group coordinator.
#[derive(Clone, Debug)]
pub struct Coordinator {
    config: Config,
    /// The dialect's answers (the one seam between the dialects).
    rules: &'static dyn DialectRules,
    groups: BTreeMap<String, Group>,
    /// Committed offsets, beside the groups.
    offsets: Offsets,
    topics: Topics,
    timers: Timers,
    now_ms: i64,
    /// Kafka 4.4's topology description store and solicitation back-off (broker memory).
    descriptions: Descriptions,
    /// Group-level configs (the metadata image's, reported by the host).
    group_configs: GroupConfigs,
    /// Heartbeat responses given back by the host, to build the next ones in.
    recycled: crate::api::response::Recycled,
    /// Configured topologies a failed write would undo (`snapshots`).
    unsnapshotted: Vec<snapshots::Unsnapshotted>,
}

/// Applies one record to the groups, or to the offsets when it is an offset commit (whose
/// value creates Kafka's simple group when no streams group of the id exists) or a classic
/// group tombstone (type 2, which deletes the simple group; a streams group of the id stays);
/// a streams group's record replaces the id's simple group. The one apply path of operations
/// and replay.
pub(crate) fn apply_record(
    groups: &mut BTreeMap<String, Group>,
    offsets: &mut Offsets,
    record: &Record,
    limits: &topology::Limits,
    dialect: crate::records::Dialect,
) -> Result<group::ApplyEffect, group::ApplyError> {
    let gid = record.key.group_id();
    if let RecordKey::OffsetCommit { .. } | RecordKey::ClassicGroupMetadata { .. } = record.key {
        // (A classic group record is a tombstone: no value of its type exists.)
        if !record.is_consistent() {
            return Err(group::ApplyError::KeyValueMismatch);
        }
        offsets.apply(record, groups.contains_key(gid));
        return Ok(group::ApplyEffect::default());
    }
    let effect = group::apply(groups, record, limits, dialect)?;
    if record.value.is_some() && offsets.is_simple_group(gid) {
        offsets.simple_group_deleted(gid);
    }
    Ok(effect)
}

/// What the timers fired before an input may change, kept so that a failing input can undo
/// them: the groups they touched as they were, every timer, and the time.
struct Checkpoint {
    groups: Vec<(String, Option<Group>)>,
    offsets: Vec<(String, Option<GroupOffsets>)>,
    timers: Timers,
    descriptions: Descriptions,
    now_ms: i64,
}

impl Checkpoint {
    fn new(c: &Coordinator) -> Self {
        Checkpoint {
            groups: Vec::new(),
            offsets: Vec::new(),
            timers: c.timers.clone(),
            descriptions: c.descriptions.clone(),
            now_ms: c.now_ms,
        }
    }

    /// Keeps `group_id` as it is now, unless already kept.
    fn keep(&mut self, c: &Coordinator, group_id: &str) {
        if !self.groups.iter().any(|(g, _)| g == group_id) {
            self.groups
                .push((group_id.to_string(), c.groups.get(group_id).cloned()));
            self.offsets
                .push((group_id.to_string(), c.offsets.keep(group_id)));
        }
    }

    fn restore(self, c: &mut Coordinator) {
        for (gid, group) in self.groups {
            match group {
                Some(group) => c.groups.insert(gid, group),
                None => c.groups.remove(&gid),
            };
        }
        for (gid, kept) in self.offsets {
            c.offsets.restore(&gid, kept);
        }
        c.timers = self.timers;
        c.descriptions = self.descriptions;
        c.now_ms = self.now_ms;
    }
}

/// Records, explanations and soft effects an operation wants to commit.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub records: Vec<Record>,
    pub explain: Vec<Explain>,
    /// A target computation's memo and the records it wrote (`compute_targets`), kept for the
    /// group once committed if no other record of the batch writes a target.
    pub memo: Option<(crate::assignor::Memo, std::ops::Range<usize>)>,
}

impl Batch {
    fn push(&mut self, record: Record) {
        self.records.push(record);
    }
}

impl Coordinator {
    /// A coordinator with the given settings (`Config::from_json` parses Kafka-named ones).
    pub fn new(config: Config) -> Result<Coordinator, BoundaryError> {
        config.validate()?;
        // Kafka's timer fires ties in the order they were scheduled; the draft by key.
        let timers = match config.dialect.is_kafka() {
            true => Timers::in_scheduling_order(),
            false => Timers::default(),
        };
        Ok(Coordinator {
            descriptions: Descriptions::new(
                config.topology_description_store && config.dialect == Dialect::Kafka44,
            ),
            rules: dialect::rules(config.dialect),
            config,
            groups: BTreeMap::new(),
            offsets: Offsets::default(),
            topics: BTreeMap::new(),
            timers,
            now_ms: 0,
            group_configs: GroupConfigs::default(),
            recycled: Default::default(),
            unsnapshotted: Vec::new(),
        })
    }

    /// A coordinator from a JSON settings object.
    pub fn from_json_config(config: &Value) -> Result<Coordinator, BoundaryError> {
        Coordinator::new(Config::from_json(config)?)
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Every group, by id.
    pub fn groups(&self) -> &BTreeMap<String, Group> {
        &self.groups
    }

    /// One group.
    pub fn group(&self, group_id: &str) -> Option<&Group> {
        self.groups.get(group_id)
    }

    /// The committed offsets of every group.
    pub fn offsets(&self) -> &Offsets {
        &self.offsets
    }

    /// The pending timers.
    pub fn timers(&self) -> &Timers {
        &self.timers
    }

    /// The topic image as the host reported it.
    pub fn topics(&self) -> &Topics {
        &self.topics
    }

    /// The topology description stored for a group at `topology_epoch` (Kafka 4.4, when a
    /// description plugin is configured).
    pub fn stored_topology_description(
        &self,
        group_id: &str,
        topology_epoch: i32,
    ) -> Option<&crate::api::TopologyDescriptionJson> {
        self.descriptions.get(group_id, topology_epoch)
    }

    /// The latest `nowMs` seen.
    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// Handles one input: fires due timers, then the input itself. The one way in: every other
    /// entry ([`Coordinator::replay`], [`Coordinator::handle_json`], the bindings) is a thin
    /// wrapper with the same meaning.
    ///
    /// Atomic: an input answered with a boundary error changes nothing, not even through the
    /// timers due by its time; they stay pending and fire with the next input (DESIGN 2).
    pub fn handle(&mut self, input: Input) -> Result<Output, BoundaryError> {
        self.handle_ref(&input)
    }

    /// [`Coordinator::handle`] of a borrowed input: a host that decodes into one input it
    /// keeps (`wire::FrameScratch`) reuses its buffers, so a steady heartbeat allocates
    /// nothing on its way in.
    pub fn handle_ref(&mut self, input: &Input) -> Result<Output, BoundaryError> {
        self.precheck(input)?;
        // A Replay's records are decoded once, here at the boundary.
        let replayed = match &input.kind {
            InputKind::Replay { records } => self.decode_records(records)?,
            _ => Vec::new(),
        };
        self.run(
            input,
            replayed.iter().map(|(i, r)| (*i, Replayed::Record(r))),
        )
    }

    /// A `Replay` input of already decoded records (e.g. a `__consumer_offsets` partition) at
    /// `now_ms`: due timers fire first and their records are in the output, as for
    /// [`Coordinator::handle`]; a record that cannot be applied changes nothing. A record of a
    /// transactional batch has its `producer` set (its offset is pending until the host reports
    /// the batch's end marker as a `TransactionCompleted` input, docs/transactions.md).
    pub fn replay(&mut self, records: &[Record], now_ms: i64) -> Result<Output, BoundaryError> {
        let input = Input {
            now_ms,
            kind: InputKind::Replay {
                records: Vec::new(),
            },
        };
        let records = records.iter().map(Replayed::Record).enumerate();
        self.run(&input, records)
    }

    /// A `Replay` of a log read back as a broker holds it: each record's key and value bytes
    /// (`None`: a tombstone), in Kafka's bytes form, at `now_ms`. The same answer as a `Replay`
    /// input of these records as `keyBytes`/`valueBytes`, errors and their paths included
    /// (`records[i].valueBytes`), without the base64 and the JSON: member records are read in
    /// place, and records of other kinds are skipped (PROTOCOL 5.4). The records are of plain
    /// batches: a transactional batch's go through [`Coordinator::replay`] with their producer.
    #[cfg(feature = "replay-text")]
    pub fn replay_bytes(
        &mut self,
        records: &[(&[u8], Option<&[u8]>)],
        now_ms: i64,
    ) -> Result<Output, BoundaryError> {
        let read = crate::records::in_place::read_log(self.config.dialect, records)?;
        self.replay_read(now_ms, &read)
    }

    /// A `Replay` at `now_ms` of the records of a log read back ([`Coordinator::replay_bytes`],
    /// and a `Replay` input's text of bytes-form records).
    #[cfg(feature = "replay-text")]
    fn replay_read(
        &mut self,
        now_ms: i64,
        read: &crate::records::in_place::ReadLog<'_>,
    ) -> Result<Output, BoundaryError> {
        let input = Input {
            now_ms,
            kind: InputKind::Replay {
                records: Vec::new(),
            },
        };
        let records = read.records.iter();
        self.run(
            &input,
            records.map(|(i, r)| (*i, Replayed::read(r, &read.tasks))),
        )
    }

    /// [`Coordinator::handle`] after the boundary checks, with a `Replay`'s decoded records.
    fn run<'r>(
        &mut self,
        input: &Input,
        replayed: impl Iterator<Item = (usize, Replayed<'r>)> + Clone,
    ) -> Result<Output, BoundaryError> {
        let raw_now = input.now_ms;
        let now = raw_now.max(self.now_ms);
        // Looked up without building a key: every input asks.
        if self.config.dialect.is_kafka()
            && self.timers.get_at(TimerKind::Retention, "", "").is_none()
        {
            // Kafka's group cleanup runs every `offsets.retention.check.interval.ms` from the
            // coordinator's load: here, its first input.
            let first =
                now.saturating_add(i64::from(self.config.offsets_retention_check_interval_ms));
            let cleanup = TimerKey::new(TimerKind::Retention, "", "");
            self.timers.schedule(cleanup, first, TimerData::None);
        }
        // A Replay is the one input that can still fail once the due timers fired: its records
        // meet the state those timers left. Keep what the timers change to undo them then.
        let mut checkpoint = (matches!(input.kind, InputKind::Replay { .. })
            && self.timers.next_deadline().is_some_and(|d| d <= now))
        .then(|| Checkpoint::new(self));
        let before_ms = self.now_ms;
        let mut out = Output::default();
        self.fire_timers(now, &mut out, checkpoint.as_mut());
        self.now_ms = now;
        if let InputKind::Replay { .. } = input.kind {
            if let Err(e) = self.replay_records(now, replayed) {
                match checkpoint {
                    Some(checkpoint) => checkpoint.restore(self),
                    None => self.now_ms = before_ms,
                }
                return Err(e);
            }
        }
        match &input.kind {
            InputKind::StreamsGroupHeartbeat { client, request } => {
                self.heartbeat(now, raw_now, client, request, &mut out)
            }
            InputKind::StreamsGroupInitialize { request, .. } => {
                if self.rules.supports_initialize() {
                    self.initialize(now, request, &mut out)
                } else {
                    initialize::unsupported(&mut out)
                }
            }
            InputKind::StreamsGroupDescribe { request } => {
                out.response = Some(self.rules.describe(self, request));
            }
            InputKind::TopicMetadata {
                topics,
                deleted_topics,
            } => self.topic_metadata(topics, deleted_topics, &mut out)?,
            InputKind::AdvanceTime => {}
            InputKind::DeleteGroups { group_ids } => self.delete_groups(group_ids, &mut out),
            InputKind::Replay { .. } => {}
            InputKind::SetTargetAssignment {
                group_id,
                assignment,
            } => self.set_target_assignment(group_id, assignment, &mut out),
            InputKind::OffsetCommit {
                api_version,
                request,
            } => self.offset_commit(now, *api_version, request, &mut out),
            InputKind::OffsetFetch {
                api_version,
                request,
            } => self.offset_fetch(*api_version, request, &mut out),
            InputKind::ListGroups { request } => {
                out.response = Some(Response::ListGroups(self.list_groups(request)));
            }
            InputKind::OffsetDelete { request } => self.offset_delete(request, &mut out),
            InputKind::DescribeGroups {
                api_version,
                request,
            } => {
                let described = self.describe_groups(*api_version, request);
                out.response = Some(Response::DescribeGroups(described));
            }
            InputKind::ConsumerGroupDescribe { request } => {
                let described = self.consumer_group_describe(request);
                out.response = Some(Response::ConsumerGroupDescribe(described));
            }
            InputKind::TxnOffsetCommit {
                api_version,
                request,
            } => self.txn_offset_commit(now, *api_version, request, &mut out),
            InputKind::TransactionCompleted {
                producer_id,
                result,
                ..
            } => self.transaction_completed(*producer_id, *result, &mut out),
            InputKind::StreamsGroupTopologyDescriptionUpdate { request } => {
                self.topology_description_update(request, &mut out)
            }
            InputKind::GroupConfig { group_id, configs } => self.group_config(group_id, configs)?,
        }
        out.next_deadline_ms = self.timers.next_deadline();
        Ok(out)
    }

    /// A heartbeat: validated by the dialect and bounded in size, then a leave (epoch -1 or -2)
    /// or a regular heartbeat; a failure is the dialect's error response.
    fn heartbeat(
        &mut self,
        now: i64,
        raw_now: i64,
        client: &crate::api::ClientInfo,
        req: &crate::api::HeartbeatRequest,
        out: &mut Output,
    ) {
        let result = self
            .rules
            .validate(req)
            .and_then(|()| self.check_request_size(req))
            .and_then(|()| {
                if req.member_epoch == -1 || req.member_epoch == -2 {
                    self.leave(now, req, out)
                } else {
                    self.regular_heartbeat(now, raw_now, client, req, out)
                }
            });
        if let Err(e) = result {
            self.revert_to_snapshot();
            if e.code == ErrorCode::UnknownServerError && self.config.dialect.is_kafka() {
                out.explain.push(Explain::ServerError {
                    group_id: req.group_id.clone(),
                    message: e.message.clone(),
                });
            }
            out.response = Some(self.rules.error_response(&e));
        }
        if let Some(Response::Heartbeat42(h)) = &mut out.response {
            h.with_version_defaults(req.api_version);
        }
    }

    /// A streams input's `apiVersion` against the dialect's (Kafka closes the connection of a
    /// version it does not serve).
    fn check_streams_version(&self, v: i16) -> Result<(), BoundaryError> {
        let max = self.rules.streams_max_version();
        if (0..=max).contains(&v) {
            return Ok(());
        }
        Err(BoundaryError::input(
            "apiVersion",
            format!(
                "must be a version this release serves, 0 to {max} in {}",
                self.config.dialect.name()
            ),
        ))
    }

    /// Boundary checks that must happen before any timer fires.
    fn precheck(&self, input: &Input) -> Result<(), BoundaryError> {
        match &input.kind {
            InputKind::TopicMetadata {
                topics,
                deleted_topics,
            } => topic_metadata::check(topics, deleted_topics),
            InputKind::StreamsGroupHeartbeat { request, .. } => {
                self.check_streams_version(request.api_version)?;
                self.rules.precheck_heartbeat(request)
            }
            InputKind::StreamsGroupDescribe { request } => {
                self.check_streams_version(request.api_version)?;
                if request.include_topology_description && request.api_version < 1 {
                    return Err(BoundaryError::input(
                        "request.includeTopologyDescription",
                        "version 0 cannot ask for the topology description (version 1+)",
                    ));
                }
                Ok(())
            }
            InputKind::OffsetCommit { request, .. } => offset_commit::precheck(request),
            InputKind::TxnOffsetCommit {
                api_version,
                request,
            } => {
                let max = self
                    .rules
                    .release()
                    .map_or(5, |r| r.txn_offset_commit_max_version());
                txn_offset_commit::precheck(max, self.config.dialect.name(), *api_version, request)
            }
            InputKind::TransactionCompleted {
                producer_id,
                producer_epoch,
                ..
            } => {
                if *producer_id < 0 {
                    return Err(BoundaryError::input("producerId", "must be 0 or more"));
                }
                if *producer_epoch < 0 {
                    return Err(BoundaryError::input("producerEpoch", "must be 0 or more"));
                }
                Ok(())
            }
            // No client of an older release can send API key 93.
            InputKind::StreamsGroupTopologyDescriptionUpdate { .. }
                if self.config.dialect != Dialect::Kafka44 =>
            {
                Err(BoundaryError::input(
                    "type",
                    format!(
                        "StreamsGroupTopologyDescriptionUpdate (API key 93) is Kafka 4.4's; {} does not serve it",
                        self.config.dialect.name()
                    ),
                ))
            }
            InputKind::OffsetFetch {
                api_version,
                request,
            } => offset_fetch::precheck(*api_version, request),
            InputKind::GroupConfig { group_id, configs } => {
                group_config::precheck(&self.config, group_id, configs)
            }
            _ => Ok(()),
        }
    }

    /// Parses and handles one JSON input; the answer is the output or the boundary error, as
    /// JSON text (what the CLI, the JS binding and the WASI module return).
    pub fn handle_json(&mut self, text: &str) -> String {
        match self.handle_text(text) {
            Ok(out) => out.to_json_string(self.config.dialect, self.config.record_bytes),
            Err(e) => crate::api::boundary_error_json(&e).to_string(),
        }
    }

    /// [`Coordinator::handle`] of JSON text by the cheapest way that gives the same answer: a
    /// heartbeat's fast decoding first (the hot path pays for no other check), then a replay's
    /// (a log read back, its records decoded straight from the text), else the general way.
    fn handle_text(&mut self, text: &str) -> Result<Output, BoundaryError> {
        if let Some(input) = Input::parse_heartbeat(text) {
            return self.handle(input);
        }
        #[cfg(feature = "replay-text")]
        if let Some(decoded) = crate::api::replay_from_text(text) {
            if let Some(read) = decoded.records(self.config.dialect) {
                return self.replay_read(decoded.now_ms, &read);
            }
        }
        Input::parse_tree(text).and_then(|input| self.handle(input))
    }

    /// Applies records of an operation after the size check; any failure leaves state as it was.
    ///
    /// The coordinator's own records apply by construction. Only a tombstone can fail against
    /// the state (when a replayed log left it inconsistent), so a batch with tombstones keeps the
    /// groups it touches to put them back on failure; the others cannot fail once every key and
    /// value agree.
    fn commit(&mut self, batch: &Batch) -> Result<(), ProtocolError> {
        let size: usize = batch
            .records
            .iter()
            .map(|r| encoded_size(self.config.dialect, r))
            .sum();
        if size as i64 > self.config.max_record_batch_bytes {
            return Err(ProtocolError::new(
                ErrorCode::UnknownServerError,
                format!(
                    "The records of this operation take {size} bytes, more than the maximum record batch size of {} bytes.",
                    self.config.max_record_batch_bytes
                ),
            ));
        }
        // The coordinator builds its records through `records::build`: a key and value of
        // different kinds is a bug, not an answer.
        if !batch.records.iter().all(Record::is_consistent) {
            crate::error::bug("an operation built a record whose key and value disagree");
        }
        self.snapshot_taken();
        let limits = self.limits();
        let mut backup: Vec<(String, Option<Group>, Option<GroupOffsets>)> = Vec::new();
        if batch.records.iter().any(|r| r.value.is_none()) {
            for r in &batch.records {
                let gid = r.key.group_id();
                if !backup.iter().any(|(g, ..)| g == gid) {
                    backup.push((
                        gid.to_string(),
                        self.groups.get(gid).cloned(),
                        self.offsets.keep(gid),
                    ));
                }
            }
        }
        if let Some(gid) = offset_commit::plain_commits_of_one_group(&batch.records) {
            let exists = self.groups.contains_key(gid);
            self.offsets
                .commit_all(gid, offset_commit::plain_commits(&batch.records), exists);
            return Ok(());
        }
        for r in &batch.records {
            if let Err(e) = apply_record(
                &mut self.groups,
                &mut self.offsets,
                r,
                &limits,
                self.config.dialect,
            ) {
                for (gid, group, offsets) in backup {
                    self.offsets.restore(&gid, offsets);
                    match group {
                        Some(group) => self.groups.insert(gid, group),
                        None => self.groups.remove(&gid),
                    };
                }
                // A log replayed earlier can leave a group that a tombstone batch does not fit.
                return Err(ProtocolError::new(
                    ErrorCode::UnknownServerError,
                    format!("Internal error: {e}"),
                ));
            }
        }
        Ok(())
    }

    /// `offsets.max.partitions.per.group`: the partitions the group holds an offset of
    /// (committed or pending in a transaction) after the batch's offset commit records.
    fn check_offsets_limit(&self, gid: &str, batch: &Batch) -> Result<(), ProtocolError> {
        let current = self.offsets.group(gid);
        // A commit lists a topic's partitions together: its topic is looked up once per run.
        let mut run: Option<(&str, Option<&Partitions>)> = None;
        let mut new: Vec<(&str, i32)> = Vec::new();
        for r in &batch.records {
            let RecordKey::OffsetCommit {
                topic, partition, ..
            } = &r.key
            else {
                continue;
            };
            let held = current.is_some_and(|g| {
                let parts = match run {
                    Some((t, parts)) if t == &**topic => parts,
                    _ => g.topic(topic),
                };
                run = Some((topic, parts));
                parts.is_some_and(|p| p.get(*partition).is_some())
                    || g.has_pending(topic, *partition)
            });
            if !held {
                new.push((topic, *partition));
            }
        }
        new.sort_unstable();
        new.dedup();
        let pending_only = current.map_or(0, |g| {
            g.pending_partitions()
                .filter(|(t, p)| g.get(t, *p).is_none())
                .count()
        });
        let after = current.map_or(0, |g| g.len()) + pending_only + new.len();
        let max = usize::try_from(self.config.offsets_max_partitions_per_group).unwrap_or(0);
        if after > max {
            return Err(ProtocolError::new(
                ErrorCode::UnknownServerError,
                format!(
                    "Group {gid} would hold {after} committed partitions, more than offsets.max.partitions.per.group ({max})."
                ),
            ));
        }
        Ok(())
    }

    /// Commits `batch` for `group_id` and reports the state changes it caused; the error is the
    /// batch limit.
    fn commit_group(
        &mut self,
        group_id: &str,
        batch: Batch,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        if batch.records.is_empty() {
            out.explain.extend(batch.explain);
            return Ok(());
        }
        let before = self.snapshot_states(group_id, &batch.records);
        self.commit(&batch)?;
        // Applying the target records dropped the group's memo; the computation's own
        // describes the targets now, unless some other record of the batch wrote one.
        if let Some((memo, written)) = batch.memo {
            let other_target = batch.records.iter().enumerate().any(|(i, r)| {
                !written.contains(&i) && matches!(r.key, RecordKey::TargetAssignmentMember { .. })
            });
            if let (false, Some(group)) = (other_target, self.groups.get_mut(group_id)) {
                group.soft.assignor_memo = Some(memo);
            }
        }
        // Assignment batching counts from every committed target assignment (soft state).
        if batch.records.iter().any(|r| {
            matches!(r.key, RecordKey::TargetAssignmentMetadata { .. }) && r.value.is_some()
        }) {
            if let Some(group) = self.groups.get_mut(group_id) {
                group.soft.last_assignment_ms = Some(self.now_ms);
            }
        }
        out.push_records(batch.records);
        out.explain.extend(batch.explain);
        if let (Some((state, members)), Some(group)) = (before, self.groups.get(group_id)) {
            for (id, old) in members {
                if let Some(m) = group.members.get(&id) {
                    if m.state != old {
                        out.explain.push(Explain::MemberStateChanged {
                            group_id: group_id.to_string(),
                            member_id: id,
                            from: MemberState::from_code(old).name(),
                            to: m.member_state().name(),
                            member_epoch: m.member_epoch,
                        });
                    }
                }
            }
            let now = self.group_state(group);
            if now != state {
                out.explain.push(Explain::GroupStateChanged {
                    group_id: group_id.to_string(),
                    from: state.code(),
                    to: now.code(),
                });
            }
        }
        Ok(())
    }

    /// The group state and the states of the members that `records` touch.
    fn snapshot_states(
        &self,
        group_id: &str,
        records: &[Record],
    ) -> Option<(GroupState, Vec<(String, i8)>)> {
        let group = self.groups.get(group_id)?;
        let mut members: Vec<(String, i8)> = records
            .iter()
            .filter_map(|r| r.key.member_id())
            .filter_map(|id| group.members.get(id).map(|m| (id.to_string(), m.state)))
            .collect();
        ordered::sort(&mut members);
        members.dedup();
        Some((self.group_state(group), members))
    }

    fn schedule(
        &mut self,
        kind: TimerKind,
        group_id: &str,
        subject: &str,
        deadline: i64,
        data: TimerData,
    ) {
        self.timers
            .schedule_at(kind, group_id, subject, deadline, data);
    }

    fn cancel(&mut self, kind: TimerKind, group_id: &str, subject: &str) {
        self.timers.cancel_at(kind, group_id, subject);
    }

    /// The limits on one topology's cost, from the settings.
    pub(crate) fn limits(&self) -> topology::Limits {
        topology::Limits::from(&self.config)
    }

    /// The group state as the dialect derives it (PROTOCOL 2.2).
    pub fn group_state(&self, group: &Group) -> GroupState {
        self.rules.group_state(group)
    }

    /// The group's configured topology: the draft's derived one, or 4.2's as the last refresh
    /// left it (PROTOCOL 2.1).
    fn configured_of<'a>(&self, group: &'a Group) -> Option<&'a Configuration> {
        self.rules.configured(group)
    }

    /// Whether the group's 4.2 initial rebalance delay is pending (4.7).
    fn initial_delay_pending(&self, group_id: &str) -> bool {
        self.timers
            .get_at(TimerKind::InitialRebalanceDelay, group_id, "")
            .is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Dialect;
    use crate::records::{
        CurrentMemberAssignmentValue, GroupMetadataValue, RecordKey, RecordValue,
    };

    fn group_metadata(epoch: i32) -> Record {
        Record::new(
            RecordKey::GroupMetadata {
                group_id: "g".into(),
            },
            RecordValue::GroupMetadata(GroupMetadataValue {
                epoch,
                ..Default::default()
            }),
        )
    }

    fn member_at_epoch_1() -> Record {
        Record::new(
            RecordKey::CurrentMemberAssignment {
                group_id: "g".into(),
                member_id: "m".into(),
            },
            RecordValue::CurrentMemberAssignment(Box::new(CurrentMemberAssignmentValue {
                member_epoch: 1,
                ..Default::default()
            })),
        )
    }

    #[test]
    fn a_batch_that_fails_midway_leaves_the_groups_as_they_were() {
        let mut c = Coordinator::new(Config::default()).unwrap();
        let _ = c
            .replay(&[group_metadata(1), member_at_epoch_1()], 0)
            .unwrap();
        let before = c.groups.clone();
        // The epoch bump applies, then the member tombstone fails (its current assignment is
        // still at epoch 1): nothing of the batch may stay applied.
        let batch = Batch {
            records: vec![
                group_metadata(2),
                Record::tombstone(RecordKey::MemberMetadata {
                    group_id: "g".into(),
                    member_id: "m".into(),
                }),
            ],
            ..Batch::default()
        };
        assert!(c.commit(&batch).is_err());
        assert_eq!(c.groups, before);
        assert_eq!(c.groups["g"].group_epoch, 1);
    }

    #[test]
    fn a_replayed_record_whose_key_and_value_disagree_creates_no_group() {
        let mut groups = BTreeMap::new();
        let record = Record {
            key: RecordKey::Topology {
                group_id: "new".into(),
            },
            value: Some(RecordValue::GroupMetadata(GroupMetadataValue::default())),
            producer: None,
        };
        assert_eq!(
            group::apply(
                &mut groups,
                &record,
                &topology::Limits::default(),
                Dialect::Kip1071Draft
            ),
            Err(group::ApplyError::KeyValueMismatch)
        );
        assert!(groups.is_empty());
        let mut c = Coordinator::new(Config::default()).unwrap();
        assert!(c.replay(&[group_metadata(1), record], 0).is_err());
        assert!(c.groups.is_empty());
    }

    /// An operation's own record of mismatched kinds is a bug: it fails loudly.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    #[should_panic(expected = "key and value disagree")]
    fn an_operation_record_whose_key_and_value_disagree_is_a_bug() {
        let mut c = Coordinator::new(Config::default()).unwrap();
        let batch = Batch {
            records: vec![Record {
                key: RecordKey::Topology {
                    group_id: "g".into(),
                },
                value: Some(RecordValue::GroupMetadata(GroupMetadataValue::default())),
                producer: None,
            }],
            ..Batch::default()
        };
        let _ = c.commit(&batch);
    }
}

/// The api's text writer (`Output::to_json_string`) against serde on real outputs, and the
/// coordinator's refusal of a config built in code: here, beside the coordinator, so that
/// neither `api` nor `config` imports it (they ran under wasm beside what they test, and do
/// here).
#[cfg(test)]
mod outputs_and_config {
    use super::*;
    use crate::records::Dialect;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn coordinator_outputs_are_written_as_serde_writes_them() {
        for (dialect, name) in [
            (Dialect::Kip1071Draft, "kip1071-draft"),
            (Dialect::Kafka42, "kafka-4.2"),
        ] {
            let config =
                serde_json::json!({"dialect": name, "group.streams.num.standby.replicas": 1});
            let mut c = Coordinator::from_json_config(&config).expect("config");
            let mut texts = vec![
                r#"{"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 4}]}"#.to_string(),
                r#"{"nowMs": 0, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g", "\"odd\u00e9"]}}"#.to_string(),
            ];
            if dialect == Dialect::Kip1071Draft {
                texts.push(r#"{"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "g", "topologyId": "t", "topology": [{"subtopologyId": "0", "sourceTopics": ["in"]}]}}"#.into());
            }
            let topology = if dialect.is_kafka() {
                r#", "endpointInformationEpoch": 0, "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]}"#
            } else {
                r#", "topologyId": "t""#
            };
            for m in ["m1", "m\"2\u{1}"] {
                let id = serde_json::to_string(m).expect("id");
                texts.push(format!(
                    r#"{{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": {id}, "memberEpoch": 0, "processId": "p", "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [], "warmupTasks": [], "userEndpoint": {{"host": "h", "port": 1}}{topology}}}}}"#
                ));
            }
            let epoch = if dialect.is_kafka() {
                r#", "endpointInformationEpoch": 0"#
            } else {
                ""
            };
            texts.push(format!(r#"{{"nowMs": 2, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": "m1", "memberEpoch": 7{epoch}}}}}"#));
            texts.push(r#"{"nowMs": 100000, "type": "AdvanceTime"}"#.into());
            let mut written = 0;
            for text in &texts {
                let Ok(input) = crate::api::Input::parse(text) else {
                    panic!("{text}");
                };
                let Ok(out) = c.handle(input) else {
                    panic!("{text}");
                };
                written += out.records.len();
                for record_bytes in [false, true] {
                    let ours = out.to_json_string(dialect, record_bytes);
                    let serde = serde_json::to_string(&out.json(dialect, record_bytes))
                        .expect("serialises");
                    assert_eq!(ours, serde, "{text}");
                    // The wire faces' fields: the same output but its response, appended.
                    let mut fields = b"frame".to_vec();
                    assert!(out.append_fields_json(dialect, record_bytes, &mut fields));
                    let mut value = out.to_json(dialect, record_bytes);
                    value
                        .as_object_mut()
                        .expect("an object")
                        .shift_remove("response");
                    assert_eq!(fields[..5], *b"frame");
                    assert_eq!(fields[5..], *value.to_string().as_bytes(), "{text}");
                }
            }
            assert!(written > 0, "the sequence wrote records ({name})");
        }
    }

    #[test]
    fn a_config_built_in_code_out_of_range_is_refused() {
        let c = Config {
            max_tasks: -5,
            ..Config::default()
        };
        assert!(Coordinator::new(c).is_err());
    }
}

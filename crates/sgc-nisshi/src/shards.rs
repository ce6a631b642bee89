//! The streams group coordinators, one per `__consumer_offsets` partition, and their log: a
//! Nisshi topic partitioned like `__consumer_offsets` (`__sgc_streams_offsets`). One task owns
//! every coordinator and takes the requests in order; what a request writes is appended to its
//! partition as one batch per output before the response leaves. A failed append answers the
//! request `COORDINATOR_NOT_AVAILABLE` and rebuilds the partition's coordinator from its log.
//! Timers fire at the coordinators' earliest deadline (`nextDeadlineMs`); the topics Nisshi
//! knows reach the coordinators as `TopicMetadata` inputs.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use nisshi_sans_io::IsolationLevel;
use nisshi_sans_io::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use nisshi_sans_io::record::{Record as NisshiRecord, deflated, inflated};
use nisshi_storage::{ArcDynStorage, Storage, Topition};
use serde_json::json;
use streams_group_coordinator::api::{Input, InputKind, Output, TopicSpec};
use streams_group_coordinator::records::{Dialect, Record, encode_key, encode_value};
use streams_group_coordinator::topology::TopicToCreate;
use streams_group_coordinator::wire::{self, FrameScratch, Peer, host};
use streams_group_coordinator::{BoundaryError, Coordinator, partition_for};
use tokio::sync::{mpsc, oneshot};

/// The topic the coordinators' records are kept in.
pub const LOG_TOPIC: &str = "__sgc_streams_offsets";

/// The dialect the coordinators answer in.
pub const DIALECT: Dialect = Dialect::Kafka42;

/// The largest read of the log at once, in bytes.
const FETCH_BYTES: u32 = 4 << 20;

/// What the connections ask of the coordinators.
pub enum Job {
    /// A request frame of a streams group API; the response frame, or `None` when the frame
    /// does not read (Kafka closes the connection).
    Frame {
        frame: Vec<u8>,
        peer: Peer,
        reply: oneshot::Sender<Option<Vec<u8>>>,
    },
    /// A request of a group API Nisshi serves too (OffsetCommit, OffsetFetch, OffsetDelete,
    /// DescribeGroups, DeleteGroups, ListGroups, ConsumerGroupDescribe): who answers it.
    Shared {
        frame: Vec<u8>,
        peer: Peer,
        reply: oneshot::Sender<Shared>,
    },
    /// Nisshi's topics may have changed (a `CreateTopics`, `DeleteTopics` or
    /// `CreatePartitions` went through): read them again.
    TopicsChanged,
}

/// Who answers a shared group API's request.
pub enum Shared {
    /// None of its groups is a streams group here: Nisshi.
    Nisshi,
    /// The coordinators, every group being theirs: their answer, or `None` to close.
    Ours(Option<Vec<u8>>),
    /// Both: Nisshi's answer with the entries of the `streams` groups taken from `ours`
    /// (`ListGroups`: the groups of both).
    Both { ours: Vec<u8>, streams: Vec<String> },
}

/// Milliseconds since the epoch: the clock the coordinators are driven by.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

struct Shard {
    partition: i32,
    coordinator: Coordinator,
    scratch: FrameScratch,
    /// Why the partition cannot answer (its log does not load), if it cannot.
    stopped: Option<String>,
}

/// Every coordinator and the storage their log is in.
pub struct Shards {
    storage: ArcDynStorage,
    /// The coordinators' settings (checked by [`config`]).
    config: serde_json::Value,
    /// A new coordinator of those settings.
    coordinator: Coordinator,
    shards: Vec<Shard>,
    /// The topics last given to the coordinators.
    topics: BTreeMap<String, TopicSpec>,
}

/// The coordinators' settings (`--config`), checked: the dialect is kafka-4.2.
pub fn config(mut config: serde_json::Value) -> Result<(serde_json::Value, i32), String> {
    if config.is_null() {
        config = json!({});
    }
    let serde_json::Value::Object(map) = &mut config else {
        return Err("--config: the configuration must be a JSON object".into());
    };
    match map.get("dialect").and_then(serde_json::Value::as_str) {
        None | Some("kafka-4.2") => {}
        Some(other) => {
            return Err(format!(
                "--config: dialect {other:?}: only kafka-4.2 is served"
            ));
        }
    }
    map.insert("dialect".into(), json!("kafka-4.2"));
    let probe = Coordinator::from_json_config(&config).map_err(|e| format!("--config: {e}"))?;
    let partitions = probe.config().offsets_topic_num_partitions;
    Ok((config, partitions))
}

/// A coordinator of settings [`config`] has checked.
fn new_coordinator(config: &serde_json::Value) -> Coordinator {
    Coordinator::from_json_config(config).unwrap_or_else(|_| {
        // `config` has checked them: the defaults stand in should they ever not read.
        Coordinator::from_json_config(&json!({"dialect": "kafka-4.2"}))
            .unwrap_or_else(|e| unreachable!("the kafka-4.2 defaults: {e}"))
    })
}

/// The records of one output as one batch (magic 2, no compression), stamped `now`.
fn batch(records: &[Record], now: i64) -> Result<deflated::Batch, String> {
    let mut builder = inflated::Batch::builder()
        .magic(2)
        .base_timestamp(now)
        .max_timestamp(now)
        .producer_id(-1)
        .producer_epoch(-1)
        .base_sequence(-1)
        .last_offset_delta(i32::try_from(records.len().saturating_sub(1)).unwrap_or(i32::MAX));
    for (i, r) in records.iter().enumerate() {
        let key = Bytes::from(encode_key(DIALECT, &r.key));
        let value = r
            .value
            .as_ref()
            .map(|v| Bytes::from(encode_value(DIALECT, v)));
        builder = builder.record(
            NisshiRecord::builder()
                .offset_delta(i32::try_from(i).unwrap_or(i32::MAX))
                .key(Some(key))
                .value(value),
        );
    }
    let inflated = builder.build().map_err(|e| format!("{e:?}"))?;
    deflated::Batch::try_from(inflated).map_err(|e| format!("{e:?}"))
}

/// Appends an output's records to `partition` of the log, as one batch.
async fn append(
    storage: &ArcDynStorage,
    partition: i32,
    records: &[Record],
    now: i64,
) -> Result<(), String> {
    if records.is_empty() {
        return Ok(());
    }
    let batch = batch(records, now)?;
    storage
        .produce(None, &Topition::new(LOG_TOPIC, partition), batch)
        .await
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
}

/// Reads `partition` of the log from its start into a new coordinator; the coordinator and
/// the records its replay wrote (to append again).
async fn load(
    storage: &ArcDynStorage,
    config: &serde_json::Value,
    partition: i32,
) -> Result<(Coordinator, Output), String> {
    let mut c = new_coordinator(config);
    let now = now_ms();
    let topition = Topition::new(LOG_TOPIC, partition);
    let mut offset = 0i64;
    let mut written = Output::default();
    loop {
        let batches = storage
            .fetch(
                &topition,
                offset,
                0,
                FETCH_BYTES,
                IsolationLevel::ReadUncommitted,
                Duration::ZERO,
            )
            .await
            .map_err(|e| format!("reading {LOG_TOPIC}-{partition} at {offset}: {e:?}"))?;
        let before = offset;
        for b in &batches {
            let next = b.max_offset() + 1;
            let base = b.base_offset;
            let records = inflated::Batch::try_from(b)
                .map_err(|e| format!("{LOG_TOPIC}-{partition} at {base}: {e:?}"))?
                .records;
            let kept: Vec<(Bytes, Option<Bytes>)> = records
                .iter()
                .filter(|r| base + i64::from(r.offset_delta) >= offset)
                .filter_map(|r| r.key().map(|k| (k, r.value())))
                .collect();
            let refs: Vec<(&[u8], Option<&[u8]>)> =
                kept.iter().map(|(k, v)| (&k[..], v.as_deref())).collect();
            let out = c
                .replay_bytes(&refs, now)
                .map_err(|e| format!("{LOG_TOPIC}-{partition} at {base}: {e}"))?;
            written.records.extend(out.records);
            offset = offset.max(next);
        }
        if batches.is_empty() || offset == before {
            return Ok((c, written));
        }
    }
}

impl Shards {
    /// Creates the log topic if it is not there, and replays every partition of it.
    pub async fn open(
        storage: ArcDynStorage,
        config: serde_json::Value,
        partitions: i32,
    ) -> Result<Shards, String> {
        create_log_topic(&storage, partitions).await;
        // Groups are found by their partition: a log of another partition count would lose
        // them, as Kafka's __consumer_offsets cannot change its count either.
        let metadata = storage
            .metadata(None)
            .await
            .map_err(|e| format!("reading the topics: {e:?}"))?;
        let kept = metadata
            .topics
            .iter()
            .find(|t| t.name.as_deref() == Some(LOG_TOPIC))
            .map(|t| t.partitions.as_ref().map_or(0, Vec::len));
        match kept {
            Some(n) if n == partitions as usize => {}
            Some(n) => {
                return Err(format!(
                    "{LOG_TOPIC} has {n} partitions: start with --partitions {n} (offsets.topic.num.partitions)"
                ));
            }
            None => return Err(format!("{LOG_TOPIC} could not be created")),
        }
        let mut shards = Shards {
            coordinator: new_coordinator(&config),
            config,
            storage,
            shards: Vec::new(),
            topics: BTreeMap::new(),
        };
        for partition in 0..partitions {
            shards.shards.push(Shard {
                partition,
                coordinator: shards.coordinator.clone(),
                scratch: FrameScratch::default(),
                stopped: None,
            });
            shards.reload(partition as usize).await;
        }
        shards.refresh_topics().await;
        Ok(shards)
    }

    /// (Re)builds a partition's coordinator from its log.
    async fn reload(&mut self, i: usize) {
        let partition = self.shards[i].partition;
        match load(&self.storage, &self.config, partition).await {
            Ok((mut c, written)) => {
                if let Err(e) = append(&self.storage, partition, &written.records, now_ms()).await {
                    self.stop(i, format!("appending what the replay wrote: {e}"));
                    return;
                }
                if !self.topics.is_empty() {
                    let input = Input {
                        now_ms: now_ms(),
                        kind: InputKind::TopicMetadata {
                            topics: self.topics.values().cloned().collect(),
                            deleted_topics: Vec::new(),
                        },
                    };
                    match c.handle(input) {
                        Ok(out) => {
                            if let Err(e) =
                                append(&self.storage, partition, &out.records, now_ms()).await
                            {
                                self.stop(i, e);
                                return;
                            }
                        }
                        Err(e) => eprintln!("sgc-nisshi: partition {partition}: topics: {e}"),
                    }
                }
                let shard = &mut self.shards[i];
                shard.coordinator = c;
                shard.stopped = None;
            }
            Err(e) => self.stop(i, e),
        }
    }

    fn stop(&mut self, i: usize, why: String) {
        let shard = &mut self.shards[i];
        eprintln!(
            "sgc-nisshi: partition {} stopped (answered COORDINATOR_NOT_AVAILABLE): {why}",
            shard.partition
        );
        shard.stopped = Some(why);
    }

    /// Serves the connections' jobs, and fires the timers at their deadlines, until every
    /// connection's sender is gone.
    pub async fn run(mut self, mut jobs: mpsc::Receiver<Job>) {
        // Topics created by a produce (auto-creation) reach no hook of ours: read Nisshi's
        // metadata again now and then too.
        let mut refresh = tokio::time::interval(Duration::from_secs(10));
        refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let deadline = self.next_deadline();
            let sleep = async move {
                match deadline {
                    Some(d) => {
                        let wait = d.saturating_sub(now_ms()).max(0) as u64;
                        tokio::time::sleep(Duration::from_millis(wait)).await
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                job = jobs.recv() => match job {
                    None => return,
                    Some(Job::Frame { frame, peer, reply }) => {
                        let answer = self.frame(&frame, &peer).await;
                        let _ = reply.send(answer);
                    }
                    Some(Job::Shared { frame, peer, reply }) => {
                        let answer = self.shared(&frame, &peer).await;
                        let _ = reply.send(answer);
                    }
                    Some(Job::TopicsChanged) => self.refresh_topics().await,
                },
                () = sleep => self.fire_timers().await,
                _ = refresh.tick() => self.refresh_topics().await,
            }
        }
    }

    fn next_deadline(&self) -> Option<i64> {
        self.shards
            .iter()
            .filter(|s| s.stopped.is_none())
            .filter_map(|s| s.coordinator.timers().next_deadline())
            .min()
    }

    /// A streams group request: routed by the host kit to its partitions' coordinators, the
    /// answers merged.
    async fn frame(&mut self, frame: &[u8], peer: &Peer) -> Option<Vec<u8>> {
        let partitions = self.shards.len() as i32;
        let routed = match host::route_request(DIALECT, frame, partitions) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("sgc-nisshi: closing a connection: {e}");
                return None;
            }
        };
        let answer = match routed.route {
            host::Route::Group { partition, .. } => self.part(partition, frame, peer).await,
            host::Route::Groups(mut split) | host::Route::EveryPartition(mut split) => {
                let mut answers = Vec::with_capacity(split.parts.len());
                for p in std::mem::take(&mut split.parts) {
                    match self.part(p.partition, &p.frame, peer).await {
                        Ok(a) => answers.push(a),
                        Err(e) => {
                            eprintln!("sgc-nisshi: closing a connection: {e}");
                            return None;
                        }
                    }
                }
                split.merge(&answers)
            }
            // Only the streams group APIs come here: anything else is not ours to answer.
            host::Route::ApiVersions | host::Route::Host => {
                eprintln!(
                    "sgc-nisshi: API {} is not a streams group API",
                    routed.api_key
                );
                return None;
            }
        };
        match answer {
            Ok(a) => Some(a),
            Err(e) => {
                eprintln!("sgc-nisshi: closing a connection: {e}");
                None
            }
        }
    }

    /// Whether `group` is a streams group here, or has offsets kept here.
    fn is_streams(&self, group: &str) -> bool {
        let p = partition_for(group, self.shards.len() as i32);
        usize::try_from(p)
            .ok()
            .and_then(|p| self.shards.get(p))
            .is_some_and(|s| {
                s.coordinator.group(group).is_some()
                    || s.coordinator.offsets().group(group).is_some()
            })
    }

    /// The groups a request of a shared group API names; `None` when the dialect does not
    /// read it (Nisshi may: it is left to Nisshi).
    fn named_groups(&self, frame: &[u8]) -> Option<Vec<String>> {
        let routed = host::route_request(DIALECT, frame, self.shards.len() as i32).ok()?;
        if let host::Route::Group { group_id, .. } = routed.route {
            return Some(vec![group_id]);
        }
        let (_, json) = wire::request_json(DIALECT, frame).ok()?;
        let strings = |v: &serde_json::Value| -> Option<Vec<String>> {
            v.as_array()?
                .iter()
                .map(|g| g.as_str().map(str::to_owned))
                .collect()
        };
        match routed.api_key {
            15 => strings(&json["groups"]),
            42 => strings(&json["groupsNames"]),
            69 => strings(&json["groupIds"]),
            9 => json["groups"]
                .as_array()?
                .iter()
                .map(|g| g["groupId"].as_str().map(str::to_owned))
                .collect(),
            _ => None,
        }
    }

    /// Who answers a shared group API's request: the coordinators for the streams groups
    /// (those they hold), Nisshi for the others.
    async fn shared(&mut self, frame: &[u8], peer: &Peer) -> Shared {
        let ours_too = |answer: Option<Vec<u8>>, streams: Vec<String>| match answer {
            Some(ours) => Shared::Both { ours, streams },
            None => Shared::Ours(None),
        };
        match crate::frames::api_key(frame) {
            Some(16) => ours_too(self.frame(frame, peer).await, Vec::new()),
            _ => {
                let Some(groups) = self.named_groups(frame) else {
                    return Shared::Nisshi;
                };
                let streams: Vec<String> = groups
                    .iter()
                    .filter(|g| self.is_streams(g))
                    .cloned()
                    .collect();
                if streams.is_empty() {
                    Shared::Nisshi
                } else if streams.len() == groups.len() {
                    Shared::Ours(self.frame(frame, peer).await)
                } else {
                    ours_too(self.frame(frame, peer).await, streams)
                }
            }
        }
    }

    /// One partition's answer to a frame, its records in the log before it is given.
    async fn part(
        &mut self,
        partition: i32,
        frame: &[u8],
        peer: &Peer,
    ) -> Result<Vec<u8>, BoundaryError> {
        let Some(i) = usize::try_from(partition)
            .ok()
            .filter(|i| *i < self.shards.len())
        else {
            return host::error_response(DIALECT, frame, host::NOT_COORDINATOR);
        };
        if self.shards[i].stopped.is_some() {
            // A partition whose log did not load is tried again on its next request.
            self.reload(i).await;
            if self.shards[i].stopped.is_some() {
                return host::error_response(DIALECT, frame, host::COORDINATOR_NOT_AVAILABLE);
            }
        }
        let now = now_ms();
        let mut out = Vec::with_capacity(256);
        let shard = &mut self.shards[i];
        let output = wire::handle_frame_with(
            &mut shard.coordinator,
            &mut shard.scratch,
            frame,
            now,
            peer,
            &mut out,
        )?;
        if let Err(e) = append(&self.storage, partition, &output.records, now).await {
            eprintln!(
                "sgc-nisshi: partition {partition}: append failed ({e}); answered COORDINATOR_NOT_AVAILABLE, the coordinator rebuilt from its log"
            );
            self.reload(i).await;
            return host::error_response(DIALECT, frame, host::COORDINATOR_NOT_AVAILABLE);
        }
        if !output.topics_to_create.is_empty() {
            for t in &output.topics_to_create {
                create_topic(&self.storage, t).await;
            }
            self.refresh_topics().await;
        }
        Ok(out)
    }

    async fn fire_timers(&mut self) {
        let now = now_ms();
        for i in 0..self.shards.len() {
            let shard = &mut self.shards[i];
            let due = shard.stopped.is_none()
                && shard
                    .coordinator
                    .timers()
                    .next_deadline()
                    .is_some_and(|d| d <= now);
            if !due {
                continue;
            }
            let input = Input {
                now_ms: now,
                kind: InputKind::AdvanceTime,
            };
            if let Ok(out) = shard.coordinator.handle(input) {
                let partition = shard.partition;
                if let Err(e) = append(&self.storage, partition, &out.records, now).await {
                    eprintln!(
                        "sgc-nisshi: partition {partition}: append failed ({e}); the coordinator is rebuilt from its log"
                    );
                    self.reload(i).await;
                }
            }
        }
    }

    /// Reads Nisshi's topics and gives what changed to every coordinator.
    async fn refresh_topics(&mut self) {
        let metadata = match self.storage.metadata(None).await {
            Ok(m) => m,
            Err(e) => {
                eprintln!("sgc-nisshi: reading the topics: {e:?}");
                return;
            }
        };
        let mut now: BTreeMap<String, TopicSpec> = BTreeMap::new();
        for t in &metadata.topics {
            let Some(name) = t.name.clone() else { continue };
            if name.starts_with("__") {
                continue;
            }
            let partitions = t.partitions.as_ref().map_or(0, Vec::len) as i32;
            if partitions == 0 {
                continue;
            }
            let topic_id = t
                .topic_id
                .map(|id| streams_group_coordinator::records::Uuid(id).to_text());
            now.insert(
                name.clone(),
                TopicSpec {
                    name,
                    partitions,
                    topic_id,
                    racks: None,
                },
            );
        }
        if now == self.topics {
            return;
        }
        let deleted: Vec<String> = self
            .topics
            .keys()
            .filter(|n| !now.contains_key(*n))
            .cloned()
            .collect();
        let changed: Vec<TopicSpec> = now
            .values()
            .filter(|t| self.topics.get(&t.name) != Some(t))
            .cloned()
            .collect();
        self.topics = now;
        let at = now_ms();
        for i in 0..self.shards.len() {
            let shard = &mut self.shards[i];
            if shard.stopped.is_some() {
                continue;
            }
            let input = Input {
                now_ms: at,
                kind: InputKind::TopicMetadata {
                    topics: changed.clone(),
                    deleted_topics: deleted.clone(),
                },
            };
            if let Ok(out) = shard.coordinator.handle(input) {
                let partition = shard.partition;
                if let Err(e) = append(&self.storage, partition, &out.records, at).await {
                    eprintln!(
                        "sgc-nisshi: partition {partition}: append failed ({e}); the coordinator is rebuilt from its log"
                    );
                    self.reload(i).await;
                }
            }
        }
    }
}

/// The log topic: as many partitions as `__consumer_offsets`, compacted.
async fn create_log_topic(storage: &ArcDynStorage, partitions: i32) {
    let topic = CreatableTopic::default()
        .name(LOG_TOPIC.into())
        .num_partitions(partitions)
        .replication_factor(-1)
        .assignments(Some([].into()))
        .configs(Some(
            [CreatableTopicConfig::default()
                .name("cleanup.policy".into())
                .value(Some("compact".into()))]
            .into(),
        ));
    match storage.create_topic(topic, false).await {
        Ok(_) => eprintln!("sgc-nisshi: created {LOG_TOPIC} ({partitions} partitions)"),
        Err(e) => {
            let text = format!("{e:?}");
            if !text.contains("TopicAlreadyExists") {
                eprintln!("sgc-nisshi: creating {LOG_TOPIC}: {text}");
            }
        }
    }
}

/// An internal topic a streams group asks for, created in Nisshi (one that is there already is
/// left as it is).
async fn create_topic(storage: &ArcDynStorage, t: &TopicToCreate) {
    let configs: Vec<CreatableTopicConfig> = t
        .configs
        .iter()
        .map(|c| {
            CreatableTopicConfig::default()
                .name(c.name.clone())
                .value(Some(c.value.clone()))
        })
        .collect();
    let topic = CreatableTopic::default()
        .name(t.name.clone())
        .num_partitions(t.num_partitions)
        .replication_factor(t.replication_factor)
        .assignments(Some([].into()))
        .configs(Some(configs));
    if let Err(e) = storage.create_topic(topic, false).await {
        let text = format!("{e:?}");
        if !text.contains("TopicAlreadyExists") {
            eprintln!("sgc-nisshi: creating {}: {text}", t.name);
        }
    }
}

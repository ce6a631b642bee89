//! `__consumer_offsets` partitions: each its coordinator and its log, driven as Kafka's
//! coordinator runtime drives a shard. A pool of coordinator threads (Kafka's
//! `group.coordinator.threads`) each owns some partitions; a partition's requests and timer
//! deadlines are taken in order, one at a time, on its thread. What a burst of requests writes
//! is appended as one batch per output and committed together (group commit, one sync per
//! partition written) before any of their responses leaves. A write that fails undoes the
//! partition's burst: its coordinator is rebuilt from its log, and each request of it is
//! answered `COORDINATOR_NOT_AVAILABLE`.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;
use streams_group_coordinator::api::{Explain, Input, InputKind, Output, TopicSpec};
use streams_group_coordinator::records::{
    decode_key, decode_value, encode_key, encode_value, Dialect, Producer, Record,
};
use streams_group_coordinator::topology::TopicToCreate;
use streams_group_coordinator::wire::authz::{self, AclOperation, Authorizer};
use streams_group_coordinator::wire::{self, host, Broker, Peer};
use streams_group_coordinator::Coordinator;
use tokio::sync::oneshot;

use crate::log::{OwnedRecord, PartitionLog, RawRecord};
use crate::options::Fsync;
use crate::topics::{Catalog, Topic};

/// What a connection or the broker asks of a coordinator thread.
pub enum Job {
    /// A request frame for one of the coordinator's APIs, for partition `partition`.
    Frame {
        partition: usize,
        frame: Vec<u8>,
        peer: Peer,
        /// Who asks, for the ACLs.
        who: crate::acl::Requester,
        reply: oneshot::Sender<Reply>,
    },
    /// Topics the thread learns: its front-end checks all of them, its coordinators those that
    /// are not internal (a `TopicMetadata` input).
    Topics(Vec<Topic>),
    /// The figures of the thread's partitions, for the metrics.
    Stats(oneshot::Sender<Vec<Stats>>),
}

/// A shard's answer to a frame.
pub enum Reply {
    /// The response frame, once its records are in the log; and the internal topics the
    /// coordinator asks the broker to create.
    Frame {
        frame: Vec<u8>,
        topics_to_create: Vec<TopicToCreate>,
    },
    /// The frame cannot be read: Kafka closes the connection.
    Close(String),
}

/// A shard's figures.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub partition: i32,
    /// `(group, state, members)` per streams group.
    pub groups: Vec<(String, String, usize)>,
    pub log_bytes: u64,
    pub next_offset: i64,
    /// Why the partition is not served, if it is not.
    pub stopped: Option<String>,
}

/// A shard, opened: its log replayed into its coordinator.
pub struct Shard {
    partition: i32,
    dir: PathBuf,
    config: Value,
    dialect: Dialect,
    coordinator: Coordinator,
    log: Option<PartitionLog>,
    fsync: Fsync,
    segment_bytes: u64,
    stopped: Option<String>,
    /// The decoded request kept from one frame to the next (no allocation to read a steady
    /// heartbeat).
    scratch: wire::FrameScratch,
}

/// Milliseconds since the epoch: the clock the coordinator is driven by.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The records as batches to append: each run of records of one producer (a `TxnOffsetCommit`'s
/// transactional records) its own batch, as Kafka's coordinator runtime writes them.
fn encoded(dialect: Dialect, records: &[Record]) -> Vec<(Option<Producer>, Vec<OwnedRecord>)> {
    let mut batches: Vec<(Option<Producer>, Vec<OwnedRecord>)> = Vec::new();
    for r in records {
        let owned = (
            encode_key(dialect, &r.key),
            r.value.as_ref().map(|v| encode_value(dialect, v)),
        );
        match batches.last_mut() {
            Some((producer, run)) if *producer == r.producer => run.push(owned),
            _ => batches.push((r.producer, vec![owned])),
        }
    }
    batches
}

/// The records of a transactional batch read back, for [`Coordinator::replay`] (whose bytes
/// form, `replay_bytes`, takes plain batches only).
fn transactional(
    dialect: Dialect,
    producer: Producer,
    records: &[RawRecord<'_>],
) -> Result<Vec<Record>, String> {
    let mut out = Vec::with_capacity(records.len());
    for (key, value) in records {
        let Some(key) = decode_key(dialect, key).map_err(|e| e.to_string())? else {
            continue;
        };
        let value = match value {
            Some(v) => {
                Some(decode_value(dialect, key.record_type(), v).map_err(|e| e.to_string())?)
            }
            None => None,
        };
        out.push(Record {
            key,
            value,
            producer: Some(producer),
        });
    }
    Ok(out)
}

/// Replays `dir`'s log into a new coordinator: the coordinator, the log, and what recovery
/// did, or why the partition cannot be loaded.
fn load(
    dir: &std::path::Path,
    config: &Value,
    segment_bytes: u64,
) -> Result<
    (
        Coordinator,
        PartitionLog,
        Vec<Record>,
        crate::log::Recovered,
    ),
    String,
> {
    let mut c = Coordinator::from_json_config(config).map_err(|e| e.to_string())?;
    let now = now_ms();
    let mut written = Vec::new();
    let dialect = c.config().dialect;
    let (log, recovered) = PartitionLog::open(
        dir,
        segment_bytes,
        |producer: Option<Producer>, records: &[RawRecord]| {
            let out = match producer {
                None => c.replay_bytes(records, now),
                Some(p) => transactional(dialect, p, records)
                    .map_err(|e| {
                        streams_group_coordinator::BoundaryError::new(
                            streams_group_coordinator::BoundaryCode::InvalidRecord,
                            "records",
                            e,
                        )
                    })
                    .and_then(|records| c.replay(&records, now)),
            }
            .map_err(|e| format!("{}: the log does not replay: {e}", dir.display()))?;
            written.extend(out.records);
            Ok(())
        },
    )?;
    Ok((c, log, written, recovered))
}

impl Shard {
    /// Opens partition `partition` under `data_dir`: a partition whose log cannot be loaded is
    /// stopped (every request answered `COORDINATOR_NOT_AVAILABLE`), with the reason logged.
    pub fn open(
        partition: i32,
        data_dir: &std::path::Path,
        config: &Value,
        fsync: Fsync,
        segment_bytes: u64,
    ) -> Result<Shard, String> {
        let dir = crate::log::partition_dir(data_dir, partition);
        let coordinator = Coordinator::from_json_config(config).map_err(|e| e.to_string())?;
        let dialect = coordinator.config().dialect;
        let mut shard = Shard {
            partition,
            dir,
            config: config.clone(),
            dialect,
            coordinator,
            log: None,
            fsync,
            segment_bytes,
            stopped: None,
            scratch: wire::FrameScratch::default(),
        };
        shard.reload();
        Ok(shard)
    }

    /// (Re)builds the coordinator from the log on disk.
    fn reload(&mut self) {
        match load(&self.dir, &self.config, self.segment_bytes) {
            Ok((c, mut log, written, recovered)) => {
                if let Some((file, at, cut)) = &recovered.truncated {
                    eprintln!(
                        "sgc serve: partition {}: {}: a batch cut short at byte {at} ({cut} bytes) was truncated, as Kafka's recovery does",
                        self.partition,
                        file.display()
                    );
                }
                let at = now_ms();
                for (producer, batch) in encoded(self.dialect, &written) {
                    log.stage(at, producer, &batch);
                }
                if let Err(e) = log.commit(self.fsync != Fsync::Never) {
                    self.stop(format!("{}: {e}", log.active_path().display()));
                    return;
                }
                self.coordinator = c;
                self.log = Some(log);
                self.stopped = None;
            }
            Err(e) => self.stop(e),
        }
    }

    fn stop(&mut self, why: String) {
        eprintln!("sgc serve: partition {} stopped: {why}", self.partition);
        self.log = None;
        self.stopped = Some(why);
    }

    /// Stages an output's records as one batch, and logs its rebalances.
    fn stage(&mut self, now: i64, out: &Output) {
        if let Some(log) = self.log.as_mut() {
            for (producer, batch) in encoded(self.dialect, &out.records) {
                log.stage(now, producer, &batch);
            }
        }
        for e in &out.explain {
            if matches!(
                e,
                Explain::GroupEpochBumped { .. } | Explain::MemberFenced { .. }
            ) {
                eprintln!(
                    "sgc serve: partition {}: {}",
                    self.partition,
                    serde_json::to_string(e).unwrap_or_default()
                );
            }
        }
    }

    /// Answers a frame behind Kafka's broker front-end: the offset APIs' topics checked against
    /// the topics the server knows (`topics`), and with `--acl` each API's authorization.
    fn handle(
        &mut self,
        frame: Vec<u8>,
        (peer, now): (&Peer, i64),
        topics: &Catalog,
        acl: Option<&dyn Authorizer>,
    ) -> Pending {
        if self.stopped.is_some() {
            return Pending::Done(unavailable(self.dialect, &frame));
        }
        let mut out = Vec::with_capacity(256);
        let (c, scratch) = (&mut self.coordinator, &mut self.scratch);
        let answered = match acl {
            Some(authorizer) => {
                let broker = Broker {
                    topics: Some(topics),
                    authorizer,
                };
                wire::handle_frame_authorized(c, scratch, &frame, now, peer, &mut out, broker)
            }
            None => wire::handle_frame_checked(c, scratch, &frame, now, peer, &mut out, topics),
        };
        match answered {
            Ok(output) => {
                self.stage(now, &output);
                Pending::Wait {
                    frame: out,
                    topics: output.topics_to_create,
                    request: frame,
                }
            }
            Err(e) => Pending::Done(Reply::Close(e.to_string())),
        }
    }

    fn fire_timers(&mut self, now: i64) {
        if self.stopped.is_some() {
            return;
        }
        let due = self
            .coordinator
            .timers()
            .next_deadline()
            .is_some_and(|d| d <= now);
        if due {
            let input = Input {
                now_ms: now,
                kind: InputKind::AdvanceTime,
            };
            if let Ok(out) = self.coordinator.handle(input) {
                self.stage(now, &out);
            }
        }
    }

    fn topics(&mut self, topics: Vec<TopicSpec>) {
        let input = Input {
            now_ms: now_ms(),
            kind: InputKind::TopicMetadata {
                topics,
                deleted_topics: Vec::new(),
            },
        };
        if let Ok(out) = self.coordinator.handle(input) {
            self.stage(now_ms(), &out);
        }
    }

    /// Commits what is staged; on failure rebuilds the coordinator from the log.
    fn commit(&mut self) -> bool {
        let Some(log) = self.log.as_mut() else {
            return false;
        };
        match log.commit(self.fsync != Fsync::Never) {
            Ok(()) => true,
            Err(e) => {
                eprintln!(
                    "sgc serve: partition {}: {}: write failed ({e}); its requests are answered COORDINATOR_NOT_AVAILABLE and the coordinator is rebuilt from the log",
                    self.partition,
                    log.active_path().display()
                );
                self.reload();
                false
            }
        }
    }

    fn stats(&self) -> Stats {
        let c = &self.coordinator;
        Stats {
            partition: self.partition,
            groups: c
                .groups()
                .iter()
                .map(|(id, g)| {
                    (
                        id.clone(),
                        format!("{:?}", c.group_state(g)),
                        g.members.len(),
                    )
                })
                .collect(),
            log_bytes: self.log.as_ref().map_or(0, |l| l.total_bytes),
            next_offset: self.log.as_ref().map_or(0, |l| l.next_offset()),
            stopped: self.stopped.clone(),
        }
    }

    fn next_deadline(&self) -> Option<i64> {
        self.coordinator
            .timers()
            .next_deadline()
            .filter(|_| self.stopped.is_none())
    }
}

/// A coordinator thread's partitions.
pub struct Worker {
    /// By partition number; `None` for the partitions of other threads.
    shards: Vec<Option<Shard>>,
    fsync: Fsync,
    /// The topics the server knows, for the front-end checks.
    topics: Catalog,
    /// The ACLs (`--authorizer standard`), shared with the broker's ACL APIs.
    acls: Option<std::sync::Arc<std::sync::RwLock<crate::acl::AclStore>>>,
}

/// A request waiting for the commit of its partition's burst.
struct Waiting {
    partition: usize,
    reply: oneshot::Sender<Reply>,
    pending: Pending,
}

impl Worker {
    /// A thread's partitions, opened.
    pub fn new(
        shards: Vec<Shard>,
        partitions: usize,
        fsync: Fsync,
        acls: Option<std::sync::Arc<std::sync::RwLock<crate::acl::AclStore>>>,
    ) -> Worker {
        let mut by_partition: Vec<Option<Shard>> = (0..partitions).map(|_| None).collect();
        for s in shards {
            let p = s.partition as usize;
            if let Some(slot) = by_partition.get_mut(p) {
                *slot = Some(s);
            }
        }
        Worker {
            shards: by_partition,
            fsync,
            topics: Catalog::default(),
            acls,
        }
    }

    fn next_deadline(&self) -> Option<i64> {
        self.shards
            .iter()
            .flatten()
            .filter_map(Shard::next_deadline)
            .min()
    }

    /// Serves jobs until every sender is gone.
    pub fn run(mut self, jobs: Receiver<Job>) {
        let mut waiting: Vec<Waiting> = Vec::new();
        loop {
            let wait = self
                .next_deadline()
                .map(|d| Duration::from_millis(d.saturating_sub(now_ms()).max(0) as u64));
            let first = match wait {
                Some(w) => match jobs.recv_timeout(w) {
                    Ok(job) => Some(job),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => match jobs.recv() {
                    Ok(job) => Some(job),
                    Err(_) => return,
                },
            };
            let now = now_ms();
            for s in self.shards.iter_mut().flatten() {
                s.fire_timers(now);
            }
            let started = Instant::now();
            let mut next = first;
            while let Some(job) = next {
                match job {
                    Job::Frame {
                        partition,
                        frame,
                        peer,
                        who,
                        reply,
                    } => match self.shards.get_mut(partition).and_then(Option::as_mut) {
                        Some(shard) => {
                            let acls = self.acls.clone();
                            let store = acls.as_ref().map(|a| a.read());
                            let pending = match &store {
                                None => shard.handle(frame, (&peer, now_ms()), &self.topics, None),
                                Some(Err(_)) => Pending::Done(unavailable(shard.dialect, &frame)),
                                Some(Ok(store)) => {
                                    // Kafka's StandardAuthorizer over the ACLs, for this
                                    // requester.
                                    let decide =
                                        |op: AclOperation, rt: authz::ResourceType, name: &str| {
                                            store.authorize(
                                                &who,
                                                crate::acl::Operation::from_code(op.code()),
                                                crate::acl::ResourceType::from_code(rt.code()),
                                                name,
                                            )
                                        };
                                    shard.handle(
                                        frame,
                                        (&peer, now_ms()),
                                        &self.topics,
                                        Some(&decide),
                                    )
                                }
                            };
                            drop(store);
                            let staged = shard.log.as_ref().is_some_and(|l| l.has_staged());
                            waiting.push(Waiting {
                                partition,
                                reply,
                                pending,
                            });
                            if self.fsync == Fsync::Batch && staged {
                                self.flush(&mut waiting);
                            }
                        }
                        None => {
                            let _ = reply.send(Reply::Close(format!(
                                "partition {partition} is not served by this thread"
                            )));
                        }
                    },
                    Job::Topics(t) => {
                        self.topics.learn(&t);
                        let specs: Vec<TopicSpec> =
                            t.iter().filter(|t| !t.internal).map(Topic::spec).collect();
                        if !specs.is_empty() {
                            for s in self.shards.iter_mut().flatten() {
                                s.topics(specs.clone());
                            }
                        }
                    }
                    Job::Stats(reply) => {
                        let _ =
                            reply.send(self.shards.iter().flatten().map(Shard::stats).collect());
                    }
                }
                // A burst is what is queued now, bounded in size and time so a flood cannot
                // hold its responses back.
                next = if waiting.len() < 1024 && started.elapsed() < Duration::from_millis(5) {
                    jobs.try_recv().ok()
                } else {
                    None
                };
            }
            self.flush(&mut waiting);
        }
    }

    /// Commits every partition's staged batches, then answers the waiting requests: those of
    /// a partition whose write failed with `COORDINATOR_NOT_AVAILABLE`.
    fn flush(&mut self, waiting: &mut Vec<Waiting>) {
        let mut failed = Vec::new();
        for s in self.shards.iter_mut().flatten() {
            if s.log.as_ref().is_some_and(|l| l.has_staged()) && !s.commit() {
                failed.push(s.partition as usize);
            }
        }
        for w in waiting.drain(..) {
            let r = match w.pending {
                Pending::Done(r) => r,
                Pending::Wait { frame, topics, .. } if !failed.contains(&w.partition) => {
                    Reply::Frame {
                        frame,
                        topics_to_create: topics,
                    }
                }
                Pending::Wait { request, .. } => {
                    let dialect = self.shards[w.partition].as_ref().map(|s| s.dialect);
                    unavailable(dialect.unwrap_or_default(), &request)
                }
            };
            let _ = w.reply.send(r);
        }
    }
}

/// `COORDINATOR_NOT_AVAILABLE` for `frame`, as Kafka answers when its runtime refuses (a
/// stopped partition, a failed write), or closing the connection where Kafka has no such
/// answer.
fn unavailable(dialect: Dialect, frame: &[u8]) -> Reply {
    match host::error_response(dialect, frame, host::COORDINATOR_NOT_AVAILABLE) {
        Ok(frame) => Reply::Frame {
            frame,
            topics_to_create: Vec::new(),
        },
        Err(_) => Reply::Close("the coordinator is not available".into()),
    }
}

/// A request handled, its answer waiting for the commit of its burst.
enum Pending {
    Done(Reply),
    Wait {
        frame: Vec<u8>,
        topics: Vec<TopicToCreate>,
        request: Vec<u8>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `TxnOffsetCommit` written by a shard is a transactional batch: the shard rebuilt from
    /// its log holds the offset as pending still, as the live coordinator did.
    #[test]
    fn a_transactional_commit_stays_pending_across_a_reload() {
        let dir = std::env::temp_dir().join(format!("sgc-shard-txn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = serde_json::json!({"dialect": "kafka-4.2"});
        let mut shard = Shard::open(0, &dir, &config, Fsync::Never, 1 << 20).unwrap();
        let input = Input::parse(
            r#"{"nowMs": 1, "type": "TxnOffsetCommit", "request": {"transactionalId": "t",
                "groupId": "g", "producerId": 7, "producerEpoch": 0, "topics": [{"name": "in",
                "partitions": [{"partitionIndex": 0, "committedOffset": 5}]}]}}"#,
        )
        .unwrap();
        let frame = wire::encode_request(Dialect::Kafka42, &input.kind, 5, 1).unwrap();
        let mut topics = Catalog::default();
        topics.learn(&[Topic {
            name: "in".into(),
            id: crate::topics::random_id(),
            partitions: 1,
            internal: false,
        }]);
        let _ = shard.handle(frame, (&Peer::default(), 1), &topics, None);
        assert!(shard.commit());
        let pending = |c: &Coordinator| {
            c.offsets()
                .group("g")
                .is_some_and(|g| g.pending_offset(7, "in", 0).is_some() && g.get("in", 0).is_none())
        };
        assert!(pending(&shard.coordinator), "pending live");
        shard.reload();
        assert!(pending(&shard.coordinator), "pending after the reload");
        let _ = std::fs::remove_dir_all(&dir);
    }
    /// With `--acl`, a commit to a group the client may not read is refused as Kafka refuses
    /// it, and nothing is staged.
    #[test]
    fn an_acl_refuses_what_it_does_not_grant() {
        let dir = std::env::temp_dir().join(format!("sgc-shard-acl-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = serde_json::json!({"dialect": "kafka-4.3"});
        let mut shard = Shard::open(0, &dir, &config, Fsync::Never, 1 << 20).unwrap();
        let input = Input::parse(
            r#"{"nowMs": 1, "type": "OffsetCommit", "request": {"groupId": "g", "topics":
                [{"name": "in", "partitions": [{"partitionIndex": 0, "committedOffset": 5}]}]}}"#,
        )
        .unwrap();
        let frame = wire::encode_request(Dialect::Kafka43, &input.kind, 9, 1).unwrap();
        let mut topics = Catalog::default();
        topics.learn(&[Topic {
            name: "in".into(),
            id: crate::topics::random_id(),
            partitions: 1,
            internal: false,
        }]);
        let acl = authz::Decisions::from_json(
            r#"{"allow": [{"operation": "READ", "resourceType": "TOPIC", "name": "in"}]}"#,
        )
        .unwrap();
        let Pending::Wait { frame: out, .. } =
            shard.handle(frame, (&Peer::default(), 1), &topics, Some(&acl))
        else {
            panic!("an answer");
        };
        let (_, json) = wire::response_json(Dialect::Kafka43, 8, 9, &out).unwrap();
        assert_eq!(json["topics"][0]["partitions"][0]["errorCode"], 30);
        assert!(shard.coordinator.offsets().group("g").is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

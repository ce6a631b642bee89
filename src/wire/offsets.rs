//! `OffsetCommit` (8) and `OffsetFetch` (9) on the wire: each version's request and response
//! shape to and from the core's one shape (the version-8+ `groups[]` of a fetch, names and
//! version-10 ids side by side), and the part of Kafka's broker front-end that the offset APIs
//! need before the coordinator.
//!
//! Kafka's `KafkaApis` resolves a version-10 topic id to a name through its metadata cache;
//! here the topic image is that cache (`TopicMetadata` with `topicId`). A topic whose id it
//! does not know is answered `UNKNOWN_TOPIC_ID` without reaching the coordinator, and a fetch of
//! all offsets leaves out a topic that has no id to be named by. A host that knows the
//! cluster's topics gives its own cache ([`MetadataCache`]) instead, and gets the rest of
//! Kafka's checks: a commit, transactional commit or offset delete of a topic or partition that
//! does not exist is answered `UNKNOWN_TOPIC_OR_PARTITION` for it, the coordinator seeing only
//! the rest, and the two answers merged as Kafka's response builders merge them.

use super::codec::{Reader, WireError};
use super::messages::kafka::{
    offset_commit_request as cq, offset_commit_response as cs, offset_fetch_request as fq,
    offset_fetch_response as fs, txn_offset_commit_request as tq, txn_offset_commit_response as ts,
};
use crate::api::{
    InputKind, OffsetCommitPartition, OffsetCommitRequest, OffsetCommitResponse,
    OffsetCommitResponsePartition, OffsetCommitResponseTopic, OffsetCommitTopic,
    OffsetDeleteResponse, OffsetDeleteResponsePartition, OffsetDeleteResponseTopic,
    OffsetDeleteTopic, OffsetFetchGroup, OffsetFetchRequest, OffsetFetchResponse,
    OffsetFetchResponsePartition, OffsetFetchResponseTopic, OffsetFetchTopic, Response,
    TxnOffsetCommitRequest,
};
use crate::records::Uuid;
use crate::TopicImage;

/// The topic image (`Coordinator::topics`): Kafka's metadata cache for the front-end's step.
type Topics = std::collections::BTreeMap<String, TopicImage>;

/// Kafka's `UNKNOWN_TOPIC_OR_PARTITION`.
const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
/// Kafka's `UNKNOWN_TOPIC_ID`.
const UNKNOWN_TOPIC_ID: i16 = 100;
/// Version 10 names topics by id; version 8 batched fetches; version 2 brought the fetch's
/// top-level error. `TxnOffsetCommit` names topics by id from version 6 (Kafka 4.4).
const TOPIC_ID_FROM: i16 = 10;
const BATCH_FROM: i16 = 8;
const TXN_TOPIC_ID_FROM: i16 = 6;

fn id_of(text: Option<&str>) -> [u8; 16] {
    text.and_then(Uuid::from_text).unwrap_or_default().0
}

/// A version-10 topic's id as the core's text; below 10 there is none.
fn id_text(v: i16, id: [u8; 16]) -> Option<String> {
    (v >= TOPIC_ID_FROM).then(|| Uuid(id).to_text())
}

/// The commit request of a body (version 10's topics have an id and an empty name until
/// [`resolve`] names them).
pub(super) fn read_commit(body: &[u8], v: i16) -> Result<OffsetCommitRequest, WireError> {
    let r = cq::OffsetCommitRequest::read(&mut Reader::new(body), v)?;
    Ok(OffsetCommitRequest {
        group_id: r.group_id,
        generation_id_or_member_epoch: r.generation_id_or_member_epoch,
        member_id: r.member_id,
        group_instance_id: r.group_instance_id,
        retention_time_ms: r.retention_time_ms,
        topics: r
            .topics
            .into_iter()
            .map(|t| OffsetCommitTopic {
                name: t.name,
                topic_id: id_text(v, t.topic_id),
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|p| OffsetCommitPartition {
                        partition_index: p.partition_index,
                        committed_offset: p.committed_offset,
                        committed_leader_epoch: p.committed_leader_epoch,
                        committed_metadata: p.committed_metadata,
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// The transactional commit request of a body (version 6's topics have an id and an empty name
/// until [`resolve`] names them).
pub(super) fn read_txn_commit(body: &[u8], v: i16) -> Result<TxnOffsetCommitRequest, WireError> {
    let r = tq::TxnOffsetCommitRequest::read(&mut Reader::new(body), v)?;
    Ok(TxnOffsetCommitRequest {
        transactional_id: r.transactional_id,
        group_id: r.group_id,
        producer_id: r.producer_id,
        producer_epoch: r.producer_epoch,
        generation_id_or_member_epoch: r.generation_id_or_member_epoch,
        member_id: r.member_id,
        group_instance_id: r.group_instance_id,
        topics: r
            .topics
            .into_iter()
            .map(|t| OffsetCommitTopic {
                name: t.name,
                topic_id: (v >= TXN_TOPIC_ID_FROM).then(|| Uuid(t.topic_id).to_text()),
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|p| OffsetCommitPartition {
                        partition_index: p.partition_index,
                        committed_offset: p.committed_offset,
                        committed_leader_epoch: p.committed_leader_epoch,
                        committed_metadata: p.committed_metadata,
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// A transactional commit as a client writes it at version `v` (`None`: a version-6 topic
/// without an id, which Kafka's client cannot send).
pub(super) fn txn_commit_message(
    req: &TxnOffsetCommitRequest,
    v: i16,
) -> Option<tq::TxnOffsetCommitRequest> {
    let topics = req
        .topics
        .iter()
        .map(|t| {
            if v >= TXN_TOPIC_ID_FROM && t.topic_id.is_none() {
                return None;
            }
            Some(tq::TxnOffsetCommitRequestTopic {
                name: t.name.clone(),
                topic_id: id_of(t.topic_id.as_deref()),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| tq::TxnOffsetCommitRequestPartition {
                        partition_index: p.partition_index,
                        committed_offset: p.committed_offset,
                        committed_leader_epoch: p.committed_leader_epoch,
                        committed_metadata: p.committed_metadata.clone(),
                    })
                    .collect(),
            })
        })
        .collect::<Option<_>>()?;
    Some(tq::TxnOffsetCommitRequest {
        transactional_id: req.transactional_id.clone(),
        group_id: req.group_id.clone(),
        producer_id: req.producer_id,
        producer_epoch: req.producer_epoch,
        generation_id_or_member_epoch: req.generation_id_or_member_epoch,
        member_id: req.member_id.clone(),
        group_instance_id: req.group_instance_id.clone(),
        topics,
    })
}

/// The fetch request of a body, in the core's `groups[]` shape (below version 8 the one group
/// of the top level).
pub(super) fn read_fetch(body: &[u8], v: i16) -> Result<OffsetFetchRequest, WireError> {
    let r = fq::OffsetFetchRequest::read(&mut Reader::new(body), v)?;
    let groups = if v >= BATCH_FROM {
        r.groups
            .into_iter()
            .map(|g| OffsetFetchGroup {
                group_id: g.group_id,
                member_id: g.member_id,
                member_epoch: g.member_epoch,
                topics: g.topics.map(|l| {
                    l.into_iter()
                        .map(|t| OffsetFetchTopic {
                            name: t.name,
                            topic_id: id_text(v, t.topic_id),
                            partition_indexes: t.partition_indexes,
                        })
                        .collect()
                }),
            })
            .collect()
    } else {
        vec![OffsetFetchGroup {
            group_id: r.group_id,
            member_id: None,
            member_epoch: -1,
            topics: r.topics.map(|l| {
                l.into_iter()
                    .map(|t| OffsetFetchTopic {
                        name: t.name,
                        topic_id: None,
                        partition_indexes: t.partition_indexes,
                    })
                    .collect()
            }),
        }]
    };
    Ok(OffsetFetchRequest {
        groups,
        require_stable: r.require_stable,
    })
}

/// A commit request as a client writes it at version `v` (`None`: a version-10 topic without
/// an id, which Kafka's client refuses to send).
pub(super) fn commit_message(req: &OffsetCommitRequest, v: i16) -> Option<cq::OffsetCommitRequest> {
    let topics = req
        .topics
        .iter()
        .map(|t| {
            if v >= TOPIC_ID_FROM && t.topic_id.is_none() {
                return None;
            }
            Some(cq::OffsetCommitRequestTopic {
                name: t.name.clone(),
                topic_id: id_of(t.topic_id.as_deref()),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| cq::OffsetCommitRequestPartition {
                        partition_index: p.partition_index,
                        committed_offset: p.committed_offset,
                        committed_leader_epoch: p.committed_leader_epoch,
                        committed_metadata: p.committed_metadata.clone(),
                    })
                    .collect(),
            })
        })
        .collect::<Option<_>>()?;
    Some(cq::OffsetCommitRequest {
        group_id: req.group_id.clone(),
        generation_id_or_member_epoch: req.generation_id_or_member_epoch,
        member_id: req.member_id.clone(),
        group_instance_id: req.group_instance_id.clone(),
        retention_time_ms: req.retention_time_ms,
        topics,
    })
}

/// A fetch request as a client writes it at version `v` (`None` for what Kafka's client
/// refuses to send: several groups below version 8, all topics below 2, a version-10 topic
/// without an id).
pub(super) fn fetch_message(req: &OffsetFetchRequest, v: i16) -> Option<fq::OffsetFetchRequest> {
    if v < BATCH_FROM {
        let [g] = req.groups.as_slice() else {
            return None;
        };
        if v < 2 && g.topics.is_none() {
            return None;
        }
        return Some(fq::OffsetFetchRequest {
            group_id: g.group_id.clone(),
            topics: g.topics.as_ref().map(|l| {
                l.iter()
                    .map(|t| fq::OffsetFetchRequestTopic {
                        name: t.name.clone(),
                        partition_indexes: t.partition_indexes.clone(),
                    })
                    .collect()
            }),
            require_stable: req.require_stable,
            ..fq::OffsetFetchRequest::default()
        });
    }
    let groups = req
        .groups
        .iter()
        .map(|g| {
            let topics = match &g.topics {
                None => None,
                Some(l) => Some(
                    l.iter()
                        .map(|t| {
                            if v >= TOPIC_ID_FROM && t.topic_id.is_none() {
                                return None;
                            }
                            Some(fq::OffsetFetchRequestTopics {
                                name: t.name.clone(),
                                topic_id: id_of(t.topic_id.as_deref()),
                                partition_indexes: t.partition_indexes.clone(),
                            })
                        })
                        .collect::<Option<Vec<_>>>()?,
                ),
            };
            Some(fq::OffsetFetchRequestGroup {
                group_id: g.group_id.clone(),
                member_id: g.member_id.clone(),
                member_epoch: g.member_epoch,
                topics,
            })
        })
        .collect::<Option<_>>()?;
    Some(fq::OffsetFetchRequest {
        groups,
        require_stable: req.require_stable,
        ..fq::OffsetFetchRequest::default()
    })
}

/// The commit response as version `v`'s message (the version writes `Name` or `TopicId`).
pub(super) fn commit_response(r: OffsetCommitResponse) -> cs::OffsetCommitResponse {
    cs::OffsetCommitResponse {
        throttle_time_ms: r.throttle_time_ms,
        topics: r
            .topics
            .into_iter()
            .map(|t| cs::OffsetCommitResponseTopic {
                topic_id: id_of(t.topic_id.as_deref()),
                name: t.name,
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|p| cs::OffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        error_code: p.error_code,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The transactional commit response as the version's message (the version writes `Name` or
/// `TopicId`).
pub(super) fn txn_commit_response(r: OffsetCommitResponse) -> ts::TxnOffsetCommitResponse {
    ts::TxnOffsetCommitResponse {
        throttle_time_ms: r.throttle_time_ms,
        topics: r
            .topics
            .into_iter()
            .map(|t| ts::TxnOffsetCommitResponseTopic {
                topic_id: id_of(t.topic_id.as_deref()),
                name: t.name,
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|p| ts::TxnOffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        error_code: p.error_code,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The fetch response as version `v`'s message: below version 8 the one group at the top level
/// with its error (Kafka's `OffsetFetchResponse.Builder`).
pub(super) fn fetch_response(r: OffsetFetchResponse, v: i16) -> fs::OffsetFetchResponse {
    let mut out = fs::OffsetFetchResponse {
        throttle_time_ms: r.throttle_time_ms,
        ..fs::OffsetFetchResponse::default()
    };
    if v >= BATCH_FROM {
        out.groups = r
            .groups
            .into_iter()
            .map(|g| fs::OffsetFetchResponseGroup {
                group_id: g.group_id,
                error_code: g.error_code,
                topics: g
                    .topics
                    .into_iter()
                    .map(|t| fs::OffsetFetchResponseTopics {
                        topic_id: id_of(t.topic_id.as_deref()),
                        name: t.name,
                        partitions: t.partitions.into_iter().map(batched).collect(),
                    })
                    .collect(),
            })
            .collect();
    } else if let Some(g) = r.groups.into_iter().next() {
        out.error_code = g.error_code;
        out.topics = g
            .topics
            .into_iter()
            .map(|t| fs::OffsetFetchResponseTopic {
                name: t.name,
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|p| fs::OffsetFetchResponsePartition {
                        partition_index: p.partition_index,
                        committed_offset: p.committed_offset,
                        committed_leader_epoch: p.committed_leader_epoch,
                        metadata: Some(p.metadata),
                        error_code: p.error_code,
                    })
                    .collect(),
            })
            .collect();
    }
    out
}

fn batched(p: OffsetFetchResponsePartition) -> fs::OffsetFetchResponsePartitions {
    fs::OffsetFetchResponsePartitions {
        partition_index: p.partition_index,
        committed_offset: p.committed_offset,
        committed_leader_epoch: p.committed_leader_epoch,
        metadata: Some(p.metadata),
        error_code: p.error_code,
    }
}

/// What a host's metadata cache knows of topics: what Kafka's `KafkaApis` asks its
/// `MetadataCache` before it hands an offset request to the group coordinator. A host that
/// knows the cluster's topics passes one to [`super::handle_frame_checked`]: a commit, a
/// transactional commit or an offset delete naming a topic or partition it does not know is
/// answered `UNKNOWN_TOPIC_OR_PARTITION` for those partitions without reaching the coordinator,
/// as Kafka's broker answers it.
pub trait MetadataCache {
    /// The name of the topic with this id (`None`: no such topic).
    fn topic_name(&self, id: Uuid) -> Option<String>;
    /// The number of partitions of the topic named `name` (`None`: no such topic).
    fn partition_count(&self, name: &str) -> Option<i32>;
}

/// Where the front-end's step names ids and checks topics.
pub(super) enum Lookup<'a> {
    /// The coordinator's topic image: version-10 ids are named, topics are not checked (the
    /// core's own face, whose host may know no topics at all).
    Image(&'a Topics),
    /// A host's metadata cache: Kafka's broker front-end, checks included.
    Cache(&'a dyn MetadataCache),
}

/// What the front-end's step knows of a topic named in a request.
enum Known {
    /// Not checked (the topic image).
    Unchecked,
    /// No such topic.
    Missing,
    /// A topic of this many partitions.
    Partitions(i32),
}

impl Lookup<'_> {
    /// A name for a version-10 id (Kafka resolves only a non-zero id).
    fn name_of(&self, id: Option<&str>) -> Option<String> {
        let id = Uuid::from_text(id?)?;
        if id == Uuid::default() {
            return None;
        }
        match self {
            Lookup::Image(topics) => topics
                .iter()
                .find(|(_, t)| t.topic_id == id)
                .map(|(name, _)| name.clone()),
            Lookup::Cache(cache) => cache.topic_name(id),
        }
    }

    fn known(&self, name: &str) -> Known {
        match self {
            Lookup::Image(_) => Known::Unchecked,
            Lookup::Cache(cache) => cache
                .partition_count(name)
                .map_or(Known::Missing, Known::Partitions),
        }
    }
}

/// A topic of a fetch answered before the coordinator: its name, its id (version 10), the
/// partitions asked of it, and their error (`UNKNOWN_TOPIC_ID`, or a topic the client may not
/// describe).
type FetchError = (String, Option<String>, Vec<i32>, i16);

/// Whether the client may use a topic (with an authorizer: `READ` for commits and deletes,
/// `DESCRIBE` for fetches).
pub(super) type TopicCheck<'a> = Option<&'a dyn Fn(&str) -> bool>;

/// Kafka's `TOPIC_AUTHORIZATION_FAILED`.
const TOPIC_AUTHORIZATION_FAILED: i16 = 29;

/// A fetch's group as the front-end's step left it.
#[derive(Debug)]
struct FetchGroup {
    /// Its topics answered before the coordinator, in request order.
    errors: Vec<FetchError>,
    /// Whether it asked for all offsets.
    all: bool,
    /// Whether the version names topics by id.
    by_id: bool,
}

/// A topic of Kafka's response builder: the front-end's errors of its partitions.
#[derive(Debug)]
struct ErrorTopic {
    name: String,
    topic_id: Option<String>,
    partitions: Vec<(i32, i16)>,
}

/// Kafka's response builder of the front-end (`OffsetCommitResponse.Builder` and its
/// transactional and delete siblings): the topics whose partitions it answered, in the order
/// the request named them, one entry per topic id (a version-10 commit, a version-6
/// transactional one) or per name.
#[derive(Debug, Default)]
struct Builder {
    by_id: bool,
    topics: Vec<ErrorTopic>,
}

impl Builder {
    fn entry(&mut self, name: &str, topic_id: Option<&str>) -> &mut ErrorTopic {
        let by_id = self.by_id;
        let at = self.topics.iter().position(|t| {
            if by_id {
                t.topic_id.as_deref() == topic_id
            } else {
                t.name == name
            }
        });
        let at = at.unwrap_or_else(|| {
            self.topics.push(ErrorTopic {
                name: name.to_string(),
                topic_id: topic_id.map(str::to_string),
                partitions: Vec::new(),
            });
            self.topics.len() - 1
        });
        &mut self.topics[at]
    }

    /// Kafka's `addPartitions`: every partition of a topic with `code` (an entry even for none).
    fn add_all(&mut self, name: &str, topic_id: Option<&str>, parts: &[i32], code: i16) {
        let e = self.entry(name, topic_id);
        e.partitions.extend(parts.iter().map(|&p| (p, code)));
    }
}

/// The front-end's step on a request: what it answered itself, to merge with the coordinator's
/// answer.
#[derive(Debug, Default)]
pub(super) struct FrontEnd {
    /// Commit and transactional commit: the response builder.
    commit: Builder,
    /// Fetch: per group of the request that reaches the coordinator, what was answered.
    fetch: Vec<FetchGroup>,
    /// Delete: the response builder (by name).
    delete: Builder,
}

/// Names a version-10 commit's (or version-6 transactional commit's) topics by id, then, with
/// a host's metadata cache, keeps for the coordinator only the partitions of topics that exist
/// (Kafka's `handleOffsetCommitRequest` and `handleTxnOffsetCommitRequest`).
fn resolve_commit(
    lookup: &Lookup<'_>,
    by_id: bool,
    commit_topics: &mut Vec<OffsetCommitTopic>,
    allowed: TopicCheck<'_>,
) -> FrontEnd {
    let mut b = Builder {
        by_id,
        topics: Vec::new(),
    };
    commit_topics.retain_mut(|t| {
        let parts = |t: &OffsetCommitTopic| -> Vec<i32> {
            t.partitions.iter().map(|p| p.partition_index).collect()
        };
        if by_id {
            match lookup.name_of(t.topic_id.as_deref()) {
                Some(name) => t.name = name,
                None => {
                    b.add_all("", t.topic_id.as_deref(), &parts(t), UNKNOWN_TOPIC_ID);
                    return false;
                }
            }
        }
        if allowed.is_some_and(|ok| !ok(&t.name)) {
            let id = t.topic_id.as_deref();
            b.add_all(&t.name, id, &parts(t), TOPIC_AUTHORIZATION_FAILED);
            return false;
        }
        match lookup.known(&t.name) {
            Known::Unchecked => true,
            Known::Missing => {
                let id = t.topic_id.as_deref();
                b.add_all(&t.name, id, &parts(t), UNKNOWN_TOPIC_OR_PARTITION);
                false
            }
            Known::Partitions(n) => {
                let (name, id) = (t.name.as_str(), t.topic_id.as_deref());
                t.partitions.retain(|p| {
                    let exists = (0..n).contains(&p.partition_index);
                    if !exists {
                        let e = b.entry(name, id);
                        e.partitions
                            .push((p.partition_index, UNKNOWN_TOPIC_OR_PARTITION));
                    }
                    exists
                });
                !t.partitions.is_empty()
            }
        }
    });
    FrontEnd {
        commit: b,
        ..FrontEnd::default()
    }
}

/// The same for a fetch, group by group: a version-10 topic named by id (an id not known kept
/// aside), then with an authorizer a topic the client may not describe kept aside (Kafka's
/// `fetchOffsetsForGroup`; a fetch's topics are not checked for existence).
fn resolve_fetch(
    lookup: &Lookup<'_>,
    by_id: bool,
    req: &mut OffsetFetchRequest,
    allowed: TopicCheck<'_>,
) -> FrontEnd {
    let mut front = FrontEnd::default();
    for g in &mut req.groups {
        let mut errors = Vec::new();
        if let Some(l) = &mut g.topics {
            l.retain_mut(|t| {
                if by_id {
                    match lookup.name_of(t.topic_id.as_deref()) {
                        Some(name) => t.name = name,
                        None => {
                            let id = t.topic_id.clone().unwrap_or_default();
                            let parts = t.partition_indexes.clone();
                            errors.push((String::new(), Some(id), parts, UNKNOWN_TOPIC_ID));
                            return false;
                        }
                    }
                }
                if allowed.is_some_and(|ok| !ok(&t.name)) {
                    let (name, id) = (t.name.clone(), t.topic_id.clone());
                    let parts = t.partition_indexes.clone();
                    errors.push((name, id, parts, TOPIC_AUTHORIZATION_FAILED));
                    return false;
                }
                true
            });
        }
        front.fetch.push(FetchGroup {
            errors,
            all: g.topics.is_none(),
            by_id,
        });
    }
    front
}

/// Kafka's `handleOffsetDeleteRequest` with a host's metadata cache: the partitions of topics
/// that exist go to the coordinator (which is asked even with none left).
fn resolve_delete(
    lookup: &Lookup<'_>,
    topics: &mut Vec<OffsetDeleteTopic>,
    allowed: TopicCheck<'_>,
) -> FrontEnd {
    let mut b = Builder::default();
    topics.retain_mut(|t| match lookup.known(&t.name) {
        _ if allowed.is_some_and(|ok| !ok(&t.name)) => {
            let parts: Vec<i32> = t.partitions.iter().map(|p| p.partition_index).collect();
            b.add_all(&t.name, None, &parts, TOPIC_AUTHORIZATION_FAILED);
            false
        }
        Known::Unchecked => true,
        Known::Missing => {
            let parts: Vec<i32> = t.partitions.iter().map(|p| p.partition_index).collect();
            b.add_all(&t.name, None, &parts, UNKNOWN_TOPIC_OR_PARTITION);
            false
        }
        Known::Partitions(n) => {
            let name = t.name.as_str();
            t.partitions.retain(|p| {
                let exists = (0..n).contains(&p.partition_index);
                if !exists {
                    let e = b.entry(name, None);
                    e.partitions
                        .push((p.partition_index, UNKNOWN_TOPIC_OR_PARTITION));
                }
                exists
            });
            !t.partitions.is_empty()
        }
    });
    FrontEnd {
        delete: b,
        ..FrontEnd::default()
    }
}

impl FrontEnd {
    /// Kafka's `Builder.merge`: the builder's topics first, then the coordinator's, each
    /// merged into an entry of the same key (id or name); an empty builder is the
    /// coordinator's answer as it is.
    fn merge_commit(self, r: &mut OffsetCommitResponse) {
        let b = self.commit;
        if b.topics.is_empty() {
            return;
        }
        let by_id = b.by_id;
        let mut topics: Vec<OffsetCommitResponseTopic> = b
            .topics
            .into_iter()
            .map(|t| OffsetCommitResponseTopic {
                name: t.name,
                topic_id: t.topic_id,
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|(p, code)| OffsetCommitResponsePartition {
                        partition_index: p,
                        error_code: code,
                    })
                    .collect(),
            })
            .collect();
        for t in std::mem::take(&mut r.topics) {
            let same = |e: &&mut OffsetCommitResponseTopic| {
                if by_id {
                    e.topic_id == t.topic_id
                } else {
                    e.name == t.name
                }
            };
            match topics.iter_mut().find(same) {
                Some(e) => e.partitions.extend(t.partitions),
                None => topics.push(t),
            }
        }
        r.topics = topics;
    }

    /// Kafka's `OffsetDeleteResponse.Builder.merge`: a group-level error is the coordinator's
    /// answer alone; else as a commit's, by name.
    fn merge_delete(self, r: &mut OffsetDeleteResponse) {
        let b = self.delete;
        if r.error_code != 0 || b.topics.is_empty() {
            return;
        }
        let mut topics: Vec<OffsetDeleteResponseTopic> = b
            .topics
            .into_iter()
            .map(|t| OffsetDeleteResponseTopic {
                name: t.name,
                partitions: t
                    .partitions
                    .into_iter()
                    .map(|(p, code)| OffsetDeleteResponsePartition {
                        partition_index: p,
                        error_code: code,
                    })
                    .collect(),
            })
            .collect();
        for t in std::mem::take(&mut r.topics) {
            match topics.iter_mut().find(|e| e.name == t.name) {
                Some(e) => e.partitions.extend(t.partitions),
                None => topics.push(t),
            }
        }
        r.topics = topics;
    }

    /// Kafka's `KafkaApis` on a fetch: a group answered without error gets the topics
    /// answered before the coordinator after the coordinator's (offset -1); a fetch of all
    /// offsets leaves out the topics the client may not describe and, at version 10, those
    /// without an id.
    fn merge_fetch(self, r: &mut OffsetFetchResponse, allowed: TopicCheck<'_>) {
        let zero = Some(Uuid::default().to_text());
        for (g, f) in r.groups.iter_mut().zip(self.fetch) {
            if g.error_code != 0 {
                continue;
            }
            if f.all {
                g.topics.retain(|t| {
                    allowed.is_none_or(|ok| ok(&t.name)) && !(f.by_id && t.topic_id == zero)
                });
            }
            g.topics
                .extend(f.errors.into_iter().map(|(name, id, parts, code)| {
                    OffsetFetchResponseTopic {
                        name,
                        topic_id: id,
                        partitions: parts
                            .into_iter()
                            .map(|p| OffsetFetchResponsePartition {
                                partition_index: p,
                                committed_offset: -1,
                                committed_leader_epoch: -1,
                                metadata: String::new(),
                                error_code: code,
                            })
                            .collect(),
                    }
                }));
        }
    }
}

/// The front-end's step before the coordinator: a version-10 request's topics named by id,
/// those it cannot name kept aside, with an authorizer the topics the client may not use, and
/// with a host's metadata cache the topics and partitions that do not exist too (`None`:
/// nothing to do).
pub(super) fn resolve(
    lookup: &Lookup<'_>,
    kind: &mut InputKind,
    allowed: TopicCheck<'_>,
) -> Option<FrontEnd> {
    let checked = matches!(lookup, Lookup::Cache(_)) || allowed.is_some();
    match kind {
        InputKind::OffsetCommit {
            api_version,
            request,
        } if checked || *api_version >= TOPIC_ID_FROM => Some(resolve_commit(
            lookup,
            *api_version >= TOPIC_ID_FROM,
            &mut request.topics,
            allowed,
        )),
        InputKind::TxnOffsetCommit {
            api_version,
            request,
        } if checked || *api_version >= TXN_TOPIC_ID_FROM => Some(resolve_commit(
            lookup,
            *api_version >= TXN_TOPIC_ID_FROM,
            &mut request.topics,
            allowed,
        )),
        InputKind::OffsetFetch {
            api_version,
            request,
        } if allowed.is_some() || *api_version >= TOPIC_ID_FROM => Some(resolve_fetch(
            lookup,
            *api_version >= TOPIC_ID_FROM,
            request,
            allowed,
        )),
        InputKind::OffsetDelete { request } if checked => {
            Some(resolve_delete(lookup, &mut request.topics, allowed))
        }
        _ => None,
    }
}

/// Kafka's broker answers a commit with no topic left for the coordinator itself (no group is
/// checked): this is that answer, before any unknown topics are merged in.
pub(super) fn answered_before_coordinator(kind: &InputKind) -> Option<Response> {
    match kind {
        InputKind::OffsetCommit { request, .. } if request.topics.is_empty() => {
            Some(Response::OffsetCommit(OffsetCommitResponse::default()))
        }
        InputKind::TxnOffsetCommit { request, .. } if request.topics.is_empty() => {
            Some(Response::TxnOffsetCommit(OffsetCommitResponse::default()))
        }
        _ => None,
    }
}

/// Merges what the front-end answered itself ([`resolve`]) into the coordinator's response.
pub(super) fn merge(front: FrontEnd, response: &mut Response, allowed: TopicCheck<'_>) {
    match response {
        Response::OffsetCommit(r) | Response::TxnOffsetCommit(r) => front.merge_commit(r),
        Response::OffsetFetch(r) => front.merge_fetch(r, allowed),
        Response::OffsetDelete(r) => front.merge_delete(r),
        _ => {}
    }
}

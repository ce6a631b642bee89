//! `TxnOffsetCommit` (Kafka's API key 28): a transactional producer's offset commit, validated
//! as Kafka's `OffsetMetadataManager.commitTransactionalOffset` validates it for a streams
//! group, then one offset commit record per accepted partition in the producer's transactional
//! batch ([`Record::transactional`]): the offsets are pending until `TransactionCompleted`
//! reports the transaction's end (docs/transactions.md).

use super::{Batch, Coordinator};
use crate::api::{
    Explain, OffsetCommitResponse, OffsetCommitResponsePartition, OffsetCommitResponseTopic,
    Output, Response, TxnOffsetCommitRequest,
};
use crate::error::{BoundaryError, ErrorCode, ProtocolError};
use crate::java::java_length;
use crate::offsets::validate::{illegal_generation, validate_txn_commit};
use crate::records::{OffsetCommitValue, Producer, Record, RecordKey, RecordValue, Uuid};

/// Version 2 brought the leader epoch; version 3 the member; version 6 (Kafka 4.4) topic ids
/// and Kafka's own `GROUP_ID_NOT_FOUND` and `STALE_MEMBER_EPOCH`.
const LEADER_EPOCH_FROM: i16 = 2;
const MEMBER_FROM: i16 = 3;
const TOPIC_ID_FROM: i16 = 6;

impl Coordinator {
    /// Commits offsets in a transaction: the group checks, then per partition the metadata
    /// size (`OFFSET_METADATA_TOO_LARGE`, that partition only) and the assignment-epoch check
    /// (a failure fails the request); every partition of a failed request carries its error.
    pub(super) fn txn_offset_commit(
        &mut self,
        now: i64,
        api_version: i16,
        req: &TxnOffsetCommitRequest,
        out: &mut Output,
    ) {
        let gid = req.group_id.as_str();
        let mut topics: Vec<OffsetCommitResponseTopic> = req
            .topics
            .iter()
            .map(|t| OffsetCommitResponseTopic {
                name: t.name.clone(),
                topic_id: (api_version >= TOPIC_ID_FROM).then(|| {
                    t.topic_id
                        .clone()
                        .unwrap_or_else(|| Uuid::default().to_text())
                }),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| OffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        error_code: 0,
                    })
                    .collect(),
            })
            .collect();
        let refused = match self.txn_offset_commit_records(now, api_version, req, &mut topics) {
            Ok(batch) => match self.commit(&batch) {
                Ok(()) => {
                    out.push_records(batch.records);
                    None
                }
                Err(e) => Some(e),
            },
            Err(e) => Some(e),
        };
        if let Some(e) = refused {
            for p in topics.iter_mut().flat_map(|t| t.partitions.iter_mut()) {
                p.error_code = e.code.code();
            }
            if e.code == ErrorCode::UnknownServerError {
                out.explain.push(Explain::ServerError {
                    group_id: gid.to_string(),
                    message: e.message,
                });
            } else if !e.message.is_empty() {
                out.explain.push(Explain::OffsetsRefused {
                    group_id: gid.to_string(),
                    request: "TxnOffsetCommit",
                    error: e.code.name(),
                    message: e.message,
                });
            }
        }
        out.response = Some(Response::TxnOffsetCommit(OffsetCommitResponse {
            throttle_time_ms: 0,
            topics,
        }));
    }

    /// The transactional records of an accepted commit; per-partition errors are set in
    /// `topics`.
    fn txn_offset_commit_records(
        &self,
        now: i64,
        api_version: i16,
        req: &TxnOffsetCommitRequest,
        topics: &mut [OffsetCommitResponseTopic],
    ) -> Result<Batch, ProtocolError> {
        let gid = req.group_id.as_str();
        // GroupCoordinatorService refuses an empty id before the shard: no message.
        if gid.is_empty() {
            return Err(ProtocolError::new(ErrorCode::InvalidGroupId, ""));
        }
        let release = self.rules.release();
        // 4.4's version 6 answers GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH as they are; older
        // versions (and releases) answer both ILLEGAL_GENERATION.
        let own_errors = api_version >= TOPIC_ID_FROM;
        let stale_as_illegal = |e: ProtocolError| match e.code {
            ErrorCode::StaleMemberEpoch if !own_errors => illegal_generation(),
            _ => e,
        };
        // Below version 3 the request has no member.
        let (member_id, instance_id, generation) = if api_version >= MEMBER_FROM {
            (
                req.member_id.as_str(),
                req.group_instance_id.as_deref(),
                req.generation_id_or_member_epoch,
            )
        } else {
            ("", None, -1)
        };
        let validator = validate_txn_commit(
            gid,
            self.groups.get(gid),
            self.offsets.is_simple_group(gid),
            member_id,
            instance_id,
            generation,
            own_errors,
        )
        .map_err(stale_as_illegal)?;
        let needs_known_topics = release.is_some_and(|r| r.txn_commit_needs_known_topics());
        let producer = Producer {
            id: req.producer_id,
            epoch: req.producer_epoch,
        };
        let max_metadata = i64::from(self.config.offset_metadata_max_bytes);
        let image_ids = self
            .rules
            .release()
            .is_some_and(|r| r.txn_commits_take_topic_ids_from_image());
        let mut batch = Batch::default();
        batch
            .records
            .reserve_exact(req.topics.iter().map(|t| t.partitions.len()).sum());
        // Every record shares the group's and its topic's name.
        let group_name: std::sync::Arc<str> = gid.into();
        for (t, rt) in req.topics.iter().zip(topics.iter_mut()) {
            let topic_name: std::sync::Arc<str> = t.name.as_str().into();
            if needs_known_topics && !validator.is_no_op() && !self.topics.contains_key(&t.name) {
                return Err(illegal_generation());
            }
            let topic_id = match (&t.topic_id, api_version >= TOPIC_ID_FROM) {
                (Some(id), true) => Uuid::from_text(id).unwrap_or_default(),
                // 4.4's broker gives a commit below v6 its topic's id from its metadata cache.
                (_, false) if image_ids => self
                    .topics
                    .get(&t.name)
                    .map_or(Uuid::default(), |i| i.topic_id),
                _ => Uuid::default(),
            };
            for (p, rp) in t.partitions.iter().zip(rt.partitions.iter_mut()) {
                let metadata = p.committed_metadata.as_deref().unwrap_or("");
                if i64::from(java_length(metadata)) > max_metadata {
                    rp.error_code = ErrorCode::OffsetMetadataTooLarge.code();
                    continue;
                }
                validator
                    .validate(&t.name, p.partition_index)
                    .map_err(stale_as_illegal)?;
                let value = OffsetCommitValue {
                    offset: p.committed_offset,
                    leader_epoch: if api_version >= LEADER_EPOCH_FROM {
                        p.committed_leader_epoch
                    } else {
                        -1
                    },
                    metadata: metadata.to_string(),
                    commit_timestamp: now,
                    expire_timestamp: -1,
                    topic_id,
                };
                batch.push(Record::transactional(
                    RecordKey::OffsetCommit {
                        group_id: group_name.clone(),
                        topic: topic_name.clone(),
                        partition: p.partition_index,
                    },
                    RecordValue::OffsetCommit(value),
                    producer,
                ));
            }
        }
        self.check_offsets_limit(gid, &batch)?;
        Ok(batch)
    }
}

/// Boundary checks: the version is the dialect's (6 is Kafka 4.4's), every topic id is one, and
/// the producer is one (a transactional batch has a producer id and epoch of 0 or more; the
/// host's transaction coordinator verified them, as Kafka's broker does before the commit).
pub(super) fn precheck(
    max_version: i16,
    dialect: &str,
    api_version: i16,
    req: &TxnOffsetCommitRequest,
) -> Result<(), BoundaryError> {
    if api_version > max_version {
        return Err(BoundaryError::input(
            "apiVersion",
            format!("must be a version this release serves, 0 to {max_version} in {dialect}"),
        ));
    }
    if req.producer_id < 0 {
        return Err(BoundaryError::input(
            "request.producerId",
            "must be 0 or more: a transactional commit has a producer",
        ));
    }
    if req.producer_epoch < 0 {
        return Err(BoundaryError::input(
            "request.producerEpoch",
            "must be 0 or more: a transactional commit has a producer",
        ));
    }
    for (i, t) in req.topics.iter().enumerate() {
        if t.topic_id
            .as_deref()
            .is_some_and(|id| Uuid::from_text(id).is_none())
        {
            return Err(BoundaryError::input(
                format!("request.topics[{i}].topicId"),
                "expected 22 characters of URL-safe base64 (a uuid)",
            ));
        }
    }
    Ok(())
}

//! `OffsetCommit` (Kafka's API key 8): validated as Kafka's streams group validates it, then
//! one offset commit record per accepted partition, in request order, as one batch.

use super::{Batch, Coordinator};
use crate::api::{
    Explain, OffsetCommitRequest, OffsetCommitResponse, OffsetCommitResponsePartition,
    OffsetCommitResponseTopic, Output, Response,
};
use crate::error::{BoundaryError, ErrorCode, ProtocolError};
use crate::java::java_length;
use crate::offsets::validate::validate_commit;
use crate::offsets::CommittedRef;
use crate::records::{OffsetCommitValue, Record, RecordKey, RecordValue, Uuid};

impl Coordinator {
    /// Commits offsets (the offsets specification, 1.4-1.8): the group checks first, then per
    /// partition the metadata size (`OFFSET_METADATA_TOO_LARGE`, that partition only) and the
    /// assignment-epoch check (a failure fails the request); every partition of a failed
    /// request carries its error.
    pub(super) fn offset_commit(
        &mut self,
        now: i64,
        api_version: i16,
        req: &OffsetCommitRequest,
        out: &mut Output,
    ) {
        let gid = req.group_id.as_str();
        let mut topics: Vec<OffsetCommitResponseTopic> = req
            .topics
            .iter()
            .map(|t| OffsetCommitResponseTopic {
                name: t.name.clone(),
                topic_id: (api_version >= 10)
                    .then(|| t.topic_id.clone().unwrap_or_else(zero_id_text)),
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
        match self.offset_commit_records(now, api_version, req, &mut topics) {
            Ok(batch) => {
                if let Err(e) = self.commit(&batch) {
                    fail_all(&mut topics, &e);
                    out.explain.push(Explain::ServerError {
                        group_id: gid.to_string(),
                        message: e.message,
                    });
                } else {
                    out.push_records(batch.records);
                }
            }
            Err(e) => {
                fail_all(&mut topics, &e);
                out.explain
                    .push(if e.code == ErrorCode::UnknownServerError {
                        Explain::ServerError {
                            group_id: gid.to_string(),
                            message: e.message,
                        }
                    } else {
                        Explain::OffsetsRefused {
                            group_id: gid.to_string(),
                            request: "OffsetCommit",
                            error: e.code.name(),
                            message: e.message,
                        }
                    });
            }
        }
        out.response = Some(Response::OffsetCommit(OffsetCommitResponse {
            throttle_time_ms: 0,
            topics,
        }));
    }

    /// The records of an accepted commit; per-partition errors are set in `topics`.
    fn offset_commit_records(
        &self,
        now: i64,
        api_version: i16,
        req: &OffsetCommitRequest,
        topics: &mut [OffsetCommitResponseTopic],
    ) -> Result<Batch, ProtocolError> {
        let gid = req.group_id.as_str();
        let validator = validate_commit(
            gid,
            self.groups.get(gid),
            self.offsets.is_simple_group(gid),
            &req.member_id,
            req.generation_id_or_member_epoch,
            api_version,
        )?;
        // Only versions 2-4 carry a retention time.
        let expire = if api_version <= 4 && req.retention_time_ms != -1 {
            now.saturating_add(req.retention_time_ms)
        } else {
            -1
        };
        let max_metadata = i64::from(self.config.offset_metadata_max_bytes);
        let mut batch = Batch::default();
        batch
            .records
            .reserve_exact(req.topics.iter().map(|t| t.partitions.len()).sum());
        let image_ids = self
            .rules
            .release()
            .is_some_and(|r| r.commits_take_topic_ids_from_image());
        // Every record shares the group's and its topic's name.
        let group_name: std::sync::Arc<str> = gid.into();
        for (t, rt) in req.topics.iter().zip(topics.iter_mut()) {
            let topic_name: std::sync::Arc<str> = t.name.as_str().into();
            let topic_id = match (&t.topic_id, api_version >= 10) {
                (Some(id), true) => parse_id(id).unwrap_or_default(),
                // From 4.3 the broker gives a commit below v10 its topic's id from its
                // metadata cache (the zero id for an unknown topic).
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
                validator.validate(&t.name, p.partition_index)?;
                // Built in place, as `OffsetCommitValue::normalized` would leave it (a value
                // with an expiry is version 1: no leader epoch, no topic id).
                batch.push(Record {
                    key: RecordKey::OffsetCommit {
                        group_id: group_name.clone(),
                        topic: topic_name.clone(),
                        partition: p.partition_index,
                    },
                    value: Some(RecordValue::OffsetCommit(OffsetCommitValue {
                        offset: p.committed_offset,
                        // Versions below 6 carry no leader epoch.
                        leader_epoch: if api_version >= 6 && expire == -1 {
                            p.committed_leader_epoch
                        } else {
                            -1
                        },
                        metadata: metadata.to_string(),
                        commit_timestamp: now,
                        expire_timestamp: expire,
                        topic_id: if expire == -1 {
                            topic_id
                        } else {
                            Uuid::default()
                        },
                    })),
                    producer: None,
                });
            }
        }
        self.check_offsets_limit(gid, &batch)?;
        Ok(batch)
    }
}

/// Every partition of the request carries `e`'s code (Kafka fails the whole request).
fn fail_all(topics: &mut [OffsetCommitResponseTopic], e: &ProtocolError) {
    for p in topics.iter_mut().flat_map(|t| t.partitions.iter_mut()) {
        p.error_code = e.code.code();
    }
}

fn zero_id_text() -> String {
    Uuid::default().to_text()
}

/// A topic id in Kafka's 22-character form (`None`: not one).
fn parse_id(text: &str) -> Option<Uuid> {
    Uuid::from_text(text)
}

/// Boundary checks: every topic id is one.
pub(super) fn precheck(req: &OffsetCommitRequest) -> Result<(), BoundaryError> {
    for (i, t) in req.topics.iter().enumerate() {
        if t.topic_id
            .as_deref()
            .is_some_and(|id| parse_id(id).is_none())
        {
            return Err(BoundaryError::input(
                format!("request.topics[{i}].topicId"),
                "expected 22 characters of URL-safe base64 (a uuid)",
            ));
        }
    }
    Ok(())
}

/// The group of a batch that is only committed (not transactional) offsets of one group, as
/// an `OffsetCommit` writes: [`crate::offsets::Offsets::commit_all`] applies it in one pass.
pub(super) fn plain_commits_of_one_group(records: &[Record]) -> Option<&str> {
    let gid = records.first()?.key.group_id();
    records
        .iter()
        .all(|r| {
            r.producer.is_none()
                && matches!(
                    (&r.key, &r.value),
                    (RecordKey::OffsetCommit { group_id, .. }, Some(RecordValue::OffsetCommit(_)))
                        if **group_id == *gid
                )
        })
        .then_some(gid)
}

/// The offsets of a batch that [`plain_commits_of_one_group`] accepted.
pub(super) fn plain_commits(
    records: &[Record],
) -> impl Iterator<Item = (&str, i32, CommittedRef<'_>)> {
    records.iter().filter_map(|r| match (&r.key, &r.value) {
        (
            RecordKey::OffsetCommit {
                topic, partition, ..
            },
            Some(RecordValue::OffsetCommit(v)),
        ) => Some((&**topic, *partition, CommittedRef::from(v))),
        _ => None,
    })
}

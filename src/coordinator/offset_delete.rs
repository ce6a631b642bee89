//! `OffsetDelete` (Kafka's API key 47): Kafka's `OffsetMetadataManager.deleteOffsets` for a
//! streams group (and Kafka's simple classic group of an admin's commit). A topic the group is
//! subscribed to is refused per partition (`GROUP_SUBSCRIBED_TO_TOPIC`); every other partition
//! is answered without error and gets an offset commit tombstone when it has a committed offset
//! or a pending transactional one, all in one batch.

use super::{Batch, Coordinator};
use crate::api::{
    Explain, OffsetDeleteRequest, OffsetDeleteResponse, OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic, Output, Response,
};
use crate::error::{ErrorCode, ProtocolError};
use crate::offsets::validate::is_subscribed_to_topic;
use crate::records::{Record, RecordKey};

impl Coordinator {
    /// Deletes offsets: a group-level error answers no topics (Kafka's response builder), else
    /// every topic and partition of the request in its order.
    pub(super) fn offset_delete(&mut self, req: &OffsetDeleteRequest, out: &mut Output) {
        let gid = req.group_id.as_str();
        let response = match self.offset_delete_batch(req) {
            Ok((batch, topics)) => match self.commit(&batch) {
                Ok(()) => {
                    out.push_records(batch.records);
                    OffsetDeleteResponse {
                        topics,
                        ..OffsetDeleteResponse::default()
                    }
                }
                Err(e) => {
                    out.explain.push(Explain::ServerError {
                        group_id: gid.to_string(),
                        message: e.message,
                    });
                    refused(e.code)
                }
            },
            Err(e) => {
                // GroupCoordinatorService answers an empty id before the shard: no exception,
                // no message.
                if !e.message.is_empty() {
                    out.explain.push(Explain::OffsetsRefused {
                        group_id: gid.to_string(),
                        request: "OffsetDelete",
                        error: e.code.name(),
                        message: e.message,
                    });
                }
                refused(e.code)
            }
        };
        out.response = Some(Response::OffsetDelete(response));
    }

    /// The tombstones and the per-partition answers, or the group-level error.
    fn offset_delete_batch(
        &self,
        req: &OffsetDeleteRequest,
    ) -> Result<(Batch, Vec<OffsetDeleteResponseTopic>), ProtocolError> {
        let gid = req.group_id.as_str();
        if gid.is_empty() {
            return Err(ProtocolError::new(ErrorCode::InvalidGroupId, ""));
        }
        let group = self.groups.get(gid);
        // Kafka's `group(groupId)`: a streams group, or the simple classic group, which is
        // always empty and subscribes to nothing (its `validateOffsetDelete` passes).
        if group.is_none() && !self.offsets.is_simple_group(gid) {
            return Err(ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {gid} not found."),
            ));
        }
        let committed = self.offsets.group(gid);
        let mut batch = Batch::default();
        let mut topics = Vec::with_capacity(req.topics.len());
        for t in &req.topics {
            let subscribed = group.is_some_and(|g| is_subscribed_to_topic(g, &t.name));
            let partitions = t
                .partitions
                .iter()
                .map(|p| {
                    let error_code = if subscribed {
                        ErrorCode::GroupSubscribedToTopic.code()
                    } else {
                        // Kafka writes the tombstone for a committed offset or a pending
                        // transactional one.
                        let (topic, partition) = (t.name.as_str(), p.partition_index);
                        if committed.is_some_and(|o| {
                            o.get(topic, partition).is_some() || o.has_pending(topic, partition)
                        }) {
                            batch.push(Record::tombstone(RecordKey::OffsetCommit {
                                group_id: gid.to_string().into(),
                                topic: t.name.clone().into(),
                                partition: p.partition_index,
                            }));
                        }
                        0
                    };
                    OffsetDeleteResponsePartition {
                        partition_index: p.partition_index,
                        error_code,
                    }
                })
                .collect();
            topics.push(OffsetDeleteResponseTopic {
                name: t.name.clone(),
                partitions,
            });
        }
        Ok((batch, topics))
    }
}

/// The answer of a request refused as a whole: its error, no topics.
fn refused(code: ErrorCode) -> OffsetDeleteResponse {
    OffsetDeleteResponse {
        error_code: code.code(),
        ..OffsetDeleteResponse::default()
    }
}

//! `OffsetFetch` (Kafka's API key 9): each group's committed offsets, for the topics asked or
//! all of them, once the member checks pass (the offsets specification, 3.4-3.5). It writes
//! nothing.

use super::Coordinator;
use crate::api::{
    Explain, OffsetFetchGroup, OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponseGroup,
    OffsetFetchResponsePartition, OffsetFetchResponseTopic, Output, Response,
};
use crate::error::{BoundaryError, ErrorCode};
use crate::offsets::validate::validate_fetch;
use crate::offsets::CommittedRef;
use crate::records::Uuid;

/// Version 2 brought null topics (all of them); version 7 `RequireStable`; version 8 batched
/// groups.
const ALL_TOPICS_FROM: i16 = 2;
const REQUIRE_STABLE_FROM: i16 = 7;
const BATCH_FROM: i16 = 8;

impl Coordinator {
    /// One answer per group, in request order; a refused group carries its error and no
    /// topics. Below version 9 the request has no member (null, -1), and without one a streams
    /// group refuses no fetch: version 1, which has no group error (Kafka puts it on each
    /// partition), never needs one.
    pub(super) fn offset_fetch(
        &self,
        api_version: i16,
        req: &OffsetFetchRequest,
        out: &mut Output,
    ) {
        let mut groups = Vec::with_capacity(req.groups.len());
        let stable = req.require_stable && api_version >= REQUIRE_STABLE_FROM;
        for g in &req.groups {
            let gid = g.group_id.as_str();
            let (member_id, member_epoch) = if api_version >= 9 {
                (g.member_id.as_deref(), g.member_epoch)
            } else {
                (None, -1)
            };
            match validate_fetch(gid, self.groups.get(gid), member_id, member_epoch) {
                Ok(()) => groups.push(OffsetFetchResponseGroup {
                    group_id: gid.to_string(),
                    topics: self.fetched_topics(g, api_version, stable),
                    error_code: 0,
                }),
                Err(e) => {
                    out.explain.push(Explain::OffsetsRefused {
                        group_id: gid.to_string(),
                        request: "OffsetFetch",
                        error: e.code.name(),
                        message: e.message,
                    });
                    groups.push(OffsetFetchResponseGroup {
                        group_id: gid.to_string(),
                        topics: Vec::new(),
                        error_code: e.code.code(),
                    });
                }
            }
        }
        out.response = Some(Response::OffsetFetch(OffsetFetchResponse {
            throttle_time_ms: 0,
            groups,
        }));
    }

    /// A group's answer: the asked partitions, or every committed one. With `stable`
    /// (`RequireStable`), a partition with a pending transactional offset answers
    /// `UNSTABLE_OFFSET_COMMIT` instead (Kafka's `fetchOffsets` and `fetchAllOffsets`; a
    /// partition with only a pending offset is not among all the committed ones).
    fn fetched_topics(
        &self,
        g: &OffsetFetchGroup,
        v: i16,
        stable: bool,
    ) -> Vec<OffsetFetchResponseTopic> {
        let offsets = self.offsets.group(&g.group_id);
        let unstable =
            |topic: &str, p: i32| stable && offsets.is_some_and(|o| o.has_pending(topic, p));
        match &g.topics {
            Some(topics) => topics
                .iter()
                .map(|t| {
                    let asked = t
                        .topic_id
                        .as_deref()
                        .and_then(Uuid::from_text)
                        .unwrap_or_default();
                    OffsetFetchResponseTopic {
                        name: t.name.clone(),
                        topic_id: (v >= 10).then(|| asked.to_text()),
                        partitions: t
                            .partition_indexes
                            .iter()
                            .map(|&p| {
                                if unstable(&t.name, p) {
                                    return unstable_partition(p);
                                }
                                let c = offsets.and_then(|o| o.get(&t.name, p));
                                // An offset committed under another id of the name is none.
                                let c = c.filter(|c| !mismatched(c.topic_id, asked));
                                partition(p, c, v)
                            })
                            .collect(),
                    }
                })
                .collect(),
            None => offsets
                .map(|o| {
                    o.topics()
                        .map(|(name, parts)| OffsetFetchResponseTopic {
                            name: name.to_string(),
                            // Kafka's broker names the topic by the id of its metadata.
                            topic_id: (v >= 10).then(|| {
                                self.topics
                                    .get(name)
                                    .map_or(Uuid::default(), |t| t.topic_id)
                                    .to_text()
                            }),
                            partitions: parts
                                .iter()
                                .map(|(p, c)| match unstable(name, p) {
                                    true => unstable_partition(p),
                                    false => partition(p, Some(c), v),
                                })
                                .collect(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// Kafka's `isMismatchedTopicId`: both ids known and different.
fn mismatched(committed: Uuid, asked: Uuid) -> bool {
    let zero = Uuid::default();
    committed != zero && asked != zero && committed != asked
}

/// A partition's answer: its committed offset, or -1, -1, "" when it has none. Below version
/// 5 there is no leader epoch (-1).
fn partition(
    p: i32,
    c: Option<CommittedRef<'_>>,
    api_version: i16,
) -> OffsetFetchResponsePartition {
    OffsetFetchResponsePartition {
        partition_index: p,
        committed_offset: c.map_or(-1, |c| c.offset),
        committed_leader_epoch: c
            .filter(|_| api_version >= 5)
            .map_or(-1, |c| c.leader_epoch),
        metadata: c.map_or_else(String::new, |c| c.metadata.to_string()),
        error_code: 0,
    }
}

/// A partition whose offset a transaction has not completed yet: no offset,
/// `UNSTABLE_OFFSET_COMMIT`.
fn unstable_partition(p: i32) -> OffsetFetchResponsePartition {
    OffsetFetchResponsePartition {
        partition_index: p,
        committed_offset: -1,
        committed_leader_epoch: -1,
        metadata: String::new(),
        error_code: ErrorCode::UnstableOffsetCommit.code(),
    }
}

/// Boundary checks: what a request of the version can carry (below version 8 one group, below
/// version 2 the topics listed; a client of these versions cannot send more) and every topic
/// id is one.
pub(super) fn precheck(api_version: i16, req: &OffsetFetchRequest) -> Result<(), BoundaryError> {
    if api_version < BATCH_FROM && req.groups.len() != 1 {
        return Err(BoundaryError::input(
            "request.groups",
            format!("version {api_version} carries exactly one group (batching is version 8+)"),
        ));
    }
    for (i, g) in req.groups.iter().enumerate() {
        let Some(topics) = &g.topics else {
            if api_version < ALL_TOPICS_FROM {
                return Err(BoundaryError::input(
                    format!("request.groups[{i}].topics"),
                    format!("version {api_version} cannot ask for all topics (null is version 2+)"),
                ));
            }
            continue;
        };
        for (j, t) in topics.iter().enumerate() {
            if t.topic_id
                .as_deref()
                .is_some_and(|id| Uuid::from_text(id).is_none())
            {
                return Err(BoundaryError::input(
                    format!("request.groups[{i}].topics[{j}].topicId"),
                    "expected 22 characters of URL-safe base64 (a uuid)",
                ));
            }
        }
    }
    Ok(())
}

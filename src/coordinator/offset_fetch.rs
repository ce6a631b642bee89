//! `OffsetFetch` (Kafka's API key 9): each group's committed offsets, for the topics asked or
//! all of them, once the member checks pass (the offsets specification, 3.4-3.5). It writes
//! nothing.

use super::Coordinator;
use crate::api::{
    Explain, OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponseGroup,
    OffsetFetchResponsePartition, OffsetFetchResponseTopic, Output, Response,
};
use crate::offsets::validate::validate_fetch;
use crate::offsets::Committed;

impl Coordinator {
    /// One answer per group, in request order; a refused group carries its error and no
    /// topics. Below version 9 the request has no member (null, -1).
    pub(super) fn offset_fetch(
        &self,
        api_version: i16,
        req: &OffsetFetchRequest,
        out: &mut Output,
    ) {
        let mut groups = Vec::with_capacity(req.groups.len());
        for g in &req.groups {
            let gid = g.group_id.as_str();
            let (member_id, member_epoch) = if api_version >= 9 {
                (g.member_id.as_deref(), g.member_epoch)
            } else {
                (None, -1)
            };
            if let Err(e) = validate_fetch(gid, self.groups.get(gid), member_id, member_epoch) {
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
                continue;
            }
            let offsets = self.offsets.group(gid);
            let topics = match &g.topics {
                Some(topics) => topics
                    .iter()
                    .map(|t| OffsetFetchResponseTopic {
                        name: t.name.clone(),
                        partitions: t
                            .partition_indexes
                            .iter()
                            .map(|&p| {
                                partition(p, offsets.and_then(|o| o.get(&t.name, p)), api_version)
                            })
                            .collect(),
                    })
                    .collect(),
                None => offsets
                    .map(|o| {
                        o.topics()
                            .map(|(name, parts)| OffsetFetchResponseTopic {
                                name: name.to_string(),
                                partitions: parts
                                    .iter()
                                    .map(|(p, c)| partition(*p, Some(c), api_version))
                                    .collect(),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            groups.push(OffsetFetchResponseGroup {
                group_id: gid.to_string(),
                topics,
                error_code: 0,
            });
        }
        out.response = Some(Response::OffsetFetch(OffsetFetchResponse {
            throttle_time_ms: 0,
            groups,
        }));
    }
}

/// A partition's answer: its committed offset, or -1, -1, "" when it has none. Below version
/// 5 there is no leader epoch (-1).
fn partition(p: i32, c: Option<&Committed>, api_version: i16) -> OffsetFetchResponsePartition {
    OffsetFetchResponsePartition {
        partition_index: p,
        committed_offset: c.map_or(-1, |c| c.offset),
        committed_leader_epoch: c
            .filter(|_| api_version >= 5)
            .map_or(-1, |c| c.leader_epoch),
        metadata: c.map_or_else(String::new, |c| c.metadata.clone()),
        error_code: 0,
    }
}

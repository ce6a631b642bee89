//! `DeleteGroups`: memberless groups go, each its own atomic batch (PROTOCOL 2.9, 5.5).

use super::fence::description_clear_records;
use super::Coordinator;
use crate::api::{DeleteGroupsResponse, DeletedGroup, Output, Response};
use crate::error::ErrorCode;
use crate::java::is_blank;

impl Coordinator {
    /// Deletes memberless groups, each its own atomic batch (2.9).
    pub(super) fn delete_groups(&mut self, group_ids: &[String], out: &mut Output) {
        let mut results = Vec::new();
        for gid in self.deletion_order(group_ids) {
            // Kafka looks a blank id up like any other (GROUP_ID_NOT_FOUND); the draft refuses it.
            let code = if is_blank(gid) && !self.config.dialect.is_kafka() {
                ErrorCode::InvalidGroupId
            } else {
                match self.groups.get(gid) {
                    // Kafka's simple classic group of an admin's commit is empty: deleted.
                    None if self.offsets.is_simple_group(gid) => {
                        let batch = self.simple_group_deletion_batch(gid, "DELETE_GROUPS");
                        match self.commit_group(gid, batch, out) {
                            Ok(()) => ErrorCode::None,
                            Err(e) => e.code,
                        }
                    }
                    None => ErrorCode::GroupIdNotFound,
                    Some(g) if !g.members.is_empty() => ErrorCode::NonEmptyGroup,
                    Some(g) => {
                        let mut batch = self.deletion_batch(g, "DELETE_GROUPS");
                        if self.descriptions.enabled() {
                            let tombstones = std::mem::take(&mut batch.records);
                            batch.records = description_clear_records(g);
                            batch.records.extend(tombstones);
                        }
                        match self.commit_group(gid, batch, out) {
                            Ok(()) => {
                                self.cancel_deleted_group_timers(gid);
                                self.descriptions.delete(gid);
                                self.descriptions.clear_group(gid);
                                ErrorCode::None
                            }
                            Err(e) => e.code,
                        }
                    }
                }
            };
            results.push(DeletedGroup {
                group_id: gid.clone(),
                error_code: code.code(),
            });
        }
        out.response = Some(Response::DeleteGroups(DeleteGroupsResponse { results }));
    }

    /// The timers a deleted group takes with it. Kafka's `StreamsGroup.cancelTimers` cancels
    /// only the initial rebalance delay: a member's session or rebalance timeout (a member
    /// that left no record, its heartbeat failed) and an assignment batch stay, and find no
    /// group when they fire. The draft deletes every timer of the group.
    pub(super) fn cancel_deleted_group_timers(&mut self, group_id: &str) {
        if self.config.dialect.is_kafka() {
            let kind = crate::timers::TimerKind::InitialRebalanceDelay;
            self.timers.cancel_group(group_id, Some(kind));
        } else {
            self.timers.cancel_group(group_id, None);
        }
    }

    /// The order groups are deleted and answered in. Kafka's service splits the ids by
    /// partition and merges the partitions' answers ([`crate::kafka_batches`]); each partition
    /// deletes its ids as a `HashSet` of them iterates (`updateResponseAndGetNonErrorGroupList`):
    /// an id named twice is deleted and answered once. The draft keeps the request's order.
    fn deletion_order<'a>(&self, group_ids: &'a [String]) -> Vec<&'a String> {
        if !self.config.dialect.is_kafka() {
            return group_ids.iter().collect();
        }
        let partitions = self.config.offsets_topic_num_partitions;
        crate::partition::kafka_batches(group_ids, partitions, false)
            .into_iter()
            .flat_map(|b| {
                let ids: Vec<&'a String> = b.indices.iter().map(|&i| &group_ids[i]).collect();
                crate::java::hash_set_of_list(&ids)
            })
            .collect()
    }
}

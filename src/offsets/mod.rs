//! Committed offsets (Kafka's `OffsetMetadataManager` state): per group, per topic, per
//! partition, the committed offset with its leader epoch, metadata, commit and expire
//! timestamps and topic id. State beside the groups, changed only by applying offset commit
//! records (`apply`), the coordinator's own as well as a replayed log's, so that live state
//! always equals replayed state.
//!
//! Iteration follows Kafka's maps (`TimelineHashMap` of topics, then of partitions), which
//! decides the order of a group's offset tombstones and of a fetch of all its offsets.
//!
//! Kafka also keeps a "simple" classic group for a group id whose offsets were committed (or
//! replayed) while no group of that id existed; it decides how a later commit of that id is
//! validated. It is kept here as a flag of the group's offsets, cleared by the classic group's
//! tombstone (record type 2: `DeleteGroups`, the cleanup, or a streams group taking the id).
//!
//! An offset commit record of a transactional batch (its [`Record::producer`]) is pending
//! (`pending`) until [`Offsets::complete_transaction`] applies its transaction's end marker.

mod partitions;
mod pending;
pub mod validate;

use std::collections::BTreeMap;

use crate::java::timeline::TimelineMap;
use crate::ordered::Ordered;
use crate::records::{OffsetCommitValue, Record, RecordKey, RecordValue, Uuid};
pub(crate) use partitions::Partitions;

/// One committed offset (Kafka's `OffsetAndMetadata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The committed offset.
    pub offset: i64,
    /// The leader epoch; -1 when none.
    pub leader_epoch: i32,
    /// The metadata (`""` when none).
    pub metadata: String,
    /// When the offset was committed.
    pub commit_timestamp_ms: i64,
    /// When it expires; -1 when it follows `offsets.retention.minutes`.
    pub expire_timestamp_ms: i64,
    /// The topic's id; the zero UUID when unknown.
    pub topic_id: Uuid,
}

impl From<&OffsetCommitValue> for Committed {
    fn from(v: &OffsetCommitValue) -> Self {
        Committed {
            offset: v.offset,
            leader_epoch: v.leader_epoch,
            metadata: v.metadata.clone(),
            commit_timestamp_ms: v.commit_timestamp,
            expire_timestamp_ms: v.expire_timestamp,
            topic_id: v.topic_id,
        }
    }
}

/// A committed offset as a group's offsets hold it: [`Committed`] with its metadata borrowed
/// (the maps keep offsets in a compact form, not as `Committed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommittedRef<'a> {
    /// The committed offset.
    pub offset: i64,
    /// The leader epoch; -1 when none.
    pub leader_epoch: i32,
    /// The metadata (`""` when none).
    pub metadata: &'a str,
    /// When the offset was committed.
    pub commit_timestamp_ms: i64,
    /// When it expires; -1 when it follows `offsets.retention.minutes`.
    pub expire_timestamp_ms: i64,
    /// The topic's id; the zero UUID when unknown.
    pub topic_id: Uuid,
}

/// One group's offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupOffsets {
    /// Kafka's simple classic group of this id exists (created by a commit or a replayed
    /// offset while no group of the id existed; gone with its type-2 tombstone, or once a
    /// streams group takes the id).
    pub simple_group: bool,
    topics: TimelineMap<String, Partitions>,
    count: usize,
    /// Pending transactional offsets; `None` while the group has none (most groups: no
    /// allocation for them).
    pending: Option<Box<pending::Pending>>,
}

impl GroupOffsets {
    /// The number of committed partitions.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no partition has a committed offset.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The committed offset of a partition.
    pub fn get(&self, topic: &str, partition: i32) -> Option<CommittedRef<'_>> {
        self.topics.get_by(topic)?.get(partition)
    }

    /// A topic's committed partitions.
    pub(crate) fn topic(&self, topic: &str) -> Option<&Partitions> {
        self.topics.get_by(topic)
    }

    /// Every topic with its committed partitions, in Kafka's order.
    pub(crate) fn topics(&self) -> impl Iterator<Item = (&str, &Partitions)> {
        self.topics.iter().map(|(t, p)| (t.as_str(), p))
    }

    /// Every committed partition, in Kafka's order (topic by topic).
    pub fn iter(&self) -> impl Iterator<Item = (&str, i32, CommittedRef<'_>)> {
        self.topics()
            .flat_map(|(t, parts)| parts.iter().map(move |(p, c)| (t, p, c)))
    }

    /// Whether some open transaction has a pending offset for the partition (Kafka's
    /// `hasPendingTransactionalOffsets`).
    pub fn has_pending(&self, topic: &str, partition: i32) -> bool {
        self.pending
            .as_ref()
            .is_some_and(|p| p.contains(topic, partition))
    }

    /// Whether some open transaction has a pending offset in the group.
    pub fn has_any_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Every partition with a pending offset, in Kafka's `OpenTransactions` order.
    pub fn pending_partitions(&self) -> impl Iterator<Item = (&str, i32)> {
        self.pending.iter().flat_map(|p| p.partitions())
    }

    /// `producer`'s pending offset of a partition.
    pub fn pending_offset(&self, producer: i64, topic: &str, partition: i32) -> Option<&Committed> {
        self.pending.as_ref()?.get(producer, topic, partition)
    }

    /// The producers with pending offsets in the group, by id.
    pub fn pending_producers(&self) -> impl Iterator<Item = i64> + '_ {
        self.pending.iter().flat_map(|p| p.producers())
    }

    /// Applies `change` to the pending offsets, if any, and forgets them once none is left.
    fn change_pending(&mut self, change: impl FnOnce(&mut pending::Pending)) {
        if let Some(p) = self.pending.as_mut() {
            change(p);
            if p.is_empty() {
                self.pending = None;
            }
        }
    }

    /// Stores a committed offset; `true` when the partition had none.
    fn put(&mut self, topic: &str, partition: i32, offset: CommittedRef<'_>) -> bool {
        let parts = self
            .topics
            .entry_by(topic, || topic.to_string(), Partitions::default);
        let new = parts.insert(partition, offset);
        if new {
            self.count += 1;
        }
        new
    }

    /// Nothing is kept for the id any more: no offset, pending or committed, and no simple
    /// group.
    fn is_unused(&self) -> bool {
        self.topics.is_empty() && self.pending.is_none() && !self.simple_group
    }
}

/// What one group's offsets did when a transaction completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletedTransaction {
    /// The group.
    pub group_id: String,
    /// The transaction's pending offsets of the group.
    pub partitions: usize,
    /// Of those, the ones made committed (0 on an abort; a commit skips one whose partition
    /// got a newer committed offset meanwhile).
    pub committed: usize,
}

/// Every group's offsets, by group id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offsets {
    groups: BTreeMap<String, GroupOffsets>,
}

impl Offsets {
    /// One group's offsets (none when it has none and no simple group).
    pub fn group(&self, group_id: &str) -> Option<&GroupOffsets> {
        self.groups.get(group_id)
    }

    /// Every group with offsets or a simple group, by id.
    pub fn groups(&self) -> impl Iterator<Item = (&str, &GroupOffsets)> {
        self.groups.iter().map(|(g, o)| (g.as_str(), o))
    }

    /// Whether Kafka's simple classic group of this id exists (see the module docs).
    pub fn is_simple_group(&self, group_id: &str) -> bool {
        self.groups.get(group_id).is_some_and(|g| g.simple_group)
    }

    /// The group's offsets as they are, to put back with [`Offsets::restore`].
    pub(crate) fn keep(&self, group_id: &str) -> Option<GroupOffsets> {
        self.groups.get(group_id).cloned()
    }

    /// A copy of these groups' offsets, to apply records to and then [`Offsets::put_back`].
    pub(crate) fn subset<'a>(&self, group_ids: impl Iterator<Item = &'a str>) -> Offsets {
        Offsets {
            groups: group_ids
                .filter_map(|g| self.groups.get(g).map(|o| (g.to_string(), o.clone())))
                .to_map(),
        }
    }

    /// Takes these groups' offsets as `work` has them now.
    pub(crate) fn put_back<'a>(
        &mut self,
        mut work: Offsets,
        group_ids: impl Iterator<Item = &'a str>,
    ) {
        for g in group_ids {
            let kept = work.groups.remove(g);
            self.restore(g, kept);
        }
    }

    /// Puts back a group's offsets kept by [`Offsets::keep`].
    pub(crate) fn restore(&mut self, group_id: &str, kept: Option<GroupOffsets>) {
        match kept {
            Some(g) => self.groups.insert(group_id.to_string(), g),
            None => self.groups.remove(group_id),
        };
    }

    /// Applies an offset commit record, or a classic group tombstone (type 2, Kafka's
    /// `removeGroup`: the simple group is deleted, its offsets stay); any other record is left
    /// alone. An offset commit value stores the offset, creating the simple group when no
    /// streams group of the id exists (`streams_group_exists`), as committed or, in a
    /// transactional batch, as its transaction's pending offset; a tombstone removes the
    /// committed and every pending offset of the partition, the emptied topic and group with it
    /// (the simple group stays). Kafka's `OffsetMetadataManager.replay`; it cannot fail.
    pub(crate) fn apply(&mut self, record: &Record, streams_group_exists: bool) {
        if let RecordKey::ClassicGroupMetadata { group_id } = &record.key {
            return self.simple_group_deleted(group_id);
        }
        let RecordKey::OffsetCommit {
            group_id,
            topic,
            partition,
        } = &record.key
        else {
            return;
        };
        match &record.value {
            Some(RecordValue::OffsetCommit(v)) => {
                let g = match self.groups.get_mut(&**group_id) {
                    Some(g) => g,
                    None => self.groups.entry(group_id.to_string()).or_default(),
                };
                if !streams_group_exists {
                    g.simple_group = true;
                }
                match record.producer {
                    Some(p) => g.pending.get_or_insert_with(Box::default).add(
                        p.id,
                        topic,
                        *partition,
                        Committed::from(v),
                    ),
                    None => {
                        g.put(topic, *partition, CommittedRef::from(v));
                        g.change_pending(|p| p.supersede(topic, *partition, None));
                    }
                }
            }
            Some(_) => {}
            None => {
                let Some(g) = self.groups.get_mut(&**group_id) else {
                    return;
                };
                if let Some(parts) = g.topics.get_mut_by(&**topic) {
                    if parts.remove(*partition) {
                        g.count -= 1;
                    }
                    if parts.is_empty() {
                        g.topics.remove(&topic.to_string());
                    }
                }
                g.change_pending(|p| p.clear(topic, *partition));
                if g.is_unused() {
                    self.groups.remove(&**group_id);
                }
            }
        }
    }

    /// A batch of committed (not transactional) offsets of one group, in order: what
    /// [`Offsets::apply`] does record by record, with the group looked up once and a topic once
    /// per run of its partitions (a commit lists a topic's partitions together).
    pub(crate) fn commit_all<'r>(
        &mut self,
        group_id: &str,
        offsets: impl Iterator<Item = (&'r str, i32, CommittedRef<'r>)>,
        streams_group_exists: bool,
    ) {
        let g = match self.groups.get_mut(group_id) {
            Some(g) => g,
            None => self.groups.entry(group_id.to_string()).or_default(),
        };
        if !streams_group_exists {
            g.simple_group = true;
        }
        let mut run: Option<(&str, &mut Partitions)> = None;
        for (topic, partition, offset) in offsets {
            let parts = match run {
                Some((t, parts)) if t == topic => parts,
                _ => g
                    .topics
                    .entry_by(topic, || topic.to_string(), Partitions::default),
            };
            if parts.insert(partition, offset) {
                g.count += 1;
            }
            if let Some(p) = g.pending.as_mut() {
                p.supersede(topic, partition, None);
                if p.is_empty() {
                    g.pending = None;
                }
            }
            run = Some((topic, parts));
        }
    }

    /// A transaction's end marker (Kafka's `replayEndTransactionMarker`): `producer`'s pending
    /// offsets leave every group; on a commit each becomes the partition's committed offset
    /// unless a newer one was committed since it was written. What each group did, by group id.
    pub(crate) fn complete_transaction(
        &mut self,
        producer: i64,
        commit: bool,
    ) -> Vec<CompletedTransaction> {
        let mut done = Vec::new();
        for (gid, g) in &mut self.groups {
            let mut completed = Vec::new();
            g.change_pending(|p| completed = p.complete(producer));
            if completed.is_empty() {
                continue;
            }
            let mut committed = 0;
            if commit {
                for c in &completed {
                    if c.newest {
                        g.put(&c.topic, c.partition, (&c.offset).into());
                        g.change_pending(|p| p.supersede(&c.topic, c.partition, Some(c.seq)));
                        committed += 1;
                    }
                }
            }
            done.push(CompletedTransaction {
                group_id: gid.clone(),
                partitions: completed.len(),
                committed,
            });
        }
        for d in &done {
            if self
                .groups
                .get(&d.group_id)
                .is_some_and(GroupOffsets::is_unused)
            {
                self.groups.remove(&d.group_id);
            }
        }
        done
    }

    /// Kafka's simple group of the id is gone: its classic group tombstone (type 2, Kafka's
    /// `removeGroup`), which a streams group taking the id writes first, or a streams group's
    /// record replayed over it (Kafka 4.3's `getOrMaybeCreatePersistedStreamsGroup`). Its
    /// offsets stay.
    pub(crate) fn simple_group_deleted(&mut self, group_id: &str) {
        if let Some(g) = self.groups.get_mut(group_id) {
            g.simple_group = false;
            if g.is_unused() {
                self.groups.remove(group_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn commit(topic: &str, partition: i32, offset: i64) -> Record {
        Record::new(
            RecordKey::OffsetCommit {
                group_id: "g".into(),
                topic: topic.into(),
                partition,
            },
            RecordValue::OffsetCommit(OffsetCommitValue {
                offset,
                ..OffsetCommitValue::default()
            }),
        )
    }

    fn tombstone(topic: &str, partition: i32) -> Record {
        Record::tombstone(RecordKey::OffsetCommit {
            group_id: "g".into(),
            topic: topic.into(),
            partition,
        })
    }

    #[test]
    fn values_store_tombstones_remove_and_the_simple_group_stays() {
        let mut o = Offsets::default();
        o.apply(&commit("bar-0", 0, 1), false);
        o.apply(&commit("bar-0", 1, 2), false);
        o.apply(&commit("bar-1", 0, 3), false);
        o.apply(&commit("bar-0", 0, 4), false);
        let g = o.group("g").unwrap();
        assert!(g.simple_group);
        assert_eq!(g.len(), 3);
        assert_eq!(g.get("bar-0", 0).unwrap().offset, 4);
        // Kafka's testDeleteGroupAllOffsets order: bar-1/0, bar-0/0, bar-0/1.
        let order: Vec<(&str, i32)> = g.iter().map(|(t, p, _)| (t, p)).collect();
        assert_eq!(order, [("bar-1", 0), ("bar-0", 0), ("bar-0", 1)]);
        for (t, p) in [("bar-0", 0), ("bar-0", 1), ("bar-1", 0), ("nope", 0)] {
            o.apply(&tombstone(t, p), false);
        }
        let g = o.group("g").unwrap();
        assert!(g.is_empty() && g.simple_group);
        o.simple_group_deleted("g");
        assert_eq!(o.group("g"), None);
        // With a streams group, no simple group; the emptied group goes.
        o.apply(&commit("t", 0, 1), true);
        assert!(!o.is_simple_group("g"));
        o.apply(&tombstone("t", 0), true);
        assert_eq!(o.group("g"), None);
    }

    fn txn(producer: i64, topic: &str, partition: i32, offset: i64) -> Record {
        let mut r = commit(topic, partition, offset);
        r.producer = Some(crate::records::Producer {
            id: producer,
            epoch: 0,
        });
        r
    }

    fn offset(o: &Offsets, topic: &str, partition: i32) -> Option<i64> {
        o.group("g")?.get(topic, partition).map(|c| c.offset)
    }

    #[test]
    fn a_batch_of_commits_applies_as_its_records_one_by_one() {
        // Topics in runs and interleaved, a partition twice, over pending offsets of two
        // producers (one left with none), on a group with offsets and on a new one.
        let batch: Vec<Record> = [("a", 0), ("a", 1), ("b", 0), ("a", 2), ("a", 0), ("c", 5)]
            .iter()
            .enumerate()
            .map(|(i, (t, p))| commit(t, *p, 10 + i as i64))
            .collect();
        for (before, exists) in [(true, true), (true, false), (false, false)] {
            let mut one_by_one = Offsets::default();
            if before {
                one_by_one.apply(&commit("b", 0, 1), exists);
                one_by_one.apply(&txn(7, "a", 0, 2), exists);
                one_by_one.apply(&txn(8, "a", 1, 3), exists);
                one_by_one.apply(&txn(8, "z", 1, 3), exists);
            }
            let mut batched = one_by_one.clone();
            for r in &batch {
                one_by_one.apply(r, exists);
            }
            batched.commit_all(
                "g",
                batch.iter().map(|r| match (&r.key, &r.value) {
                    (
                        RecordKey::OffsetCommit {
                            topic, partition, ..
                        },
                        Some(RecordValue::OffsetCommit(v)),
                    ) => (&**topic, *partition, CommittedRef::from(v)),
                    _ => unreachable!(),
                }),
                exists,
            );
            assert_eq!(batched, one_by_one, "before: {before}, exists: {exists}");
            let g = batched.group("g").unwrap();
            assert_eq!(g.len(), 5);
            // A pending offset stays until its transaction ends (a newer commit wins then).
            assert_eq!(g.has_pending("a", 0), before);
        }
    }

    #[test]
    fn pending_offsets_wait_for_their_transaction_and_a_newer_commit_wins() {
        let mut o = Offsets::default();
        o.apply(&commit("t", 0, 1), true);
        o.apply(&txn(7, "t", 0, 2), true);
        o.apply(&txn(7, "t", 1, 3), true);
        let g = o.group("g").unwrap();
        assert!(g.has_pending("t", 0) && g.has_pending("t", 1) && !g.has_pending("t", 2));
        assert_eq!((offset(&o, "t", 0), offset(&o, "t", 1)), (Some(1), None));
        // A plain commit after the transaction's offset: the commit keeps it (Kafka's
        // testReplayTransactionEndMarkerKeepsTheMostRecentCommittedOffset).
        o.apply(&commit("t", 0, 4), true);
        let done = o.complete_transaction(7, true);
        assert_eq!(
            done,
            [CompletedTransaction {
                group_id: "g".into(),
                partitions: 2,
                committed: 1
            }]
        );
        assert_eq!((offset(&o, "t", 0), offset(&o, "t", 1)), (Some(4), Some(3)));
        assert!(!o.group("g").unwrap().has_any_pending());
        // Two transactions: the offset written last wins whichever commits first.
        o.apply(&txn(8, "t", 0, 5), true);
        o.apply(&txn(9, "t", 0, 6), true);
        o.complete_transaction(9, true);
        assert_eq!(offset(&o, "t", 0), Some(6));
        assert_eq!(o.complete_transaction(8, true)[0].committed, 0);
        assert_eq!(offset(&o, "t", 0), Some(6));
        o.apply(&txn(8, "t", 0, 7), true);
        o.apply(&txn(9, "t", 0, 8), true);
        o.complete_transaction(8, true);
        o.complete_transaction(9, true);
        assert_eq!(offset(&o, "t", 0), Some(8));
        // An abort drops them; a producer without pending offsets changes nothing.
        o.apply(&txn(10, "t", 2, 9), true);
        assert_eq!(o.complete_transaction(10, false)[0].committed, 0);
        assert_eq!(offset(&o, "t", 2), None);
        assert!(o.complete_transaction(11, true).is_empty());
    }

    #[test]
    fn tombstones_drop_pending_offsets_and_a_group_of_pending_offsets_only_stays() {
        let mut o = Offsets::default();
        o.apply(&txn(7, "a", 0, 1), true);
        o.apply(&txn(8, "a", 0, 2), true);
        o.apply(&txn(8, "b", 1, 3), true);
        // Kafka's OpenTransactions order, which DeleteGroups' tombstones follow.
        let g = o.group("g").unwrap();
        let open: Vec<(&str, i32)> = g.pending_partitions().collect();
        assert_eq!(open, [("b", 1), ("a", 0)]);
        assert_eq!(g.pending_producers().collect::<Vec<_>>(), [7, 8]);
        o.apply(&tombstone("a", 0), true);
        let g = o.group("g").unwrap();
        assert!(!g.has_pending("a", 0) && g.pending_offset(8, "a", 0).is_none());
        assert!(g.pending_offset(8, "b", 1).is_some());
        assert!(o.complete_transaction(7, true).is_empty());
        o.complete_transaction(8, false);
        assert_eq!(o.group("g"), None, "nothing left of the group");
        // A pending offset of an absent group creates the simple group, which stays.
        o.apply(&txn(9, "a", 0, 1), false);
        o.complete_transaction(9, false);
        assert!(o.is_simple_group("g"));
    }
}

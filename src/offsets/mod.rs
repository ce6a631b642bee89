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
//! validated. It is kept here as a flag of the group's offsets.

pub mod validate;

use std::collections::BTreeMap;

use crate::java::timeline::TimelineMap;
use crate::records::{OffsetCommitValue, Record, RecordKey, RecordValue, Uuid};

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

/// A topic's committed partitions.
pub(crate) type Partitions = TimelineMap<i32, Committed>;

/// One group's offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupOffsets {
    /// Kafka's simple classic group of this id exists (created by a commit or a replayed
    /// offset while no group of the id existed; gone once a streams group takes the id).
    pub simple_group: bool,
    topics: TimelineMap<String, Partitions>,
    count: usize,
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
    pub fn get(&self, topic: &str, partition: i32) -> Option<&Committed> {
        self.topics.get(&topic.to_string())?.get(&partition)
    }

    /// Every topic with its committed partitions, in Kafka's order.
    pub(crate) fn topics(&self) -> impl Iterator<Item = (&str, &Partitions)> {
        self.topics.iter().map(|(t, p)| (t.as_str(), p))
    }

    /// Every committed partition, in Kafka's order (topic by topic).
    pub fn iter(&self) -> impl Iterator<Item = (&str, i32, &Committed)> {
        self.topics()
            .flat_map(|(t, parts)| parts.iter().map(move |(p, c)| (t, *p, c)))
    }
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
                .collect(),
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

    /// Applies an offset commit record (any other record is left alone): a value stores the
    /// offset, creating the simple group when no streams group of the id exists
    /// (`streams_group_exists`); a tombstone removes it, the emptied topic and group with it
    /// (the simple group stays). Kafka's `OffsetMetadataManager.replay`; it cannot fail.
    pub(crate) fn apply(&mut self, record: &Record, streams_group_exists: bool) {
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
                let g = match self.groups.get_mut(group_id.as_str()) {
                    Some(g) => g,
                    None => self.groups.entry(group_id.clone()).or_default(),
                };
                if !streams_group_exists {
                    g.simple_group = true;
                }
                let parts = g
                    .topics
                    .entry_or_insert_with(topic.clone(), TimelineMap::default);
                if parts.insert(*partition, Committed::from(v)).is_none() {
                    g.count += 1;
                }
            }
            Some(_) => {}
            None => {
                let Some(g) = self.groups.get_mut(group_id.as_str()) else {
                    return;
                };
                let topic = topic.clone();
                if let Some(parts) = g.topics.get_mut(&topic) {
                    if parts.remove(partition).is_some() {
                        g.count -= 1;
                    }
                    if parts.is_empty() {
                        g.topics.remove(&topic);
                    }
                }
                if g.topics.is_empty() && !g.simple_group {
                    self.groups.remove(group_id.as_str());
                }
            }
        }
    }

    /// A streams group took the id: Kafka's simple group of the id is gone (Kafka writes its
    /// tombstone first, see docs/kafka-compatibility.md). Its offsets stay.
    pub(crate) fn streams_group_created(&mut self, group_id: &str) {
        if let Some(g) = self.groups.get_mut(group_id) {
            g.simple_group = false;
            if g.topics.is_empty() {
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
        o.streams_group_created("g");
        assert_eq!(o.group("g"), None);
        // With a streams group, no simple group; the emptied group goes.
        o.apply(&commit("t", 0, 1), true);
        assert!(!o.is_simple_group("g"));
        o.apply(&tombstone("t", 0), true);
        assert_eq!(o.group("g"), None);
    }
}

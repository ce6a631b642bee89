//! A topic's committed partitions as memory keeps them: per partition the offset, its
//! timestamps, leader epoch and metadata (none for `""`) in 48 bytes with the partition and its
//! link in Kafka's order, and the topic id once for the topic, since all of a topic's
//! partitions are committed under one id but for a topic recreated under its name.

use std::collections::BTreeMap;

use super::{Committed, CommittedRef};
use crate::java::timeline::TimelineMap;
use crate::records::{OffsetCommitValue, Uuid};

/// A committed offset as kept, without its topic id.
#[derive(Clone, PartialEq, Eq)]
struct Stored {
    offset: i64,
    commit_timestamp_ms: i64,
    expire_timestamp_ms: i64,
    leader_epoch: i32,
    /// `None` for `""`, as most offsets have: a thin pointer, where a `String` is 24 bytes.
    #[allow(clippy::box_collection)]
    metadata: Option<Box<String>>,
}

/// A topic's committed partitions, in Kafka's `TimelineHashMap` order.
#[derive(Clone, Default)]
pub(crate) struct Partitions {
    map: TimelineMap<i32, Stored>,
    /// The topic id of every partition not in `other_ids`.
    topic_id: Uuid,
    /// The partitions committed under another topic id than `topic_id`.
    other_ids: BTreeMap<i32, Uuid>,
}

impl Partitions {
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn view<'a>(&'a self, partition: i32, s: &'a Stored) -> CommittedRef<'a> {
        let topic_id = match self.other_ids.is_empty() {
            true => self.topic_id,
            false => *self.other_ids.get(&partition).unwrap_or(&self.topic_id),
        };
        CommittedRef {
            offset: s.offset,
            leader_epoch: s.leader_epoch,
            metadata: s.metadata.as_deref().map_or("", String::as_str),
            commit_timestamp_ms: s.commit_timestamp_ms,
            expire_timestamp_ms: s.expire_timestamp_ms,
            topic_id,
        }
    }

    /// The partition's committed offset.
    pub(crate) fn get(&self, partition: i32) -> Option<CommittedRef<'_>> {
        let s = self.map.get(&partition)?;
        Some(self.view(partition, s))
    }

    /// Every committed partition, in Kafka's order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (i32, CommittedRef<'_>)> {
        self.map.iter().map(|(p, s)| (*p, self.view(*p, s)))
    }

    /// Stores a partition's committed offset; `true` when it had none.
    pub(crate) fn insert(&mut self, partition: i32, c: CommittedRef<'_>) -> bool {
        if self.map.is_empty() {
            self.topic_id = c.topic_id;
            self.other_ids.clear();
        }
        let stored = Stored {
            offset: c.offset,
            commit_timestamp_ms: c.commit_timestamp_ms,
            expire_timestamp_ms: c.expire_timestamp_ms,
            leader_epoch: c.leader_epoch,
            metadata: (!c.metadata.is_empty()).then(|| Box::new(c.metadata.to_string())),
        };
        let new = self.map.insert(partition, stored).is_none();
        if c.topic_id == self.topic_id {
            if !self.other_ids.is_empty() {
                self.other_ids.remove(&partition);
            }
        } else {
            self.other_ids.insert(partition, c.topic_id);
            // Every partition committed under the new id (a recreated topic's): it becomes
            // the topic's, and the exceptions go.
            if self.other_ids.len() == self.map.len()
                && self.other_ids.values().all(|id| *id == c.topic_id)
            {
                self.topic_id = c.topic_id;
                self.other_ids.clear();
            }
        }
        new
    }

    /// Removes a partition's committed offset; `true` when it had one.
    pub(crate) fn remove(&mut self, partition: i32) -> bool {
        if !self.other_ids.is_empty() {
            self.other_ids.remove(&partition);
        }
        self.map.remove(&partition).is_some()
    }
}

/// Equal when Kafka's maps would be: as many slots, the same offsets in the same order, however
/// the topic ids are kept.
impl PartialEq for Partitions {
    fn eq(&self, other: &Self) -> bool {
        self.map.slots() == other.map.slots()
            && self.map.len() == other.map.len()
            && self.iter().eq(other.iter())
    }
}

impl Eq for Partitions {}

impl std::fmt::Debug for Partitions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> From<&'a OffsetCommitValue> for CommittedRef<'a> {
    fn from(v: &'a OffsetCommitValue) -> Self {
        CommittedRef {
            offset: v.offset,
            leader_epoch: v.leader_epoch,
            metadata: &v.metadata,
            commit_timestamp_ms: v.commit_timestamp,
            expire_timestamp_ms: v.expire_timestamp,
            topic_id: v.topic_id,
        }
    }
}

impl<'a> From<&'a Committed> for CommittedRef<'a> {
    fn from(c: &'a Committed) -> Self {
        CommittedRef {
            offset: c.offset,
            leader_epoch: c.leader_epoch,
            metadata: &c.metadata,
            commit_timestamp_ms: c.commit_timestamp_ms,
            expire_timestamp_ms: c.expire_timestamp_ms,
            topic_id: c.topic_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn offset(offset: i64, metadata: &str, id: u8) -> Committed {
        Committed {
            offset,
            leader_epoch: 3,
            metadata: metadata.into(),
            commit_timestamp_ms: 10,
            expire_timestamp_ms: -1,
            topic_id: Uuid([id; 16]),
        }
    }

    fn ids(p: &Partitions) -> Vec<(i32, u8)> {
        p.iter().map(|(p, c)| (p, c.topic_id.0[0])).collect()
    }

    #[test]
    fn an_offset_with_its_partition_and_link_is_48_bytes() {
        // 64-bit targets; wasm32's 4-byte pointers and 8-byte alignment of i64 make it less.
        let size = std::mem::size_of::<(i32, u32, Stored)>();
        if cfg!(target_pointer_width = "64") {
            assert_eq!(size, 48);
        } else {
            assert!(size <= 48, "{size} bytes");
        }
    }

    #[test]
    fn a_partition_reads_back_as_committed_with_its_own_topic_id() {
        let mut p = Partitions::default();
        assert!(p.insert(0, (&offset(1, "", 1)).into()));
        assert!(p.insert(1, (&offset(2, "m", 1)).into()));
        assert!(p.insert(2, (&offset(3, "", 2)).into()));
        assert!(!p.insert(0, (&offset(4, "meta", 1)).into()));
        assert_eq!(p.get(0), Some((&offset(4, "meta", 1)).into()));
        assert_eq!(p.get(1), Some((&offset(2, "m", 1)).into()));
        assert_eq!(p.get(2), Some((&offset(3, "", 2)).into()));
        assert_eq!(p.get(3), None);
        assert_eq!(ids(&p), [(2, 2), (0, 1), (1, 1)]);
        // Re-committed under the topic's id, a partition loses its exception.
        p.insert(2, (&offset(3, "", 1)).into());
        assert!(p.other_ids.is_empty());
        // A recreated topic: once every partition has the new id, it is the topic's.
        for part in 0..3 {
            p.insert(part, (&offset(5, "", 9)).into());
        }
        assert_eq!((p.topic_id, p.other_ids.len()), (Uuid([9; 16]), 0));
        assert!(p.remove(1) && !p.remove(1));
        assert_eq!(ids(&p), [(2, 9), (0, 9)]);
    }

    #[test]
    fn partitions_are_equal_by_their_offsets_however_the_ids_are_kept() {
        let mut a = Partitions::default();
        a.insert(0, (&offset(1, "", 1)).into());
        a.insert(1, (&offset(1, "", 2)).into());
        let mut b = Partitions::default();
        b.insert(0, (&offset(1, "", 2)).into());
        b.insert(1, (&offset(1, "", 2)).into());
        b.insert(0, (&offset(1, "", 1)).into());
        assert_ne!((a.topic_id, &a.other_ids), (b.topic_id, &b.other_ids));
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        b.insert(1, (&offset(1, "", 3)).into());
        assert_ne!(a, b);
    }
}

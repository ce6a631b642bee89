//! A group's pending transactional offsets (Kafka's `pendingTransactionalOffsets` and
//! `OpenTransactions`, for one group): offsets a `TxnOffsetCommit` wrote in a transaction that
//! has not completed. A commit marker makes them committed, an abort drops them, an offset
//! tombstone of the partition drops them too.
//!
//! Kafka materializes a pending offset on commit only when its record is newer in the log than
//! the committed offset it would replace (`recordOffset`). Here each pending offset remembers
//! its order among the group's transactional writes, and is marked superseded when a newer
//! offset of the partition becomes committed (a plain commit, or another transaction's
//! materialized one written after it): the same decision, made from the order the records were
//! applied in, so that a replayed log decides it alike.

use std::collections::{BTreeMap, BTreeSet};

use super::Committed;
use crate::java::timeline::TimelineMap;

/// One pending transactional offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PendingOffset {
    pub(crate) committed: Committed,
    /// Its place among the group's transactional writes.
    seq: u64,
    /// A newer offset of the partition became committed after it was written: a commit of
    /// its transaction keeps that one (Kafka's `recordOffset` comparison).
    superseded: bool,
}

/// A pending offset of a completed transaction.
#[derive(Clone, Debug)]
pub(crate) struct Completed {
    pub(crate) topic: String,
    pub(crate) partition: i32,
    pub(crate) offset: Committed,
    /// No newer offset of the partition became committed since it was written: a commit of
    /// its transaction makes it the committed one.
    pub(crate) newest: bool,
    /// Its place among the group's transactional writes.
    pub(crate) seq: u64,
}

/// One producer's pending offsets of the group, in Kafka's map order (topic, then partition).
pub(crate) type ProducerOffsets = TimelineMap<String, TimelineMap<i32, PendingOffset>>;

/// The pending transactional offsets of one group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pending {
    by_producer: BTreeMap<i64, ProducerOffsets>,
    /// Kafka's `OpenTransactions` of the group: the producers with a pending offset per
    /// partition, in Kafka's map order (it decides the order of `DeleteGroups`' tombstones).
    open: TimelineMap<String, TimelineMap<i32, BTreeSet<i64>>>,
    next_seq: u64,
}

impl Pending {
    /// Whether no transaction of the group has a pending offset.
    pub(crate) fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Whether some transaction has a pending offset for the partition.
    pub(crate) fn contains(&self, topic: &str, partition: i32) -> bool {
        // Most groups have no open transaction: no lookup (and no key built) for them.
        !self.open.is_empty()
            && self
                .open
                .get_by(topic)
                .is_some_and(|parts| parts.get(&partition).is_some())
    }

    /// Every partition with a pending offset, in Kafka's `OpenTransactions` order.
    pub(crate) fn partitions(&self) -> impl Iterator<Item = (&str, i32)> {
        self.open
            .iter()
            .flat_map(|(t, parts)| parts.iter().map(move |(p, _)| (t.as_str(), *p)))
    }

    /// The producers with pending offsets, by id.
    pub(crate) fn producers(&self) -> impl Iterator<Item = i64> + '_ {
        self.by_producer.keys().copied()
    }

    /// `producer`'s pending offset of a partition.
    pub(crate) fn get(&self, producer: i64, topic: &str, partition: i32) -> Option<&Committed> {
        let offsets = self.by_producer.get(&producer)?;
        Some(&offsets.get_by(topic)?.get(&partition)?.committed)
    }

    /// A transactional offset commit record of `producer` applied (it replaces the producer's
    /// earlier one of the partition).
    pub(crate) fn add(&mut self, producer: i64, topic: &str, partition: i32, offset: Committed) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.by_producer
            .entry(producer)
            .or_default()
            .entry_by(topic, || topic.to_string(), TimelineMap::default)
            .insert(
                partition,
                PendingOffset {
                    committed: offset,
                    seq,
                    superseded: false,
                },
            );
        self.open
            .entry_by(topic, || topic.to_string(), TimelineMap::default)
            .entry_or_insert_with(partition, BTreeSet::new)
            .insert(producer);
    }

    /// A newer offset of the partition became committed: the pending ones written before it
    /// (`before`: the write order it came at; `None`: a plain commit, newer than them all) no
    /// longer win a commit of their transaction.
    pub(crate) fn supersede(&mut self, topic: &str, partition: i32, before: Option<u64>) {
        if self.open.is_empty() {
            return;
        }
        let Some(producers) = self.open.get_by(topic).and_then(|p| p.get(&partition)) else {
            return;
        };
        for producer in producers.clone() {
            let entry = self
                .by_producer
                .get_mut(&producer)
                .and_then(|o| o.get_mut_by(topic))
                .and_then(|parts| parts.get_mut(&partition));
            if let Some(e) = entry {
                if before.is_none_or(|s| e.seq < s) {
                    e.superseded = true;
                }
            }
        }
    }

    /// An offset tombstone of the partition: every transaction's pending offset of it goes.
    pub(crate) fn clear(&mut self, topic: &str, partition: i32) {
        if self.open.is_empty() {
            return;
        }
        let topic = topic.to_string();
        let Some(producers) = self.open.get_mut(&topic).and_then(|p| p.remove(&partition)) else {
            return;
        };
        if self.open.get(&topic).is_some_and(TimelineMap::is_empty) {
            self.open.remove(&topic);
        }
        for producer in producers {
            self.remove_offset(producer, &topic, partition);
        }
    }

    /// `producer`'s transaction completed: its pending offsets leave, in Kafka's order. The
    /// caller makes the kept ones committed (on a commit).
    pub(crate) fn complete(&mut self, producer: i64) -> Vec<Completed> {
        let Some(offsets) = self.by_producer.remove(&producer) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (topic, parts) in offsets.iter() {
            for (partition, e) in parts.iter() {
                self.forget_open(producer, topic, *partition);
                out.push(Completed {
                    topic: topic.clone(),
                    partition: *partition,
                    offset: e.committed.clone(),
                    newest: !e.superseded,
                    seq: e.seq,
                });
            }
        }
        out
    }

    fn remove_offset(&mut self, producer: i64, topic: &String, partition: i32) {
        let Some(offsets) = self.by_producer.get_mut(&producer) else {
            return;
        };
        if let Some(parts) = offsets.get_mut(topic) {
            parts.remove(&partition);
            if parts.is_empty() {
                offsets.remove(topic);
            }
        }
        if offsets.is_empty() {
            self.by_producer.remove(&producer);
        }
    }

    fn forget_open(&mut self, producer: i64, topic: &String, partition: i32) {
        let Some(parts) = self.open.get_mut(topic) else {
            return;
        };
        if let Some(producers) = parts.get_mut(&partition) {
            producers.remove(&producer);
            if producers.is_empty() {
                parts.remove(&partition);
            }
        }
        if parts.is_empty() {
            self.open.remove(topic);
        }
    }
}

//! Transactional offset commits as Kafka applies them (docs/transactions.md): an offset commit
//! record of a transactional batch is pending for its producer, not committed; the producer's
//! end marker commits its pending offsets (each unless an offset of its partition written later
//! was committed since: Kafka keeps "the most recent committed offset") or drops them. Pending
//! offsets still without a marker at the log's end are told there.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::offsets::{entry, named};
use super::tracker::{event, Place, Tracker};
use crate::history::LogMarker;
use crate::records::{OffsetCommitValue, Producer};

/// A pending offset: what its record wrote, where, and who held its task then (the member that
/// committed it, as for a plain commit).
pub(super) struct Pending {
    topic: String,
    partition: i32,
    offset: i64,
    commit_timestamp: i64,
    /// Index of its record: Kafka decides a commit against a newer committed offset by log order.
    index: usize,
    holder: Option<(String, i32)>,
}

impl Pending {
    fn entry(&self) -> Value {
        entry(
            &self.topic,
            self.partition,
            self.offset,
            self.holder.clone(),
        )
    }
}

/// A group's transactional state: pending offsets per producer, and the index of the record
/// of each partition's committed offset (kept beside its [`Tracker`], which knows nothing of
/// transactions).
#[derive(Default)]
pub(super) struct Txns {
    pending: BTreeMap<i64, Vec<Pending>>,
    committed_at: BTreeMap<(String, i32), usize>,
}

/// A plain offset commit record (`value` `None`: a tombstone) at record `index`: the committed
/// offset is now its; a tombstone drops the partition's committed and pending offsets.
pub(super) fn plain(x: &mut Txns, topic: &str, partition: i32, index: usize, value: bool) {
    let key = (topic.to_string(), partition);
    if value {
        x.committed_at.insert(key, index);
    } else {
        x.committed_at.remove(&key);
        for list in x.pending.values_mut() {
            list.retain(|p| p.topic != topic || p.partition != partition);
        }
        x.pending.retain(|_, list| !list.is_empty());
    }
}

/// An offset commit record of `producer`'s transactional batch: pending for the producer (its
/// second offset of a partition replaces its first), told as written, a run of them one event.
#[allow(clippy::too_many_arguments)]
pub(super) fn written(
    t: &mut Tracker,
    x: &mut Txns,
    gid: &str,
    at: &Place,
    topic: &str,
    partition: i32,
    v: &OffsetCommitValue,
    holder: Option<(String, i32)>,
    producer: Producer,
) {
    let pending = Pending {
        topic: topic.to_string(),
        partition,
        offset: v.offset,
        commit_timestamp: v.commit_timestamp,
        index: at.index,
        holder,
    };
    let e = pending.entry();
    let list = x.pending.entry(producer.id).or_default();
    list.retain(|p| p.topic != topic || p.partition != partition);
    list.push(pending);
    const CODE: &str = "TRANSACTIONAL_OFFSETS_WRITTEN";
    if let Some(last) = t.events.last_mut() {
        let field = |k: &str| last.get(k).cloned().unwrap_or(Value::Null);
        let joins = field("code") == CODE
            && field("producerId") == json!(producer.id)
            && field("commitTimestampMs") == json!(v.commit_timestamp)
            && at.index > 0
            && field("lastIndex").as_u64() == Some(at.index as u64 - 1);
        if joins {
            if let Some(Value::Array(list)) = last.get_mut("partitions") {
                list.push(e);
            }
            last.insert("lastIndex".into(), json!(at.index));
            let text = written_text(producer.id, last.get("partitions"));
            last.insert("text".into(), text.into());
            return;
        }
    }
    let partitions = json!([e]);
    let text = written_text(producer.id, Some(&partitions));
    t.events.push(event(
        CODE,
        gid,
        at,
        json!({"producerId": producer.id, "producerEpoch": producer.epoch, "partitions": partitions,
               "commitTimestampMs": v.commit_timestamp, "lastIndex": at.index}),
        text,
    ));
}

fn written_text(producer: i64, partitions: Option<&Value>) -> String {
    format!(
        "Offsets written in producer {producer}'s transaction, pending until its end marker: {}.",
        named(partitions.unwrap_or(&Value::Null))
    )
}

/// The place of a marker's events: `index` is how many records come before it.
fn place(m: &LogMarker) -> Place {
    Place {
        index: m.before,
        offset: m.offset,
        timestamp_ms: m.timestamp_ms,
    }
}

/// A producer's end marker in the group: on `COMMIT` its pending offsets become committed
/// (`OFFSETS_COMMITTED`, `transactional: true`), but for those whose partition has a committed
/// offset written after them (`superseded`); on `ABORT` they are dropped.
pub(super) fn marker(t: &mut Tracker, x: &mut Txns, gid: &str, m: &LogMarker) {
    let Some(list) = x.pending.remove(&m.producer_id) else {
        return;
    };
    let at = place(m);
    let id = m.producer_id;
    if !m.commit {
        let partitions: Vec<Value> = list.iter().map(Pending::entry).collect();
        let partitions = Value::Array(partitions);
        let text = format!(
            "Producer {id}'s transaction was aborted: its pending offsets are dropped: {}.",
            named(&partitions)
        );
        t.events.push(event(
            "TRANSACTIONAL_OFFSETS_ABORTED",
            gid,
            &at,
            json!({"producerId": id, "partitions": partitions}),
            text,
        ));
        return;
    }
    let mut committed = Vec::new();
    let mut superseded = Vec::new();
    let mut time = None;
    for p in &list {
        let key = (p.topic.clone(), p.partition);
        if x.committed_at.get(&key).is_some_and(|&c| c > p.index) {
            superseded
                .push(json!({"topic": p.topic, "partition": p.partition, "offset": p.offset}));
        } else {
            x.committed_at.insert(key, p.index);
            committed.push(p.entry());
            time = time.max(Some(p.commit_timestamp));
        }
    }
    let committed = Value::Array(committed);
    let mut text = format!("Producer {id}'s transaction committed: offsets committed: ");
    if committed.as_array().is_some_and(|c| c.is_empty()) {
        text = format!("Producer {id}'s transaction committed, but none of its offsets applied");
    } else {
        text += &named(&committed);
    }
    if !superseded.is_empty() {
        let kept: Vec<String> = superseded
            .iter()
            .map(|s| format!("{}-{}", s["topic"].as_str().unwrap_or(""), s["partition"]))
            .collect();
        text += &format!(
            "; a newer committed offset was kept for {} (Kafka keeps the most recent one)",
            kept.join(", ")
        );
    }
    text.push('.');
    let mut fields = json!({"producerId": id, "transactional": true, "partitions": committed,
                            "commitTimestampMs": time});
    if !superseded.is_empty() {
        fields["superseded"] = Value::Array(superseded);
    }
    t.events
        .push(event("OFFSETS_COMMITTED", gid, &at, fields, text));
}

/// The group's pending offsets at the log's end (`at`), one event per producer; how many.
pub(super) fn still_pending(t: &mut Tracker, x: &mut Txns, gid: &str, at: &Place) -> usize {
    let mut n = 0;
    for (id, list) in std::mem::take(&mut x.pending) {
        n += list.len();
        let partitions = Value::Array(list.iter().map(Pending::entry).collect());
        let text = format!(
            "Still pending at the end of the log: producer {id}'s transaction has no end marker here (still open, or its marker is in a later segment): {}.",
            named(&partitions)
        );
        t.events.push(event(
            "TRANSACTIONAL_OFFSETS_PENDING",
            gid,
            at,
            json!({"producerId": id, "partitions": partitions}),
            text,
        ));
    }
    n
}

//! What offset commit records tell: the offsets a group committed (a run of records of one
//! group at one commit time is one commit, as Kafka writes a request's partitions together),
//! and the offsets removed (tombstones: expired, deleted with the group or its topic, or by `OffsetDelete`;
//! the records do not say which). The committing member is not in the records: each committed
//! partition is told with the member that held its task (the subtopology reading the topic, at
//! the partition) as active at that point of the log, and that member's epoch, since a Streams
//! client commits the offsets of the tasks it runs. A transactional batch's offsets are told as
//! Kafka applies them, at their producer's end marker (`txn.rs`).

use serde_json::{json, Value};

use super::tracker::{event, Place, Tracker};
use crate::group::Group;
use crate::records::OffsetCommitValue;

/// The member holding, as active, the task that reads `topic`'s `partition` in `group`'s
/// topology (a source or repartition source topic), with its member epoch.
pub(super) fn holder(group: Option<&Group>, topic: &str, partition: i32) -> Option<(String, i32)> {
    let g = group?;
    let topology = g.topology.as_ref()?;
    let sub = topology.subtopologies.iter().find(|s| {
        s.source_topics.iter().any(|t| t == topic)
            || s.repartition_source_topics.iter().any(|t| t.name == topic)
    })?;
    g.members
        .iter()
        .find(|(_, m)| m.assigned.active.contains(&sub.subtopology_id, partition))
        .map(|(id, m)| (id.to_string(), m.member_epoch))
}

/// Partitions named in an event's text before "and N more".
const NAMED: usize = 5;

/// Tells one offset commit record (`value` `None`: a tombstone), joining the event before it
/// when that told the record just before, of the same kind and commit time.
pub(super) fn told(
    t: &mut Tracker,
    gid: &str,
    at: &Place,
    topic: &str,
    partition: i32,
    value: Option<&OffsetCommitValue>,
    holder: Option<(String, i32)>,
) {
    let (code, entry, time) = match value {
        Some(v) => (
            "OFFSETS_COMMITTED",
            entry(topic, partition, v.offset, holder),
            json!(v.commit_timestamp),
        ),
        None => (
            "OFFSETS_REMOVED",
            json!({"topic": topic, "partition": partition}),
            Value::Null,
        ),
    };
    if let Some(last) = t.events.last_mut() {
        let field = |k: &str| last.get(k).cloned().unwrap_or(Value::Null);
        let joins = field("code") == code
            && field("commitTimestampMs") == time
            && at.index > 0
            && field("lastIndex").as_u64() == Some(at.index as u64 - 1);
        if joins {
            if let Some(Value::Array(list)) = last.get_mut("partitions") {
                list.push(entry);
            }
            last.insert("lastIndex".into(), json!(at.index));
            let text = describe(code, last.get("partitions").unwrap_or(&Value::Null));
            last.insert("text".into(), text.into());
            return;
        }
    }
    let partitions = json!([entry]);
    let text = describe(code, &partitions);
    let mut e = event(
        code,
        gid,
        at,
        json!({"partitions": partitions, "commitTimestampMs": time, "lastIndex": at.index}),
        text,
    );
    if value.is_none() {
        e.remove("commitTimestampMs");
    }
    t.events.push(e);
}

/// A committed partition as events list it: its offset, and the holder of its task.
pub(super) fn entry(
    topic: &str,
    partition: i32,
    offset: i64,
    holder: Option<(String, i32)>,
) -> Value {
    let mut entry = json!({"topic": topic, "partition": partition, "offset": offset});
    if let Some((member, epoch)) = holder {
        entry["taskHolder"] = json!(member);
        entry["memberEpoch"] = json!(epoch);
    }
    entry
}

fn describe(code: &str, partitions: &Value) -> String {
    let named = named(partitions);
    match code {
        "OFFSETS_COMMITTED" => format!("Offsets committed: {named}."),
        _ => format!(
            "Offsets removed (expired, deleted with the group or its topic, or by OffsetDelete): {named}."
        ),
    }
}

/// An event's partitions in words: the first few with their offsets and task holders.
pub(super) fn named(partitions: &Value) -> String {
    let list = partitions.as_array().map_or(&[][..], Vec::as_slice);
    let named: Vec<String> = list
        .iter()
        .take(NAMED)
        .map(|p| {
            let tp = format!(
                "{}-{}",
                p["topic"].as_str().unwrap_or(""),
                p["partition"].as_i64().unwrap_or(-1)
            );
            let by = match (p["taskHolder"].as_str(), p["memberEpoch"].as_i64()) {
                (Some(m), Some(e)) => format!(" (task held by {m} at epoch {e})"),
                _ => String::new(),
            };
            match p["offset"].as_i64() {
                Some(o) => format!("{tp} at {o}{by}"),
                None => tp,
            }
        })
        .collect();
    let more = match list.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!("{}{more}", named.join(", "))
}

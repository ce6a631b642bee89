//! Telling a group's history from its records alone: each record is replayed into its group
//! (as the coordinator does when it loads a partition), and what changed is told as events in
//! `explain`'s style. A record's kind decides what it tells (`record.rs`); what waits for a
//! later record (a removal, a bump's causes) is kept per group (`tracker.rs`); the targets'
//! moves are counted by a book kept member by member (`targets.rs`); `text.rs` puts it in words.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::ParsedLog;
use crate::group::{self, Group};
use crate::records::{RecordKey, RecordValue};
use record::{
    current_assignment, group_deleted, group_metadata, member_metadata, simple_group_deleted,
    target_assignment, topology,
};
use tracker::{event, Before, Place, Removed, Tracker};

mod offsets;
mod record;
mod targets;
mod text;
mod tracker;
mod txn;

pub use text::render_text;

/// One thing that happened, in `explain`'s style: `code`, `groupId`, the code's fields, and
/// where in the log (`index` of the record, `offset`, `timestampMs` when known) plus `text`.
pub type Event = Map<String, Value>;

/// The history of every group in a read log; `damage` lists the log's damaged lines (the
/// history is told up to the first).
pub fn tell(log: &ParsedLog) -> Value {
    let dialect = log.dialect;
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let mut trackers: BTreeMap<String, Tracker> = BTreeMap::new();
    let mut txns: BTreeMap<String, txn::Txns> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let n = log.records.len();
    let mut markers = log.markers.iter().peekable();
    for (index, lr) in log.records.iter().enumerate() {
        while let Some(m) = markers.next_if(|m| m.before <= index) {
            txn_marker(&mut trackers, &mut txns, m);
        }
        let rec = &lr.record;
        let gid = rec.key.group_id().to_string();
        if !trackers.contains_key(&gid) {
            order.push(gid.clone());
        }
        let t = trackers.entry(gid.clone()).or_default();
        let at = Place {
            index,
            offset: lr.offset,
            timestamp_ms: lr.timestamp_ms,
        };
        // Offset commits change no membership: told on their own, a run of them as one event.
        if let RecordKey::OffsetCommit {
            topic, partition, ..
        } = &rec.key
        {
            let value = match &rec.value {
                Some(RecordValue::OffsetCommit(v)) => Some(v),
                _ => None,
            };
            let holder = value.and_then(|_| offsets::holder(groups.get(&gid), topic, *partition));
            let x = txns.entry(gid.clone()).or_default();
            match (value, rec.producer) {
                (Some(v), Some(p)) => {
                    txn::written(t, x, &gid, &at, topic, *partition, v, holder, p)
                }
                _ => {
                    offsets::told(t, &gid, &at, topic, *partition, value, holder);
                    txn::plain(x, topic, *partition, index, value.is_some());
                }
            }
            continue;
        }
        let before = Before::of(groups.get(&gid), rec);
        let old_member = rec
            .key
            .member_id()
            .and_then(|m| groups.get(&gid).and_then(|g| g.members.get(m)).cloned());
        // Removals are told once the next record shows what they were.
        let continues_removal = matches!(
            (&rec.key, &rec.value),
            (RecordKey::MemberMetadata { .. }, Some(_)) | (_, None)
        );
        if !continues_removal && !matches!(rec.key, RecordKey::GroupMetadata { .. }) {
            t.flush_removed(&gid, &at);
        }
        if let Err(e) = group::apply(
            &mut groups,
            rec,
            &crate::topology::Limits::default(),
            dialect,
        ) {
            t.events.push(event(
                "RECORD_NOT_APPLIED",
                &gid,
                &at,
                json!({"message": e.to_string()}),
                format!("A record could not be applied and was skipped: {e}"),
            ));
            continue;
        }
        if let RecordKey::TargetAssignmentMember { member_id, .. }
        | RecordKey::MemberMetadata { member_id, .. } = &rec.key
        {
            t.targets.touch(member_id);
        }
        let g = groups.get(&gid);
        match (&rec.key, &rec.value) {
            (
                RecordKey::MemberMetadata { member_id, .. },
                Some(RecordValue::MemberMetadata(md)),
            ) => member_metadata(t, &gid, &at, member_id, md, old_member.as_ref()),
            (RecordKey::MemberMetadata { member_id, .. }, None) => {
                t.shown.remove(member_id);
                if let Some(old) = &old_member {
                    t.removed.push(Removed {
                        member_id: member_id.clone(),
                        instance_id: old.metadata.instance_id.clone(),
                        was_away: t.away.remove(member_id),
                    });
                }
            }
            (RecordKey::Topology { .. }, Some(RecordValue::Topology(v))) => {
                topology(t, &gid, &at, dialect, before, v)
            }
            (RecordKey::PartitionMetadata { .. }, _) => t.topics = true,
            (RecordKey::GroupMetadata { .. }, Some(RecordValue::GroupMetadata(v))) => {
                group_metadata(t, &gid, &at, dialect, &before, v)
            }
            (
                RecordKey::TargetAssignmentMetadata { .. },
                Some(RecordValue::TargetAssignmentMetadata(v)),
            ) => {
                // Kafka 4.4 settles a group its last member left (the assignment epoch raised
                // to the group's, timestamp 0): nothing was computed. (A release that stamps
                // its computations; the draft and 4.2 compute for memberless groups unstamped.)
                let stamps = matches!(
                    dialect,
                    crate::records::Dialect::Kafka43 | crate::records::Dialect::Kafka44
                );
                let settled =
                    |g: &Group| stamps && g.members.is_empty() && v.assignment_timestamp == 0;
                if let Some(g) = g.filter(|g| !settled(g)) {
                    target_assignment(t, &gid, &at, g, &before, v);
                }
            }
            (
                RecordKey::CurrentMemberAssignment { member_id, .. },
                Some(RecordValue::CurrentMemberAssignment(v)),
            ) => {
                if let Some(g) = g {
                    current_assignment(t, &gid, &at, g, member_id, v, old_member.as_ref());
                }
            }
            (RecordKey::GroupMetadata { .. }, None) => group_deleted(t, &gid, &at),
            (RecordKey::ClassicGroupMetadata { .. }, None) if g.is_none() => {
                simple_group_deleted(t, &gid, &at)
            }
            _ => {}
        }
        // Group states between coordinator writes (at a batch end when the log shows batches).
        let batch_ends = match (lr.batch, log.records.get(index + 1)) {
            (Some(b), Some(next)) => next.batch != Some(b),
            _ => true,
        };
        if batch_ends || index + 1 == n {
            let now = groups.get(&gid).map(|g| g.state().code());
            let now = now.unwrap_or("DEAD");
            let prev = t.state.unwrap_or("NONE");
            if prev != now && !(prev == "NONE" && now == "DEAD") {
                if t.state.is_some() {
                    t.events.push(event(
                        "GROUP_STATE_CHANGED",
                        &gid,
                        &at,
                        json!({"from": prev, "to": now}),
                        format!("Group {prev} → {now}."),
                    ));
                }
                t.state = Some(now);
            }
            if lr.batch.is_some() {
                let end = Place {
                    index,
                    offset: lr.offset,
                    timestamp_ms: lr.timestamp_ms,
                };
                t.flush_removed(&gid, &end);
                // Causes that no bump consumed within their write (a metadata update without
                // a rebalance) are not causes of a later bump.
                t.joined.clear();
                t.changed.clear();
                t.topology = None;
                t.topics = false;
            }
        }
    }
    for m in markers {
        txn_marker(&mut trackers, &mut txns, m);
    }
    let last = Place {
        index: n,
        offset: None,
        timestamp_ms: None,
    };
    let mut out = Vec::new();
    // Looked up, not removed: no removal code for this map type in the module.
    for gid in order {
        let Some(t) = trackers.get_mut(&gid) else {
            continue;
        };
        t.flush_removed(&gid, &last);
        let pending = txns
            .get_mut(&gid)
            .map_or(0, |x| txn::still_pending(t, x, &gid, &last));
        let g = groups.get(&gid);
        let times: Vec<i64> = t.reconciled.iter().flatten().copied().collect();
        let summary = json!({
            // A group with offsets and no streams group record (an admin's commits make a
            // simple group, as Kafka's coordinator does) is empty, not dead.
            "state": g.map_or(if t.state.is_none() && !t.deleted { "EMPTY" } else { "DEAD" }, |g| g.state().code()),
            "groupEpoch": g.map(|g| g.group_epoch),
            "assignmentEpoch": g.map(|g| g.assignment_epoch),
            "members": g.map_or(0, |g| g.members.len()),
            "epochBumps": t.bumps,
            "reconciliations": t.reconciled.len(),
            "slowestReconcileMs": times.iter().max(),
            "deleted": t.deleted && g.is_none(),
            // Transactional offsets without their producer's end marker by the log's end.
            "pendingTransactionalOffsets": pending,
        });
        let events = std::mem::take(&mut t.events);
        out.push(json!({"groupId": gid, "summary": summary, "events": events}));
    }
    // Damaged lines: the history stops before the first.
    let damage: Vec<Value> = log
        .damage
        .iter()
        .map(|d| json!({"line": d.line, "position": d.position, "message": d.message}))
        .collect();
    let warnings: Vec<Value> = log
        .warnings
        .iter()
        .map(|d| json!({"line": d.line, "position": d.position, "message": d.message}))
        .collect();
    json!({
        "dialect": dialect.name(),
        "records": log.records.len(),
        "skipped": log.skipped,
        "groups": out,
        "damage": damage,
        "warnings": warnings,
    })
}

/// A transaction's end marker, in every group with pending offsets of its producer.
fn txn_marker(
    trackers: &mut BTreeMap<String, Tracker>,
    txns: &mut BTreeMap<String, txn::Txns>,
    m: &crate::history::LogMarker,
) {
    for (gid, x) in txns.iter_mut() {
        if let Some(t) = trackers.get_mut(gid) {
            txn::marker(t, x, gid, m);
        }
    }
}

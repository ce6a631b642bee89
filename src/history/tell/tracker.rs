//! What the telling keeps per group between records: the events told so far, the removals
//! and causes waiting for the record that tells what they were, the previous target, and what
//! a record reads of its group as it was before the record.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::targets::TargetBook;
use super::Event;
use crate::group::Group;
use crate::records::{KeyValue, Record, RecordKey, TopologyValue};

/// A member removal waiting for the record that tells what it was (a bump, or a static
/// member's replacement).
pub(super) struct Removed {
    pub(super) member_id: String,
    pub(super) instance_id: Option<String>,
    pub(super) was_away: bool,
}

/// A group's telling so far, and what it holds until a later record tells it.
#[derive(Default)]
pub(super) struct Tracker {
    pub(super) events: Vec<Event>,
    pub(super) removed: Vec<Removed>,
    pub(super) joined: Vec<String>,
    pub(super) changed: Vec<String>,
    pub(super) topology: Option<&'static str>,
    pub(super) topics: bool,
    /// The target as of the last target assignment metadata record.
    pub(super) targets: TargetBook,
    /// Timestamp of the target assignment metadata record of each assignment epoch.
    pub(super) target_at: BTreeMap<i32, Option<i64>>,
    /// Members at -2 (a static member away).
    pub(super) away: BTreeSet<String>,
    /// Members whose state a current assignment record has shown (a new member's first one
    /// has no state before it).
    pub(super) shown: BTreeSet<String>,
    pub(super) state: Option<&'static str>,
    pub(super) bumps: u64,
    /// Whether a group metadata record of the group has been told (its epoch is known).
    pub(super) epoch_seen: bool,
    pub(super) reconciled: Vec<Option<i64>>,
    pub(super) deleted: bool,
}

/// Where a record is in the log, as its events say.
pub(super) struct Place {
    pub(super) index: usize,
    pub(super) offset: Option<i64>,
    pub(super) timestamp_ms: Option<i64>,
}

/// An event of `code` in `explain`'s style, with `fields` and the record's place.
pub(super) fn event(code: &str, group_id: &str, at: &Place, fields: Value, text: String) -> Event {
    let mut e = Map::new();
    e.insert("code".into(), code.into());
    e.insert("groupId".into(), group_id.into());
    if let Value::Object(f) = fields {
        e.extend(f);
    }
    e.insert("index".into(), at.index.into());
    e.insert("offset".into(), json!(at.offset));
    e.insert("timestampMs".into(), json!(at.timestamp_ms));
    e.insert("text".into(), text.into());
    e
}

pub(super) fn who(member_id: &str, instance: Option<&str>) -> String {
    match instance {
        Some(i) => format!("{member_id} (instance {i})"),
        None => member_id.to_string(),
    }
}

impl Tracker {
    pub(super) fn flush_removed(&mut self, gid: &str, at: &Place) {
        for r in std::mem::take(&mut self.removed) {
            let (cause, text) = if r.was_away {
                (
                    "SESSION_TIMEOUT",
                    format!(
                        "{} was removed: it had left temporarily (-2) and did not come back within its session timeout.",
                        who(&r.member_id, r.instance_id.as_deref())
                    ),
                )
            } else {
                (
                    "UNKNOWN",
                    format!(
                        "{} left the group or was fenced (the records do not say which: a leave and a session or rebalance timeout write the same records).",
                        who(&r.member_id, r.instance_id.as_deref())
                    ),
                )
            };
            self.events.push(event(
                "MEMBER_REMOVED",
                gid,
                at,
                json!({"memberId": r.member_id, "instanceId": r.instance_id, "cause": cause}),
                text,
            ));
        }
    }
}

/// What a record's telling reads of its group as it was before the record: only what that
/// kind of record needs, so that a record costs what it changes, not a copy of its group.
#[derive(Default)]
pub(super) struct Before {
    pub(super) group_epoch: i32,
    /// A topology record: the group's topology.
    pub(super) topology: Option<TopologyValue>,
    /// A group metadata record of 4.2: what the group's previous one said.
    pub(super) kafka42: Option<Kafka42Before>,
    /// A target assignment metadata record: the tasks of departed members not yet reassigned,
    /// for the count of those the new target reassigns.
    pub(super) orphaned: BTreeSet<(String, i32)>,
}

/// The fields of a 4.2 group metadata record whose change a group epoch bump is told by.
pub(super) struct Kafka42Before {
    pub(super) metadata_hash: i64,
    pub(super) validated_topology_epoch: i32,
    pub(super) last_assignment_configs: Option<Vec<KeyValue>>,
}

impl Before {
    pub(super) fn of(group: Option<&Group>, rec: &Record) -> Before {
        let Some(g) = group else {
            return Before::default();
        };
        let mut before = Before {
            group_epoch: g.group_epoch,
            ..Before::default()
        };
        match (&rec.key, &rec.value) {
            (RecordKey::Topology { .. }, Some(_)) => before.topology = g.topology.clone(),
            (RecordKey::GroupMetadata { .. }, Some(_)) => {
                before.kafka42 = g.kafka42().map(|k| Kafka42Before {
                    metadata_hash: k.metadata_hash,
                    validated_topology_epoch: k.validated_topology_epoch,
                    last_assignment_configs: k.last_assignment_configs.clone(),
                })
            }
            (RecordKey::TargetAssignmentMetadata { .. }, Some(_)) => {
                before.orphaned = g.orphaned.clone()
            }
            _ => {}
        }
        before
    }
}

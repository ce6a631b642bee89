//! What each kind of record tells, one function per kind: a member's metadata (joined,
//! replaced, changed), a topology, a group metadata record (an epoch bump and its reasons), a
//! target assignment, a member's current assignment (left temporarily, changed state,
//! reconciled) and a group's tombstone (deleted). Each reads the record, the group as it is
//! after it, and what [`Before`] kept of the group before it.

use serde_json::json;

use super::targets::TargetCounts;
use super::text::{fmt_ms, reason_text};
use super::tracker::{event, who, Before, Place, Tracker};
use crate::group::{Group, Member, MemberState};
use crate::records::{
    CurrentMemberAssignmentValue, Dialect, GroupMetadataValue, MemberMetadataValue,
    TargetAssignmentMetadataValue, TopologyValue,
};
use crate::tasks::count;

/// A member's metadata: a member joined, a static member came back under a new member id, or
/// a member's metadata changed (a cause of the next bump).
pub(super) fn member_metadata(
    t: &mut Tracker,
    gid: &str,
    at: &Place,
    member_id: &str,
    md: &MemberMetadataValue,
    old_member: Option<&Member>,
) {
    match old_member {
        None => {
            let replaced = md.instance_id.as_ref().and_then(|i| {
                t.removed
                    .iter()
                    .position(|r| r.instance_id.as_ref() == Some(i))
            });
            if let Some(pos) = replaced {
                let old = t.removed.remove(pos);
                t.targets.replace(&old.member_id, member_id);
                t.away.remove(&old.member_id);
                let instance = md.instance_id.clone().unwrap_or_default();
                t.events.push(event(
                        "STATIC_MEMBER_REPLACED",
                        gid,
                        at,
                        json!({"instanceId": instance, "oldMemberId": old.member_id, "newMemberId": member_id}),
                        format!("Static member {instance} came back as {member_id} (was {}): it takes over its tasks and target; no rebalance.", old.member_id),
                    ));
            } else {
                t.joined.push(member_id.to_string());
                let text = format!(
                    "{} joined (process {}, client {} from {}{}).",
                    who(member_id, md.instance_id.as_deref()),
                    md.process_id,
                    md.client_id,
                    md.client_host,
                    md.rack_id
                        .as_ref()
                        .map(|r| format!(", rack {r}"))
                        .unwrap_or_default()
                );
                t.events.push(event(
                        "MEMBER_JOINED",
                        gid,
                        at,
                        json!({"memberId": member_id, "instanceId": md.instance_id, "processId": md.process_id, "clientId": md.client_id, "clientHost": md.client_host}),
                        text,
                    ));
            }
        }
        Some(old) if old.metadata != *md => t.changed.push(member_id.to_string()),
        Some(_) => {}
    }
}

/// A topology: the group stores its first or a new one (a cause of the next bump).
pub(super) fn topology(
    t: &mut Tracker,
    gid: &str,
    at: &Place,
    dialect: Dialect,
    before: Before,
    v: &TopologyValue,
) {
    let had = before.topology;
    if had.as_ref() != Some(v) {
        t.topology = Some(if had.is_none() {
            "TOPOLOGY_INITIALIZED"
        } else {
            "TOPOLOGY_CHANGED"
        });
        let id = if dialect.is_kafka() {
            format!("epoch {}", v.epoch)
        } else {
            format!("id {}", v.topology_id.get(..12).unwrap_or(&v.topology_id))
        };
        t.events.push(event(
            "TOPOLOGY_STORED",
            gid,
            at,
            json!({"topologyId": (dialect == Dialect::Kip1071Draft).then(|| v.topology_id.clone()), "topologyEpoch": dialect.is_kafka().then_some(v.epoch), "subtopologies": v.subtopologies.len()}),
            format!(
                "The group stores a {} topology ({id}, {} subtopologies).",
                if had.is_none() { "first" } else { "new" },
                v.subtopologies.len()
            ),
        ));
    }
}

/// A group metadata record: a group epoch bump, told with the causes the records since the
/// last one show.
pub(super) fn group_metadata(
    t: &mut Tracker,
    gid: &str,
    at: &Place,
    dialect: Dialect,
    before: &Before,
    v: &GroupMetadataValue,
) {
    // From Kafka 4.3 a new group starts at epoch 1 in memory, which no record shows: a group's
    // first group metadata record in the log is told from 0, in every release.
    let from = if t.epoch_seen { before.group_epoch } else { 0 };
    t.epoch_seen = true;
    if v.epoch != from {
        let mut reasons: Vec<&str> = Vec::new();
        if !t.joined.is_empty() {
            reasons.push("MEMBER_JOINED");
        }
        if t.removed.iter().any(|r| !r.was_away) {
            reasons.push("MEMBER_LEFT_OR_FENCED");
        }
        if t.removed.iter().any(|r| r.was_away) {
            reasons.push("MEMBER_FENCED");
        }
        if !t.changed.is_empty() {
            reasons.push("MEMBER_METADATA_CHANGED");
        }
        if let Some(r) = t.topology {
            reasons.push(r);
        }
        let old = before.kafka42.as_ref();
        let hash_changed =
            old.is_some_and(|k| k.metadata_hash != 0 && k.metadata_hash != v.metadata_hash);
        // A new group (epoch 0) writes its first view of the topics without a reason.
        if from > 0 && t.topology.is_none() && (t.topics || hash_changed) {
            reasons.push("TOPIC_METADATA_CHANGED");
        }
        if dialect.is_kafka()
            && t.topology.is_none()
            && old.is_some_and(|k| k.validated_topology_epoch != v.validated_topology_epoch)
        {
            reasons.push("TOPOLOGY_READINESS_CHANGED");
        }
        // Configs known before (the default is the empty list) and changed.
        if old.is_some_and(|k| {
            k.last_assignment_configs
                .as_ref()
                .is_some_and(|c| !c.is_empty())
                && k.last_assignment_configs != v.last_assignment_configs
        }) {
            reasons.push("ASSIGNMENT_CONFIG_CHANGED");
        }
        if reasons.is_empty() {
            reasons.push("UNKNOWN");
        }
        t.flush_removed(gid, at);
        t.bumps += 1;
        let text = format!(
            "Group epoch {from} → {}: {}.",
            v.epoch,
            reasons
                .iter()
                .map(|r| reason_text(r))
                .collect::<Vec<_>>()
                .join("; ")
        );
        t.events.push(event(
            "GROUP_EPOCH_BUMPED",
            gid,
            at,
            json!({"from": from, "to": v.epoch, "reasons": reasons}),
            text,
        ));
    }
    t.joined.clear();
    t.changed.clear();
    t.topology = None;
    t.topics = false;
}

/// A target assignment: what it moved and reassigned, counted by the group's target book.
pub(super) fn target_assignment(
    t: &mut Tracker,
    gid: &str,
    at: &Place,
    g: &Group,
    before: &Before,
    v: &TargetAssignmentMetadataValue,
) {
    let TargetCounts {
        moved,
        reassigned,
        active: tasks,
        standby,
        warmup,
        members,
    } = t.targets.next(g, &before.orphaned);
    let mut extra = String::new();
    if standby > 0 || warmup > 0 {
        extra = format!(" (+{standby} standby, {warmup} warm-up)");
    }
    t.events.push(event(
        "TARGET_ASSIGNMENT_COMPUTED",
        gid,
        at,
        json!({"assignmentEpoch": v.assignment_epoch, "tasksMoved": moved, "tasksReassigned": reassigned, "activeTasks": tasks, "standbyTasks": standby, "warmupTasks": warmup, "members": members}),
        format!(
            "Target assignment for epoch {}: {tasks} active tasks{extra} over {} members; {moved} moved between members, {reassigned} of departed members reassigned.",
            v.assignment_epoch,
            members
        ),
    ));
    t.target_at.insert(v.assignment_epoch, at.timestamp_ms);
}

/// A member's current assignment: a static member left temporarily (-2), a member's state
/// changed, or a member reconciled to its target (and how long that took).
pub(super) fn current_assignment(
    t: &mut Tracker,
    gid: &str,
    at: &Place,
    g: &Group,
    member_id: &str,
    v: &CurrentMemberAssignmentValue,
    old_member: Option<&Member>,
) {
    let ms = MemberState::from_code(v.state);
    let was = old_member.map(|m| (m.member_epoch, m.member_state()));
    if v.member_epoch == -2 {
        if t.away.insert(member_id.to_string()) {
            t.events.push(event(
                "STATIC_MEMBER_LEFT_TEMPORARILY",
                gid,
                at,
                json!({"memberId": member_id}),
                format!("{member_id} left temporarily (-2): it keeps its tasks and nobody else gets them until it returns or its session times out."),
            ));
        }
    } else if !t.shown.contains(member_id) {
        // Its first state: none before it to change from (a new member is not STABLE first).
        if ms != MemberState::Stable {
            t.events.push(event(
                "MEMBER_STATE_CHANGED",
                gid,
                at,
                json!({"memberId": member_id, "from": null, "to": ms.name(), "memberEpoch": v.member_epoch}),
                format!("{member_id}'s first state: {} at epoch {}.", ms.name(), v.member_epoch),
            ));
        }
    } else if let Some((_, old_state)) = was {
        if old_state != ms {
            t.events.push(event(
                "MEMBER_STATE_CHANGED",
                gid,
                at,
                json!({"memberId": member_id, "from": old_state.name(), "to": ms.name(), "memberEpoch": v.member_epoch}),
                format!("{member_id}: {} → {} at epoch {}.", old_state.name(), ms.name(), v.member_epoch),
            ));
        }
    }
    let reconciled_now =
        ms == MemberState::Stable && v.member_epoch == g.assignment_epoch && v.member_epoch > 0;
    let reconciled_before =
        was.is_some_and(|(e, s)| e == v.member_epoch && s == MemberState::Stable);
    if reconciled_now && !reconciled_before {
        let took = t
            .target_at
            .get(&v.member_epoch)
            .copied()
            .flatten()
            .zip(at.timestamp_ms)
            .map(|(a, b)| b.saturating_sub(a).max(0));
        t.reconciled.push(took);
        let when = took.map_or_else(
            || " (the log has no timestamps)".to_string(),
            |ms| format!(" in {} after its target was computed", fmt_ms(ms)),
        );
        let tasks = g
            .members
            .get(member_id)
            .map_or(0, |m| count(&m.assigned.active));
        t.events.push(event(
            "MEMBER_RECONCILED",
            gid,
            at,
            json!({"memberId": member_id, "memberEpoch": v.member_epoch, "activeTasks": tasks, "tookMs": took}),
            format!("{member_id} reconciled to epoch {} ({tasks} active tasks){when}.", v.member_epoch),
        ));
    }
    if v.member_epoch != -2 {
        t.away.remove(member_id);
    }
    if !t.shown.contains(member_id) {
        t.shown.insert(member_id.to_string());
    }
}

/// A group metadata tombstone: the group was deleted.
pub(super) fn group_deleted(t: &mut Tracker, gid: &str, at: &Place) {
    deleted(
        t,
        gid,
        at,
        "The group was deleted (DeleteGroups or the retention timer: the records do not say which).",
    );
}

/// Kafka's classic group tombstone (type 2) of an id without a streams group: the simple
/// classic group of an admin's commit was deleted (`DeleteGroups`, the cleanup, or a streams
/// group taking the id, whose records follow in the same write).
pub(super) fn simple_group_deleted(t: &mut Tracker, gid: &str, at: &Place) {
    deleted(
        t,
        gid,
        at,
        "The simple classic group of an admin's commit was deleted (its classic group tombstone, record type 2).",
    );
}

fn deleted(t: &mut Tracker, gid: &str, at: &Place, text: &str) {
    t.deleted = true;
    // A group created again starts again: its first epoch is told from 0.
    t.epoch_seen = false;
    t.target_at.clear();
    t.targets.clear();
    t.away.clear();
    t.shown.clear();
    t.events.push(event(
        "GROUP_DELETED",
        gid,
        at,
        json!({"cause": "UNKNOWN"}),
        text.to_string(),
    ));
}

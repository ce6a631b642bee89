//! Firing due timers before an input is handled (DESIGN 2, PROTOCOL 2.9).

use super::fence::{description_clear_records, FenceCause};
use super::{Checkpoint, Coordinator, Output};
use crate::api::Explain;
use crate::descriptions::STORED_NONE;
use crate::group::Group;
use crate::offsets::validate::is_subscribed_to_topic;
use crate::timers::{TimerData, TimerKey, TimerKind};

impl Coordinator {
    /// Fires every timer due at or before `now`, each at its own deadline, in order; with a
    /// checkpoint, each group a timer may change is kept there first.
    pub(super) fn fire_timers(
        &mut self,
        now: i64,
        out: &mut Output,
        mut checkpoint: Option<&mut Checkpoint>,
    ) {
        while let Some((key, timer)) = self.timers.pop_due(now) {
            if let Some(checkpoint) = checkpoint.as_deref_mut() {
                if key.group_id.is_empty() {
                    // The cleanup may delete every memberless group and expire any offsets.
                    let mut empty: Vec<String> = self
                        .groups
                        .values()
                        .filter(|g| g.members.is_empty())
                        .map(|g| g.group_id.clone())
                        .collect();
                    empty.extend(self.offsets.groups().map(|(g, _)| g.to_string()));
                    for gid in &empty {
                        checkpoint.keep(self, gid);
                    }
                } else {
                    checkpoint.keep(self, &key.group_id);
                }
            }
            let at = timer.deadline.max(self.now_ms);
            self.now_ms = at;
            self.fire(at, now, &key, &timer.data, out);
        }
    }

    fn fire(&mut self, at: i64, now: i64, key: &TimerKey, data: &TimerData, out: &mut Output) {
        let gid: &str = &key.group_id;
        if key.kind == TimerKind::Retention && gid.is_empty() {
            return self.fire_cleanup(at, now, out);
        }
        let Some(group) = self.groups.get(gid) else {
            return;
        };
        let ok = match key.kind {
            TimerKind::SessionTimeout => {
                if !group.members.contains_key(&key.subject) {
                    return;
                }
                self.fence(at, gid, &key.subject, FenceCause::SessionTimeout, out)
            }
            TimerKind::RebalanceTimeout => {
                let Some(member) = group.members.get(&key.subject) else {
                    return;
                };
                if *data != TimerData::MemberEpoch(member.member_epoch) {
                    return;
                }
                self.fence(at, gid, &key.subject, FenceCause::RebalanceTimeout, out)
            }
            TimerKind::TopologyInitialization => {
                let TimerData::AskedMember(asked) = data else {
                    return;
                };
                if group.topology.is_some() || !group.members.contains_key(asked) {
                    return;
                }
                let asked = asked.clone();
                self.fence(at, gid, &asked, FenceCause::InitializationTimeout, out)
            }
            TimerKind::InitialRebalanceDelay => self.fire_initial_delay(gid, now, out),
            // A pending 4.2 initial rebalance delay holds every assignment back; it computes
            // when it fires.
            TimerKind::AssignmentInterval => {
                self.initial_delay_pending(gid) || self.fire_due_assignment(gid, out)
            }
            TimerKind::Retention => {
                if !group.members.is_empty() {
                    return;
                }
                let batch = self.deletion_batch(group, "RETENTION_EXPIRED");
                let ok = self.commit_group(gid, batch, out).is_ok();
                if ok {
                    self.timers.cancel_group(gid, None);
                }
                ok
            }
        };
        if !ok {
            out.explain.push(Explain::TimerDropped {
                group_id: gid.to_string(),
                timer: key.kind.name(),
                message: "its records would exceed maxRecordBatchBytes; nothing was written".into(),
            });
        }
    }

    /// A `kafka-*` coordinator's periodic cleanup (Kafka's `expire-group-metadata`): every
    /// memberless group is deleted, in the order of Kafka's group map, and the next run is
    /// scheduled one interval later. Runs that nothing could change (no other timer due before
    /// them, up to the input's time `now`) are skipped: a long jump of the clock costs one run.
    fn fire_cleanup(&mut self, at: i64, now: i64, out: &mut Output) {
        let order = self.group_map_order();
        let retention = self.config.retention_ms();
        // Kafka 4.4 with a description plugin: memberless groups left offsetless whose
        // description the store may hold, kept for the description cleanup below.
        let mut deferred = Vec::new();
        for gid in order {
            // Kafka's `cleanupExpiredOffsets`: an offset of a topic the group subscribes to
            // never expires; any other expires at its expire timestamp, or `retention` after
            // its commit.
            let group = self.groups.get(&gid);
            let subscribed = |topic: &str| group.is_some_and(|g| is_subscribed_to_topic(g, topic));
            // An offset with a pending transactional one is kept, and so is a group with an
            // open transaction.
            let offsets = self.offsets.group(&gid);
            let pending = |topic: &str, partition: i32| {
                offsets.is_some_and(|o| o.has_pending(topic, partition))
            };
            let mut all_expired = !offsets.is_some_and(|o| o.has_any_pending());
            let expired = self.offset_tombstones(&gid, |topic, partition, c| {
                let gone = !subscribed(topic)
                    && !pending(topic, partition)
                    && if c.expire_timestamp_ms != -1 {
                        at >= c.expire_timestamp_ms
                    } else {
                        at.saturating_sub(c.commit_timestamp_ms) >= retention
                    };
                all_expired &= gone;
                gone
            });
            // Kafka's simple classic group of an admin's commit is memberless too.
            let simple = group.is_none() && offsets.is_some_and(|o| o.simple_group);
            let memberless = all_expired && (simple || group.is_some_and(|g| g.members.is_empty()));
            // `StreamsGroup.shouldExpire`: the store's cleanup comes first.
            let defers =
                memberless && self.descriptions.enabled() && group.is_some_and(holds_description);
            if defers {
                deferred.push(gid.clone());
            }
            let deletes_group = memberless && !defers;
            let expired_count = expired.len();
            let mut batch = match group {
                Some(g) if deletes_group => self.deletion_batch(g, "RETENTION_EXPIRED"),
                // Every offset expired (none is pending): the simple group goes as
                // `DeleteGroups` deletes it.
                None if deletes_group => {
                    self.simple_group_deletion_batch(&gid, "RETENTION_EXPIRED")
                }
                _ if expired.is_empty() => continue,
                _ => super::Batch {
                    records: expired,
                    ..super::Batch::default()
                },
            };
            if expired_count > 0 {
                batch.explain.insert(
                    0,
                    Explain::OffsetsExpired {
                        group_id: gid.clone(),
                        partitions: expired_count,
                    },
                );
            }
            if self.commit_group(&gid, batch, out).is_ok() {
                if deletes_group {
                    self.cancel_deleted_group_timers(&gid);
                }
            } else {
                out.explain.push(Explain::TimerDropped {
                    group_id: gid.clone(),
                    timer: TimerKind::Retention.name(),
                    message: "its records would exceed maxRecordBatchBytes; nothing was written"
                        .into(),
                });
            }
        }
        self.clean_descriptions(&deferred, out);
        let interval = i64::from(self.config.offsets_retention_check_interval_ms).max(1);
        let mut next = at.saturating_add(interval);
        let bound = self.timers.next_deadline().map_or(now, |d| d.min(now));
        if next < bound {
            // The first run at or after `bound`.
            let runs = (bound - at).saturating_add(interval - 1) / interval;
            next = at.saturating_add(runs.saturating_mul(interval));
        }
        if next <= at {
            // The clock's end: no later run can be scheduled.
            return;
        }
        self.timers.schedule(
            TimerKey::new(TimerKind::Retention, "", ""),
            next,
            TimerData::None,
        );
    }

    /// Kafka 4.4's topology description cleanup cycle (`runOneStreamsTopologyCleanupCycle`, on
    /// a timer of the same interval as the cleanup; here right after it): each memberless group
    /// without offsets whose description the store may hold is marked uncertain, forgotten by
    /// the store and cleared, so that the next cleanup deletes it.
    fn clean_descriptions(&mut self, group_ids: &[String], out: &mut Output) {
        for gid in group_ids {
            let Some(group) = self.groups.get(gid) else {
                continue;
            };
            let batch = super::Batch {
                records: description_clear_records(group),
                ..super::Batch::default()
            };
            if self.commit_group(gid, batch, out).is_ok() {
                self.descriptions.delete(gid);
                self.descriptions.clear_group(gid);
            } else {
                out.explain.push(Explain::TimerDropped {
                    group_id: gid.clone(),
                    timer: TimerKind::Retention.name(),
                    message: "its records would exceed maxRecordBatchBytes; nothing was written"
                        .into(),
                });
            }
        }
    }

    /// The delay timer fires: the target assignment for the current group epoch, unless the
    /// group became memberless or the stored group has no configured topology (4.7; one that is
    /// not ready gives every member an empty target, as Kafka's does). `false` when the batch
    /// limit refused the records.
    fn fire_initial_delay(&mut self, group_id: &str, now: i64, out: &mut Output) -> bool {
        let configured = self
            .groups
            .get(group_id)
            .is_some_and(|g| g.stored_configuration().is_some());
        !configured
            || self.delayed_within_interval(group_id, now)
            || self.fire_due_assignment(group_id, out)
    }

    /// Kafka 4.3+: the delayed computation is `maybeUpdateStreamsTargetAssignment`, which
    /// computes nothing within the assignment interval of the stored assignment timestamp
    /// (the next heartbeat after it computes), read at the time the timer runs.
    fn delayed_within_interval(&self, group_id: &str, now: i64) -> bool {
        self.groups
            .get(group_id)
            .is_some_and(|g| self.within_assignment_interval(g, now))
    }

    /// Kafka 4.3+'s assignment interval: the group's last computation (its stored
    /// `AssignmentTimestamp`) was less than the interval before `now`, so no computation runs
    /// now (`canComputeNextTargetAssignment`); the heartbeat and the delayed computation ask
    /// the same.
    pub(super) fn within_assignment_interval(&self, group: &Group, now: i64) -> bool {
        let kafka_interval = self
            .rules
            .release()
            .is_some_and(|r| r.has_assignment_interval());
        let interval = i64::from(self.assignment_interval_ms(&group.group_id));
        kafka_interval
            && interval != 0
            && group.assignment_timestamp != 0
            && now < group.assignment_timestamp.saturating_add(interval)
    }
}

/// Whether the store may hold the group's description (a stored epoch other than -1).
fn holds_description(g: &Group) -> bool {
    g.kafka42()
        .is_some_and(|k| k.stored_description_topology_epoch != STORED_NONE)
}

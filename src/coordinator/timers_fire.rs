//! Firing due timers before an input is handled (DESIGN 2, PROTOCOL 2.9).

use super::fence::FenceCause;
use super::{Checkpoint, Coordinator, Output};
use crate::api::Explain;
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
            TimerKind::InitialRebalanceDelay => self.fire_initial_delay(gid, out),
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
        // Every group id Kafka's group map holds: the streams groups and the simple groups.
        let mut ids: Vec<&str> = self.groups.keys().map(String::as_str).collect();
        ids.extend(
            self.offsets
                .groups()
                .filter(|(g, _)| !self.groups.contains_key(*g))
                .map(|(g, _)| g),
        );
        let order: Vec<String> = crate::java::timeline_keys(&ids, ids.len())
            .into_iter()
            .map(str::to_string)
            .collect();
        let retention = self.config.retention_ms();
        for gid in order {
            // Kafka's `cleanupExpiredOffsets`: an offset of a topic the group subscribes to
            // never expires; any other expires at its expire timestamp, or `retention` after
            // its commit.
            let group = self.groups.get(&gid);
            let subscribed = |topic: &str| {
                group.is_some_and(|g| {
                    !g.members.is_empty()
                        && g.topology.as_ref().is_some_and(|t| {
                            t.subtopologies.iter().any(|s| {
                                s.source_topics.iter().any(|x| x == topic)
                                    || s.repartition_source_topics.iter().any(|x| x.name == topic)
                            })
                        })
                })
            };
            let mut all_expired = true;
            let expired = self.offset_tombstones(&gid, |topic, _, c| {
                let gone = !subscribed(topic)
                    && if c.expire_timestamp_ms != -1 {
                        at >= c.expire_timestamp_ms
                    } else {
                        at.saturating_sub(c.commit_timestamp_ms) >= retention
                    };
                all_expired &= gone;
                gone
            });
            let deletes_group = all_expired && group.is_some_and(|g| g.members.is_empty());
            let expired_count = expired.len();
            let mut batch = match group {
                Some(g) if deletes_group => self.deletion_batch(g, "RETENTION_EXPIRED"),
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
                    self.timers.cancel_group(&gid, None);
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

    /// The delay timer fires: the target assignment for the current group epoch, unless the
    /// group became memberless or the stored group has no configured topology (4.7; one that is
    /// not ready gives every member an empty target, as Kafka's does). `false` when the batch
    /// limit refused the records.
    fn fire_initial_delay(&mut self, group_id: &str, out: &mut Output) -> bool {
        let configured = self
            .groups
            .get(group_id)
            .is_some_and(|g| g.stored_configuration().is_some());
        !configured || self.fire_due_assignment(group_id, out)
    }
}

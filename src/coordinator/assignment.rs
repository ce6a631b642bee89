//! Target assignment computation (PROTOCOL 2.7) and held-back assignments: assignment batching
//! (`group.streams.assignment.interval.ms`) and the 4.2 initial rebalance delay (4.7).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::{Batch, Coordinator};
use crate::api::Explain;
use crate::api::TaskOffsetJson;
use crate::assignor::{
    task_lag, tasks_moved, tasks_reassigned, Computation, GroupSpec, KafkaRelease,
    KafkaStickyAssignor, MemberSpec, StickyAssignor, SubtopologySpec,
};
use crate::config::AssignorKind;
use crate::error::{ErrorCode, ProtocolError};
use crate::group::{Group, MemberSoft, TaskOffset};
use crate::ordered::{sort_by, Ordered};
use crate::records::build;
use crate::records::MemberMetadataValue;
use crate::tasks::{Assignment, TargetMap};
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topology::{self, Configuration};

/// Lent to each member spec without tags (and [`Assignment::empty`] as each spec's own previous
/// target: the stored targets are lent instead): borrowed, a spec drops nothing.
static NO_TAGS: BTreeMap<String, String> = BTreeMap::new();

/// Task offsets a heartbeat reports for its own member, not yet stored when its target is
/// computed; `None` lists mean "as last reported".
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reported<'a> {
    pub member_id: &'a str,
    pub task_offsets: Option<&'a [TaskOffsetJson]>,
    pub task_end_offsets: Option<&'a [TaskOffsetJson]>,
}

/// One member of a target computation: its metadata as the operation left it, and what it last
/// reported (the stored member's soft state; none for a member not stored yet).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemberView<'a> {
    pub(crate) id: &'a str,
    pub(crate) metadata: &'a MemberMetadataValue,
    pub(crate) soft: Option<&'a MemberSoft>,
}

/// The members of a target computation in member-id order, borrowed from the group: no id is
/// copied, and a walk beside the stored targets (also in id order) needs no look-ups.
#[derive(Debug, Default)]
pub(crate) struct Members<'a>(Vec<MemberView<'a>>);

impl<'a> Members<'a> {
    /// The group's members, without `without` (a replaced static member) and with `with` (the
    /// member of the operation, as updated) in its place by id.
    pub(crate) fn of(
        group: &'a Group,
        without: Option<&str>,
        with: Option<(&'a str, &'a MemberMetadataValue)>,
    ) -> Self {
        let mut list: Vec<MemberView<'a>> = Vec::with_capacity(group.members.len() + 1);
        let stored = |(id, m): (&'a String, &'a crate::group::Member)| MemberView {
            id,
            metadata: &m.metadata,
            soft: Some(&m.soft),
        };
        let keep = |id: &&String| Some(id.as_str()) != without;
        match with {
            // The members before and after `with`'s id, found by two range searches rather
            // than a comparison per member.
            Some((wid, md)) => {
                list.extend(
                    group
                        .members
                        .before(wid)
                        .filter(|(id, _)| keep(id))
                        .map(stored),
                );
                list.push(MemberView {
                    id: wid,
                    metadata: md,
                    soft: group.members.get(wid).map(|m| &m.soft),
                });
                list.extend(
                    group
                        .members
                        .after(wid)
                        .filter(|(id, _)| keep(id))
                        .map(stored),
                );
            }
            None => list.extend(group.members.iter().filter(|(id, _)| keep(id)).map(stored)),
        }
        Members(list)
    }

    pub(crate) fn iter(&self) -> std::slice::Iter<'_, MemberView<'a>> {
        self.0.iter()
    }

    /// Each member with its entry in `targets` (sorted by id too), by one walk of both.
    pub(crate) fn with_targets<'t>(
        &self,
        targets: &'t TargetMap,
    ) -> impl Iterator<Item = (&MemberView<'a>, Option<(&'t String, &'t Assignment)>)> + Clone {
        let mut rest = targets.iter().peekable();
        self.0.iter().map(move |m| {
            while rest.next_if(|(id, _)| id.as_str() < m.id).is_some() {}
            (m, rest.next_if(|(id, _)| id.as_str() == m.id))
        })
    }
}

impl Coordinator {
    /// Computes every member's new target for `epoch`, writes the target member records of the
    /// members whose target changed (or who had none) and the target metadata record, and
    /// returns the targets written: the others are as in `previous`. `members` is the member
    /// list as updated by the operation.
    #[allow(clippy::too_many_arguments)] // `reported` is the heartbeat's; the rest is 2.7's input
    pub(crate) fn compute_targets(
        &self,
        group_id: &str,
        members: &Members<'_>,
        previous: &TargetMap,
        configured: Option<&Configuration>,
        epoch: i32,
        reported: Reported<'_>,
        batch: &mut Batch,
    ) -> Result<BTreeMap<String, Assignment>, ProtocolError> {
        let group = self.groups.get(group_id);
        let orphaned = group.map(|g| &g.orphaned);
        // The last computation's memo holds while the targets are the stored ones.
        let memo = group
            .filter(|g| std::ptr::eq(previous, &g.targets))
            .and_then(|g| g.soft.assignor_memo.as_ref());
        let mut next_memo = None;
        let kafka = self.rules.release().map(|r| r.assignor());
        // Kafka's order of insertion into its map of member specs: the assignor's member
        // order and, hashed, the order of the target records.
        let insertion = kafka.map(|_| java_spec_insertion(group, members));
        let (changed, tasks_moved, tasks_reassigned) = match (self.config.assignor, configured) {
            (AssignorKind::Sticky, Some(Configuration::Ready(subs))) if kafka.is_some() => {
                let release = kafka.unwrap_or(KafkaRelease::V4_2);
                self.check_assignment_cost(group_id, subs, members, previous, epoch)?;
                let specs = self.assignor_members(members, reported);
                // Kafka's order of insertion into its member-spec map.
                let position: BTreeMap<&str, usize> = insertion
                    .iter()
                    .flatten()
                    .copied()
                    .enumerate()
                    .map(|(i, id)| (id, i))
                    .to_map();
                let mut ordered: Vec<&MemberSpec<'_>> = specs.iter().collect();
                let at = |m: &MemberSpec<'_>| position.get(m.member_id.as_ref()).copied();
                sort_by(&mut ordered, |a, b| at(a).cmp(&at(b)));
                let mut ordered: Vec<MemberSpec<'_>> = ordered.into_iter().cloned().collect();
                // Kafka 4.4's assignor starts from the tasks members own, not their targets.
                let owned = release == KafkaRelease::V4_4;
                if owned {
                    for m in &mut ordered {
                        if let Some(stored) =
                            group.and_then(|g| g.members.get(m.member_id.as_ref()))
                        {
                            m.previous = Cow::Borrowed(&stored.assigned);
                        }
                    }
                }
                let subtopologies: Vec<SubtopologySpec> = subs
                    .iter()
                    .map(|s| SubtopologySpec {
                        subtopology_id: s.subtopology_id.clone(),
                        num_tasks: s.num_tasks,
                        stateful: s.stateful,
                    })
                    .collect();
                let spec = GroupSpec {
                    previous_targets: (!owned).then_some(previous),
                    ..GroupSpec::new(
                        &ordered,
                        &subtopologies,
                        self.num_standby_replicas(group_id),
                    )
                };
                let computed =
                    KafkaStickyAssignor::new(release)
                        .assign(&spec)
                        .map_err(|reason| {
                            ProtocolError::new(
                                ErrorCode::UnknownServerError,
                                format!(
                            "Failed to compute a new target assignment for epoch {epoch}: {reason}"
                        ),
                            )
                        })?;
                let changed: BTreeMap<String, Assignment> = computed
                    .into_iter()
                    .filter(|(id, t)| previous.get(id) != Some(t))
                    .to_map();
                let of_members = members.with_targets(previous).filter_map(|(_, t)| t);
                let next_targets = members
                    .with_targets(previous)
                    .filter_map(|(m, prev)| changed.get_key_value(m.id).or(prev));
                let moved = tasks_moved(of_members.clone(), next_targets.clone());
                let reassigned =
                    orphaned.map_or(0, |o| tasks_reassigned(o, of_members, next_targets));
                (changed, moved, reassigned)
            }
            (
                AssignorKind::Sticky | AssignorKind::HighAvailability,
                Some(Configuration::Ready(subs)),
            ) => {
                self.check_assignment_cost(group_id, subs, members, previous, epoch)?;
                let specs = self.assignor_members(members, reported);
                let subtopologies: Vec<SubtopologySpec> = subs
                    .iter()
                    .map(|s| SubtopologySpec {
                        subtopology_id: s.subtopology_id.clone(),
                        num_tasks: s.num_tasks,
                        stateful: s.stateful,
                    })
                    .collect();
                let spec = GroupSpec {
                    rack_aware_tags: self.rack_aware_assignment_tags(group_id),
                    acceptable_recovery_lag: i64::from(self.acceptable_recovery_lag(group_id)),
                    num_warmup_replicas: self.num_warmup_replicas(group_id),
                    previous_targets: Some(previous),
                    memo,
                    ..GroupSpec::new(&specs, &subtopologies, self.num_standby_replicas(group_id))
                };
                let computed = StickyAssignor.compute(&spec).map_err(|reason| {
                    ProtocolError::new(
                        ErrorCode::UnknownServerError,
                        format!(
                            "Failed to compute a new target assignment for epoch {epoch}: {reason}"
                        ),
                    )
                })?;
                // Debug builds (every test) check the memo against the maps it stands for.
                #[cfg(debug_assertions)]
                if memo.is_some() {
                    let plain = StickyAssignor.compute(&GroupSpec { memo: None, ..spec });
                    debug_assert!(
                        plain.is_ok_and(|p| p.changed() == computed.changed()
                            && p.tasks_moved() == computed.tasks_moved()
                            && p.warmups() == computed.warmups()),
                        "a computation from the memo differs from one from the stored targets"
                    );
                }
                self.explain_warmups(group_id, &specs, &computed, batch);
                // The assignor's members are `members`: the counts are over their previous
                // targets, as `tasks_moved` and `tasks_reassigned` define them.
                let reassigned = orphaned.map_or(0, |o| computed.tasks_reassigned(o));
                let changed: BTreeMap<String, Assignment> = computed
                    .changed()
                    .into_iter()
                    .map(|(id, target)| (id.to_string(), target))
                    .to_map();
                let moved = computed.tasks_moved();
                next_memo = Some(computed.into_memo());
                (changed, moved, reassigned)
            }
            (kind, _) => {
                // The manual assignor keeps every target; without a ready topology every
                // target is empty.
                let keep = kind == AssignorKind::Manual;
                let changed: BTreeMap<String, Assignment> = members
                    .with_targets(previous)
                    .filter_map(|(m, prev)| {
                        let next = match prev {
                            Some((_, t)) if keep => t.clone(),
                            _ => Assignment::default(),
                        };
                        (prev.map(|(_, t)| t) != Some(&next)).then(|| (m.id.to_string(), next))
                    })
                    .to_map();
                // The previous targets of the members still in the group, borrowed; a member
                // not written keeps its previous target.
                let of_members = members.with_targets(previous).filter_map(|(_, t)| t);
                let next_targets = members
                    .with_targets(previous)
                    .filter_map(|(m, prev)| changed.get_key_value(m.id).or(prev));
                let moved = tasks_moved(of_members.clone(), next_targets.clone());
                let reassigned =
                    orphaned.map_or(0, |o| tasks_reassigned(o, of_members, next_targets));
                (changed, moved, reassigned)
            }
        };
        let first = batch.records.len();
        if let Some(insertion) = insertion {
            // Kafka writes the records in the order of its `HashMap` of member specs, filled
            // from the group's member map and then the heartbeat's new member.
            for id in crate::java::hash_map_keys(insertion) {
                if let Some(target) = changed.get(id) {
                    batch.push(build::target_member(group_id, id, target));
                }
            }
        } else {
            for (id, target) in &changed {
                batch.push(build::target_member(group_id, id, target));
            }
        }
        batch.memo = next_memo.map(|m| (m, first..batch.records.len()));
        // From Kafka 4.3 the record says when the assignment was computed.
        let timestamp = match self.rules.release() {
            Some(r) if r.has_assignment_interval() => self.now_ms,
            _ => 0,
        };
        batch.push(build::target_metadata(group_id, epoch, timestamp));
        batch.explain.push(Explain::TargetAssignmentComputed {
            group_id: group_id.to_string(),
            assignment_epoch: epoch,
            tasks_moved,
            tasks_reassigned,
            assignor: self.config.assignor.name(),
        });
        Ok(changed)
    }

    /// The assignor's members (PROTOCOL 2.7 step 1, docs/assignor.md): process, rack, client
    /// tags, and the task offsets and end offsets each member last reported
    /// (`reported` for the member of the heartbeat being handled, whose report is not stored
    /// yet). Their previous targets are lent to the assignor as `GroupSpec::previous_targets`.
    fn assignor_members<'m>(
        &self,
        members: &Members<'m>,
        reported: Reported<'_>,
    ) -> Vec<MemberSpec<'m>> {
        let offsets = |list: &[TaskOffsetJson]| -> Vec<(String, i32, i64)> {
            list.iter()
                .map(|o| (o.subtopology_id.clone(), o.partition, o.offset))
                .collect()
        };
        let kept = |list: Option<&Vec<TaskOffset>>| -> Vec<(String, i32, i64)> {
            match list {
                Some(list) if !list.is_empty() => list
                    .iter()
                    .map(|o| (o.subtopology_id.clone(), o.partition, o.offset))
                    .collect(),
                _ => Vec::new(),
            }
        };
        // The heartbeat's own member, found once (the members are in id order).
        let mine = members
            .0
            .binary_search_by(|m| m.id.cmp(reported.member_id))
            .ok();
        members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let md = m.metadata;
                let soft = m.soft;
                let (task_offsets, task_end_offsets) = match (mine == Some(i), soft) {
                    (true, _) => (
                        reported.task_offsets.map_or_else(
                            || kept(soft.and_then(|s| s.task_offsets.as_ref())),
                            offsets,
                        ),
                        reported.task_end_offsets.map_or_else(
                            || kept(soft.and_then(|s| s.task_end_offsets.as_ref())),
                            offsets,
                        ),
                    ),
                    (false, Some(s)) => (
                        kept(s.task_offsets.as_ref()),
                        kept(s.task_end_offsets.as_ref()),
                    ),
                    (false, None) => (Vec::new(), Vec::new()),
                };
                MemberSpec {
                    member_id: m.id.into(),
                    process_id: md.process_id.as_str().into(),
                    instance_id: md.instance_id.as_deref().map(Cow::Borrowed),
                    rack_id: md.rack_id.as_deref().map(Cow::Borrowed),
                    client_tags: if md.client_tags.is_empty() {
                        Cow::Borrowed(&NO_TAGS)
                    } else {
                        Cow::Owned(
                            md.client_tags
                                .iter()
                                .map(|kv| (kv.key.clone(), kv.value.clone()))
                                .to_map(),
                        )
                    },
                    // The assignor reads the stored targets (`previous_targets`).
                    previous: Cow::Borrowed(Assignment::empty()),
                    task_offsets,
                    task_end_offsets,
                }
            })
            .collect()
    }

    /// One `WARMUP_ASSIGNED` per warm-up of the new targets: where the task stays active and
    /// the lag the member must reach.
    fn explain_warmups(
        &self,
        group_id: &str,
        specs: &[MemberSpec],
        computed: &Computation<'_>,
        batch: &mut Batch,
    ) {
        for w in computed.warmups() {
            // The specs are in member-id order (`members`'s).
            let Ok(i) = specs.binary_search_by(|s| s.member_id.as_ref().cmp(w.member_id)) else {
                continue;
            };
            let spec = &specs[i];
            batch.explain.push(Explain::WarmupAssigned {
                group_id: group_id.to_string(),
                member_id: w.member_id.to_string(),
                subtopology_id: w.subtopology_id.to_string(),
                partition: w.partition,
                active_member_id: w.active_member_id.unwrap_or_default().to_string(),
                lag: task_lag(specs, spec, w.subtopology_id, w.partition),
                acceptable_recovery_lag: self.acceptable_recovery_lag(group_id),
            });
        }
    }

    /// `WARMUP_CAUGHT_UP` (docs/assignor.md): the heartbeat's task offsets show its member
    /// caught up on a warm-up of its target, so the next target can move the task to it.
    pub(crate) fn warmup_caught_up(
        &self,
        group_id: &str,
        member_id: &str,
        task_offsets: Option<&[TaskOffsetJson]>,
        task_end_offsets: Option<&[TaskOffsetJson]>,
    ) -> bool {
        // Most heartbeats report no offsets: no look-up for them.
        if task_offsets.is_none() {
            return false;
        }
        let Some(group) = self.groups.get(group_id) else {
            return false;
        };
        let Some(target) = group
            .targets
            .get(member_id)
            .filter(|t| !t.warmup.is_empty())
        else {
            return false;
        };
        let reported = Reported {
            member_id,
            task_offsets,
            task_end_offsets,
        };
        let members = Members::of(group, None, None);
        let specs = self.assignor_members(&members, reported);
        let Some(me) = specs.iter().find(|s| s.member_id == member_id) else {
            return false;
        };
        let acceptable = u64::try_from(self.acceptable_recovery_lag(group_id)).unwrap_or(0);
        target.warmup.iter().any(|(sub, parts)| {
            parts
                .iter()
                .any(|&p| task_lag(&specs, me, sub, p).is_some_and(|lag| lag <= acceptable))
        })
    }

    /// Assignment batching: the group's next target assignment is due at `until` (once per
    /// delay: a pending timer is left as it is).
    pub(crate) fn batch_assignment(&mut self, group_id: &str, until: i64, out: &mut crate::Output) {
        let key = TimerKey::new(TimerKind::AssignmentInterval, group_id, "");
        if self.timers.get(&key).is_some() {
            return;
        }
        self.timers.schedule(key, until, TimerData::None);
        out.explain.push(Explain::AssignmentDelayed {
            group_id: group_id.to_string(),
            until_ms: until,
            cause: Some("ASSIGNMENT_INTERVAL"),
        });
    }

    /// Arms the initial rebalance delay of a group that was memberless (4.7).
    pub(crate) fn arm_initial_delay(&mut self, now: i64, group_id: &str, out: &mut crate::Output) {
        let until = now.saturating_add(i64::from(self.initial_rebalance_delay_ms(group_id)));
        self.schedule(
            TimerKind::InitialRebalanceDelay,
            group_id,
            "",
            until,
            TimerData::None,
        );
        out.explain.push(Explain::AssignmentDelayed {
            group_id: group_id.to_string(),
            until_ms: until,
            cause: None,
        });
    }

    /// A held-back assignment is due (assignment batching, and the 4.2 initial rebalance delay):
    /// the target assignment for the current group epoch, unless one was computed meanwhile or
    /// the group has no members. `false` when the batch limit refused the records.
    pub(crate) fn fire_due_assignment(&mut self, group_id: &str, out: &mut crate::Output) -> bool {
        let Some(group) = self.groups.get(group_id) else {
            return true;
        };
        if group.members.is_empty() || group.group_epoch <= group.assignment_epoch {
            return true;
        }
        let configured = match self.rules.keeps_configuration() {
            true => group.stored_configuration(),
            false => self.rules.configured(group),
        };
        // A dialect that keeps its configuration in memory has none until a heartbeat refreshed
        // it; that heartbeat computes instead.
        if self.rules.keeps_configuration() && configured.is_none() {
            return true;
        }
        let members = Members::of(group, None, None);
        let mut batch = Batch::default();
        if self
            .compute_targets(
                group_id,
                &members,
                &group.targets,
                configured,
                group.group_epoch,
                Default::default(),
                &mut batch,
            )
            .is_err()
        {
            return true;
        }
        self.commit_group(group_id, batch, out).is_ok()
    }

    /// Refuses an assignment whose records could not fit the batch before computing it: every
    /// active task and standby copy that no member's previous target holds must appear in a
    /// target record written now, at 4 bytes at least each (bounded cost; the batch limit would
    /// refuse the records only after the whole computation).
    fn check_assignment_cost(
        &self,
        group_id: &str,
        subs: &[topology::ConfiguredSubtopology],
        members: &Members<'_>,
        previous: &TargetMap,
        epoch: i32,
    ) -> Result<(), ProtocolError> {
        let count =
            |map: &crate::tasks::TaskMap| -> i64 { map.values().map(|p| p.len() as i64).sum() };
        // Standbys: each stateful task gets min(replicas, other processes) copies, so only
        // `replicas + 1` distinct processes need finding (none without standbys).
        let replicas = usize::try_from(self.num_standby_replicas(group_id)).unwrap_or(0);
        let processes = distinct_processes(members, replicas.saturating_add(1));
        let copies = processes.saturating_sub(1) as i64;
        let stateful: i64 = subs
            .iter()
            .filter(|s| s.stateful)
            .map(|s| i64::from(s.num_tasks.max(0)))
            .sum();
        let (tasks, copies) = (topology::total_tasks(subs), stateful.saturating_mul(copies));
        // Nothing held at all is the most that can be placed: only when that could exceed the
        // limit are the previous targets read.
        if tasks.saturating_add(copies).saturating_mul(4) <= self.config.max_record_batch_bytes {
            return Ok(());
        }
        let (mut held_active, mut held_standby) = (0, 0);
        for (_, a) in members.with_targets(previous).filter_map(|(_, t)| t) {
            held_active += count(&a.active);
            held_standby += count(&a.standby);
        }
        let placed = (tasks - held_active).max(0) + (copies - held_standby).max(0);
        let at_least = placed.saturating_mul(4);
        if at_least > self.config.max_record_batch_bytes {
            return Err(ProtocolError::new(
                ErrorCode::UnknownServerError,
                format!(
                    "Failed to compute a new target assignment for epoch {epoch}: its records \
                     would take at least {at_least} bytes, more than the maximum record batch \
                     size of {} bytes.",
                    self.config.max_record_batch_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// The member ids of a computation in the order Kafka puts them into its map of member specs.
fn java_spec_insertion<'a>(group: Option<&'a Group>, members: &'a Members<'a>) -> Vec<&'a str> {
    let mut inserted: Vec<&str> = Vec::with_capacity(members.0.len());
    if let Some(group) = group {
        let present: std::collections::BTreeSet<&str> = members.iter().map(|m| m.id).collect();
        inserted.extend(
            group
                .java_member_order()
                .into_iter()
                .filter(|id| present.contains(id)),
        );
    }
    inserted.extend(
        members
            .iter()
            .map(|m| m.id)
            .filter(|id| !group.is_some_and(|g| g.members.contains_key(id))),
    );
    inserted
}

/// The number of distinct process ids among `members`, counted up to `limit`: a short list
/// when the limit is small (the common one or two standbys), a hash set otherwise. A count
/// only: no order depends on it.
fn distinct_processes(members: &Members<'_>, limit: usize) -> usize {
    let ids = members.iter().map(|m| m.metadata.process_id.as_str());
    if limit <= 8 {
        let mut seen: Vec<&str> = Vec::with_capacity(limit);
        for id in ids {
            if seen.len() == limit {
                break;
            }
            if !seen.contains(&id) {
                seen.push(id);
            }
        }
        return seen.len();
    }
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        if seen.len() == limit {
            break;
        }
        seen.insert(id);
    }
    seen.len()
}

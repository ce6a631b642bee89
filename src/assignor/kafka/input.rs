//! Kafka's `initialize`: the group as the assignor reads it, in Java's orders.
//!
//! Members are numbered in the iteration order of the group spec's member map, processes in
//! the order they first appear there; `process_order` is the iteration order of Kafka's
//! `processIdToState` (a `HashMap` sized for the member count, filled by `putIfAbsent` in 4.2
//! and 4.3 and by `computeIfAbsent` in 4.4, which orders a bucket differently) and each
//! process's `members`
//! that of its `memberToTaskCounts` (a default `HashMap`). Tasks are numbered by subtopology
//! (Java `String` order) then partition.

use std::collections::HashMap;

use super::process::Process;
use super::KafkaRelease;
use crate::assignor::{GroupSpec, MemberSpec};
use crate::java::hash::compare_strings;
use crate::java::hash_map::JavaHashMap;
use crate::ordered::sort_by;

/// The most tasks (summed over the subtopologies) the emulation accepts.
pub(super) const MAX_TASKS: i64 = 1 << 24;

pub(super) struct State<'s> {
    pub(super) release: KafkaRelease,
    pub(super) member_ids: Vec<&'s str>,
    pub(super) member_process: Vec<usize>,
    /// `memberToTaskCounts` values, by member.
    pub(super) counts: Vec<i32>,
    pub(super) active: Vec<Vec<usize>>,
    pub(super) standby: Vec<Vec<usize>>,
    pub(super) processes: Vec<Process>,
    pub(super) process_order: Vec<usize>,
    pub(super) sub_ids: Vec<&'s str>,
    pub(super) sub_first: Vec<usize>,
    pub(super) sub_stateful: Vec<bool>,
    pub(super) task_sub: Vec<usize>,
    pub(super) task_partition: Vec<i32>,
    pub(super) prev_active: Vec<Option<usize>>,
    pub(super) prev_standby: Vec<Vec<usize>>,
    pub(super) num_standby: i32,
    pub(super) total_active_tasks: i32,
    pub(super) total_tasks: i32,
    pub(super) members_with_active_capacity: i32,
    pub(super) members_with_capacity: i32,
    pub(super) active_tasks_per_member: i32,
    pub(super) total_tasks_per_member: i32,
}

/// `computeTasksPerMember`: the tasks divided by the members, rounded up; 0 without members.
pub(super) fn tasks_per_member(tasks: i32, members: i32) -> i32 {
    if members == 0 {
        return 0;
    }
    let per = tasks.wrapping_div(members);
    if tasks.wrapping_rem(members) > 0 {
        per.wrapping_add(1)
    } else {
        per
    }
}

/// The members of `spec` in the order the assignor iterates them: `spec.members` put one by one
/// into a map (a later entry of an id replaces the earlier's spec and keeps its place), iterated
/// as a `java.util.HashMap` if `hash_order`, in insertion order otherwise.
pub(super) fn member_order<'a, 's>(
    spec: &'a GroupSpec<'s>,
    hash_order: bool,
) -> Vec<&'a MemberSpec<'s>> {
    let members = spec.members;
    if hash_order {
        let mut map: JavaHashMap<&str, usize> = JavaHashMap::new();
        for (i, m) in members.iter().enumerate() {
            map.put(m.member_id.as_ref(), i);
        }
        map.iter().map(|(_, &i)| &members[i]).collect()
    } else {
        let mut at: HashMap<&str, usize> = HashMap::new();
        let mut order: Vec<usize> = Vec::new();
        for (i, m) in members.iter().enumerate() {
            match at.get(m.member_id.as_ref()) {
                Some(&k) => order[k] = i,
                None => {
                    at.insert(m.member_id.as_ref(), order.len());
                    order.push(i);
                }
            }
        }
        order.into_iter().map(|i| &members[i]).collect()
    }
}

fn illegal_capacity(n: i32) -> String {
    format!("Illegal initial capacity: {n}")
}

impl<'s> State<'s> {
    pub(super) fn build(
        release: KafkaRelease,
        spec: &GroupSpec<'s>,
        members: &[&'s MemberSpec<'s>],
    ) -> Result<Self, String> {
        let num_standby = spec.num_standby_replicas;

        // The topology, as a sorted map of subtopologies.
        let mut subs: Vec<&crate::assignor::SubtopologySpec> = spec.subtopologies.iter().collect();
        sort_by(&mut subs, |a, b| {
            compare_strings(&a.subtopology_id, &b.subtopology_id)
        });
        if subs
            .windows(2)
            .any(|w| w[0].subtopology_id == w[1].subtopology_id)
        {
            return Err("duplicate subtopology id".to_string());
        }
        let positive: i64 = subs.iter().map(|s| i64::from(s.num_tasks.max(0))).sum();
        if positive > MAX_TASKS {
            return Err(format!("too many tasks ({positive}, at most {MAX_TASKS})"));
        }
        let mut total_tasks = 0i32;
        let mut total_active_tasks = 0i32;
        let mut sub_ids = Vec::with_capacity(subs.len());
        let mut sub_first = Vec::with_capacity(subs.len());
        let mut sub_stateful = Vec::with_capacity(subs.len());
        let mut task_sub = Vec::new();
        let mut task_partition = Vec::new();
        for (k, s) in subs.iter().enumerate() {
            let n = s.num_tasks;
            total_tasks = total_tasks.wrapping_add(n);
            total_active_tasks = total_active_tasks.wrapping_add(n);
            if s.stateful {
                total_tasks = total_tasks.wrapping_add(n.wrapping_mul(num_standby));
            }
            sub_ids.push(s.subtopology_id.as_str());
            sub_first.push(task_sub.len());
            sub_stateful.push(s.stateful);
            for p in 0..n.max(0) {
                task_sub.push(k);
                task_partition.push(p);
            }
        }
        let tasks = task_sub.len();
        let n_members = i32::try_from(members.len()).map_err(|_| "too many members")?;

        let mut state = State {
            release,
            member_ids: members.iter().map(|m| m.member_id.as_ref()).collect(),
            member_process: Vec::with_capacity(members.len()),
            counts: vec![0; members.len()],
            active: vec![Vec::new(); members.len()],
            standby: vec![Vec::new(); members.len()],
            processes: Vec::new(),
            process_order: Vec::new(),
            sub_ids,
            sub_first,
            sub_stateful,
            task_sub,
            task_partition,
            prev_active: vec![None; tasks],
            prev_standby: vec![Vec::new(); tasks],
            num_standby,
            total_active_tasks,
            total_tasks,
            members_with_active_capacity: n_members,
            members_with_capacity: n_members,
            active_tasks_per_member: tasks_per_member(total_active_tasks, n_members),
            total_tasks_per_member: tasks_per_member(total_tasks, n_members),
        };

        if total_active_tasks < 0 {
            return Err(illegal_capacity(total_active_tasks));
        }
        if release.prev_standby_lists_sized() && num_standby > 0 {
            let n = total_tasks
                .wrapping_sub(total_active_tasks)
                .wrapping_div(num_standby);
            if n < 0 {
                return Err(illegal_capacity(n));
            }
        }

        // Processes, in first appearance and in their map's order; each one's members.
        let mut process_map: JavaHashMap<&str, usize> =
            JavaHashMap::with_capacity(n_members).ok_or_else(|| illegal_capacity(n_members))?;
        let mut member_maps: Vec<JavaHashMap<&str, usize>> = Vec::new();
        for (m, spec_m) in members.iter().enumerate() {
            let pid: &str = spec_m.process_id.as_ref();
            let next = state.processes.len();
            let p = if release.prev_standby_lists_sized() {
                *process_map.put_if_absent_with(pid, || next)
            } else {
                *process_map.compute_if_absent(pid, || next)
            };
            if p == next {
                state.processes.push(Process::new());
                member_maps.push(JavaHashMap::new());
            }
            state.member_process.push(p);
            member_maps[p].put(spec_m.member_id.as_ref(), m);
            state.processes[p].add_member();
        }
        state.process_order = process_map.iter().map(|(_, &p)| p).collect();
        for (p, map) in member_maps.iter().enumerate() {
            state.processes[p].members = map.iter().map(|(_, &m)| m).collect();
        }

        // Previous owners.
        let mut candidates: Vec<Vec<(usize, bool, i64)>> = Vec::new();
        if !release.prev_standby_lists_sized() {
            candidates = vec![Vec::new(); tasks];
        }
        for (m, spec_m) in members.iter().enumerate() {
            let previous = spec.previous_of(spec_m);
            for (sub, p) in previous.active.tasks() {
                if let Some(t) = state.task(sub, p) {
                    state.prev_active[t] = Some(m);
                }
            }
            if release.prev_standby_lists_sized() {
                for (sub, p) in previous.standby.tasks() {
                    if num_standby < 0 {
                        return Err(format!("Illegal Capacity: {num_standby}"));
                    }
                    if let Some(t) = state.task(sub, p) {
                        state.prev_standby[t].push(m);
                    }
                }
            } else {
                // The member's reported offsets, as a map (a later report of a task wins).
                let mut offsets: HashMap<(&str, i32), i64> = HashMap::new();
                for (sub, p, o) in &spec_m.task_offsets {
                    offsets.insert((sub.as_str(), *p), *o);
                }
                for (sub, p) in previous.standby.tasks() {
                    if let Some(t) = state.task(sub, p) {
                        let sum = offsets.get(&(sub, p)).copied().unwrap_or(0);
                        candidates[t].push((m, true, sum));
                    }
                }
                let mut reported: Vec<(usize, i64)> = offsets
                    .iter()
                    .filter(|((sub, p), _)| !previous.standby.contains(sub, *p))
                    .filter_map(|(&(sub, p), &o)| state.task(sub, p).map(|t| (t, o)))
                    .collect();
                reported.sort_unstable();
                for (t, o) in reported {
                    candidates[t].push((m, false, o));
                }
            }
        }
        for (t, mut list) in candidates.into_iter().enumerate() {
            // Previous standbys first, then by offset sum descending; stable.
            sort_by(&mut list, |a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
            state.prev_standby[t] = list.into_iter().map(|(m, _, _)| m).collect();
        }
        Ok(state)
    }

    /// The index of task `(sub, partition)`, if the topology has it.
    pub(super) fn task(&self, sub: &str, partition: i32) -> Option<usize> {
        let k = self
            .sub_ids
            .binary_search_by(|s| compare_strings(s, sub))
            .ok()?;
        let first = self.sub_first[k];
        let end = self
            .sub_first
            .get(k + 1)
            .copied()
            .unwrap_or(self.task_sub.len());
        let p = usize::try_from(partition).ok()?;
        (p < end - first).then_some(first + p)
    }

    /// Kafka's `TaskId.toString()`.
    pub(super) fn task_name(&self, t: usize) -> String {
        format!(
            "{}_{}",
            self.sub_ids[self.task_sub[t]], self.task_partition[t]
        )
    }
}

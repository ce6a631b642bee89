//! The interned group: members, processes and tasks as indices, the previous targets, reported
//! lags and the rack and tag dimensions, read once from the spec for every phase.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use super::loads::LoadScale;
use super::{Memo, NONE};
use crate::assignor::GroupSpec;
use crate::ordered;
use crate::tasks::{Assignment, TaskMap};

/// The interned group.
pub(super) struct Group<'a> {
    /// Member ids in ascending order; a member's index is its rank.
    pub(super) member_ids: Vec<&'a str>,
    pub(super) member_process: Vec<u32>,
    /// Members per process.
    pub(super) capacity: Vec<u32>,
    /// Process loads as integers in the order of load / capacity.
    pub(super) load_scale: LoadScale,
    /// Each process's id.
    pub(super) process_ids: Vec<&'a str>,
    /// Subtopology ids in ascending order.
    pub(super) sub_ids: Vec<&'a str>,
    /// The same, shared by the task maps of the output (made when first asked for).
    pub(super) shared_ids: std::cell::OnceCell<Vec<Arc<str>>>,
    /// Task `t` of subtopology `s` is `sub_offset[s] + t`; one extra entry holds the task count.
    pub(super) sub_offset: Vec<u32>,
    pub(super) sub_stateful: Vec<bool>,
    pub(super) task_sub: Vec<u32>,
    /// Previous active owner per task (smallest member id when several claim it).
    pub(super) prev_active: Vec<u32>,
    /// Previous standby (or warm-up) owners of task `t`:
    /// `prev_standby[prev_standby_offset[t]..prev_standby_offset[t + 1]]`, in member order.
    pub(super) prev_standby_offset: Vec<u32>,
    pub(super) prev_standby: Vec<u32>,
    /// Tasks in (partition, subtopology id) ascending order; empty when no member held or
    /// reported a task (the phases that walk it would place nothing).
    pub(super) partition_order: Vec<u32>,
    /// `num.standby.replicas` as configured (negative as 0).
    pub(super) num_standby_replicas: u64,
    /// Standbys each stateful task can actually get: `min(num.standby.replicas, processes - 1)`.
    pub(super) replicas: u32,
    pub(super) num_stateful_tasks: u64,
    /// Dimensions standbys spread over: the rack id, then each rack-aware tag key.
    pub(super) dims: usize,
    /// Member `m`'s value in dimension `d` is `member_dims[m * dims + d]`, interned, `NONE`
    /// when the member has none.
    pub(super) member_dims: Vec<u32>,
    /// Known lags of task `t`: `lags[lag_offset[t]..lag_offset[t + 1]]`, `(member, lag)` in
    /// member order; empty for every task when no member reported offsets.
    pub(super) lag_offset: Vec<u32>,
    pub(super) lags: Vec<(u32, u64)>,
    pub(super) acceptable_lag: u64,
    pub(super) num_warmups: u32,
    /// `(task, member)` of previous warm-ups, sorted.
    pub(super) prev_warmup: Vec<(u32, u32)>,
    /// Each member's previous target in indices, to tell which targets change.
    pub(super) previous: TaskLists,
}

/// The members' previous targets in indices, as [`Group::build`] gathers them.
pub(super) struct Prior<'s> {
    pub(super) sub_ids: &'s [&'s str],
    pub(super) sub_offset: &'s [u32],
    pub(super) sub_tasks: &'s [u32],
    pub(super) prev_active: Vec<u32>,
    pub(super) standby_pairs: Vec<(u32, u32)>,
    pub(super) prev_warmup: Vec<(u32, u32)>,
    pub(super) previous: TaskLists,
}

impl Prior<'_> {
    /// Member `m`'s previous target from its maps; `exact` when it has an entry of its own.
    /// (`&`, not `&&`: every kind is read.)
    pub(super) fn walk(&mut self, m: u32, target: &Assignment, exact: bool) {
        let exact = self.tasks(0, m, &target.active)
            & self.tasks(1, m, &target.standby)
            & self.tasks(2, m, &target.warmup)
            & exact;
        self.previous.close(m as usize, exact);
    }

    /// The active (`kind` 0), standby (1) or warm-up (2) tasks of `map` as member `m`'s:
    /// whether every entry was a non-empty set of existing tasks. Plain loops: this walk runs
    /// over every member's maps in every computation.
    pub(super) fn tasks(&mut self, kind: usize, m: u32, map: &TaskMap) -> bool {
        let mut exact = true;
        let mut cursor = 0;
        for (sub, parts) in map {
            let (base, end) = self.find(&mut cursor, sub);
            let mut found = 0;
            for &p in parts {
                if p >= end {
                    break;
                }
                if p < 0 {
                    continue;
                }
                found += 1;
                self.add(kind, base + p as u32, m);
            }
            exact &= !parts.is_empty() && found == parts.len();
        }
        exact
    }

    /// Member `k` of `memo` as member `m`'s previous target.
    pub(super) fn lend(&mut self, memo: &Memo, k: usize, m: u32) {
        for kind in 0..3 {
            for &t in memo.lists.of(kind, k) {
                self.add(kind, t, m);
            }
        }
        // A computed target is exact: it was written with non-empty sets only.
        self.previous.close(m as usize, true);
    }

    /// Task `t` of kind `kind` in member `m`'s previous target: in its list, and as a claim on
    /// the active task (the first claim stands) or a standby or warm-up pair.
    #[inline]
    pub(super) fn add(&mut self, kind: usize, t: u32, m: u32) {
        self.previous.tasks[kind].push(t);
        if kind == 0 {
            if let Some(owner) = self.prev_active.get_mut(t as usize) {
                if *owner == NONE {
                    *owner = m;
                }
            }
        } else {
            self.standby_pairs.push((t, m));
            if kind == 2 {
                self.prev_warmup.push((t, m));
            }
        }
    }

    /// The first task index and the task count of subtopology `sub` (`(0, 0)` if it does not
    /// exist). A task map's keys are sorted like `sub_ids`, so one forward cursor per map finds
    /// every subtopology, with one comparison per subtopology passed.
    pub(super) fn find(&self, cursor: &mut usize, sub: &str) -> (u32, i32) {
        let found = loop {
            match self.sub_ids.get(*cursor).map(|id| id_cmp(id, sub)) {
                Some(Ordering::Less) => *cursor += 1,
                Some(Ordering::Equal) => break Some(*cursor),
                _ => break None,
            }
        };
        found.map_or((0, 0), |s| {
            (
                self.sub_offset[s],
                i32::try_from(self.sub_tasks[s]).unwrap_or(i32::MAX),
            )
        })
    }
}

/// Targets in task indices, per member (the previous ones, and the computed ones):
/// `tasks[kind][offsets[kind][m]..][..]` for active (0), standby (1) and warm-up (2) tasks, each
/// run in ascending task order.
#[derive(Clone, Debug, Default)]
pub(super) struct TaskLists {
    pub(super) tasks: [Vec<u32>; 3],
    pub(super) offsets: [Vec<u32>; 3],
    /// Whether member `m`'s previous target equals its indices: it had one, and every entry of
    /// it is a non-empty set of existing tasks. Only then can equal indices mean an equal target.
    pub(super) exact: Vec<bool>,
}

impl TaskLists {
    pub(super) fn with_members(n: usize) -> Self {
        let offsets = || {
            let mut v = Vec::with_capacity(n + 1);
            v.push(0);
            v
        };
        TaskLists {
            tasks: [Vec::new(), Vec::new(), Vec::new()],
            offsets: [offsets(), offsets(), offsets()],
            exact: Vec::with_capacity(n),
        }
    }

    /// Ends member `m`'s runs.
    #[inline]
    pub(super) fn close(&mut self, m: usize, exact: bool) {
        debug_assert_eq!(self.exact.len(), m);
        for kind in 0..3 {
            self.offsets[kind].push(self.tasks[kind].len() as u32);
        }
        self.exact.push(exact);
    }

    pub(super) fn of(&self, kind: usize, m: usize) -> &[u32] {
        let offsets = &self.offsets[kind];
        &self.tasks[kind][offsets[m] as usize..offsets[m + 1] as usize]
    }
}

pub(super) fn too_many(what: &str) -> String {
    format!("The group spec has too many {what} for the sticky assignor.")
}

impl<'a> Group<'a> {
    pub(super) fn build(spec: &GroupSpec<'a>) -> Result<Self, String> {
        let members = spec.members;
        if u32::try_from(members.len()).map_or(true, |n| n == NONE) {
            return Err(too_many("members"));
        }

        // Members by member id (the spec is documented as sorted: check that first).
        let mut by_id: Vec<usize> = (0..members.len()).collect();
        let strictly_sorted = members.windows(2).all(|w| w[0].member_id < w[1].member_id);
        if !strictly_sorted {
            ordered::sort_indices(&mut by_id, &|a, b| {
                members[a].member_id.cmp(&members[b].member_id)
            });
            for pair in by_id.windows(2) {
                if members[pair[0]].member_id == members[pair[1]].member_id {
                    return Err(format!(
                        "Member {} appears more than once in the group spec.",
                        members[pair[0]].member_id
                    ));
                }
            }
        }
        let member_ids: Vec<&str> = by_id
            .iter()
            .map(|&i| members[i].member_id.as_ref())
            .collect();

        // Processes, numbered in order of first appearance among the sorted members (S2's turn
        // takes the processes in this order).
        // A member the memo knows with the same process takes the number its memo process got
        // at first sight: one hash look-up per process, not per member.
        let memo = spec.memo;
        let mut memo_of: Vec<u32> = Vec::new();
        let mut renumbered: Vec<u32> = memo.map_or(Vec::new(), |m| vec![NONE; m.process_ids.len()]);
        let mut process_index: HashMap<&str, u32> = HashMap::with_capacity(members.len());
        let mut member_process = Vec::with_capacity(members.len());
        let mut capacity: Vec<u32> = Vec::new();
        let mut process_ids: Vec<&'a str> = Vec::new();
        let mut memo_at = 0;
        for &i in &by_id {
            let pid = members[i].process_id.as_ref();
            let k = memo.and_then(|memo| memo.seek(&mut memo_at, members[i].member_id.as_ref()));
            if memo.is_some() {
                memo_of.push(k.map_or(NONE, |k| k as u32));
            }
            let known = memo.zip(k).and_then(|(memo, k)| {
                let mp = *memo.member_process.get(k)? as usize;
                (memo.process_ids.get(mp)? == pid).then_some(mp)
            });
            let next = capacity.len() as u32;
            let p = match known
                .and_then(|mp| renumbered.get(mp))
                .filter(|&&p| p != NONE)
            {
                Some(&p) => p,
                None => {
                    let p = *process_index.entry(pid).or_insert(next);
                    if let Some(slot) = known.and_then(|mp| renumbered.get_mut(mp)) {
                        *slot = p;
                    }
                    p
                }
            };
            if p == next {
                capacity.push(0);
                process_ids.push(pid);
            }
            capacity[p as usize] += 1;
            member_process.push(p);
        }

        // Subtopologies by id.
        let subs = spec.subtopologies;
        let mut sub_order: Vec<usize> = (0..subs.len()).collect();
        ordered::sort_indices(&mut sub_order, &|a, b| {
            subs[a].subtopology_id.cmp(&subs[b].subtopology_id)
        });
        for pair in sub_order.windows(2) {
            if subs[pair[0]].subtopology_id == subs[pair[1]].subtopology_id {
                return Err(format!(
                    "Subtopology {} appears more than once in the group spec.",
                    subs[pair[0]].subtopology_id
                ));
            }
        }
        let sub_ids: Vec<&str> = sub_order
            .iter()
            .map(|&i| subs[i].subtopology_id.as_str())
            .collect();
        let sub_stateful: Vec<bool> = sub_order.iter().map(|&i| subs[i].stateful).collect();
        let sub_tasks: Vec<u32> = sub_order
            .iter()
            .map(|&i| u32::try_from(subs[i].num_tasks).unwrap_or(0))
            .collect();
        let mut sub_offset = Vec::with_capacity(sub_ids.len() + 1);
        let mut total: u32 = 0;
        let mut num_stateful_tasks: u64 = 0;
        for (s, &n) in sub_tasks.iter().enumerate() {
            sub_offset.push(total);
            total = total
                .checked_add(n)
                .filter(|&t| t != NONE)
                .ok_or_else(|| too_many("tasks"))?;
            if sub_stateful[s] {
                num_stateful_tasks += u64::from(n);
            }
        }
        sub_offset.push(total);
        let num_tasks = total as usize;
        let mut task_sub = Vec::with_capacity(num_tasks);
        for (s, &n) in sub_tasks.iter().enumerate() {
            task_sub.extend(std::iter::repeat_n(s as u32, n as usize));
        }

        // Previous owners. Members are visited in member-id order, so the first claim of an
        // active task is the smallest member id's, and each task's standby owners come out in
        // member-id order.
        let mut prior = Prior {
            sub_ids: &sub_ids,
            sub_offset: &sub_offset,
            sub_tasks: &sub_tasks,
            prev_active: vec![NONE; num_tasks],
            standby_pairs: Vec::new(),
            prev_warmup: Vec::new(),
            previous: TaskLists::with_members(members.len()),
        };
        // A stable group's previous targets hold every task once and each standby copy: the
        // lists reach that size without being copied as they grow (a group without previous
        // targets reserves nothing).
        let has_previous = match spec.previous_targets {
            Some(targets) => !targets.is_empty(),
            None => members.iter().any(|m| !m.previous.active.is_empty()),
        };
        if has_previous {
            let copies = (num_stateful_tasks as usize).saturating_mul(
                usize::try_from(spec.num_standby_replicas)
                    .unwrap_or(0)
                    .min(capacity.len().saturating_sub(1)),
            );
            prior.previous.tasks[0].reserve(num_tasks);
            prior.previous.tasks[1].reserve(copies);
            prior.standby_pairs.reserve(copies);
        }
        // Lent targets are in member-id order too: one walk beside the members finds them.
        let mut lent = spec.previous_targets.map(|t| t.iter().peekable());
        let lists_memo = memo.filter(|memo| memo.fits(&sub_ids, &sub_tasks));
        for (m, &i) in by_id.iter().enumerate() {
            let member = &members[i];
            let entry = match &mut lent {
                Some(rest) => ordered::seek(rest, member.member_id.as_ref()).map(|(_, t)| t),
                None => Some(member.previous.as_ref()),
            };
            let k = memo_of.get(m).copied().unwrap_or(NONE) as usize;
            match (lists_memo, entry) {
                (Some(memo), Some(_)) if k < memo.id_ends.len() => prior.lend(memo, k, m as u32),
                // As `previous_of`; without an entry of its own, whatever the member gets is a
                // change.
                _ => prior.walk(
                    m as u32,
                    entry.unwrap_or(member.previous.as_ref()),
                    entry.is_some(),
                ),
            }
        }
        let Prior {
            prev_active,
            standby_pairs,
            mut prev_warmup,
            previous,
            ..
        } = prior;
        // No offsets at all when no member had a standby (a new group).
        let (prev_standby_offset, prev_standby) = if standby_pairs.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            group_by_task(num_tasks, standby_pairs.iter().copied())
        };
        ordered::sort_pairs(&mut prev_warmup);

        // Rack id and rack-aware tags, interned per dimension.
        let dims = 1 + spec.rack_aware_tags.len();
        let mut interned: HashMap<(usize, &str), u32> = HashMap::new();
        let mut member_dims = Vec::with_capacity(members.len() * dims);
        for &i in &by_id {
            let m = &members[i];
            let values = std::iter::once(m.rack_id.as_deref()).chain(
                spec.rack_aware_tags
                    .iter()
                    .map(|k| m.client_tags.get(k).map(String::as_str)),
            );
            for (d, v) in values.enumerate() {
                member_dims.push(v.map_or(NONE, |v| {
                    let next = interned.len() as u32;
                    *interned.entry((d, v)).or_insert(next)
                }));
            }
        }

        // Lags: a task's end offset is the largest any member reported.
        // Reports list a subtopology's partitions together, so the last subtopology found is
        // tried before a search.
        let mut last_sub = usize::MAX;
        let mut task_index = |sub: &str, p: i32| -> Option<u32> {
            if sub_ids.get(last_sub) != Some(&sub) {
                last_sub = sub_ids.binary_search(&sub).ok()?;
            }
            let s = last_sub;
            let p = u32::try_from(p).ok().filter(|&p| p < sub_tasks[s])?;
            Some(sub_offset[s] + p)
        };
        // `None` until some member reports an end offset for the task.
        let mut end: Vec<Option<i64>> = Vec::new();
        for m in members {
            for (sub, p, o) in &m.task_end_offsets {
                if let Some(t) = task_index(sub, *p) {
                    if end.is_empty() {
                        end = vec![None; num_tasks];
                    }
                    let e = &mut end[t as usize];
                    *e = Some(e.map_or(*o, |e| e.max(*o)));
                }
            }
        }
        let mut lag_pairs: Vec<(u32, (u32, u64))> = Vec::new();
        for (m, &i) in by_id.iter().enumerate() {
            for (sub, p, o) in &members[i].task_offsets {
                let Some(t) = task_index(sub, *p) else {
                    continue;
                };
                let lag = match (*o, end.get(t as usize).copied().flatten()) {
                    (-2, _) => 0,
                    (o, Some(e)) if o >= 0 => u64::try_from(e.saturating_sub(o)).unwrap_or(0),
                    _ => continue,
                };
                lag_pairs.push((t, (m as u32, lag)));
            }
        }
        let (lag_offset, lags) = if lag_pairs.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            group_by_task(num_tasks, lag_pairs.iter().copied())
        };

        // Only the phases that start from what members held or report walk this order (A1,
        // A2, L, S1): a new group without reported lags places nothing there and needs none.
        let walked =
            !lags.is_empty() || !prev_standby.is_empty() || prev_active.iter().any(|&o| o != NONE);
        let partition_order = if walked {
            partition_order(&sub_tasks, &sub_offset)
        } else {
            Vec::new()
        };

        let num_standby_replicas = u64::try_from(spec.num_standby_replicas).unwrap_or(0);
        let replicas = num_standby_replicas.min(capacity.len().saturating_sub(1) as u64) as u32;
        let num_warmups = u32::try_from(spec.num_warmup_replicas).unwrap_or(0);
        // A process's load never exceeds every placement there is.
        let max_load = (num_tasks as u64)
            .saturating_mul(1 + u64::from(replicas))
            .saturating_add(u64::from(num_warmups));
        let load_scale =
            LoadScale::new(&capacity, max_load).ok_or_else(|| too_many("members per process"))?;

        Ok(Group {
            dims,
            member_dims,
            lag_offset,
            lags,
            acceptable_lag: u64::try_from(spec.acceptable_recovery_lag).unwrap_or(0),
            num_warmups,
            load_scale,
            prev_warmup,
            previous,
            member_ids,
            member_process,
            capacity,
            process_ids,
            sub_ids,
            shared_ids: std::cell::OnceCell::new(),
            sub_offset,
            sub_stateful,
            task_sub,
            prev_active,
            prev_standby_offset,
            prev_standby,
            partition_order,
            num_standby_replicas,
            replicas,
            num_stateful_tasks,
        })
    }

    /// The index of task `(sub, partition)`, if it exists.
    pub(super) fn task_index(&self, sub: &str, partition: i32) -> Option<u32> {
        let s = self.sub_ids.binary_search(&sub).ok()?;
        let base = self.sub_offset[s];
        let n = self.sub_offset[s + 1] - base;
        let p = u32::try_from(partition).ok().filter(|&p| p < n)?;
        Some(base + p)
    }

    pub(super) fn num_tasks(&self) -> usize {
        self.task_sub.len()
    }

    pub(super) fn stateful(&self, task: u32) -> bool {
        self.sub_stateful[self.task_sub[task as usize] as usize]
    }

    pub(super) fn prev_standby_of(&self, task: u32) -> &[u32] {
        let t = task as usize;
        match (
            self.prev_standby_offset.get(t),
            self.prev_standby_offset.get(t + 1),
        ) {
            (Some(&a), Some(&b)) => &self.prev_standby[a as usize..b as usize],
            _ => &[],
        }
    }

    pub(super) fn lags_of(&self, task: u32) -> &[(u32, u64)] {
        let t = task as usize;
        match (self.lag_offset.get(t), self.lag_offset.get(t + 1)) {
            (Some(&a), Some(&b)) => &self.lags[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The member's smallest known lag on the task, if it is at most the acceptable lag.
    pub(super) fn caught_up(&self, member: u32, task: u32) -> Option<u64> {
        self.lags_of(task)
            .iter()
            .filter(|&&(m, lag)| m == member && lag <= self.acceptable_lag)
            .map(|&(_, lag)| lag)
            .min()
    }

    pub(super) fn process_caught_up(&self, process: u32, task: u32) -> bool {
        self.lags_of(task).iter().any(|&(m, lag)| {
            self.member_process[m as usize] == process && lag <= self.acceptable_lag
        })
    }

    pub(super) fn dims_of(&self, member: u32) -> &[u32] {
        let start = member as usize * self.dims;
        &self.member_dims[start..start + self.dims]
    }

    /// Dimensions in which `member` has a value that one of `holders` has too.
    pub(super) fn conflicts(&self, member: u32, holders: &[u32]) -> usize {
        let mine = self.dims_of(member);
        (0..self.dims)
            .filter(|&d| mine[d] != NONE && holders.iter().any(|&h| self.dims_of(h)[d] == mine[d]))
            .count()
    }
}

/// Whether two short task lists are equal: a branch-free fold, where a slice comparison calls
/// `a.cmp(b)`, settled on the first byte where it can be: subtopology ids are short (Kafka
/// Streams numbers them) and mostly differ there, and a `memcmp` call per map entry of every
/// previous target was a tenth of a computation.
#[inline]
pub(super) fn id_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        (Some(_), Some(_)) if a.len() > 1 && b.len() > 1 => a[1..].cmp(&b[1..]),
        // Equal first bytes and one of them alone, or an empty id: the shorter comes first.
        _ => a.len().cmp(&b.len()),
    }
}

/// `memcmp` once per list (most lists hold a few tasks).
pub(super) fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Pairs `(task, member)` grouped by task (stable, so members keep their order): CSR offsets
/// (one more than tasks) and the members.
pub(super) fn group_by_task<V: Copy + Default, I>(num_tasks: usize, pairs: I) -> (Vec<u32>, Vec<V>)
where
    I: IntoIterator<Item = (u32, V)>,
    I::IntoIter: Clone,
{
    let pairs = pairs.into_iter();
    let mut offsets = vec![0u32; num_tasks + 1];
    let mut len = 0;
    for (t, _) in pairs.clone() {
        offsets[t as usize + 1] += 1;
        len += 1;
    }
    for i in 0..num_tasks {
        offsets[i + 1] += offsets[i];
    }
    // Filled by moving each task's start up; shifted back once every pair is in.
    let mut members = vec![V::default(); len];
    for (t, m) in pairs {
        let slot = &mut offsets[t as usize];
        members[*slot as usize] = m;
        *slot += 1;
    }
    offsets.rotate_right(1);
    offsets[0] = 0;
    (offsets, members)
}

/// All tasks in (partition, subtopology id) ascending order, by a counting sort on the partition
/// (subtopologies are visited in id order, so each partition's bucket is in id order).
pub(super) fn partition_order(sub_tasks: &[u32], sub_offset: &[u32]) -> Vec<u32> {
    let max_tasks = sub_tasks.iter().copied().max().unwrap_or(0) as usize;
    let mut start = vec![0u32; max_tasks + 1];
    for &n in sub_tasks {
        // Partitions 0..n each get one task of this subtopology.
        for slot in &mut start[1..=n as usize] {
            *slot += 1;
        }
    }
    for i in 0..max_tasks {
        start[i + 1] += start[i];
    }
    let total = start[max_tasks] as usize;
    let mut order = vec![0u32; total];
    for (s, &n) in sub_tasks.iter().enumerate() {
        for p in 0..n {
            let slot = &mut start[p as usize];
            order[*slot as usize] = sub_offset[s] + p;
            *slot += 1;
        }
    }
    order
}

//! The sticky assignor (PROTOCOL 2.10).
//!
//! Phases A1 (stickiness), A2 (standby promotion), A3 (fill), S1 (sticky standbys) and S2 (fill
//! standbys), with every tie broken by member id, subtopology id and partition.
//!
//! Internally everything is an index: members by member-id rank, processes by process-id rank,
//! tasks by `(subtopology rank, partition)` flattened into one range. The least-loaded member of
//! the group is found with two levels of binary heaps: per process, its members keyed by member
//! load; over the processes, each process's best member keyed by (member load, process load,
//! member id). A process's load is the same for all its members, so the best member of the group
//! is the best of the processes' best members. A placement re-keys its member and process in
//! place; the phases that never ask for the least-loaded member (A1, A2) only count, and the
//! heaps are rebuilt in O(members) when next asked. Every placement costs O(log members), for
//! O((tasks + members) log members) in all.
//!
//! [`StickyAssignor::compute`] keeps the result in indices beside each member's previous target
//! in indices, so that a coordinator builds only the targets that changed.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

use super::GroupSpec;
use crate::ordered;
use crate::tasks::{Assignment, TaskMap};

/// No member / no task.
const NONE: u32 = u32::MAX;

/// The built-in assignor (`sticky`, the default): balanced, sticky, standby-aware and
/// deterministic (PROTOCOL 2.10).
///
/// Input handling beyond 2.10: the members and subtopologies may come in any order (both are
/// sorted internally); a negative task count is treated as 0 and a negative
/// `num_standby_replicas` as 0. Duplicate member ids or subtopology ids, and more than
/// `u32::MAX - 1` tasks or members in all, are rejected with an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct StickyAssignor;

impl StickyAssignor {
    /// The assignor's name in `explain`.
    pub fn name(&self) -> &'static str {
        "sticky"
    }

    /// A target for every member of the spec. Deterministic: the same spec gives the same
    /// result.
    pub fn assign(&self, spec: &GroupSpec<'_>) -> Result<BTreeMap<String, Assignment>, String> {
        if spec.members.is_empty() {
            return Ok(BTreeMap::new());
        }
        let group = Group::build(spec)?;
        let placement = group.place();
        Ok(group.output(&placement))
    }

    /// The same placement as [`StickyAssignor::assign`], kept in indices: the caller asks for
    /// the targets that changed and the counts it reports, and builds no target that stayed.
    pub fn compute<'a>(&self, spec: &GroupSpec<'a>) -> Result<Computation<'a>, String> {
        let group = Group::build(spec)?;
        let placement = group.place();
        let lists = group.member_tasks(&placement);
        Ok(Computation {
            group,
            placement,
            lists,
        })
    }
}

/// A computed placement ([`StickyAssignor::compute`]).
pub struct Computation<'a> {
    group: Group<'a>,
    placement: Placement,
    lists: TaskLists,
}

impl Computation<'_> {
    /// What the next computation of the group can start from ([`GroupSpec::memo`]): the new
    /// targets in task indices, with the member ids and subtopologies they refer to.
    #[must_use]
    pub fn into_memo(self) -> Memo {
        let g = &self.group;
        let mut ids = String::with_capacity(g.member_ids.iter().map(|id| id.len()).sum());
        let mut id_ends = Vec::with_capacity(g.member_ids.len());
        for id in &g.member_ids {
            ids.push_str(id);
            id_ends.push(ids.len());
        }
        let layout = g
            .sub_ids
            .iter()
            .zip(g.sub_offset.windows(2))
            .map(|(id, w)| (id.to_string(), w[1] - w[0]))
            .collect();
        Memo {
            layout,
            ids,
            id_ends,
            process_ids: g.process_ids.iter().map(|p| p.to_string()).collect(),
            member_process: g.member_process.clone(),
            lists: self.lists,
        }
    }
}

/// A computation's targets in task indices, kept for the group's next computation
/// ([`GroupSpec::memo`], [`Computation::into_memo`]): reading a previous target from here costs
/// a copy of its indices, where its maps cost a walk of every subtopology and partition.
#[derive(Clone, Debug, Default)]
pub struct Memo {
    /// The subtopologies the indices count in: ids ascending, with their task counts.
    layout: Vec<(String, u32)>,
    /// The member ids ascending, one after another: member `k`'s ends at `id_ends[k]`.
    ids: String,
    id_ends: Vec<usize>,
    lists: TaskLists,
    /// The processes, numbered as the computation numbered them, and each member's.
    process_ids: Vec<String>,
    member_process: Vec<u32>,
}

impl Memo {
    /// Member `k`'s id.
    fn id(&self, k: usize) -> &str {
        let start = k.checked_sub(1).map_or(0, |j| self.id_ends[j]);
        self.ids.get(start..self.id_ends[k]).unwrap_or("")
    }

    /// Walks the members from `at` up to `id`: its index if it is there.
    fn seek(&self, at: &mut usize, id: &str) -> Option<usize> {
        while *at < self.id_ends.len() {
            match self.id(*at).cmp(id) {
                Ordering::Less => *at += 1,
                Ordering::Equal => return Some(*at),
                Ordering::Greater => return None,
            }
        }
        None
    }

    /// Whether its indices count in these subtopologies.
    fn fits(&self, sub_ids: &[&str], sub_tasks: &[u32]) -> bool {
        self.layout.len() == sub_ids.len()
            && self
                .layout
                .iter()
                .zip(sub_ids.iter().zip(sub_tasks))
                .all(|((id, n), (s, t))| id == s && n == t)
    }
}

/// One warm-up of a computed placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Warmup<'a> {
    /// The member warming up.
    pub member_id: &'a str,
    /// The task's subtopology.
    pub subtopology_id: &'a str,
    /// The task's partition.
    pub partition: i32,
    /// The member the task is active on, if any.
    pub active_member_id: Option<&'a str>,
}

impl<'a> Computation<'a> {
    /// The members whose new target differs from their previous one
    /// ([`GroupSpec::previous_entry`](super::GroupSpec::previous_entry); a member without one
    /// always counts), with the new target, in member-id order.
    #[must_use]
    pub fn changed(&self) -> Vec<(&'a str, Assignment)> {
        let g = &self.group;
        (0..g.member_ids.len())
            .filter(|&m| {
                !g.previous.exact[m]
                    || (0..3).any(|kind| !same(g.previous.of(kind, m), self.lists.of(kind, m)))
            })
            .map(|m| (g.member_ids[m], g.assignment(&self.lists, m)))
            .collect()
    }

    /// [`tasks_moved`](super::tasks_moved) from the members' previous targets to the new ones:
    /// active tasks whose previous owner (the smallest member id claiming it) lost them.
    #[must_use]
    pub fn tasks_moved(&self) -> u64 {
        let prev = &self.group.prev_active;
        self.placement
            .active_owner
            .iter()
            .zip(prev)
            .filter(|&(&now, &before)| before != NONE && now != NONE && now != before)
            .count() as u64
    }

    /// [`tasks_reassigned`](super::tasks_reassigned): the tasks of `orphaned` that have an
    /// active owner now and had none among the members' previous targets.
    #[must_use]
    pub fn tasks_reassigned(&self, orphaned: &BTreeSet<(String, i32)>) -> u64 {
        orphaned
            .iter()
            .filter_map(|(sub, p)| self.group.task_index(sub, *p))
            .filter(|&t| {
                self.placement.active_owner[t as usize] != NONE
                    && self.group.prev_active[t as usize] == NONE
            })
            .count() as u64
    }

    /// The warm-ups, by member id, then subtopology id and partition.
    #[must_use]
    pub fn warmups(&self) -> Vec<Warmup<'a>> {
        let g = &self.group;
        let mut out = Vec::new();
        for (m, &member_id) in g.member_ids.iter().enumerate() {
            for &t in self.lists.of(2, m) {
                let s = g.task_sub[t as usize] as usize;
                let owner = self.placement.active_owner[t as usize];
                out.push(Warmup {
                    member_id,
                    subtopology_id: g.sub_ids[s],
                    partition: (t - g.sub_offset[s]) as i32,
                    active_member_id: (owner != NONE).then(|| g.member_ids[owner as usize]),
                });
            }
        }
        out
    }
}

/// The interned group.
struct Group<'a> {
    /// Member ids in ascending order; a member's index is its rank.
    member_ids: Vec<&'a str>,
    member_process: Vec<u32>,
    /// Members per process.
    capacity: Vec<u32>,
    /// Process loads as integers in the order of load / capacity.
    load_scale: LoadScale,
    /// Each process's id.
    process_ids: Vec<&'a str>,
    /// Subtopology ids in ascending order.
    sub_ids: Vec<&'a str>,
    /// The same, shared by the task maps of the output (made when first asked for).
    shared_ids: std::cell::OnceCell<Vec<Arc<str>>>,
    /// Task `t` of subtopology `s` is `sub_offset[s] + t`; one extra entry holds the task count.
    sub_offset: Vec<u32>,
    sub_stateful: Vec<bool>,
    task_sub: Vec<u32>,
    /// Previous active owner per task (smallest member id when several claim it).
    prev_active: Vec<u32>,
    /// Previous standby (or warm-up) owners of task `t`:
    /// `prev_standby[prev_standby_offset[t]..prev_standby_offset[t + 1]]`, in member order.
    prev_standby_offset: Vec<u32>,
    prev_standby: Vec<u32>,
    /// Tasks in (partition, subtopology id) ascending order; empty when no member held or
    /// reported a task (the phases that walk it would place nothing).
    partition_order: Vec<u32>,
    /// `num.standby.replicas` as configured (negative as 0).
    num_standby_replicas: u64,
    /// Standbys each stateful task can actually get: `min(num.standby.replicas, processes - 1)`.
    replicas: u32,
    num_stateful_tasks: u64,
    /// Dimensions standbys spread over: the rack id, then each rack-aware tag key.
    dims: usize,
    /// Member `m`'s value in dimension `d` is `member_dims[m * dims + d]`, interned, `NONE`
    /// when the member has none.
    member_dims: Vec<u32>,
    /// Known lags of task `t`: `lags[lag_offset[t]..lag_offset[t + 1]]`, `(member, lag)` in
    /// member order; empty for every task when no member reported offsets.
    lag_offset: Vec<u32>,
    lags: Vec<(u32, u64)>,
    acceptable_lag: u64,
    num_warmups: u32,
    /// `(task, member)` of previous warm-ups, sorted.
    prev_warmup: Vec<(u32, u32)>,
    /// Each member's previous target in indices, to tell which targets change.
    previous: TaskLists,
}

/// The members' previous targets in indices, as [`Group::build`] gathers them.
struct Prior<'s> {
    sub_ids: &'s [&'s str],
    sub_offset: &'s [u32],
    sub_tasks: &'s [u32],
    prev_active: Vec<u32>,
    standby_pairs: Vec<(u32, u32)>,
    prev_warmup: Vec<(u32, u32)>,
    previous: TaskLists,
}

impl Prior<'_> {
    /// Member `m`'s previous target from its maps; `exact` when it has an entry of its own.
    /// (`&`, not `&&`: every kind is read.)
    fn walk(&mut self, m: u32, target: &Assignment, exact: bool) {
        let exact = self.tasks(0, m, &target.active)
            & self.tasks(1, m, &target.standby)
            & self.tasks(2, m, &target.warmup)
            & exact;
        self.previous.close(m as usize, exact);
    }

    /// The active (`kind` 0), standby (1) or warm-up (2) tasks of `map` as member `m`'s:
    /// whether every entry was a non-empty set of existing tasks. Plain loops: this walk runs
    /// over every member's maps in every computation.
    fn tasks(&mut self, kind: usize, m: u32, map: &TaskMap) -> bool {
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
    fn lend(&mut self, memo: &Memo, k: usize, m: u32) {
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
    fn add(&mut self, kind: usize, t: u32, m: u32) {
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
    fn find(&self, cursor: &mut usize, sub: &str) -> (u32, i32) {
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
struct TaskLists {
    tasks: [Vec<u32>; 3],
    offsets: [Vec<u32>; 3],
    /// Whether member `m`'s previous target equals its indices: it had one, and every entry of
    /// it is a non-empty set of existing tasks. Only then can equal indices mean an equal target.
    exact: Vec<bool>,
}

impl TaskLists {
    fn with_members(n: usize) -> Self {
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
    fn close(&mut self, m: usize, exact: bool) {
        debug_assert_eq!(self.exact.len(), m);
        for kind in 0..3 {
            self.offsets[kind].push(self.tasks[kind].len() as u32);
        }
        self.exact.push(exact);
    }

    fn of(&self, kind: usize, m: usize) -> &[u32] {
        let offsets = &self.offsets[kind];
        &self.tasks[kind][offsets[m] as usize..offsets[m + 1] as usize]
    }
}

/// The result of the phases, in indices.
struct Placement {
    /// Active owner per task.
    active_owner: Vec<u32>,
    active_count: Vec<u32>,
    /// (task, member) per standby.
    standby: Vec<(u32, u32)>,
    /// (task, member) per warm-up.
    warmup: Vec<(u32, u32)>,
}

/// Standby candidates looked at per replica, in least-loaded order, for one on a distinct rack
/// (and tag values) whose process is not paired with the active's.
const SCAN_LIMIT: usize = 64;

/// Candidates without conflicts looked at for one whose process is not paired with the active's:
/// pairing is a preference between near-equals, and in a large group every process soon pairs
/// with many others (looking further would cost a scan per replica for nothing).
const PAIR_CANDIDATES: usize = 2;

/// Hashes a pair of process numbers (membership tests only: no iteration order depends on it).
#[derive(Default)]
struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 29;
    }
}

/// The pairs `(p, q)` where process `q` holds a standby of a task active on process `p`: a bit
/// per pair of processes when that is at most a few bytes a task (one load a test, where
/// hashing cost a tenth of a computation that reads every previous standby), a hash set of
/// `(p << 32) | q` otherwise.
enum ProcessPairs {
    Bits { processes: usize, words: Vec<u64> },
    Hashed(HashSet<u64, std::hash::BuildHasherDefault<PairHasher>>),
}

impl ProcessPairs {
    fn new(processes: usize, tasks: usize) -> Self {
        let bits = processes.saturating_mul(processes);
        if bits <= tasks.saturating_mul(16).max(1 << 16) {
            ProcessPairs::Bits {
                processes,
                words: vec![0; bits.div_ceil(64)],
            }
        } else {
            ProcessPairs::Hashed(HashSet::default())
        }
    }

    fn insert(&mut self, p: usize, q: usize) {
        match self {
            ProcessPairs::Bits { processes, words } => {
                let bit = p * *processes + q;
                if let Some(w) = words.get_mut(bit / 64) {
                    *w |= 1 << (bit % 64);
                }
            }
            ProcessPairs::Hashed(set) => {
                set.insert(((p as u64) << 32) | q as u64);
            }
        }
    }

    fn contains(&self, p: usize, q: usize) -> bool {
        match self {
            ProcessPairs::Bits { processes, words } => {
                let bit = p * processes + q;
                words
                    .get(bit / 64)
                    .is_some_and(|w| w & (1 << (bit % 64)) != 0)
            }
            ProcessPairs::Hashed(set) => set.contains(&(((p as u64) << 32) | q as u64)),
        }
    }
}

fn too_many(what: &str) -> String {
    format!("The group spec has too many {what} for the sticky assignor.")
}

impl<'a> Group<'a> {
    fn build(spec: &GroupSpec<'a>) -> Result<Self, String> {
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

        // Processes, numbered in order of first appearance among the sorted members. (The
        // numbering never decides a tie: process numbers only identify processes.)
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
    fn task_index(&self, sub: &str, partition: i32) -> Option<u32> {
        let s = self.sub_ids.binary_search(&sub).ok()?;
        let base = self.sub_offset[s];
        let n = self.sub_offset[s + 1] - base;
        let p = u32::try_from(partition).ok().filter(|&p| p < n)?;
        Some(base + p)
    }

    fn num_tasks(&self) -> usize {
        self.task_sub.len()
    }

    fn stateful(&self, task: u32) -> bool {
        self.sub_stateful[self.task_sub[task as usize] as usize]
    }

    fn prev_standby_of(&self, task: u32) -> &[u32] {
        let t = task as usize;
        match (
            self.prev_standby_offset.get(t),
            self.prev_standby_offset.get(t + 1),
        ) {
            (Some(&a), Some(&b)) => &self.prev_standby[a as usize..b as usize],
            _ => &[],
        }
    }

    fn lags_of(&self, task: u32) -> &[(u32, u64)] {
        let t = task as usize;
        match (self.lag_offset.get(t), self.lag_offset.get(t + 1)) {
            (Some(&a), Some(&b)) => &self.lags[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The member's smallest known lag on the task, if it is at most the acceptable lag.
    fn caught_up(&self, member: u32, task: u32) -> Option<u64> {
        self.lags_of(task)
            .iter()
            .filter(|&&(m, lag)| m == member && lag <= self.acceptable_lag)
            .map(|&(_, lag)| lag)
            .min()
    }

    fn process_caught_up(&self, process: u32, task: u32) -> bool {
        self.lags_of(task).iter().any(|&(m, lag)| {
            self.member_process[m as usize] == process && lag <= self.acceptable_lag
        })
    }

    fn dims_of(&self, member: u32) -> &[u32] {
        let start = member as usize * self.dims;
        &self.member_dims[start..start + self.dims]
    }

    /// Dimensions in which `member` has a value that one of `holders` has too.
    fn conflicts(&self, member: u32, holders: &[u32]) -> usize {
        let mine = self.dims_of(member);
        (0..self.dims)
            .filter(|&d| mine[d] != NONE && holders.iter().any(|&h| self.dims_of(h)[d] == mine[d]))
            .count()
    }

    fn place(&self) -> Placement {
        let num_tasks = self.num_tasks();
        let num_members = self.member_ids.len();
        let mut loads = Loads::new(&self.member_process, &self.capacity, &self.load_scale);
        let mut owner = vec![NONE; num_tasks];

        // Stateful tasks, then stateless ones, each through A1-A3 with its own quota `qc` beside
        // the overall quota `qa`; with one class only, `qc` and `qa` are the same.
        let mut qa = Quota::new(num_tasks as u64, num_members as u64);
        let mut class_count = vec![0u32; num_members];
        for class in [true, false] {
            let stateful = self.num_stateful_tasks as usize;
            let class_tasks = if class {
                stateful
            } else {
                num_tasks - stateful
            };
            if class_tasks == 0 {
                continue;
            }
            let mut qc = Quota::new(class_tasks as u64, num_members as u64);
            class_count.fill(0);
            macro_rules! give {
                ($t:expr, $m:expr) => {{
                    let (t, m): (u32, u32) = ($t, $m);
                    owner[t as usize] = m;
                    loads.add_active(m);
                    class_count[m as usize] += 1;
                    qc.on_assigned(class_count[m as usize]);
                    qa.on_assigned(loads.active[m as usize]);
                }};
            }

            // A1: stickiness. Neither A1 nor A2 asks for the least-loaded member of the group.
            loads.unheap();
            for &t in &self.partition_order {
                let prev = self.prev_active[t as usize];
                if self.stateful(t) == class
                    && prev != NONE
                    && (!class || qc.below(class_count[prev as usize]))
                    && qa.below(loads.active[prev as usize])
                {
                    give!(t, prev);
                }
            }

            // A2: standby promotion.
            for &t in &self.partition_order {
                if self.stateful(t) != class || owner[t as usize] != NONE {
                    continue;
                }
                let best = self
                    .prev_standby_of(t)
                    .iter()
                    .copied()
                    .filter(|&c| {
                        (!class || qc.below(class_count[c as usize]))
                            && qa.below(loads.active[c as usize])
                    })
                    .reduce(|best, c| if loads.less(c, best) { c } else { best });
                if let Some(m) = best {
                    give!(t, m);
                }
            }

            // A3: fill, in (subtopology id, partition) order.
            for t in 0..num_tasks as u32 {
                if self.stateful(t) != class || owner[t as usize] != NONE {
                    continue;
                }
                if let Some(m) = loads.least_loaded() {
                    give!(t, m);
                }
            }
        }

        let warmup = self.place_warmups(&mut owner, &mut loads);

        let mut standby = Vec::new();
        if self.replicas > 0 {
            standby = self.place_standbys(&owner, &warmup, &mut loads);
        }

        Placement {
            active_owner: owner,
            active_count: loads.active,
            standby,
            warmup,
        }
    }

    /// L: a stateful task whose balanced owner's process is not caught up goes to a caught-up
    /// member (its previous owner if caught up, else the least lag, then least loaded), and the
    /// balanced owner gets a warm-up of it while the group's warm-ups last. Tasks whose balanced
    /// owner already had the warm-up come first, then the others, each in partition order.
    fn place_warmups(&self, owner: &mut [u32], loads: &mut Loads) -> Vec<(u32, u32)> {
        let mut warmup = Vec::new();
        if self.lags.is_empty() {
            return warmup;
        }
        let mut budget = self.num_warmups;
        for had_it in [true, false] {
            for &t in &self.partition_order {
                let o = owner[t as usize];
                if !self.stateful(t) || o == NONE || self.lags_of(t).is_empty() {
                    continue;
                }
                if self.prev_warmup.binary_search(&(t, o)).is_ok() != had_it
                    || self.process_caught_up(self.member_process[o as usize], t)
                {
                    continue;
                }
                let prev = self.prev_active[t as usize];
                let chosen = if prev != NONE && self.caught_up(prev, t).is_some() {
                    Some(prev)
                } else {
                    self.lags_of(t)
                        .iter()
                        .filter(|&&(_, lag)| lag <= self.acceptable_lag)
                        .map(|&(m, lag)| (lag, m))
                        .reduce(|best, c| {
                            if c.0 < best.0 || (c.0 == best.0 && loads.less(c.1, best.1)) {
                                c
                            } else {
                                best
                            }
                        })
                        .map(|(_, m)| m)
                };
                let Some(c) = chosen else { continue };
                owner[t as usize] = c;
                loads.remove_active(o);
                loads.add_active(c);
                if budget > 0 {
                    budget -= 1;
                    warmup.push((t, o));
                    loads.add(o);
                }
            }
        }
        ordered::sort_pairs(&mut warmup);
        warmup
    }

    fn place_standbys(
        &self,
        owner: &[u32],
        warmup: &[(u32, u32)],
        loads: &mut Loads,
    ) -> Vec<(u32, u32)> {
        let num_tasks = self.num_tasks();
        let num_processes = self.capacity.len();
        let replicas = self.replicas;
        // At most `replicas` standbys a stateful task: room for all (up to four a task, beyond
        // which the list grows as it fills), so that the usual list never grows.
        let most = usize::try_from(self.num_stateful_tasks)
            .unwrap_or(usize::MAX)
            .saturating_mul(replicas as usize);
        let mut standby: Vec<(u32, u32)> =
            Vec::with_capacity(most.min(num_tasks.saturating_mul(4)));
        // `mark[p] == stamp`: process `p` holds the task being placed.
        let mut mark = vec![0u64; num_processes];
        let mut stamp = 0u64;
        // Standbys placed in S1 per task: the entries of `t` from `standby[s1_start[t]]` on (the
        // run ends at the first entry of another task, or at once for a task S1 gave none).
        let mut s1_start = vec![0u32; num_tasks];
        let s1_of =
            |standby: &[(u32, u32)], s1_start: &[u32], t: usize| -> std::ops::Range<usize> {
                let start = s1_start[t] as usize;
                let len = standby
                    .get(start..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|&&(task, _)| task as usize == t)
                    .count();
                start..start + len
            };
        let process_of = |m: u32| self.member_process[m as usize] as usize;
        let warmup_of = |t: u32| {
            warmup
                .binary_search_by(|&(w, _)| w.cmp(&t))
                .ok()
                .map(|i| warmup[i].1)
        };
        // The members holding the task being placed (active, warm-up, standbys).
        let mut holders: Vec<u32> = Vec::new();

        // S1: sticky standbys, in (partition, subtopology id) descending order.
        let total = (num_tasks as u64).saturating_add(
            self.num_standby_replicas
                .saturating_mul(self.num_stateful_tasks),
        );
        let mut qt = Quota::new(total, self.member_ids.len() as u64);
        // S1 never asks for the least-loaded member of the group: no heap upkeep until S2.
        loads.unheap();
        for &t in self.partition_order.iter().rev() {
            if !self.stateful(t) {
                continue;
            }
            stamp += 1;
            holders.clear();
            let active = owner[t as usize];
            for m in [Some(active), warmup_of(t)].into_iter().flatten() {
                if m != NONE {
                    mark[process_of(m)] = stamp;
                    holders.push(m);
                }
            }
            let start = standby.len();
            for _ in 0..replicas {
                let eligible = |m: u32| {
                    mark[process_of(m)] != stamp
                        && qt.below(loads.load[m as usize])
                        && self.conflicts(m, &holders) == 0
                };
                let prev = self.prev_active[t as usize];
                let chosen = if prev != NONE && eligible(prev) {
                    Some(prev)
                } else {
                    self.prev_standby_of(t)
                        .iter()
                        .copied()
                        .filter(|&c| eligible(c))
                        .reduce(|best, c| if loads.less(c, best) { c } else { best })
                };
                let Some(m) = chosen else { break };
                standby.push((t, m));
                loads.add(m);
                mark[process_of(m)] = stamp;
                holders.push(m);
                qt.on_assigned(loads.load[m as usize]);
            }
            s1_start[t as usize] = start as u32;
        }

        // S2: remaining replicas, in (subtopology id, partition) descending order. Only S2 reads
        // the pairs: they are S1's (active process, standby process), collected when S2 has work.
        let s2_tasks = (0..num_tasks).any(|t| {
            self.stateful(t as u32) && s1_of(&standby, &s1_start, t).len() < replicas as usize
        });
        if !s2_tasks {
            return standby;
        }
        let mut pairs = ProcessPairs::new(num_processes, num_tasks);
        for &(t, m) in &standby {
            let active = owner[t as usize];
            if active != NONE {
                pairs.insert(process_of(active), process_of(m));
            }
        }
        for t in (0..num_tasks).rev() {
            if !self.stateful(t as u32) {
                continue;
            }
            let s1 = s1_of(&standby, &s1_start, t);
            let placed = s1.len() as u32;
            if placed >= replicas {
                continue;
            }
            stamp += 1;
            holders.clear();
            let active = owner[t];
            for m in [Some(active), warmup_of(t as u32)].into_iter().flatten() {
                if m != NONE {
                    mark[process_of(m)] = stamp;
                    holders.push(m);
                }
            }
            for &(_, m) in &standby[s1] {
                mark[process_of(m)] = stamp;
                holders.push(m);
            }
            for _ in placed..replicas {
                if holders.len() >= num_processes {
                    break;
                }
                // The first candidate in least-loaded order on distinct racks and tag values
                // whose process is not paired with the active's; failing that within the scan
                // limit, the fewest conflicts, then unpaired, then least loaded.
                let mut best: Option<((usize, bool), u32)> = None;
                let mut seen = 0usize;
                let mut clean = 0usize;
                loads.scan(|_, p, m| {
                    if mark[p as usize] == stamp {
                        return false;
                    }
                    seen += 1;
                    let paired = active != NONE && {
                        let a = process_of(active);
                        pairs.contains(a, p as usize) || pairs.contains(p as usize, a)
                    };
                    let rank = (self.conflicts(m, &holders), paired);
                    if best.is_none_or(|(b, _)| rank < b) {
                        best = Some((rank, m));
                    }
                    clean += usize::from(rank.0 == 0);
                    rank == (0, false) || clean >= PAIR_CANDIDATES || seen >= SCAN_LIMIT
                });
                let Some((_, m)) = best else { break };
                standby.push((t as u32, m));
                loads.add(m);
                mark[process_of(m)] = stamp;
                holders.push(m);
                if active != NONE {
                    pairs.insert(process_of(active), process_of(m));
                }
            }
        }
        standby
    }

    /// Task maps of a member from its tasks in ascending index order, at their final size.
    fn task_map(&self, tasks: &[u32]) -> TaskMap {
        let ids = self
            .shared_ids
            .get_or_init(|| self.sub_ids.iter().map(|&id| Arc::from(id)).collect());
        let mut runs = 0;
        let mut last = NONE;
        for &t in tasks {
            let s = self.task_sub[t as usize];
            runs += usize::from(s != last);
            last = s;
        }
        // Ascending subtopologies, ascending partitions: each run is appended, after the ends.
        let mut run_ids = Vec::with_capacity(runs);
        let mut data = Vec::with_capacity(runs + tasks.len());
        data.resize(runs, 0);
        let mut rest = tasks;
        while let Some(&first) = rest.first() {
            let s = self.task_sub[first as usize] as usize;
            let end = self.sub_offset[s + 1];
            let run = rest.partition_point(|&t| t < end);
            let base = self.sub_offset[s];
            data.extend(rest[..run].iter().map(|&t| (t - base) as i32));
            data[run_ids.len()] = (data.len() - runs) as i32;
            run_ids.push(Arc::clone(&ids[s]));
            rest = &rest[run..];
        }
        TaskMap::from_parts(run_ids, data)
    }

    /// Each member's new tasks in indices, laid out like [`TaskLists`].
    fn member_tasks(&self, placement: &Placement) -> TaskLists {
        let num_members = self.member_ids.len();
        let mut lists = TaskLists::with_members(num_members);

        // Active tasks per member, in task order: a counting sort by owner.
        let mut acc = 0u32;
        for &c in &placement.active_count {
            acc += c;
            lists.offsets[0].push(acc);
        }
        let mut fill = lists.offsets[0].clone();
        lists.tasks[0] = vec![0u32; acc as usize];
        for (t, &m) in placement.active_owner.iter().enumerate() {
            if m != NONE {
                let slot = &mut fill[m as usize];
                lists.tasks[0][*slot as usize] = t as u32;
                *slot += 1;
            }
        }

        // Standby and warm-up tasks per member, in task order.
        for (kind, pairs) in [(1, &placement.standby), (2, &placement.warmup)] {
            let (offsets, tasks) = by_member(num_members, self.num_tasks(), pairs);
            lists.offsets[kind] = offsets;
            lists.tasks[kind] = tasks;
        }
        lists
    }

    /// Member `m`'s target from its task indices.
    fn assignment(&self, lists: &TaskLists, m: usize) -> Assignment {
        Assignment {
            active: self.task_map(lists.of(0, m)),
            standby: self.task_map(lists.of(1, m)),
            warmup: self.task_map(lists.of(2, m)),
        }
    }

    fn output(&self, placement: &Placement) -> BTreeMap<String, Assignment> {
        let lists = self.member_tasks(placement);
        // In member-id order: std's `collect` finds the one sorted run and builds the tree
        // bottom-up, where inserting walked from the root once per member. (Only `assign` builds
        // every target: the coordinator's `compute` and the wasm modules do not reach this.)
        self.member_ids
            .iter()
            .enumerate()
            .map(|(m, id)| ((*id).to_string(), self.assignment(&lists, m)))
            .collect()
    }
}

/// `(task, member)` pairs grouped by member, each member's tasks ascending: CSR offsets (one
/// more than members) and the tasks. A counting sort by member, then each member's few tasks
/// sorted in place, when the pairs are many; a comparison sort when they are few next to the
/// tasks.
fn by_member(num_members: usize, num_tasks: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    if pairs.len().saturating_mul(8) < num_tasks {
        let mut sorted: Vec<(u32, u32)> = pairs.iter().map(|&(t, m)| (m, t)).collect();
        ordered::sort_pairs(&mut sorted);
        let mut offsets = Vec::with_capacity(num_members + 1);
        offsets.push(0);
        let mut rest: &[(u32, u32)] = &sorted;
        for m in 0..num_members as u32 {
            rest = &rest[rest.partition_point(|&(o, _)| o == m)..];
            offsets.push((sorted.len() - rest.len()) as u32);
        }
        return (offsets, sorted.into_iter().map(|(_, t)| t).collect());
    }
    // Reversed: S1 and S2 place in descending orders, so each member's tasks come out nearly
    // ascending and the sort of each run has little to move.
    let (offsets, mut tasks) = group_by_task(num_members, swapped(pairs));
    for m in 0..num_members {
        sort_run(&mut tasks[offsets[m] as usize..offsets[m + 1] as usize]);
    }
    (offsets, tasks)
}

/// The pairs, last first, with their two numbers swapped, lazily.
fn swapped(pairs: &[(u32, u32)]) -> impl Iterator<Item = (u32, u32)> + Clone + '_ {
    pairs.iter().rev().map(|&(a, b)| (b, a))
}

/// Sorts one member's tasks: insertion for the few a member holds, heapsort beyond (in place,
/// O(n log n), and a few lines where std's sort would bring its own copy of a sort).
fn sort_run(run: &mut [u32]) {
    if run.len() <= 24 {
        for i in 1..run.len() {
            let x = run[i];
            let mut j = i;
            while j > 0 && run[j - 1] > x {
                run[j] = run[j - 1];
                j -= 1;
            }
            run[j] = x;
        }
        return;
    }
    let sift = |run: &mut [u32], mut i: usize, len: usize| loop {
        let mut big = i;
        for child in [2 * i + 1, 2 * i + 2] {
            if child < len && run[child] > run[big] {
                big = child;
            }
        }
        if big == i {
            return;
        }
        run.swap(i, big);
        i = big;
    };
    for i in (0..run.len() / 2).rev() {
        sift(run, i, run.len());
    }
    for end in (1..run.len()).rev() {
        run.swap(0, end);
        sift(run, 0, end);
    }
}

/// Whether two short task lists are equal: a branch-free fold, where a slice comparison calls
/// `a.cmp(b)`, settled on the first byte where it can be: subtopology ids are short (Kafka
/// Streams numbers them) and mostly differ there, and a `memcmp` call per map entry of every
/// previous target was a tenth of a computation.
#[inline]
fn id_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        (Some(_), Some(_)) if a.len() > 1 && b.len() > 1 => a[1..].cmp(&b[1..]),
        // Equal first bytes and one of them alone, or an empty id: the shorter comes first.
        _ => a.len().cmp(&b.len()),
    }
}

/// `memcmp` once per list (most lists hold a few tasks).
fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Pairs `(task, member)` grouped by task (stable, so members keep their order): CSR offsets
/// (one more than tasks) and the members.
fn group_by_task<V: Copy + Default, I>(num_tasks: usize, pairs: I) -> (Vec<u32>, Vec<V>)
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
fn partition_order(sub_tasks: &[u32], sub_offset: &[u32]) -> Vec<u32> {
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

/// The dynamic quota of 2.10: `ceil(remaining / members)`, and each member that reaches it
/// takes its share out.
struct Quota {
    remaining: u64,
    members: u64,
    quota: u64,
}

impl Quota {
    fn new(total: u64, members: u64) -> Self {
        let mut q = Quota {
            remaining: total,
            members,
            quota: 0,
        };
        q.recompute();
        q
    }

    fn recompute(&mut self) {
        self.quota = if self.members == 0 {
            0
        } else {
            self.remaining.div_ceil(self.members)
        };
    }

    fn below(&self, count: u32) -> bool {
        u64::from(count) < self.quota
    }

    /// After an assignment that brought a member's count to `count`.
    fn on_assigned(&mut self, count: u32) {
        if u64::from(count) == self.quota {
            self.remaining = self.remaining.saturating_sub(self.quota);
            self.members = self.members.saturating_sub(1);
            self.recompute();
        }
    }
}

/// Process loads as integers in the order of the fractions `load / capacity` (2.10's process
/// load), so that a member's place in the group order is one packed integer ([`Loads::key`]).
#[derive(Clone, Debug)]
enum LoadScale {
    /// `load * factor[p]`, where `factor[p]` is the capacities' least common multiple over
    /// process `p`'s capacity: exact.
    Multiple(Vec<u64>),
    /// `load * c2 / capacity` rounded down, where `c2` is the largest capacity squared: two
    /// different fractions whose denominators are at most `c` differ by at least `1 / c²`, so
    /// scaled by `c²` they are at least 1 apart and rounding keeps their order; equal fractions
    /// stay equal. One division a key, for groups whose capacities have a large multiple.
    Rounded { c2: u64, capacity: Vec<u64> },
}

impl LoadScale {
    /// The scale for these capacities when loads up to `max_load` fit in 64 bits scaled.
    fn new(capacity: &[u32], max_load: u64) -> Option<Self> {
        let largest = u64::from(capacity.iter().copied().max().unwrap_or(1).max(1));
        let c2 = largest * largest;
        let fits = |factor: u64| u128::from(max_load) * u128::from(factor) <= u128::from(u64::MAX);
        let mut multiple = 1u64;
        for &c in capacity {
            let c = u64::from(c.max(1));
            let (mut a, mut b) = (multiple, c);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            multiple = match (multiple / a).checked_mul(c) {
                Some(m) if m <= c2 => m,
                _ => {
                    multiple = 0;
                    break;
                }
            };
        }
        if multiple != 0 && fits(multiple) {
            let factors = capacity.iter().map(|&c| multiple / u64::from(c.max(1)));
            return Some(LoadScale::Multiple(factors.collect()));
        }
        let capacity = capacity.iter().map(|&c| u64::from(c.max(1))).collect();
        fits(c2).then_some(LoadScale::Rounded { c2, capacity })
    }

    /// Process `p`'s load, scaled.
    #[inline]
    fn scaled(&self, p: usize, load: u64) -> u64 {
        match self {
            LoadScale::Multiple(factor) => load * factor[p],
            // `load * c2` fits: `new` checked it for the largest load.
            LoadScale::Rounded { c2, capacity } => load * c2 / capacity[p],
        }
    }
}

/// A member's place in the group's least-loaded order, packed so that keys compare as integers:
/// member load (high 32 bits), its process's scaled load (64 bits), member index (low 32 bits,
/// which makes every key distinct).
type Key = u128;

/// Loads and the least-loaded index.
///
/// Two levels of binary min-heaps kept exact at all times: per process, its members by
/// (member load, member id), stored as one flat array of per-process segments; over the
/// processes, each process by its best member's key. A placement re-keys its member and its
/// process in place (a sift each), so the top of the process heap is always the least-loaded
/// member of the group, and the members in least-loaded order can be enumerated without
/// changing either heap.
struct Loads<'g> {
    member_process: &'g [u32],
    capacity: &'g [u32],
    scale: &'g LoadScale,
    /// Active + standby (+ warm-up) per member.
    load: Vec<u32>,
    active: Vec<u32>,
    /// Active + standby (+ warm-up) per process.
    process_load: Vec<u64>,
    /// Process `p`'s members are the heap `member_heap[member_start[p]..member_start[p + 1]]`.
    member_heap: Vec<u32>,
    member_start: Vec<u32>,
    /// Position of each member in `member_heap`.
    member_pos: Vec<u32>,
    /// Each process keyed by its best member.
    process_heap: Vec<Key>,
    process_pos: Vec<u32>,
    /// Scratch space of [`Loads::scan`].
    frontier: BinaryHeap<Reverse<(Key, u32)>>,
    /// Whether both heaps are exact. Phases that never ask for the least-loaded member (A1, A2)
    /// let them go stale and only count; the next question rebuilds them in O(members).
    heaped: bool,
}

impl<'g> Loads<'g> {
    fn new(member_process: &'g [u32], capacity: &'g [u32], scale: &'g LoadScale) -> Self {
        let num_members = member_process.len();
        let mut member_start = Vec::with_capacity(capacity.len() + 1);
        let mut acc = 0u32;
        for &c in capacity {
            member_start.push(acc);
            acc += c;
        }
        member_start.push(acc);
        // Members in id order within each segment: with equal loads that is already a heap.
        let mut fill = member_start.clone();
        let mut member_heap = vec![0u32; num_members];
        let mut member_pos = vec![0u32; num_members];
        for (m, &p) in member_process.iter().enumerate() {
            let slot = &mut fill[p as usize];
            member_heap[*slot as usize] = m as u32;
            member_pos[m] = *slot;
            *slot += 1;
        }
        let mut loads = Loads {
            member_process,
            capacity,
            scale,
            load: vec![0; num_members],
            active: vec![0; num_members],
            process_load: vec![0; capacity.len()],
            member_heap,
            member_start,
            member_pos,
            process_heap: Vec::with_capacity(capacity.len()),
            process_pos: (0..capacity.len() as u32).collect(),
            frontier: BinaryHeap::new(),
            heaped: false,
        };
        loads.heapify();
        loads
    }

    /// Stops keeping the heaps until the next least-loaded question ([`Loads::heapify`]).
    fn unheap(&mut self) {
        self.heaped = false;
    }

    /// Rebuilds both heaps from the loads (bottom-up, O(members + processes)), if stale.
    fn heapify(&mut self) {
        if self.heaped {
            return;
        }
        for p in 0..self.capacity.len() {
            let len = (self.member_start[p + 1] - self.member_start[p]) as usize;
            for i in (0..len / 2).rev() {
                self.member_sift_down(p, i);
            }
        }
        self.process_heap.clear();
        for p in 0..self.capacity.len() as u32 {
            let key = self.process_key(p);
            self.process_heap.push(key);
        }
        for i in 0..self.process_heap.len() {
            let p = self.process_of(self.process_heap[i]);
            self.process_pos[p] = i as u32;
        }
        for i in (0..self.process_heap.len() / 2).rev() {
            self.process_sift_down(i);
        }
        self.heaped = true;
    }

    fn add(&mut self, member: u32) {
        self.load[member as usize] += 1;
        self.process_load[self.member_process[member as usize] as usize] += 1;
        self.rekey(member, false);
    }

    fn add_active(&mut self, member: u32) {
        self.active[member as usize] += 1;
        self.add(member);
    }

    fn remove_active(&mut self, member: u32) {
        let m = member as usize;
        self.active[m] = self.active[m].saturating_sub(1);
        self.load[m] = self.load[m].saturating_sub(1);
        let p = self.member_process[m] as usize;
        self.process_load[p] = self.process_load[p].saturating_sub(1);
        self.rekey(member, true);
    }

    /// Whether member `a` is less loaded than member `b` (2.10's order).
    fn less(&self, a: u32, b: u32) -> bool {
        self.key(a) < self.key(b)
    }

    /// Member `m`'s key: (member load, process load / capacity, member index), packed.
    #[inline]
    fn key(&self, m: u32) -> Key {
        let p = self.member_process[m as usize] as usize;
        let process = self.scale.scaled(p, self.process_load[p]);
        (Key::from(self.load[m as usize]) << 96) | (Key::from(process) << 32) | Key::from(m)
    }

    /// The member whose key it is.
    #[inline]
    fn member_of(key: Key) -> u32 {
        key as u32
    }

    /// The process of the member whose key it is.
    #[inline]
    fn process_of(&self, key: Key) -> usize {
        self.member_process[Self::member_of(key) as usize] as usize
    }

    /// The key of process `p`: its best member's.
    fn process_key(&self, p: u32) -> Key {
        self.key(self.member_heap[self.member_start[p as usize] as usize])
    }

    /// After `member`'s load changed: re-keys it in its process's heap and the process in the
    /// process heap. Inlined: most calls come while the heaps are not kept and do nothing.
    ///
    /// A load that fell (`fell`) lowers the member's key and its process's (both loads in them
    /// fell), so both only move up; a load that rose moves both only down (the process's best
    /// member is then the same or one after it in member order, at a higher process load).
    #[inline]
    fn rekey(&mut self, member: u32, fell: bool) {
        if self.heaped {
            self.rekey_heaped(member, fell);
        }
    }

    fn rekey_heaped(&mut self, member: u32, fell: bool) {
        let p = self.member_process[member as usize] as usize;
        let base = self.member_start[p] as usize;
        let local = self.member_pos[member as usize] as usize - base;
        let i = self.process_pos[p] as usize;
        if fell {
            self.member_sift_up(p, local);
            self.process_heap[i] = self.process_key(p as u32);
            self.process_sift_up(i);
        } else {
            self.member_sift_down(p, local);
            self.process_heap[i] = self.process_key(p as u32);
            self.process_sift_down(i);
        }
    }

    /// A member's key within its process: (member load, member index).
    #[inline]
    fn member_key(&self, m: u32) -> u64 {
        (u64::from(self.load[m as usize]) << 32) | u64::from(m)
    }

    /// Sifts entry `i` of process `p`'s member heap up; its final position. Like the sifts
    /// below, it moves a hole rather than swapping: each level writes one entry and its
    /// position, and the moving entry is written once at the end.
    fn member_sift_up(&mut self, p: usize, mut i: usize) -> usize {
        let base = self.member_start[p] as usize;
        let m = self.member_heap[base + i];
        let key = self.member_key(m);
        while i > 0 {
            let parent = (i - 1) / 2;
            let above = self.member_heap[base + parent];
            if key >= self.member_key(above) {
                break;
            }
            self.member_heap[base + i] = above;
            self.member_pos[above as usize] = (base + i) as u32;
            i = parent;
        }
        self.member_heap[base + i] = m;
        self.member_pos[m as usize] = (base + i) as u32;
        i
    }

    fn member_sift_down(&mut self, p: usize, mut i: usize) {
        let base = self.member_start[p] as usize;
        let len = (self.member_start[p + 1] as usize) - base;
        let m = self.member_heap[base + i];
        let key = self.member_key(m);
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let mut child = left;
            let mut child_key = self.member_key(self.member_heap[base + left]);
            if left + 1 < len {
                let right_key = self.member_key(self.member_heap[base + left + 1]);
                if right_key < child_key {
                    child = left + 1;
                    child_key = right_key;
                }
            }
            if key <= child_key {
                break;
            }
            let below = self.member_heap[base + child];
            self.member_heap[base + i] = below;
            self.member_pos[below as usize] = (base + i) as u32;
            i = child;
        }
        self.member_heap[base + i] = m;
        self.member_pos[m as usize] = (base + i) as u32;
    }

    /// Sifts entry `i` of the process heap up; its final position.
    fn process_sift_up(&mut self, mut i: usize) -> usize {
        let key = self.process_heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let above = self.process_heap[parent];
            if key >= above {
                break;
            }
            self.process_heap[i] = above;
            let q = self.process_of(above);
            self.process_pos[q] = i as u32;
            i = parent;
        }
        self.process_heap[i] = key;
        let q = self.process_of(key);
        self.process_pos[q] = i as u32;
        i
    }

    fn process_sift_down(&mut self, mut i: usize) {
        let len = self.process_heap.len();
        let key = self.process_heap[i];
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let mut child = left;
            let mut below = self.process_heap[left];
            if left + 1 < len && self.process_heap[left + 1] < below {
                child = left + 1;
                below = self.process_heap[child];
            }
            if key <= below {
                break;
            }
            self.process_heap[i] = below;
            let q = self.process_of(below);
            self.process_pos[q] = i as u32;
            i = child;
        }
        self.process_heap[i] = key;
        let q = self.process_of(key);
        self.process_pos[q] = i as u32;
    }

    /// The least-loaded member of the group.
    fn least_loaded(&mut self) -> Option<u32> {
        self.heapify();
        Some(Self::member_of(*self.process_heap.first()?))
    }

    /// The processes' best members in least-loaded order, lazily: `visit` is called with each
    /// process and its best member until it returns `true` (the scan stops there) or every
    /// process was visited. Neither heap changes; the cost is O(k log k) for k visits.
    fn scan(&mut self, mut visit: impl FnMut(&Self, u32, u32) -> bool) {
        self.heapify();
        let mut frontier = std::mem::take(&mut self.frontier);
        frontier.clear();
        if let Some(&key) = self.process_heap.first() {
            frontier.push(Reverse((key, 0)));
        }
        while let Some(Reverse((key, i))) = frontier.pop() {
            if visit(self, self.process_of(key) as u32, Self::member_of(key)) {
                break;
            }
            for child in [2 * i + 1, 2 * i + 2] {
                if let Some(&key) = self.process_heap.get(child as usize) {
                    frontier.push(Reverse((key, child)));
                }
            }
        }
        self.frontier = frontier;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assignor::{MemberSpec, SubtopologySpec};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Scaled process loads order as the fractions `load / capacity` do, in both scales.
    #[test]
    fn scaled_loads_order_as_fractions() {
        // Equal capacities, a small common multiple, and capacities whose multiple exceeds the
        // largest squared (the rounded scale).
        let groups: [&[u32]; 4] = [&[4, 4, 4], &[1, 2, 3, 4, 6], &[7, 11, 13, 17, 19, 23], &[1]];
        for capacity in groups {
            let scale = LoadScale::new(capacity, 200).expect("fits");
            let rounded = matches!(scale, LoadScale::Rounded { .. });
            assert_eq!(rounded, capacity.len() == 6, "{capacity:?}");
            for (p, &cp) in capacity.iter().enumerate() {
                for (q, &cq) in capacity.iter().enumerate() {
                    for a in 0..60u64 {
                        for b in 0..60u64 {
                            let exact = (a * u64::from(cq)).cmp(&(b * u64::from(cp)));
                            let scaled = scale.scaled(p, a).cmp(&scale.scaled(q, b));
                            assert_eq!(scaled, exact, "{a}/{cp} vs {b}/{cq} in {capacity:?}");
                        }
                    }
                }
            }
        }
        // Loads that cannot be scaled in 64 bits are refused, not wrapped.
        assert!(LoadScale::new(&[1 << 31, 3], u64::MAX / 2).is_none());
    }

    /// Both forms of the process pairs answer the same.
    #[test]
    fn process_pairs_bits_and_hash_agree() {
        let mut bits = ProcessPairs::new(37, 10_000);
        assert!(matches!(bits, ProcessPairs::Bits { .. }));
        // Ten billion pairs of processes for ten tasks: hashed.
        let mut hashed = ProcessPairs::new(100_000, 10);
        assert!(matches!(hashed, ProcessPairs::Hashed(_)));
        let mut x = 7u64;
        for _ in 0..300 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let (p, q) = ((x >> 33) as usize % 37, (x >> 13) as usize % 37);
            bits.insert(p, q);
            hashed.insert(p, q);
        }
        let mut held = 0;
        for p in 0..37 {
            for q in 0..37 {
                assert_eq!(bits.contains(p, q), hashed.contains(p, q), "({p}, {q})");
                held += usize::from(bits.contains(p, q));
            }
        }
        assert!(held > 200 && !bits.contains(1_000, 0));
    }

    #[test]
    fn id_cmp_orders_as_str_does() {
        let ids = [
            "",
            "0",
            "00",
            "01",
            "1",
            "10",
            "11",
            "2",
            "a",
            "ab",
            "abc",
            "b",
            "é",
            "\u{0}",
            "\u{0}a",
            "subtopology-1",
            "subtopology-10",
            "subtopology-2",
        ];
        for a in ids {
            for b in ids {
                assert_eq!(id_cmp(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    fn member(
        id: &str,
        process: &str,
        active: &[(&str, &[i32])],
        standby: &[(&str, &[i32])],
    ) -> MemberSpec<'static> {
        let map = |e: &[(&str, &[i32])]| -> TaskMap {
            e.iter()
                .map(|(s, p)| (s.to_string(), p.iter().copied()))
                .collect()
        };
        MemberSpec {
            member_id: id.to_string().into(),
            process_id: process.to_string().into(),
            previous: Assignment {
                active: map(active),
                standby: map(standby),
                warmup: TaskMap::new(),
            }
            .into(),
            ..Default::default()
        }
    }

    fn sub(id: &str, n: i32, stateful: bool) -> SubtopologySpec {
        SubtopologySpec {
            subtopology_id: id.into(),
            num_tasks: n,
            stateful,
        }
    }

    fn assign(
        members: &[MemberSpec],
        subs: &[SubtopologySpec],
        r: i32,
    ) -> BTreeMap<String, Assignment> {
        StickyAssignor
            .assign(&GroupSpec::new(members, subs, r))
            .unwrap()
    }

    fn tasks(a: &TaskMap) -> Vec<(String, i32)> {
        a.iter()
            .flat_map(|(s, ps)| ps.iter().map(move |&p| (s.to_string(), p)))
            .collect()
    }

    #[test]
    fn lent_previous_targets_assign_as_the_members_own() {
        let members = vec![
            member("a", "p1", &[("0", &[0, 1, 2])], &[("0", &[3])]),
            member("b", "p2", &[("0", &[3])], &[("0", &[0])]),
            member("c", "p3", &[], &[]),
        ];
        let subs = [sub("0", 4, true)];
        let own = assign(&members, &subs, 1);
        let targets: crate::tasks::TargetMap = members
            .iter()
            .filter(|m| m.member_id != "c")
            .map(|m| (m.member_id.to_string(), m.previous.clone().into_owned()))
            .collect();
        let bare: Vec<MemberSpec> = members
            .iter()
            .map(|m| MemberSpec {
                previous: Assignment::default().into(),
                ..m.clone()
            })
            .collect();
        let lent = StickyAssignor
            .assign(&GroupSpec {
                previous_targets: Some(&targets),
                ..GroupSpec::new(&bare, &subs, 1)
            })
            .unwrap();
        assert_eq!(own, lent);
        assert_ne!(
            own,
            assign(&bare, &subs, 1),
            "the previous targets matter here"
        );
    }

    #[test]
    fn assignor_name_is_sticky() {
        assert_eq!(StickyAssignor.name(), "sticky");
    }

    #[test]
    fn assignor_worked_example_3_11() {
        let members = [
            member("A", "p1", &[("0", &[0, 1])], &[]),
            member("B", "p2", &[], &[]),
        ];
        let out = assign(&members, &[sub("0", 2, false)], 0);
        assert_eq!(tasks(&out["A"].active), vec![("0".into(), 0)]);
        assert_eq!(tasks(&out["B"].active), vec![("0".into(), 1)]);
        assert!(out["A"].standby.is_empty() && out["B"].standby.is_empty());
    }

    #[test]
    fn assignor_no_members_gives_empty_map() {
        assert!(assign(&[], &[sub("0", 4, true)], 1).is_empty());
    }

    #[test]
    fn assignor_fresh_group_fills_in_subtopology_order() {
        let members = [member("a", "p1", &[], &[]), member("b", "p2", &[], &[])];
        let out = assign(&members, &[sub("0", 2, false), sub("1", 1, false)], 0);
        // (0,0) -> a, (0,1) -> b, (1,0) -> a (both at 1; a's process as loaded as b's; id).
        assert_eq!(
            tasks(&out["a"].active),
            vec![("0".into(), 0), ("1".into(), 0)]
        );
        assert_eq!(tasks(&out["b"].active), vec![("0".into(), 1)]);
    }

    #[test]
    fn assignor_process_load_breaks_member_ties() {
        // Tasks 0 and 1 stay (quota 1). Task 2: b and z both have load 0 and their processes
        // 1/2 each, so id b wins; task 3 goes to z.
        let members = [
            member("a", "p1", &[("0", &[0])], &[]),
            member("b", "p1", &[], &[]),
            member("c", "p2", &[("0", &[1])], &[]),
            member("z", "p2", &[], &[]),
        ];
        let out = assign(&members, &[sub("0", 4, false)], 0);
        assert_eq!(tasks(&out["b"].active), vec![("0".into(), 2)]);
        assert_eq!(tasks(&out["z"].active), vec![("0".into(), 3)]);

        // Unequal capacities: p1 has a and b, p2 only c; quota 2. Task 2 goes to b (load 0).
        // Task 3: a and c tie on member load 1 and on process load (2/2 = 1/1), so id a wins.
        let members = [
            member("a", "p1", &[("0", &[0])], &[]),
            member("b", "p1", &[], &[]),
            member("c", "p2", &[("0", &[1])], &[]),
        ];
        let out = assign(&members, &[sub("0", 4, false)], 0);
        assert_eq!(
            tasks(&out["a"].active),
            vec![("0".into(), 0), ("0".into(), 3)]
        );
        assert_eq!(tasks(&out["b"].active), vec![("0".into(), 2)]);
        assert_eq!(tasks(&out["c"].active), vec![("0".into(), 1)]);

        // A less loaded process wins a member-load tie: p2 (c alone, 1/1) against p1 (a and b,
        // 3/2) for the last task.
        let members = [
            member("a", "p1", &[("0", &[0, 1])], &[]),
            member("b", "p1", &[("0", &[2])], &[]),
            member("c", "p2", &[("0", &[3])], &[]),
        ];
        let out = assign(&members, &[sub("0", 5, false)], 0);
        assert_eq!(
            tasks(&out["c"].active),
            vec![("0".into(), 3), ("0".into(), 4)]
        );
    }

    #[test]
    fn assignor_standby_is_promoted_before_a_fresh_member() {
        // The owner of (0,0) left; c had it as standby and is below quota 2, b is fresh and
        // less loaded. The standby wins; b gets the unowned tasks.
        let members = [
            member("b", "p2", &[], &[]),
            member("c", "p3", &[("0", &[1])], &[("0", &[0])]),
        ];
        let out = assign(&members, &[sub("0", 4, true)], 0);
        assert_eq!(
            tasks(&out["c"].active),
            vec![("0".into(), 0), ("0".into(), 1)]
        );
        assert_eq!(
            tasks(&out["b"].active),
            vec![("0".into(), 2), ("0".into(), 3)]
        );
    }

    #[test]
    fn assignor_standbys_are_sticky() {
        let members = [
            member("a", "p1", &[("0", &[0])], &[("0", &[1])]),
            member("b", "p2", &[("0", &[1])], &[("0", &[0])]),
        ];
        let out = assign(&members, &[sub("0", 2, true)], 1);
        assert_eq!(tasks(&out["a"].active), vec![("0".into(), 0)]);
        assert_eq!(tasks(&out["b"].active), vec![("0".into(), 1)]);
        assert_eq!(tasks(&out["a"].standby), vec![("0".into(), 1)]);
        assert_eq!(tasks(&out["b"].standby), vec![("0".into(), 0)]);
    }

    #[test]
    fn assignor_total_quota_moves_a_standby_to_an_idle_member() {
        // qt = ceil((2 + 2) / 3) = 2. S1, (0,1) first: a's standby stays and a reaches 2, so
        // qt becomes ceil(2 / 2) = 1. (0,0): b (total 1) is no longer below qt; S2 gives the
        // replica to the least-loaded member whose process does not hold it, c.
        let members = [
            member("a", "p1", &[("0", &[0])], &[("0", &[1])]),
            member("b", "p2", &[("0", &[1])], &[("0", &[0])]),
            member("c", "p3", &[], &[]),
        ];
        let out = assign(&members, &[sub("0", 2, true)], 1);
        assert_eq!(tasks(&out["a"].active), vec![("0".into(), 0)]);
        assert_eq!(tasks(&out["b"].active), vec![("0".into(), 1)]);
        assert_eq!(tasks(&out["a"].standby), vec![("0".into(), 1)]);
        assert!(out["b"].standby.is_empty());
        assert_eq!(tasks(&out["c"].standby), vec![("0".into(), 0)]);
    }

    #[test]
    fn assignor_single_process_gets_no_standbys() {
        let members = [member("a", "p", &[], &[]), member("b", "p", &[], &[])];
        let out = assign(&members, &[sub("0", 3, true)], 2);
        assert!(out
            .values()
            .all(|a| a.standby.is_empty() && a.warmup.is_empty()));
        assert_eq!(out["a"].active["0"].len() + out["b"].active["0"].len(), 3);
    }

    #[test]
    fn assignor_zero_task_and_stateless_subtopologies() {
        let members = [member("a", "p1", &[], &[]), member("b", "p2", &[], &[])];
        let out = assign(
            &members,
            &[sub("0", 0, true), sub("1", 1, false), sub("2", -3, true)],
            1,
        );
        assert_eq!(out.len(), 2);
        assert_eq!(tasks(&out["a"].active), vec![("1".into(), 0)]);
        assert!(out["b"].is_empty());
        assert!(out["a"].standby.is_empty());
    }

    #[test]
    fn assignor_more_members_than_tasks() {
        let members: Vec<MemberSpec> = (0..5)
            .map(|i| member(&format!("m{i}"), &format!("p{i}"), &[], &[]))
            .collect();
        let out = assign(&members, &[sub("0", 2, true)], 1);
        assert_eq!(out.len(), 5);
        let active: usize = out.values().map(|a| crate::tasks::count(&a.active)).sum();
        let standby: usize = out.values().map(|a| crate::tasks::count(&a.standby)).sum();
        assert_eq!((active, standby), (2, 2));
        assert!(out
            .values()
            .all(|a| crate::tasks::count(&a.active) + crate::tasks::count(&a.standby) <= 1));
    }

    #[test]
    fn assignor_ignores_unknown_previous_tasks_and_member_order() {
        let members = [
            member("b", "p2", &[("0", &[5, -1]), ("9", &[0])], &[]),
            member("a", "p1", &[("0", &[1])], &[("x", &[0])]),
        ];
        let subs = [sub("1", 1, false), sub("0", 2, false)];
        let out = assign(&members, &subs, 0);
        let mut sorted = members.to_vec();
        sorted.sort_by(|x, y| x.member_id.cmp(&y.member_id));
        let mut subs_sorted = subs.to_vec();
        subs_sorted.sort_by(|x, y| x.subtopology_id.cmp(&y.subtopology_id));
        assert_eq!(out, assign(&sorted, &subs_sorted, 0));
        assert_eq!(
            tasks(&out["a"].active),
            vec![("0".into(), 1), ("1".into(), 0)]
        );
        assert_eq!(tasks(&out["b"].active), vec![("0".into(), 0)]);
    }

    #[test]
    fn assignor_conflicting_previous_owners_smallest_id_wins() {
        let members = [
            member("a", "p1", &[("0", &[0])], &[]),
            member("b", "p2", &[("0", &[0])], &[]),
        ];
        let out = assign(&members, &[sub("0", 1, false)], 0);
        assert_eq!(tasks(&out["a"].active), vec![("0".into(), 0)]);
    }

    #[test]
    fn assignor_rejects_duplicate_ids() {
        let members = [member("a", "p1", &[], &[]), member("a", "p2", &[], &[])];
        let spec = GroupSpec::new(&members, &[], 0);
        assert!(StickyAssignor.assign(&spec).is_err());
        let members = [member("a", "p1", &[], &[])];
        let subs = [sub("0", 1, false), sub("0", 2, false)];
        let spec = GroupSpec::new(&members, &subs, 0);
        assert!(StickyAssignor.assign(&spec).is_err());
    }

    #[test]
    fn assignor_no_two_hosts_mirror_each_other() {
        // Kafka's shouldNotHaveSameAssignmentOnAnyTwoHosts: 4 processes, 4 stateful tasks.
        let members: Vec<MemberSpec> = (1..=4)
            .map(|i| member(&format!("m{i}"), &format!("p{i}"), &[], &[]))
            .collect();
        let out = assign(&members, &[sub("0", 4, true)], 1);
        for (a, x) in &out {
            for (b, y) in &out {
                if a < b {
                    let mirrored = x.active == y.standby && x.standby == y.active;
                    assert!(!mirrored, "{a} and {b} mirror each other: {out:?}");
                }
            }
        }
    }

    #[test]
    fn assignor_standbys_go_to_another_rack_and_warmups_wait_for_lag() {
        let mut members = vec![
            member("a", "p1", &[("0", &[0, 1])], &[]),
            member("b", "p2", &[], &[]),
            member("c", "p3", &[], &[]),
        ];
        members[0].rack_id = Some("r1".into());
        members[1].rack_id = Some("r1".into());
        members[2].rack_id = Some("r2".into());
        members[0].task_offsets = vec![("0".into(), 0, -2), ("0".into(), 1, -2)];
        members[0].task_end_offsets = vec![("0".into(), 0, 500), ("0".into(), 1, 500)];
        let out = StickyAssignor
            .assign(&GroupSpec {
                num_warmup_replicas: 1,
                ..GroupSpec::new(&members, &[sub("0", 2, true)], 1)
            })
            .unwrap();
        // Balance would move one task to b; b is not caught up, so a keeps it and b warms up.
        assert_eq!(
            tasks(&out["a"].active),
            vec![("0".into(), 0), ("0".into(), 1)]
        );
        assert_eq!(out["b"].warmup.count(), 1);
        // Standbys of a's tasks (rack r1) go to rack r2 where the warm-up does not block it.
        assert!(!tasks(&out["c"].standby).is_empty());
        // A caught-up b gets the task and no warm-up.
        members[1].task_offsets = vec![("0".into(), 0, 450), ("0".into(), 1, 450)];
        let out = StickyAssignor
            .assign(&GroupSpec::new(&members, &[sub("0", 2, true)], 1))
            .unwrap();
        assert_eq!(crate::tasks::count(&out["b"].active), 1);
        assert!(out.values().all(|a| a.warmup.is_empty()));
    }

    #[test]
    fn assignor_partition_order_is_partition_then_subtopology() {
        let subs = [3u32, 1, 2];
        let offsets = [0u32, 3, 4, 6];
        // (0,s0)=0 (0,s1)=3 (0,s2)=4 (1,s0)=1 (1,s2)=5 (2,s0)=2
        assert_eq!(partition_order(&subs, &offsets), vec![0, 3, 4, 1, 5, 2]);
    }
}

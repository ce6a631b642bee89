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
//!
//! The phases live one file each over a shared placement core: `group` interns the spec
//! (members, processes, tasks, previous targets, lags, rack and tag dimensions), `loads` keeps
//! member and process loads with the least-loaded index and the quotas, `active` places the
//! active tasks (A1-A3), `warmups` the lag-aware moves and warm-ups (L), `standbys` the
//! standbys (S1, S2), and `output` turns a placement into targets. `docs/assignor.md` states
//! each step.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use super::GroupSpec;
use crate::tasks::Assignment;

mod active;
mod group;
mod loads;
mod output;
mod standbys;
mod warmups;

#[cfg(test)]
mod tests;

use group::{same, Group, TaskLists};

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

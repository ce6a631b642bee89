//! A placement as targets: each member's task maps, built once at their final size.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::group::{group_by_task, Group, TaskLists};
use super::{Placement, NONE};
use crate::ordered;
use crate::tasks::{Assignment, TaskMap};

impl Group<'_> {
    /// Task maps of a member from its tasks in ascending index order, at their final size.
    pub(super) fn task_map(&self, tasks: &[u32]) -> TaskMap {
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
    pub(super) fn member_tasks(&self, placement: &Placement) -> TaskLists {
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
    pub(super) fn assignment(&self, lists: &TaskLists, m: usize) -> Assignment {
        Assignment {
            active: self.task_map(lists.of(0, m)),
            standby: self.task_map(lists.of(1, m)),
            warmup: self.task_map(lists.of(2, m)),
        }
    }

    pub(super) fn output(&self, placement: &Placement) -> BTreeMap<String, Assignment> {
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
pub(super) fn by_member(
    num_members: usize,
    num_tasks: usize,
    pairs: &[(u32, u32)],
) -> (Vec<u32>, Vec<u32>) {
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
pub(super) fn swapped(pairs: &[(u32, u32)]) -> impl Iterator<Item = (u32, u32)> + Clone + '_ {
    pairs.iter().rev().map(|&(a, b)| (b, a))
}

/// Sorts one member's tasks: insertion for the few a member holds, heapsort beyond (in place,
/// O(n log n), and a few lines where std's sort would bring its own copy of a sort).
pub(super) fn sort_run(run: &mut [u32]) {
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

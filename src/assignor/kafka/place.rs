//! Kafka's `assignActive` and `assignStandby`, step by step, on the [`State`].

use std::cmp::Ordering;

use super::input::{tasks_per_member, State};
use super::KafkaRelease;
use crate::java::hash::compare_strings;
use crate::java::priority_queue::JavaPriorityQueue;
use crate::ordered::{sort_by, sort_indices};

impl State<'_> {
    fn by_load(&self) -> impl Fn(&usize, &usize) -> Ordering + '_ {
        move |a, b| {
            self.processes[*a]
                .load()
                .total_cmp(&self.processes[*b].load())
        }
    }

    /// Orders tasks by (partition, subtopology).
    fn partition_order(&self, a: usize, b: usize) -> Ordering {
        self.task_partition[a]
            .cmp(&self.task_partition[b])
            .then_with(|| {
                compare_strings(
                    self.sub_ids[self.task_sub[a]],
                    self.sub_ids[self.task_sub[b]],
                )
            })
    }

    /// Orders tasks by (subtopology, partition).
    fn subtopology_order(&self, a: usize, b: usize) -> Ordering {
        compare_strings(
            self.sub_ids[self.task_sub[a]],
            self.sub_ids[self.task_sub[b]],
        )
        .then_with(|| self.task_partition[a].cmp(&self.task_partition[b]))
    }

    fn maybe_update_active_quota(&mut self, n: i32) {
        if n == self.active_tasks_per_member {
            self.members_with_active_capacity = self.members_with_active_capacity.wrapping_sub(1);
            self.total_active_tasks = self.total_active_tasks.wrapping_sub(n);
            self.active_tasks_per_member =
                tasks_per_member(self.total_active_tasks, self.members_with_active_capacity);
        }
    }

    fn maybe_update_total_quota(&mut self, n: i32) {
        if n == self.total_tasks_per_member {
            self.members_with_capacity = self.members_with_capacity.wrapping_sub(1);
            self.total_tasks = self.total_tasks.wrapping_sub(n);
            self.total_tasks_per_member =
                tasks_per_member(self.total_tasks, self.members_with_capacity);
        }
    }

    /// `addTask` to member `m` of its process.
    fn add_task(&mut self, m: usize, t: usize, active: bool) -> i32 {
        let p = self.member_process[m];
        let n = self.processes[p].add_task(&mut self.counts, m, t);
        if active {
            self.active[m].push(t);
        } else {
            self.standby[m].push(t);
        }
        n
    }

    /// `addTaskToLeastLoadedMember` of process `p`: the new count, `None` without members.
    fn add_to_least_loaded(&mut self, p: usize, t: usize, active: bool) -> Option<i32> {
        let (m, n) = self.processes[p].add_to_least_loaded(&mut self.counts, t)?;
        if active {
            self.active[m].push(t);
        } else {
            self.standby[m].push(t);
        }
        Some(n)
    }

    /// `findPrevMemberWithLeastLoad` over the previous owners of task `t`; `standby` when the
    /// member is to take it as a standby (its process must not hold it yet).
    fn prev_member_with_least_load(&self, t: usize, standby: bool) -> Option<usize> {
        let members = &self.prev_standby[t];
        let load = |m: usize| self.processes[self.member_process[m]].load();
        let holds = |m: usize| self.processes[self.member_process[m]].has_task(t);
        match self.release {
            KafkaRelease::V4_2 | KafkaRelease::V4_3 => {
                let &first = members.first()?;
                let mut candidate = first;
                let mut candidate_process_load = load(first);
                let mut candidate_member_load = f64::from(self.counts[first]);
                for &m in &members[1..] {
                    let process_load = load(m);
                    if process_load < candidate_process_load && (!standby || !holds(m)) {
                        let member_load = f64::from(self.counts[m]);
                        if member_load < candidate_member_load {
                            candidate_process_load = process_load;
                            candidate_member_load = member_load;
                            candidate = m;
                        }
                    }
                }
                // The check reads the first member's process whichever member won.
                (!standby || !holds(first)).then_some(candidate)
            }
            KafkaRelease::V4_4 => {
                let mut candidate: Option<(usize, f64, f64)> = None;
                for &m in members {
                    if standby && holds(m) {
                        continue;
                    }
                    let process_load = load(m);
                    let member_load = f64::from(self.counts[m]);
                    let better = match candidate {
                        None => true,
                        Some((_, pl, ml)) => process_load < pl && member_load < ml,
                    };
                    if better {
                        candidate = Some((m, process_load, member_load));
                    }
                }
                candidate.map(|(m, _, _)| m)
            }
        }
    }

    /// `assignActive`.
    pub(super) fn assign_active(&mut self) -> Result<(), String> {
        let mut tasks: Vec<usize> = (0..self.task_sub.len()).collect();
        sort_indices(&mut tasks, &|a, b| self.partition_order(a, b));

        // 1. Previous owners of the active tasks, within their quota.
        let mut rest = Vec::with_capacity(tasks.len());
        for t in tasks {
            if let Some(m) = self.prev_active[t] {
                if self.counts[m] < self.active_tasks_per_member {
                    let n = self.add_task(m, t, true);
                    self.maybe_update_active_quota(n);
                    self.maybe_update_total_quota(n);
                    continue;
                }
            }
            rest.push(t);
        }

        // 2. Previous standbys of the tasks, within their quota.
        let mut tasks = Vec::with_capacity(rest.len());
        for t in rest {
            if let Some(m) = self.prev_member_with_least_load(t, false) {
                if self.counts[m] < self.active_tasks_per_member {
                    let n = self.add_task(m, t, true);
                    self.maybe_update_active_quota(n);
                    self.maybe_update_total_quota(n);
                    continue;
                }
            }
            tasks.push(t);
        }

        // 3. The rest to the least-loaded processes.
        sort_indices(&mut tasks, &|a, b| self.subtopology_order(a, b));
        let mut queue = JavaPriorityQueue::new();
        queue.add_all(self.process_order.iter().copied(), self.by_load());
        for t in tasks {
            let Some(p) = queue.poll(self.by_load()) else {
                return Err(format!(
                    "No process available to assign active task {}.",
                    self.task_name(t)
                ));
            };
            let Some(n) = self.add_to_least_loaded(p, t, true) else {
                return Err(format!(
                    "No member available to assign active task {}.",
                    self.task_name(t)
                ));
            };
            self.maybe_update_active_quota(n);
            self.maybe_update_total_quota(n);
            queue.offer(p, self.by_load());
        }
        Ok(())
    }

    /// `assignStandby`.
    pub(super) fn assign_standby(&mut self) -> Result<(), String> {
        let mut tasks: Vec<usize> = (0..self.task_sub.len())
            .filter(|&t| self.sub_stateful[self.task_sub[t]])
            .collect();
        let wanted = i32::try_from(tasks.len())
            .unwrap_or(i32::MAX)
            .wrapping_mul(self.num_standby);
        if wanted < 0 {
            return Err(format!("Illegal Capacity: {wanted}"));
        }
        sort_indices(&mut tasks, &|a, b| self.partition_order(b, a));

        let mut to_least_loaded: Vec<(usize, i32)> = Vec::new();
        for t in tasks {
            let mut i = 0;
            while i < self.num_standby {
                i += 1;
                if let Some(m) = self.prev_active[t] {
                    let p = self.member_process[m];
                    if !self.processes[p].has_task(t)
                        && self.counts[m] < self.total_tasks_per_member
                    {
                        let n = self.add_task(m, t, false);
                        self.maybe_update_total_quota(n);
                        continue;
                    }
                }
                if let Some(m) = self.prev_member_with_least_load(t, true) {
                    if self.counts[m] < self.total_tasks_per_member {
                        let n = self.add_task(m, t, false);
                        self.maybe_update_total_quota(n);
                        continue;
                    }
                }
                to_least_loaded.push((t, self.num_standby - (i - 1)));
                break;
            }
        }

        sort_by(&mut to_least_loaded, |a, b| {
            self.subtopology_order(b.0, a.0)
        });
        let mut queue = JavaPriorityQueue::new();
        queue.add_all(self.process_order.iter().copied(), self.by_load());
        for (t, remaining) in to_least_loaded {
            for _ in 0..remaining {
                if !self.standby_to_least_loaded(&mut queue, t) {
                    break;
                }
            }
        }
        Ok(())
    }

    /// `assignStandbyToMemberWithLeastLoad`, its recursion unrolled: polls processes until one
    /// without the task takes it, then puts the polled back, the last polled first.
    fn standby_to_least_loaded(&mut self, queue: &mut JavaPriorityQueue<usize>, t: usize) -> bool {
        let mut polled = Vec::new();
        let mut found = false;
        while let Some(p) = queue.poll(self.by_load()) {
            polled.push(p);
            if !self.processes[p].has_task(t) {
                if let Some(n) = self.add_to_least_loaded(p, t, false) {
                    found = true;
                    self.maybe_update_total_quota(n);
                }
                break;
            }
            if queue.is_empty() {
                break;
            }
        }
        while let Some(p) = polled.pop() {
            queue.offer(p, self.by_load());
        }
        found
    }
}

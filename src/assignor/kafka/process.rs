//! One process as Kafka's `ProcessState` keeps it: its members (in the iteration order of its
//! `HashMap` of member task counts), its load, the tasks it holds, and the heap of its members
//! by task count that `addTaskToLeastLoadedMember` builds lazily and `addTask` drops.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::java::priority_queue::JavaPriorityQueue;

/// A heap entry: (member index, task count when last put in).
type Entry = (usize, i32);

fn by_count(a: &Entry, b: &Entry) -> Ordering {
    a.1.cmp(&b.1)
}

pub(super) struct Process {
    /// Members in the iteration order of the process's member map.
    pub(super) members: Vec<usize>,
    capacity: i32,
    task_count: i32,
    load: f64,
    /// Tasks held, active or standby.
    tasks: HashSet<usize>,
    by_load: Option<JavaPriorityQueue<Entry>>,
}

impl Process {
    pub(super) fn new() -> Self {
        Process {
            members: Vec::new(),
            capacity: 0,
            task_count: 0,
            load: f64::MAX,
            tasks: HashSet::new(),
            by_load: None,
        }
    }

    /// `addMember` (the member order is set separately, once all have joined).
    pub(super) fn add_member(&mut self) {
        self.capacity = self.capacity.wrapping_add(1);
        self.compute_load();
    }

    fn compute_load(&mut self) {
        self.load = if self.capacity <= 0 {
            -1.0
        } else {
            f64::from(self.task_count) / f64::from(self.capacity)
        };
    }

    pub(super) fn load(&self) -> f64 {
        self.load
    }

    pub(super) fn has_task(&self, task: usize) -> bool {
        self.tasks.contains(&task)
    }

    /// `addTaskInternal`: the member's new task count.
    fn add_internal(&mut self, counts: &mut [i32], member: usize, task: usize) -> i32 {
        self.task_count = self.task_count.wrapping_add(1);
        self.tasks.insert(task);
        counts[member] = counts[member].wrapping_add(1);
        self.compute_load();
        counts[member]
    }

    /// `addTask` to a given member: drops the member heap.
    pub(super) fn add_task(&mut self, counts: &mut [i32], member: usize, task: usize) -> i32 {
        let n = self.add_internal(counts, member, task);
        self.by_load = None;
        n
    }

    /// `addTaskToLeastLoadedMember`: the member and its new count, `None` without members.
    pub(super) fn add_to_least_loaded(
        &mut self,
        counts: &mut [i32],
        task: usize,
    ) -> Option<(usize, i32)> {
        match self.members.len() {
            0 => None,
            1 => {
                let m = self.members[0];
                Some((m, self.add_internal(counts, m, task)))
            }
            _ => {
                let members = &self.members;
                let heap = self.by_load.get_or_insert_with(|| {
                    let mut heap = JavaPriorityQueue::new();
                    heap.add_all(members.iter().map(|&m| (m, counts[m])), by_count);
                    heap
                });
                let (m, _) = heap.poll(by_count)?;
                let n = {
                    self.task_count = self.task_count.wrapping_add(1);
                    self.tasks.insert(task);
                    counts[m] = counts[m].wrapping_add(1);
                    counts[m]
                };
                self.compute_load();
                if let Some(heap) = self.by_load.as_mut() {
                    heap.offer((m, n), by_count);
                }
                Some((m, n))
            }
        }
    }
}

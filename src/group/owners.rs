//! The owner index (PROTOCOL 2.5): who holds each task, keyed by process id, built from every
//! member's assigned and pending-revocation tasks.

use std::collections::BTreeMap;

use crate::tasks::{Assignment, TaskMap};

type Task = (String, i32);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// Who holds each task, by process: what reconciliation checks before granting a task (2.5).
pub struct OwnerIndex {
    active: BTreeMap<Task, String>,
    /// task -> process -> number of copies (a multiset, so removing one copy keeps the others).
    standby: BTreeMap<Task, BTreeMap<String, u32>>,
    warmup: BTreeMap<Task, BTreeMap<String, u32>>,
}

impl OwnerIndex {
    /// Adds what a member of `process` holds.
    pub fn add(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for task in tasks(&a.active) {
                self.active.insert(task, process.to_string());
            }
            for task in tasks(&a.standby) {
                *self
                    .standby
                    .entry(task)
                    .or_default()
                    .entry(process.to_string())
                    .or_default() += 1;
            }
            for task in tasks(&a.warmup) {
                *self
                    .warmup
                    .entry(task)
                    .or_default()
                    .entry(process.to_string())
                    .or_default() += 1;
            }
        }
    }

    /// Makes `process` the active owner of the active tasks a member of it holds: what removing
    /// and adding the member again does when neither its process nor its tasks changed.
    pub fn claim_active(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for task in tasks(&a.active) {
                if self.active.get(&task).map(String::as_str) != Some(process) {
                    self.active.insert(task, process.to_string());
                }
            }
        }
    }

    /// Removes what a member of `process` held.
    pub fn remove(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for task in tasks(&a.active) {
                if self.active.get(&task).is_some_and(|p| p == process) {
                    self.active.remove(&task);
                }
            }
            remove_copy(&mut self.standby, &a.standby, process);
            remove_copy(&mut self.warmup, &a.warmup, process);
        }
    }

    /// The process holding `(sub, p)` as active.
    pub fn active_owner(&self, sub: &str, p: i32) -> Option<&str> {
        self.active.get(&(sub.to_string(), p)).map(String::as_str)
    }

    /// Whether `process` holds `(sub, p)` as standby or warm-up.
    pub fn holds_replica(&self, process: &str, sub: &str, p: i32) -> bool {
        let key = (sub.to_string(), p);
        [&self.standby, &self.warmup]
            .iter()
            .any(|m| m.get(&key).is_some_and(|procs| procs.contains_key(process)))
    }
}

fn tasks(map: &TaskMap) -> impl Iterator<Item = Task> + '_ {
    map.iter()
        .flat_map(|(s, ps)| ps.iter().map(move |p| (s.clone(), *p)))
}

fn remove_copy(index: &mut BTreeMap<Task, BTreeMap<String, u32>>, map: &TaskMap, process: &str) {
    for task in tasks(map) {
        if let Some(procs) = index.get_mut(&task) {
            if let Some(n) = procs.get_mut(process) {
                *n -= 1;
                if *n == 0 {
                    procs.remove(process);
                }
            }
            if procs.is_empty() {
                index.remove(&task);
            }
        }
    }
}

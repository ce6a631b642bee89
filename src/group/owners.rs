//! The owner index (PROTOCOL 2.5): who holds each task, keyed by process id, built from every
//! member's assigned and pending-revocation tasks.

use std::collections::BTreeMap;

use crate::tasks::{Assignment, TaskMap};

type Task = (String, i32);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// Who holds each task, by process: what reconciliation checks before granting a task (2.5).
pub struct OwnerIndex {
    /// task -> its holders; a task that nobody holds has no entry. One map for the three kinds
    /// of task (one map type's code in the module, one lookup per task).
    tasks: BTreeMap<Task, Holders>,
}

/// The holders of one task.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Holders {
    /// The process holding it as active.
    active: Option<String>,
    /// process -> number of copies as standby (a multiset, so removing one copy keeps the
    /// others), in process order; a task has a copy on a few processes at most.
    standby: Vec<(String, u32)>,
    /// The same for warm-up copies.
    warmup: Vec<(String, u32)>,
}

impl Holders {
    fn is_empty(&self) -> bool {
        self.active.is_none() && self.standby.is_empty() && self.warmup.is_empty()
    }
}

/// Where `process` is (or would go) in a list of copies.
fn find(copies: &[(String, u32)], process: &str) -> Result<usize, usize> {
    copies.binary_search_by(|(p, _)| p.as_str().cmp(process))
}

/// One more copy on `process`.
fn add_copy(copies: &mut Vec<(String, u32)>, process: &str) {
    match find(copies, process) {
        Ok(i) => {
            if let Some((_, n)) = copies.get_mut(i) {
                *n += 1;
            }
        }
        Err(i) => copies.insert(i, (process.to_string(), 1)),
    }
}

/// One copy fewer on `process`, if it has one.
fn remove_copy(copies: &mut Vec<(String, u32)>, process: &str) {
    if let Ok(i) = find(copies, process) {
        if let Some((_, n)) = copies.get_mut(i) {
            *n -= 1;
            if *n == 0 {
                copies.remove(i);
            }
        }
    }
}

impl OwnerIndex {
    /// Adds what a member of `process` holds.
    pub fn add(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for task in tasks(&a.active) {
                self.tasks.entry(task).or_default().active = Some(process.to_string());
            }
            for task in tasks(&a.standby) {
                add_copy(&mut self.tasks.entry(task).or_default().standby, process);
            }
            for task in tasks(&a.warmup) {
                add_copy(&mut self.tasks.entry(task).or_default().warmup, process);
            }
        }
    }

    /// Makes `process` the active owner of the active tasks a member of it holds: what removing
    /// and adding the member again does when neither its process nor its tasks changed.
    pub fn claim_active(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for task in tasks(&a.active) {
                let owner = self.tasks.get(&task).and_then(|h| h.active.as_deref());
                if owner != Some(process) {
                    self.tasks.entry(task).or_default().active = Some(process.to_string());
                }
            }
        }
    }

    /// Removes what a member of `process` held.
    pub fn remove(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for task in tasks(&a.active) {
                self.update(task, |h| {
                    if h.active.as_deref() == Some(process) {
                        h.active = None;
                    }
                });
            }
            for task in tasks(&a.standby) {
                self.update(task, |h| remove_copy(&mut h.standby, process));
            }
            for task in tasks(&a.warmup) {
                self.update(task, |h| remove_copy(&mut h.warmup, process));
            }
        }
    }

    /// Changes the holders of `task`, if it has any, and drops its entry once it has none.
    fn update(&mut self, task: Task, change: impl FnOnce(&mut Holders)) {
        if let Some(holders) = self.tasks.get_mut(&task) {
            change(holders);
            if holders.is_empty() {
                self.tasks.remove(&task);
            }
        }
    }

    /// The process holding `(sub, p)` as active.
    pub fn active_owner(&self, sub: &str, p: i32) -> Option<&str> {
        self.tasks
            .get(&(sub.to_string(), p))
            .and_then(|h| h.active.as_deref())
    }

    /// Whether `process` holds `(sub, p)` as standby or warm-up.
    pub fn holds_replica(&self, process: &str, sub: &str, p: i32) -> bool {
        self.tasks
            .get(&(sub.to_string(), p))
            .is_some_and(|h| find(&h.standby, process).is_ok() || find(&h.warmup, process).is_ok())
    }
}

fn tasks(map: &TaskMap) -> impl Iterator<Item = Task> + '_ {
    map.iter()
        .flat_map(|(s, ps)| ps.iter().map(move |p| (s.clone(), *p)))
}

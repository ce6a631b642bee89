//! The owner index (PROTOCOL 2.5): who holds each task, keyed by process id, built from every
//! member's assigned and pending-revocation tasks.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::tasks::{Assignment, TaskMap};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// Who holds each task, by process: what reconciliation checks before granting a task (2.5).
pub struct OwnerIndex {
    /// subtopology -> partition -> its holders; a task that nobody holds has no entry. Keyed by
    /// subtopology first, so that a look-up builds no key and compares its subtopology id once,
    /// then integers. One map type for the three kinds of task (one lookup per task).
    ///
    /// Partitions are stored from the last to the first: members mostly arrive holding higher
    /// partitions than those before them (a log read back, joins in id order), and a B-tree
    /// node is searched from its first key, so that a new last partition is placed after one
    /// comparison a level. Nothing iterates the partitions.
    tasks: BTreeMap<String, BTreeMap<Reverse<i32>, Holders>>,
}

/// The holders of one task. Process ids are shared by the tasks one `add` places (one copy a
/// member rather than one a task it holds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Holders {
    /// The process holding it as active.
    active: Option<Arc<str>>,
    /// Its standby and warm-up copies; `None` when it has neither. Boxed: many tasks have no
    /// copy, and a new partition lands at the front of its node (below), shifting the node's
    /// other holders, which three words each cost less to move than eight.
    replicas: Option<Box<Replicas>>,
}

/// The standby and warm-up copies of one task, never both empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Replicas {
    /// process -> number of copies as standby (a multiset, so removing one copy keeps the
    /// others), in process order; a task has a copy on a few processes at most.
    standby: Vec<(Arc<str>, u32)>,
    /// The same for warm-up copies.
    warmup: Vec<(Arc<str>, u32)>,
}

impl Holders {
    fn is_empty(&self) -> bool {
        self.active.is_none() && self.replicas.is_none()
    }

    /// The copies of `kind` (standby or warm-up).
    fn copies(&self, kind: Kind) -> &[(Arc<str>, u32)] {
        match (&self.replicas, kind) {
            (Some(r), Kind::Standby) => &r.standby,
            (Some(r), Kind::Warmup) => &r.warmup,
            _ => &[],
        }
    }

    /// One more copy of `kind` (standby or warm-up) on `process`.
    fn add_copy(&mut self, kind: Kind, process: &mut Process<'_>) {
        if matches!(kind, Kind::Active) {
            return;
        }
        let replicas = self.replicas.get_or_insert_with(Box::default);
        if let Some(copies) = replicas.of(kind) {
            add_copy(copies, process);
        }
    }

    /// One copy of `kind` (standby or warm-up) fewer on `process`, if it has one.
    fn remove_copy(&mut self, kind: Kind, process: &str) {
        let Some(replicas) = self.replicas.as_mut() else {
            return;
        };
        if let Some(copies) = replicas.of(kind) {
            remove_copy(copies, process);
        }
        if replicas.standby.is_empty() && replicas.warmup.is_empty() {
            self.replicas = None;
        }
    }
}

impl Replicas {
    /// The copies of `kind`; `None` for active tasks, which have a holder, not copies.
    fn of(&mut self, kind: Kind) -> Option<&mut Vec<(Arc<str>, u32)>> {
        match kind {
            Kind::Standby => Some(&mut self.standby),
            Kind::Warmup => Some(&mut self.warmup),
            Kind::Active => None,
        }
    }
}

/// Where `process` is (or would go) in a list of copies.
fn find(copies: &[(Arc<str>, u32)], process: &str) -> Result<usize, usize> {
    copies.binary_search_by(|(p, _)| (**p).cmp(process))
}

/// One more copy on `process`.
fn add_copy(copies: &mut Vec<(Arc<str>, u32)>, process: &mut Process<'_>) {
    match find(copies, process.id) {
        Ok(i) => {
            if let Some((_, n)) = copies.get_mut(i) {
                *n += 1;
            }
        }
        Err(i) => copies.insert(i, (process.shared(), 1)),
    }
}

/// One copy fewer on `process`, if it has one.
fn remove_copy(copies: &mut Vec<(Arc<str>, u32)>, process: &str) {
    if let Ok(i) = find(copies, process) {
        if let Some((_, n)) = copies.get_mut(i) {
            *n -= 1;
            if *n == 0 {
                copies.remove(i);
            }
        }
    }
}

/// Which list of a task's holders a kind of task goes to.
#[derive(Clone, Copy)]
enum Kind {
    Active,
    Standby,
    Warmup,
}

impl OwnerIndex {
    /// Adds what a member of `process` holds.
    pub fn add(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        let mut process = Process::new(process);
        for a in [assigned, pending] {
            self.add_maps(&mut process, kinds(a));
        }
    }

    /// Makes `process` the active owner of the active tasks a member of it holds: what removing
    /// and adding the member again does when neither its process nor its tasks changed (only
    /// the active holder can differ then, and `add` sets it as this does).
    pub fn claim_active(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        let mut process = Process::new(process);
        for a in [assigned, pending] {
            self.add_maps(&mut process, [(&a.active, Kind::Active)]);
        }
    }

    /// Adds the tasks of `maps` on `process`, each to the holder list of its kind.
    fn add_maps<'a>(
        &mut self,
        process: &mut Process<'_>,
        maps: impl IntoIterator<Item = (&'a TaskMap, Kind)>,
    ) {
        for (map, kind) in maps {
            for (sub, parts) in map {
                if parts.is_empty() {
                    continue;
                }
                // One search for a known subtopology (its id copied only when it is new).
                let tasks = match self.tasks.get_mut(sub) {
                    Some(tasks) => tasks,
                    None => self.tasks.entry(sub.to_string()).or_default(),
                };
                for &p in parts {
                    let holders = tasks.entry(Reverse(p)).or_default();
                    match kind {
                        Kind::Active => set_active(&mut holders.active, process),
                        Kind::Standby | Kind::Warmup => holders.add_copy(kind, process),
                    }
                }
            }
        }
    }

    /// Removes what a member of `process` held.
    pub fn remove(&mut self, process: &str, assigned: &Assignment, pending: &Assignment) {
        for a in [assigned, pending] {
            for (map, kind) in kinds(a) {
                for (sub, parts) in map {
                    let Some(tasks) = self.tasks.get_mut(sub) else {
                        continue;
                    };
                    for p in parts {
                        let Some(holders) = tasks.get_mut(&Reverse(*p)) else {
                            continue;
                        };
                        match kind {
                            Kind::Active => {
                                if holders.active.as_deref() == Some(process) {
                                    holders.active = None;
                                }
                            }
                            Kind::Standby | Kind::Warmup => holders.remove_copy(kind, process),
                        }
                        if holders.is_empty() {
                            tasks.remove(&Reverse(*p));
                        }
                    }
                    if tasks.is_empty() {
                        self.tasks.remove(sub);
                    }
                }
            }
        }
    }

    /// The holders of `(sub, p)`.
    fn holders(&self, sub: &str, p: i32) -> Option<&Holders> {
        self.tasks.get(sub)?.get(&Reverse(p))
    }

    /// The process holding `(sub, p)` as active.
    pub fn active_owner(&self, sub: &str, p: i32) -> Option<&str> {
        self.holders(sub, p).and_then(|h| h.active.as_deref())
    }

    /// Whether `process` holds `(sub, p)` as standby or warm-up.
    pub fn holds_replica(&self, process: &str, sub: &str, p: i32) -> bool {
        self.holders(sub, p).is_some_and(|h| {
            find(h.copies(Kind::Standby), process).is_ok()
                || find(h.copies(Kind::Warmup), process).is_ok()
        })
    }
}

/// The three task maps of an assignment with the holder list each goes to.
fn kinds(a: &Assignment) -> [(&TaskMap, Kind); 3] {
    [
        (&a.active, Kind::Active),
        (&a.standby, Kind::Standby),
        (&a.warmup, Kind::Warmup),
    ]
}

/// A process id as the tasks of one `add` share it: copied once, when a holder first needs it.
struct Process<'a> {
    id: &'a str,
    shared: Option<Arc<str>>,
}

impl<'a> Process<'a> {
    fn new(id: &'a str) -> Self {
        Process { id, shared: None }
    }

    /// The shared copy of the id.
    fn shared(&mut self) -> Arc<str> {
        let id = self.id;
        Arc::clone(self.shared.get_or_insert_with(|| Arc::from(id)))
    }
}

/// Makes `process` the active holder, taking its id only when the holder changes.
fn set_active(active: &mut Option<Arc<str>>, process: &mut Process<'_>) {
    if active.as_deref() != Some(process.id) {
        *active = Some(process.shared());
    }
}

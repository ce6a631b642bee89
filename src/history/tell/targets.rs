//! What a new target assignment changed, kept up to date member by member: a group's history
//! tells each target by the tasks that moved and the departed members' tasks it reassigned, and
//! the counts of tasks and members it holds. A target rewrites only the members whose tasks
//! change, so the book catches up on those members alone: a target costs what it changed, not
//! the size of its group.
//!
//! The counts are those of the group's members (a target of a member that left is not
//! counted), with the previous target's owner of a task as the one member that held it: the
//! coordinator never gives a task two active owners in one target.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::group::Group;
use crate::tasks::{count, Assignment, TargetMap};

/// The figures of one target assignment, as its event tells them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct TargetCounts {
    /// Active tasks whose owner differs from the previous target's.
    pub(super) moved: u64,
    /// Tasks of departed members that no member held before and one holds now.
    pub(super) reassigned: u64,
    pub(super) active: usize,
    pub(super) standby: usize,
    pub(super) warmup: usize,
    /// Members with a target.
    pub(super) members: usize,
}

/// The previous target of a group, as of its last target assignment metadata record.
#[derive(Default)]
pub(super) struct TargetBook {
    /// Each member's target as of then.
    last: TargetMap,
    /// The member that held each active task then, by [`task_key`].
    owner: BTreeMap<String, String>,
    /// A reused buffer for the keys of look-ups.
    key: String,
    /// The members counted then (members with a target): `totals` is the sum of their
    /// targets in `last`.
    counted: BTreeSet<String>,
    totals: [usize; 3],
    /// Members retargeted, joined, left or replaced since then: all the book must catch up on.
    dirty: BTreeSet<String>,
}

impl TargetBook {
    /// A member whose target, or whose membership, changed.
    pub(super) fn touch(&mut self, member_id: &str) {
        if !self.dirty.contains(member_id) {
            self.dirty.insert(member_id.to_string());
        }
    }

    /// A static member came back as `new`: it takes over the previous target of `old`.
    pub(super) fn replace(&mut self, old: &str, new: &str) {
        if let Some(target) = self.last.remove(old) {
            if self.counted.remove(old) {
                self.count(&target, false);
            }
            for (sub, parts) in &target.active {
                for &p in parts {
                    if let Some(owner) = self.owner.get_mut(task_key(&mut self.key, sub, p)) {
                        if owner == old {
                            *owner = new.to_string();
                        }
                    }
                }
            }
            if let Some(previous) = self.last.insert(new.to_string(), target) {
                if self.counted.remove(new) {
                    self.count(&previous, false);
                }
            }
        }
        self.touch(old);
        self.touch(new);
    }

    /// Adds a counted member's target to the totals, or takes it away.
    fn count(&mut self, a: &Assignment, add: bool) {
        let tasks = [count(&a.active), count(&a.standby), count(&a.warmup)];
        for (total, n) in self.totals.iter_mut().zip(tasks) {
            *total = if add {
                *total + n
            } else {
                total.saturating_sub(n)
            };
        }
    }

    /// The group was deleted: no previous target.
    pub(super) fn clear(&mut self) {
        *self = TargetBook::default();
    }

    /// The counts of the group's new target (its targets as they are now), given the tasks of
    /// departed members not yet reassigned before it; the new target becomes the previous.
    pub(super) fn next(
        &mut self,
        group: &Group,
        orphaned: &BTreeSet<(String, i32)>,
    ) -> TargetCounts {
        let is_member = |m: &str| group.members.contains_key(m);
        let held_by_member = |book: &mut TargetBook, (sub, p): &(String, i32)| {
            let key = task_key(&mut book.key, sub, *p);
            book.owner.get(key).is_some_and(|m| is_member(m))
        };
        let dirty = std::mem::take(&mut self.dirty);
        // A member whose target and membership did not change holds what it held.
        let mut moved = 0;
        for m in dirty.iter().filter(|m| is_member(m.as_str())) {
            let Some(target) = group.targets.get(m) else {
                continue;
            };
            for (sub, parts) in &target.active {
                for &p in parts {
                    let before = self.owner.get(task_key(&mut self.key, sub, p));
                    if before.is_some_and(|b| b != m && is_member(b)) {
                        moved += 1;
                    }
                }
            }
        }
        let unheld: Vec<&(String, i32)> = orphaned
            .iter()
            .filter(|t| !held_by_member(self, t))
            .collect();
        for m in &dirty {
            let new = group.targets.get(m);
            if let Some(old) = self.last.get(m) {
                for (sub, parts) in &old.active {
                    for &p in parts {
                        let key = task_key(&mut self.key, sub, p);
                        if self.owner.get(key) == Some(m) {
                            self.owner.remove(key);
                        }
                    }
                }
            }
            if let Some(new) = new {
                for (sub, parts) in &new.active {
                    for &p in parts {
                        self.owner
                            .insert(task_key(&mut self.key, sub, p).to_string(), m.clone());
                    }
                }
            }
            let old = match new {
                Some(a) => self.last.insert(m.clone(), a.clone()),
                None => self.last.remove(m),
            };
            if self.counted.remove(m) {
                if let Some(old) = &old {
                    self.count(old, false);
                }
            }
            if let Some(a) = new.filter(|_| is_member(m)) {
                self.count(a, true);
                self.counted.insert(m.clone());
            }
        }
        let reassigned = unheld
            .into_iter()
            .filter(|t| held_by_member(self, t))
            .count() as u64;
        let [active, standby, warmup] = self.totals;
        TargetCounts {
            moved,
            reassigned,
            active,
            standby,
            warmup,
            members: self.counted.len(),
        }
    }
}

/// A task's key in the owners' map: `{partition}/{subtopology}`, which no other task shares
/// (the partition's digits end at the first `/`). One string-keyed map type serves the whole
/// crate, so the web module holds no second B-tree for this one.
fn task_key<'a>(buf: &'a mut String, sub: &str, partition: i32) -> &'a str {
    buf.clear();
    let _ = write!(buf, "{partition}/{sub}");
    buf
}

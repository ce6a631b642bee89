//! What a new target assignment changed, kept up to date member by member: a group's history
//! tells each target by the tasks that moved and the departed members' tasks it reassigned, and
//! the counts of tasks and members it holds. A target rewrites only the members whose tasks
//! change, so the book catches up on those members alone: a target costs what it changed, not
//! the size of its group.
//!
//! The counts are those of the group's members (a target of a member that left is not
//! counted), with the previous target's owner of a task as the one member that held it: the
//! coordinator never gives a task two active owners in one target.

use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    /// The member that held each active task then.
    owner: HashMap<(String, i32), String>,
    /// What each counted member contributed to the counts (active, standby, warm-up).
    counted: BTreeMap<String, [usize; 3]>,
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
            for (sub, parts) in &target.active {
                for &p in parts {
                    if let Some(owner) = self.owner.get_mut(&(sub.to_string(), p)) {
                        if owner == old {
                            *owner = new.to_string();
                        }
                    }
                }
            }
            self.last.insert(new.to_string(), target);
        }
        self.touch(old);
        self.touch(new);
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
        let held_by_member = |owner: &HashMap<(String, i32), String>, task: &(String, i32)| {
            owner.get(task).is_some_and(|m| is_member(m))
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
                    let before = self.owner.get(&(sub.to_string(), p));
                    if before.is_some_and(|b| b != m && is_member(b)) {
                        moved += 1;
                    }
                }
            }
        }
        let unheld: Vec<&(String, i32)> = orphaned
            .iter()
            .filter(|t| !held_by_member(&self.owner, t))
            .collect();
        for m in &dirty {
            let new = group.targets.get(m);
            if let Some(old) = self.last.get(m) {
                for (sub, parts) in &old.active {
                    for &p in parts {
                        let key = (sub.to_string(), p);
                        if self.owner.get(&key) == Some(m) {
                            self.owner.remove(&key);
                        }
                    }
                }
            }
            if let Some(new) = new {
                for (sub, parts) in &new.active {
                    for &p in parts {
                        self.owner.insert((sub.to_string(), p), m.clone());
                    }
                }
            }
            if let Some(c) = self.counted.remove(m) {
                for (total, n) in self.totals.iter_mut().zip(c) {
                    *total -= n;
                }
            }
            match new {
                Some(a) => {
                    if is_member(m) {
                        let c = contribution(a);
                        for (total, n) in self.totals.iter_mut().zip(c) {
                            *total += n;
                        }
                        self.counted.insert(m.clone(), c);
                    }
                    self.last.insert(m.clone(), a.clone());
                }
                None => {
                    self.last.remove(m);
                }
            }
        }
        let reassigned = unheld
            .into_iter()
            .filter(|t| held_by_member(&self.owner, t))
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

fn contribution(a: &Assignment) -> [usize; 3] {
    [count(&a.active), count(&a.standby), count(&a.warmup)]
}

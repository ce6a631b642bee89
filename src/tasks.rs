//! Task sets: the unit of every assignment.
//!
//! A task is `(subtopologyId, partition)`. Maps are ordered so that everything derived from
//! them (records, responses, assignor tie-breaks) is deterministic.

use std::collections::{BTreeMap, BTreeSet};

use crate::ordered::Ordered;
use crate::records::TaskIds;

/// Tasks of one role, keyed by subtopology id.
pub type TaskMap = BTreeMap<String, BTreeSet<i32>>;

/// The three roles a member can hold tasks in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    /// Active tasks.
    pub active: TaskMap,
    /// Standby tasks.
    pub standby: TaskMap,
    /// Warm-up tasks.
    pub warmup: TaskMap,
}

/// An owned target where a borrowed one may go (`MemberSpec::previous`).
impl From<Assignment> for std::borrow::Cow<'_, Assignment> {
    fn from(a: Assignment) -> Self {
        std::borrow::Cow::Owned(a)
    }
}

impl Assignment {
    /// No task: what a member without a target holds, lent where a target is borrowed.
    pub const EMPTY: Assignment = Assignment {
        active: BTreeMap::new(),
        standby: BTreeMap::new(),
        warmup: BTreeMap::new(),
    };

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.active.values().all(BTreeSet::is_empty)
            && self.standby.values().all(BTreeSet::is_empty)
            && self.warmup.values().all(BTreeSet::is_empty)
    }

    /// The wire form: one `TaskIds` per subtopology with tasks, sorted (PROTOCOL 5.2).
    pub fn to_task_ids(&self) -> (Vec<TaskIds>, Vec<TaskIds>, Vec<TaskIds>) {
        (
            task_ids(&self.active),
            task_ids(&self.standby),
            task_ids(&self.warmup),
        )
    }

    /// The assignment of three task lists.
    pub fn from_task_ids(active: &[TaskIds], standby: &[TaskIds], warmup: &[TaskIds]) -> Self {
        Assignment {
            active: task_map(active),
            standby: task_map(standby),
            warmup: task_map(warmup),
        }
    }
}

/// Number of tasks in a map.
pub fn count(map: &TaskMap) -> usize {
    map.values().map(BTreeSet::len).sum()
}

/// Sorted wire form of a task map; subtopologies without tasks are left out.
pub fn task_ids(map: &TaskMap) -> Vec<TaskIds> {
    map.iter()
        .filter(|(_, parts)| !parts.is_empty())
        .map(|(sub, parts)| TaskIds {
            subtopology_id: sub.clone(),
            partitions: parts.iter().copied().collect(),
            // The schema's default (PROTOCOL 5.6); `None` would be written as null.
            assignment_epochs: Some(Vec::new()),
        })
        .collect()
}

/// Task map from wire form; duplicate entries merge.
pub fn task_map(list: &[TaskIds]) -> TaskMap {
    let mut map = TaskMap::new();
    for t in list {
        if t.partitions.is_empty() {
            continue;
        }
        map.entry(t.subtopology_id.clone())
            .or_default()
            .extend(t.partitions.iter().copied());
    }
    map
}

/// `a ∩ b`.
pub fn intersect(a: &TaskMap, b: &TaskMap) -> TaskMap {
    let mut out = TaskMap::new();
    for (sub, parts) in a {
        if let Some(other) = b.get(sub) {
            let both: BTreeSet<i32> = parts.intersection(other).copied().to_set();
            if !both.is_empty() {
                out.insert(sub.clone(), both);
            }
        }
    }
    out
}

/// `a − b`.
pub fn difference(a: &TaskMap, b: &TaskMap) -> TaskMap {
    let mut out = TaskMap::new();
    for (sub, parts) in a {
        let rest: BTreeSet<i32> = match b.get(sub) {
            Some(other) => parts.difference(other).copied().to_set(),
            None => parts.clone(),
        };
        if !rest.is_empty() {
            out.insert(sub.clone(), rest);
        }
    }
    out
}

/// `a ∪ b`.
pub fn union(a: &TaskMap, b: &TaskMap) -> TaskMap {
    let mut out = a.clone();
    for (sub, parts) in b {
        if !parts.is_empty() {
            out.entry(sub.clone())
                .or_default()
                .extend(parts.iter().copied());
        }
    }
    out
}

/// Whether `a` and `b` share a task.
pub fn overlaps(a: &TaskMap, b: &TaskMap) -> bool {
    a.iter()
        .any(|(sub, parts)| b.get(sub).is_some_and(|o| !parts.is_disjoint(o)))
}

/// Whether every task of `a` is in `b`.
pub fn is_subset(a: &TaskMap, b: &TaskMap) -> bool {
    a.iter()
        .all(|(sub, parts)| parts.is_empty() || b.get(sub).is_some_and(|o| parts.is_subset(o)))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn m(entries: &[(&str, &[i32])]) -> TaskMap {
        entries
            .iter()
            .map(|(s, p)| (s.to_string(), p.iter().copied().collect()))
            .collect()
    }

    #[test]
    fn set_operations_drop_empty_subtopologies() {
        let a = m(&[("0", &[0, 1]), ("1", &[2])]);
        let b = m(&[("0", &[1]), ("1", &[2])]);
        assert_eq!(difference(&a, &b), m(&[("0", &[0])]));
        assert_eq!(intersect(&a, &b), m(&[("0", &[1]), ("1", &[2])]));
        assert_eq!(
            union(&b, &m(&[("2", &[5])])),
            m(&[("0", &[1]), ("1", &[2]), ("2", &[5])])
        );
        assert!(overlaps(&a, &b));
        assert!(is_subset(&b, &a));
        assert!(!is_subset(&a, &b));
    }

    #[test]
    fn wire_form_is_sorted_and_skips_empty() {
        let mut a = m(&[("1", &[3, 1]), ("0", &[2])]);
        a.insert("2".into(), BTreeSet::new());
        let ids = task_ids(&a);
        assert_eq!(ids.len(), 2);
        assert_eq!(ids[0].subtopology_id, "0");
        assert_eq!(ids[1].partitions, vec![1, 3]);
        assert_eq!(task_map(&ids), m(&[("0", &[2]), ("1", &[1, 3])]));
    }
}

//! Task sets: the unit of every assignment.
//!
//! A task is `(subtopologyId, partition)`. Maps are ordered so that everything derived from
//! them (records, responses, assignor tie-breaks) is deterministic.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::ordered;
use crate::records::TaskIds;

/// Tasks of one role: subtopology ids ascending, each with its partitions ascending and never an
/// empty run.
///
/// Flat rather than a map of sets: a member's tasks are two vectors (its subtopologies, which
/// share their ids, and its partitions), built once at their final size, compared and copied
/// as slices. The ids are shared (`Arc<str>`): the assignor's output and the set operations
/// copy a pointer where a `BTreeMap<String, BTreeSet<i32>>` copied a string and built a tree
/// per subtopology.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct TaskMap {
    /// Subtopology ids ascending, each with the end of its run in `parts`.
    subs: Vec<(Arc<str>, u32)>,
    /// Each subtopology's partitions, ascending within its run.
    parts: Vec<i32>,
}

impl TaskMap {
    /// No task.
    #[must_use]
    pub const fn new() -> Self {
        TaskMap {
            subs: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// No task, with room for `subs` subtopologies and `tasks` tasks.
    #[must_use]
    pub fn with_capacity(subs: usize, tasks: usize) -> Self {
        TaskMap {
            subs: Vec::with_capacity(subs),
            parts: Vec::with_capacity(tasks),
        }
    }

    /// Whether it holds no task.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.subs.is_empty()
    }

    /// Number of subtopologies with tasks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.subs.len()
    }

    /// Number of tasks.
    #[must_use]
    pub fn count(&self) -> usize {
        self.parts.len()
    }

    /// Each subtopology with its partitions, in id order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            map: self,
            next: 0,
            start: 0,
        }
    }

    /// The subtopology ids, ascending.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.subs.iter().map(|(id, _)| &**id)
    }

    /// Each subtopology's partitions, in id order.
    pub fn values(&self) -> impl Iterator<Item = &[i32]> {
        self.iter().map(|(_, parts)| parts)
    }

    /// Every task `(subtopology, partition)`, in order.
    pub fn tasks(&self) -> impl Iterator<Item = (&str, i32)> {
        self.iter()
            .flat_map(|(sub, parts)| parts.iter().map(move |&p| (sub, p)))
    }

    /// The partitions of `sub`, if it has any.
    #[must_use]
    pub fn get(&self, sub: &str) -> Option<&[i32]> {
        let i = self.find(sub).ok()?;
        Some(self.run(i))
    }

    /// Whether it holds task `(sub, partition)`.
    #[must_use]
    pub fn contains(&self, sub: &str, partition: i32) -> bool {
        self.get(sub)
            .is_some_and(|parts| parts.binary_search(&partition).is_ok())
    }

    /// Adds task `(sub, partition)`; whether it was new.
    pub fn insert(&mut self, sub: &str, partition: i32) -> bool {
        match self.find(sub) {
            Ok(i) => {
                let (start, end) = self.bounds(i);
                match self.parts[start..end].binary_search(&partition) {
                    Ok(_) => false,
                    Err(at) => {
                        self.parts.insert(start + at, partition);
                        self.shift_ends(i, 1);
                        true
                    }
                }
            }
            Err(i) => {
                let at = self.bounds(i).0;
                self.parts.insert(at, partition);
                self.subs.insert(i, (Arc::from(sub), at as u32));
                self.shift_ends(i, 1);
                true
            }
        }
    }

    /// Adds `partitions` to `sub`'s: appended as a new run when `sub` comes after every
    /// subtopology held and the partitions ascend (how the assignor, the set operations and
    /// sorted wire lists build maps), merged otherwise.
    pub fn extend(&mut self, sub: &Arc<str>, partitions: &[i32]) {
        if partitions.is_empty() {
            return;
        }
        let after = self.subs.last().is_none_or(|(last, _)| **last < **sub);
        if after && partitions.windows(2).all(|w| w[0] < w[1]) {
            self.push_run(sub, partitions);
        } else {
            for &p in partitions {
                match self.find(sub) {
                    // `insert` would copy the id again for a new subtopology.
                    Err(i) if self.bounds(i).0 == self.parts.len() => {
                        self.push_run(sub, &[p]);
                    }
                    _ => {
                        self.insert(sub, p);
                    }
                }
            }
        }
    }

    /// Appends the run of `sub`, which comes after every subtopology held, with `partitions`
    /// ascending: the caller's order is the map's (debug builds check it).
    pub(crate) fn push_ascending(&mut self, sub: &Arc<str>, partitions: impl Iterator<Item = i32>) {
        debug_assert!(self.subs.last().is_none_or(|(last, _)| **last < **sub));
        let start = self.parts.len();
        self.parts.extend(partitions);
        debug_assert!(self.parts[start..].windows(2).all(|w| w[0] < w[1]));
        if self.parts.len() > start {
            self.subs.push((Arc::clone(sub), self.parts.len() as u32));
        }
    }

    /// Appends a run that keeps the order (checked by the caller).
    fn push_run(&mut self, sub: &Arc<str>, partitions: &[i32]) {
        self.parts.extend_from_slice(partitions);
        self.subs.push((Arc::clone(sub), self.parts.len() as u32));
    }

    /// `Ok(index)` of `sub`, or `Err(index)` where it would go.
    fn find(&self, sub: &str) -> Result<usize, usize> {
        self.subs.binary_search_by(|(id, _)| (**id).cmp(sub))
    }

    /// Run `i`'s range in `parts` (`i` may be one past the last run: an empty range at the end).
    fn bounds(&self, i: usize) -> (usize, usize) {
        let start = i
            .checked_sub(1)
            .and_then(|j| self.subs.get(j))
            .map_or(0, |&(_, end)| end as usize);
        let end = self.subs.get(i).map_or(start, |&(_, end)| end as usize);
        (start, end)
    }

    fn run(&self, i: usize) -> &[i32] {
        let (start, end) = self.bounds(i);
        self.parts.get(start..end).unwrap_or(&[])
    }

    /// After `by` partitions were inserted into run `i`: its end and every later one move.
    fn shift_ends(&mut self, i: usize, by: u32) {
        for (_, end) in &mut self.subs[i..] {
            *end += by;
        }
    }

    /// The shared id of run `i`.
    fn id(&self, i: usize) -> &Arc<str> {
        &self.subs[i].0
    }
}

/// A map's subtopologies with their partitions, in id order ([`TaskMap::iter`]).
#[derive(Clone)]
pub struct Iter<'a> {
    map: &'a TaskMap,
    next: usize,
    start: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a [i32]);

    fn next(&mut self) -> Option<Self::Item> {
        let (id, end) = self.map.subs.get(self.next)?;
        let end = *end as usize;
        let parts = self.map.parts.get(self.start..end).unwrap_or(&[]);
        self.next += 1;
        self.start = end;
        Some((&**id, parts))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.map.subs.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a TaskMap {
    type Item = (&'a str, &'a [i32]);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// A map from `(subtopology, partitions)` entries in any order; entries of one subtopology
/// merge, empty ones are left out.
impl<S: AsRef<str>, P: IntoIterator<Item = i32>> FromIterator<(S, P)> for TaskMap {
    fn from_iter<I: IntoIterator<Item = (S, P)>>(entries: I) -> Self {
        let mut tasks: Vec<(String, i32)> = Vec::new();
        for (sub, parts) in entries {
            let sub = sub.as_ref();
            tasks.extend(parts.into_iter().map(|p| (sub.to_string(), p)));
        }
        ordered::sort(&mut tasks);
        tasks.dedup();
        let mut map = TaskMap::new();
        let mut rest: &[(String, i32)] = &tasks;
        while let Some((sub, _)) = rest.first() {
            let run = rest.partition_point(|(s, _)| s == sub);
            let id: Arc<str> = Arc::from(sub.as_str());
            map.parts.extend(rest[..run].iter().map(|&(_, p)| p));
            map.subs.push((id, map.parts.len() as u32));
            rest = &rest[run..];
        }
        map
    }
}

/// The partitions of a subtopology, like a map's index: panics if it has none (as
/// `BTreeMap`'s does); [`TaskMap::get`] asks without panicking.
impl std::ops::Index<&str> for TaskMap {
    type Output = [i32];

    fn index(&self, sub: &str) -> &[i32] {
        match self.get(sub) {
            Some(parts) => parts,
            None => panic!("no tasks of subtopology {sub}"),
        }
    }
}

impl fmt::Debug for TaskMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

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
        active: TaskMap::new(),
        standby: TaskMap::new(),
        warmup: TaskMap::new(),
    };

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.active.is_empty() && self.standby.is_empty() && self.warmup.is_empty()
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
    map.count()
}

/// Sorted wire form of a task map.
pub fn task_ids(map: &TaskMap) -> Vec<TaskIds> {
    map.iter()
        .map(|(sub, parts)| TaskIds {
            subtopology_id: sub.to_string(),
            partitions: parts.to_vec(),
            // The schema's default (PROTOCOL 5.6); `None` would be written as null.
            assignment_epochs: Some(Vec::new()),
        })
        .collect()
}

/// Task map from wire form; duplicate entries merge. A list in Kafka's order (subtopologies
/// ascending, partitions ascending, as this coordinator writes them) is copied run by run.
pub fn task_map(list: &[TaskIds]) -> TaskMap {
    let sorted = list
        .windows(2)
        .all(|w| w[0].subtopology_id < w[1].subtopology_id)
        && list
            .iter()
            .all(|t| t.partitions.windows(2).all(|w| w[0] < w[1]));
    if !sorted {
        return list
            .iter()
            .map(|t| (t.subtopology_id.as_str(), t.partitions.iter().copied()))
            .collect();
    }
    let mut map = TaskMap::with_capacity(list.len(), list.iter().map(|t| t.partitions.len()).sum());
    for t in list {
        if !t.partitions.is_empty() {
            map.parts.extend_from_slice(&t.partitions);
            map.subs
                .push((Arc::from(t.subtopology_id.as_str()), map.parts.len() as u32));
        }
    }
    map
}

/// The runs of `a` and `b` side by side by subtopology: `visit(i, j)` with `a`'s run `i` and
/// `b`'s run `j` (either `None` where the other map has no such subtopology), in id order.
fn merge_subs(a: &TaskMap, b: &TaskMap, mut visit: impl FnMut(Option<usize>, Option<usize>)) {
    let (mut i, mut j) = (0, 0);
    while i < a.subs.len() || j < b.subs.len() {
        let order = match (a.subs.get(i), b.subs.get(j)) {
            (Some((x, _)), Some((y, _))) => (**x).cmp(&**y),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Less => {
                visit(Some(i), None);
                i += 1;
            }
            Ordering::Greater => {
                visit(None, Some(j));
                j += 1;
            }
            Ordering::Equal => {
                visit(Some(i), Some(j));
                i += 1;
                j += 1;
            }
        }
    }
}

/// Merges two ascending runs: `keep(in_a, in_b)` says which partitions the result holds.
fn merge_runs(x: &[i32], y: &[i32], out: &mut Vec<i32>, keep: impl Fn(bool, bool) -> bool) {
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        match (x.get(i), y.get(j)) {
            (Some(p), Some(q)) if p == q => {
                if keep(true, true) {
                    out.push(*p);
                }
                i += 1;
                j += 1;
            }
            (Some(p), Some(q)) if p < q => {
                if keep(true, false) {
                    out.push(*p);
                }
                i += 1;
            }
            (Some(p), None) => {
                if keep(true, false) {
                    out.push(*p);
                }
                i += 1;
            }
            (_, Some(q)) => {
                if keep(false, true) {
                    out.push(*q);
                }
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// The tasks of `a` and `b` that `keep(in_a, in_b)` selects, as a map.
fn combine(a: &TaskMap, b: &TaskMap, keep: impl Fn(bool, bool) -> bool + Copy) -> TaskMap {
    let mut out = TaskMap::new();
    merge_subs(a, b, |i, j| {
        let x = i.map_or(&[][..], |i| a.run(i));
        let y = j.map_or(&[][..], |j| b.run(j));
        let before = out.parts.len();
        merge_runs(x, y, &mut out.parts, keep);
        if out.parts.len() > before {
            let id = match i {
                Some(i) => a.id(i),
                None => b.id(j.unwrap_or_default()),
            };
            out.subs.push((Arc::clone(id), out.parts.len() as u32));
        }
    });
    out
}

/// `a ∩ b`.
pub fn intersect(a: &TaskMap, b: &TaskMap) -> TaskMap {
    if a.is_empty() || b.is_empty() {
        return TaskMap::new();
    }
    combine(a, b, |x, y| x && y)
}

/// `a − b`.
pub fn difference(a: &TaskMap, b: &TaskMap) -> TaskMap {
    if a.is_empty() || b.is_empty() {
        return a.clone();
    }
    combine(a, b, |x, y| x && !y)
}

/// `a ∪ b`.
pub fn union(a: &TaskMap, b: &TaskMap) -> TaskMap {
    if b.is_empty() {
        return a.clone();
    }
    if a.is_empty() {
        return b.clone();
    }
    combine(a, b, |x, y| x || y)
}

/// Whether `a` and `b` share a task.
pub fn overlaps(a: &TaskMap, b: &TaskMap) -> bool {
    let mut any = false;
    if a.is_empty() || b.is_empty() {
        return false;
    }
    merge_subs(a, b, |i, j| {
        if let (Some(i), Some(j), false) = (i, j, any) {
            let (x, y) = (a.run(i), b.run(j));
            any = x.iter().any(|p| y.binary_search(p).is_ok());
        }
    });
    any
}

/// Whether every task of `a` is in `b`.
pub fn is_subset(a: &TaskMap, b: &TaskMap) -> bool {
    a.iter().all(|(sub, parts)| {
        b.get(sub)
            .is_some_and(|o| parts.iter().all(|p| o.binary_search(p).is_ok()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn m(entries: &[(&str, &[i32])]) -> TaskMap {
        entries
            .iter()
            .map(|(s, p)| (*s, p.iter().copied()))
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
        let a = m(&[("1", &[3, 1]), ("0", &[2]), ("2", &[])]);
        let ids = task_ids(&a);
        assert_eq!(ids.len(), 2);
        assert_eq!(ids[0].subtopology_id, "0");
        assert_eq!(ids[1].partitions, vec![1, 3]);
        assert_eq!(task_map(&ids), m(&[("0", &[2]), ("1", &[1, 3])]));
    }

    fn wire(entries: &[(&str, &[i32])]) -> Vec<TaskIds> {
        entries
            .iter()
            .map(|(s, p)| TaskIds {
                subtopology_id: s.to_string(),
                partitions: p.to_vec(),
                assignment_epochs: None,
            })
            .collect()
    }

    #[test]
    fn wire_lists_in_any_order_merge_and_sort() {
        let sorted = m(&[("0", &[1, 2, 5]), ("10", &[0]), ("9", &[7])]);
        // Kafka's order: copied run by run.
        assert_eq!(
            task_map(&wire(&[("0", &[1, 2, 5]), ("10", &[0]), ("9", &[7])])),
            sorted
        );
        // Repeated subtopologies, unsorted and repeated partitions, empty entries.
        let messy = wire(&[
            ("9", &[7]),
            ("0", &[5, 1]),
            ("2", &[]),
            ("10", &[0]),
            ("0", &[2, 1]),
        ]);
        assert_eq!(task_map(&messy), sorted);
        assert_eq!(task_map(&[]), TaskMap::new());
    }

    #[test]
    fn lookups_inserts_and_extends_keep_the_order() {
        let mut a = TaskMap::new();
        assert!(a.insert("1", 4));
        assert!(a.insert("1", 2));
        assert!(!a.insert("1", 4));
        assert!(a.insert("0", 9));
        assert!(a.insert("2", 0));
        assert_eq!(a, m(&[("0", &[9]), ("1", &[2, 4]), ("2", &[0])]));
        assert_eq!(a.get("1"), Some(&[2, 4][..]));
        assert_eq!(a.get("3"), None);
        assert!(a.contains("2", 0) && !a.contains("2", 1) && !a.contains("5", 0));
        assert_eq!((a.len(), a.count()), (3, 4));
        assert_eq!(a.keys().collect::<Vec<_>>(), ["0", "1", "2"]);
        assert_eq!(
            a.tasks().collect::<Vec<_>>(),
            [("0", 9), ("1", 2), ("1", 4), ("2", 0)]
        );
        // Appended after the last subtopology, and merged into an earlier one.
        a.extend(&Arc::from("3"), &[1, 2]);
        a.extend(&Arc::from("1"), &[3, 0]);
        a.extend(&Arc::from("4"), &[]);
        assert_eq!(
            a,
            m(&[
                ("0", &[9]),
                ("1", &[0, 2, 3, 4]),
                ("2", &[0]),
                ("3", &[1, 2])
            ])
        );
        assert_eq!(
            format!("{a:?}"),
            r#"{"0": [9], "1": [0, 2, 3, 4], "2": [0], "3": [1, 2]}"#
        );
    }

    #[test]
    fn set_operations_match_task_by_task_definitions() {
        let a = m(&[("0", &[0, 1, 2]), ("1", &[5]), ("3", &[1])]);
        let b = m(&[("0", &[2, 3]), ("2", &[0]), ("3", &[1])]);
        let tasks = |x: &TaskMap| {
            x.tasks()
                .map(|(s, p)| (s.to_string(), p))
                .collect::<Vec<_>>()
        };
        let (ta, tb) = (tasks(&a), tasks(&b));
        let expect = |f: &dyn Fn(bool, bool) -> bool| -> TaskMap {
            let mut all: Vec<(String, i32)> = ta.iter().chain(&tb).cloned().collect();
            all.sort();
            all.dedup();
            all.into_iter()
                .filter(|t| f(ta.contains(t), tb.contains(t)))
                .map(|(s, p)| (s, [p]))
                .collect()
        };
        assert_eq!(intersect(&a, &b), expect(&|x, y| x && y));
        assert_eq!(difference(&a, &b), expect(&|x, y| x && !y));
        assert_eq!(difference(&b, &a), expect(&|x, y| y && !x));
        assert_eq!(union(&a, &b), expect(&|x, y| x || y));
        assert!(overlaps(&a, &b) && !overlaps(&a, &m(&[("2", &[0])])));
        assert!(is_subset(&intersect(&a, &b), &a) && !is_subset(&a, &b));
        assert!(is_subset(&TaskMap::new(), &a));
    }
}

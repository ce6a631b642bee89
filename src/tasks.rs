//! Task sets: the unit of every assignment.
//!
//! A task is `(subtopologyId, partition)`. Maps are ordered so that everything derived from
//! them (records, responses, assignor tie-breaks) is deterministic.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::ordered;

/// `TaskIds`, a subtopology's tasks as records and the wire list them; `assignment_epochs`
/// exists only in the 4.2 current-assignment lists (tag 0, nullable). As with
/// `LastAssignmentConfigs`, Kafka's default is the empty list: an empty list is left out of the
/// bytes and JSON, `None` (null) is written explicitly, and an absent tag reads as
/// `Some(vec![])` (PROTOCOL 5.6). The draft has no such field and reads `None`. Defined with
/// the task sets it lists (the records model re-exports it), so that tasks know no records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskIds {
    /// The subtopology.
    pub subtopology_id: String,
    /// Its partitions (task numbers).
    pub partitions: Vec<i32>,
    /// 4.2: the assignment epoch of each partition's task, in the same order.
    pub assignment_epochs: Option<Vec<i32>>,
}

/// Tasks of one role: subtopology ids ascending, each with its partitions ascending and never an
/// empty run.
///
/// Flat rather than a map of sets: a map is two boxed slices, its subtopologies (whose ids are
/// shared) and one array of integers (each run's end, then the partitions), built once at its
/// final size and compared as slices. 32 bytes, and no allocation when empty (most warm-up and
/// pending maps). The ids are shared (`Arc<str>`): the assignor's output and the set operations
/// copy a pointer where a `BTreeMap<String, BTreeSet<i32>>` copied a string and built a tree
/// per subtopology.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct TaskMap {
    /// Subtopology ids ascending.
    ids: Box<[Arc<str>]>,
    /// `ids.len()` run ends (exclusive, counted in partitions), then every run's partitions.
    data: Box<[i32]>,
}

/// Builds a [`TaskMap`] from runs in order ([`TaskMap::builder`]).
#[derive(Debug, Default)]
pub(crate) struct Builder {
    ids: Vec<Arc<str>>,
    ends: Vec<i32>,
    parts: Vec<i32>,
}

impl Builder {
    /// Adds task `(sub, partition)` after every task added before (the caller's order is the
    /// map's: debug builds check it).
    pub(crate) fn push(&mut self, sub: &str, partition: i32) {
        if !self.extends_last(sub, partition) {
            self.open(Arc::from(sub), partition);
        }
    }

    /// [`Builder::push`] with the id shared.
    pub(crate) fn push_shared(&mut self, sub: &Arc<str>, partition: i32) {
        if !self.extends_last(sub, partition) {
            self.open(Arc::clone(sub), partition);
        }
    }

    /// Adds the task to the last run if it is `sub`'s.
    fn extends_last(&mut self, sub: &str, partition: i32) -> bool {
        if self.ids.last().is_none_or(|last| **last != *sub) {
            return false;
        }
        debug_assert!(self.parts.last().is_none_or(|&p| p < partition));
        self.parts.push(partition);
        if let Some(end) = self.ends.last_mut() {
            *end += 1;
        }
        true
    }

    /// Starts the run of `sub` with the task.
    fn open(&mut self, sub: Arc<str>, partition: i32) {
        debug_assert!(self.ids.last().is_none_or(|last| **last < *sub));
        self.ids.push(sub);
        self.parts.push(partition);
        self.ends.push(self.parts.len() as i32);
    }

    /// Adds run `sub` (ascending partitions, after every run added before) sharing its id.
    pub(crate) fn push_run(&mut self, sub: &Arc<str>, partitions: impl Iterator<Item = i32>) {
        debug_assert!(self.ids.last().is_none_or(|last| **last < **sub));
        let start = self.parts.len();
        self.parts.extend(partitions);
        debug_assert!(self.parts[start..].windows(2).all(|w| w[0] < w[1]));
        if self.parts.len() > start {
            self.ids.push(Arc::clone(sub));
            self.ends.push(self.parts.len() as i32);
        }
    }

    /// The map.
    pub(crate) fn finish(self) -> TaskMap {
        let mut data = Vec::with_capacity(self.ends.len() + self.parts.len());
        data.extend_from_slice(&self.ends);
        data.extend_from_slice(&self.parts);
        TaskMap {
            ids: self.ids.into_boxed_slice(),
            data: data.into_boxed_slice(),
        }
    }
}

impl TaskMap {
    /// No task.
    #[must_use]
    pub fn new() -> Self {
        TaskMap::default()
    }

    /// A map built from runs in order.
    pub(crate) fn builder() -> Builder {
        Builder::default()
    }

    /// The map of these runs: `data` holds `ids.len()` run ends first, then the partitions
    /// (each run non-empty and ascending, the ids ascending; debug builds check it). For callers
    /// that know their map's size: two allocations at the final size, no copy.
    pub(crate) fn from_parts(ids: Vec<Arc<str>>, data: Vec<i32>) -> Self {
        let map = TaskMap {
            ids: ids.into_boxed_slice(),
            data: data.into_boxed_slice(),
        };
        debug_assert!(map.ids.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(map
            .values()
            .all(|r| !r.is_empty() && r.windows(2).all(|w| w[0] < w[1])));
        debug_assert_eq!(map.split().0.last().map_or(0, |&e| e as usize), map.count());
        map
    }

    /// Whether it holds no task.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Number of subtopologies with tasks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Number of tasks.
    #[must_use]
    pub fn count(&self) -> usize {
        self.data.len().saturating_sub(self.ids.len())
    }

    /// Each subtopology with its partitions, in id order.
    pub fn iter(&self) -> Iter<'_> {
        let (ends, parts) = self.split();
        Iter {
            ids: self.ids.iter(),
            ends: ends.iter(),
            parts,
            start: 0,
        }
    }

    /// The subtopology ids, ascending.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(|id| &**id)
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

    /// Adds task `(sub, partition)`; whether it was new. Rebuilds the map (linear): for tests
    /// and the rare caller; maps are built in order through a builder.
    pub fn insert(&mut self, sub: &str, partition: i32) -> bool {
        if self.contains(sub, partition) {
            return false;
        }
        self.extend(sub, &[partition]);
        true
    }

    /// Adds `partitions` to `sub`'s (in any order, repeats ignored). Rebuilds the map (linear).
    pub fn extend(&mut self, sub: &str, partitions: &[i32]) {
        let mut added: Vec<i32> = partitions.to_vec();
        added.sort_unstable();
        added.dedup();
        if added.is_empty() {
            return;
        }
        let mut out = Builder::default();
        let mut pending = Some(added);
        for (id, run) in self.iter_shared() {
            if let Some(add) = pending.as_ref().filter(|_| sub <= &**id) {
                if sub == &**id {
                    let mut merged = Vec::with_capacity(run.len() + add.len());
                    merge_runs(run, add, &mut merged, Keep::UNION);
                    out.push_run(id, merged.into_iter());
                    pending = None;
                    continue;
                }
                out.push_run(&Arc::from(sub), add.iter().copied());
                pending = None;
            }
            out.push_run(id, run.iter().copied());
        }
        if let Some(add) = pending {
            out.push_run(&Arc::from(sub), add.into_iter());
        }
        *self = out.finish();
    }

    /// The run ends and the partitions.
    fn split(&self) -> (&[i32], &[i32]) {
        self.data.split_at(self.ids.len().min(self.data.len()))
    }

    /// Each run with its shared id.
    pub(crate) fn iter_shared(&self) -> impl Iterator<Item = (&Arc<str>, &[i32])> {
        self.ids.iter().zip(self.values())
    }

    /// `Ok(index)` of `sub`, or `Err(index)` where it would go.
    fn find(&self, sub: &str) -> Result<usize, usize> {
        self.ids.binary_search_by(|id| (**id).cmp(sub))
    }

    fn run(&self, i: usize) -> &[i32] {
        let (ends, parts) = self.split();
        let start = i
            .checked_sub(1)
            .and_then(|j| ends.get(j))
            .map_or(0, |&e| e as usize);
        let end = ends.get(i).map_or(start, |&e| e as usize);
        parts.get(start..end).unwrap_or(&[])
    }
}

/// A map's subtopologies with their partitions, in id order ([`TaskMap::iter`]).
#[derive(Clone)]
pub struct Iter<'a> {
    ids: std::slice::Iter<'a, Arc<str>>,
    ends: std::slice::Iter<'a, i32>,
    parts: &'a [i32],
    start: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a [i32]);

    fn next(&mut self) -> Option<Self::Item> {
        let id = self.ids.next()?;
        let end = *self.ends.next()? as usize;
        let parts = self.parts.get(self.start..end).unwrap_or(&[]);
        self.start = end;
        Some((&**id, parts))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
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
        let mut map = Builder::default();
        for (sub, p) in &tasks {
            map.push(sub, *p);
        }
        map.finish()
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

/// Each active task's assignment epoch (PROTOCOL 4.8), in task order: a flat list whose
/// subtopology ids are shared with the member's task maps, where a map keyed by
/// `(String, i32)` held a string per task.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct TaskEpochs(Vec<(Arc<str>, i32, i32)>);

impl TaskEpochs {
    /// No task.
    #[must_use]
    pub fn new() -> Self {
        TaskEpochs::default()
    }

    /// Whether it holds no task.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of tasks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The epoch of task `(sub, partition)`, if it has one.
    #[must_use]
    pub fn get(&self, sub: &str, partition: i32) -> Option<i32> {
        let i = self
            .0
            .binary_search_by(|(s, p, _)| (&**s, *p).cmp(&(sub, partition)))
            .ok()?;
        self.0.get(i).map(|&(_, _, e)| e)
    }

    /// Every task `(subtopology, partition, epoch)`, in task order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i32, i32)> {
        self.0.iter().map(|(s, p, e)| (&**s, *p, *e))
    }

    /// Forgets every task.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Gives every task the epoch `epoch`.
    pub fn set_all(&mut self, epoch: i32) {
        for (_, _, e) in &mut self.0 {
            *e = epoch;
        }
    }

    /// Keeps the tasks `keep` says to.
    pub fn retain(&mut self, mut keep: impl FnMut(&str, i32) -> bool) {
        self.0.retain(|(s, p, _)| keep(s, *p));
    }

    /// The epochs of the tasks of `map`, in order: each from `epoch(sub, partition)`.
    pub(crate) fn of(map: &TaskMap, mut epoch: impl FnMut(&str, i32) -> i32) -> Self {
        let mut out = Vec::with_capacity(map.count());
        for (sub, parts) in map.iter_shared() {
            out.extend(parts.iter().map(|&p| (Arc::clone(sub), p, epoch(sub, p))));
        }
        TaskEpochs(out)
    }

    /// The tasks of both (disjoint) lists, in order.
    pub(crate) fn merged(a: TaskEpochs, b: TaskEpochs) -> Self {
        if b.is_empty() {
            return a;
        }
        if a.is_empty() {
            return b;
        }
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut x, mut y) = (a.0.into_iter().peekable(), b.0.into_iter().peekable());
        loop {
            let take_x = match (x.peek(), y.peek()) {
                (Some((s, p, _)), Some((t, q, _))) => (&**s, *p) <= (&**t, *q),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            out.extend(if take_x { x.next() } else { y.next() });
        }
        TaskEpochs(out)
    }

    /// From `(subtopology, partition, epoch)` entries in any order; of repeated tasks the last
    /// entry counts.
    pub(crate) fn from_entries(mut entries: Vec<(Arc<str>, i32, i32)>) -> Self {
        let sorted = entries
            .windows(2)
            .all(|w| (&*w[0].0, w[0].1) < (&*w[1].0, w[1].1));
        if !sorted {
            // Stable: repeated tasks keep their order, and the last of each run is kept.
            ordered::sort_by(&mut entries, |a, b| (&*a.0, a.1).cmp(&(&*b.0, b.1)));
            entries.reverse();
            entries.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
            entries.reverse();
        }
        TaskEpochs(entries)
    }
}

/// `(subtopology, partition) -> epoch` entries in any order; of repeated tasks the last counts.
impl<S: AsRef<str>> FromIterator<((S, i32), i32)> for TaskEpochs {
    fn from_iter<I: IntoIterator<Item = ((S, i32), i32)>>(entries: I) -> Self {
        let entries = entries
            .into_iter()
            .map(|((s, p), e)| (Arc::from(s.as_ref()), p, e))
            .collect();
        TaskEpochs::from_entries(entries)
    }
}

impl fmt::Debug for TaskEpochs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(s, p, e)| ((s, p), e)))
            .finish()
    }
}

/// The target assignment of a group: each member's by member id, in ascending id order.
pub type TargetMap = crate::IdMap<Assignment>;

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
    pub fn empty() -> &'static Assignment {
        static EMPTY: std::sync::LazyLock<Assignment> =
            std::sync::LazyLock::new(Assignment::default);
        &EMPTY
    }

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
        Self::from_task_ids_sharing(active, standby, warmup, &[])
    }

    /// [`Assignment::from_task_ids`] taking the subtopology ids found in `shared` (sorted) from
    /// there: a group's records name its topology's few ids over and over, and a shared id is
    /// a reference count where a new one is an allocation.
    pub(crate) fn from_task_ids_sharing(
        active: &[TaskIds],
        standby: &[TaskIds],
        warmup: &[TaskIds],
        shared: &[Arc<str>],
    ) -> Self {
        Assignment {
            active: task_map_sharing(active, shared),
            standby: task_map_sharing(standby, shared),
            warmup: task_map_sharing(warmup, shared),
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
    task_map_sharing(list, &[])
}

/// `sub` as an id of `shared` (sorted ascending) when it is one, else a new one.
pub(crate) fn shared_id(shared: &[Arc<str>], sub: &str) -> Arc<str> {
    match shared.binary_search_by(|id| (**id).cmp(sub)) {
        Ok(i) => shared.get(i).map_or_else(|| Arc::from(sub), Arc::clone),
        Err(_) => Arc::from(sub),
    }
}

/// [`task_map`], the ids found in `shared` (sorted) taken from there.
pub(crate) fn task_map_sharing(list: &[TaskIds], shared: &[Arc<str>]) -> TaskMap {
    task_map_of(
        list.iter()
            .map(|t| (t.subtopology_id.as_str(), t.partitions.iter().copied())),
        shared,
    )
}

/// The task map of wire-form runs `(subtopology id, partitions)`, however they are held;
/// duplicate entries merge. Runs in Kafka's order (subtopologies ascending, partitions
/// ascending, as this coordinator writes them) are copied run by run.
pub(crate) fn task_map_of<'s, P>(
    list: impl Iterator<Item = (&'s str, P)> + Clone,
    shared: &[Arc<str>],
) -> TaskMap
where
    P: ExactSizeIterator<Item = i32> + Clone,
{
    // Most lists of a record are empty (a stable member's standby, warm-up and pending ones).
    if list.clone().next().is_none() {
        return TaskMap::new();
    }
    let mut previous: Option<&str> = None;
    let sorted = list.clone().all(|(sub, parts)| {
        let ascending = previous.is_none_or(|p| p < sub);
        previous = Some(sub);
        let mut last: Option<i32> = None;
        ascending
            && parts.into_iter().all(|p| {
                let up = last.is_none_or(|l| l < p);
                last = Some(p);
                up
            })
    });
    if !sorted {
        let mut tasks: Vec<(&str, i32)> = list
            .flat_map(|(sub, parts)| parts.map(move |p| (sub, p)))
            .collect();
        ordered::sort(&mut tasks);
        tasks.dedup();
        let mut map = Builder::default();
        for (sub, p) in tasks {
            map.push(sub, p);
        }
        return map.finish();
    }
    let runs = list.clone().filter(|(_, parts)| parts.len() > 0).count();
    let tasks: usize = list.clone().map(|(_, parts)| parts.len()).sum();
    let mut ids = Vec::with_capacity(runs);
    let mut data = Vec::with_capacity(runs + tasks);
    data.resize(runs, 0);
    for (sub, parts) in list.filter(|(_, parts)| parts.len() > 0) {
        data.extend(parts);
        let end = (data.len() - runs) as i32;
        if let Some(slot) = data.get_mut(ids.len()) {
            *slot = end;
        }
        ids.push(shared_id(shared, sub));
    }
    TaskMap::from_parts(ids, data)
}

/// The runs of `a` and `b` side by side by subtopology: `visit(i, j)` with `a`'s run `i` and
/// `b`'s run `j` (either `None` where the other map has no such subtopology), in id order.
fn merge_subs(a: &TaskMap, b: &TaskMap, mut visit: impl FnMut(Option<usize>, Option<usize>)) {
    let (mut i, mut j) = (0, 0);
    while i < a.ids.len() || j < b.ids.len() {
        let order = match (a.ids.get(i), b.ids.get(j)) {
            (Some(x), Some(y)) => (**x).cmp(&**y),
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

/// Which tasks a merge of two maps keeps: those in both, those only in the first, those only in
/// the second (a table rather than a closure: one merge in the code, not one per operation).
#[derive(Clone, Copy)]
struct Keep {
    both: bool,
    only_a: bool,
    only_b: bool,
}

impl Keep {
    const UNION: Keep = Keep {
        both: true,
        only_a: true,
        only_b: true,
    };
}

/// Merges two ascending runs, keeping the partitions `keep` selects.
fn merge_runs(x: &[i32], y: &[i32], out: &mut Vec<i32>, keep: Keep) {
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        match (x.get(i), y.get(j)) {
            (Some(p), Some(q)) if p == q => {
                if keep.both {
                    out.push(*p);
                }
                i += 1;
                j += 1;
            }
            (Some(p), Some(q)) if p < q => {
                if keep.only_a {
                    out.push(*p);
                }
                i += 1;
            }
            (Some(p), None) => {
                if keep.only_a {
                    out.push(*p);
                }
                i += 1;
            }
            (_, Some(q)) => {
                if keep.only_b {
                    out.push(*q);
                }
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// The tasks of `a` and `b` that `keep` selects, as a map.
fn combine(a: &TaskMap, b: &TaskMap, keep: Keep) -> TaskMap {
    let mut out = Builder::default();
    let mut run = Vec::new();
    merge_subs(a, b, |i, j| {
        let x = i.map_or(&[][..], |i| a.run(i));
        let y = j.map_or(&[][..], |j| b.run(j));
        run.clear();
        merge_runs(x, y, &mut run, keep);
        let id = match (i, j) {
            (Some(i), _) => &a.ids[i],
            (None, Some(j)) => &b.ids[j],
            (None, None) => return,
        };
        out.push_run(id, run.iter().copied());
    });
    out.finish()
}

/// `a ∩ b`.
pub fn intersect(a: &TaskMap, b: &TaskMap) -> TaskMap {
    if a.is_empty() || b.is_empty() {
        return TaskMap::new();
    }
    let keep = Keep {
        both: true,
        only_a: false,
        only_b: false,
    };
    combine(a, b, keep)
}

/// `a − b`.
pub fn difference(a: &TaskMap, b: &TaskMap) -> TaskMap {
    if a.is_empty() || b.is_empty() {
        return a.clone();
    }
    let keep = Keep {
        both: false,
        only_a: true,
        only_b: false,
    };
    combine(a, b, keep)
}

/// `a ∪ b`.
pub fn union(a: &TaskMap, b: &TaskMap) -> TaskMap {
    if b.is_empty() {
        return a.clone();
    }
    if a.is_empty() {
        return b.clone();
    }
    combine(a, b, Keep::UNION)
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

/// Wire lists from `(subtopology, partitions)` entries, for tests.
#[cfg(test)]
pub(crate) fn wire_list(entries: &[(&str, &[i32])]) -> Vec<TaskIds> {
    entries
        .iter()
        .map(|(s, p)| TaskIds {
            subtopology_id: s.to_string(),
            partitions: p.to_vec(),
            assignment_epochs: None,
        })
        .collect()
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

    use super::wire_list as wire;

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
    fn task_epochs_sort_merge_and_keep_the_last_of_a_repeated_task() {
        let e = |entries: &[(&str, i32, i32)]| -> Vec<(Arc<str>, i32, i32)> {
            entries
                .iter()
                .map(|&(s, p, x)| (Arc::from(s), p, x))
                .collect()
        };
        // Unsorted, with (0, 1) twice: the later entry counts, as a map's insert did.
        let epochs =
            TaskEpochs::from_entries(e(&[("1", 0, 5), ("0", 1, 3), ("0", 0, 4), ("0", 1, 7)]));
        assert_eq!(
            epochs.iter().collect::<Vec<_>>(),
            [("0", 0, 4), ("0", 1, 7), ("1", 0, 5)]
        );
        assert_eq!(
            (epochs.get("0", 1), epochs.get("1", 1), epochs.get("2", 0)),
            (Some(7), None, None)
        );
        let other = TaskEpochs::from_entries(e(&[("0", 2, 1), ("10", 0, 1)]));
        let mut all = TaskEpochs::merged(epochs, other);
        assert_eq!(
            all.iter()
                .map(|(s, p, _)| (s.to_string(), p))
                .collect::<Vec<_>>(),
            [("0", 0), ("0", 1), ("0", 2), ("1", 0), ("10", 0)].map(|(s, p)| (s.to_string(), p))
        );
        all.retain(|s, p| s == "0" && p > 0);
        all.set_all(0);
        assert_eq!(all.iter().collect::<Vec<_>>(), [("0", 1, 0), ("0", 2, 0)]);
        assert_eq!(format!("{all:?}"), r#"{("0", 1): 0, ("0", 2): 0}"#);
        let map = m(&[("0", &[3, 4]), ("2", &[1])]);
        let of = TaskEpochs::of(&map, |s, p| if s == "0" { p } else { -1 });
        assert_eq!(
            of.iter().collect::<Vec<_>>(),
            [("0", 3, 3), ("0", 4, 4), ("2", 1, -1)]
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

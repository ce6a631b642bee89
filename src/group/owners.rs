//! The owner index (PROTOCOL 2.5): who holds each task, keyed by process id, built from every
//! member's assigned and pending-revocation tasks.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::tasks::{Assignment, TaskMap};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
/// Who holds each task, by process: what reconciliation checks before granting a task (2.5).
pub struct OwnerIndex {
    /// subtopology -> its partitions' holders; a task that nobody holds has no holders. Keyed
    /// by subtopology first, so that a look-up builds no key and compares its subtopology id
    /// once, then integers. One map type for the three kinds of task (one lookup per task).
    tasks: BTreeMap<String, Partitions>,
}

/// Consecutive partitions a [`Chunk`] holds.
const CHUNK: usize = 16;

/// The holders of one subtopology's partitions, in chunks of [`CHUNK`] consecutive partitions:
/// partitions are mostly dense (`0..n`), so that placing a task is an index into a chunk found
/// with a search of `n / 16` keys, and one insertion in sixteen makes a chunk; a map entry per
/// partition cost a search, a shift of its node and a split every few insertions. A sparse
/// subtopology (a log's scattered partitions) costs a chunk per task: 392 bytes, against about
/// 60 for a map entry.
///
/// Chunks are stored from the last to the first: members mostly arrive holding higher
/// partitions than those before them (a log read back, joins in id order), and a B-tree node is
/// searched from its first key, so that the last chunk is found after one comparison a level.
/// Nothing iterates the partitions. A chunk with no holder left is removed, so that equal
/// indexes are equal values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Partitions(BTreeMap<Reverse<i32>, Box<Chunk>>);

/// The holders of [`CHUNK`] consecutive partitions and how many of them hold something.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Chunk {
    holders: [Holders; CHUNK],
    held: u8,
}

/// The chunk of partition `p` and its place in it (negative partitions too: a log can hold
/// anything).
fn chunk_of(p: i32) -> (Reverse<i32>, usize) {
    let size = CHUNK as i32;
    (Reverse(p.div_euclid(size)), p.rem_euclid(size) as usize)
}

impl Chunk {
    /// Edits the holders at `i`, keeping the count of those holding something.
    fn edit(&mut self, i: usize, edit: impl FnOnce(&mut Holders)) {
        let Some(holders) = self.holders.get_mut(i) else {
            return;
        };
        let was_empty = holders.is_empty();
        edit(holders);
        match (was_empty, holders.is_empty()) {
            (true, false) => self.held += 1,
            (false, true) => self.held = self.held.saturating_sub(1),
            _ => {}
        }
    }
}

impl Partitions {
    /// The holders of `p`, if it has any.
    fn get(&self, p: i32) -> Option<&Holders> {
        let (chunk, i) = chunk_of(p);
        self.0.get(&chunk)?.holders.get(i).filter(|h| !h.is_empty())
    }

    /// Edits the holders of `p`, making its chunk if it has none.
    fn edit_or_insert(&mut self, p: i32, edit: impl FnOnce(&mut Holders)) {
        let (chunk, i) = chunk_of(p);
        // One search for a known chunk; a new one is made, then found.
        match self.0.get_mut(&chunk) {
            Some(c) => c.edit(i, edit),
            None => {
                let mut c = Box::<Chunk>::default();
                c.edit(i, edit);
                if c.held > 0 {
                    self.0.insert(chunk, c);
                }
            }
        }
    }

    /// Edits the holders of `p` if its chunk exists, removing the chunk when nothing in it is
    /// held any more.
    fn edit_existing(&mut self, p: i32, edit: impl FnOnce(&mut Holders)) {
        let (chunk, i) = chunk_of(p);
        let Some(c) = self.0.get_mut(&chunk) else {
            return;
        };
        c.edit(i, edit);
        if c.held == 0 {
            self.0.remove(&chunk);
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
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
                    tasks.edit_or_insert(p, |holders| match kind {
                        Kind::Active => set_active(&mut holders.active, process),
                        Kind::Standby | Kind::Warmup => holders.add_copy(kind, process),
                    });
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
                    for &p in parts {
                        tasks.edit_existing(p, |holders| match kind {
                            Kind::Active => {
                                if holders.active.as_deref() == Some(process) {
                                    holders.active = None;
                                }
                            }
                            Kind::Standby | Kind::Warmup => holders.remove_copy(kind, process),
                        });
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
        self.tasks.get(sub)?.get(p)
    }

    /// The process holding `(sub, p)` as active.
    pub fn active_owner(&self, sub: &str, p: i32) -> Option<&str> {
        self.holders(sub, p).and_then(|h| h.active.as_deref())
    }

    /// Whether `process` holds `(sub, p)` as standby.
    pub fn holds_standby(&self, process: &str, sub: &str, p: i32) -> bool {
        self.holders(sub, p)
            .is_some_and(|h| find(h.copies(Kind::Standby), process).is_ok())
    }

    /// Whether `process` holds `(sub, p)` as warm-up.
    pub fn holds_warmup(&self, process: &str, sub: &str, p: i32) -> bool {
        self.holders(sub, p)
            .is_some_and(|h| find(h.copies(Kind::Warmup), process).is_ok())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::TaskIds;

    /// An assignment of `active` tasks and `standby` copies.
    fn tasks(active: &[(&str, &[i32])], standby: &[(&str, &[i32])]) -> Assignment {
        let ids = |list: &[(&str, &[i32])]| -> Vec<TaskIds> {
            list.iter()
                .map(|(s, p)| TaskIds {
                    subtopology_id: s.to_string(),
                    partitions: p.to_vec(),
                    assignment_epochs: None,
                })
                .collect()
        };
        Assignment::from_task_ids(&ids(active), &ids(standby), &[])
    }

    #[test]
    fn partitions_across_chunk_bounds_and_below_zero_are_each_their_own() {
        let mut index = OwnerIndex::default();
        let edges = [-17, -16, -1, 0, 15, 16, 31, 32, i32::MAX, i32::MIN];
        let a = tasks(&[("0", &edges)], &[]);
        index.add("p1", &a, &Assignment::default());
        for p in edges {
            assert_eq!(index.active_owner("0", p), Some("p1"), "partition {p}");
        }
        for p in [-15, 1, 14, 17, 33, i32::MAX - 1, i32::MIN + 1] {
            assert_eq!(index.active_owner("0", p), None, "partition {p}");
        }
        index.remove("p1", &a, &Assignment::default());
        assert_eq!(index, OwnerIndex::default(), "every chunk removed");
    }

    #[test]
    fn a_chunk_stays_while_one_of_its_partitions_is_held() {
        let mut index = OwnerIndex::default();
        let first = tasks(&[("0", &[3])], &[]);
        let second = tasks(&[], &[("0", &[5])]);
        index.add("p1", &first, &Assignment::default());
        index.add("p2", &second, &Assignment::default());
        index.remove("p1", &first, &Assignment::default());
        assert_eq!(index.active_owner("0", 3), None);
        assert!(index.holds_replica("p2", "0", 5));
        assert!(!index.holds_replica("p1", "0", 5));
        // Removing what was never added changes nothing.
        index.remove("p9", &tasks(&[("0", &[5, 40])], &[("1", &[0])]), &first);
        assert!(index.holds_replica("p2", "0", 5));
        index.remove("p2", &second, &Assignment::default());
        assert_eq!(index, OwnerIndex::default());
    }

    // proptest is a dev-dependency of native targets only.
    #[cfg(not(target_arch = "wasm32"))]
    mod model {
        use super::*;
        use proptest::prelude::*;
        use std::collections::BTreeMap;

        /// What the index answers, kept per task: active holder, then each process's standby
        /// and warm-up counts.
        type Model = BTreeMap<(String, i32), (Option<String>, BTreeMap<String, u32>)>;

        fn partition() -> impl Strategy<Value = i32> {
            prop_oneof![-40i32..80, Just(i32::MAX), Just(i32::MIN)]
        }

        proptest! {
            /// Adds and removes of members' tasks answer what a map entry per task would, and
            /// an index emptied of every member equals a new one.
            #[test]
            fn answers_as_a_map_per_task(
                ops in proptest::collection::vec(
                    (0usize..3, proptest::collection::vec((0usize..2, partition(), any::<bool>()), 0..8)),
                    0..40,
                )
            ) {
                let mut index = OwnerIndex::default();
                let mut model = Model::new();
                let mut members: Vec<(String, Assignment)> = Vec::new();
                for (process, list) in ops {
                    let process = format!("p{process}");
                    let mut active: BTreeMap<String, Vec<i32>> = BTreeMap::new();
                    let mut standby: BTreeMap<String, Vec<i32>> = BTreeMap::new();
                    for (sub, p, is_active) in list {
                        let to = if is_active { &mut active } else { &mut standby };
                        to.entry(sub.to_string()).or_default().push(p);
                    }
                    let ids = |m: &BTreeMap<String, Vec<i32>>| -> Vec<TaskIds> {
                        m.iter().map(|(s, p)| TaskIds {
                            subtopology_id: s.clone(),
                            partitions: p.clone(),
                            assignment_epochs: None,
                        }).collect()
                    };
                    let a = Assignment::from_task_ids(&ids(&active), &ids(&standby), &[]);
                    // Every other member leaves again, the oldest first.
                    if members.len() > 2 {
                        let (p, old) = members.remove(0);
                        index.remove(&p, &old, &Assignment::default());
                        for (s, parts) in &old.active {
                            for &t in parts {
                                if let Some(e) = model.get_mut(&(s.to_string(), t)) {
                                    if e.0.as_deref() == Some(p.as_str()) {
                                        e.0 = None;
                                    }
                                }
                            }
                        }
                        for (s, parts) in &old.standby {
                            for &t in parts {
                                if let Some(e) = model.get_mut(&(s.to_string(), t)) {
                                    if let Some(n) = e.1.get_mut(&p) {
                                        *n -= 1;
                                        if *n == 0 {
                                            e.1.remove(&p);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    index.add(&process, &a, &Assignment::default());
                    for (s, parts) in &a.active {
                        for &t in parts {
                            model.entry((s.to_string(), t)).or_default().0 = Some(process.clone());
                        }
                    }
                    for (s, parts) in &a.standby {
                        for &t in parts {
                            *model.entry((s.to_string(), t)).or_default().1.entry(process.clone()).or_default() += 1;
                        }
                    }
                    members.push((process, a));
                    for s in ["0", "1"] {
                        for t in (-40..80).chain([i32::MAX, i32::MIN]) {
                            let want = model.get(&(s.to_string(), t));
                            prop_assert_eq!(
                                index.active_owner(s, t),
                                want.and_then(|e| e.0.as_deref())
                            );
                            for p in ["p0", "p1", "p2"] {
                                prop_assert_eq!(
                                    index.holds_replica(p, s, t),
                                    want.is_some_and(|e| e.1.contains_key(p))
                                );
                            }
                        }
                    }
                }
                for (p, old) in members {
                    index.remove(&p, &old, &Assignment::default());
                }
                prop_assert_eq!(index, OwnerIndex::default());
            }
        }
    }
}

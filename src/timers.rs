//! The keyed timer wheel (DESIGN 2, PROTOCOL 2.9): timers are scheduled and cancelled by key,
//! and fire in deadline order, ties broken by key (the draft) or, as Kafka's timer fires them,
//! by when they were last scheduled (the `kafka-*` dialects).

use std::borrow::Borrow;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::ordered::{sort_by, DescLookup, DescText};

/// Timer kinds, in the order that breaks deadline ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerKind {
    /// `session-timeout`: a member that stops heartbeating is fenced (PROTOCOL 2.9).
    SessionTimeout,
    /// `rebalance-timeout`: a member that keeps tasks it must revoke is fenced.
    RebalanceTimeout,
    /// `topology-initialization`: a member asked to initialize the topology must do so in time (3.8).
    TopologyInitialization,
    /// `initial-rebalance-delay`: the 4.2 group's first assignment waits (4.7).
    InitialRebalanceDelay,
    /// `retention`: a memberless group is deleted (5.5).
    Retention,
    /// Assignment batching: the group's next target assignment is due.
    AssignmentInterval,
}

impl TimerKind {
    /// How many kinds there are.
    const COUNT: usize = 6;

    fn index(self) -> usize {
        match self {
            TimerKind::SessionTimeout => 0,
            TimerKind::RebalanceTimeout => 1,
            TimerKind::TopologyInitialization => 2,
            TimerKind::InitialRebalanceDelay => 3,
            TimerKind::Retention => 4,
            TimerKind::AssignmentInterval => 5,
        }
    }

    /// The name snapshots and `explain` use.
    pub fn name(self) -> &'static str {
        match self {
            TimerKind::SessionTimeout => "session-timeout",
            TimerKind::RebalanceTimeout => "rebalance-timeout",
            TimerKind::TopologyInitialization => "topology-initialization",
            TimerKind::InitialRebalanceDelay => "initial-rebalance-delay",
            TimerKind::Retention => "retention",
            TimerKind::AssignmentInterval => "assignment-interval",
        }
    }
}

/// Kind, group, then member id or topology id (empty for group-level timers); ordered in that
/// order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey {
    /// What the timer does when it fires.
    pub kind: TimerKind,
    /// The group it belongs to: the pending timers of a group share one copy of its id, so that
    /// the queue's ties between them are settled without comparing it.
    pub group_id: Arc<str>,
    /// The member id, topology id or `""` it concerns.
    pub subject: String,
}

impl TimerKey {
    /// The key of timer `kind` of `group_id` about `subject`.
    pub fn new(kind: TimerKind, group_id: &str, subject: &str) -> Self {
        TimerKey {
            kind,
            group_id: Arc::from(group_id),
            subject: subject.to_string(),
        }
    }
}

impl Ord for TimerKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.kind
            .cmp(&other.kind)
            .then_with(|| {
                if Arc::ptr_eq(&self.group_id, &other.group_id) {
                    Ordering::Equal
                } else {
                    self.group_id.cmp(&other.group_id)
                }
            })
            .then_with(|| self.subject.cmp(&other.subject))
    }
}

impl PartialOrd for TimerKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What a timer remembers for the check it makes when it fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimerData {
    /// No data.
    None,
    /// Rebalance timeout: the member epoch it was armed for.
    MemberEpoch(i32),
    /// Topology initialization: the asked member.
    AskedMember(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// A pending timer.
pub struct Timer {
    /// When it fires (ms).
    pub deadline: i64,
    /// What it checks when it fires.
    pub data: TimerData,
}

/// The timers of one group, by kind and subject: looked up by `&str`, so that rescheduling an
/// existing timer (a session timeout at every heartbeat) builds no key.
#[derive(Clone, Debug)]
struct GroupTimers {
    /// The group id its timers' keys share.
    id: Arc<str>,
    by_kind: [BTreeMap<Subject, Entry>; TimerKind::COUNT],
}

/// A pending timer with its key (the map's key again, so that moving a deadline finds both
/// in one look-up).
#[derive(Clone, Debug)]
struct Entry {
    key: Arc<TimerKey>,
    timer: Timer,
    /// Its tie-break in the queue.
    tie: u64,
}

impl GroupTimers {
    fn new(id: &str) -> Self {
        GroupTimers {
            id: Arc::from(id),
            by_kind: Default::default(),
        }
    }

    fn is_empty(&self) -> bool {
        self.by_kind.iter().all(BTreeMap::is_empty)
    }
}

/// A timer's key as its subject: shared with the queue entry and the map's value, so that a
/// timer's key is one allocation and moving a deadline copies no string.
///
/// Ordered by subject from the last to the first: keys mostly arrive in ascending order (a log
/// replayed in lists of records, members joining by name), and a B-tree node is searched from
/// its first key, so that a new last subject is placed after one comparison a level rather
/// than after every key of each node. Nothing depends on the maps' order.
#[derive(Clone, Debug)]
struct Subject(Arc<TimerKey>);

impl DescText for Subject {
    fn text(&self) -> &str {
        &self.0.subject
    }
}

impl<'a> Borrow<dyn DescText + 'a> for Subject {
    fn borrow(&self) -> &(dyn DescText + 'a) {
        self
    }
}

impl PartialEq for Subject {
    fn eq(&self, other: &Self) -> bool {
        self.0.subject == other.0.subject
    }
}

impl Eq for Subject {}

impl Ord for Subject {
    fn cmp(&self, other: &Self) -> Ordering {
        (self as &dyn DescText).cmp(other as &dyn DescText)
    }
}

impl PartialOrd for Subject {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Clone, Debug, Default)]
/// The keyed timer wheel: by key, and in firing order.
pub struct Timers {
    by_group: BTreeMap<String, GroupTimers>,
    /// Deadline order (ties by key) from the last to fire to the first: a new deadline is
    /// mostly the latest (a heartbeat's session timeout), which a B-tree node's search from its
    /// first key then places after one comparison a level. With `by_schedule` the timers of
    /// one deadline fire by their scheduling sequence instead, chosen when they fire, so that
    /// rescheduling at an unchanged deadline moves nothing in the tree.
    queue: BTreeSet<Reverse<(i64, Arc<TimerKey>)>>,
    /// Whether ties go to the timer scheduled first (Kafka's timer), not to the smaller key.
    by_schedule: bool,
    /// The last scheduling sequence number given.
    seq: u64,
    /// With `by_schedule`, the timers of the deadline firing now in sequence order, sorted
    /// once per run of ties (each checked again when it is its turn).
    due: std::collections::VecDeque<(i64, u64, Arc<TimerKey>)>,
}

/// A timer's entry in the queue.
fn queued(deadline: i64, key: Arc<TimerKey>) -> Reverse<(i64, Arc<TimerKey>)> {
    Reverse((deadline, key))
}

impl Timers {
    /// Timers whose ties at one deadline fire in the order they were (last) scheduled, as
    /// Kafka's timer fires them: two members' session timeouts due at the same instant fence
    /// the one that heartbeat first, first.
    pub fn in_scheduling_order() -> Self {
        Timers {
            by_schedule: true,
            ..Timers::default()
        }
    }

    /// Schedules (or moves) the timer `key`.
    pub fn schedule(&mut self, key: TimerKey, deadline: i64, data: TimerData) {
        if let Some(data) =
            self.move_existing(key.kind, &key.group_id, &key.subject, deadline, data)
        {
            self.insert(key.kind, &key.group_id, key.subject, deadline, data);
        }
    }

    /// Schedules (or moves) the timer `(kind, group_id, subject)`; a timer that exists is
    /// updated in place, allocating nothing.
    pub fn schedule_at(
        &mut self,
        kind: TimerKind,
        group_id: &str,
        subject: &str,
        deadline: i64,
        data: TimerData,
    ) {
        if let Some(data) = self.move_existing(kind, group_id, subject, deadline, data) {
            self.insert(kind, group_id, subject.to_string(), deadline, data);
        }
    }

    /// [`Timers::schedule_at`] for a timer that is most likely not pending (a replayed
    /// member's): its key is built first, so that a new timer costs one search of the group's
    /// timers of its kind rather than a failed look-up and then an insertion. A timer that is
    /// pending after all is moved, as `schedule_at` would.
    pub fn schedule_new_at(
        &mut self,
        kind: TimerKind,
        group_id: &str,
        subject: &str,
        deadline: i64,
        data: TimerData,
    ) {
        self.insert(kind, group_id, subject.to_string(), deadline, data);
    }

    /// Cancels the topology-initialization timers of `group_id` that asked `member_id`
    /// (PROTOCOL 3.8), looking only at that group's timers of that kind.
    pub fn cancel_asked(&mut self, group_id: &str, member_id: &str) {
        let kind = TimerKind::TopologyInitialization;
        let Some(group) = self.by_group.get(group_id) else {
            return;
        };
        let asked: Vec<Arc<TimerKey>> = group.by_kind[kind.index()]
            .values()
            .filter(|e| matches!(&e.timer.data, TimerData::AskedMember(m) if m == member_id))
            .map(|e| Arc::clone(&e.key))
            .collect();
        for key in asked {
            self.cancel_at(kind, group_id, &key.subject);
        }
    }

    /// Moves the timer `(kind, group_id, subject)` in place, allocating nothing; `data` comes
    /// back when no such timer is pending.
    fn move_existing(
        &mut self,
        kind: TimerKind,
        group_id: &str,
        subject: &str,
        deadline: i64,
        data: TimerData,
    ) -> Option<TimerData> {
        let by_schedule = self.by_schedule;
        let tie = match by_schedule {
            true => self.seq + 1,
            false => 0,
        };
        let Some(entry) = self
            .by_group
            .get_mut(group_id)
            .and_then(|g| g.by_kind[kind.index()].get_mut(&DescLookup(subject) as &dyn DescText))
        else {
            return Some(data);
        };
        // Kafka's timer cancels a rescheduled task and adds a new one: it goes after the
        // others of its deadline even when its deadline did not change (its sequence says so).
        if entry.timer.deadline != deadline {
            self.queue
                .remove(&queued(entry.timer.deadline, Arc::clone(&entry.key)));
            self.queue.insert(queued(deadline, Arc::clone(&entry.key)));
        }
        entry.tie = tie;
        entry.timer = Timer { deadline, data };
        self.seq += u64::from(by_schedule);
        None
    }

    /// Adds a timer: one allocation for its key (and its subject), the group id shared with the
    /// group's other timers. A timer of that key that is pending after all is replaced (the map
    /// keeps its old key, equal to the new one), its old deadline traded for the new.
    fn insert(
        &mut self,
        kind: TimerKind,
        group_id: &str,
        subject: String,
        deadline: i64,
        data: TimerData,
    ) {
        // One search for a group with timers; a new one is made, then found.
        let Some(group) = self.by_group.get_mut(group_id) else {
            self.by_group
                .insert(group_id.to_string(), GroupTimers::new(group_id));
            return self.insert(kind, group_id, subject, deadline, data);
        };
        let key = Arc::new(TimerKey {
            kind,
            group_id: Arc::clone(&group.id),
            subject,
        });
        let tie = match self.by_schedule {
            true => self.seq + 1,
            false => 0,
        };
        let entry = Entry {
            key: Arc::clone(&key),
            timer: Timer { deadline, data },
            tie,
        };
        if let Some(old) = group.by_kind[kind.index()].insert(Subject(Arc::clone(&key)), entry) {
            self.queue.remove(&queued(old.timer.deadline, old.key));
        }
        self.queue.insert(queued(deadline, key));
        self.seq += u64::from(self.by_schedule);
    }

    /// Cancels the timer `key`, if any, and returns it.
    pub fn cancel(&mut self, key: &TimerKey) -> Option<Timer> {
        self.cancel_at(key.kind, &key.group_id, &key.subject)
    }

    /// Cancels the timer `(kind, group_id, subject)`, if any.
    pub fn cancel_at(&mut self, kind: TimerKind, group_id: &str, subject: &str) -> Option<Timer> {
        let group = self.by_group.get_mut(group_id)?;
        let entry = group.by_kind[kind.index()].remove(&DescLookup(subject) as &dyn DescText)?;
        if group.is_empty() {
            self.by_group.remove(group_id);
        }
        self.queue.remove(&queued(entry.timer.deadline, entry.key));
        Some(entry.timer)
    }

    /// Cancels every timer of `group_id` (of one `kind`, when given).
    pub fn cancel_group(&mut self, group_id: &str, kind: Option<TimerKind>) {
        let Some(group) = self.by_group.get_mut(group_id) else {
            return;
        };
        for (i, timers) in group.by_kind.iter_mut().enumerate() {
            if kind.is_some_and(|k| k.index() != i) {
                continue;
            }
            for (_, entry) in std::mem::take(timers) {
                self.queue.remove(&queued(entry.timer.deadline, entry.key));
            }
        }
        if group.is_empty() {
            self.by_group.remove(group_id);
        }
    }

    /// The timer `key`, if pending.
    pub fn get(&self, key: &TimerKey) -> Option<&Timer> {
        self.get_at(key.kind, &key.group_id, &key.subject)
    }

    /// The timer `(kind, group_id, subject)`, looked up without building a key.
    pub fn get_at(&self, kind: TimerKind, group_id: &str, subject: &str) -> Option<&Timer> {
        self.by_group.get(group_id)?.by_kind[kind.index()]
            .get(&DescLookup(subject) as &dyn DescText)
            .map(|e| &e.timer)
    }

    /// The first timer due at or before `now`, removed.
    pub fn pop_due(&mut self, now: i64) -> Option<(TimerKey, Timer)> {
        // Peek first: the common answer is "nothing due", and it must not copy a key.
        let Reverse((deadline, first)) = self.queue.last()?;
        if *deadline > now {
            return None;
        }
        let deadline = *deadline;
        let key = match self.by_schedule {
            false => Arc::clone(first),
            true => self.first_scheduled(deadline)?,
        };
        self.queue.remove(&queued(deadline, Arc::clone(&key)));
        let group = self.by_group.get_mut(&*key.group_id)?;
        let (subject, entry) = group.by_kind[key.kind.index()]
            .remove_entry(&DescLookup(&key.subject) as &dyn DescText)?;
        if group.is_empty() {
            self.by_group.remove(&*key.group_id);
        }
        // The map's two references go first, so that the key is taken without a copy.
        drop((subject, entry.key));
        let key = Arc::try_unwrap(key).unwrap_or_else(|shared| (*shared).clone());
        Some((key, entry.timer))
    }

    /// The key of the pending timer of `deadline` scheduled first (the smallest sequence). A
    /// lone timer of its deadline is the answer at once; a run of ties is sorted once, and
    /// each of its timers is checked again when its turn comes (it may have been cancelled
    /// or rescheduled meanwhile; one scheduled since comes after the run).
    fn first_scheduled(&mut self, deadline: i64) -> Option<Arc<TimerKey>> {
        let mut run = self
            .queue
            .iter()
            .rev()
            .take_while(|Reverse((d, _))| *d == deadline)
            .map(|Reverse((_, k))| k);
        let first = run.next()?;
        if run.next().is_none() {
            self.due.clear();
            return Some(Arc::clone(first));
        }
        loop {
            while let Some((d, tie, key)) = self.due.pop_front() {
                let current = self
                    .get_at(key.kind, &key.group_id, &key.subject)
                    .map(|t| t.deadline);
                if d == deadline && current == Some(deadline) && self.tie_of(&key) == tie {
                    return Some(key);
                }
            }
            let mut sorted: Vec<(i64, u64, Arc<TimerKey>)> = self
                .queue
                .iter()
                .rev()
                .take_while(|Reverse((d, _))| *d == deadline)
                .map(|Reverse((_, k))| (deadline, self.tie_of(k), Arc::clone(k)))
                .collect();
            sort_by(&mut sorted, |a, b| a.1.cmp(&b.1));
            self.due = sorted.into();
        }
    }

    /// A pending timer's scheduling sequence.
    fn tie_of(&self, key: &TimerKey) -> u64 {
        self.by_group
            .get(&*key.group_id)
            .and_then(|g| {
                g.by_kind[key.kind.index()].get(&DescLookup(&key.subject) as &dyn DescText)
            })
            .map_or(0, |e| e.tie)
    }

    /// The earliest deadline.
    pub fn next_deadline(&self) -> Option<i64> {
        self.queue.last().map(|Reverse((d, _))| *d)
    }

    /// Every timer in firing order.
    pub fn iter(&self) -> impl Iterator<Item = (&TimerKey, &Timer)> {
        let mut keys: Vec<&Arc<TimerKey>> =
            self.queue.iter().rev().map(|Reverse((_, k))| k).collect();
        if self.by_schedule {
            // Stable: within a deadline, by sequence.
            let key = |k: &TimerKey| {
                let deadline = self
                    .get_at(k.kind, &k.group_id, &k.subject)
                    .map_or(i64::MAX, |t| t.deadline);
                (deadline, self.tie_of(k))
            };
            sort_by(&mut keys, |a, b| key(a).cmp(&key(b)));
        }
        keys.into_iter().filter_map(|k| {
            self.get_at(k.kind, &k.group_id, &k.subject)
                .map(|t| (k.as_ref(), t))
        })
    }

    /// The number of pending timers.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn key(kind: TimerKind, g: &str, s: &str) -> TimerKey {
        TimerKey::new(kind, g, s)
    }

    #[test]
    fn a_run_of_ties_fires_in_scheduling_order_as_it_changes() {
        let session = TimerKind::SessionTimeout;
        let mut t = Timers::in_scheduling_order();
        let names: Vec<String> = (0..200).map(|i| format!("m{:03}", 199 - i)).collect();
        for n in &names {
            t.schedule(key(session, "g", n), 50, TimerData::None);
        }
        // Rescheduled at the same deadline: last. Moved away and back: last again.
        t.schedule(key(session, "g", "m150"), 50, TimerData::None);
        t.schedule(key(session, "g", "m100"), 60, TimerData::None);
        t.schedule(key(session, "g", "m100"), 50, TimerData::None);
        t.cancel(&key(session, "g", "m000"));
        let mut fired = Vec::new();
        while let Some((k, _)) = t.pop_due(50) {
            fired.push(k.subject);
            if fired.len() == 3 {
                // Scheduled while the run fires: after it.
                t.schedule(key(session, "g", "late"), 50, TimerData::None);
            }
        }
        let mut want: Vec<String> = names
            .iter()
            .filter(|n| !["m150", "m100", "m000"].contains(&n.as_str()))
            .cloned()
            .collect();
        want.extend(["m150".to_string(), "m100".to_string(), "late".to_string()]);
        assert_eq!(fired, want);
        assert!(t.is_empty());
    }

    #[test]
    fn ties_fire_by_key_or_in_the_order_they_were_scheduled() {
        let session = TimerKind::SessionTimeout;
        let order = |mut t: Timers| {
            t.schedule(key(session, "g", "zeta"), 10, TimerData::None);
            t.schedule(key(session, "g", "alpha"), 10, TimerData::None);
            t.schedule(key(session, "g", "mid"), 10, TimerData::None);
            // Rescheduled at the same deadline: Kafka's timer adds it again, last.
            t.schedule(key(session, "g", "alpha"), 10, TimerData::None);
            let mut fired = Vec::new();
            while let Some((k, _)) = t.pop_due(10) {
                fired.push(k.subject);
            }
            fired
        };
        assert_eq!(order(Timers::default()), ["alpha", "mid", "zeta"]);
        assert_eq!(
            order(Timers::in_scheduling_order()),
            ["zeta", "mid", "alpha"]
        );
        let mut t = Timers::in_scheduling_order();
        t.schedule(key(session, "g", "zeta"), 10, TimerData::None);
        t.schedule(key(session, "g", "alpha"), 10, TimerData::None);
        t.cancel(&key(session, "g", "alpha"));
        t.schedule(key(session, "g", "beta"), 10, TimerData::None);
        t.schedule(key(session, "g", "alpha"), 10, TimerData::None);
        let fired: Vec<String> =
            std::iter::from_fn(|| t.pop_due(10).map(|(k, _)| k.subject)).collect();
        assert_eq!(fired, ["zeta", "beta", "alpha"]);
    }

    #[test]
    fn fires_in_deadline_then_key_order() {
        let mut t = Timers::default();
        t.schedule(key(TimerKind::Retention, "a", ""), 10, TimerData::None);
        t.schedule(
            key(TimerKind::SessionTimeout, "b", "m"),
            10,
            TimerData::None,
        );
        t.schedule(
            key(TimerKind::SessionTimeout, "a", "m"),
            20,
            TimerData::None,
        );
        assert_eq!(t.next_deadline(), Some(10));
        assert!(t.pop_due(9).is_none());
        assert_eq!(t.pop_due(10).unwrap().0.kind, TimerKind::SessionTimeout);
        assert_eq!(t.pop_due(10).unwrap().0.kind, TimerKind::Retention);
        assert!(t.pop_due(19).is_none());
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn ties_fire_by_group_then_subject_and_a_group_shares_its_id() {
        let mut t = Timers::default();
        for (g, m) in [("b", "m1"), ("a", "m2"), ("b", "m0"), ("a", "m1")] {
            t.schedule_at(TimerKind::SessionTimeout, g, m, 10, TimerData::None);
        }
        t.schedule(
            key(TimerKind::SessionTimeout, "a", "m0"),
            10,
            TimerData::None,
        );
        let order: Vec<(String, String)> = t
            .iter()
            .map(|(k, _)| (k.group_id.to_string(), k.subject.clone()))
            .collect();
        let expected = [
            ("a", "m0"),
            ("a", "m1"),
            ("a", "m2"),
            ("b", "m0"),
            ("b", "m1"),
        ];
        assert_eq!(order, expected.map(|(g, m)| (g.to_string(), m.to_string())));
        let keys: Vec<&TimerKey> = t.iter().map(|(k, _)| k).collect();
        assert!(Arc::ptr_eq(&keys[0].group_id, &keys[2].group_id));
        assert!(!Arc::ptr_eq(&keys[2].group_id, &keys[3].group_id));
        assert!(t
            .cancel(&key(TimerKind::SessionTimeout, "a", "m1"))
            .is_some());
        let (first, _) = t.pop_due(10).unwrap();
        assert_eq!(first, key(TimerKind::SessionTimeout, "a", "m0"));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn rescheduling_replaces_and_cancel_removes() {
        let mut t = Timers::default();
        let k = key(TimerKind::SessionTimeout, "g", "m");
        t.schedule(k.clone(), 10, TimerData::None);
        t.schedule(k.clone(), 30, TimerData::MemberEpoch(3));
        assert_eq!(t.len(), 1);
        assert_eq!(t.next_deadline(), Some(30));
        t.schedule(
            key(TimerKind::RebalanceTimeout, "g", "m"),
            40,
            TimerData::None,
        );
        t.cancel_group("g", Some(TimerKind::SessionTimeout));
        assert_eq!(t.next_deadline(), Some(40));
        t.cancel_group("g", None);
        assert!(t.is_empty());
    }

    #[test]
    fn moving_a_deadline_keeps_one_entry_in_firing_order() {
        let mut t = Timers::default();
        t.schedule_at(TimerKind::SessionTimeout, "g", "a", 10, TimerData::None);
        t.schedule_at(TimerKind::SessionTimeout, "g", "b", 20, TimerData::None);
        t.schedule_at(TimerKind::SessionTimeout, "g", "a", 30, TimerData::None);
        assert_eq!(t.len(), 2);
        assert_eq!(t.next_deadline(), Some(20));
        let order: Vec<&str> = t.iter().map(|(k, _)| k.subject.as_str()).collect();
        assert_eq!(order, ["b", "a"]);
        assert_eq!(
            t.get_at(TimerKind::SessionTimeout, "g", "a")
                .map(|x| x.deadline),
            Some(30)
        );
        assert_eq!(t.pop_due(25).map(|(k, _)| k.subject), Some("b".into()));
        assert!(t.pop_due(25).is_none());
        assert!(t.cancel_at(TimerKind::SessionTimeout, "g", "a").is_some());
        assert!(t.is_empty());
        assert!(t.by_group.is_empty(), "an empty group's entry is dropped");
    }
    #[test]
    fn a_new_timer_scheduled_in_one_search_and_a_pending_one_moved() {
        let mut t = Timers::default();
        t.schedule_new_at(TimerKind::SessionTimeout, "g", "b", 10, TimerData::None);
        t.schedule_new_at(TimerKind::SessionTimeout, "g", "a", 10, TimerData::None);
        // Pending after all: moved, not doubled.
        t.schedule_new_at(
            TimerKind::SessionTimeout,
            "g",
            "b",
            5,
            TimerData::MemberEpoch(1),
        );
        assert_eq!(t.len(), 2);
        let order: Vec<(&str, i64)> = t
            .iter()
            .map(|(k, timer)| (k.subject.as_str(), timer.deadline))
            .collect();
        assert_eq!(order, [("b", 5), ("a", 10)]);
        assert_eq!(
            t.get_at(TimerKind::SessionTimeout, "g", "b")
                .map(|x| &x.data),
            Some(&TimerData::MemberEpoch(1))
        );
    }

    #[test]
    fn cancelling_an_asked_member_leaves_other_groups_and_members() {
        let mut t = Timers::default();
        let asked = |m: &str| TimerData::AskedMember(m.to_string());
        t.schedule_at(TimerKind::TopologyInitialization, "g", "t1", 10, asked("m"));
        t.schedule_at(TimerKind::TopologyInitialization, "g", "t2", 10, asked("n"));
        t.schedule_at(TimerKind::TopologyInitialization, "h", "t1", 10, asked("m"));
        t.schedule_at(TimerKind::SessionTimeout, "g", "m", 10, TimerData::None);
        t.cancel_asked("g", "m");
        let left: Vec<(String, String)> = t
            .iter()
            .map(|(k, _)| (k.group_id.to_string(), k.subject.clone()))
            .collect();
        let expected = [("g", "m"), ("g", "t2"), ("h", "t1")];
        assert_eq!(left, expected.map(|(g, s)| (g.to_string(), s.to_string())));
        t.cancel_asked("g", "n");
        t.cancel_at(TimerKind::SessionTimeout, "g", "m");
        assert!(
            !t.by_group.contains_key("g"),
            "an empty group's entry is dropped"
        );
        assert_eq!(t.len(), 1);
    }

    /// Against a model (one ordered map of `(deadline, key)`): whatever the order of the
    /// operations, the wheel holds the same timers, lists them in firing order and fires them
    /// in that order. The maps inside are ordered from the last key to the first; only what
    /// they hold may be seen.
    #[cfg(not(target_arch = "wasm32"))]
    mod model {
        use super::*;
        use proptest::prelude::*;

        #[derive(Clone, Debug)]
        enum Op {
            Schedule(TimerKind, usize, usize, i64),
            ScheduleNew(TimerKind, usize, usize, i64),
            Cancel(TimerKind, usize, usize),
            CancelGroup(usize, Option<TimerKind>),
            PopDue(i64),
        }

        const GROUPS: [&str; 3] = ["a", "b", "g"];
        const SUBJECTS: [&str; 5] = ["", "m", "m0", "m1", "n"];

        fn kind() -> impl Strategy<Value = TimerKind> {
            prop_oneof![
                Just(TimerKind::SessionTimeout),
                Just(TimerKind::RebalanceTimeout),
                Just(TimerKind::Retention),
            ]
        }

        fn op() -> impl Strategy<Value = Op> {
            let (g, s, d) = (0..GROUPS.len(), 0..SUBJECTS.len(), 0i64..40);
            prop_oneof![
                4 => (kind(), g.clone(), s.clone(), d.clone())
                    .prop_map(|(k, g, s, d)| Op::Schedule(k, g, s, d)),
                2 => (kind(), g.clone(), s.clone(), d.clone())
                    .prop_map(|(k, g, s, d)| Op::ScheduleNew(k, g, s, d)),
                2 => (kind(), g.clone(), s).prop_map(|(k, g, s)| Op::Cancel(k, g, s)),
                1 => (g, proptest::option::of(kind())).prop_map(|(g, k)| Op::CancelGroup(g, k)),
                2 => d.prop_map(Op::PopDue),
            ]
        }

        proptest! {
            #[test]
            fn the_wheel_holds_and_fires_what_the_model_does(
                ops in proptest::collection::vec(op(), 0..80)
            ) {
                let mut t = Timers::default();
                let mut model: BTreeMap<TimerKey, i64> = BTreeMap::new();
                for op in ops {
                    match op {
                        Op::Schedule(k, g, s, d) | Op::ScheduleNew(k, g, s, d) => {
                            if matches!(op, Op::Schedule(..)) {
                                t.schedule_at(k, GROUPS[g], SUBJECTS[s], d, TimerData::None);
                            } else {
                                t.schedule_new_at(k, GROUPS[g], SUBJECTS[s], d, TimerData::None);
                            }
                            model.insert(key(k, GROUPS[g], SUBJECTS[s]), d);
                        }
                        Op::Cancel(k, g, s) => {
                            let got = t.cancel_at(k, GROUPS[g], SUBJECTS[s]).map(|x| x.deadline);
                            prop_assert_eq!(got, model.remove(&key(k, GROUPS[g], SUBJECTS[s])));
                        }
                        Op::CancelGroup(g, k) => {
                            t.cancel_group(GROUPS[g], k);
                            model.retain(|key, _| {
                                &*key.group_id != GROUPS[g] || k.is_some_and(|k| k != key.kind)
                            });
                        }
                        Op::PopDue(now) => {
                            let due = model
                                .iter()
                                .filter(|(_, &d)| d <= now)
                                .min_by(|(a, da), (b, db)| da.cmp(db).then_with(|| a.cmp(b)))
                                .map(|(k, &d)| (k.clone(), d));
                            if let Some((k, _)) = &due {
                                model.remove(k);
                            }
                            prop_assert_eq!(t.pop_due(now).map(|(k, x)| (k, x.deadline)), due);
                        }
                    }
                    let mut expected: Vec<(TimerKey, i64)> =
                        model.iter().map(|(k, &d)| (k.clone(), d)).collect();
                    expected.sort_by(|(a, da), (b, db)| da.cmp(db).then_with(|| a.cmp(b)));
                    let listed: Vec<(TimerKey, i64)> =
                        t.iter().map(|(k, x)| (k.clone(), x.deadline)).collect();
                    prop_assert_eq!(listed, expected);
                    prop_assert_eq!(t.next_deadline(), model.values().min().copied());
                    for (k, &d) in &model {
                        let got = t.get_at(k.kind, &k.group_id, &k.subject).map(|x| x.deadline);
                        prop_assert_eq!(got, Some(d));
                    }
                }
            }
        }
    }
}

//! The keyed timer wheel (DESIGN 2, PROTOCOL 2.9): timers are scheduled and cancelled by key,
//! and fire in deadline order, ties broken by key.

use std::collections::{BTreeMap, BTreeSet};

/// Timer kinds, in the order that breaks deadline ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerKind {
    SessionTimeout,
    RebalanceTimeout,
    TopologyInitialization,
    InitialRebalanceDelay,
    Retention,
    /// Assignment batching: the group's next target assignment is due.
    AssignmentInterval,
}

impl TimerKind {
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

/// Kind, group, then member id or topology id (empty for group-level timers).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerKey {
    pub kind: TimerKind,
    pub group_id: String,
    pub subject: String,
}

impl TimerKey {
    pub fn new(kind: TimerKind, group_id: &str, subject: &str) -> Self {
        TimerKey {
            kind,
            group_id: group_id.to_string(),
            subject: subject.to_string(),
        }
    }
}

/// What a timer remembers for the check it makes when it fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimerData {
    None,
    /// Rebalance timeout: the member epoch it was armed for.
    MemberEpoch(i32),
    /// Topology initialization: the asked member.
    AskedMember(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    pub deadline: i64,
    pub data: TimerData,
}

#[derive(Clone, Debug, Default)]
pub struct Timers {
    by_key: BTreeMap<TimerKey, Timer>,
    queue: BTreeSet<(i64, TimerKey)>,
}

impl Timers {
    /// Schedules `key`, replacing a pending timer with the same key.
    pub fn schedule(&mut self, key: TimerKey, deadline: i64, data: TimerData) {
        self.cancel(&key);
        self.queue.insert((deadline, key.clone()));
        self.by_key.insert(key, Timer { deadline, data });
    }

    pub fn cancel(&mut self, key: &TimerKey) -> Option<Timer> {
        let timer = self.by_key.remove(key)?;
        self.queue.remove(&(timer.deadline, key.clone()));
        Some(timer)
    }

    /// Cancels every timer of a group (optionally of one kind).
    pub fn cancel_group(&mut self, group_id: &str, kind: Option<TimerKind>) {
        let keys: Vec<TimerKey> = self
            .by_key
            .keys()
            .filter(|k| k.group_id == group_id && kind.is_none_or(|kind| k.kind == kind))
            .cloned()
            .collect();
        for k in keys {
            self.cancel(&k);
        }
    }

    pub fn get(&self, key: &TimerKey) -> Option<&Timer> {
        self.by_key.get(key)
    }

    /// Removes and returns the earliest timer due at or before `now`.
    pub fn pop_due(&mut self, now: i64) -> Option<(TimerKey, Timer)> {
        // Peek first: the common answer is "nothing due", and it must not copy a key.
        if self.queue.first()?.0 > now {
            return None;
        }
        let (_, key) = self.queue.pop_first()?;
        let timer = self.by_key.remove(&key)?;
        Some((key, timer))
    }

    /// The earliest pending deadline.
    pub fn next_deadline(&self) -> Option<i64> {
        self.queue.first().map(|(d, _)| *d)
    }

    /// Every pending timer in firing order.
    pub fn iter(&self) -> impl Iterator<Item = (&TimerKey, &Timer)> {
        self.queue
            .iter()
            .filter_map(|(_, k)| self.by_key.get(k).map(|t| (k, t)))
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
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
}

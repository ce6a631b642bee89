//! Task assignors (PROTOCOL 2.10).
//!
//! An assignor is a pure function from a [`GroupSpec`] (members with their previous targets, the
//! subtopologies with their task counts, `num.standby.replicas`) to a target [`Assignment`] per
//! member. Three assignors exist:
//!
//! - [`StickyAssignor`] (`sticky`, the default): balanced, sticky, standby-aware, deterministic.
//! - [`KafkaStickyAssignor`]: Apache Kafka's own `StickyTaskAssignor` of a given
//!   [`KafkaRelease`], reproduced placement for placement (Java's orders included).
//! - `manual`: no assignor runs; the host sets targets with `SetTargetAssignment`, whose input
//!   [`validate_manual`] checks.
//!
//! [`tasks_moved`] counts the active tasks that changed owner between two targets, for the
//! coordinator's `explain` output.
//!
//! ```
//! use streams_group_coordinator::assignor::{
//!     GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec,
//! };
//!
//! let members = vec![
//!     MemberSpec { member_id: "a".into(), process_id: "p1".into(), ..Default::default() },
//!     MemberSpec { member_id: "b".into(), process_id: "p2".into(), ..Default::default() },
//! ];
//! let subtopologies = vec![SubtopologySpec { subtopology_id: "0".into(), num_tasks: 2, stateful: true }];
//! let spec = GroupSpec::new(&members, &subtopologies, 1);
//! let target = StickyAssignor.assign(&spec).unwrap();
//! assert_eq!(target["a"].active["0"].len() + target["b"].active["0"].len(), 2);
//! assert_eq!(target["a"].standby["0"].len(), 1);
//! ```

mod kafka;
mod manual;
mod sticky;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use crate::tasks::{count, Assignment, TargetMap};

pub use kafka::{KafkaRelease, KafkaStickyAssignor};
pub use manual::{validate_manual, ManualTarget};
pub use sticky::{Computation, Memo, StickyAssignor, Warmup};

/// One member as the assignor sees it. The strings may be borrowed (a coordinator lends its
/// members' own) or owned (`"m1".into()`, `format!(..).into()`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberSpec<'a> {
    /// The member id.
    pub member_id: Cow<'a, str>,
    /// The process it runs in (no two copies of a task on one process).
    pub process_id: Cow<'a, str>,
    /// The static member's instance id.
    pub instance_id: Option<Cow<'a, str>>,
    /// The member's rack.
    pub rack_id: Option<Cow<'a, str>>,
    /// The member's client tags (borrowed where the caller keeps them: an empty set costs
    /// nothing to drop).
    pub client_tags: Cow<'a, BTreeMap<String, String>>,
    /// The member's previous target (empty if none); borrowed like the strings.
    pub previous: Cow<'a, Assignment>,
    /// Reported changelog offsets per task `(subtopology, partition, offset)`; `-2` (Kafka's
    /// `LATEST_OFFSET`) marks a running active task, which is caught up.
    pub task_offsets: Vec<(String, i32, i64)>,
    /// Reported changelog end offsets per task.
    pub task_end_offsets: Vec<(String, i32, i64)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// One subtopology as the assignor sees it.
pub struct SubtopologySpec {
    /// The subtopology id.
    pub subtopology_id: String,
    /// Its task count.
    pub num_tasks: i32,
    /// Whether its tasks have state (only those get standbys).
    pub stateful: bool,
}

/// Everything an assignor needs; members sorted by member id, subtopologies by id.
///
/// The sticky assignor does not rely on the order: it sorts internally, so the same group given
/// in another order yields the same targets.
#[derive(Clone, Copy, Debug)]
pub struct GroupSpec<'a> {
    /// The members.
    pub members: &'a [MemberSpec<'a>],
    /// The subtopologies.
    pub subtopologies: &'a [SubtopologySpec],
    /// `group.streams.num.standby.replicas`.
    pub num_standby_replicas: i32,
    /// Client-tag keys over whose values standbys spread, beside the rack id
    /// (`group.streams.rack.aware.assignment.tags`).
    pub rack_aware_tags: &'a [String],
    /// Largest lag at which a member counts as caught up on a task
    /// (`group.streams.acceptable.recovery.lag`).
    pub acceptable_recovery_lag: i64,
    /// Warm-ups the group holds at once at most (`group.streams.num.warmup.replicas`).
    pub num_warmup_replicas: i32,
    /// The previous targets by member id, read instead of each member's `previous` when set:
    /// the coordinator lends its stored targets rather than copying one per member.
    pub previous_targets: Option<&'a TargetMap>,
    /// What the group's last computation left ([`Computation::into_memo`]), when every member
    /// it had still holds exactly the target it computed (as lent or as its own `previous`).
    /// Those members' previous targets are then read from it, in task indices, instead of from
    /// their maps; the result is the same. A memo over other subtopologies (ids or task counts)
    /// is ignored.
    pub memo: Option<&'a Memo>,
}

impl<'a> GroupSpec<'a> {
    /// A spec with no rack-aware tags and Kafka's defaults for the lag settings (which matter
    /// only when members report task offsets).
    #[must_use]
    pub fn new(
        members: &'a [MemberSpec<'a>],
        subtopologies: &'a [SubtopologySpec],
        num_standby_replicas: i32,
    ) -> Self {
        GroupSpec {
            members,
            subtopologies,
            num_standby_replicas,
            rack_aware_tags: &[],
            acceptable_recovery_lag: 10_000,
            num_warmup_replicas: 2,
            previous_targets: None,
            memo: None,
        }
    }

    /// The previous target of `member` as a target computation compares against: the entry in
    /// `previous_targets` when set (`None` when it has none there), its own `previous`
    /// otherwise.
    #[must_use]
    pub fn previous_entry(&self, member: &'a MemberSpec<'a>) -> Option<&'a Assignment> {
        match self.previous_targets {
            Some(targets) => targets.get(member.member_id.as_ref()),
            None => Some(member.previous.as_ref()),
        }
    }

    /// The previous target of `member`: from `previous_targets` when set (empty if it has none
    /// there), from the member's own `previous` otherwise.
    #[must_use]
    pub fn previous_of(&self, member: &'a MemberSpec<'a>) -> &'a Assignment {
        match self.previous_targets {
            Some(targets) => targets
                .get(member.member_id.as_ref())
                .unwrap_or(member.previous.as_ref()),
            None => member.previous.as_ref(),
        }
    }
}

/// A member's lag on a task, by docs/assignor.md's rule: 0 for a reported offset of `-2`;
/// otherwise the task's end offset (the largest any member reported) minus the member's reported
/// offset, at least 0; `None` when either is unknown.
#[must_use]
pub fn task_lag(
    members: &[MemberSpec<'_>],
    member: &MemberSpec<'_>,
    sub: &str,
    partition: i32,
) -> Option<u64> {
    let end = members
        .iter()
        .flat_map(|m| &m.task_end_offsets)
        .filter(|(s, p, _)| s == sub && *p == partition)
        .map(|&(_, _, o)| o)
        .max();
    member
        .task_offsets
        .iter()
        .filter(|(s, p, _)| s == sub && *p == partition)
        .filter_map(|&(_, _, o)| match (o, end) {
            (-2, _) => Some(0),
            (o, Some(e)) if o >= 0 => Some(u64::try_from(e.saturating_sub(o)).unwrap_or(0)),
            _ => None,
        })
        .min()
}

/// Number of active tasks whose owner in `next` differs from their owner in `previous`.
///
/// - Only active tasks count; standby and warm-up placements are ignored.
/// - A task without an owner in `previous` (a new task, or one nobody held) does not count.
/// - A task whose previous owner is gone from `next` counts once it has a new owner in `next`;
///   a task that has no owner in `next` (it no longer exists) does not count.
/// - If several members of `previous` claim the same active task, the smallest member id is its
///   previous owner (as in PROTOCOL 2.10). If several members of `next` claim it, each claimer
///   other than the previous owner counts.
#[must_use]
pub fn tasks_moved<'a, 'b>(
    previous: impl IntoIterator<Item = (&'a String, &'a Assignment)>,
    next: impl IntoIterator<Item = (&'b String, &'b Assignment)> + Clone,
) -> u64 {
    // Hash map for lookup only: the count does not depend on iteration order. Sized for the
    // new targets' active tasks (as many as the previous ones, give or take the changes).
    let tasks: usize = next
        .clone()
        .into_iter()
        .map(|(_, a)| count(&a.active))
        .sum();
    let mut owner: HashMap<(&str, i32), &str, BuildHasherDefault<TaskHasher>> =
        HashMap::with_capacity_and_hasher(tasks, BuildHasherDefault::default());
    // BTreeMap iteration is in member-id order, so the first claim is the smallest member id.
    for (member, assignment) in previous {
        for (sub, parts) in &assignment.active {
            for &p in parts {
                owner.entry((sub, p)).or_insert(member.as_str());
            }
        }
    }
    let mut moved = 0u64;
    for (member, assignment) in next {
        for (sub, parts) in &assignment.active {
            for &p in parts {
                if let Some(&prev) = owner.get(&(sub, p)) {
                    if prev != member.as_str() {
                        moved += 1;
                    }
                }
            }
        }
    }
    moved
}

/// A multiply-rotate hasher (FxHash's) for task keys of look-up-only maps: a few cycles a key
/// where SipHash, made to resist hostile keys, costs tens; the keys here come from the
/// coordinator's own targets and the maps never decide an order.
#[derive(Default)]
struct TaskHasher(u64);

impl TaskHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for TaskHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_i32(&mut self, n: i32) {
        self.add(u64::from(n as u32));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Number of active tasks of `orphaned` (tasks whose owner left the group since the previous
/// target) that have an owner in `next` and none in `previous`: tasks handed over from members
/// that are gone, which [`tasks_moved`] does not count. Each task counts once.
#[must_use]
pub fn tasks_reassigned<'a, 'b>(
    orphaned: &std::collections::BTreeSet<(String, i32)>,
    previous: impl IntoIterator<Item = (&'a String, &'a Assignment)> + Clone,
    next: impl IntoIterator<Item = (&'b String, &'b Assignment)> + Clone,
) -> u64 {
    let holds = |a: &Assignment, sub: &str, p: i32| a.active.contains(sub, p);
    orphaned
        .iter()
        .filter(|(sub, p)| {
            next.clone().into_iter().any(|(_, a)| holds(a, sub, *p))
                && !previous.clone().into_iter().any(|(_, a)| holds(a, sub, *p))
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::TaskMap;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// (subtopology, partitions) entries of one member's active tasks.
    type Active<'a> = &'a [(&'a str, &'a [i32])];

    fn target(entries: &[(&str, Active<'_>)]) -> BTreeMap<String, Assignment> {
        entries
            .iter()
            .map(|(m, active)| {
                let active: TaskMap = active
                    .iter()
                    .map(|(s, p)| (s.to_string(), p.iter().copied()))
                    .collect();
                (
                    m.to_string(),
                    Assignment {
                        active,
                        ..Default::default()
                    },
                )
            })
            .collect()
    }

    #[test]
    fn assignor_tasks_moved_counts_changed_active_owners_only() {
        let prev = target(&[("a", &[("0", &[0, 1, 2])]), ("b", &[("0", &[3])])]);
        let next = target(&[
            ("a", &[("0", &[0])]),
            ("b", &[("0", &[3, 1])]),
            ("c", &[("0", &[2]), ("1", &[0])]),
        ]);
        // (0,1) a->b, (0,2) a->c; (1,0) is new.
        assert_eq!(tasks_moved(&prev, &next), 2);
        assert_eq!(tasks_moved(&prev, &prev), 0);
        assert_eq!(tasks_moved(&BTreeMap::new(), &next), 0);
    }

    #[test]
    fn assignor_tasks_moved_departed_owner_and_conflicting_claims() {
        // Both a and b claim (0,0): a, the smaller id, is its previous owner.
        let prev = target(&[("a", &[("0", &[0])]), ("b", &[("0", &[0, 1])])]);
        let next = target(&[("b", &[("0", &[0])]), ("c", &[("0", &[1])])]);
        assert_eq!(tasks_moved(&prev, &next), 2);
        // A task that disappears is not a move.
        let next = target(&[("a", &[("0", &[0])])]);
        assert_eq!(tasks_moved(&prev, &next), 0);
    }

    #[test]
    fn assignor_tasks_reassigned_counts_orphans_given_to_others() {
        // c left holding (0,2) and (0,3); (0,3) no longer exists in the new target.
        let orphaned = [("0".to_string(), 2), ("0".to_string(), 3)]
            .into_iter()
            .collect();
        let prev = target(&[("a", &[("0", &[0])]), ("b", &[("0", &[1])])]);
        let next = target(&[("a", &[("0", &[0, 2])]), ("b", &[("0", &[1])])]);
        assert_eq!(tasks_reassigned(&orphaned, &prev, &next), 1);
        assert_eq!(tasks_moved(&prev, &next), 0);
        // A task a remaining member already holds in the previous target is not reassigned.
        let prev = target(&[("a", &[("0", &[0, 2])])]);
        assert_eq!(tasks_reassigned(&orphaned, &prev, &next), 0);
        assert_eq!(tasks_reassigned(&Default::default(), &prev, &next), 0);
    }
}

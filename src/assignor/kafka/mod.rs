//! Kafka's own streams assignor (`StickyTaskAssignor` of Apache Kafka's group coordinator), per
//! release, placing every task as Kafka does, tie-breaks included (docs/assignor.md, "Kafka's
//! sticky assignor").
//!
//! Kafka breaks ties by the iteration order of `java.util.HashMap`s keyed by member and process
//! ids and by the heap order of `java.util.PriorityQueue`s; both are emulated (`crate::java`).
//! The one order Kafka takes from outside the assignor is the order in which the members were
//! put into the map handed to it: [`KafkaStickyAssignor::assign`] takes it from the order of
//! `GroupSpec::members` (see there for what a coordinator must pass).
//!
//! Files: `input` reads the spec into Kafka's local state (members, processes, tasks, previous
//! owners), `process` is Kafka's `ProcessState`, `place` its active and standby steps.

use std::collections::BTreeMap;

use super::GroupSpec;
use crate::ordered::Ordered;
use crate::tasks::{Assignment, TaskMap};

mod input;
mod place;
mod process;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_kafka;

use input::{member_order, State};

/// A release of Apache Kafka whose assignor to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KafkaRelease {
    /// 4.2.0.
    V4_2,
    /// 4.3.0 (its assignor places as 4.2.0's does).
    V4_3,
    /// The 4.4 branch.
    V4_4,
}

impl KafkaRelease {
    /// 4.2 and 4.3 list a task's previous standbys in member order, in lists sized for the
    /// standby count, and add processes to their map with `putIfAbsent`; 4.4 ranks standby
    /// candidates (previous standbys, then members reporting offsets for the task) by offset
    /// sum, and adds processes with `computeIfAbsent`.
    fn prev_standby_lists_sized(self) -> bool {
        matches!(self, KafkaRelease::V4_2 | KafkaRelease::V4_3)
    }
}

/// Kafka's sticky assignor (`sticky` in Kafka) of one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KafkaStickyAssignor {
    /// The release whose placement to reproduce.
    pub release: KafkaRelease,
}

impl KafkaStickyAssignor {
    /// The assignor of `release`.
    #[must_use]
    pub fn new(release: KafkaRelease) -> Self {
        KafkaStickyAssignor { release }
    }

    /// The assignor's name in Kafka.
    pub fn name(&self) -> &'static str {
        "sticky"
    }

    /// A target for every member, as Kafka's coordinator computes it.
    ///
    /// `spec.members` must come in the order in which Kafka's `TargetAssignmentBuilder` puts
    /// the members into its `HashMap` of member specs: the group's members in the iteration
    /// order of the group's member map (`TimelineHashMap`), then (4.2, 4.3) the member of the
    /// heartbeat being handled if it is not among them. An id given twice keeps the place of
    /// its first entry and the spec of its last, as a re-put does. The assignor then iterates
    /// the members in that `HashMap`'s order.
    ///
    /// Previous tasks: for 4.2 and 4.3, the members' previous *target* assignments; for 4.4,
    /// the tasks each member *currently owns* (Kafka 4.4 reads those), and `task_offsets`
    /// (4.4 ranks standby candidates by them). `spec.num_standby_replicas` is Kafka's
    /// `num.standby.replicas` (0 when the group has no assignment configs). Rack ids, client
    /// tags, warm-ups, end offsets, the lag and warm-up settings are read by no release's
    /// assignor and are ignored.
    ///
    /// Errors where Kafka's assignor throws: active tasks but no member (`No process available
    /// to assign active task 0_0.`), and the capacities Java rejects (negative task counts or
    /// standby replicas that make a negative collection size). Also rejected: duplicate
    /// subtopology ids and more than 2^24 tasks in all.
    pub fn assign(&self, spec: &GroupSpec<'_>) -> Result<BTreeMap<String, Assignment>, String> {
        let members = member_order(spec, true);
        self.run(spec, &members)
    }

    /// [`KafkaStickyAssignor::assign`] with `spec.members` taken as the iteration order of the
    /// assignor's member map itself (as Kafka's own assignor tests build it, a
    /// `LinkedHashMap`), not as the insertion order of a `HashMap`.
    pub fn assign_in_iteration_order(
        &self,
        spec: &GroupSpec<'_>,
    ) -> Result<BTreeMap<String, Assignment>, String> {
        let members = member_order(spec, false);
        self.run(spec, &members)
    }

    fn run<'s>(
        &self,
        spec: &GroupSpec<'s>,
        members: &[&'s crate::assignor::MemberSpec<'s>],
    ) -> Result<BTreeMap<String, Assignment>, String> {
        let mut state = State::build(self.release, spec, members)?;
        state.assign_active()?;
        if state.num_standby > 0 {
            state.assign_standby()?;
        }
        Ok(state.output())
    }
}

impl State<'_> {
    fn task_map(&self, tasks: &[usize]) -> TaskMap {
        let mut by_sub: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for &t in tasks {
            by_sub
                .entry(self.sub_ids[self.task_sub[t]])
                .or_default()
                .push(self.task_partition[t]);
        }
        by_sub.into_iter().collect()
    }

    fn output(&self) -> BTreeMap<String, Assignment> {
        self.member_ids
            .iter()
            .enumerate()
            .map(|(m, id)| {
                (
                    (*id).to_string(),
                    Assignment {
                        active: self.task_map(&self.active[m]),
                        standby: self.task_map(&self.standby[m]),
                        warmup: TaskMap::default(),
                    },
                )
            })
            .to_map()
    }
}

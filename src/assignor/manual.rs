//! The manual assignor's input validation (PROTOCOL 2.10, `SetTargetAssignment`).
//!
//! Checks 1 (group exists) and 2 (the coordinator uses the manual assignor) belong to the
//! coordinator; this module runs checks 3-8 on the listed targets.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::SubtopologySpec;
use crate::ordered;
use crate::records::TaskIds;

/// One member's target as listed in a `SetTargetAssignment` input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManualTarget {
    /// The member the target is for.
    pub member_id: String,
    /// Its active tasks.
    pub active: Vec<TaskIds>,
    /// Its standby tasks.
    pub standby: Vec<TaskIds>,
    /// Its warm-up tasks.
    pub warmup: Vec<TaskIds>,
}

impl ManualTarget {
    /// Every listed task with its role (`true` for active), in scan order: `active`, `standby`,
    /// `warmup`, each entry and partition in the given order.
    fn tasks(&self) -> impl Iterator<Item = (bool, &str, i32)> {
        role_tasks(&self.active, true)
            .chain(role_tasks(&self.standby, false))
            .chain(role_tasks(&self.warmup, false))
    }
}

fn role_tasks(list: &[TaskIds], active: bool) -> impl Iterator<Item = (bool, &str, i32)> {
    list.iter().flat_map(move |e| {
        e.partitions
            .iter()
            .map(move |&p| (active, e.subtopology_id.as_str(), p))
    })
}

/// Checks 3-8 of the SetTargetAssignment table in PROTOCOL 2.10, in that order, scanning members
/// in member-id order (sorted here; the sort is stable, so a member listed twice keeps its given
/// order) and each list/entry/partition in given order; returns the exact message of the first
/// failure.
///
/// `members`: member id -> process id of the group's members. `topology`: `None` when the group
/// has no ready topology, else the subtopologies with task counts.
///
/// A "task" is one partition of an entry: an entry with no partitions lists no task, so it is
/// not checked by 4 or 5 even if it names an unknown subtopology. Check 4 applies only if some
/// task is listed at all.
pub fn validate_manual(
    group_id: &str,
    members: &BTreeMap<String, String>,
    topology: Option<&[SubtopologySpec]>,
    targets: &[ManualTarget],
) -> Result<(), String> {
    let mut sorted: Vec<&ManualTarget> = targets.iter().collect();
    ordered::sort_by(&mut sorted, |a, b| a.member_id.cmp(&b.member_id));

    // 3. Unknown members.
    if let Some(t) = sorted.iter().find(|t| !members.contains_key(&t.member_id)) {
        return Err(format!(
            "Member {} is not a member of group {group_id}.",
            t.member_id
        ));
    }

    // 4. Tasks without a ready topology.
    let any_task = sorted.iter().any(|t| t.tasks().next().is_some());
    let Some(topology) = topology else {
        if any_task {
            return Err(format!(
                "The topology of streams group {group_id} is not ready, so no tasks can be assigned."
            ));
        }
        return Ok(());
    };
    let num_tasks: HashMap<&str, i32> = topology
        .iter()
        .map(|s| (s.subtopology_id.as_str(), s.num_tasks))
        .collect();

    // 5. Unknown subtopologies.
    for t in &sorted {
        if let Some((_, sub, _)) = t.tasks().find(|(_, sub, _)| !num_tasks.contains_key(sub)) {
            return Err(format!("Subtopology {sub} does not exist in the topology."));
        }
    }

    // 6. Partitions out of range.
    for t in &sorted {
        for (_, sub, p) in t.tasks() {
            let n = num_tasks.get(sub).copied().unwrap_or(0);
            if p < 0 || p >= n {
                return Err(format!(
                    "Task {p} for subtopology {sub} is invalid. Number of tasks for this subtopology: {n}"
                ));
            }
        }
    }

    // 7. An active task on two different members.
    let mut active_owner: HashMap<(&str, i32), &str> = HashMap::new();
    for t in &sorted {
        for (active, sub, p) in t.tasks() {
            if !active {
                continue;
            }
            let first = *active_owner.entry((sub, p)).or_insert(t.member_id.as_str());
            if first != t.member_id {
                return Err(format!(
                    "Task {p} of subtopology {sub} is given as active to both {first} and {}.",
                    t.member_id
                ));
            }
        }
    }

    // 8. Two copies of a task on one process.
    let mut held: HashSet<(&str, &str, i32)> = HashSet::new();
    for t in &sorted {
        // Check 3 passed, so every listed member has a process.
        let process = members.get(&t.member_id).map_or("", String::as_str);
        for (_, sub, p) in t.tasks() {
            if !held.insert((process, sub, p)) {
                return Err(format!(
                    "Process {process} would hold two copies of task {p} of subtopology {sub}."
                ));
            }
        }
    }

    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use crate::tasks::wire_list as ids;

    fn target(
        m: &str,
        active: &[(&str, &[i32])],
        standby: &[(&str, &[i32])],
        warmup: &[(&str, &[i32])],
    ) -> ManualTarget {
        ManualTarget {
            member_id: m.into(),
            active: ids(active),
            standby: ids(standby),
            warmup: ids(warmup),
        }
    }

    fn members() -> BTreeMap<String, String> {
        [("a", "p1"), ("b", "p1"), ("c", "p2")]
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect()
    }

    fn topology() -> Vec<SubtopologySpec> {
        vec![
            SubtopologySpec {
                subtopology_id: "0".into(),
                num_tasks: 2,
                stateful: true,
            },
            SubtopologySpec {
                subtopology_id: "1".into(),
                num_tasks: 1,
                stateful: false,
            },
        ]
    }

    fn check(targets: &[ManualTarget]) -> Result<(), String> {
        validate_manual("g", &members(), Some(&topology()), targets)
    }

    #[test]
    fn assignor_manual_valid_assignment_passes() {
        let targets = [
            target("c", &[("0", &[1])], &[("0", &[0])], &[]),
            target("a", &[("0", &[0]), ("1", &[0])], &[], &[]),
            // Standby for a stateless subtopology, an entry without partitions: both allowed.
            target("b", &[("9", &[])], &[("1", &[0])], &[]),
        ];
        // b's standby (1,0) is on p1 with a's active (1,0): that is check 8.
        assert_eq!(
            check(&targets),
            Err("Process p1 would hold two copies of task 0 of subtopology 1.".into())
        );
        let targets = [
            target("c", &[("0", &[1])], &[("0", &[0]), ("1", &[0])], &[]),
            target("a", &[("0", &[0])], &[], &[]),
            target("b", &[("9", &[])], &[], &[]),
        ];
        assert_eq!(check(&targets), Ok(()));
        assert_eq!(check(&[]), Ok(()));
    }

    #[test]
    fn assignor_manual_check_3_unknown_member() {
        let targets = [
            target("zz", &[], &[], &[]),
            target("x", &[("7", &[0])], &[], &[]),
        ];
        assert_eq!(
            check(&targets),
            Err("Member x is not a member of group g.".into())
        );
    }

    #[test]
    fn assignor_manual_check_4_topology_not_ready() {
        let err = Err(
            "The topology of streams group g is not ready, so no tasks can be assigned.".into(),
        );
        let targets = [target("a", &[], &[], &[("0", &[0])])];
        assert_eq!(validate_manual("g", &members(), None, &targets), err);
        // Nothing listed: nothing to refuse.
        let targets = [target("a", &[("0", &[])], &[], &[])];
        assert_eq!(validate_manual("g", &members(), None, &targets), Ok(()));
        // Member check first.
        let targets = [target("q", &[("0", &[0])], &[], &[])];
        assert_eq!(
            validate_manual("g", &members(), None, &targets),
            Err("Member q is not a member of group g.".into())
        );
    }

    #[test]
    fn assignor_manual_check_5_unknown_subtopology() {
        // The first in scan order: member a before b, even though b's error is "earlier" in
        // input order; and check 5 before check 6 of member a.
        let targets = [
            target("b", &[("x", &[0])], &[], &[]),
            target("a", &[("0", &[5])], &[], &[("y", &[0])]),
        ];
        assert_eq!(
            check(&targets),
            Err("Subtopology y does not exist in the topology.".into())
        );
    }

    #[test]
    fn assignor_manual_check_6_invalid_partition() {
        let targets = [target("a", &[], &[("0", &[1, 2, -1])], &[])];
        assert_eq!(
            check(&targets),
            Err(
                "Task 2 for subtopology 0 is invalid. Number of tasks for this subtopology: 2"
                    .into()
            )
        );
        let targets = [target("a", &[("1", &[-1])], &[], &[])];
        assert_eq!(
            check(&targets),
            Err(
                "Task -1 for subtopology 1 is invalid. Number of tasks for this subtopology: 1"
                    .into()
            )
        );
    }

    #[test]
    fn assignor_manual_check_7_active_twice() {
        let targets = [
            target("c", &[("0", &[0])], &[], &[]),
            target("a", &[("0", &[1, 0])], &[], &[]),
        ];
        assert_eq!(
            check(&targets),
            Err("Task 0 of subtopology 0 is given as active to both a and c.".into())
        );
    }

    #[test]
    fn assignor_manual_check_8_two_copies_on_one_process() {
        // a and b share p1.
        let targets = [
            target("b", &[], &[("0", &[1])], &[]),
            target("a", &[("0", &[1])], &[], &[]),
        ];
        assert_eq!(
            check(&targets),
            Err("Process p1 would hold two copies of task 1 of subtopology 0.".into())
        );
        // One member listing a task twice, in one role.
        let targets = [target("c", &[("0", &[0]), ("0", &[0])], &[], &[])];
        assert_eq!(
            check(&targets),
            Err("Process p2 would hold two copies of task 0 of subtopology 0.".into())
        );
        // Active twice on one member is not check 7 (same member) but check 8.
        let targets = [target("c", &[("0", &[1, 1])], &[], &[])];
        assert_eq!(
            check(&targets),
            Err("Process p2 would hold two copies of task 1 of subtopology 0.".into())
        );
    }
}

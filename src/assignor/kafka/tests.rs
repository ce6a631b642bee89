//! The emulation on facts measured from Kafka and on random groups.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::{KafkaRelease, KafkaStickyAssignor};
use crate::assignor::{GroupSpec, MemberSpec, SubtopologySpec};
use crate::tasks::{Assignment, TaskMap};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

pub(super) fn member<'a>(
    id: &str,
    process: &str,
    active: TaskMap,
    standby: TaskMap,
) -> MemberSpec<'a> {
    MemberSpec {
        member_id: id.to_string().into(),
        process_id: process.to_string().into(),
        previous: Cow::Owned(Assignment {
            active,
            standby,
            warmup: TaskMap::default(),
        }),
        ..Default::default()
    }
}

pub(super) fn sub(id: &str, num_tasks: i32, stateful: bool) -> SubtopologySpec {
    SubtopologySpec {
        subtopology_id: id.to_string(),
        num_tasks,
        stateful,
    }
}

fn actives(target: &BTreeMap<String, Assignment>, id: &str) -> Vec<i32> {
    target[id].active.tasks().map(|(_, p)| p).collect()
}

#[test]
fn kafka_4_2_measured_three_joins_into_two_processes() {
    // Measured through Kafka 4.2.0's coordinator: m1 (p2), m2 (p1), m3 (p2) join one after
    // the other; each join computes a target from the previous ones.
    let subs = [sub("0", 4, false)];
    let kafka = KafkaStickyAssignor::new(KafkaRelease::V4_2);
    let none = TaskMap::default;
    let step1 = kafka
        .assign(&GroupSpec::new(
            &[member("m1", "p2", none(), none())],
            &subs,
            0,
        ))
        .unwrap();
    assert_eq!(actives(&step1, "m1"), [0, 1, 2, 3]);
    let members = [
        member("m1", "p2", step1["m1"].active.clone(), none()),
        member("m2", "p1", none(), none()),
    ];
    let step2 = kafka.assign(&GroupSpec::new(&members, &subs, 0)).unwrap();
    assert_eq!(actives(&step2, "m1"), [0, 1]);
    assert_eq!(actives(&step2, "m2"), [2, 3]);
    let members = [
        member("m1", "p2", step2["m1"].active.clone(), none()),
        member("m2", "p1", step2["m2"].active.clone(), none()),
        member("m3", "p2", none(), none()),
    ];
    let step3 = kafka.assign(&GroupSpec::new(&members, &subs, 0)).unwrap();
    // Task 0_3 is left for the fill step with p1 and p2 both at load 1: p1 comes first in
    // `processIdToState` ("p1" hashes to bucket 1 of 4, "p2" to 2), so m2 keeps it.
    assert_eq!(actives(&step3, "m1"), [0, 1]);
    assert_eq!(actives(&step3, "m2"), [2, 3]);
    assert_eq!(actives(&step3, "m3"), Vec::<i32>::new());
}

#[test]
fn kafka_4_2_three_members_from_nothing_in_one_go() {
    // All three with empty previous targets at once: p1 and p2 tie at load 0 and p1 (first
    // in the process map) is polled first; p2's two members then alternate.
    let subs = [sub("0", 4, false)];
    let none = TaskMap::default;
    let members = [
        member("m1", "p2", none(), none()),
        member("m2", "p1", none(), none()),
        member("m3", "p2", none(), none()),
    ];
    let target = KafkaStickyAssignor::new(KafkaRelease::V4_2)
        .assign(&GroupSpec::new(&members, &subs, 0))
        .unwrap();
    assert_eq!(actives(&target, "m1"), [1]);
    assert_eq!(actives(&target, "m2"), [0, 3]);
    assert_eq!(actives(&target, "m3"), [2]);
}

#[test]
fn kafka_errors_where_java_throws() {
    let kafka = KafkaStickyAssignor::new(KafkaRelease::V4_2);
    let subs = [sub("a", 2, true), sub("0", 1, false)];
    let err = kafka.assign(&GroupSpec::new(&[], &subs, 1)).unwrap_err();
    assert_eq!(err, "No process available to assign active task 0_0.");
    assert!(kafka
        .assign(&GroupSpec::new(&[], &[], 1))
        .unwrap()
        .is_empty());
    let members = [member("m", "p", TaskMap::default(), TaskMap::default())];
    let negative = [sub("0", -3, false)];
    assert!(kafka
        .assign(&GroupSpec::new(&members, &negative, 0))
        .is_err());
    let dup = [sub("0", 1, false), sub("0", 2, false)];
    assert!(kafka.assign(&GroupSpec::new(&members, &dup, 0)).is_err());
    // A negative standby count is harmless until a member has a previous standby (4.2 sizes a
    // list by it).
    assert!(kafka.assign(&GroupSpec::new(&members, &subs, -1)).is_ok());
    let standby: TaskMap = [("a", [0])].into_iter().collect();
    let members = [member("m", "p", TaskMap::default(), standby)];
    assert!(kafka.assign(&GroupSpec::new(&members, &subs, -1)).is_err());
    assert!(KafkaStickyAssignor::new(KafkaRelease::V4_4)
        .assign(&GroupSpec::new(&members, &subs, -1))
        .is_ok());
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Members (id, process, previous active, previous standby), subtopologies (tasks,
    /// stateful) and the standby count.
    type Group = (
        Vec<(u8, u8, Vec<(u8, u8)>, Vec<(u8, u8)>)>,
        Vec<(u8, bool)>,
        i32,
    );

    fn group() -> impl Strategy<Value = Group> {
        let task = (0u8..4, 0u8..8);
        let member = (
            0u8..12,
            0u8..5,
            proptest::collection::vec(task.clone(), 0..6),
            proptest::collection::vec(task, 0..6),
        );
        (
            proptest::collection::vec(member, 0..10),
            proptest::collection::vec((0u8..7, any::<bool>()), 0..4),
            -1i32..4,
        )
    }

    proptest! {
        #[test]
        fn kafka_never_panics_and_places_every_active_task_once((members, subs, standbys) in group()) {
            let subs: Vec<SubtopologySpec> = {
                let mut seen = std::collections::BTreeSet::new();
                subs.iter()
                    .enumerate()
                    .filter(|(k, _)| seen.insert(*k))
                    .map(|(k, &(n, stateful))| sub(&k.to_string(), i32::from(n), stateful))
                    .collect()
            };
            let specs: Vec<MemberSpec<'_>> = members
                .iter()
                .map(|(m, p, active, standby)| {
                    let map = |ts: &[(u8, u8)]| -> TaskMap {
                        ts.iter().map(|&(s, p)| (s.to_string(), [i32::from(p)])).collect()
                    };
                    member(&format!("m{m}"), &format!("p{p}"), map(active), map(standby))
                })
                .collect();
            let total: i32 = subs.iter().map(|s| s.num_tasks).sum();
            for release in [KafkaRelease::V4_2, KafkaRelease::V4_3, KafkaRelease::V4_4] {
                let kafka = KafkaStickyAssignor::new(release);
                let spec = GroupSpec::new(&specs, &subs, standbys);
                let result = kafka.assign(&spec);
                let result_in_order = kafka.assign_in_iteration_order(&spec);
                if specs.is_empty() {
                    prop_assert_eq!(result.is_err(), total > 0);
                    continue;
                }
                for target in [result, result_in_order] {
                    let Ok(target) = target else {
                        // Only a negative standby count with previous standbys (4.2, 4.3).
                        prop_assert!(standbys < 0 && release != KafkaRelease::V4_4);
                        continue;
                    };
                    let mut placed: Vec<(String, i32)> = target
                        .values()
                        .flat_map(|a| a.active.tasks().map(|(s, p)| (s.to_string(), p)))
                        .collect();
                    placed.sort();
                    let mut all: Vec<(String, i32)> = subs
                        .iter()
                        .flat_map(|s| (0..s.num_tasks).map(|p| (s.subtopology_id.clone(), p)))
                        .collect();
                    all.sort();
                    prop_assert_eq!(placed, all);
                    for (id, a) in &target {
                        // No member holds a task both as active and standby.
                        prop_assert!(a.active.tasks().all(|(s, p)| !a.standby.contains(s, p)), "{}", id);
                    }
                }
            }
        }
    }
}

//! The expectations of Kafka's `StickyTaskAssignorTest` (4.2.0, 4.3.0, 4.4), on the release
//! they hold for. Kafka's tests build the member map as a `LinkedHashMap`, so the members are
//! given in iteration order (`assign_in_iteration_order`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::tests::sub;
use super::{KafkaRelease, KafkaStickyAssignor};
use crate::assignor::{GroupSpec, MemberSpec, SubtopologySpec};
use crate::tasks::{Assignment, TaskMap};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use KafkaRelease::{V4_2, V4_3, V4_4};

const ALL: [KafkaRelease; 3] = [V4_2, V4_3, V4_4];

/// `(subtopology, partitions)` entries.
type Tasks<'a> = &'a [(&'a str, &'a [i32])];

fn map(tasks: Tasks<'_>) -> TaskMap {
    tasks.iter().map(|(s, p)| (*s, p.iter().copied())).collect()
}

/// A member: id, process, previous active, previous standby, reported offsets.
struct M<'a>(
    &'a str,
    &'a str,
    Tasks<'a>,
    Tasks<'a>,
    &'a [(&'a str, i32, i64)],
);

fn run(
    release: KafkaRelease,
    members: &[M<'_>],
    subs: &[SubtopologySpec],
    standbys: i32,
) -> BTreeMap<String, Assignment> {
    let specs: Vec<MemberSpec<'_>> = members
        .iter()
        .map(|M(id, process, active, standby, offsets)| MemberSpec {
            member_id: (*id).into(),
            process_id: (*process).into(),
            previous: Cow::Owned(Assignment {
                active: map(active),
                standby: map(standby),
                warmup: TaskMap::default(),
            }),
            task_offsets: offsets
                .iter()
                .map(|(s, p, o)| ((*s).to_string(), *p, *o))
                .collect(),
            ..Default::default()
        })
        .collect();
    KafkaStickyAssignor::new(release)
        .assign_in_iteration_order(&GroupSpec::new(&specs, subs, standbys))
        .unwrap()
}

fn active(target: &BTreeMap<String, Assignment>, id: &str) -> Vec<(String, i32)> {
    target[id]
        .active
        .tasks()
        .map(|(s, p)| (s.to_string(), p))
        .collect()
}

fn partitions(map: &TaskMap) -> Vec<i32> {
    map.tasks().map(|(_, p)| p).collect()
}

const T: &str = "test-subtopology";

#[test]
fn kafka_keeps_active_stickiness_with_more_clients_than_tasks() {
    let subs = [sub(T, 3, false)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[(T, &[0])], &[], &[]),
                M("member2", "process2", &[(T, &[2])], &[], &[]),
                M("member3", "process3", &[(T, &[1])], &[], &[]),
                M("member4", "process4", &[], &[], &[]),
                M("member5", "process5", &[], &[], &[]),
            ],
            &subs,
            0,
        );
        let got: Vec<Vec<i32>> = ["member1", "member2", "member3", "member4", "member5"]
            .iter()
            .map(|m| partitions(&target[*m].active))
            .collect();
        assert_eq!(got, [vec![0], vec![2], vec![1], vec![], vec![]]);
    }
}

#[test]
fn kafka_promotes_previous_standbys() {
    let subs = [sub(T, 3, false)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[], &[(T, &[2])], &[]),
                M("member2", "process2", &[], &[(T, &[1])], &[]),
                M("member3", "process3", &[], &[(T, &[0])], &[]),
            ],
            &subs,
            0,
        );
        assert_eq!(partitions(&target["member1"].active), [2]);
        assert_eq!(partitions(&target["member2"].active), [1]);
        assert_eq!(partitions(&target["member3"].active), [0]);
    }
}

#[test]
fn kafka_no_standby_where_the_active_is() {
    let subs = [sub(T, 2, true)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[], &[(T, &[0])], &[]),
                M("member2", "process2", &[], &[(T, &[1])], &[]),
            ],
            &subs,
            1,
        );
        assert_eq!(partitions(&target["member1"].active), [0]);
        assert_eq!(partitions(&target["member1"].standby), [1]);
        assert_eq!(partitions(&target["member2"].active), [1]);
        assert_eq!(partitions(&target["member2"].standby), [0]);
    }
}

#[test]
fn kafka_assigns_by_capacity_with_several_previous_standbys() {
    let subs = [sub(T, 3, false)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[(T, &[0])], &[(T, &[1])], &[]),
                M("member2_1", "process2", &[(T, &[2])], &[(T, &[1])], &[]),
                M("member2_2", "process2", &[], &[], &[]),
            ],
            &subs,
            0,
        );
        assert_eq!(partitions(&target["member1"].active), [0]);
        assert_eq!(partitions(&target["member2_1"].active), [2]);
        assert_eq!(partitions(&target["member2_2"].active), [1]);
    }
}

#[test]
fn kafka_assigns_multiple_standby_replicas() {
    let subs = [sub(T, 3, true)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[(T, &[0])], &[], &[]),
                M("member2", "process2", &[(T, &[1])], &[], &[]),
                M("member3", "process3", &[(T, &[2])], &[], &[]),
            ],
            &subs,
            2,
        );
        assert_eq!(partitions(&target["member1"].standby), [1, 2]);
        assert_eq!(partitions(&target["member2"].standby), [0, 2]);
        assert_eq!(partitions(&target["member3"].standby), [0, 1]);
    }
}

#[test]
fn kafka_no_standby_without_another_client() {
    let subs = [sub(T, 1, true)];
    for release in ALL {
        let target = run(
            release,
            &[M("member1", "process1", &[], &[], &[])],
            &subs,
            1,
        );
        assert!(target["member1"].standby.is_empty());
    }
}

#[test]
fn kafka_more_capacity_more_tasks() {
    let subs: Vec<SubtopologySpec> = (0..4).map(|k| sub(&format!("{T}{k}"), 3, false)).collect();
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[], &[], &[]),
                M("member2_1", "process2", &[], &[], &[]),
                M("member2_2", "process2", &[], &[], &[]),
            ],
            &subs,
            0,
        );
        let count = |m: &str| target[m].active.count();
        assert_eq!(count("member2_1") + count("member2_2"), 8);
        assert_eq!(count("member1"), 4);
    }
}

#[test]
fn kafka_moves_the_fewest_tasks_to_a_new_client() {
    let subs = [sub(T, 4, false)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[(T, &[0, 2])], &[], &[]),
                M("member2", "process2", &[(T, &[1, 3])], &[], &[]),
                M("member3", "process3", &[], &[], &[]),
            ],
            &subs,
            0,
        );
        let moved = partitions(&target["member3"].active);
        assert_eq!(moved.len(), 1);
        if [0, 2].contains(&moved[0]) {
            assert_eq!(partitions(&target["member2"].active), [1, 3]);
        } else {
            assert_eq!(partitions(&target["member1"].active), [0, 2]);
        }
    }
}

#[test]
fn kafka_new_client_takes_tasks_not_previously_active() {
    let s0 = "test-subtopology0";
    let s1 = "test-subtopology1";
    let s2 = "test-subtopology2";
    let subs = [sub(s0, 4, false), sub(s1, 4, false), sub(s2, 4, false)];
    for release in ALL {
        for (
            third,
            fourth,
            third_process,
            fourth_process,
            third_active,
            third_standby,
            fourth_standby,
        ) in [
            (
                "member3",
                "newMember",
                "process3",
                "process4",
                &[(s2, &[0, 1, 3][..])][..],
                &[(s0, &[2][..]), (s1, &[2][..])][..],
                &[
                    (s0, &[0, 1, 2, 3][..]),
                    (s1, &[0, 1, 2, 3][..]),
                    (s2, &[0, 1, 2, 3][..]),
                ][..],
            ),
            (
                "bounce_member1",
                "bounce_member2",
                "bounce1",
                "bounce2",
                &[][..],
                &[(s2, &[0, 1, 3][..])][..],
                &[(s0, &[2, 3][..]), (s1, &[0][..])][..],
            ),
        ] {
            let target = run(
                release,
                &[
                    M(
                        "member1",
                        "process1",
                        &[(s0, &[1]), (s1, &[2, 3])],
                        &[(s0, &[0]), (s1, &[1]), (s2, &[0, 1, 3])],
                        &[],
                    ),
                    M(
                        "member2",
                        "process2",
                        &[(s0, &[0]), (s1, &[1]), (s2, &[2])],
                        &[(s0, &[1, 2, 3]), (s1, &[0, 2, 3]), (s2, &[0, 1, 3])],
                        &[],
                    ),
                    M(third, third_process, third_active, third_standby, &[]),
                    M(fourth, fourth_process, &[], fourth_standby, &[]),
                ],
                &subs,
                0,
            );
            let t = |s: &str, ps: &[i32]| -> Vec<(String, i32)> {
                ps.iter().map(|&p| (s.to_string(), p)).collect()
            };
            assert_eq!(
                active(&target, "member1"),
                [t(s0, &[1]), t(s1, &[2, 3])].concat()
            );
            assert_eq!(
                active(&target, "member2"),
                [t(s0, &[0]), t(s1, &[1]), t(s2, &[2])].concat()
            );
            assert_eq!(active(&target, third), t(s2, &[0, 1, 3]));
            assert_eq!(
                active(&target, fourth),
                [t(s0, &[2, 3]), t(s1, &[0])].concat()
            );
        }
    }
}

#[test]
fn kafka_new_client_without_flipping_existing_and_bounced() {
    let subs = [sub(T, 7, false)];
    for release in ALL {
        let target = run(
            release,
            &[
                M("member1", "process1", &[(T, &[0, 1, 2, 6])], &[], &[]),
                M("member2", "process2", &[], &[(T, &[3, 4, 5])], &[]),
                M("newMember", "newProcess", &[], &[], &[]),
            ],
            &subs,
            0,
        );
        let m1 = partitions(&target["member1"].active);
        let m2 = partitions(&target["member2"].active);
        assert!(m1.iter().all(|p| ![3, 4, 5].contains(p)) && m1.len() == 3);
        assert!(m2.iter().all(|p| ![0, 1, 2].contains(p)) && m2.len() == 2);
        assert_eq!(target["newMember"].active.count(), 2);
    }
}

#[test]
fn kafka_4_4_standby_to_a_previous_standby_without_the_active() {
    let subs = [sub(T, 3, true)];
    let target = run(
        V4_4,
        &[
            M("member1", "process1", &[], &[(T, &[2])], &[]),
            M("member2", "process2", &[(T, &[0])], &[(T, &[2])], &[]),
            M("member3", "process3", &[(T, &[1])], &[], &[]),
            M("member4", "process4", &[], &[], &[]),
        ],
        &subs,
        1,
    );
    let got: Vec<(Vec<i32>, Vec<i32>)> = ["member1", "member2", "member3", "member4"]
        .iter()
        .map(|m| {
            (
                partitions(&target[*m].active),
                partitions(&target[*m].standby),
            )
        })
        .collect();
    assert_eq!(got[0].0, [2]);
    assert_eq!(got[1], (vec![0], vec![2]));
    assert_eq!(got[2].0, [1]);
    assert!(got[3].0.is_empty());
    // One of the three layouts Kafka's test allows.
    let standbys = (got[0].1.clone(), got[2].1.clone(), got[3].1.clone());
    assert!(
        standbys == (vec![], vec![0], vec![1])
            || standbys == (vec![1], vec![], vec![0])
            || standbys == (vec![0], vec![], vec![1]),
        "{standbys:?}"
    );
}

#[test]
fn kafka_4_4_sticky_at_cold_start_from_reported_offsets() {
    // KAFKA-20719: fresh members with empty targets report offsets of the state they hold.
    let subs = [sub(T, 4, true)];
    let members = [
        M("member1", "process1", &[], &[], &[(T, 0, 100), (T, 1, 100)]),
        M("member2", "process2", &[], &[], &[(T, 2, 100), (T, 3, 100)]),
    ];
    let target = run(V4_4, &members, &subs, 0);
    assert_eq!(partitions(&target["member1"].active), [0, 1]);
    assert_eq!(partitions(&target["member2"].active), [2, 3]);
    // 4.2 and 4.3 ignore the offsets and deal the tasks round robin.
    for release in [V4_2, V4_3] {
        let target = run(release, &members, &subs, 0);
        assert_eq!(partitions(&target["member1"].active), [0, 2]);
        assert_eq!(partitions(&target["member2"].active), [1, 3]);
    }

    // Several members per process: the tasks stay on the process holding their state.
    let p1: &[(&str, i32, i64)] = &[(T, 0, 100), (T, 1, 100)];
    let p2: &[(&str, i32, i64)] = &[(T, 2, 100), (T, 3, 100)];
    let target = run(
        V4_4,
        &[
            M("member1_1", "process1", &[], &[], p1),
            M("member1_2", "process1", &[], &[], p1),
            M("member2_1", "process2", &[], &[], p2),
            M("member2_2", "process2", &[], &[], p2),
        ],
        &subs,
        0,
    );
    let merged = |a: &str, b: &str| {
        let mut ps = [partitions(&target[a].active), partitions(&target[b].active)].concat();
        ps.sort_unstable();
        ps
    };
    assert_eq!(merged("member1_1", "member1_2"), [0, 1]);
    assert_eq!(merged("member2_1", "member2_2"), [2, 3]);

    // With a standby, it goes to the other process.
    let target = run(
        V4_4,
        &[
            M("member1", "process1", &[], &[], &[(T, 0, 100)]),
            M("member2", "process2", &[], &[], &[(T, 1, 100)]),
        ],
        &[sub(T, 2, true)],
        1,
    );
    assert_eq!(partitions(&target["member1"].active), [0]);
    assert_eq!(partitions(&target["member2"].active), [1]);
    assert_eq!(partitions(&target["member1"].standby), [1]);
    assert_eq!(partitions(&target["member2"].standby), [0]);
}

#[test]
fn kafka_4_4_ranks_current_owners_before_reported_offsets() {
    let subs = [sub(T, 4, true)];
    let target = run(
        V4_4,
        &[
            M("member1", "process1", &[(T, &[0])], &[], &[]),
            M("member2", "process2", &[], &[(T, &[0, 1])], &[]),
            M(
                "member3",
                "process3",
                &[],
                &[],
                &[(T, 0, 1_000_000), (T, 1, 1_000_000), (T, 2, 100)],
            ),
            M("member4", "process4", &[], &[], &[(T, 2, 50)]),
        ],
        &subs,
        0,
    );
    for (m, p) in [
        ("member1", 0),
        ("member2", 1),
        ("member3", 2),
        ("member4", 3),
    ] {
        assert_eq!(partitions(&target[m].active), [p], "{m}");
    }
}

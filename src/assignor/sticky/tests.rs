use super::group::{id_cmp, partition_order};
use super::loads::LoadScale;
use super::standbys::PairCounts;
use super::*;
use crate::assignor::{MemberSpec, SubtopologySpec};
use crate::tasks::TaskMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Scaled process loads order as the fractions `load / capacity` do, in both scales.
#[test]
fn scaled_loads_order_as_fractions() {
    // Equal capacities, a small common multiple, and capacities whose multiple exceeds the
    // largest squared (the rounded scale).
    let groups: [&[u32]; 4] = [&[4, 4, 4], &[1, 2, 3, 4, 6], &[7, 11, 13, 17, 19, 23], &[1]];
    for capacity in groups {
        let scale = LoadScale::new(capacity, 200).expect("fits");
        let rounded = matches!(scale, LoadScale::Rounded { .. });
        assert_eq!(rounded, capacity.len() == 6, "{capacity:?}");
        for (p, &cp) in capacity.iter().enumerate() {
            for (q, &cq) in capacity.iter().enumerate() {
                for a in 0..60u64 {
                    for b in 0..60u64 {
                        let exact = (a * u64::from(cq)).cmp(&(b * u64::from(cp)));
                        let scaled = scale.scaled(p, a).cmp(&scale.scaled(q, b));
                        assert_eq!(scaled, exact, "{a}/{cp} vs {b}/{cq} in {capacity:?}");
                    }
                }
            }
        }
    }
    // Loads that cannot be scaled in 64 bits are refused, not wrapped.
    assert!(LoadScale::new(&[1 << 31, 3], u64::MAX / 2).is_none());
}

/// Both forms of the pair counts answer the same.
#[test]
fn pair_counts_dense_and_hashed_agree() {
    let mut dense = PairCounts::new(37, 10_000);
    assert!(matches!(dense, PairCounts::Bytes { .. }));
    // Ten billion pairs of processes for ten tasks: hashed.
    let mut hashed = PairCounts::new(100_000, 10);
    assert!(matches!(hashed, PairCounts::Hashed(_)));
    let mut x = 7u64;
    for _ in 0..3_000 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let (p, q) = ((x >> 33) as usize % 37, (x >> 13) as usize % 37);
        dense.add(p, q);
        hashed.add(p, q);
    }
    let (mut total, mut most) = (0, 0);
    for p in 0..37 {
        for q in 0..37 {
            assert_eq!(dense.get(p, q), hashed.get(p, q), "({p}, {q})");
            total += dense.get(p, q);
            most = most.max(dense.get(p, q));
        }
    }
    assert_eq!(total, 3_000);
    assert!(most > 1 && dense.get(1_000, 0) == 0);
    // A count past a byte widens the table, keeping every count.
    for _ in 0..300 {
        dense.add(5, 6);
        hashed.add(5, 6);
    }
    assert!(matches!(dense, PairCounts::Wide { .. }));
    for p in 0..37 {
        for q in 0..37 {
            assert_eq!(dense.get(p, q), hashed.get(p, q), "({p}, {q})");
        }
    }
}

#[test]
fn id_cmp_orders_as_str_does() {
    let ids = [
        "",
        "0",
        "00",
        "01",
        "1",
        "10",
        "11",
        "2",
        "a",
        "ab",
        "abc",
        "b",
        "é",
        "\u{0}",
        "\u{0}a",
        "subtopology-1",
        "subtopology-10",
        "subtopology-2",
    ];
    for a in ids {
        for b in ids {
            assert_eq!(id_cmp(a, b), a.cmp(b), "{a:?} vs {b:?}");
        }
    }
}

fn member(
    id: &str,
    process: &str,
    active: &[(&str, &[i32])],
    standby: &[(&str, &[i32])],
) -> MemberSpec<'static> {
    let map = |e: &[(&str, &[i32])]| -> TaskMap {
        e.iter()
            .map(|(s, p)| (s.to_string(), p.iter().copied()))
            .collect()
    };
    MemberSpec {
        member_id: id.to_string().into(),
        process_id: process.to_string().into(),
        previous: Assignment {
            active: map(active),
            standby: map(standby),
            warmup: TaskMap::new(),
        }
        .into(),
        ..Default::default()
    }
}

fn sub(id: &str, n: i32, stateful: bool) -> SubtopologySpec {
    SubtopologySpec {
        subtopology_id: id.into(),
        num_tasks: n,
        stateful,
    }
}

fn assign(
    members: &[MemberSpec],
    subs: &[SubtopologySpec],
    r: i32,
) -> BTreeMap<String, Assignment> {
    StickyAssignor
        .assign(&GroupSpec::new(members, subs, r))
        .unwrap()
}

fn tasks(a: &TaskMap) -> Vec<(String, i32)> {
    a.iter()
        .flat_map(|(s, ps)| ps.iter().map(move |&p| (s.to_string(), p)))
        .collect()
}

#[test]
fn lent_previous_targets_assign_as_the_members_own() {
    let members = vec![
        member("a", "p1", &[("0", &[0, 1, 2])], &[("0", &[3])]),
        member("b", "p2", &[("0", &[3])], &[("0", &[0])]),
        member("c", "p3", &[], &[]),
    ];
    let subs = [sub("0", 4, true)];
    let own = assign(&members, &subs, 1);
    let targets: crate::tasks::TargetMap = members
        .iter()
        .filter(|m| m.member_id != "c")
        .map(|m| (m.member_id.to_string(), m.previous.clone().into_owned()))
        .collect();
    let bare: Vec<MemberSpec> = members
        .iter()
        .map(|m| MemberSpec {
            previous: Assignment::default().into(),
            ..m.clone()
        })
        .collect();
    let lent = StickyAssignor
        .assign(&GroupSpec {
            previous_targets: Some(&targets),
            ..GroupSpec::new(&bare, &subs, 1)
        })
        .unwrap();
    assert_eq!(own, lent);
    assert_ne!(
        own,
        assign(&bare, &subs, 1),
        "the previous targets matter here"
    );
}

#[test]
fn assignor_name_is_sticky() {
    assert_eq!(StickyAssignor.name(), "sticky");
}

#[test]
fn assignor_worked_example_3_11() {
    let members = [
        member("A", "p1", &[("0", &[0, 1])], &[]),
        member("B", "p2", &[], &[]),
    ];
    let out = assign(&members, &[sub("0", 2, false)], 0);
    assert_eq!(tasks(&out["A"].active), vec![("0".into(), 0)]);
    assert_eq!(tasks(&out["B"].active), vec![("0".into(), 1)]);
    assert!(out["A"].standby.is_empty() && out["B"].standby.is_empty());
}

#[test]
fn assignor_no_members_gives_empty_map() {
    assert!(assign(&[], &[sub("0", 4, true)], 1).is_empty());
}

#[test]
fn assignor_fresh_group_fills_in_subtopology_order() {
    let members = [member("a", "p1", &[], &[]), member("b", "p2", &[], &[])];
    let out = assign(&members, &[sub("0", 2, false), sub("1", 1, false)], 0);
    // (0,0) -> a, (0,1) -> b, (1,0) -> a (both at 1; a's process as loaded as b's; id).
    assert_eq!(
        tasks(&out["a"].active),
        vec![("0".into(), 0), ("1".into(), 0)]
    );
    assert_eq!(tasks(&out["b"].active), vec![("0".into(), 1)]);
}

#[test]
fn assignor_process_load_breaks_member_ties() {
    // Tasks 0 and 1 stay (quota 1). Task 2: b and z both have load 0 and their processes
    // 1/2 each, so id b wins; task 3 goes to z.
    let members = [
        member("a", "p1", &[("0", &[0])], &[]),
        member("b", "p1", &[], &[]),
        member("c", "p2", &[("0", &[1])], &[]),
        member("z", "p2", &[], &[]),
    ];
    let out = assign(&members, &[sub("0", 4, false)], 0);
    assert_eq!(tasks(&out["b"].active), vec![("0".into(), 2)]);
    assert_eq!(tasks(&out["z"].active), vec![("0".into(), 3)]);

    // Unequal capacities: p1 has a and b, p2 only c; quota 2. Task 2 goes to b (load 0).
    // Task 3: a and c tie on member load 1 and on process load (2/2 = 1/1), so id a wins.
    let members = [
        member("a", "p1", &[("0", &[0])], &[]),
        member("b", "p1", &[], &[]),
        member("c", "p2", &[("0", &[1])], &[]),
    ];
    let out = assign(&members, &[sub("0", 4, false)], 0);
    assert_eq!(
        tasks(&out["a"].active),
        vec![("0".into(), 0), ("0".into(), 3)]
    );
    assert_eq!(tasks(&out["b"].active), vec![("0".into(), 2)]);
    assert_eq!(tasks(&out["c"].active), vec![("0".into(), 1)]);

    // A less loaded process wins a member-load tie: p2 (c alone, 1/1) against p1 (a and b,
    // 3/2) for the last task.
    let members = [
        member("a", "p1", &[("0", &[0, 1])], &[]),
        member("b", "p1", &[("0", &[2])], &[]),
        member("c", "p2", &[("0", &[3])], &[]),
    ];
    let out = assign(&members, &[sub("0", 5, false)], 0);
    assert_eq!(
        tasks(&out["c"].active),
        vec![("0".into(), 3), ("0".into(), 4)]
    );
}

#[test]
fn assignor_standby_is_promoted_before_a_fresh_member() {
    // The owner of (0,0) left; c had it as standby and is below quota 2, b is fresh and
    // less loaded. The standby wins; b gets the unowned tasks.
    let members = [
        member("b", "p2", &[], &[]),
        member("c", "p3", &[("0", &[1])], &[("0", &[0])]),
    ];
    let out = assign(&members, &[sub("0", 4, true)], 0);
    assert_eq!(
        tasks(&out["c"].active),
        vec![("0".into(), 0), ("0".into(), 1)]
    );
    assert_eq!(
        tasks(&out["b"].active),
        vec![("0".into(), 2), ("0".into(), 3)]
    );
}

#[test]
fn assignor_standbys_are_sticky() {
    let members = [
        member("a", "p1", &[("0", &[0])], &[("0", &[1])]),
        member("b", "p2", &[("0", &[1])], &[("0", &[0])]),
    ];
    let out = assign(&members, &[sub("0", 2, true)], 1);
    assert_eq!(tasks(&out["a"].active), vec![("0".into(), 0)]);
    assert_eq!(tasks(&out["b"].active), vec![("0".into(), 1)]);
    assert_eq!(tasks(&out["a"].standby), vec![("0".into(), 1)]);
    assert_eq!(tasks(&out["b"].standby), vec![("0".into(), 0)]);
}

#[test]
fn assignor_total_quota_moves_a_standby_to_an_idle_member() {
    // qt = ceil((2 + 2) / 3) = 2. S1, (0,1) first: a's standby stays and a reaches 2, so
    // qt becomes ceil(2 / 2) = 1. (0,0): b (total 1) is no longer below qt; S2 gives the
    // replica to the least-loaded member whose process does not hold it, c.
    let members = [
        member("a", "p1", &[("0", &[0])], &[("0", &[1])]),
        member("b", "p2", &[("0", &[1])], &[("0", &[0])]),
        member("c", "p3", &[], &[]),
    ];
    let out = assign(&members, &[sub("0", 2, true)], 1);
    assert_eq!(tasks(&out["a"].active), vec![("0".into(), 0)]);
    assert_eq!(tasks(&out["b"].active), vec![("0".into(), 1)]);
    assert_eq!(tasks(&out["a"].standby), vec![("0".into(), 1)]);
    assert!(out["b"].standby.is_empty());
    assert_eq!(tasks(&out["c"].standby), vec![("0".into(), 0)]);
}

#[test]
fn assignor_single_process_gets_no_standbys() {
    let members = [member("a", "p", &[], &[]), member("b", "p", &[], &[])];
    let out = assign(&members, &[sub("0", 3, true)], 2);
    assert!(out
        .values()
        .all(|a| a.standby.is_empty() && a.warmup.is_empty()));
    assert_eq!(out["a"].active["0"].len() + out["b"].active["0"].len(), 3);
}

#[test]
fn assignor_zero_task_and_stateless_subtopologies() {
    let members = [member("a", "p1", &[], &[]), member("b", "p2", &[], &[])];
    let out = assign(
        &members,
        &[sub("0", 0, true), sub("1", 1, false), sub("2", -3, true)],
        1,
    );
    assert_eq!(out.len(), 2);
    assert_eq!(tasks(&out["a"].active), vec![("1".into(), 0)]);
    assert!(out["b"].is_empty());
    assert!(out["a"].standby.is_empty());
}

#[test]
fn assignor_more_members_than_tasks() {
    let members: Vec<MemberSpec> = (0..5)
        .map(|i| member(&format!("m{i}"), &format!("p{i}"), &[], &[]))
        .collect();
    let out = assign(&members, &[sub("0", 2, true)], 1);
    assert_eq!(out.len(), 5);
    let active: usize = out.values().map(|a| crate::tasks::count(&a.active)).sum();
    let standby: usize = out.values().map(|a| crate::tasks::count(&a.standby)).sum();
    assert_eq!((active, standby), (2, 2));
    assert!(out
        .values()
        .all(|a| crate::tasks::count(&a.active) + crate::tasks::count(&a.standby) <= 1));
}

#[test]
fn assignor_ignores_unknown_previous_tasks_and_member_order() {
    let members = [
        member("b", "p2", &[("0", &[5, -1]), ("9", &[0])], &[]),
        member("a", "p1", &[("0", &[1])], &[("x", &[0])]),
    ];
    let subs = [sub("1", 1, false), sub("0", 2, false)];
    let out = assign(&members, &subs, 0);
    let mut sorted = members.to_vec();
    sorted.sort_by(|x, y| x.member_id.cmp(&y.member_id));
    let mut subs_sorted = subs.to_vec();
    subs_sorted.sort_by(|x, y| x.subtopology_id.cmp(&y.subtopology_id));
    assert_eq!(out, assign(&sorted, &subs_sorted, 0));
    assert_eq!(
        tasks(&out["a"].active),
        vec![("0".into(), 1), ("1".into(), 0)]
    );
    assert_eq!(tasks(&out["b"].active), vec![("0".into(), 0)]);
}

#[test]
fn assignor_conflicting_previous_owners_smallest_id_wins() {
    let members = [
        member("a", "p1", &[("0", &[0])], &[]),
        member("b", "p2", &[("0", &[0])], &[]),
    ];
    let out = assign(&members, &[sub("0", 1, false)], 0);
    assert_eq!(tasks(&out["a"].active), vec![("0".into(), 0)]);
}

#[test]
fn assignor_rejects_duplicate_ids() {
    let members = [member("a", "p1", &[], &[]), member("a", "p2", &[], &[])];
    let spec = GroupSpec::new(&members, &[], 0);
    assert!(StickyAssignor.assign(&spec).is_err());
    let members = [member("a", "p1", &[], &[])];
    let subs = [sub("0", 1, false), sub("0", 2, false)];
    let spec = GroupSpec::new(&members, &subs, 0);
    assert!(StickyAssignor.assign(&spec).is_err());
}

#[test]
fn assignor_no_two_hosts_mirror_each_other() {
    // Kafka's shouldNotHaveSameAssignmentOnAnyTwoHosts: 4 processes, 4 stateful tasks.
    let members: Vec<MemberSpec> = (1..=4)
        .map(|i| member(&format!("m{i}"), &format!("p{i}"), &[], &[]))
        .collect();
    let out = assign(&members, &[sub("0", 4, true)], 1);
    for (a, x) in &out {
        for (b, y) in &out {
            if a < b {
                let mirrored = x.active == y.standby && x.standby == y.active;
                assert!(!mirrored, "{a} and {b} mirror each other: {out:?}");
            }
        }
    }
}

#[test]
fn assignor_standbys_go_to_another_rack_and_warmups_wait_for_lag() {
    let mut members = vec![
        member("a", "p1", &[("0", &[0, 1])], &[]),
        member("b", "p2", &[], &[]),
        member("c", "p3", &[], &[]),
    ];
    members[0].rack_id = Some("r1".into());
    members[1].rack_id = Some("r1".into());
    members[2].rack_id = Some("r2".into());
    members[0].task_offsets = vec![("0".into(), 0, -2), ("0".into(), 1, -2)];
    members[0].task_end_offsets = vec![("0".into(), 0, 500), ("0".into(), 1, 500)];
    let out = StickyAssignor
        .assign(&GroupSpec {
            num_warmup_replicas: 1,
            ..GroupSpec::new(&members, &[sub("0", 2, true)], 1)
        })
        .unwrap();
    // Balance would move one task to b; b is not caught up, so a keeps it and b warms up.
    assert_eq!(
        tasks(&out["a"].active),
        vec![("0".into(), 0), ("0".into(), 1)]
    );
    assert_eq!(out["b"].warmup.count(), 1);
    // Standbys of a's tasks (rack r1) go to rack r2 where the warm-up does not block it.
    assert!(!tasks(&out["c"].standby).is_empty());
    // A caught-up b gets the task and no warm-up.
    members[1].task_offsets = vec![("0".into(), 0, 450), ("0".into(), 1, 450)];
    let out = StickyAssignor
        .assign(&GroupSpec::new(&members, &[sub("0", 2, true)], 1))
        .unwrap();
    assert_eq!(crate::tasks::count(&out["b"].active), 1);
    assert!(out.values().all(|a| a.warmup.is_empty()));
}

#[test]
fn assignor_partition_order_is_partition_then_subtopology() {
    let subs = [3u32, 1, 2];
    let offsets = [0u32, 3, 4, 6];
    // (0,s0)=0 (0,s1)=3 (0,s2)=4 (1,s0)=1 (1,s2)=5 (2,s0)=2
    assert_eq!(partition_order(&subs, &offsets), vec![0, 3, 4, 1, 5, 2]);
}

//! `cargo bench --bench assignor`: the sticky assignor after one member joins a stable group.
//!
//! Matrix (members / processes / tasks / standby replicas): 10/5/100/0, 100/50/1,000/1,
//! 1,000/100/10,000/1, 5,000/500/50,000/2, 10,000/1,000/100,000/1. Tasks are split over 10
//! subtopologies, the even-numbered ones stateful; members are spread evenly over processes
//! (member `i` on process `i % processes`). The previous targets are a stable assignment (the
//! assignor's output fed back to it once more); then one member joins on a new process, and
//! `assign()` is measured on that spec. The number of active tasks moved by the join is printed
//! (`tasks_moved`) before each case's measurement. The measurement excludes dropping the
//! returned map (`iter_with_large_drop`).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use streams_group_coordinator::assignor::{
    tasks_moved, GroupSpec, MemberSpec, Memo, StickyAssignor, SubtopologySpec,
};
use streams_group_coordinator::tasks::Assignment;

const SUBTOPOLOGIES: usize = 10;

struct Case {
    members: usize,
    processes: usize,
    tasks: usize,
    standby: i32,
}

const CASES: [Case; 5] = [
    Case {
        members: 10,
        processes: 5,
        tasks: 100,
        standby: 0,
    },
    Case {
        members: 100,
        processes: 50,
        tasks: 1_000,
        standby: 1,
    },
    Case {
        members: 1_000,
        processes: 100,
        tasks: 10_000,
        standby: 1,
    },
    Case {
        members: 5_000,
        processes: 500,
        tasks: 50_000,
        standby: 2,
    },
    Case {
        members: 10_000,
        processes: 1_000,
        tasks: 100_000,
        standby: 1,
    },
];

fn subtopologies(tasks: usize) -> Vec<SubtopologySpec> {
    (0..SUBTOPOLOGIES)
        .map(|s| SubtopologySpec {
            subtopology_id: format!("{s}"),
            // Spread the remainder over the first subtopologies.
            num_tasks: (tasks / SUBTOPOLOGIES + usize::from(s < tasks % SUBTOPOLOGIES)) as i32,
            stateful: s % 2 == 0,
        })
        .collect()
}

fn assign(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
    r: i32,
) -> BTreeMap<String, Assignment> {
    StickyAssignor
        .assign(&GroupSpec::new(members, subs, r))
        .expect("valid spec")
}

fn with_previous(members: &mut [MemberSpec<'static>], target: &BTreeMap<String, Assignment>) {
    for m in members {
        m.previous = target
            .get(m.member_id.as_ref())
            .cloned()
            .unwrap_or_default()
            .into();
    }
}

/// The members after one joins a stable group, the subtopologies, and the stable previous
/// target.
fn join_spec(
    case: &Case,
) -> (
    Vec<MemberSpec<'static>>,
    Vec<SubtopologySpec>,
    BTreeMap<String, Assignment>,
) {
    let (members, subs, stable, _) = join_spec_with(case, false);
    (members, subs, stable)
}

/// [`join_spec`], with every subtopology stateful when `all_stateful`, and the memo of the
/// computation that gave the stable target.
fn join_spec_with(
    case: &Case,
    all_stateful: bool,
) -> (
    Vec<MemberSpec<'static>>,
    Vec<SubtopologySpec>,
    BTreeMap<String, Assignment>,
    Memo,
) {
    let subs: Vec<SubtopologySpec> = subtopologies(case.tasks)
        .into_iter()
        .map(|s| SubtopologySpec {
            stateful: s.stateful || all_stateful,
            ..s
        })
        .collect();
    let mut members: Vec<MemberSpec<'static>> = (0..case.members)
        .map(|i| MemberSpec {
            member_id: format!("member-{i:05}").into(),
            process_id: format!("process-{:04}", i % case.processes).into(),
            ..Default::default()
        })
        .collect();
    let first = assign(&members, &subs, case.standby);
    with_previous(&mut members, &first);
    let stable = assign(&members, &subs, case.standby);
    let memo = StickyAssignor
        .compute(&GroupSpec::new(&members, &subs, case.standby))
        .expect("valid spec")
        .into_memo();
    with_previous(&mut members, &stable);
    members.push(MemberSpec {
        member_id: "member-joining".into(),
        process_id: "process-joining".into(),
        ..Default::default()
    });
    (members, subs, stable, memo)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("assignor_join");
    for case in &CASES {
        let (members, subs, previous) = join_spec(case);
        let next = assign(&members, &subs, case.standby);
        let moved = tasks_moved(&previous, &next);
        let bound = (case.tasks as u64).div_ceil(case.members as u64 + 1);
        println!(
            "case {}/{}/{}/{}: tasks_moved after one join = {moved} (bound ceil(T/(n+1)) = {bound})",
            case.members, case.processes, case.tasks, case.standby
        );
        if case.tasks >= 50_000 {
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(3));
        } else {
            group
                .sample_size(30)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(2));
        }
        let id = format!(
            "{}m_{}p_{}t_{}s",
            case.members, case.processes, case.tasks, case.standby
        );
        group.bench_with_input(
            BenchmarkId::from_parameter(id),
            &(members, subs),
            |b, (m, s)| {
                // The returned map is dropped outside the measurement: it is the caller's to keep.
                b.iter_with_large_drop(|| {
                    StickyAssignor.assign(black_box(&GroupSpec::new(m, s, case.standby)))
                })
            },
        );
    }
    group.finish();
}

/// Cold starts (no previous targets), every subtopology stateful, one standby: issue 13's
/// "1,000 / 100 / 10,000 + 10,000" and "10,000 / 1,000 / 100,000 + 100,000" rows; and one member
/// joining the first of them.
fn bench_cold(c: &mut Criterion) {
    let mut group = c.benchmark_group("assignor_cold");
    for (members, processes, tasks) in [
        (1_000usize, 100usize, 10_000usize),
        (10_000, 1_000, 100_000),
    ] {
        let subs: Vec<SubtopologySpec> = subtopologies(tasks)
            .into_iter()
            .map(|s| SubtopologySpec {
                stateful: true,
                ..s
            })
            .collect();
        let specs: Vec<MemberSpec<'static>> = (0..members)
            .map(|i| MemberSpec {
                member_id: format!("member-{i:05}").into(),
                process_id: format!("process-{:04}", i % processes).into(),
                ..Default::default()
            })
            .collect();
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(if tasks > 10_000 { 4 } else { 2 }));
        let id = format!("{members}m_{processes}p_{tasks}t_1s_cold");
        group.bench_with_input(
            BenchmarkId::from_parameter(id),
            &(specs, subs),
            |b, (m, s)| {
                b.iter_with_large_drop(|| {
                    StickyAssignor.assign(black_box(&GroupSpec::new(m, s, 1)))
                })
            },
        );
    }
    // One member joins the first group, stable beforehand.
    let case = Case {
        members: 1_000,
        processes: 100,
        tasks: 10_000,
        standby: 1,
    };
    let (members, subs, _, memo) = join_spec_with(&case, true);
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(2));
    group.bench_with_input(
        BenchmarkId::from_parameter("1000m_100p_10000t_1s_join"),
        &(&members, &subs),
        |b, (m, s)| {
            b.iter_with_large_drop(|| StickyAssignor.assign(black_box(&GroupSpec::new(m, s, 1))))
        },
    );
    // The coordinator's way: the changed targets only, then also from the last computation's
    // memo (leaving its own, as the coordinator keeps it).
    group.bench_with_input(
        BenchmarkId::from_parameter("1000m_100p_10000t_1s_join_compute"),
        &(&members, &subs),
        |b, (m, s)| {
            b.iter_with_large_drop(|| {
                let computed = StickyAssignor
                    .compute(black_box(&GroupSpec::new(m, s, 1)))
                    .expect("valid spec");
                computed.changed()
            })
        },
    );
    group.bench_with_input(
        BenchmarkId::from_parameter("1000m_100p_10000t_1s_join_memo"),
        &(&members, &subs, &memo),
        |b, (m, s, memo)| {
            b.iter_with_large_drop(|| {
                let spec = GroupSpec {
                    memo: Some(memo),
                    ..GroupSpec::new(m, s, 1)
                };
                let computed = StickyAssignor
                    .compute(black_box(&spec))
                    .expect("valid spec");
                (computed.changed(), computed.into_memo())
            })
        },
    );
    group.finish();
}

/// The new steps' cost on the groups of [`bench_cold`]: racks (3) and a rack-aware client tag
/// (5 values) on the cold group; on the join, every member reports its active tasks as running
/// (offset -2) with end offsets, so step L keeps the joiner's stateful share where it is and
/// gives it warm-ups.
fn bench_ha(c: &mut Criterion) {
    let mut group = c.benchmark_group("assignor_ha");
    let tags = vec!["zone".to_string()];
    let subs: Vec<SubtopologySpec> = subtopologies(10_000)
        .into_iter()
        .map(|s| SubtopologySpec {
            stateful: true,
            ..s
        })
        .collect();
    let specs: Vec<MemberSpec<'static>> = (0..1_000)
        .map(|i| {
            let p = i % 100;
            MemberSpec {
                member_id: format!("member-{i:05}").into(),
                process_id: format!("process-{p:04}").into(),
                rack_id: Some(format!("rack-{}", p % 3).into()),
                client_tags: std::borrow::Cow::Owned(
                    [("zone".to_string(), format!("zone-{}", p % 5))]
                        .into_iter()
                        .collect(),
                ),
                ..Default::default()
            }
        })
        .collect();
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_with_input(
        BenchmarkId::from_parameter("1000m_100p_10000t_1s_cold_racks_tags"),
        &(specs, subs),
        |b, (m, s)| {
            b.iter_with_large_drop(|| {
                StickyAssignor.assign(black_box(&GroupSpec {
                    rack_aware_tags: &tags,
                    ..GroupSpec::new(m, s, 1)
                }))
            })
        },
    );
    let case = Case {
        members: 1_000,
        processes: 100,
        tasks: 10_000,
        standby: 1,
    };
    let (mut members, subs, _, _) = join_spec_with(&case, true);
    for m in &mut members {
        for (sub, parts) in &m.previous.active {
            for &p in parts {
                m.task_offsets.push((sub.to_string(), p, -2));
                m.task_end_offsets.push((sub.to_string(), p, 1_000));
            }
        }
    }
    group.bench_with_input(
        BenchmarkId::from_parameter("1000m_100p_10000t_1s_join_lag"),
        &(members, subs),
        |b, (m, s)| {
            b.iter_with_large_drop(|| StickyAssignor.assign(black_box(&GroupSpec::new(m, s, 1))))
        },
    );
    group.finish();
}

criterion_group!(benches, bench, bench_cold, bench_ha);
criterion_main!(benches);

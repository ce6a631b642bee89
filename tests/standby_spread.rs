//! The standby spread of the sticky assignor (docs/assignor.md, "Standby spread"): each
//! process's standbys spread over the other processes, in every formation, and losing a process
//! spreads its actives over the survivors when standbys are promoted.

mod common;

use std::collections::BTreeMap;

use common::spread::{form_by, median_max, members, shares, subtopologies, Size, PATHS, SIZES};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use streams_group_coordinator::assignor::{GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec};
use streams_group_coordinator::tasks::Assignment;

type Target = BTreeMap<String, Assignment>;

fn assign(members: &[MemberSpec<'static>], subs: &[SubtopologySpec], r: i32) -> Target {
    StickyAssignor
        .assign(&GroupSpec::new(members, subs, r))
        .expect("a valid spec")
}

fn with_previous(members: &[MemberSpec<'static>], target: &Target) -> Vec<MemberSpec<'static>> {
    members
        .iter()
        .map(|m| MemberSpec {
            previous: target
                .get(m.member_id.as_ref())
                .cloned()
                .unwrap_or_default()
                .into(),
            ..m.clone()
        })
        .collect()
}

/// Process of each member.
fn processes(members: &[MemberSpec<'static>]) -> BTreeMap<String, String> {
    members
        .iter()
        .map(|m| (m.member_id.to_string(), m.process_id.to_string()))
        .collect()
}

/// Per process: its stateful actives, and its actives' standbys per other process.
fn spread(
    members: &[MemberSpec<'static>],
    target: &Target,
) -> BTreeMap<String, (usize, BTreeMap<String, usize>)> {
    let process = processes(members);
    let mut owner: BTreeMap<(String, i32), &str> = BTreeMap::new();
    let mut out: BTreeMap<String, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for (m, a) in target {
        for (s, p) in a.active.tasks() {
            owner.insert((s.to_string(), p), &process[m]);
        }
    }
    for (m, a) in target {
        for (s, p) in a.standby.tasks() {
            let o = owner[&(s.to_string(), p)];
            let e = out.entry(o.to_string()).or_default();
            *e.1.entry(process[m].clone()).or_default() += 1;
        }
    }
    for m in target.keys() {
        out.entry(process[m].clone()).or_default();
    }
    out
}

#[derive(Clone, Debug)]
struct Group {
    members: Vec<MemberSpec<'static>>,
    subs: Vec<SubtopologySpec>,
    replicas: i32,
}

fn arb_group() -> impl Strategy<Value = Group> {
    (
        6usize..24,
        prop::collection::vec(1usize..4, 24),
        prop::collection::vec((4i32..60, any::<bool>()), 1..6),
        1i32..3,
    )
        .prop_map(|(procs, per, subs, replicas)| {
            let mut members = Vec::new();
            for (p, &k) in per.iter().take(procs).enumerate() {
                for j in 0..k {
                    members.push(MemberSpec {
                        member_id: format!("m{p:02}-{j}").into(),
                        process_id: format!("p{p:02}").into(),
                        ..Default::default()
                    });
                }
            }
            let mut subs: Vec<SubtopologySpec> = subs
                .into_iter()
                .enumerate()
                .map(|(i, (n, stateful))| SubtopologySpec {
                    subtopology_id: format!("{i}"),
                    num_tasks: n,
                    stateful,
                })
                .collect();
            subs[0].stateful = true;
            Group {
                members,
                subs,
                replicas,
            }
        })
}

/// The spread cap `c(p, q)` of docs/assignor.md for every pair in a target, with `n(p, q)`.
fn pairs_with_caps(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
    r: i32,
    t: &Target,
) -> Vec<(String, String, u64, u64)> {
    let process = processes(members);
    let mut w: BTreeMap<String, u64> = BTreeMap::new();
    for m in members {
        *w.entry(m.process_id.to_string()).or_default() += 1;
    }
    let total = members.len() as u64;
    let replicas = (r as u64).min(w.len() as u64 - 1);
    let stateful = |s: &str| subs.iter().any(|x| x.subtopology_id == s && x.stateful);
    let mut a: BTreeMap<String, u64> = BTreeMap::new();
    for (m, x) in t {
        *a.entry(process[m].clone()).or_default() +=
            x.active.tasks().filter(|(s, _)| stateful(s)).count() as u64;
    }
    let mut out = Vec::new();
    for (p, (_, per)) in spread(members, t) {
        for (q, &n) in &per {
            let c = ((replicas * a[&p] * w[q]).div_ceil((total - w[&p]).max(1))).max(1);
            out.push((p.clone(), q.clone(), n as u64, c));
        }
    }
    out
}

/// A runner over the same groups every run (`PROPTEST_RNG_SEED=<n>` explores others): the
/// bounds are measured promises of a heuristic, and a run must not pass or fail by chance.
fn runner(cases: u32) -> TestRunner {
    let config = Config::default();
    let rng_seed = match config.rng_seed {
        RngSeed::Random => RngSeed::Fixed(1071),
        seed => seed,
    };
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed,
        ..config
    })
}

/// Cold, from its own target, and after a process leaves: no process holds more than
/// `2 c(p, q) + 1` of another's standbys; after a process (re)joins, `3c + 2` (its members, with
/// no previous target, are the least loaded, and balance comes before the cap). In the groups of
/// the issue's size the caps hold (`the_issues_groups_spread_their_standbys`).
#[test]
fn standbys_spread_within_their_caps() {
    let result = runner(1_000).run(&arb_group(), |g| {
        let r = g.replicas;
        let cold = assign(&g.members, &g.subs, r);
        let stable = assign(&with_previous(&g.members, &cold), &g.subs, r);
        let settled = with_previous(&g.members, &stable);
        let last = g
            .members
            .last()
            .map(|m| m.process_id.clone())
            .unwrap_or_default();
        let without: Vec<MemberSpec<'static>> = settled
            .iter()
            .filter(|m| m.process_id != last)
            .cloned()
            .collect();
        let left = assign(&without, &g.subs, r);
        let rejoined = assign(&with_previous(&g.members, &left), &g.subs, r);
        for (formation, members, target) in [
            ("cold", &g.members, &cold),
            ("stable", &g.members, &stable),
            ("left", &without, &left),
            ("rejoined", &g.members, &rejoined),
        ] {
            for (p, q, n, c) in pairs_with_caps(members, &g.subs, r, target) {
                let bound = if formation == "rejoined" {
                    3 * c + 2
                } else {
                    2 * c + 1
                };
                prop_assert!(
                    n <= bound,
                    "{formation}: {q} holds {n} standbys of {p}'s actives (cap {c}, bound {bound})"
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

fn actives_by_process(members: &[MemberSpec<'static>], t: &Target) -> BTreeMap<String, u64> {
    let process = processes(members);
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for m in members {
        out.entry(m.process_id.to_string()).or_default();
    }
    for (m, a) in t {
        *out.entry(process[m].clone()).or_default() += a.active.count() as u64;
    }
    out
}

/// Losing any one process of a stable group: no survivor gains more than twice its expected part
/// of the lost actives (`lost × w(q) / (members − w(x))`, its members' share of the survivors),
/// plus two for rounding where that part is below one task.
#[test]
fn losing_a_process_spreads_its_actives() {
    let result = runner(200).run(&arb_group(), |g| {
        let r = g.replicas;
        let cold = assign(&g.members, &g.subs, r);
        let stable = assign(&with_previous(&g.members, &cold), &g.subs, r);
        let settled = with_previous(&g.members, &stable);
        let before = actives_by_process(&g.members, &stable);
        let mut w: BTreeMap<String, u64> = BTreeMap::new();
        for m in &g.members {
            *w.entry(m.process_id.to_string()).or_default() += 1;
        }
        let total = g.members.len() as u64;
        for x in w.keys() {
            let survivors: Vec<MemberSpec<'static>> = settled
                .iter()
                .filter(|m| m.process_id != x.as_str())
                .cloned()
                .collect();
            let after = actives_by_process(&survivors, &assign(&survivors, &g.subs, r));
            let lost = before[x] as f64;
            for (q, &n) in &after {
                let gain = n as f64 - before[q] as f64;
                let expected = lost * w[q] as f64 / (total - w[x]) as f64;
                prop_assert!(
                    gain <= 2.0 * expected + 2.0,
                    "losing {x}: {q} gains {gain} actives where its part is {expected:.2}"
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

fn by_process(
    members: &[MemberSpec<'static>],
    target: &Target,
) -> BTreeMap<String, (String, Assignment)> {
    let process = processes(members);
    target
        .iter()
        .map(|(m, a)| (m.clone(), (process[m].clone(), a.clone())))
        .collect()
}

/// The first two of the groups where pairing was measured (the others take minutes in a debug
/// build: `cargo run --release --example standby_spread`).
const ISSUE_GROUPS: &[Size] = &[SIZES[0], SIZES[1]];

/// The groups where pairing was measured: cold and stable, each process's largest share on one
/// other process is at most 0.15 (median) and 0.25 (max), no two processes back each other up
/// mostly, and a member joining on a new process gets standbys within one of the others'.
#[test]
fn the_issues_groups_spread_their_standbys() {
    for size in ISSUE_GROUPS {
        let (members, subs) = (members(size), subtopologies(size));
        let cold = assign(&members, &subs, 1);
        let settled = with_previous(&members, &cold);
        let stable = assign(&settled, &subs, 1);
        for (formation, t) in [("cold", &cold), ("stable", &stable)] {
            let (s, mutual) = shares(&by_process(&members, t));
            let (median, max) = median_max(&s);
            assert!(
                median <= 0.15 && max <= 0.25 && mutual == 0,
                "{} {formation}: share median {median}, max {max}, mutual pairs {mutual}",
                size.label()
            );
        }
        let mut joined = with_previous(&members, &stable);
        joined.push(MemberSpec {
            member_id: "member-joiner".into(),
            process_id: "process-new".into(),
            ..Default::default()
        });
        let after = assign(&joined, &subs, 1);
        let standbys = |m: &str| after[m].standby.count();
        let others: Vec<usize> = members.iter().map(|m| standbys(&m.member_id)).collect();
        let (lo, hi) = (
            *others.iter().min().unwrap_or(&0),
            *others.iter().max().unwrap_or(&0),
        );
        let joiner = standbys("member-joiner");
        assert!(
            joiner + 1 >= lo && joiner <= hi + 1,
            "{}: the joiner has {joiner} standbys, the others {lo}-{hi}",
            size.label()
        );
    }
}

/// Through the coordinator, the 100-member group formed by every path (cold, batched, join by
/// join, behind a first lone member that held every task, and after a process failed and came
/// back), at every stage: the same bounds.
#[test]
fn a_group_formed_through_the_coordinator_spreads_its_standbys() {
    for path in PATHS {
        for (stage, targets) in form_by(&ISSUE_GROUPS[0], path).iter().enumerate() {
            let (s, mutual) = shares(targets);
            let (median, max) = median_max(&s);
            assert!(
                median <= 0.15 && max <= 0.25 && mutual == 0,
                "{path:?} stage {stage}: share median {median}, max {max}, mutual pairs {mutual}"
            );
        }
    }
}

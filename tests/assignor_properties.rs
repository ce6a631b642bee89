//! Property tests of the sticky assignor (PROTOCOL 2.10): invariants 1-5, determinism, agreement
//! with a naive transcription of 2.10, stickiness on join and leave.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use streams_group_coordinator::assignor::{
    tasks_moved, tasks_reassigned, GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec, Warmup,
};
use streams_group_coordinator::tasks::{count, Assignment, TargetMap, TaskMap};

type Target = BTreeMap<String, Assignment>;
type Task = (String, i32);

/// The lag settings of [`reference_with`]: acceptable recovery lag, warm-ups.
type LagSettings = (i64, i32);

fn assign_with(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
    r: i32,
    lag: LagSettings,
) -> Target {
    StickyAssignor
        .assign(&GroupSpec {
            acceptable_recovery_lag: lag.0,
            num_warmup_replicas: lag.1,
            ..GroupSpec::new(members, subs, r)
        })
        .expect("valid spec")
}

fn assign(members: &[MemberSpec<'static>], subs: &[SubtopologySpec], r: i32) -> Target {
    StickyAssignor
        .assign(&GroupSpec::new(members, subs, r))
        .expect("valid spec")
}

fn task_list(map: &TaskMap) -> Vec<Task> {
    map.iter()
        .flat_map(|(s, ps)| ps.iter().map(move |&p| (s.to_string(), p)))
        .collect()
}

fn insert(map: &mut TaskMap, (s, p): &Task) {
    map.insert(s, *p);
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

// ------------------------------------------------------------------------------------------
// A naive transcription of PROTOCOL 2.10: linear scans, strings, no indices. Slow but literal.

fn reference(members: &[MemberSpec<'static>], subs: &[SubtopologySpec], r: i32) -> Target {
    reference_with(members, subs, r, (10_000, 2))
}

fn reference_with(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
    r: i32,
    (acceptable, warmups): LagSettings,
) -> Target {
    if members.is_empty() {
        return Target::new();
    }
    let mut members: Vec<&MemberSpec<'static>> = members.iter().collect();
    members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
    let mut subs: Vec<&SubtopologySpec> = subs.iter().collect();
    subs.sort_by(|a, b| a.subtopology_id.cmp(&b.subtopology_id));
    let ids: Vec<String> = members.iter().map(|m| m.member_id.to_string()).collect();
    let process: BTreeMap<&str, &str> = members
        .iter()
        .map(|m| (m.member_id.as_ref(), m.process_id.as_ref()))
        .collect();
    let rack: BTreeMap<&str, Option<&str>> = members
        .iter()
        .map(|m| (m.member_id.as_ref(), m.rack_id.as_deref()))
        .collect();
    // Dimensions in which `m`'s rack equals the rack of a member holding the task.
    let conflicts = |m: &str, holders: &[String]| -> usize {
        usize::from(rack[m].is_some_and(|r| holders.iter().any(|h| rack[h.as_str()] == Some(r))))
    };
    let mut capacity: BTreeMap<&str, u64> = BTreeMap::new();
    for m in &members {
        *capacity.entry(m.process_id.as_ref()).or_default() += 1;
    }
    let num_tasks = |s: &str| -> i32 {
        subs.iter()
            .find(|x| x.subtopology_id == s)
            .map_or(0, |x| x.num_tasks.max(0))
    };
    let stateful = |s: &str| subs.iter().any(|x| x.subtopology_id == s && x.stateful);
    let exists = |(s, p): &Task| *p >= 0 && *p < num_tasks(s);

    // Tasks in (subtopologyId, partition) order and in (partition, subtopologyId) order.
    let mut by_sub: Vec<Task> = Vec::new();
    for s in &subs {
        for p in 0..s.num_tasks.max(0) {
            by_sub.push((s.subtopology_id.clone(), p));
        }
    }
    let mut by_partition = by_sub.clone();
    by_partition.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));

    let mut prev_owner: BTreeMap<Task, String> = BTreeMap::new();
    let mut prev_standby: BTreeMap<Task, BTreeSet<String>> = BTreeMap::new();
    let mut prev_warmup: BTreeSet<(Task, String)> = BTreeSet::new();
    for m in &members {
        for t in task_list(&m.previous.warmup) {
            prev_warmup.insert((t, m.member_id.to_string()));
        }
        for t in task_list(&m.previous.active) {
            if exists(&t) {
                prev_owner.entry(t).or_insert(m.member_id.to_string());
            }
        }
        for t in task_list(&m.previous.standby)
            .into_iter()
            .chain(task_list(&m.previous.warmup))
        {
            if exists(&t) {
                prev_standby
                    .entry(t)
                    .or_default()
                    .insert(m.member_id.to_string());
            }
        }
    }

    let mut active: BTreeMap<String, BTreeSet<Task>> =
        ids.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    let mut standby = active.clone();
    let mut owner: BTreeMap<Task, String> = BTreeMap::new();

    let load = |active: &BTreeMap<String, BTreeSet<Task>>,
                standby: &BTreeMap<String, BTreeSet<Task>>,
                m: &str| { (active[m].len() + standby[m].len()) as u64 };
    let process_load = |active: &BTreeMap<String, BTreeSet<Task>>,
                        standby: &BTreeMap<String, BTreeSet<Task>>,
                        p: &str| {
        ids.iter()
            .filter(|m| process[m.as_str()] == p)
            .map(|m| load(active, standby, m))
            .sum::<u64>()
    };
    // 2.10's order: member load, then process load (exact), then member id.
    let cmp = |active: &BTreeMap<String, BTreeSet<Task>>,
               standby: &BTreeMap<String, BTreeSet<Task>>,
               a: &str,
               b: &str|
     -> Ordering {
        let (pa, pb) = (process[a], process[b]);
        load(active, standby, a)
            .cmp(&load(active, standby, b))
            .then_with(|| {
                (process_load(active, standby, pa) * capacity[pb])
                    .cmp(&(process_load(active, standby, pb) * capacity[pa]))
            })
            .then_with(|| a.cmp(b))
    };
    let least = |active: &BTreeMap<String, BTreeSet<Task>>,
                 standby: &BTreeMap<String, BTreeSet<Task>>,
                 candidates: Vec<String>|
     -> Option<String> {
        candidates
            .into_iter()
            .min_by(|a, b| cmp(active, standby, a, b))
    };

    // Quota: (remaining, members, quota).
    fn quota(rem: u64, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            rem.div_ceil(n)
        }
    }
    // Stateful tasks, then stateless ones; each class with its own quota beside the overall one.
    let (mut rem, mut n) = (by_sub.len() as u64, ids.len() as u64);
    let mut qa = quota(rem, n);
    for class in [true, false] {
        let in_class = |t: &Task| stateful(&t.0) == class;
        let class_tasks = by_sub.iter().filter(|t| in_class(t)).count() as u64;
        if class_tasks == 0 {
            continue;
        }
        let (mut crem, mut cn) = (class_tasks, ids.len() as u64);
        let mut qc = quota(crem, cn);
        let class_count = |active: &BTreeMap<String, BTreeSet<Task>>, m: &str| {
            active[m].iter().filter(|t| in_class(t)).count() as u64
        };
        let below = |active: &BTreeMap<String, BTreeSet<Task>>, m: &str, qc: u64, qa: u64| {
            (!class || class_count(active, m) < qc) && (active[m].len() as u64) < qa
        };
        macro_rules! give {
            ($t:expr, $m:expr) => {{
                let (t, m): (&Task, &str) = ($t, $m);
                active.get_mut(m).unwrap().insert(t.clone());
                owner.insert(t.clone(), m.to_string());
                if class_count(&active, m) == qc {
                    crem -= qc;
                    cn -= 1;
                    qc = quota(crem, cn);
                }
                if active[m].len() as u64 == qa {
                    rem -= qa;
                    n -= 1;
                    qa = quota(rem, n);
                }
            }};
        }
        // A1.
        for t in by_partition.iter().filter(|t| in_class(t)) {
            if let Some(o) = prev_owner.get(t) {
                if process.contains_key(o.as_str()) && below(&active, o, qc, qa) {
                    give!(t, o);
                }
            }
        }
        // A2.
        for t in by_partition.iter().filter(|t| in_class(t)) {
            if owner.contains_key(t) {
                continue;
            }
            let candidates: Vec<String> = prev_standby
                .get(t)
                .into_iter()
                .flatten()
                .filter(|c| below(&active, c, qc, qa))
                .cloned()
                .collect();
            if let Some(m) = least(&active, &standby, candidates) {
                give!(t, &m);
            }
        }
        // A3.
        for t in by_sub.iter().filter(|t| in_class(t)) {
            if owner.contains_key(t) {
                continue;
            }
            let m = least(&active, &standby, ids.clone()).unwrap();
            give!(t, &m);
        }
    }

    // L: lag-aware placement. Warm-ups also sit in `standby` (they count in loads and hold the
    // task) and are reported apart.
    let spec_of: BTreeMap<&str, &MemberSpec<'static>> =
        members.iter().map(|m| (m.member_id.as_ref(), *m)).collect();
    let lag = |m: &str, t: &Task| -> Option<u64> {
        let end = members
            .iter()
            .flat_map(|x| &x.task_end_offsets)
            .filter(|(s, p, _)| *s == t.0 && *p == t.1)
            .map(|x| x.2)
            .max();
        spec_of[m]
            .task_offsets
            .iter()
            .filter(|(s, p, _)| *s == t.0 && *p == t.1)
            .filter_map(|&(_, _, o)| match (o, end) {
                (-2, _) => Some(0),
                (o, Some(e)) if o >= 0 => Some((e - o).max(0) as u64),
                _ => None,
            })
            .min()
    };
    let caught = |m: &str, t: &Task| lag(m, t).is_some_and(|l| l <= acceptable.max(0) as u64);
    let mut warm: BTreeSet<(String, Task)> = BTreeSet::new();
    let any_lag = by_sub
        .iter()
        .any(|t| ids.iter().any(|m| lag(m, t).is_some()));
    if any_lag {
        let mut budget = warmups.max(0);
        for pass in [true, false] {
            for t in by_partition.iter().filter(|t| stateful(&t.0)) {
                let o = owner[t].clone();
                if prev_warmup.contains(&(t.clone(), o.clone())) != pass {
                    continue;
                }
                if ids
                    .iter()
                    .any(|x| process[x.as_str()] == process[o.as_str()] && caught(x, t))
                {
                    continue;
                }
                let chosen = match prev_owner.get(t) {
                    Some(p) if process.contains_key(p.as_str()) && caught(p, t) => Some(p.clone()),
                    _ => ids
                        .iter()
                        .filter(|x| caught(x, t))
                        .min_by(|a, b| {
                            lag(a, t)
                                .cmp(&lag(b, t))
                                .then_with(|| cmp(&active, &standby, a, b))
                        })
                        .cloned(),
                };
                let Some(c) = chosen else { continue };
                active.get_mut(&o).unwrap().remove(t);
                active.get_mut(&c).unwrap().insert(t.clone());
                owner.insert(t.clone(), c);
                if budget > 0 {
                    budget -= 1;
                    standby.get_mut(&o).unwrap().insert(t.clone());
                    warm.insert((o, t.clone()));
                }
            }
        }
    }

    if r > 0 {
        let holds = |active: &BTreeMap<String, BTreeSet<Task>>,
                     standby: &BTreeMap<String, BTreeSet<Task>>,
                     m: &str,
                     t: &Task| {
            let p = process[m];
            ids.iter()
                .filter(|x| process[x.as_str()] == p)
                .any(|x| active[x].contains(t) || standby[x].contains(t))
        };
        let s_tasks = by_sub.iter().filter(|t| stateful(&t.0)).count() as u64;
        let (mut rem, mut n) = (by_sub.len() as u64 + r as u64 * s_tasks, ids.len() as u64);
        let mut qt = quota(rem, n);
        let mut left: BTreeMap<Task, i32> = BTreeMap::new();
        // n(p, q): standbys on process q of tasks active on process p.
        let mut pairs: BTreeMap<(&str, &str), u32> = BTreeMap::new();
        // Spread caps: c(p, q) = max(1, ceil(replicas * a(p) * w(q) / (members - w(p)))), where
        // a(p) counts the stateful tasks active on p (after L) and w the members of a process;
        // S1 keeps up to c + max(1, c / 4).
        let processes = capacity.len() as u64;
        let replicas = (r as u64).min(processes - 1);
        let mut a_of: BTreeMap<&str, u64> = capacity.keys().map(|&p| (p, 0)).collect();
        for (t, o) in &owner {
            if stateful(&t.0) {
                *a_of.get_mut(process[o.as_str()]).unwrap() += 1;
            }
        }
        let num_members = ids.len() as u64;
        let cap = |p: &str, q: &str| -> u32 {
            let others = (num_members - capacity[p]).max(1);
            ((replicas * a_of[p] * capacity[q]).div_ceil(others).max(1)) as u32
        };
        let keep = |c: u32| c + (c / 4).max(1);
        let fair = quota(rem, n);
        // S1.
        for t in by_partition.iter().rev() {
            if !stateful(&t.0) {
                continue;
            }
            for i in 0..r {
                let ok = |active: &BTreeMap<String, BTreeSet<Task>>,
                          standby: &BTreeMap<String, BTreeSet<Task>>,
                          m: &str| {
                    let holders: Vec<String> = ids
                        .iter()
                        .filter(|x| {
                            active[x.as_str()].contains(t) || standby[x.as_str()].contains(t)
                        })
                        .cloned()
                        .collect();
                    let p = process[owner[t].as_str()];
                    process.contains_key(m)
                        && !holds(active, standby, m, t)
                        && load(active, standby, m) < qt
                        && conflicts(m, &holders) == 0
                        && pairs.get(&(p, process[m])).copied().unwrap_or(0)
                            < keep(cap(p, process[m]))
                };
                let mut chosen = prev_owner
                    .get(t)
                    .filter(|o| ok(&active, &standby, o))
                    .cloned();
                if chosen.is_none() {
                    let candidates: Vec<String> = prev_standby
                        .get(t)
                        .into_iter()
                        .flatten()
                        .filter(|c| ok(&active, &standby, c))
                        .cloned()
                        .collect();
                    chosen = least(&active, &standby, candidates);
                }
                let Some(m) = chosen else {
                    left.insert(t.clone(), r - i);
                    break;
                };
                standby.get_mut(&m).unwrap().insert(t.clone());
                *pairs
                    .entry((process[owner[t].as_str()], process[m.as_str()]))
                    .or_default() += 1;
                if load(&active, &standby, &m) == qt {
                    rem -= qt;
                    n -= 1;
                    qt = quota(rem, n);
                }
            }
        }
        // S2: candidates in least-loaded order, one per process (its least-loaded member), at
        // most 64 looked at, those after the first only while at most one more loaded than it
        // and at most the fair total. Ranked by rack conflicts, then over the cap (by the share
        // of its cap it would hold with one more standby of the active's process), then backing up the active's process:
        // walked until a candidate ranked (0, 0, false), the second with no conflicts below the
        // cap or the fourth with no conflicts; the smallest rank wins, then the earliest.
        // First, up to four processes in turn after the active's (processes in order of first
        // appearance among the members by id, cyclically),
        // each try moving the turn on: the first whose least-loaded member is as little loaded as
        // the group's least-loaded member and below the fair total, does not hold the task, has
        // no conflicts and is below the cap.
        let mut procs: Vec<&str> = Vec::new();
        for m in &members {
            if !procs.contains(&m.process_id.as_ref()) {
                procs.push(m.process_id.as_ref());
            }
        }
        let mut turn: BTreeMap<&str, usize> = procs.iter().map(|&p| (p, 1)).collect();
        for t in by_sub.iter().rev() {
            let Some(&k) = left.get(t) else { continue };
            for _ in 0..k {
                let a = process[owner[t].as_str()];
                let holders: Vec<String> = ids
                    .iter()
                    .filter(|x| active[x.as_str()].contains(t) || standby[x.as_str()].contains(t))
                    .cloned()
                    .collect();
                let lightest = ids
                    .iter()
                    .map(|m| load(&active, &standby, m))
                    .min()
                    .unwrap();
                let at = procs.iter().position(|&p| p == a).unwrap();
                let mut in_turn = None;
                for _ in 0..if procs.len() < 2 { 0 } else { 4 } {
                    let offset = turn[a];
                    turn.insert(a, offset % (procs.len() - 1) + 1);
                    let q = procs[(at + offset) % procs.len()];
                    let m = least(
                        &active,
                        &standby,
                        ids.iter()
                            .filter(|m| process[m.as_str()] == q)
                            .cloned()
                            .collect(),
                    )
                    .unwrap();
                    let l = load(&active, &standby, &m);
                    if l == lightest
                        && l < fair
                        && !holds(&active, &standby, &m, t)
                        && conflicts(&m, &holders) == 0
                        && pairs.get(&(a, q)).copied().unwrap_or(0) < cap(a, q)
                    {
                        in_turn = Some(m);
                        break;
                    }
                }
                if let Some(m) = in_turn {
                    standby.get_mut(&m).unwrap().insert(t.clone());
                    *pairs.entry((a, process[m.as_str()])).or_default() += 1;
                    continue;
                }
                let mut candidates: Vec<String> = ids
                    .iter()
                    .filter(|m| !holds(&active, &standby, m, t))
                    .cloned()
                    .collect();
                candidates.sort_by(|a, b| cmp(&active, &standby, a, b));
                let mut seen_process: BTreeSet<&str> = BTreeSet::new();
                candidates.retain(|m| seen_process.insert(process[m.as_str()]));
                candidates.truncate(64);
                if let Some(first) = candidates.first().map(|m| load(&active, &standby, m)) {
                    let mut kept = 0;
                    for (i, m) in candidates.iter().enumerate() {
                        let l = load(&active, &standby, m);
                        if i > 0 && (l > first + 1 || l > fair) {
                            break;
                        }
                        kept = i + 1;
                    }
                    candidates.truncate(kept);
                }
                let holders: Vec<String> = ids
                    .iter()
                    .filter(|x| active[x.as_str()].contains(t) || standby[x.as_str()].contains(t))
                    .cloned()
                    .collect();
                let a = process[owner[t].as_str()];
                let rank = |m: &String| {
                    let q = process[m.as_str()];
                    let count = pairs.get(&(a, q)).copied().unwrap_or(0);
                    (
                        conflicts(m, &holders),
                        if count < cap(a, q) {
                            0
                        } else {
                            // The share of the cap it would hold, in 16-bit fixed point.
                            1 + ((count as u64 + 1) << 16) / (cap(a, q) as u64).max(1)
                        },
                        pairs.get(&(q, a)).copied().unwrap_or(0) > 0,
                    )
                };
                let mut walked = Vec::new();
                let (mut fits, mut clean) = (0, 0);
                for m in &candidates {
                    let r = rank(m);
                    walked.push((r, m));
                    fits += usize::from(r.0 == 0 && r.1 == 0);
                    clean += usize::from(r.0 == 0);
                    if r == (0, 0, false) || fits >= 2 || clean >= 4 {
                        break;
                    }
                }
                let chosen = walked
                    .iter()
                    .enumerate()
                    .min_by_key(|(i, (r, _))| (*r, *i))
                    .map(|(_, (_, m))| (*m).clone());
                if let Some(m) = chosen {
                    standby.get_mut(&m).unwrap().insert(t.clone());
                    *pairs.entry((a, process[m.as_str()])).or_default() += 1;
                }
            }
        }
    }

    ids.iter()
        .map(|m| {
            let mut a = Assignment::default();
            for t in &active[m] {
                insert(&mut a.active, t);
            }
            for t in &standby[m] {
                if warm.contains(&(m.clone(), t.clone())) {
                    insert(&mut a.warmup, t);
                } else {
                    insert(&mut a.standby, t);
                }
            }
            (m.clone(), a)
        })
        .collect()
}

// ------------------------------------------------------------------------------------------
// Invariants.

/// Largest total-load spread (max - min of active + standby per member) seen in any group, and
/// in groups whose processes all have the same number of members.
static LARGEST_SPREAD: AtomicUsize = AtomicUsize::new(0);
static LARGEST_SPREAD_EVEN: AtomicUsize = AtomicUsize::new(0);

fn report_spread() {
    eprintln!(
        "largest total-load spread seen: {} (processes of equal capacity: {})",
        LARGEST_SPREAD.load(AtomicOrdering::Relaxed),
        LARGEST_SPREAD_EVEN.load(AtomicOrdering::Relaxed)
    );
}

/// Asserts invariants 1-5 (the first half of 5) of 2.10 and returns the total-load spread.
fn check_invariants(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
    r: i32,
    out: &Target,
) -> Result<usize, TestCaseError> {
    let ids: BTreeSet<&str> = members.iter().map(|m| m.member_id.as_ref()).collect();
    prop_assert_eq!(out.keys().map(String::as_str).collect::<BTreeSet<_>>(), ids);
    if members.is_empty() {
        // No member to place anything on.
        return Ok(0);
    }
    let process: BTreeMap<&str, &str> = members
        .iter()
        .map(|m| (m.member_id.as_ref(), m.process_id.as_ref()))
        .collect();
    let num_processes = process.values().collect::<BTreeSet<_>>().len();
    let stateful: BTreeMap<&str, bool> = subs
        .iter()
        .map(|s| (s.subtopology_id.as_str(), s.stateful))
        .collect();
    let total: usize = subs.iter().map(|s| s.num_tasks.max(0) as usize).sum();

    // 1. Every task active exactly once, and nothing else active.
    let mut active_owner: BTreeMap<Task, &str> = BTreeMap::new();
    for (m, a) in out {
        prop_assert!(a.warmup.is_empty());
        for t in task_list(&a.active) {
            prop_assert!(active_owner.insert(t.clone(), m).is_none(), "{:?} twice", t);
        }
    }
    prop_assert_eq!(active_owner.len(), total);
    for s in subs {
        for p in 0..s.num_tasks.max(0) {
            prop_assert!(active_owner.contains_key(&(s.subtopology_id.clone(), p)));
        }
    }

    // 2. One copy per process; 3. standbys only for stateful tasks, the right number.
    let mut copies: BTreeSet<(&str, Task)> = BTreeSet::new();
    let mut standbys: BTreeMap<Task, usize> = BTreeMap::new();
    for (m, a) in out {
        for t in task_list(&a.active)
            .into_iter()
            .chain(task_list(&a.standby))
        {
            prop_assert!(
                copies.insert((process[m.as_str()], t.clone())),
                "two copies of {:?}",
                t
            );
        }
        for t in task_list(&a.standby) {
            prop_assert!(stateful.get(t.0.as_str()).copied().unwrap_or(false));
            *standbys.entry(t).or_default() += 1;
        }
    }
    let expected = (r.max(0) as usize).min(num_processes.saturating_sub(1));
    for s in subs.iter().filter(|s| s.stateful) {
        for p in 0..s.num_tasks.max(0) {
            let got = standbys
                .get(&(s.subtopology_id.clone(), p))
                .copied()
                .unwrap_or(0);
            prop_assert_eq!(got, expected, "standbys of ({}, {})", s.subtopology_id, p);
        }
    }

    // 4. Active balance.
    let counts: Vec<usize> = out.values().map(|a| count(&a.active)).collect();
    if let (Some(min), Some(max)) = (counts.iter().min(), counts.iter().max()) {
        prop_assert!(max - min <= 1, "active counts {:?}", counts);
    }
    // ... and of stateful active tasks on their own (docs/assignor.md).
    let stateful_counts: Vec<usize> = out
        .values()
        .map(|a| {
            a.active
                .iter()
                .filter(|(s, _)| stateful.get(s).copied().unwrap_or(false))
                .map(|(_, p)| p.len())
                .sum()
        })
        .collect();
    if let (Some(min), Some(max)) = (stateful_counts.iter().min(), stateful_counts.iter().max()) {
        prop_assert!(
            max - min <= 1,
            "stateful active counts {:?}",
            stateful_counts
        );
    }

    // 5. A member that lost a task it previously owned (smallest claimer of an existing task)
    // ends with at least floor(T / n) active tasks: it only loses tasks beyond its quota.
    if !members.is_empty() {
        let floor = total / members.len();
        let mut sorted: Vec<&MemberSpec<'static>> = members.iter().collect();
        sorted.sort_by(|a, b| a.member_id.cmp(&b.member_id));
        let mut claimed: BTreeSet<Task> = BTreeSet::new();
        for m in sorted {
            let now = &out[m.member_id.as_ref()].active;
            for t in task_list(&m.previous.active) {
                let exists = subs
                    .iter()
                    .any(|s| s.subtopology_id == t.0 && t.1 >= 0 && t.1 < s.num_tasks);
                if !exists || !claimed.insert(t.clone()) {
                    continue;
                }
                let kept = now.get(&t.0).is_some_and(|ps| ps.contains(&t.1));
                prop_assert!(
                    kept || count(now) >= floor,
                    "{} lost {:?} with {} active tasks (floor {})",
                    m.member_id,
                    t,
                    count(now),
                    floor
                );
            }
        }
    }

    let totals: Vec<usize> = out
        .values()
        .map(|a| count(&a.active) + count(&a.standby))
        .collect();
    let spread = match (totals.iter().min(), totals.iter().max()) {
        (Some(min), Some(max)) => max - min,
        _ => 0,
    };
    LARGEST_SPREAD.fetch_max(spread, AtomicOrdering::Relaxed);
    let mut capacity: BTreeMap<&str, usize> = BTreeMap::new();
    for p in process.values() {
        *capacity.entry(p).or_default() += 1;
    }
    if capacity.values().collect::<BTreeSet<_>>().len() == 1 {
        LARGEST_SPREAD_EVEN.fetch_max(spread, AtomicOrdering::Relaxed);
    }
    Ok(spread)
}

// ------------------------------------------------------------------------------------------
// Generators.

#[derive(Clone, Debug)]
struct Group {
    members: Vec<MemberSpec<'static>>,
    subs: Vec<SubtopologySpec>,
    replicas: i32,
}

fn arb_subtopologies() -> impl Strategy<Value = Vec<SubtopologySpec>> {
    prop::collection::vec((0i32..12, any::<bool>()), 0..5).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (n, stateful))| SubtopologySpec {
                subtopology_id: format!("{i}"),
                num_tasks: n,
                stateful,
            })
            .collect()
    })
}

/// Random previous task maps over existing and non-existing tasks (subtopologies "0".."5",
/// partitions -1..12): conflicts, stale tasks and overlaps included.
fn arb_task_map() -> impl Strategy<Value = TaskMap> {
    prop::collection::vec((0u8..6, -1i32..12), 0..8).prop_map(|v| {
        let mut map = TaskMap::new();
        for (s, p) in v {
            insert(&mut map, &(s.to_string(), p));
        }
        map
    })
}

fn arb_member(i: usize, processes: usize) -> impl Strategy<Value = MemberSpec<'static>> {
    (
        0..processes.max(1),
        prop::option::weighted(0.6, (arb_task_map(), arb_task_map(), arb_task_map())),
        any::<bool>(),
    )
        .prop_map(move |(p, prev, racked)| MemberSpec {
            member_id: format!("m{i:02}").into(),
            process_id: format!("p{p}").into(),
            // Racks by process (some groups rackless): r0..r2.
            rack_id: racked.then(|| format!("r{}", p % 3)).map(Into::into),
            previous: prev
                .map(|(active, standby, warmup)| Assignment {
                    active,
                    standby,
                    warmup,
                })
                .unwrap_or_default()
                .into(),
            ..Default::default()
        })
}

fn arb_group() -> impl Strategy<Value = Group> {
    (0usize..12, 1usize..7, arb_subtopologies(), 0i32..4).prop_flat_map(|(n, procs, subs, r)| {
        let members: Vec<_> = (0..n).map(|i| arb_member(i, procs)).collect();
        (members, Just(subs), Just(r)).prop_map(|(members, subs, replicas)| Group {
            members,
            subs,
            replicas,
        })
    })
}

/// A group whose previous targets are a stable assignment: the assignor's own output, after
/// one round from random previous targets.
fn arb_stable_group() -> impl Strategy<Value = Group> {
    arb_group().prop_map(|g| {
        let first = assign(&g.members, &g.subs, g.replicas);
        let members = with_previous(&g.members, &first);
        Group { members, ..g }
    })
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

// ------------------------------------------------------------------------------------------
// Properties.

#[test]
fn assignor_invariants_determinism_and_reference() {
    let strategy = arb_group().prop_flat_map(|g| {
        let shuffled = Just(g.members.clone()).prop_shuffle();
        let subs = Just(g.subs.clone()).prop_shuffle();
        (Just(g), shuffled, subs)
    });
    let result = runner(2000).run(&strategy, |(g, shuffled, shuffled_subs)| {
        let out = assign(&g.members, &g.subs, g.replicas);
        check_invariants(&g.members, &g.subs, g.replicas, &out)?;
        // Same input, same output; also in another order.
        prop_assert_eq!(&out, &assign(&g.members, &g.subs, g.replicas));
        prop_assert_eq!(&out, &assign(&shuffled, &shuffled_subs, g.replicas));
        // The exact output of 2.10's rules.
        prop_assert_eq!(&out, &reference(&g.members, &g.subs, g.replicas));
        // Feeding the target back is a fixed point for active tasks.
        let again = assign(&with_previous(&g.members, &out), &g.subs, g.replicas);
        check_invariants(&g.members, &g.subs, g.replicas, &again)?;
        prop_assert_eq!(tasks_moved(&out, &again), 0);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    report_spread();
}

/// Adds a random report to `m`: every fifth entry an end offset, the others task offsets (a
/// negative one as `-2`, a running active task).
fn report(m: &mut MemberSpec<'static>, rep: &[(u8, i32, i64)]) {
    for &(s, p, o) in rep {
        if o % 5 == 0 {
            m.task_end_offsets.push((s.to_string(), p, 200 + o));
        } else {
            m.task_offsets
                .push((s.to_string(), p, if o < 0 { -2 } else { o }));
        }
    }
}

/// Random task offsets (some `-2`, some behind, some ahead of the end) and end offsets on the
/// members of a group: step L and warm-ups against the reference; invariants 1-3.
#[test]
fn assignor_lag_aware_warmups_follow_the_reference() {
    let offsets = prop::collection::vec((0u8..4, 0i32..12, -3i64..300), 0..12);
    let strategy = (
        arb_group(),
        prop::collection::vec(offsets, 12),
        0i64..150,
        0i32..4,
    );
    let result = runner(1000).run(&strategy, |(g, reports, acceptable, w)| {
        let members: Vec<MemberSpec<'static>> = g
            .members
            .iter()
            .zip(&reports)
            .map(|(m, rep)| {
                let mut m = m.clone();
                report(&mut m, rep);
                m
            })
            .collect();
        let out = assign_with(&members, &g.subs, g.replicas, (acceptable, w));
        prop_assert_eq!(
            &out,
            &reference_with(&members, &g.subs, g.replicas, (acceptable, w))
        );
        let warm: usize = out.values().map(|a| count(&a.warmup)).sum();
        prop_assert!(
            warm <= w.max(0) as usize,
            "{} warm-ups, at most {}",
            warm,
            w
        );
        // Invariants 1 and 2 with warm-ups: one active per task, one copy per process.
        let process: BTreeMap<&str, &str> = members
            .iter()
            .map(|m| (m.member_id.as_ref(), m.process_id.as_ref()))
            .collect();
        let mut actives: BTreeSet<Task> = BTreeSet::new();
        let mut copies: BTreeSet<(&str, Task)> = BTreeSet::new();
        for (m, a) in &out {
            for t in task_list(&a.active) {
                prop_assert!(actives.insert(t.clone()), "{:?} active twice", t);
            }
            for map in [&a.active, &a.standby, &a.warmup] {
                for t in task_list(map) {
                    prop_assert!(
                        copies.insert((process[m.as_str()], t.clone())),
                        "{:?} twice on one process",
                        t
                    );
                }
            }
        }
        let total: usize = g.subs.iter().map(|s| s.num_tasks.max(0) as usize).sum();
        prop_assert_eq!(actives.len(), if members.is_empty() { 0 } else { total });
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// `compute` (the coordinator's way: only the changed targets are built) against `assign`: the
/// changed targets are exactly those that differ from the previous entry, and the counts and
/// warm-ups are those of the full output. Previous targets come either from the members or lent
/// (`previous_targets`, with some members missing there); some carry empty task sets.
#[test]
fn assignor_compute_reports_exactly_the_changes_of_assign() {
    let offsets = prop::collection::vec((0u8..4, 0i32..12, -3i64..300), 0..12);
    let strategy = (
        prop_oneof![arb_group(), arb_stable_group()],
        prop::collection::vec(offsets, 12),
        prop::collection::vec(any::<u8>(), 12),
        prop::collection::btree_set((0u8..6, -1i32..12), 0..6),
        any::<bool>(),
    );
    let result = runner(1500).run(&strategy, |(g, reports, how, orphaned, lent)| {
        let mut members = g.members.clone();
        for ((m, rep), &h) in members.iter_mut().zip(&reports).zip(&how) {
            if h % 4 == 0 {
                report(m, rep);
            }
            if h % 7 == 1 {
                // A task that does not exist: the previous target is not exact.
                m.previous.to_mut().standby.insert("0", 999);
            }
        }
        let orphaned: BTreeSet<Task> = orphaned
            .into_iter()
            .map(|(s, p)| (s.to_string(), p))
            .collect();
        // Lent previous targets: members whose `how` is odd have none there.
        let lent_targets: TargetMap = members
            .iter()
            .zip(&how)
            .filter(|(_, &h)| h % 2 == 0)
            .map(|(m, _)| (m.member_id.to_string(), m.previous.clone().into_owned()))
            .collect();
        let specs: Vec<MemberSpec<'static>> = if lent {
            members
                .iter()
                .map(|m| MemberSpec {
                    previous: Assignment::default().into(),
                    ..m.clone()
                })
                .collect()
        } else {
            members.clone()
        };
        let spec = GroupSpec {
            previous_targets: lent.then_some(&lent_targets),
            num_warmup_replicas: 3,
            acceptable_recovery_lag: 50,
            ..GroupSpec::new(&specs, &g.subs, g.replicas)
        };
        let out = StickyAssignor.assign(&spec).expect("valid spec");
        let computed = StickyAssignor.compute(&spec).expect("valid spec");
        let previous_of = |id: &str| -> Option<&Assignment> {
            if lent {
                lent_targets.get(id)
            } else {
                members
                    .iter()
                    .find(|m| m.member_id == id)
                    .map(|m| m.previous.as_ref())
            }
        };
        let expected: Vec<(&str, Assignment)> = out
            .iter()
            .filter(|(id, t)| previous_of(id) != Some(t))
            .map(|(id, t)| (id.as_str(), t.clone()))
            .collect();
        prop_assert_eq!(computed.changed(), expected);
        let previous: Target = out
            .keys()
            .filter_map(|id| previous_of(id).map(|t| (id.clone(), t.clone())))
            .collect();
        prop_assert_eq!(computed.tasks_moved(), tasks_moved(&previous, &out));
        prop_assert_eq!(
            computed.tasks_reassigned(&orphaned),
            tasks_reassigned(&orphaned, &previous, &out)
        );
        let mut warmups = Vec::new();
        for (id, a) in &out {
            for (sub, p) in task_list(&a.warmup) {
                let active = out
                    .iter()
                    .find(|(_, o)| o.active.get(&sub).is_some_and(|s| s.contains(&p)))
                    .map(|(m, _)| m.clone());
                warmups.push((id.clone(), sub, p, active));
            }
        }
        let got: Vec<_> = computed
            .warmups()
            .into_iter()
            .map(|w: Warmup<'_>| {
                (
                    w.member_id.to_string(),
                    w.subtopology_id.to_string(),
                    w.partition,
                    w.active_member_id.map(str::to_string),
                )
            })
            .collect();
        prop_assert_eq!(got, warmups);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// A computation that starts from the last one's memo (`GroupSpec::memo`) gives what the same
/// computation gives from the members' maps: after a first computation, the members hold its
/// targets (own or lent), some leave, one may join, reports and the standby count may change,
/// and sometimes the subtopologies do (when the memo must be ignored).
#[test]
fn assignor_memo_computes_as_the_maps_do() {
    let offsets = prop::collection::vec((0u8..4, 0i32..12, -3i64..300), 0..12);
    let strategy = (
        prop_oneof![arb_group(), arb_stable_group()],
        prop::collection::vec(offsets, 12),
        prop::collection::vec(any::<u8>(), 12),
        any::<bool>(),
        0u8..4,
    );
    let result = runner(1000).run(&strategy, |(g, reports, how, lent, change)| {
        // Reports in both computations, so that targets hold warm-ups.
        let mut reported = g.members.clone();
        for ((m, rep), &h) in reported.iter_mut().zip(&reports).zip(&how) {
            if h % 3 == 0 {
                report(m, rep);
            }
        }
        let first = GroupSpec {
            num_warmup_replicas: 3,
            acceptable_recovery_lag: 50,
            ..GroupSpec::new(&reported, &g.subs, g.replicas)
        };
        let computed = StickyAssignor.compute(&first).expect("valid spec");
        let mut targets: Target = reported
            .iter()
            .map(|m| (m.member_id.to_string(), m.previous.clone().into_owned()))
            .collect();
        for (id, t) in computed.changed() {
            targets.insert(id.to_string(), t);
        }
        let memo = computed.into_memo();
        // The next group: the members hold their new targets; some leave, one may join.
        let mut members: Vec<MemberSpec<'static>> = Vec::new();
        for (m, &h) in reported.iter().zip(&how) {
            if h % 5 == 4 {
                continue;
            }
            let mut m = MemberSpec {
                previous: if lent {
                    Assignment::default().into()
                } else {
                    targets[m.member_id.as_ref()].clone().into()
                },
                ..m.clone()
            };
            if h % 7 == 1 {
                m.task_offsets.clear();
            }
            members.push(m);
        }
        if change % 2 == 1 {
            members.push(MemberSpec {
                member_id: "m99".into(),
                process_id: format!("p{}", change).into(),
                ..Default::default()
            });
        }
        let mut subs = g.subs.clone();
        if change == 3 {
            if let Some(s) = subs.first_mut() {
                s.num_tasks += 1;
            }
        }
        let replicas = if change == 2 {
            1 - g.replicas.min(1)
        } else {
            g.replicas
        };
        let stored: TargetMap = targets.clone().into_iter().collect();
        let base = GroupSpec {
            previous_targets: lent.then_some(&stored),
            num_warmup_replicas: 3,
            acceptable_recovery_lag: 50,
            ..GroupSpec::new(&members, &subs, replicas)
        };
        let from_maps = StickyAssignor.compute(&base).expect("valid spec");
        let from_memo = StickyAssignor
            .compute(&GroupSpec {
                memo: Some(&memo),
                ..base
            })
            .expect("valid spec");
        prop_assert_eq!(from_memo.changed(), from_maps.changed());
        prop_assert_eq!(from_memo.tasks_moved(), from_maps.tasks_moved());
        prop_assert_eq!(from_memo.warmups(), from_maps.warmups());
        let orphaned: BTreeSet<Task> = (0..4).map(|p| ("0".to_string(), p)).collect();
        prop_assert_eq!(
            from_memo.tasks_reassigned(&orphaned),
            from_maps.tasks_reassigned(&orphaned)
        );
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn assignor_join_moves_at_most_a_fair_share() {
    let strategy = (arb_stable_group(), any::<bool>(), 0usize..7);
    let result = runner(1000).run(&strategy, |(g, new_process, p)| {
        let previous = assign(&g.members, &g.subs, g.replicas);
        let mut members = with_previous(&g.members, &previous);
        members.push(MemberSpec {
            member_id: "new".into(),
            process_id: if new_process {
                "p-new".into()
            } else {
                format!("p{p}").into()
            },
            ..Default::default()
        });
        let next = assign(&members, &g.subs, g.replicas);
        check_invariants(&members, &g.subs, g.replicas, &next)?;
        let n = g.members.len() as u64;
        let class = |st: bool| -> u64 {
            g.subs
                .iter()
                .filter(|s| s.stateful == st)
                .map(|s| s.num_tasks.max(0) as u64)
                .sum()
        };
        let total = class(true) + class(false);
        let moved = tasks_moved(&previous, &next);
        // A fair share of all tasks, plus as many stateless tasks again as the stateful share
        // moved, to even the totals out (each class is balanced on its own).
        prop_assert!(
            moved <= total.div_ceil(n + 1) + class(true).div_ceil(n + 1),
            "{} moved, T = {}, n = {}",
            moved,
            total,
            n
        );
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn assignor_leave_moves_only_the_leavers_tasks() {
    let strategy = arb_stable_group()
        .prop_filter("needs a member", |g| !g.members.is_empty())
        .prop_flat_map(|g| {
            let n = g.members.len();
            (Just(g), 0..n)
        });
    let result = runner(1000).run(&strategy, |(g, leaver)| {
        let previous = assign(&g.members, &g.subs, g.replicas);
        let mut members = with_previous(&g.members, &previous);
        let gone = members.remove(leaver);
        let next = assign(&members, &g.subs, g.replicas);
        check_invariants(&members, &g.subs, g.replicas, &next)?;
        let moved = tasks_moved(&previous, &next);
        // The leaver's tasks move (unless nobody is left to take them), nothing else does.
        let expected = if members.is_empty() {
            0
        } else {
            count(&previous[gone.member_id.as_ref()].active) as u64
        };
        let both = g.subs.iter().any(|s| s.stateful && s.num_tasks > 0)
            && g.subs.iter().any(|s| !s.stateful && s.num_tasks > 0);
        // Separate balance of the two classes can move a few more (stateless tasks making room
        // for stateful ones); with one class only, exactly the leaver's tasks move.
        prop_assert!(
            moved >= expected,
            "{} moved, the leaver had {}",
            moved,
            expected
        );
        if !both {
            prop_assert_eq!(moved, expected);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ------------------------------------------------------------------------------------------
// Edge cases.

fn fresh(id: &str, process: &str) -> MemberSpec<'static> {
    MemberSpec {
        member_id: id.to_string().into(),
        process_id: process.to_string().into(),
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

#[test]
fn assignor_edge_no_members() {
    assert!(assign(&[], &[sub("0", 3, true)], 1).is_empty());
    assert!(assign(&[], &[], 0).is_empty());
}

#[test]
fn assignor_edge_more_members_than_tasks() {
    let members: Vec<MemberSpec<'static>> = (0..7)
        .map(|i| fresh(&format!("m{i}"), &format!("p{}", i % 3)))
        .collect();
    let subs = [sub("0", 2, true), sub("1", 1, false)];
    let out = assign(&members, &subs, 2);
    assert_eq!(out.len(), 7);
    check_invariants(&members, &subs, 2, &out).unwrap();
    assert_eq!(out, reference(&members, &subs, 2));
}

#[test]
fn assignor_edge_one_process_holds_every_member() {
    let members: Vec<MemberSpec<'static>> =
        (0..4).map(|i| fresh(&format!("m{i}"), "only")).collect();
    let subs = [sub("0", 6, true), sub("1", 3, true)];
    let out = assign(&members, &subs, 2);
    check_invariants(&members, &subs, 2, &out).unwrap();
    assert!(out.values().all(|a| a.standby.is_empty()));
}

#[test]
fn assignor_edge_zero_task_subtopologies() {
    let members = [fresh("a", "p1"), fresh("b", "p2")];
    let subs = [sub("0", 0, true), sub("1", 0, false)];
    let out = assign(&members, &subs, 1);
    assert_eq!(out.len(), 2);
    assert!(out.values().all(Assignment::is_empty));
    let subs = [sub("0", 0, true), sub("1", 3, true), sub("2", 0, false)];
    let out = assign(&members, &subs, 1);
    check_invariants(&members, &subs, 1, &out).unwrap();
}

/// Larger random groups than the proptest generator makes, for the spread figure.
#[test]
fn assignor_larger_groups_keep_the_invariants() {
    let strategy = (
        2usize..60,
        1usize..20,
        0i32..3,
        1i32..40,
        any::<u64>(),
        any::<bool>(),
    );
    let result = runner(300).run(&strategy, |(n, procs, r, per_sub, seed, even)| {
        let (n, procs) = if even {
            (n - n % procs.min(n), procs.min(n))
        } else {
            (n, procs)
        };
        let members: Vec<MemberSpec<'static>> = (0..n)
            .map(|i| {
                let p = if even {
                    i % procs
                } else {
                    (seed.wrapping_mul(i as u64 + 7) >> 7) as usize % procs
                };
                fresh(&format!("m{i:03}"), &format!("p{p}"))
            })
            .collect();
        let subs: Vec<SubtopologySpec> = (0..6)
            .map(|i| sub(&i.to_string(), per_sub + i, i % 2 == 0))
            .collect();
        let out = assign(&members, &subs, r);
        check_invariants(&members, &subs, r, &out)?;
        let stable = with_previous(&members, &out);
        let again = assign(&stable, &subs, r);
        check_invariants(&stable, &subs, r, &again)?;
        prop_assert_eq!(tasks_moved(&out, &again), 0);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    report_spread();
}

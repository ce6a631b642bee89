//! `cargo run --release --example assignor_figures`: the sticky assignor's placement and cost
//! figures (docs/assignor.md), printed as tables.
//!
//! - Failover readiness: random groups of 100 processes over 3 racks, mixed stateful and
//!   stateless subtopologies, one standby; for each rack lost, the share of stateful tasks that
//!   keep a copy (active or standby) on a surviving process. Worst rack and mean, over seeds.
//! - Stateful-active spread (max - min per member): 1,000 members one per process, 100
//!   subtopologies x 100 partitions, every second stateful, one standby.
//! - Cost: cold 1,000 / 100 / 10,000 + 10,000, one member joining it, cold 10,000 / 1,000 /
//!   100,000 + 100,000 (best of several runs), and bytes allocated per placed task.
//!
//! `profile` as the first argument loops the cold 1,000-member case for a profiler (`SGC_MEMBERS`
//! members, `SGC_ROUNDS` rounds),
//! `profile-join` the case of one member joining it (`profile-join compute`: through
//! `StickyAssignor::compute`, the coordinator's way).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{BTreeMap, BTreeSet};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use streams_group_coordinator::assignor::{GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec};
use streams_group_coordinator::tasks::Assignment;

struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same layout, as the caller guarantees for ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the pointer came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

type Target = BTreeMap<String, Assignment>;

/// A small deterministic generator (xorshift64*), so the figures are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn assign(spec: &GroupSpec<'_>) -> Target {
    match StickyAssignor.assign(spec) {
        Ok(t) => t,
        Err(e) => panic!("the figures' specs are valid: {e}"),
    }
}

fn spec<'a>(
    members: &'a [MemberSpec<'static>],
    subs: &'a [SubtopologySpec],
    r: i32,
) -> GroupSpec<'a> {
    GroupSpec::new(members, subs, r)
}

fn members(n: usize, processes: usize, racks: usize) -> Vec<MemberSpec<'static>> {
    (0..n)
        .map(|i| MemberSpec {
            member_id: format!("member-{i:05}").into(),
            process_id: format!("process-{:04}", i % processes).into(),
            rack_id: (racks > 0)
                .then(|| format!("rack-{}", (i % processes) % racks))
                .map(Into::into),
            ..Default::default()
        })
        .collect()
}

fn with_previous(members: &mut [MemberSpec<'static>], target: &Target) {
    for m in members {
        m.previous = target
            .get(m.member_id.as_ref())
            .cloned()
            .unwrap_or_default()
            .into();
    }
}

/// Share of stateful tasks with a copy outside the lost rack, for the worst rack and on mean.
fn failover(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
    target: &Target,
) -> (f64, f64) {
    let rack_of: BTreeMap<&str, &str> = members
        .iter()
        .map(|m| (m.member_id.as_ref(), m.rack_id.as_deref().unwrap_or("")))
        .collect();
    let stateful: BTreeSet<&str> = subs
        .iter()
        .filter(|s| s.stateful)
        .map(|s| s.subtopology_id.as_str())
        .collect();
    // Racks holding a copy, per stateful task.
    let mut copies: BTreeMap<(&str, i32), BTreeSet<&str>> = BTreeMap::new();
    for (member, a) in target {
        let rack = rack_of.get(member.as_str()).copied().unwrap_or("");
        for map in [&a.active, &a.standby] {
            for (sub, parts) in map {
                if stateful.contains(sub) {
                    for &p in parts {
                        copies.entry((sub, p)).or_default().insert(rack);
                    }
                }
            }
        }
    }
    let racks: BTreeSet<&str> = rack_of.values().copied().collect();
    let total = copies.len().max(1) as f64;
    let shares: Vec<f64> = racks
        .iter()
        .map(|lost| {
            let kept = copies
                .values()
                .filter(|r| r.iter().any(|x| x != lost))
                .count();
            kept as f64 / total
        })
        .collect();
    let worst = shares.iter().copied().fold(1.0, f64::min);
    let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
    (worst, mean)
}

fn random_subs(rng: &mut Rng) -> Vec<SubtopologySpec> {
    (0..(4 + rng.below(8)))
        .map(|s| SubtopologySpec {
            subtopology_id: format!("{s}"),
            num_tasks: (8 + rng.below(64)) as i32,
            stateful: rng.below(2) == 0,
        })
        .collect()
}

fn failover_table() {
    println!("## Failover readiness (100 processes, 1-2 members each, 3 racks, 1 standby)");
    println!();
    println!("| seeds | worst rack lost: min / mean | any rack lost: mean |");
    println!("|---:|---:|---:|");
    let mut worst = Vec::new();
    let mut mean = Vec::new();
    for seed in 1..=20u64 {
        let mut rng = Rng(seed * 0x9E37_79B9_7F4A_7C15);
        let subs = random_subs(&mut rng);
        let n = 100 + rng.below(100) as usize;
        let mut ms = members(n, 100, 3);
        let first = assign(&spec(&ms, &subs, 1));
        with_previous(&mut ms, &first);
        let target = assign(&spec(&ms, &subs, 1));
        let (w, m) = failover(&ms, &subs, &target);
        worst.push(w);
        mean.push(m);
    }
    let min = worst.iter().copied().fold(1.0, f64::min);
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "| 20 | {:.2}% / {:.2}% | {:.2}% |",
        100.0 * min,
        100.0 * avg(&worst),
        100.0 * avg(&mean)
    );
    println!();
}

fn spread_table() {
    println!("## Stateful-active spread (1,000 members one per process, 100 x 100 tasks, every second stateful, 1 standby)");
    println!();
    let subs: Vec<SubtopologySpec> = (0..100)
        .map(|s| SubtopologySpec {
            subtopology_id: format!("{s:03}"),
            num_tasks: 100,
            stateful: s % 2 == 0,
        })
        .collect();
    let ms = members(1_000, 1_000, 0);
    let target = assign(&spec(&ms, &subs, 1));
    let stateful: BTreeSet<&str> = subs
        .iter()
        .filter(|s| s.stateful)
        .map(|s| s.subtopology_id.as_str())
        .collect();
    let count = |a: &Assignment, standby: bool, want_stateful: bool| -> usize {
        let map = if standby { &a.standby } else { &a.active };
        map.iter()
            .filter(|(s, _)| stateful.contains(s) == want_stateful)
            .map(|(_, p)| p.len())
            .sum()
    };
    println!("| per member | min | max |");
    println!("|---|---:|---:|");
    for (what, standby, st) in [
        ("stateful active", false, true),
        ("stateless active", false, false),
        ("standby", true, true),
    ] {
        let counts: Vec<usize> = target.values().map(|a| count(a, standby, st)).collect();
        let min = counts.iter().copied().min().unwrap_or(0);
        let max = counts.iter().copied().max().unwrap_or(0);
        println!("| {what} | {min} | {max} |");
    }
    println!();
}

fn all_stateful(tasks: usize) -> Vec<SubtopologySpec> {
    (0..10)
        .map(|s| SubtopologySpec {
            subtopology_id: format!("{s}"),
            num_tasks: (tasks / 10) as i32,
            stateful: true,
        })
        .collect()
}

/// Best of `runs` wall-clock times of `f`.
fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn cost_table() {
    println!("## Cost (best of 10; every subtopology stateful, 1 standby)");
    println!();
    println!("| case | time | bytes allocated per placed task |");
    println!("|---|---:|---:|");
    for (n, p, t) in [
        (1_000usize, 100usize, 10_000usize),
        (10_000, 1_000, 100_000),
    ] {
        let subs = all_stateful(t);
        let ms = members(n, p, 0);
        let s = spec(&ms, &subs, 1);
        let time = best_of(10, || drop(black_box(assign(&s))));
        let before = ALLOCATED.load(Ordering::Relaxed);
        let out = assign(&s);
        let bytes = ALLOCATED.load(Ordering::Relaxed) - before;
        drop(out);
        println!(
            "| cold {n} / {p} / {t} + {t} | {:.2} ms | {:.0} |",
            time.as_secs_f64() * 1e3,
            bytes as f64 / (2 * t) as f64
        );
        if n == 1_000 {
            let mut ms = ms.clone();
            let first = assign(&spec(&ms, &subs, 1));
            with_previous(&mut ms, &first);
            let stable = assign(&spec(&ms, &subs, 1));
            with_previous(&mut ms, &stable);
            // The stable group's next computation, and what it leaves for the one after.
            let settled = assign(&spec(&ms, &subs, 1));
            let memo = StickyAssignor
                .compute(&spec(&ms, &subs, 1))
                .expect("a valid spec")
                .into_memo();
            with_previous(&mut ms, &settled);
            ms.push(MemberSpec {
                member_id: "member-joining".into(),
                process_id: "process-joining".into(),
                ..Default::default()
            });
            let s = spec(&ms, &subs, 1);
            let time = best_of(10, || drop(black_box(assign(&s))));
            println!(
                "| one member joins {n} / {p} / {t} + {t} | {:.2} ms | |",
                time.as_secs_f64() * 1e3
            );
            // The coordinator's way: the placement in indices, only the changed targets built.
            let time = best_of(10, || {
                let computed = StickyAssignor.compute(&s).expect("a valid spec");
                drop(black_box(computed.changed()));
            });
            let computed = StickyAssignor.compute(&s).expect("a valid spec");
            println!(
                "| same, changed targets only (`compute`, {} of {} members) | {:.2} ms | |",
                computed.changed().len(),
                ms.len(),
                time.as_secs_f64() * 1e3
            );
            // The coordinator's whole way: from the last computation's memo, leaving its own.
            let with_memo = GroupSpec {
                memo: Some(&memo),
                ..s
            };
            let time = best_of(10, || {
                let computed = StickyAssignor.compute(&with_memo).expect("a valid spec");
                drop(black_box(computed.changed()));
                drop(black_box(computed.into_memo()));
            });
            println!(
                "| same, from the last computation's memo (`GroupSpec::memo`) | {:.2} ms | |",
                time.as_secs_f64() * 1e3
            );
        }
    }
    println!();
}

/// The profiling loops' rounds: `SGC_ROUNDS`, 500 by default.
fn rounds() -> usize {
    std::env::var("SGC_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(500)
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("profile") {
        // `SGC_MEMBERS=10000` for the cold 10,000-member case.
        let n: usize = std::env::var("SGC_MEMBERS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1_000);
        let subs = all_stateful(10 * n);
        let ms = members(n, n / 10, 0);
        let s = spec(&ms, &subs, 1);
        for _ in 0..rounds() {
            drop(black_box(assign(&s)));
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("profile-join") {
        let subs = all_stateful(10_000);
        let mut ms = members(1_000, 100, 0);
        let first = assign(&spec(&ms, &subs, 1));
        with_previous(&mut ms, &first);
        ms.push(MemberSpec {
            member_id: "member-joining".into(),
            process_id: "process-joining".into(),
            ..Default::default()
        });
        let s = spec(&ms, &subs, 1);
        let compute = std::env::args().nth(2).as_deref() == Some("compute");
        // The memo of the computation whose targets the members hold (`first`'s).
        let memo = (std::env::args().nth(2).as_deref() == Some("memo")).then(|| {
            StickyAssignor
                .compute(&spec(&members(1_000, 100, 0), &subs, 1))
                .expect("a valid spec")
                .into_memo()
        });
        for _ in 0..rounds() {
            if let Some(memo) = &memo {
                let with_memo = GroupSpec {
                    memo: Some(memo),
                    ..s
                };
                let computed = StickyAssignor.compute(&with_memo).expect("a valid spec");
                drop(black_box(computed.changed()));
                drop(black_box(computed.into_memo()));
            } else if compute {
                let computed = StickyAssignor.compute(&s).expect("a valid spec");
                drop(black_box(computed.changed()));
            } else {
                drop(black_box(assign(&s)));
            }
        }
        return;
    }
    failover_table();
    spread_table();
    cost_table();
}

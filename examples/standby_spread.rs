//! `cargo run --release --example standby_spread -- [assignor|coordinator|all] [SIZES] [PATHS]`: how
//! the sticky assignor spreads each process's standbys over the other processes
//! (docs/assignor.md, "Standby spread"), as tables.
//!
//! Groups: member `i` on process `i % P`, every subtopology stateful, one standby replica. SIZES
//! picks the groups by number (`1,2`; default all four): 1 = 100 members / 10 processes / 10 x
//! 100 tasks, 2 = 1,000 / 100 / 10 x 1,000, 3 = 5,000 / 500 / 50 x 1,000, 4 = 10,000 / 1,000 /
//! 100 x 1,000.
//!
//! - `assignor`: the cold target, then that target fed back once (the stable one). Per process
//!   with at least 8 stateful actives, its *share*: the largest part of its actives' standbys on
//!   any single other process (median and max over processes), and the pairs of processes that
//!   each hold at least 90% of the other's standbys. Then failover: for each of (up to 20)
//!   processes, its members leave and the group is assigned again; each survivor process's gain
//!   in actives against the mean gain. Then a member joining on a new process: its actives and
//!   standbys beside the others'.
//! - `coordinator`: the same groups formed through a draft coordinator by correct clients,
//!   by every path of `tests/common/spread.rs` (PATHS picks them by name, `Cold,JoinByJoin`):
//!   cold (every join in one computation: assignment interval 60 s), batched (interval 50 ms,
//!   joins 1 ms apart), join by join (interval 0), behind a first lone member, and after a
//!   process failed and came back; then the share of the stable group.

use std::collections::BTreeMap;
use std::time::Instant;

use streams_group_coordinator::assignor::{GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec};
use streams_group_coordinator::tasks::Assignment;

#[path = "../tests/common/harness.rs"]
mod harness;
#[path = "../tests/common/spread.rs"]
mod spread;

use spread::{form_by, median_max, members, shares, subtopologies, Path, Size, PATHS, SIZES};

fn assign(
    members: &[MemberSpec<'static>],
    subs: &[SubtopologySpec],
) -> BTreeMap<String, Assignment> {
    StickyAssignor
        .assign(&GroupSpec::new(members, subs, 1))
        .expect("a valid spec")
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

fn by_process(
    members: &[MemberSpec<'static>],
    target: &BTreeMap<String, Assignment>,
) -> BTreeMap<String, (String, Assignment)> {
    members
        .iter()
        .map(|m| {
            let a = target
                .get(m.member_id.as_ref())
                .cloned()
                .unwrap_or_default();
            (m.member_id.to_string(), (m.process_id.to_string(), a))
        })
        .collect()
}

fn active_per_process(t: &BTreeMap<String, (String, Assignment)>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (p, a) in t.values() {
        *out.entry(p.clone()).or_default() += a.active.count();
    }
    out
}

fn assignor_tables(sizes: &[&Size]) {
    println!("| group | cold share median / max | stable share median / max | mutual >= 90% pairs | failover: largest gain / mean gain (worst process) | joiner actives + standbys | others' standbys min-max | standbys moved by the join |");
    println!("|---|---|---|---|---|---|---|---|");
    for size in sizes {
        let subs = subtopologies(size);
        let mut ms = members(size);
        let cold = assign(&ms, &subs);
        let (cold_shares, _) = shares(&by_process(&ms, &cold));
        with_previous(&mut ms, &cold);
        let stable = assign(&ms, &subs);
        let stable_view = by_process(&ms, &stable);
        let (stable_shares, mutual) = shares(&stable_view);
        with_previous(&mut ms, &stable);

        // Failover: each of the first 20 processes lost in turn.
        let before = active_per_process(&stable_view);
        let mut worst: f64 = 0.0;
        let mut worst_pair = (0usize, 0.0f64);
        for lost in 0..size.processes.min(20) {
            let lost_id = format!("process-{lost:04}");
            let survivors: Vec<MemberSpec<'static>> = ms
                .iter()
                .filter(|m| m.process_id != lost_id.as_str())
                .cloned()
                .collect();
            let after = active_per_process(&by_process(&survivors, &assign(&survivors, &subs)));
            let lost_actives = before[&lost_id] as f64;
            let mean = lost_actives / (size.processes - 1) as f64;
            let gain = after
                .iter()
                .map(|(p, &n)| n.saturating_sub(before[p]))
                .max()
                .unwrap_or(0);
            let ratio = gain as f64 / mean;
            if ratio > worst {
                worst = ratio;
                worst_pair = (gain, mean);
            }
        }

        // A member joining on a new process.
        let mut joined = ms.clone();
        joined.push(MemberSpec {
            member_id: "member-zjoiner".into(),
            process_id: "process-new".into(),
            ..Default::default()
        });
        let after_join = assign(&joined, &subs);
        let j = &after_join["member-zjoiner"];
        let others: Vec<usize> = after_join
            .iter()
            .filter(|(id, _)| id.as_str() != "member-zjoiner")
            .map(|(_, a)| a.standby.count())
            .collect();
        let moved: usize = after_join
            .iter()
            .map(|(id, a)| {
                let before = stable.get(id).map(|b| &b.standby);
                a.standby
                    .tasks()
                    .filter(|&(s, p)| !before.is_some_and(|b| b.contains(s, p)))
                    .count()
            })
            .sum();
        let (cm, cx) = median_max(&cold_shares);
        let (sm, sx) = median_max(&stable_shares);
        println!(
            "| {} | {cm:.2} / {cx:.2} | {sm:.2} / {sx:.2} | {mutual} | {} / {:.2} ({:.2}x) | {} + {} | {}-{} | {moved} |",
            size.label(),
            worst_pair.0,
            worst_pair.1,
            worst,
            j.active.count(),
            j.standby.count(),
            others.iter().min().unwrap_or(&0),
            others.iter().max().unwrap_or(&0),
        );
    }
}

fn coordinator_tables(sizes: &[&Size], paths: &[Path]) {
    let names: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    println!(
        "| group | {} (median / max; after failures: the worst stage) | time |",
        names.join(" | ")
    );
    println!("|---|{}---|", "---|".repeat(paths.len()));
    for size in sizes {
        let start = Instant::now();
        let mut cells = Vec::new();
        for &path in paths {
            let (mut m, mut x) = (0.0f64, 0.0f64);
            for stage in form_by(size, path) {
                let (s, _) = shares(&stage);
                let (sm, sx) = median_max(&s);
                (m, x) = (m.max(sm), x.max(sx));
            }
            cells.push(format!("{m:.2} / {x:.2}"));
        }
        println!(
            "| {} | {} | {:.1} s |",
            size.label(),
            cells.join(" | "),
            start.elapsed().as_secs_f64()
        );
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "all".into());
    let picked: Vec<&Size> = match args.next() {
        Some(list) => list
            .split(',')
            .filter_map(|n| n.trim().parse::<usize>().ok())
            .filter_map(|n| SIZES.get(n.wrapping_sub(1)))
            .collect(),
        None => SIZES.iter().collect(),
    };
    if matches!(what.as_str(), "assignor" | "all") {
        assignor_tables(&picked);
    }
    let paths: Vec<Path> = match args.next() {
        Some(list) => PATHS
            .into_iter()
            .filter(|p| {
                list.split(',')
                    .any(|n| n.eq_ignore_ascii_case(&format!("{p:?}")))
            })
            .collect(),
        None => PATHS.to_vec(),
    };
    if matches!(what.as_str(), "coordinator" | "all") {
        coordinator_tables(&picked, &paths);
    }
}

//! `cargo run --release --example formation -- [SIZE] [PATH] [EVERY]`: forms one of the standby
//! spread groups (`tests/common/spread.rs`, SIZE 1-4, default 4: 10,000 members on 1,000
//! processes, 100 x 1,000 stateful tasks) by PATH (default `JoinByJoin`) and prints the time
//! of every EVERY joins (default 1,000), then of settling: how the cost of a join grows with
//! the group.

use std::time::Instant;

#[path = "../tests/common/harness.rs"]
mod harness;
#[path = "../tests/common/spread.rs"]
mod spread;

use spread::{Formation, Path, PATHS, SIZES};

fn main() {
    let mut args = std::env::args().skip(1);
    let size = args
        .next()
        .and_then(|a| a.parse::<usize>().ok())
        .and_then(|n| SIZES.get(n.wrapping_sub(1)))
        .unwrap_or(&SIZES[3]);
    let path = args
        .next()
        .and_then(|a| {
            PATHS
                .into_iter()
                .find(|p| format!("{p:?}").eq_ignore_ascii_case(&a))
        })
        .unwrap_or(Path::JoinByJoin);
    let every: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let interval = match path {
        Path::JoinByJoin => 0,
        Path::Batched | Path::AfterFailures => 50,
        _ => 60_000,
    };
    println!("{} by {path:?}", size.label());
    let start = Instant::now();
    let mut f = Formation::new(size, interval);
    let mut lap = Instant::now();
    for i in 0..size.members {
        f.join(
            &format!("member-{i:05}"),
            &format!("process-{:04}", i % size.processes),
        );
        f.now += 1;
        if (i + 1) % every == 0 {
            println!(
                "joins {:>6}: {:>8.1} ms",
                i + 1,
                lap.elapsed().as_secs_f64() * 1e3
            );
            lap = Instant::now();
        }
    }
    let step = (i64::from(interval) + 1).min(5_000);
    let mut rounds = 0;
    while !f.stable() {
        let (behind, state) = f.progress();
        println!(
            "round {rounds:>3}: {behind} members behind the group epoch, {state}, errors {:?} {:?}",
            f.errors, f.last_error
        );
        rounds += 1;
        assert!(rounds <= 200, "the group did not settle");
        let lap = Instant::now();
        f.round(step);
        println!("           {:.1} ms", lap.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "settled in {rounds} rounds: {:.1} ms",
        lap.elapsed().as_secs_f64() * 1e3
    );
    println!("total: {:.1} s", start.elapsed().as_secs_f64());
}

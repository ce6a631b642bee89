//! `cargo run --release --example join_storm -- [MEMBERS] [INTERVAL_MS]`: MEMBERS (default
//! 1,000) members join one group over two 1,000-partition topics and are driven to `STABLE`
//! (the benchmark's join storm, `benches/coordinator.rs`), once; prints the time. Run under
//! `valgrind --tool=callgrind` for instruction counts that a busy machine does not blur.

use std::time::Instant;

#[path = "../tests/common/harness.rs"]
mod harness;

fn main() {
    let mut args = std::env::args().skip(1);
    let members: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let interval: i32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let config = streams_group_coordinator::Config {
        assignment_interval_ms: interval,
        ..Default::default()
    };
    let start = Instant::now();
    let (_, joined, _) = harness::stable_group(config, members, 1_000);
    println!(
        "{} members joined and reached STABLE (interval {interval} ms) in {:.1} ms",
        joined.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
}

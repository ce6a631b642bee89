//! Reading a group's history from its records (`history::parse_log` and `history::tell`, what
//! `sgc history` and the bindings' `readLog` do): the outputs written while 100, 1,000 and
//! 2,000 members join one group one by one and reach `STABLE` (the log of a group's forming,
//! where every join rebalances). Criterion reports records per second: a record must cost what
//! it changes, so the figure must not fall as the group grows.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use streams_group_coordinator::history::{parse_log, tell};
use streams_group_coordinator::Config;

#[path = "../tests/common/harness.rs"]
mod harness;

fn history(crit: &mut Criterion) {
    let mut group = crit.benchmark_group("history_of_forming_group");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for members in [100, 1000, 2000] {
        let config = Config {
            assignment_interval_ms: 0,
            ..Config::default()
        };
        let log = harness::stable_group_outputs(config, members, members as i32);
        let records = parse_log(log.as_bytes(), None)
            .map(|l| l.records.len())
            .unwrap_or(0);
        // The figure is only worth having if the log is read and told.
        let told = tell(&parse_log(log.as_bytes(), None).expect("a readable log"));
        assert_eq!(
            told["groups"][0]["summary"]["members"].as_u64(),
            Some(members as u64),
            "the history tells the group's members"
        );
        group.throughput(Throughput::Elements(records as u64));
        group.bench_function(format!("{members}_members"), |b| {
            b.iter(|| tell(&parse_log(log.as_bytes(), None).expect("a readable log")))
        });
    }
    group.finish();
}

criterion_group!(benches, history);
criterion_main!(benches);

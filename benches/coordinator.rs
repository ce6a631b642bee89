//! Coordinator benchmarks (issue figures): steady-state heartbeats of a 1,000-member stable
//! group through the typed API, through Kafka's wire frames and through the JSON API, and the
//! time for 1,000 members to join one group and reach STABLE, and the standby spread groups
//! formed by every path up to 10,000 members on 100,000 tasks.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::json;
use streams_group_coordinator::api::{ClientInfo, HeartbeatRequest, Input, InputKind};
use streams_group_coordinator::wire::{handle_frame_with, FrameScratch, Peer};
use streams_group_coordinator::Coordinator;

const MEMBERS: usize = 1000;
const PARTITIONS: i32 = 1000;

#[path = "../tests/common/harness.rs"]
mod harness;
#[path = "../tests/common/spread.rs"]
mod spread;

/// A 1,000-member group driven to STABLE by correct clients; returns it with members' epochs.
fn stable_group() -> (Coordinator, Vec<(String, i32)>, i64) {
    stable_group_of(MEMBERS, 0)
}

/// `count` members join one group and are driven to STABLE, with
/// `group.streams.assignment.interval.ms` = `interval` (the shared harness's driver).
fn stable_group_of(count: usize, interval: i32) -> (Coordinator, Vec<(String, i32)>, i64) {
    let config = streams_group_coordinator::Config {
        assignment_interval_ms: interval,
        ..Default::default()
    };
    harness::stable_group(config, count, PARTITIONS)
}

fn heartbeats(crit: &mut Criterion) {
    let (coordinator, members, now) = stable_group();
    let mut group = crit.benchmark_group("steady_heartbeats_1000_members");
    group.throughput(Throughput::Elements(members.len() as u64));
    group.sample_size(20);
    group.bench_function("typed", |b| {
        let mut c = coordinator.clone();
        let inputs: Vec<Input> = members
            .iter()
            .map(|(id, epoch)| Input {
                now_ms: now,
                kind: InputKind::StreamsGroupHeartbeat {
                    client: ClientInfo::default(),
                    request: Box::new(HeartbeatRequest {
                        group_id: "g".into(),
                        member_id: id.clone(),
                        member_epoch: *epoch,
                        rebalance_timeout_ms: -1,
                        ..Default::default()
                    }),
                },
            })
            .collect();
        b.iter_batched(
            || inputs.clone(),
            |inputs| {
                for input in inputs {
                    let _ = c.handle(input);
                }
            },
            BatchSize::LargeInput,
        )
    });
    // The same heartbeats as Kafka's request frames, answered with response frames.
    group.bench_function("wire", |b| {
        let mut c = coordinator.clone();
        let dialect = c.config().dialect;
        let peer = Peer::default();
        let frames = harness::steady_heartbeat_frames(dialect, &members);
        // One response buffer, as a host keeps one per connection.
        let mut out = Vec::with_capacity(256);
        let mut scratch = FrameScratch::default();
        b.iter(|| {
            for frame in &frames {
                let _ = handle_frame_with(&mut c, &mut scratch, frame, now, &peer, &mut out);
            }
        })
    });
    group.bench_function("json", |b| {
        let mut c = coordinator.clone();
        let lines: Vec<String> = members
            .iter()
            .map(|(id, epoch)| {
                json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": id, "memberEpoch": epoch}})
                    .to_string()
            })
            .collect();
        b.iter(|| {
            for line in &lines {
                let _ = c.handle_json(line);
            }
        })
    });
    group.finish();
}

fn join_to_stable(crit: &mut Criterion) {
    let mut group = crit.benchmark_group("join_1000_members_to_stable");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("json", |b| b.iter(stable_group));
    group.bench_function("json_interval_1000", |b| {
        b.iter(|| stable_group_of(MEMBERS, 1000))
    });
    group.finish();
    let mut group = crit.benchmark_group("join_10000_members_to_stable");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("json_interval_1000", |b| {
        b.iter(|| stable_group_of(10_000, 1000))
    });
    group.finish();
}

/// Standby spread groups formed by correct typed clients, from the first join to `STABLE`
/// (`tests/common/spread.rs`): 10,000 members on 1,000 processes, 100 x 1,000 stateful tasks,
/// one standby, cold (one computation) and batched (a computation every 50 ms, joins 1 ms
/// apart); join by join (a computation at every join) at 1,000 / 100 / 10 x 1,000. The
/// 10,000-member formation join by join takes minutes: `cargo run --release --example
/// formation -- 4 JoinByJoin`.
fn formation(crit: &mut Criterion) {
    use spread::{form_by, Path, SIZES};
    let mut group = crit.benchmark_group("form_10000_members_100000_tasks");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    for path in [Path::Cold, Path::Batched] {
        group.bench_function(format!("{path:?}"), |b| b.iter(|| form_by(&SIZES[3], path)));
    }
    group.finish();
    let mut group = crit.benchmark_group("form_1000_members_10000_tasks");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("JoinByJoin", |b| {
        b.iter(|| form_by(&SIZES[1], Path::JoinByJoin))
    });
    group.finish();
}

criterion_group!(benches, heartbeats, join_to_stable, formation);
criterion_main!(benches);

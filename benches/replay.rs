//! Replay at log speed (issue figures): the records of a stable 10,000-member group (20,000
//! active tasks), in Kafka's bytes form (`keyBytes`/`valueBytes`, base64) as a host reads them
//! from `__consumer_offsets`, replayed into a fresh coordinator in `Replay` inputs of 1,000
//! records; in both dialects. Criterion reports records/s and bytes/s; a third figure hands the
//! same records' bytes to `Coordinator::replay_bytes` (a broker's log, no base64 or JSON), and a
//! fourth replays the already decoded records (`Coordinator::replay`), the apply step alone.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::json;
use streams_group_coordinator::records::Dialect;
use streams_group_coordinator::Coordinator;

#[path = "../tests/common/replay_log.rs"]
mod replay_log;
use replay_log::{group_records, raw_records, replay_inputs, settle_allocator, CHUNK, MEMBERS};

fn fresh(dialect: Dialect) -> Coordinator {
    Coordinator::from_json_config(&json!({"dialect": dialect.name()})).expect("config")
}

/// A fresh coordinator for a timed pass, once the previous pass's is freed for good.
fn settled(dialect: Dialect) -> Coordinator {
    settle_allocator();
    fresh(dialect)
}

fn replay(crit: &mut Criterion) {
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let records = group_records(dialect);
        let (inputs, bytes) = replay_inputs(dialect, &records);
        // The figures are only worth having if the replay rebuilds the group.
        let mut check = fresh(dialect);
        for input in &inputs {
            assert!(!check.handle_json(input).starts_with("{\"error\""));
        }
        assert_eq!(
            check.group("streams-app").map(|g| g.members.len()),
            Some(MEMBERS)
        );
        let mut group = crit.benchmark_group(format!("replay_10000_members/{}", dialect.name()));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(10));
        group.throughput(Throughput::Elements(records.len() as u64));
        // The same run, reported once per record and once per byte.
        let bytes_form = |b: &mut criterion::Bencher<'_>| {
            b.iter_batched(
                || settled(dialect),
                |mut c| {
                    for input in &inputs {
                        std::hint::black_box(c.handle_json(input));
                    }
                    c
                },
                BatchSize::PerIteration,
            )
        };
        group.bench_function("bytes_form_records", bytes_form);
        let owned = raw_records(dialect, &records);
        let raw: Vec<(&[u8], Option<&[u8]>)> = owned
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_deref()))
            .collect();
        group.bench_function("raw_bytes_records", |b| {
            b.iter_batched(
                || settled(dialect),
                |mut c| {
                    for chunk in raw.chunks(CHUNK) {
                        let _ = std::hint::black_box(c.replay_bytes(chunk, 1000));
                    }
                    c
                },
                BatchSize::PerIteration,
            )
        });
        group.bench_function("decoded_records", |b| {
            b.iter_batched(
                || settled(dialect),
                |mut c| {
                    let _ = std::hint::black_box(c.replay(&records, 1000));
                    c
                },
                BatchSize::PerIteration,
            )
        });
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function("bytes_form_bytes", bytes_form);
        group.finish();
    }
}

criterion_group!(benches, replay);
criterion_main!(benches);

//! Offset commit figures (issue 44): a 1,000-partition commit by the member of a stable group
//! (its validation against the member's tasks and epochs, and its 1,000 records), and the replay
//! of offset commit records (a partition's log loaded at start). Memory per committed offset is a
//! test (`tests/offsets_memory.rs`), not a benchmark.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use streams_group_coordinator::api::{
    Input, InputKind, OffsetCommitPartition, OffsetCommitRequest, OffsetCommitTopic,
};
use streams_group_coordinator::records::{OffsetCommitValue, Record, RecordKey, RecordValue};
use streams_group_coordinator::{Config, Coordinator};

#[path = "../tests/common/harness.rs"]
mod harness;

/// One member of a stable group owning 1,000 tasks: 500 partitions of each of two topics.
const PARTITIONS: i32 = 500;

/// The member's commit of every partition its tasks read, at its epoch.
fn commit(member: &str, epoch: i32, now_ms: i64, offset: i64) -> Input {
    let topics = ["a", "b"]
        .iter()
        .map(|t| OffsetCommitTopic {
            name: t.to_string(),
            topic_id: None,
            partitions: (0..PARTITIONS)
                .map(|p| OffsetCommitPartition {
                    partition_index: p,
                    committed_offset: offset,
                    committed_leader_epoch: -1,
                    committed_metadata: Some(String::new()),
                })
                .collect(),
        })
        .collect();
    Input {
        now_ms,
        kind: InputKind::OffsetCommit {
            api_version: 9,
            request: OffsetCommitRequest {
                group_id: "g".into(),
                generation_id_or_member_epoch: epoch,
                member_id: member.into(),
                group_instance_id: None,
                retention_time_ms: -1,
                topics,
            },
        },
    }
}

fn commits(crit: &mut Criterion) {
    let config = Config {
        offsets_max_partitions_per_group: 1 << 20,
        ..Config::default()
    };
    let (coordinator, members, now) = harness::stable_group(config, 1, PARTITIONS);
    let (member, epoch) = members[0].clone();
    let mut check = coordinator.clone();
    let out = check
        .handle(commit(&member, epoch, now, 1))
        .expect("a valid commit");
    assert_eq!(
        out.records.len(),
        1000,
        "every partition committed: {:?}",
        out.response
    );
    let mut group = crit.benchmark_group("offset_commit_1000_partitions");
    group.throughput(Throughput::Elements(1000));
    group.bench_function("typed", |b| {
        let mut c = coordinator.clone();
        let mut offset = 0;
        b.iter_batched(
            || {
                offset += 1;
                commit(&member, epoch, now, offset)
            },
            |input| c.handle(input),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn replays(crit: &mut Criterion) {
    // 100 topics of 100 partitions, as one group's log holds them.
    let records: Vec<Record> = (0..100)
        .flat_map(|t| {
            (0..100).map(move |p| {
                Record::new(
                    RecordKey::OffsetCommit {
                        group_id: "g".into(),
                        topic: format!("topic-{t}").into(),
                        partition: p,
                    },
                    RecordValue::OffsetCommit(OffsetCommitValue {
                        offset: 42,
                        commit_timestamp: 1_000,
                        ..Default::default()
                    }),
                )
            })
        })
        .collect();
    let config = Config {
        dialect: streams_group_coordinator::Dialect::Kafka42,
        offsets_max_partitions_per_group: 1 << 20,
        ..Config::default()
    };
    let mut group = crit.benchmark_group("replay_offset_records");
    group.throughput(Throughput::Elements(records.len() as u64));
    group.bench_function("10000_records", |b| {
        b.iter_batched(
            || Coordinator::new(config.clone()).expect("a valid config"),
            |mut c| c.replay(&records, 0).map(|_| c),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, commits, replays);
criterion_main!(benches);

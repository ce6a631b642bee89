//! Replay at log speed (issue figures): the records of a stable 10,000-member group (20,000
//! active tasks), in Kafka's bytes form (`keyBytes`/`valueBytes`, base64) as a host reads them
//! from `__consumer_offsets`, replayed into a fresh coordinator in `Replay` inputs of 1,000
//! records; in both dialects. Criterion reports records/s and bytes/s; a third figure replays
//! the already decoded records (`Coordinator::replay`), the apply step alone.

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::{json, Value};
use streams_group_coordinator::group::Member;
use streams_group_coordinator::records::build::{self, GroupMetadataFields};
use streams_group_coordinator::records::{
    encode_key, encode_value, Dialect, MemberMetadataValue, PartitionMetadataValue, Record,
    TopicMetadata, TopologyValue, Uuid,
};
use streams_group_coordinator::tasks::Assignment;
use streams_group_coordinator::topology::Subtopology;
use streams_group_coordinator::Coordinator;

const MEMBERS: usize = 10_000;
const CHUNK: usize = 1_000;

/// Every record of a stable group of `MEMBERS` members over 100 processes, each member owning
/// task `i` of both subtopologies, in the order the coordinator writes them.
fn group_records(dialect: Dialect) -> Vec<Record> {
    let g = "streams-app";
    let partitions = MEMBERS as i32;
    let mut out = Vec::new();
    let subtopologies: Vec<Subtopology> = ["a", "b"]
        .iter()
        .enumerate()
        .map(|(i, topic)| Subtopology {
            subtopology_id: i.to_string(),
            source_topics: vec![topic.to_string()],
            ..Default::default()
        })
        .collect();
    out.push(build::topology(
        g,
        TopologyValue {
            topology_id: if dialect == Dialect::Kip1071Draft {
                "t".into()
            } else {
                String::new()
            },
            epoch: 0,
            subtopologies,
        },
    ));
    if dialect == Dialect::Kip1071Draft {
        out.push(build::partition_metadata(
            g,
            PartitionMetadataValue {
                topics: ["a", "b"]
                    .iter()
                    .map(|t| TopicMetadata {
                        topic_id: Uuid::default(),
                        topic_name: t.to_string(),
                        num_partitions: partitions,
                        partition_metadata: Vec::new(),
                    })
                    .collect(),
            },
        ));
    }
    let fields = match dialect {
        Dialect::Kip1071Draft => GroupMetadataFields::default(),
        Dialect::Kafka42 => GroupMetadataFields {
            metadata_hash: 0x5eed,
            validated_topology_epoch: 0,
            last_assignment_configs: Some(Vec::new()),
        },
    };
    for i in 0..MEMBERS {
        let mut member = Member::new(&format!("member-{i:05}"));
        member.metadata = MemberMetadataValue {
            client_id: format!("app-{}", i % 100),
            client_host: format!("/10.0.{}.{}", i / 256 % 256, i % 256),
            rebalance_timeout_ms: 300_000,
            topology_id: if dialect == Dialect::Kip1071Draft {
                "t".into()
            } else {
                String::new()
            },
            process_id: format!("p{}", i % 100),
            ..Default::default()
        };
        let p = i as i32;
        member.assigned = Assignment::from_task_ids(
            &[
                streams_group_coordinator::records::TaskIds {
                    subtopology_id: "0".into(),
                    partitions: vec![p],
                    assignment_epochs: None,
                },
                streams_group_coordinator::records::TaskIds {
                    subtopology_id: "1".into(),
                    partitions: vec![p],
                    assignment_epochs: None,
                },
            ],
            &[],
            &[],
        );
        member.member_epoch = 2;
        member.previous_member_epoch = 1;
        member.active_epochs = [(("0".to_string(), p), 2), (("1".to_string(), p), 2)].into();
        out.push(build::member_metadata(g, &member));
        out.push(build::target_member(g, &member.member_id, &member.assigned));
        out.push(build::current_assignment(
            g,
            &member,
            dialect == Dialect::Kafka42,
        ));
    }
    out.push(build::group_metadata(g, 2, fields));
    out.push(build::target_metadata(g, 2));
    out
}

/// The records in bytes form, as `Replay` inputs of `CHUNK` records, and their total size.
fn replay_inputs(dialect: Dialect, records: &[Record]) -> (Vec<String>, u64) {
    let mut bytes = 0u64;
    let inputs = records
        .chunks(CHUNK)
        .map(|chunk| {
            let list: Vec<Value> = chunk
                .iter()
                .map(|r| {
                    let key = encode_key(dialect, &r.key);
                    let value = r.value.as_ref().map(|v| encode_value(dialect, v));
                    bytes += (key.len() + value.as_ref().map_or(0, Vec::len)) as u64;
                    json!({"keyBytes": STANDARD.encode(key),
                           "valueBytes": value.map(|v| STANDARD.encode(v))})
                })
                .collect();
            json!({"nowMs": 1000, "type": "Replay", "records": list}).to_string()
        })
        .collect();
    (inputs, bytes)
}

fn fresh(dialect: Dialect) -> Coordinator {
    Coordinator::from_json_config(&json!({"dialect": dialect.name()})).expect("config")
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
                || fresh(dialect),
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
        group.bench_function("decoded_records", |b| {
            b.iter_batched(
                || fresh(dialect),
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

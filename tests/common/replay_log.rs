//! The log of a stable 10,000-member group (20,000 active tasks), as the replay benchmark and
//! `examples/replay_loop` read it: every record in the order the coordinator writes them, and
//! the same records in Kafka's bytes form (`keyBytes`/`valueBytes`, base64) as `Replay` inputs.
#![allow(dead_code)]

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use streams_group_coordinator::group::Member;
use streams_group_coordinator::records::build::{self, GroupMetadataFields};
use streams_group_coordinator::records::{
    encode_key, encode_value, Dialect, MemberMetadataValue, PartitionMetadataValue, Record,
    TopicMetadata, TopologyValue, Uuid,
};
use streams_group_coordinator::tasks::Assignment;
use streams_group_coordinator::topology::Subtopology;

pub const MEMBERS: usize = 10_000;
pub const CHUNK: usize = 1_000;

/// Every record of a stable group of `MEMBERS` members over 100 processes, each member owning
/// task `i` of both subtopologies, in the order the coordinator writes them.
pub fn group_records(dialect: Dialect) -> Vec<Record> {
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
        Dialect::Kafka42 | Dialect::Kafka43 | Dialect::Kafka44 => GroupMetadataFields {
            metadata_hash: 0x5eed,
            validated_topology_epoch: 0,
            last_assignment_configs: Some(Vec::new()),
            ..GroupMetadataFields::default()
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
        member.active_epochs = [(("0", p), 2), (("1", p), 2)].into_iter().collect();
        out.push(build::member_metadata(g, &member));
        out.push(build::target_member(g, &member.member_id, &member.assigned));
        out.push(build::current_assignment(
            g,
            &member,
            dialect == Dialect::Kafka42,
        ));
    }
    out.push(build::group_metadata(g, 2, fields));
    out.push(build::target_metadata(g, 2, 0));
    out
}

/// The records in bytes form, as `Replay` inputs of `CHUNK` records, and their total size.
pub fn replay_inputs(dialect: Dialect, records: &[Record]) -> (Vec<String>, u64) {
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

/// The records' key and value bytes, as a broker holds them (`Coordinator::replay_bytes`).
pub fn raw_records(dialect: Dialect, records: &[Record]) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    records
        .iter()
        .map(|r| {
            (
                encode_key(dialect, &r.key),
                r.value.as_ref().map(|v| encode_value(dialect, v)),
            )
        })
        .collect()
}

/// Settles the allocator before a timed pass: glibc's malloc sorts the small blocks that the
/// previous pass's dropped coordinator freed (some 170,000) only at the next large request,
/// which would otherwise be the timed replay's first list of records, adding the previous
/// pass's drop to this pass (about a third of a pass on this machine). One large request,
/// untimed, pays it where it belongs; under another allocator it is a harmless allocation.
pub fn settle_allocator() {
    drop(std::hint::black_box(Vec::<u8>::with_capacity(1 << 20)));
}

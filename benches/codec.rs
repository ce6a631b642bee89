//! Encode and decode of a current-assignment record with 100 active tasks (binary and JSON).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use streams_group_coordinator::records::{
    decode_key, decode_value, encode_key, encode_value, record_from_json, record_to_json,
    CurrentMemberAssignmentValue, Dialect, Record, RecordKey, RecordType, RecordValue, TaskIds,
};

/// 10 subtopologies of 10 partitions each, with 4.2's per-task epochs.
fn current_assignment() -> Record {
    let active_tasks = (0..10)
        .map(|s| TaskIds {
            subtopology_id: s.to_string(),
            partitions: (0..10).collect(),
            assignment_epochs: Some(vec![7; 10]),
        })
        .collect();
    Record::new(
        RecordKey::CurrentMemberAssignment {
            group_id: "streams-app".into(),
            member_id: "h1FvL2YoMP32IqCiiHVn2g".into(),
        },
        RecordValue::CurrentMemberAssignment(Box::new(CurrentMemberAssignmentValue {
            member_epoch: 8,
            previous_member_epoch: 7,
            state: 0,
            active_tasks,
            ..Default::default()
        })),
    )
}

fn bench(c: &mut Criterion) {
    let record = current_assignment();
    let Some(value) = &record.value else { return };
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        c.bench_function(
            &format!("{}: encode+decode, 100 tasks", dialect.name()),
            |b| {
                b.iter(|| {
                    let key = encode_key(dialect, black_box(&record.key));
                    let bytes = encode_value(dialect, black_box(value));
                    let k = decode_key(dialect, &key);
                    let v = decode_value(dialect, RecordType::CurrentMemberAssignment, &bytes);
                    black_box((k, v))
                })
            },
        );
    }
    let dialect = Dialect::Kafka42;
    c.bench_function("kafka-4.2: JSON with bytes, to and from, 100 tasks", |b| {
        b.iter(|| {
            let json = record_to_json(dialect, black_box(&record), true);
            black_box(record_from_json(dialect, &json, "records[0]"))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

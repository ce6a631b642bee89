//! Golden bytes (PROTOCOL 5.6, and by hand from the schema files for every other record type),
//! decoding failures, and property tests of both codecs.

use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::codec::{record_type, type_id};
use super::*;
use crate::topology::{CopartitionGroup, Subtopology, TopicConfig, TopicInfo};

const DRAFT: Dialect = Dialect::Kip1071Draft;
const K42: Dialect = Dialect::Kafka42;

/// Hex with any separators (spaces, `|`, newlines) between the byte pairs.
fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s
        .chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_digit(16).unwrap() as u8)
        .collect();
    assert_eq!(digits.len() % 2, 0, "odd number of hex digits in {s}");
    digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect()
}

fn s(v: &str) -> String {
    v.to_owned()
}

fn tasks(subtopology: &str, partitions: &[i32]) -> TaskIds {
    TaskIds {
        subtopology_id: s(subtopology),
        partitions: partitions.to_vec(),
        assignment_epochs: None,
    }
}

fn group_key(t: RecordType) -> RecordKey {
    codec::make_key(t, s("g"), s("m1"))
}

/// Checks a record both ways: exact key and value bytes, decoding, size, and the JSON form
/// (with and without bytes, and from the bytes alone).
fn check_golden(dialect: Dialect, record: &Record, key_hex: &str, value_hex: Option<&str>) {
    let key_bytes = hex(key_hex);
    assert_eq!(encode_key(dialect, &record.key), key_bytes, "key bytes");
    assert_eq!(
        decode_key(dialect, &key_bytes),
        Ok(Some(record.key.clone()))
    );
    match (&record.value, value_hex) {
        (Some(value), Some(value_hex)) => {
            let value_bytes = hex(value_hex);
            assert_eq!(encode_value(dialect, value), value_bytes, "value bytes");
            assert_eq!(
                decode_value(dialect, value.record_type(), &value_bytes).as_ref(),
                Ok(value)
            );
            assert_eq!(
                encoded_size(dialect, record),
                key_bytes.len() + value_bytes.len()
            );
        }
        (None, None) => assert_eq!(encoded_size(dialect, record), key_bytes.len()),
        _ => panic!("golden value and record disagree on being a tombstone"),
    }
    check_json_round_trip(dialect, record);
}

fn check_json_round_trip(dialect: Dialect, record: &Record) {
    for with_bytes in [false, true] {
        let json = record_to_json(dialect, record, with_bytes);
        assert_eq!(
            record_from_json(dialect, &json, "r"),
            Ok(Some(record.clone())),
            "{json}"
        );
        // Through text, as a host would hand it back.
        let reparsed: Value = serde_json::from_str(&json.to_string()).unwrap();
        assert_eq!(reparsed, json);
    }
    let mut bytes_only = record_to_json(dialect, record, true);
    let obj = bytes_only.as_object_mut().unwrap();
    obj.remove("key");
    obj.remove("value");
    assert_eq!(
        record_from_json(dialect, &bytes_only, "r"),
        Ok(Some(record.clone()))
    );
}

// ---------------------------------------------------------------------------------------------
// Type ids

#[test]
fn type_ids_of_both_dialects() {
    use RecordType::*;
    let all = [
        GroupMetadata,
        PartitionMetadata,
        MemberMetadata,
        TargetAssignmentMetadata,
        TargetAssignmentMember,
        CurrentMemberAssignment,
        Topology,
    ];
    let draft: Vec<_> = all.iter().map(|&t| type_id(DRAFT, t)).collect();
    assert_eq!(draft, [15, 16, 17, 18, 19, 20, 21].map(Some).to_vec());
    let k42: Vec<_> = all.iter().map(|&t| type_id(K42, t)).collect();
    assert_eq!(
        k42,
        vec![
            Some(17),
            None,
            Some(19),
            Some(20),
            Some(21),
            Some(22),
            Some(23)
        ]
    );
    for id in -1..=30 {
        for dialect in [DRAFT, K42] {
            match record_type(dialect, id) {
                Some(t) => assert_eq!(type_id(dialect, t), Some(id)),
                None => assert!(!matches!(
                    (dialect, id),
                    (DRAFT, 15..=21) | (K42, 17 | 19..=23)
                )),
            }
        }
    }
}

#[test]
fn keys_of_other_kinds_are_skipped() {
    // Legacy offset commit (0), classic group (2), consumer group (3..), share group (15 in Kafka), the
    // retired 4.2 partition metadata (18), and ids beyond both dialects.
    for (dialect, id) in [
        (DRAFT, 0),
        (DRAFT, 14),
        (DRAFT, 22),
        (DRAFT, -1),
        (K42, 0),
        (K42, 15),
        (K42, 16),
        (K42, 18),
        (K42, 24),
    ] {
        let mut key = (id as i16).to_be_bytes().to_vec();
        key.extend(hex("00 01 67 ff ff ff")); // whatever follows is not ours to read
        assert_eq!(decode_key(dialect, &key), Ok(None), "{dialect:?} {id}");
    }
}

// ---------------------------------------------------------------------------------------------
// Offset commits (type 1 in every dialect; OffsetCommitKey/Value of Kafka's schema files)

fn offset_key() -> RecordKey {
    RecordKey::OffsetCommit {
        group_id: s("g").into(),
        topic: s("t").into(),
        partition: 0,
    }
}

#[test]
fn golden_offset_commit_version_4_and_its_tombstone() {
    let value = OffsetCommitValue {
        offset: 100,
        leader_epoch: 10,
        metadata: s("metadata"),
        commit_timestamp: 1000,
        ..OffsetCommitValue::default()
    };
    let key = "00 01 | 00 01 67 | 00 01 74 | 00 00 00 00";
    for dialect in [DRAFT, K42] {
        check_golden(
            dialect,
            &Record::new(offset_key(), RecordValue::OffsetCommit(value.clone())),
            key,
            Some(
                "00 04 | 00 00 00 00 00 00 00 64 | 00 00 00 0a | 09 6d 65 74 61 64 61 74 61
                 | 00 00 00 00 00 00 03 e8 | 00",
            ),
        );
        check_golden(dialect, &Record::tombstone(offset_key()), key, None);
    }
    // The topic id in tag 0 when not zero.
    let with_id = OffsetCommitValue {
        topic_id: Uuid(std::array::from_fn(|i| i as u8)),
        ..value
    };
    check_golden(
        K42,
        &Record::new(offset_key(), RecordValue::OffsetCommit(with_id)),
        key,
        Some(
            "00 04 | 00 00 00 00 00 00 00 64 | 00 00 00 0a | 09 6d 65 74 61 64 61 74 61
             | 00 00 00 00 00 00 03 e8 | 01 00 10 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f",
        ),
    );
    let json = record_to_json(
        K42,
        &Record::new(
            offset_key(),
            RecordValue::OffsetCommit(OffsetCommitValue::default()),
        ),
        false,
    );
    assert_eq!(
        json,
        json!({"key": {"type": 1, "data": {"group": "g", "topic": "t", "partition": 0}},
               "value": {"version": 4, "data": {"offset": 0, "leaderEpoch": -1, "metadata": "",
                                                "commitTimestamp": 0}}})
    );
}

#[test]
fn a_transactional_record_carries_its_producer_in_both_forms() {
    let producer = Producer { id: 7, epoch: 2 };
    let record = Record::transactional(
        offset_key(),
        RecordValue::OffsetCommit(OffsetCommitValue::default()),
        producer,
    );
    for with_bytes in [false, true] {
        let json = record_to_json(K42, &record, with_bytes);
        assert_eq!(
            (&json["producerId"], &json["producerEpoch"]),
            (&json!(7), &json!(2))
        );
        assert_eq!(record_from_json(K42, &json, "r"), Ok(Some(record.clone())));
    }
    let mut bytes_only = record_to_json(K42, &record, true);
    let obj = bytes_only.as_object_mut().unwrap();
    obj.remove("key");
    obj.remove("value");
    assert_eq!(
        record_from_json(K42, &bytes_only, "r"),
        Ok(Some(record.clone()))
    );
    // Both or neither, and 0 or more.
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut json = record_to_json(K42, &record, false);
        edit(&mut json);
        record_from_json(K42, &json, "r").unwrap_err()
    };
    let e = refused(&|j| {
        j.as_object_mut().unwrap().remove("producerEpoch");
    });
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("r", "producerId without producerEpoch")
    );
    let e = refused(&|j| j["producerId"] = json!(-1));
    assert_eq!(e.path, "r.producerId");
    let e = refused(&|j| j["producerEpoch"] = json!(40000));
    assert_eq!(e.path, "r.producerEpoch");
}

#[test]
fn golden_offset_commit_version_1_with_an_expire_timestamp() {
    let value = OffsetCommitValue {
        offset: 100,
        metadata: s("a"),
        commit_timestamp: 1000,
        expire_timestamp: 2000,
        ..OffsetCommitValue::default()
    };
    let record = Record::new(offset_key(), RecordValue::OffsetCommit(value));
    check_golden(
        K42,
        &record,
        "00 01 | 00 01 67 | 00 01 74 | 00 00 00 00",
        Some(
            "00 01 | 00 00 00 00 00 00 00 64 | 00 01 61 | 00 00 00 00 00 00 03 e8
             | 00 00 00 00 00 00 07 d0",
        ),
    );
    assert_eq!(
        record_to_json(K42, &record, false)["value"],
        json!({"version": 1, "data": {"offset": 100, "metadata": "a", "commitTimestamp": 1000,
                                      "expireTimestamp": 2000}})
    );
    // Version 1 keeps no leader epoch: a value with one is normalized to what reads back.
    let with_epoch = OffsetCommitValue {
        leader_epoch: 5,
        expire_timestamp: 2000,
        ..OffsetCommitValue::default()
    };
    assert_eq!(with_epoch.clone().normalized().leader_epoch, -1);
    assert_eq!(
        decode_value(
            K42,
            RecordType::OffsetCommit,
            &encode_value(K42, &RecordValue::OffsetCommit(with_epoch.clone()))
        ),
        Ok(RecordValue::OffsetCommit(with_epoch.normalized()))
    );
}

#[test]
fn offset_commit_values_of_every_version_kafka_reads() {
    let offset = "00 00 00 00 00 00 00 64";
    let commit = "00 00 00 00 00 00 03 e8";
    let expected = |leader_epoch: i32, expire_timestamp: i64| {
        Ok(RecordValue::OffsetCommit(OffsetCommitValue {
            offset: 100,
            leader_epoch,
            metadata: s("a"),
            commit_timestamp: 1000,
            expire_timestamp,
            topic_id: Uuid::default(),
        }))
    };
    for (hex_value, value) in [
        (
            format!("00 00 {offset} 00 01 61 {commit}"),
            expected(-1, -1),
        ),
        (
            format!("00 02 {offset} 00 01 61 {commit}"),
            expected(-1, -1),
        ),
        (
            format!("00 03 {offset} 00 00 00 07 00 01 61 {commit}"),
            expected(7, -1),
        ),
    ] {
        for dialect in [DRAFT, K42] {
            assert_eq!(
                decode_value(dialect, RecordType::OffsetCommit, &hex(&hex_value)),
                value
            );
        }
    }
    // Versions 5+ are unknown; a record cut short or with bytes left over is refused.
    for bad in [
        format!("00 05 {offset} 00 01 61 {commit}"),
        format!("00 00 {offset} 00 01 61"),
        format!("00 00 {offset} 00 01 61 {commit} 00"),
    ] {
        assert!(
            decode_value(K42, RecordType::OffsetCommit, &hex(&bad)).is_err(),
            "{bad}"
        );
    }
    // The JSON form of each version, with that version's fields only.
    let v3 = json!({"key": {"type": 1, "data": {"group": "g", "topic": "t", "partition": 0}},
                    "value": {"version": 3, "data": {"offset": 100, "leaderEpoch": 7,
                                                     "metadata": "a", "commitTimestamp": 1000}}});
    assert_eq!(
        record_from_json(K42, &v3, "r").map(|r| r.and_then(|r| r.value)),
        Ok(expected(7, -1).ok())
    );
    let mut v0 = v3.clone();
    v0["value"]["version"] = json!(0);
    assert!(
        record_from_json(K42, &v0, "r").is_err(),
        "version 0 has no leader epoch"
    );
}

// ---------------------------------------------------------------------------------------------
// Golden records, draft dialect

#[test]
fn golden_draft_group_metadata() {
    let record = Record::new(
        RecordKey::GroupMetadata { group_id: s("g") },
        RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 1,
            ..Default::default()
        }),
    );
    check_golden(
        DRAFT,
        &record,
        "00 0f | 00 01 67",
        Some("00 00 | 00 00 00 01 | 00"),
    );
    assert_eq!(
        record_to_json(DRAFT, &record, true),
        json!({"key": {"type": 15, "data": {"groupId": "g"}},
               "value": {"version": 0, "data": {"epoch": 1}},
               "keyBytes": "AA8AAWc=", "valueBytes": "AAAAAAABAA=="})
    );
}

#[test]
fn golden_draft_partition_metadata() {
    let record = Record::new(
        RecordKey::PartitionMetadata { group_id: s("g") },
        RecordValue::PartitionMetadata(PartitionMetadataValue {
            topics: vec![TopicMetadata {
                topic_id: Uuid([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
                topic_name: s("in"),
                num_partitions: 2,
                partition_metadata: vec![
                    PartitionRacks {
                        partition: 0,
                        racks: vec![s("r1")],
                    },
                    PartitionRacks {
                        partition: 1,
                        racks: vec![s("r1"), s("r2")],
                    },
                ],
            }],
        }),
    );
    let value =
        "00 00 | 02 | 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f | 03 69 6e | 00 00 00 02
                 03 | 00 00 00 00 02 03 72 31 00 | 00 00 00 01 03 03 72 31 03 72 32 00 | 00 | 00";
    assert_eq!(hex(value).len(), 50);
    check_golden(DRAFT, &record, "00 10 | 00 01 67", Some(value));
    let json = record_to_json(DRAFT, &record, false);
    assert_eq!(
        json["value"]["data"],
        json!({"topics": [{"topicId": "AAECAwQFBgcICQoLDA0ODw", "topicName": "in",
               "numPartitions": 2, "partitionMetadata": [
                   {"partition": 0, "racks": ["r1"]},
                   {"partition": 1, "racks": ["r1", "r2"]}]}]})
    );
}

fn member_metadata_c() -> MemberMetadataValue {
    MemberMetadataValue {
        instance_id: None,
        rack_id: None,
        client_id: s("c"),
        client_host: s("/127.0.0.1"),
        rebalance_timeout_ms: 300000,
        topology_id: String::new(),
        topology_epoch: 0,
        process_id: s("p"),
        user_endpoint: None,
        client_tags: vec![],
    }
}

#[test]
fn golden_draft_member_metadata() {
    let record = Record::new(
        group_key(RecordType::MemberMetadata),
        RecordValue::MemberMetadata(Box::new(MemberMetadataValue {
            topology_id: s("t"),
            ..member_metadata_c()
        })),
    );
    let value = "00 00 | 00 | 00 | 02 63 | 0b 2f 31 32 37 2e 30 2e 30 2e 31 | 00 04 93 e0 | 02 74
                 02 70 | ff | 01 | 00";
    assert_eq!(hex(value).len(), 28);
    check_golden(
        DRAFT,
        &record,
        "00 11 | 00 01 67 | 00 02 6d 31",
        Some(value),
    );
    assert_eq!(
        record_to_json(DRAFT, &record, false)["value"]["data"].to_string(),
        r#"{"instanceId":null,"rackId":null,"clientId":"c","clientHost":"/127.0.0.1","rebalanceTimeoutMs":300000,"topologyId":"t","processId":"p","userEndpoint":null,"clientTags":[]}"#
    );
}

#[test]
fn golden_draft_member_metadata_with_every_optional_field() {
    let record = Record::new(
        group_key(RecordType::MemberMetadata),
        RecordValue::MemberMetadata(Box::new(MemberMetadataValue {
            instance_id: Some(s("i")),
            rack_id: Some(s("r")),
            client_id: s("c"),
            client_host: s("h"),
            rebalance_timeout_ms: 1000,
            topology_id: s("t"),
            topology_epoch: 0,
            process_id: s("p"),
            user_endpoint: Some(Endpoint {
                host: s("h"),
                port: 8080,
            }),
            client_tags: vec![KeyValue {
                key: s("k"),
                value: s("v"),
            }],
        })),
    );
    let value = "00 00 | 02 69 | 02 72 | 02 63 | 02 68 | 00 00 03 e8 | 02 74 | 02 70
                 01 02 68 1f 90 00 | 02 02 6b 02 76 00 | 00";
    check_golden(
        DRAFT,
        &record,
        "00 11 | 00 01 67 | 00 02 6d 31",
        Some(value),
    );
    assert_eq!(
        record_to_json(DRAFT, &record, false)["value"]["data"]["userEndpoint"],
        json!({"host": "h", "port": 8080})
    );
}

#[test]
fn golden_draft_target_assignment_metadata() {
    let record = Record::new(
        RecordKey::TargetAssignmentMetadata { group_id: s("g") },
        RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
            assignment_epoch: 2,
            assignment_timestamp: 0,
        }),
    );
    check_golden(
        DRAFT,
        &record,
        "00 12 | 00 01 67",
        Some("00 00 | 00 00 00 02 | 00"),
    );
}

fn target_member_value() -> TargetAssignmentMemberValue {
    TargetAssignmentMemberValue {
        active_tasks: vec![tasks("0", &[0, 1])],
        standby_tasks: vec![tasks("1", &[2])],
        warmup_tasks: vec![],
    }
}

const TARGET_MEMBER_HEX: &str = "00 00 | 02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 00
                                 02 | 02 31 | 02 00 00 00 02 | 00 | 01 | 00";

#[test]
fn golden_draft_target_assignment_member() {
    let record = Record::new(
        group_key(RecordType::TargetAssignmentMember),
        RecordValue::TargetAssignmentMember(target_member_value()),
    );
    check_golden(
        DRAFT,
        &record,
        "00 13 | 00 01 67 | 00 02 6d 31",
        Some(TARGET_MEMBER_HEX),
    );
}

fn current_assignment(epochs: Option<Vec<i32>>) -> CurrentMemberAssignmentValue {
    CurrentMemberAssignmentValue {
        member_epoch: 2,
        previous_member_epoch: 1,
        state: 1,
        active_tasks: vec![TaskIds {
            assignment_epochs: epochs,
            ..tasks("0", &[0, 1])
        }],
        ..Default::default()
    }
}

const DRAFT_CURRENT_HEX: &str = "00 00 | 00 00 00 02 | 00 00 00 01 | 01
    02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 00
    01 | 01 | 01 | 01 | 01 | 00";

#[test]
fn golden_draft_current_member_assignment() {
    let record = Record::new(
        group_key(RecordType::CurrentMemberAssignment),
        RecordValue::CurrentMemberAssignment(Box::new(current_assignment(None))),
    );
    assert_eq!(hex(DRAFT_CURRENT_HEX).len(), 30);
    check_golden(
        DRAFT,
        &record,
        "00 14 | 00 01 67 | 00 02 6d 31",
        Some(DRAFT_CURRENT_HEX),
    );
}

#[test]
fn json_form_of_protocol_5_7() {
    let record = Record::new(
        RecordKey::CurrentMemberAssignment {
            group_id: s("g"),
            member_id: s("h1FvL2YoMP32IqCiiHVn2g"),
        },
        RecordValue::CurrentMemberAssignment(Box::new(CurrentMemberAssignmentValue {
            member_epoch: 1,
            previous_member_epoch: 0,
            state: 1,
            ..Default::default()
        })),
    );
    assert_eq!(
        record_to_json(DRAFT, &record, false).to_string(),
        concat!(
            r#"{"key":{"type":20,"data":{"groupId":"g","memberId":"h1FvL2YoMP32IqCiiHVn2g"}},"#,
            r#""value":{"version":0,"data":{"memberEpoch":1,"previousMemberEpoch":0,"state":1,"#,
            r#""activeTasks":[],"standbyTasks":[],"warmupTasks":[],"#,
            r#""activeTasksPendingRevocation":[],"standbyTasksPendingRevocation":[],"#,
            r#""warmupTasksPendingRevocation":[]}}}"#
        )
    );
    let tombstone = Record::tombstone(RecordKey::TargetAssignmentMember {
        group_id: s("g"),
        member_id: s("m2"),
    });
    assert_eq!(
        record_to_json(DRAFT, &tombstone, false).to_string(),
        r#"{"key":{"type":19,"data":{"groupId":"g","memberId":"m2"}},"value":null}"#
    );
    assert_eq!(
        record_to_json(DRAFT, &tombstone, true).to_string(),
        r#"{"key":{"type":19,"data":{"groupId":"g","memberId":"m2"}},"value":null,"keyBytes":"ABMAAWcAAm0y","valueBytes":null}"#
    );
    check_golden(DRAFT, &tombstone, "00 13 | 00 01 67 | 00 02 6d 32", None);
}

fn draft_topology() -> TopologyValue {
    TopologyValue {
        topology_id: s("t"),
        epoch: 0,
        subtopologies: vec![Subtopology {
            subtopology_id: s("0"),
            source_topics: vec![s("in")],
            state_changelog_topics: vec![TopicInfo {
                name: s("c"),
                partitions: 0,
                replication_factor: 0,
                topic_configs: vec![TopicConfig {
                    key: s("cleanup.policy"),
                    value: s("compact"),
                }],
            }],
            ..Default::default()
        }],
    }
}

#[test]
fn golden_draft_topology() {
    let record = Record::new(
        RecordKey::Topology { group_id: s("g") },
        RecordValue::Topology(draft_topology()),
    );
    let value = "00 00 | 02 74 | 02 | 02 30 | 02 03 69 6e | 01
        02 02 63 00 00 00 00 00 00 02 0f 63 6c 65 61 6e 75 70 2e 70 6f 6c 69 63 79
           08 63 6f 6d 70 61 63 74 00 00
        01 | 01 | 01 | 00 | 00";
    assert_eq!(hex(value).len(), 52);
    check_golden(DRAFT, &record, "00 15 | 00 01 67", Some(value));
    assert_eq!(
        record_to_json(DRAFT, &record, false)["value"]["data"],
        json!({"topologyId": "t", "topology": [{
            "subtopologyId": "0", "sourceTopics": ["in"], "sourceTopicRegex": [],
            "stateChangelogTopics": [{"name": "c", "partitions": 0, "replicationFactor": 0,
                "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}]}],
            "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]})
    );
}

// ---------------------------------------------------------------------------------------------
// Golden records, kafka-4.2 dialect

fn k42_group_metadata(configs: Option<Vec<KeyValue>>, validated: i32) -> Record {
    Record::new(
        RecordKey::GroupMetadata { group_id: s("g") },
        RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 2,
            metadata_hash: 0,
            validated_topology_epoch: validated,
            last_assignment_configs: configs,
            ..Default::default()
        }),
    )
}

#[test]
fn golden_k42_group_metadata() {
    let record = k42_group_metadata(
        Some(vec![KeyValue {
            key: s("num.standby.replicas"),
            value: s("0"),
        }]),
        -1,
    );
    let value = "00 00
        00 00 00 02
        00 00 00 00 00 00 00 00
        01
        01 19
        02
        15 6e 75 6d 2e 73 74 61 6e 64 62 79 2e 72 65 70 6c 69 63 61 73
        02 30
        00";
    assert_eq!(hex(value).len(), 42);
    check_golden(K42, &record, "00 11 | 00 01 67", Some(value));
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"].to_string(),
        r#"{"epoch":2,"metadataHash":0,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"0"}]}"#
    );
}

#[test]
fn golden_k42_group_metadata_tagged_fields() {
    // A validated topology epoch alone: tag 0, 4 bytes. The empty list is the default of
    // `LastAssignmentConfigs` (the schema's `"default": null` is Kafka's "no default"), so it
    // is left out of the bytes and the JSON form (PROTOCOL 5.6).
    let record = k42_group_metadata(Some(vec![]), 3);
    check_golden(
        K42,
        &record,
        "00 11 | 00 01 67",
        Some("00 00 | 00 00 00 02 | 00 00 00 00 00 00 00 00 | 01 | 00 04 00 00 00 03"),
    );
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"].to_string(),
        r#"{"epoch":2,"metadataHash":0,"validatedTopologyEpoch":3}"#
    );
    // Null is not the default: tag 1, size 1, the null array 0x00; `null` in JSON.
    let record = k42_group_metadata(None, 3);
    check_golden(
        K42,
        &record,
        "00 11 | 00 01 67",
        Some("00 00 | 00 00 00 02 | 00 00 00 00 00 00 00 00 | 02 | 00 04 00 00 00 03 | 01 01 00"),
    );
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"].to_string(),
        r#"{"epoch":2,"metadataHash":0,"validatedTopologyEpoch":3,"lastAssignmentConfigs":null}"#
    );
    // Neither: an empty section; a large hash.
    let record = Record::new(
        RecordKey::GroupMetadata { group_id: s("g") },
        RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 7,
            metadata_hash: -0x0123_4567_89ab_cdef,
            ..Default::default()
        }),
    );
    check_golden(
        K42,
        &record,
        "00 11 | 00 01 67",
        Some("00 00 | 00 00 00 07 | fe dc ba 98 76 54 32 11 | 00"),
    );
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"]["metadataHash"],
        json!(-0x0123_4567_89ab_cdef_i64)
    );
}

#[test]
fn golden_k42_member_metadata() {
    let record = Record::new(
        group_key(RecordType::MemberMetadata),
        RecordValue::MemberMetadata(Box::new(member_metadata_c())),
    );
    let value =
        "00 00 | 00 | 00 | 02 63 | 0b 2f 31 32 37 2e 30 2e 30 2e 31 | 00 04 93 e0 | 00 00 00 00
                 02 70 | ff | 01 | 00";
    assert_eq!(hex(value).len(), 30);
    check_golden(K42, &record, "00 13 | 00 01 67 | 00 02 6d 31", Some(value));
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"].to_string(),
        r#"{"instanceId":null,"rackId":null,"clientId":"c","clientHost":"/127.0.0.1","rebalanceTimeoutMs":300000,"topologyEpoch":0,"processId":"p","userEndpoint":null,"clientTags":[]}"#
    );
}

#[test]
fn golden_k42_target_assignment_metadata() {
    let record = Record::new(
        RecordKey::TargetAssignmentMetadata { group_id: s("g") },
        RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
            assignment_epoch: 2,
            assignment_timestamp: 0,
        }),
    );
    check_golden(
        K42,
        &record,
        "00 14 | 00 01 67",
        Some("00 00 | 00 00 00 02 | 00"),
    );
}

#[test]
fn golden_k42_target_assignment_member() {
    let record = Record::new(
        group_key(RecordType::TargetAssignmentMember),
        RecordValue::TargetAssignmentMember(target_member_value()),
    );
    check_golden(
        K42,
        &record,
        "00 15 | 00 01 67 | 00 02 6d 31",
        Some(TARGET_MEMBER_HEX),
    );
}

#[test]
fn golden_k42_current_member_assignment() {
    let record = Record::new(
        group_key(RecordType::CurrentMemberAssignment),
        RecordValue::CurrentMemberAssignment(Box::new(current_assignment(Some(vec![2, 2])))),
    );
    let value = "00 00 | 00 00 00 02 | 00 00 00 01 | 01
        02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 01 00 09 03 00 00 00 02 00 00 00 02
        01 | 01 | 01 | 01 | 01 | 00";
    assert_eq!(hex(value).len(), 41);
    check_golden(K42, &record, "00 16 | 00 01 67 | 00 02 6d 31", Some(value));
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"]["activeTasks"].to_string(),
        r#"[{"subtopologyId":"0","partitions":[0,1],"assignmentEpochs":[2,2]}]"#
    );
    // With the default (empty) epochs the 4.2 layout equals the draft one: Kafka leaves an
    // empty `AssignmentEpochs` out (PROTOCOL 5.6).
    let record = Record::new(
        group_key(RecordType::CurrentMemberAssignment),
        RecordValue::CurrentMemberAssignment(Box::new(current_assignment(Some(vec![])))),
    );
    check_golden(
        K42,
        &record,
        "00 16 | 00 01 67 | 00 02 6d 31",
        Some(DRAFT_CURRENT_HEX),
    );
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"]["activeTasks"].to_string(),
        r#"[{"subtopologyId":"0","partitions":[0,1]}]"#
    );
    // Null epochs: tag 0, size 1, the null array 0x00; `null` in JSON.
    let record = Record::new(
        group_key(RecordType::CurrentMemberAssignment),
        RecordValue::CurrentMemberAssignment(Box::new(current_assignment(None))),
    );
    check_golden(
        K42,
        &record,
        "00 16 | 00 01 67 | 00 02 6d 31",
        Some(
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01
             02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 01 00 01 00
             01 | 01 | 01 | 01 | 01 | 00",
        ),
    );
    assert_eq!(
        record_to_json(K42, &record, false)["value"]["data"]["activeTasks"].to_string(),
        r#"[{"subtopologyId":"0","partitions":[0,1],"assignmentEpochs":null}]"#
    );
}

#[test]
fn golden_k42_topology() {
    let record = Record::new(
        RecordKey::Topology { group_id: s("g") },
        RecordValue::Topology(TopologyValue {
            topology_id: String::new(),
            epoch: 1,
            subtopologies: vec![Subtopology {
                subtopology_id: s("0"),
                source_topics: vec![s("in")],
                repartition_sink_topics: vec![s("r")],
                repartition_source_topics: vec![TopicInfo {
                    name: s("r"),
                    partitions: 4,
                    replication_factor: -1,
                    topic_configs: vec![],
                }],
                copartition_groups: vec![CopartitionGroup {
                    source_topics: vec![0],
                    source_topic_regex: vec![],
                    repartition_source_topics: vec![0],
                }],
                ..Default::default()
            }],
        }),
    );
    let value = "00 00 | 00 00 00 01 | 02 | 02 30 | 02 03 69 6e | 01 | 01 | 02 02 72
        02 02 72 00 00 00 04 ff ff 01 00
        02 02 00 00 01 02 00 00 00
        00 | 00";
    check_golden(K42, &record, "00 17 | 00 01 67", Some(value));
    let json = record_to_json(K42, &record, false);
    assert_eq!(json["value"]["data"]["epoch"], json!(1));
    assert_eq!(
        json["value"]["data"]["subtopologies"][0]["copartitionGroups"],
        json!([{"sourceTopics": [0], "sourceTopicRegex": [], "repartitionSourceTopics": [0]}])
    );
}

#[test]
fn golden_tombstones_of_every_type() {
    for (dialect, t, key) in [
        (DRAFT, RecordType::GroupMetadata, "00 0f 00 01 67"),
        (DRAFT, RecordType::PartitionMetadata, "00 10 00 01 67"),
        (
            DRAFT,
            RecordType::MemberMetadata,
            "00 11 00 01 67 00 02 6d 31",
        ),
        (
            DRAFT,
            RecordType::TargetAssignmentMetadata,
            "00 12 00 01 67",
        ),
        (
            DRAFT,
            RecordType::TargetAssignmentMember,
            "00 13 00 01 67 00 02 6d 31",
        ),
        (
            DRAFT,
            RecordType::CurrentMemberAssignment,
            "00 14 00 01 67 00 02 6d 31",
        ),
        (DRAFT, RecordType::Topology, "00 15 00 01 67"),
        (K42, RecordType::GroupMetadata, "00 11 00 01 67"),
        (
            K42,
            RecordType::MemberMetadata,
            "00 13 00 01 67 00 02 6d 31",
        ),
        (K42, RecordType::TargetAssignmentMetadata, "00 14 00 01 67"),
        (
            K42,
            RecordType::TargetAssignmentMember,
            "00 15 00 01 67 00 02 6d 31",
        ),
        (
            K42,
            RecordType::CurrentMemberAssignment,
            "00 16 00 01 67 00 02 6d 31",
        ),
        (K42, RecordType::Topology, "00 17 00 01 67"),
        // Kafka's classic group record (`GroupMetadataKey`, type 2) in every dialect.
        (DRAFT, RecordType::ClassicGroupMetadata, "00 02 00 01 67"),
        (K42, RecordType::ClassicGroupMetadata, "00 02 00 01 67"),
    ] {
        check_golden(dialect, &Record::tombstone(group_key(t)), key, None);
    }
}

// ---------------------------------------------------------------------------------------------
// Reading what others write

#[test]
fn unknown_tags_are_skipped() {
    // PROTOCOL 5.6: a later Kafka's AssignmentTimestamp in tag 0.
    let later = hex("00 00 | 00 00 00 02 | 01 00 08 00 00 01 8b cf e5 68 00");
    // The `kafka-*` codec knows the tag (Kafka 4.3's); the draft's skips it.
    for (dialect, timestamp) in [(DRAFT, 0), (K42, 1_700_000_000_000)] {
        assert_eq!(
            decode_value(dialect, RecordType::TargetAssignmentMetadata, &later),
            Ok(RecordValue::TargetAssignmentMetadata(
                TargetAssignmentMetadataValue {
                    assignment_epoch: 2,
                    assignment_timestamp: timestamp,
                }
            ))
        );
    }
    // 4.2's per-task epochs read by the draft codec: an unknown tag in a nested struct.
    let k42 = encode_value(
        K42,
        &RecordValue::CurrentMemberAssignment(Box::new(current_assignment(Some(vec![2, 2])))),
    );
    assert_eq!(
        decode_value(DRAFT, RecordType::CurrentMemberAssignment, &k42),
        Ok(RecordValue::CurrentMemberAssignment(Box::new(
            current_assignment(None)
        )))
    );
    // Unknown tags beside known ones, in any order, and in the draft's group metadata.
    let value = hex("00 00 | 00 00 00 02 | 00 00 00 00 00 00 00 05 | 03 | 07 02 ab cd | 00 04 00 00 00 03 | 7f 00");
    assert_eq!(
        decode_value(K42, RecordType::GroupMetadata, &value),
        Ok(RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 2,
            metadata_hash: 5,
            validated_topology_epoch: 3,
            last_assignment_configs: Some(vec![]),
            ..Default::default()
        }))
    );
    // Defaults written explicitly (Kafka never does: -1 and the empty list) still read as the
    // defaults.
    let value =
        hex("00 00 | 00 00 00 02 | 00 00 00 00 00 00 00 00 | 02 | 00 04 ff ff ff ff | 01 01 01");
    assert_eq!(
        decode_value(K42, RecordType::GroupMetadata, &value),
        Ok(RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 2,
            ..Default::default()
        }))
    );
    // A null list is not the default.
    let value = hex("00 00 | 00 00 00 02 | 00 00 00 00 00 00 00 00 | 01 | 01 01 00");
    assert_eq!(
        decode_value(K42, RecordType::GroupMetadata, &value),
        Ok(RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 2,
            last_assignment_configs: None,
            ..Default::default()
        }))
    );
}

/// 4.4's tags 2 and 3 (`StoredDescriptionTopologyEpoch`, `FailedDescriptionTopologyEpoch`):
/// written only when not -1, read back in 4.4, skipped as unknown tags by 4.2.
#[test]
fn group_metadata_description_epochs_are_4_4_tags() {
    let v = GroupMetadataValue {
        epoch: 2,
        metadata_hash: 5,
        stored_description_topology_epoch: 3,
        failed_description_topology_epoch: -2,
        ..Default::default()
    };
    let bytes = encode_value(Dialect::Kafka44, &RecordValue::GroupMetadata(v.clone()));
    assert_eq!(
        bytes,
        hex("00 00 | 00 00 00 02 | 00 00 00 00 00 00 00 05 | 02 | 02 04 00 00 00 03 | 03 04 ff ff ff fe")
    );
    assert_eq!(
        decode_value(Dialect::Kafka44, RecordType::GroupMetadata, &bytes),
        Ok(RecordValue::GroupMetadata(v))
    );
    assert_eq!(
        decode_value(K42, RecordType::GroupMetadata, &bytes),
        Ok(RecordValue::GroupMetadata(GroupMetadataValue {
            epoch: 2,
            metadata_hash: 5,
            ..Default::default()
        }))
    );
    let plain = RecordValue::GroupMetadata(GroupMetadataValue::default());
    assert_eq!(
        encode_value(Dialect::Kafka44, &plain),
        encode_value(K42, &plain)
    );
}

#[test]
fn target_assignment_tasks_have_no_epochs() {
    // The 4.2 target assignment's TaskIds has no tag 0: a tag 0 there is skipped, and epochs in
    // the model are not written.
    let mut v = target_member_value();
    v.active_tasks[0].assignment_epochs = Some(vec![1, 1]);
    let bytes = encode_value(K42, &RecordValue::TargetAssignmentMember(v));
    assert_eq!(bytes, hex(TARGET_MEMBER_HEX));
    let with_tag = hex(
        "00 00 | 02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 01 00 09 03 00 00 00 02 00 00 00 02
                        02 | 02 31 | 02 00 00 00 02 | 00 | 01 | 00",
    );
    assert_eq!(
        decode_value(K42, RecordType::TargetAssignmentMember, &with_tag),
        Ok(RecordValue::TargetAssignmentMember(target_member_value()))
    );
}

#[test]
fn epochs_are_read_in_every_current_assignment_list() {
    // The 4.2 schema's TaskIds (with AssignmentEpochs) is shared by all six lists.
    let v = CurrentMemberAssignmentValue {
        standby_tasks_pending_revocation: vec![TaskIds {
            assignment_epochs: Some(vec![]),
            ..tasks("3", &[])
        }],
        ..current_assignment(Some(vec![2, 2]))
    };
    let value = RecordValue::CurrentMemberAssignment(Box::new(v));
    let bytes = encode_value(K42, &value);
    assert_eq!(
        decode_value(K42, RecordType::CurrentMemberAssignment, &bytes),
        Ok(value)
    );
}

// ---------------------------------------------------------------------------------------------
// Decoding failures

fn decode_err(dialect: Dialect, t: RecordType, bytes: &str) -> DecodeError {
    decode_value(dialect, t, &hex(bytes)).unwrap_err()
}

#[test]
fn truncation_names_the_field() {
    let cases = [
        ("", "CurrentMemberAssignmentValue.version"),
        ("00 00 00 00", "CurrentMemberAssignmentValue.memberEpoch"),
        ("00 00 | 00 00 00 02 | 00 00 00 01", "CurrentMemberAssignmentValue.state"),
        ("00 00 | 00 00 00 02 | 00 00 00 01 | 01", "CurrentMemberAssignmentValue.activeTasks"),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 02 | 02",
            "CurrentMemberAssignmentValue.activeTasks",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 02 | 05 61 62",
            "CurrentMemberAssignmentValue.activeTasks[0].subtopologyId",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 02 | 02 30 | 03",
            "CurrentMemberAssignmentValue.activeTasks[0].partitions",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 02 | 02 30 | 03 00 00 00 00 00 00 00 01",
            "CurrentMemberAssignmentValue.activeTasks[0].taggedFields",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 01 00 09 03 00 00 00 02 00 00",
            "CurrentMemberAssignmentValue.activeTasks[0].taggedFields",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 02 | 02 30 | 03 00 00 00 00 00 00 00 01 | 01 00 05 03 00 00 00 02",
            "CurrentMemberAssignmentValue.activeTasks[0].assignmentEpochs",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 01 | 01 | 01 | 01 | 01",
            "CurrentMemberAssignmentValue.warmupTasksPendingRevocation",
        ),
        (
            "00 00 | 00 00 00 02 | 00 00 00 01 | 01 | 01 | 01 | 01 | 01 | 01 | 01",
            "CurrentMemberAssignmentValue.taggedFields",
        ),
    ];
    for (bytes, field) in cases {
        let e = decode_err(K42, RecordType::CurrentMemberAssignment, bytes);
        assert_eq!(e.field, field, "{bytes}: {e}");
    }
    // Every strict prefix of every golden value fails (and names some field).
    for (dialect, t, value) in [
        (
            DRAFT,
            RecordType::CurrentMemberAssignment,
            DRAFT_CURRENT_HEX,
        ),
        (DRAFT, RecordType::TargetAssignmentMember, TARGET_MEMBER_HEX),
        (
            K42,
            RecordType::GroupMetadata,
            "00 00 00 00 00 02 00 00 00 00 00 00 00 00 02 00 04 00 00 00 03 01 01 01",
        ),
    ] {
        let bytes = hex(value);
        for n in 0..bytes.len() {
            let e = decode_value(dialect, t, &bytes[..n]).unwrap_err();
            assert!(e.field.starts_with(codec::value_name(t)), "{e}");
        }
    }
    for n in 0..9 {
        let key = hex("00 14 00 01 67 00 02 6d 31");
        let e = decode_key(DRAFT, &key[..n]).unwrap_err();
        let expected = match n {
            0 | 1 => "RecordKey.type",
            2..=4 => "CurrentMemberAssignmentKey.groupId",
            _ => "CurrentMemberAssignmentKey.memberId",
        };
        assert_eq!(e.field, expected, "{n}: {e}");
    }
}

#[test]
fn garbage_is_refused() {
    use RecordType::*;
    let cases: &[(Dialect, RecordType, &str, &str, &str)] = &[
        (
            DRAFT,
            GroupMetadata,
            "00 01 00 00 00 01 00",
            "GroupMetadataValue.version",
            "unsupported value version 1 (only 0 is known)",
        ),
        (
            DRAFT,
            GroupMetadata,
            "ff ff 00 00 00 01 00",
            "GroupMetadataValue.version",
            "unsupported value version -1 (only 0 is known)",
        ),
        (
            DRAFT,
            GroupMetadata,
            "00 00 00 00 00 01 00 00",
            "GroupMetadataValue",
            "1 unexpected bytes after the end",
        ),
        // A 2^31-element array in 3 bytes: refused before allocating.
        (
            DRAFT,
            Topology,
            "00 00 02 74 80 80 80 80 08 00",
            "TopologyValue.topology",
            "array of 2147483647 elements cannot fit in the 1 remaining bytes",
        ),
        (
            K42,
            Topology,
            "00 00 00 00 00 01 ff ff ff ff 0f",
            "TopologyValue.subtopologies",
            "array of 4294967294 elements cannot fit in the 0 remaining bytes",
        ),
        (
            DRAFT,
            Topology,
            "00 00 ff ff ff ff 07",
            "TopologyValue.topologyId",
            "string length 2147483646 exceeds 32767",
        ),
        (
            DRAFT,
            Topology,
            "00 00 ff ff ff ff 7f",
            "TopologyValue.topologyId",
            "unsigned varint exceeds 32 bits",
        ),
        (
            DRAFT,
            Topology,
            "00 00 ff ff ff ff ff 01",
            "TopologyValue.topologyId",
            "unsigned varint longer than 5 bytes",
        ),
        (
            DRAFT,
            Topology,
            "00 00 80",
            "TopologyValue.topologyId",
            "truncated unsigned varint",
        ),
        (
            DRAFT,
            Topology,
            "00 00 05 61 62",
            "TopologyValue.topologyId",
            "needs 4 bytes, only 2 remain",
        ),
        (
            DRAFT,
            Topology,
            "00 00 00 01 00",
            "TopologyValue.topologyId",
            "null in a non-nullable string",
        ),
        (
            DRAFT,
            Topology,
            "00 00 02 74 02 02 30 03 02 61 05 61 00 00",
            "TopologyValue.topology[0].sourceTopics[1]",
            "needs 4 bytes, only 3 remain",
        ),
        (
            DRAFT,
            Topology,
            "00 00 02 74 00 00",
            "TopologyValue.topology",
            "null in a non-nullable array",
        ),
        (
            DRAFT,
            Topology,
            "00 00 03 c3 28 01 00",
            "TopologyValue.topologyId",
            "invalid UTF-8: invalid utf-8 sequence of 1 bytes from index 0",
        ),
        (
            K42,
            MemberMetadata,
            "00 00 00 00 02 63 02 68 00 00 03 e8 00 00 00 00 02 70 05",
            "MemberMetadataValue.userEndpoint",
            "presence byte 5 is neither -1 (null) nor 1",
        ),
        (
            K42,
            MemberMetadata,
            "00 00 00 00 02 63 02 68 00 00 03 e8 00 00 00 00 02 70 01 02 68 1f",
            "MemberMetadataValue.userEndpoint.port",
            "needs 2 bytes, only 1 remain",
        ),
        // Unknown tag whose size runs past the end.
        (
            DRAFT,
            TargetAssignmentMetadata,
            "00 00 00 00 00 02 01 05 10 00",
            "TargetAssignmentMetadataValue.taggedFields",
            "needs 16 bytes, only 1 remain",
        ),
        // A known tag whose payload is longer than its field.
        (
            K42,
            GroupMetadata,
            "00 00 00 00 00 02 00 00 00 00 00 00 00 00 01 00 05 00 00 00 03 00",
            "GroupMetadataValue.taggedFields",
            "tagged field 0 leaves 1 of its 5 bytes unread",
        ),
        (
            K42,
            GroupMetadata,
            "00 00 00 00 00 02 00 00 00 00 00 00 00 00 01 00 02 00 00",
            "GroupMetadataValue.validatedTopologyEpoch",
            "needs 4 bytes, only 2 remain",
        ),
        (
            K42,
            GroupMetadata,
            "00 00 00 00 00 02 00 00 00 00 00 00 00 00 01 01 04 02 00 01 00",
            "GroupMetadataValue.lastAssignmentConfigs[0].key",
            "null in a non-nullable string",
        ),
        (
            DRAFT,
            PartitionMetadata,
            "00 00 02 00 01 02",
            "PartitionMetadataValue.topics",
            "array of 1 elements cannot fit in the 3 remaining bytes",
        ),
    ];
    for (dialect, t, bytes, field, message) in cases {
        let e = decode_err(*dialect, *t, bytes);
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            (*field, *message),
            "{bytes}"
        );
    }
    // Keys.
    let e = decode_key(DRAFT, &hex("00 0f ff ff")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot decode GroupMetadataKey.groupId: null or negative string length -1"
    );
    let e = decode_key(DRAFT, &hex("00 0f 00 01 67 00")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot decode GroupMetadataKey: 1 unexpected bytes after the end"
    );
    let e = decode_key(K42, &hex("00 11 7f ff 61")).unwrap_err();
    assert_eq!(e.field, "GroupMetadataKey.groupId");
}

#[test]
fn oversized_strings_never_decode() {
    // Kafka cannot carry strings over 32767 bytes; what the encoder writes for one is refused.
    let long = "x".repeat(32768);
    let key = RecordKey::GroupMetadata {
        group_id: long.clone(),
    };
    assert!(decode_key(DRAFT, &encode_key(DRAFT, &key)).is_err());
    let value = RecordValue::Topology(TopologyValue {
        topology_id: long.clone(),
        ..Default::default()
    });
    assert!(decode_value(DRAFT, RecordType::Topology, &encode_value(DRAFT, &value)).is_err());
    let json = record_to_json(DRAFT, &Record::tombstone(key), false);
    let e = record_from_json(DRAFT, &json, "records[0]").unwrap_err();
    assert_eq!(e.path, "records[0].key.data.groupId");
    // 32767 bytes is fine.
    let key = RecordKey::GroupMetadata {
        group_id: "x".repeat(32767),
    };
    assert_eq!(decode_key(DRAFT, &encode_key(DRAFT, &key)), Ok(Some(key)));
}

// ---------------------------------------------------------------------------------------------
// JSON parsing

fn parse(dialect: Dialect, v: Value) -> Result<Option<Record>, crate::error::BoundaryError> {
    record_from_json(dialect, &v, "records[3]")
}

fn parse_err(dialect: Dialect, v: Value) -> (String, String) {
    let e = parse(dialect, v).unwrap_err();
    assert_eq!(e.code, crate::error::BoundaryCode::InvalidRecord);
    (e.path, e.message)
}

fn current_json(data: Value) -> Value {
    json!({"key": {"type": 20, "data": {"groupId": "g", "memberId": "m"}},
           "value": {"version": 0, "data": data}})
}

fn current_data() -> Value {
    json!({"memberEpoch": 1, "previousMemberEpoch": 0, "state": 1,
           "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}], "standbyTasks": [],
           "warmupTasks": [], "activeTasksPendingRevocation": [],
           "standbyTasksPendingRevocation": [], "warmupTasksPendingRevocation": []})
}

#[test]
fn json_errors_name_the_path() {
    let with = |f: &dyn Fn(&mut Value)| {
        let mut data = current_data();
        f(&mut data);
        parse_err(DRAFT, current_json(data))
    };
    let at = |p: &str| format!("records[3].value.data.{p}");
    assert_eq!(
        with(&|d| d["memberEpoch"] = json!("1")),
        (at("memberEpoch"), s("expected an integer, got a string"))
    );
    assert_eq!(
        with(&|d| d["memberEpoch"] = json!(1.5)),
        (at("memberEpoch"), s("expected an integer, got 1.5"))
    );
    assert_eq!(
        with(&|d| d["memberEpoch"] = json!(1.0)),
        (at("memberEpoch"), s("expected an integer, got 1.0"))
    );
    assert_eq!(
        with(&|d| d["memberEpoch"] = json!(2147483648_i64)),
        (at("memberEpoch"), s("2147483648 is out of range for int32"))
    );
    assert_eq!(
        with(&|d| d["memberEpoch"] = json!(u64::MAX)),
        (
            at("memberEpoch"),
            s("18446744073709551615 is out of range for int32")
        )
    );
    assert_eq!(
        with(&|d| d["state"] = json!(128)),
        (at("state"), s("128 is out of range for int8"))
    );
    assert_eq!(
        with(&|d| {
            d.as_object_mut().unwrap().remove("state");
        }),
        (at("state"), s("missing required field"))
    );
    assert_eq!(
        with(&|d| d["extra"] = json!(1)),
        (at("extra"), s("unknown field"))
    );
    assert_eq!(
        with(&|d| d["activeTasks"][0]["partitions"][1] = json!(null)),
        (
            at("activeTasks[0].partitions[1]"),
            s("expected an integer, got null")
        )
    );
    assert_eq!(
        with(&|d| d["activeTasks"] = json!({})),
        (at("activeTasks"), s("expected an array, got an object"))
    );
    // Draft task ids have no assignment epochs.
    assert_eq!(
        with(&|d| d["activeTasks"][0]["assignmentEpochs"] = json!([1, 1])),
        (at("activeTasks[0].assignmentEpochs"), s("unknown field"))
    );

    let mut v = current_json(current_data());
    v["value"]["version"] = json!(1);
    assert_eq!(
        parse_err(DRAFT, v),
        (
            s("records[3].value.version"),
            s("unsupported value version 1 (only 0 is known)")
        )
    );
    let v = json!({"key": {"type": 20, "data": {"groupId": "g"}}, "value": null});
    assert_eq!(
        parse_err(DRAFT, v),
        (
            s("records[3].key.data.memberId"),
            s("missing required field")
        )
    );
    let v = json!({"key": {"type": 15, "data": {"groupId": "g", "memberId": "m"}}, "value": null});
    assert_eq!(
        parse_err(DRAFT, v),
        (s("records[3].key.data.memberId"), s("unknown field"))
    );
    let v = json!({"key": {"type": 70000, "data": {}}, "value": null});
    assert_eq!(
        parse_err(DRAFT, v),
        (
            s("records[3].key.type"),
            s("70000 is out of range for int16")
        )
    );
    let v = json!({"key": {"type": 15, "data": {"groupId": "g"}}});
    assert_eq!(
        parse_err(DRAFT, v),
        (s("records[3].value"), s("missing required field"))
    );
    assert_eq!(
        parse_err(DRAFT, json!([])),
        (s("records[3]"), s("expected an object, got an array"))
    );
    assert_eq!(
        parse_err(DRAFT, json!({})),
        (
            s("records[3]"),
            s("a record needs key and value, or keyBytes and valueBytes")
        )
    );
    assert_eq!(
        parse_err(DRAFT, json!({"offset": 3})),
        (s("records[3].offset"), s("unknown field"))
    );

    // Ranges of the narrower types.
    let member = |endpoint: Value| {
        json!({"key": {"type": 19, "data": {"groupId": "g", "memberId": "m"}},
               "value": {"version": 0, "data": {"instanceId": null, "rackId": null,
                   "clientId": "c", "clientHost": "h", "rebalanceTimeoutMs": 1,
                   "topologyEpoch": 1, "processId": "p", "userEndpoint": endpoint,
                   "clientTags": []}}})
    };
    assert!(parse(K42, member(json!({"host": "h", "port": 65535}))).is_ok());
    assert_eq!(
        parse_err(K42, member(json!({"host": "h", "port": 65536}))),
        (
            s("records[3].value.data.userEndpoint.port"),
            s("65536 is out of range for uint16")
        )
    );
    assert_eq!(
        parse_err(K42, member(json!({"host": "h", "port": -1}))),
        (
            s("records[3].value.data.userEndpoint.port"),
            s("-1 is out of range for uint16")
        )
    );
    // The draft's member metadata has a topologyId instead.
    let (path, message) = parse_err(DRAFT, {
        let mut v = member(json!(null));
        v["key"]["type"] = json!(17);
        v
    });
    assert_eq!(
        (path.as_str(), message.as_str()),
        ("records[3].value.data.topologyEpoch", "unknown field")
    );

    let topology = json!({"key": {"type": 23, "data": {"groupId": "g"}},
        "value": {"version": 0, "data": {"epoch": 0, "subtopologies": [{
            "subtopologyId": "0", "sourceTopics": [], "sourceTopicRegex": [],
            "stateChangelogTopics": [{"name": "c", "partitions": 0, "replicationFactor": 32768, "topicConfigs": []}],
            "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]}}});
    assert_eq!(
        parse_err(K42, topology),
        (
            s("records[3].value.data.subtopologies[0].stateChangelogTopics[0].replicationFactor"),
            s("32768 is out of range for int16")
        )
    );

    let partition = |id: &str| {
        json!({"key": {"type": 16, "data": {"groupId": "g"}},
               "value": {"version": 0, "data": {"topics": [{"topicId": id, "topicName": "t",
                   "numPartitions": 1, "partitionMetadata": []}]}}})
    };
    assert!(parse(DRAFT, partition("AAAAAAAAAAAAAAAAAAAAAA")).is_ok());
    for bad in [
        "AAAAAAAAAAAAAAAAAAAAAA==",
        "AAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAA+",
        "AAAAAAAAAAAAAAAAAAAAAB",
    ] {
        assert_eq!(
            parse_err(DRAFT, partition(bad)).0,
            "records[3].value.data.topics[0].topicId",
            "{bad}"
        );
    }
}

#[test]
fn json_tagged_fields_may_be_absent_or_present() {
    let gm = |extra: Value| {
        let mut data = json!({"epoch": 2, "metadataHash": 9});
        for (k, v) in extra.as_object().unwrap() {
            data[k] = v.clone();
        }
        json!({"key": {"type": 17, "data": {"groupId": "g"}}, "value": {"version": 0, "data": data}})
    };
    let value = |validated, configs| {
        Some(Record::new(
            RecordKey::GroupMetadata { group_id: s("g") },
            RecordValue::GroupMetadata(GroupMetadataValue {
                epoch: 2,
                metadata_hash: 9,
                validated_topology_epoch: validated,
                last_assignment_configs: configs,
                ..Default::default()
            }),
        ))
    };
    // Absent is the default, the empty list; null is null (PROTOCOL 5.6).
    assert_eq!(parse(K42, gm(json!({}))), Ok(value(-1, Some(vec![]))));
    assert_eq!(
        parse(
            K42,
            gm(json!({"validatedTopologyEpoch": -1, "lastAssignmentConfigs": null}))
        ),
        Ok(value(-1, None))
    );
    assert_eq!(
        parse(K42, gm(json!({"lastAssignmentConfigs": []}))),
        Ok(value(-1, Some(vec![])))
    );
    assert_eq!(
        parse_err(K42, gm(json!({"validatedTopologyEpoch": null}))).1,
        "expected an integer, got null"
    );
    // The draft has none of these fields.
    let mut draft = gm(json!({}));
    draft["key"]["type"] = json!(15);
    assert_eq!(
        parse_err(DRAFT, draft).0,
        "records[3].value.data.metadataHash"
    );
    // Non-tagged nullable fields must be present, even when null.
    let mut mm = record_to_json(
        K42,
        &Record::new(
            group_key(RecordType::MemberMetadata),
            RecordValue::MemberMetadata(Box::new(member_metadata_c())),
        ),
        false,
    );
    mm["value"]["data"]
        .as_object_mut()
        .unwrap()
        .remove("instanceId");
    assert_eq!(parse_err(K42, mm).0, "records[3].value.data.instanceId");
}

#[test]
fn replay_forms() {
    let record = Record::new(
        group_key(RecordType::CurrentMemberAssignment),
        RecordValue::CurrentMemberAssignment(Box::new(current_assignment(None))),
    );
    let full = record_to_json(DRAFT, &record, true);
    // Disagreeing forms.
    let mut v = full.clone();
    v["value"]["data"]["memberEpoch"] = json!(3);
    assert_eq!(
        parse_err(DRAFT, v),
        (
            s("records[3]"),
            s("keyBytes/valueBytes do not match key/value")
        )
    );
    let mut v = full.clone();
    v["valueBytes"] = json!(null);
    assert_eq!(
        parse_err(DRAFT, v).1,
        "keyBytes/valueBytes do not match key/value"
    );
    // Bytes that do not decode.
    let mut v = full.clone();
    v["valueBytes"] = json!("AAE=");
    assert_eq!(parse_err(DRAFT, v), (s("records[3].valueBytes"), s("cannot decode CurrentMemberAssignmentValue.version: unsupported value version 1 (only 0 is known)")));
    let mut v = full.clone();
    v["keyBytes"] = json!("AA");
    assert_eq!(parse_err(DRAFT, v).0, "records[3].keyBytes");
    let mut v = full.clone();
    v["keyBytes"] = json!("AA_=");
    assert_eq!(parse_err(DRAFT, v).0, "records[3].keyBytes");
    // A bytes form needs both halves.
    let v = json!({"keyBytes": full["keyBytes"].clone()});
    assert_eq!(
        parse_err(DRAFT, v),
        (s("records[3].valueBytes"), s("missing required field"))
    );
    // The same bytes read by the other dialect: type 20 is target assignment metadata there,
    // whose key has no member id.
    let v = json!({"keyBytes": full["keyBytes"].clone(), "valueBytes": full["valueBytes"].clone()});
    assert_eq!(parse_err(K42, v).0, "records[3].keyBytes");
    // Other kinds of records are skipped, in either form, but both forms must still agree.
    // (Type 0, Kafka's legacy offset commit.)
    let offset_commit = json!({"key": {"type": 0, "data": {"group": "g", "topic": "t", "partition": 0}},
                               "value": {"version": 3, "data": {"offset": 7}}});
    assert_eq!(parse(DRAFT, offset_commit.clone()), Ok(None));
    assert_eq!(
        parse(
            K42,
            json!({"keyBytes": "AAAAAWc=", "valueBytes": "AAMAAAAAAAAABw=="})
        ),
        Ok(None)
    );
    assert_eq!(
        parse(K42, json!({"keyBytes": "ABIAAWc=", "valueBytes": null})),
        Ok(None)
    );
    let mut mixed = offset_commit;
    mixed["keyBytes"] = json!("AAIAAWc=");
    mixed["valueBytes"] = json!(null);
    assert_eq!(
        parse_err(DRAFT, mixed).1,
        "keyBytes/valueBytes do not match key/value"
    );
    assert_eq!(
        parse(
            K42,
            json!({"key": {"type": 18, "data": {"groupId": "g"}}, "value": null})
        ),
        Ok(None)
    );
    // Kafka's classic group record (type 2): its tombstone is read, keyed by `group`; a value
    // (a classic group, not held here) is skipped in either form, whatever it holds.
    for dialect in [DRAFT, K42] {
        let tombstone = Some(Record::tombstone(RecordKey::ClassicGroupMetadata {
            group_id: s("g"),
        }));
        assert_eq!(
            parse(dialect, json!({"keyBytes": "AAIAAWc=", "valueBytes": null})),
            Ok(tombstone.clone())
        );
        assert_eq!(
            parse(
                dialect,
                json!({"key": {"type": 2, "data": {"group": "g"}}, "value": null})
            ),
            Ok(tombstone)
        );
        assert_eq!(
            parse_err(
                dialect,
                json!({"key": {"type": 2, "data": {"groupId": "g"}}, "value": null})
            )
            .0,
            "records[3].key.data.groupId"
        );
        assert_eq!(
            parse(
                dialect,
                json!({"key": {"type": 2, "data": {"group": "g"}},
                       "value": {"version": 3, "data": {"protocolType": "consumer"}}})
            ),
            Ok(None)
        );
        assert_eq!(
            parse(
                dialect,
                json!({"keyBytes": "AAIAAWc=", "valueBytes": "AAM="})
            ),
            Ok(None)
        );
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    // ---------------------------------------------------------------------------------------------
    // Properties

    fn text() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z0-9.-]{0,6}", ".{0,4}",]
    }

    fn ints(max: usize) -> impl Strategy<Value = Vec<i32>> {
        prop::collection::vec(any::<i32>(), 0..max)
    }

    fn key_values() -> impl Strategy<Value = Vec<KeyValue>> {
        prop::collection::vec(
            (text(), text()).prop_map(|(key, value)| KeyValue { key, value }),
            0..3,
        )
    }

    fn task_list(epochs: bool) -> impl Strategy<Value = Vec<TaskIds>> {
        let epochs = if epochs {
            prop::option::of(ints(4)).boxed()
        } else {
            Just(None).boxed()
        };
        prop::collection::vec(
            (text(), ints(4), epochs).prop_map(
                |(subtopology_id, partitions, assignment_epochs)| TaskIds {
                    subtopology_id,
                    partitions,
                    assignment_epochs,
                },
            ),
            0..3,
        )
    }

    fn topic_info() -> impl Strategy<Value = TopicInfo> {
        (text(), any::<i32>(), any::<i16>(), key_values()).prop_map(
            |(name, partitions, replication_factor, configs)| TopicInfo {
                name,
                partitions,
                replication_factor,
                topic_configs: configs
                    .into_iter()
                    .map(|kv| TopicConfig {
                        key: kv.key,
                        value: kv.value,
                    })
                    .collect(),
            },
        )
    }

    fn subtopology() -> impl Strategy<Value = Subtopology> {
        let strings = || prop::collection::vec(text(), 0..3);
        let int16s = || prop::collection::vec(any::<i16>(), 0..3);
        (
            text(),
            strings(),
            strings(),
            prop::collection::vec(topic_info(), 0..2),
            strings(),
            prop::collection::vec(topic_info(), 0..2),
            prop::collection::vec((int16s(), int16s(), int16s()), 0..2),
        )
            .prop_map(
                |(id, sources, regex, changelogs, sinks, repartitions, groups)| Subtopology {
                    subtopology_id: id,
                    source_topics: sources,
                    source_topic_regex: regex,
                    state_changelog_topics: changelogs,
                    repartition_sink_topics: sinks,
                    repartition_source_topics: repartitions,
                    copartition_groups: groups
                        .into_iter()
                        .map(|(a, b, c)| CopartitionGroup {
                            source_topics: a,
                            source_topic_regex: b,
                            repartition_source_topics: c,
                        })
                        .collect(),
                },
            )
    }

    /// Any value, with every field of both dialects set.
    fn any_value(t: RecordType) -> BoxedStrategy<RecordValue> {
        match t {
            // Either version Kafka writes: with an expire timestamp (version 1, which keeps no
            // leader epoch or topic id) or without (version 4).
            RecordType::OffsetCommit => (
                any::<i64>(),
                any::<i32>(),
                text(),
                any::<i64>(),
                prop::option::of(0i64..i64::MAX),
                any::<[u8; 16]>(),
            )
                .prop_map(
                    |(offset, leader_epoch, metadata, commit_timestamp, expire, id)| {
                        RecordValue::OffsetCommit(
                            OffsetCommitValue {
                                offset,
                                leader_epoch,
                                metadata,
                                commit_timestamp,
                                expire_timestamp: expire.unwrap_or(-1),
                                topic_id: Uuid(id),
                            }
                            .normalized(),
                        )
                    },
                )
                .boxed(),
            RecordType::GroupMetadata => (
                any::<i32>(),
                any::<i64>(),
                any::<i32>(),
                prop::option::of(key_values()),
            )
                .prop_map(
                    |(epoch, metadata_hash, validated_topology_epoch, last_assignment_configs)| {
                        RecordValue::GroupMetadata(GroupMetadataValue {
                            epoch,
                            metadata_hash,
                            validated_topology_epoch,
                            last_assignment_configs,
                            ..Default::default()
                        })
                    },
                )
                .boxed(),
            RecordType::PartitionMetadata => prop::collection::vec(
                (
                    any::<[u8; 16]>(),
                    text(),
                    any::<i32>(),
                    prop::collection::vec(
                        (any::<i32>(), prop::collection::vec(text(), 0..3))
                            .prop_map(|(partition, racks)| PartitionRacks { partition, racks }),
                        0..3,
                    ),
                )
                    .prop_map(
                        |(id, topic_name, num_partitions, partition_metadata)| TopicMetadata {
                            topic_id: Uuid(id),
                            topic_name,
                            num_partitions,
                            partition_metadata,
                        },
                    ),
                0..3,
            )
            .prop_map(|topics| RecordValue::PartitionMetadata(PartitionMetadataValue { topics }))
            .boxed(),
            RecordType::MemberMetadata => (
                (
                    prop::option::of(text()),
                    prop::option::of(text()),
                    text(),
                    text(),
                    any::<i32>(),
                ),
                (
                    text(),
                    any::<i32>(),
                    text(),
                    prop::option::of((text(), any::<u16>())),
                    key_values(),
                ),
            )
                .prop_map(
                    |(
                        (instance_id, rack_id, client_id, client_host, rebalance_timeout_ms),
                        (topology_id, topology_epoch, process_id, endpoint, client_tags),
                    )| {
                        RecordValue::MemberMetadata(Box::new(MemberMetadataValue {
                            instance_id,
                            rack_id,
                            client_id,
                            client_host,
                            rebalance_timeout_ms,
                            topology_id,
                            topology_epoch,
                            process_id,
                            user_endpoint: endpoint.map(|(host, port)| Endpoint { host, port }),
                            client_tags,
                        }))
                    },
                )
                .boxed(),
            RecordType::TargetAssignmentMetadata => any::<i32>()
                .prop_map(|assignment_epoch| {
                    RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
                        assignment_epoch,
                        assignment_timestamp: 0,
                    })
                })
                .boxed(),
            RecordType::TargetAssignmentMember => {
                (task_list(true), task_list(true), task_list(true))
                    .prop_map(|(active_tasks, standby_tasks, warmup_tasks)| {
                        RecordValue::TargetAssignmentMember(TargetAssignmentMemberValue {
                            active_tasks,
                            standby_tasks,
                            warmup_tasks,
                        })
                    })
                    .boxed()
            }
            RecordType::CurrentMemberAssignment => (
                (any::<i32>(), any::<i32>(), any::<i8>()),
                (task_list(true), task_list(true), task_list(true)),
                (task_list(true), task_list(true), task_list(true)),
            )
                .prop_map(
                    |((member_epoch, previous_member_epoch, state), (a, s, w), (ar, sr, wr))| {
                        RecordValue::CurrentMemberAssignment(Box::new(
                            CurrentMemberAssignmentValue {
                                member_epoch,
                                previous_member_epoch,
                                state,
                                active_tasks: a,
                                standby_tasks: s,
                                warmup_tasks: w,
                                active_tasks_pending_revocation: ar,
                                standby_tasks_pending_revocation: sr,
                                warmup_tasks_pending_revocation: wr,
                            },
                        ))
                    },
                )
                .boxed(),
            RecordType::Topology => (
                text(),
                any::<i32>(),
                prop::collection::vec(subtopology(), 0..3),
            )
                .prop_map(|(topology_id, epoch, subtopologies)| {
                    RecordValue::Topology(TopologyValue {
                        topology_id,
                        epoch,
                        subtopologies,
                    })
                })
                .boxed(),
            RecordType::ClassicGroupMetadata => unreachable!("only its tombstone is modelled"),
        }
    }

    /// The value with the fields `dialect` does not have reset to their defaults.
    fn only_dialect_fields(dialect: Dialect, value: &RecordValue) -> RecordValue {
        let v42 = dialect == K42;
        let clear_epochs = |tasks: &mut Vec<TaskIds>, keep: bool| {
            if !keep {
                tasks.iter_mut().for_each(|t| t.assignment_epochs = None);
            }
        };
        let mut value = value.clone();
        match &mut value {
            RecordValue::GroupMetadata(v) if !v42 => {
                *v = GroupMetadataValue {
                    epoch: v.epoch,
                    ..Default::default()
                };
            }
            RecordValue::MemberMetadata(v) => {
                if v42 {
                    v.topology_id = String::new();
                } else {
                    v.topology_epoch = 0;
                }
            }
            RecordValue::TargetAssignmentMember(v) => {
                for list in [
                    &mut v.active_tasks,
                    &mut v.standby_tasks,
                    &mut v.warmup_tasks,
                ] {
                    clear_epochs(list, false);
                }
            }
            RecordValue::CurrentMemberAssignment(v) => {
                for list in [
                    &mut v.active_tasks,
                    &mut v.standby_tasks,
                    &mut v.warmup_tasks,
                    &mut v.active_tasks_pending_revocation,
                    &mut v.standby_tasks_pending_revocation,
                    &mut v.warmup_tasks_pending_revocation,
                ] {
                    clear_epochs(list, v42);
                }
            }
            RecordValue::Topology(v) => {
                if v42 {
                    v.topology_id = String::new();
                } else {
                    v.epoch = 0;
                }
            }
            _ => {}
        }
        value
    }

    fn record_types(dialect: Dialect) -> Vec<RecordType> {
        use RecordType::*;
        [
            GroupMetadata,
            PartitionMetadata,
            MemberMetadata,
            TargetAssignmentMetadata,
            TargetAssignmentMember,
            CurrentMemberAssignment,
            Topology,
            OffsetCommit,
            ClassicGroupMetadata,
        ]
        .into_iter()
        .filter(|&t| type_id(dialect, t).is_some())
        .collect()
    }

    /// The record types with a modelled value (the classic group's has none).
    fn value_types(dialect: Dialect) -> Vec<RecordType> {
        let mut types = record_types(dialect);
        types.retain(|&t| t != RecordType::ClassicGroupMetadata);
        types
    }

    /// A dialect, and a record of it with only its own fields set.
    fn dialect_record() -> impl Strategy<Value = (Dialect, Record)> {
        prop_oneof![Just(DRAFT), Just(K42)]
            .prop_flat_map(|d| (Just(d), prop::sample::select(record_types(d))))
            .prop_flat_map(|(d, t)| {
                (
                    Just(d),
                    Just(t),
                    text(),
                    text(),
                    // Only the classic group's tombstone is modelled.
                    if t == RecordType::ClassicGroupMetadata {
                        Just(None).boxed()
                    } else {
                        prop::option::weighted(0.8, any_value(t)).boxed()
                    },
                )
            })
            .prop_map(|(d, t, group_id, member_id, value)| {
                let key = codec::make_key(t, group_id, member_id);
                let value = value.map(|v| only_dialect_fields(d, &v));
                (
                    d,
                    Record {
                        key,
                        value,
                        producer: None,
                    },
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn binary_round_trip((dialect, record) in dialect_record()) {
            let key = encode_key(dialect, &record.key);
            prop_assert_eq!(decode_key(dialect, &key), Ok(Some(record.key.clone())));
            let mut size = key.len();
            if let Some(value) = &record.value {
                let bytes = encode_value(dialect, value);
                size += bytes.len();
                let decoded = decode_value(dialect, value.record_type(), &bytes);
                prop_assert_eq!(decoded.as_ref(), Ok(value));
            }
            prop_assert_eq!(encoded_size(dialect, &record), size);
        }

        #[test]
        fn json_round_trip((dialect, record) in dialect_record()) {
            for with_bytes in [false, true] {
                let json = record_to_json(dialect, &record, with_bytes);
                let text = json.to_string();
                let back: Value = serde_json::from_str(&text).unwrap();
                prop_assert_eq!(record_from_json(dialect, &back, "r"), Ok(Some(record.clone())));
            }
            let mut json = record_to_json(dialect, &record, true);
            let obj = json.as_object_mut().unwrap();
            obj.remove("key");
            obj.remove("value");
            prop_assert_eq!(record_from_json(dialect, &json, "r"), Ok(Some(record.clone())));
        }

        /// A dialect writes and reads only its own fields: the rest come back as defaults.
        #[test]
        fn other_dialect_fields_are_dropped(
            dialect in prop_oneof![Just(DRAFT), Just(K42)],
            value in prop::sample::select(value_types(K42)).prop_flat_map(any_value),
        ) {
            let expected = only_dialect_fields(dialect, &value);
            let bytes = encode_value(dialect, &value);
            prop_assert_eq!(&bytes, &encode_value(dialect, &expected));
            prop_assert_eq!(decode_value(dialect, value.record_type(), &bytes), Ok(expected.clone()));
            let record = Record::new(codec::make_key(value.record_type(), s("g"), s("m")), value);
            let json = record_to_json(dialect, &record, false);
            prop_assert_eq!(
                record_from_json(dialect, &json, "r").map(|r| r.and_then(|r| r.value)),
                Ok(Some(expected))
            );
        }

        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            for dialect in [DRAFT, K42] {
                let _ = decode_key(dialect, &bytes);
                for t in record_types(DRAFT) {
                    let _ = decode_value(dialect, t, &bytes);
                    // Behind a valid version, so that decoding gets past it.
                    let mut versioned = vec![0, 0];
                    versioned.extend(&bytes);
                    let _ = decode_value(dialect, t, &versioned);
                }
            }
        }

        /// Valid encodings with a few bytes changed, or cut short: errors, never panics; and
        /// whatever decodes re-encodes to something that decodes to the same value.
        #[test]
        fn mutated_bytes_never_panic(
            (dialect, record) in dialect_record(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
            cut in any::<prop::sample::Index>(),
        ) {
            let Some(value) = &record.value else { return Ok(()) };
            let t = value.record_type();
            let mut bytes = encode_value(dialect, value);
            for (i, b) in edits {
                let i = i.index(bytes.len());
                bytes[i] = b;
            }
            for candidate in [bytes.clone(), bytes[..cut.index(bytes.len())].to_vec()] {
                if let Ok(decoded) = decode_value(dialect, t, &candidate) {
                    let again = encode_value(dialect, &decoded);
                    prop_assert_eq!(decode_value(dialect, t, &again), Ok(decoded));
                }
            }
            let mut key = encode_key(dialect, &record.key);
            let i = cut.index(key.len());
            key[i] ^= 0xff;
            let _ = decode_key(dialect, &key);
        }

        #[test]
        fn random_json_bytes_never_panic(key in prop::collection::vec(any::<u8>(), 0..16), value in prop::option::of(prop::collection::vec(any::<u8>(), 0..48))) {
            use base64::Engine;
            let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
            let json = json!({"keyBytes": b64(&key), "valueBytes": value.as_deref().map(b64)});
            for dialect in [DRAFT, K42] {
                let _ = record_from_json(dialect, &json, "r");
            }
        }
    }
}

/// The replay's own base64 decoder takes exactly what the engine takes, with the same bytes.
#[cfg(all(feature = "replay-text", not(target_arch = "wasm32")))]
mod base64_text {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use proptest::prelude::*;

    use crate::records::json::append_base64_string;

    /// Both decoders' answers for `text`, appended after a byte already in the buffer; ours
    /// reads it as the body of a JSON string, up to its closing quote.
    fn both(text: &str) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        let mut ours = vec![7];
        let ours = (append_base64_string(format!("{text}\"rest").as_bytes(), &mut ours)
            == Some(text.len()))
        .then_some(ours);
        let engine = STANDARD.decode(text).ok().map(|mut b| {
            b.insert(0, 7);
            b
        });
        (ours, engine)
    }

    /// Kafka 4.3's tagged `AssignmentTimestamp`: written when set, read back, absent at 0.
    #[test]
    fn the_assignment_timestamp_is_tag_zero_of_type_20() {
        let record = crate::records::build::target_metadata("g", 3, 1_234);
        let bytes = crate::records::encode_value(
            crate::records::Dialect::Kafka43,
            &record.value.clone().unwrap(),
        );
        // version 0, epoch 3, one tagged field: tag 0, size 8, the int64.
        assert_eq!(bytes, [0, 0, 0, 0, 0, 3, 1, 0, 8, 0, 0, 0, 0, 0, 0, 4, 210]);
        let plain = crate::records::build::target_metadata("g", 3, 0);
        assert_eq!(
            crate::records::encode_value(crate::records::Dialect::Kafka43, &plain.value.unwrap()),
            [0, 0, 0, 0, 0, 3, 0]
        );
    }

    #[test]
    fn every_short_text_is_read_as_the_engine_reads_it() {
        // Every last quad over a small alphabet of valid, padding and foreign characters, after
        // nothing and after a full quad: padding, leftover bits and misplaced `=` included.
        let chars = [
            "A", "B", "Q", "g", "w", "/", "+", "9", "=", "-", "_", " ", "é",
        ];
        for a in chars {
            for b in chars {
                for c in chars {
                    for d in chars {
                        for prefix in ["", "AAAA", "Zm9v", "=AAA"] {
                            let text = format!("{prefix}{a}{b}{c}{d}");
                            let (ours, engine) = both(&text);
                            assert_eq!(ours, engine, "{text:?}");
                        }
                    }
                }
            }
        }
        for text in [
            "", "A", "AA", "AAA", "AAAAA", "AA==AA==", "AAA=AAAA", "AA==",
        ] {
            let (ours, engine) = both(text);
            assert_eq!(ours, engine, "{text:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn encoded_bytes_and_their_mutations_decode_as_the_engine_decodes_them(
            bytes in prop::collection::vec(any::<u8>(), 0..64),
            at in any::<prop::sample::Index>(),
            with in prop::sample::select(vec!['A', 'z', '0', '+', '/', '=', '-', '\n', '\u{0}']),
            mutate in any::<bool>(),
        ) {
            let mut text = STANDARD.encode(&bytes);
            let (ours, engine) = both(&text);
            prop_assert_eq!(ours.as_deref().map(|b| &b[1..]), Some(&bytes[..]));
            prop_assert_eq!(ours, engine);
            if mutate && !text.is_empty() {
                let i = at.index(text.len());
                text.replace_range(i..=i, &with.to_string());
                let (ours, engine) = both(&text);
                prop_assert_eq!(ours, engine, "{:?}", text);
            }
        }
    }
}

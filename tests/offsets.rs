//! Property tests of offset commits over random sequences of joins, heartbeats, commits at
//! random epochs, admin commits, transactional commits and their transactions' ends, leaves,
//! session timeouts and deletions, in both dialects through the JSON API: a member's commit
//! (plain or transactional) after it was fenced is always refused and writes nothing, and
//! replaying the records of every output, with each transaction's end at its place, rebuilds
//! the same offsets, pending ones included.

use proptest::prelude::*;
use serde_json::{json, Value};
use streams_group_coordinator::records::{record_from_json, Record};
use streams_group_coordinator::Coordinator;

#[derive(Clone, Debug)]
enum Op {
    /// A member (re)joins at epoch 0 and heartbeats once more.
    Join(usize),
    /// A member commits at its known epoch plus `delta`.
    Commit {
        member: usize,
        delta: i32,
        partition: i32,
        offset: i64,
    },
    /// The admin's commit (epoch -1, no member).
    AdminCommit {
        partition: i32,
        offset: i64,
    },
    /// A transactional commit of `producer` by a member at its known epoch plus `delta`.
    TxnCommit {
        producer: i64,
        member: usize,
        delta: i32,
        partition: i32,
        offset: i64,
    },
    /// `producer`'s transaction ends.
    Complete {
        producer: i64,
        commit: bool,
    },
    Leave(usize),
    /// Time passes beyond the session timeout: every member is fenced.
    Sleep,
    Delete,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize).prop_map(Op::Join),
        (0..3usize, -2..2i32, 0..3i32, 0..1000i64).prop_map(
            |(member, delta, partition, offset)| {
                Op::Commit {
                    member,
                    delta,
                    partition,
                    offset,
                }
            }
        ),
        (0..3i32, 0..1000i64).prop_map(|(partition, offset)| Op::AdminCommit { partition, offset }),
        (0..2i64, 0..3usize, -2..2i32, 0..3i32, 0..1000i64).prop_map(
            |(producer, member, delta, partition, offset)| Op::TxnCommit {
                producer,
                member,
                delta,
                partition,
                offset,
            }
        ),
        (0..2i64, any::<bool>()).prop_map(|(producer, commit)| Op::Complete { producer, commit }),
        (0..3usize).prop_map(Op::Leave),
        Just(Op::Sleep),
        Just(Op::Delete),
    ]
}

struct Run {
    c: Coordinator,
    dialect: &'static str,
    now: i64,
    /// Each member's last epoch, and whether it was fenced or left since it last joined.
    members: Vec<Option<(i32, bool)>>,
    /// The log: every output's records, and each transaction's end at its place.
    log: Vec<Entry>,
}

/// One entry of the log: a record, or a transaction's end marker.
enum Entry {
    Record(Value),
    Marker(Value),
}

impl Run {
    fn send(&mut self, input: Value) -> Value {
        self.now += 10;
        let out: Value = serde_json::from_str(&self.c.handle_json(&input.to_string())).unwrap();
        assert!(out.get("error").is_none(), "{input} -> {out}");
        self.log.extend(
            out["records"]
                .as_array()
                .unwrap()
                .iter()
                .cloned()
                .map(Entry::Record),
        );
        if input["type"] == "TransactionCompleted" {
            self.log.push(Entry::Marker(input));
        }
        out
    }

    fn heartbeat(&mut self, m: usize, epoch: i32) -> Value {
        let mut req = json!({"groupId": "g", "memberId": format!("m{m}"), "memberEpoch": epoch});
        if self.dialect == "kafka-4.2" {
            req["endpointInformationEpoch"] = json!(-1);
        }
        if epoch == 0 {
            req["processId"] = json!(format!("p{m}"));
            req["rebalanceTimeoutMs"] = json!(60000);
            for l in ["activeTasks", "standbyTasks", "warmupTasks"] {
                req[l] = json!([]);
            }
            if self.dialect == "kafka-4.2" {
                req["topology"] = json!({"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]});
            } else {
                req["topologyId"] = json!("t");
            }
        }
        let now = self.now;
        self.send(json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": req}))
    }

    fn commit(&mut self, member: &str, epoch: i32, partition: i32, offset: i64) -> Value {
        let now = self.now;
        self.send(json!({"nowMs": now, "type": "OffsetCommit", "request": {
            "groupId": "g", "memberId": member, "generationIdOrMemberEpoch": epoch,
            "topics": [{"name": "in", "partitions": [
                {"partitionIndex": partition, "committedOffset": offset}]}]}}))
    }
}

fn check(dialect: &'static str, ops: &[Op]) -> Result<(), TestCaseError> {
    let config = json!({"dialect": dialect, "group.streams.initial.rebalance.delay.ms": 0});
    let config = if dialect == "kafka-4.2" {
        config
    } else {
        json!({"dialect": dialect})
    };
    let mut run = Run {
        c: Coordinator::from_json_config(&config).unwrap(),
        dialect,
        now: 0,
        members: vec![None; 3],
        log: Vec::new(),
    };
    run.send(
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 3}]}),
    );
    if dialect != "kafka-4.2" {
        run.send(
            json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "g",
            "topologyId": "t", "topology": [{"subtopologyId": "0", "sourceTopics": ["in"]}]}}),
        );
    }
    for op in ops {
        match *op {
            Op::Join(m) => {
                let out = run.heartbeat(m, 0);
                let epoch = out["response"]["memberEpoch"].as_i64().unwrap() as i32;
                let out = run.heartbeat(m, epoch);
                let epoch = out["response"]["memberEpoch"].as_i64().unwrap_or(-1) as i32;
                run.members[m] = Some((epoch, false));
            }
            Op::Commit {
                member,
                delta,
                partition,
                offset,
            } => {
                let Some((epoch, gone)) = run.members[member] else {
                    continue;
                };
                let out = run.commit(&format!("m{member}"), epoch + delta, partition, offset);
                let code = out["response"]["topics"][0]["partitions"][0]["errorCode"].clone();
                if gone && epoch + delta >= 0 {
                    // A zombie: fenced or left, its commit never lands (a negative epoch is
                    // the admin's way, which Kafka accepts on an empty group from anyone).
                    prop_assert_ne!(&code, &json!(0), "{:?}", out);
                    prop_assert_eq!(out["records"].as_array().unwrap().len(), 0);
                }
                if code == json!(0) {
                    prop_assert_eq!(out["records"].as_array().unwrap().len(), 1);
                }
            }
            Op::AdminCommit { partition, offset } => {
                run.commit("", -1, partition, offset);
            }
            Op::TxnCommit {
                producer,
                member,
                delta,
                partition,
                offset,
            } => {
                let (epoch, gone) = run.members[member].unwrap_or((-1, false));
                let now = run.now;
                let out = run.send(json!({"nowMs": now, "type": "TxnOffsetCommit", "request": {
                    "transactionalId": format!("tx{producer}"), "groupId": "g",
                    "producerId": producer, "producerEpoch": 0,
                    "memberId": format!("m{member}"), "generationIdOrMemberEpoch": epoch + delta,
                    "topics": [{"name": "in", "partitions": [
                        {"partitionIndex": partition, "committedOffset": offset}]}]}}));
                let code = out["response"]["topics"][0]["partitions"][0]["errorCode"].clone();
                if gone && epoch + delta >= 0 {
                    prop_assert_ne!(&code, &json!(0), "{:?}", out);
                    prop_assert_eq!(out["records"].as_array().unwrap().len(), 0);
                }
                if code == json!(0) {
                    let records = out["records"].as_array().unwrap();
                    prop_assert_eq!(records.len(), 1);
                    prop_assert_eq!(&records[0]["producerId"], &json!(producer));
                }
            }
            Op::Complete { producer, commit } => {
                let now = run.now;
                let result = if commit { "COMMIT" } else { "ABORT" };
                run.send(json!({"nowMs": now, "type": "TransactionCompleted",
                    "producerId": producer, "producerEpoch": 0, "result": result}));
            }
            Op::Leave(m) => {
                if let Some((epoch, false)) = run.members[m] {
                    run.heartbeat(m, -1);
                    run.members[m] = Some((epoch, true));
                }
            }
            Op::Sleep => {
                run.now += 100_000;
                let now = run.now;
                run.send(json!({"nowMs": now, "type": "AdvanceTime"}));
                for m in run.members.iter_mut().flatten() {
                    m.1 = true;
                }
            }
            Op::Delete => {
                let now = run.now;
                run.send(json!({"nowMs": now, "type": "DeleteGroups", "groupIds": ["g"]}));
            }
        }
    }
    // Replaying every record, and every transaction's end where it came, rebuilds the same
    // offsets.
    let mut rebuilt = Coordinator::from_json_config(&config).unwrap();
    let dialect = rebuilt.config().dialect;
    let mut records: Vec<Record> = Vec::new();
    for entry in &run.log {
        match entry {
            Entry::Record(r) => records.extend(record_from_json(dialect, r, "r").unwrap()),
            Entry::Marker(m) => {
                let _ = rebuilt.replay(&std::mem::take(&mut records), 0).unwrap();
                let mut m = m.clone();
                m["nowMs"] = json!(0);
                let out: Value =
                    serde_json::from_str(&rebuilt.handle_json(&m.to_string())).unwrap();
                prop_assert!(out.get("error").is_none(), "{}", out);
            }
        }
    }
    let _ = rebuilt.replay(&records, 0).unwrap();
    prop_assert_eq!(rebuilt.offsets(), run.c.offsets());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn fenced_members_never_commit_and_replay_rebuilds_the_offsets(
        ops in prop::collection::vec(op(), 1..30),
        kafka in any::<bool>(),
    ) {
        check(if kafka { "kafka-4.2" } else { "kip1071-draft" }, &ops)?;
    }
}

//! Property tests of the coordinator over random sequences of joins, heartbeats (with and
//! without revocation), leaves, static restarts, crashes, time and topic changes, driven by
//! simulated clients through the JSON API (PROTOCOL 2.6, DESIGN 6). Every property runs in both
//! dialects: in `kip1071-draft` the topology arrives through `StreamsGroupInitialize` and an empty
//! member id asks the coordinator for one; in `kafka-4.2` the topology travels in every join,
//! there is no Initialize, member ids are always the client's, and the initial rebalance delay
//! holds back the first assignment.

use proptest::prelude::*;
use serde_json::{json, Value};
use streams_group_coordinator::tasks::{intersect, is_subset};
use streams_group_coordinator::Coordinator;

mod common;
use common::harness::{check_invariants, Client};
use common::observed;

#[derive(Clone, Debug)]
enum Op {
    Join {
        member: usize,
        process: usize,
        static_member: bool,
    },
    Heartbeat {
        member: usize,
        report: bool,
    },
    Leave {
        member: usize,
    },
    StaticLeave {
        member: usize,
    },
    StaticRestart {
        member: usize,
    },
    /// A restart that leaves the member id to the coordinator (draft, PROTOCOL 3.2).
    StaticRestartEmptyId {
        member: usize,
    },
    /// Another process with the same instance id and its own member id (PROTOCOL 6.6 step 6).
    DuplicateInstance {
        member: usize,
    },
    /// A static member leaving for good: -1 with its instance id.
    StaticPermanentLeave {
        member: usize,
    },
    Advance {
        ms: i64,
    },
    Partitions {
        topic: usize,
        count: i32,
    },
    Initialize,
    Garbage {
        member: usize,
    },
    /// An input answered with a boundary error, sent `late` ms after the last one without
    /// firing the due timers first: it must change nothing, those timers included.
    Failing {
        kind: usize,
        late: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..6usize, 0..3usize, any::<bool>()).prop_map(|(member, process, static_member)| Op::Join { member, process, static_member }),
        8 => (0..6usize, any::<bool>()).prop_map(|(member, report)| Op::Heartbeat { member, report }),
        1 => (0..6usize).prop_map(|member| Op::Leave { member }),
        1 => (0..6usize).prop_map(|member| Op::StaticLeave { member }),
        1 => (0..6usize).prop_map(|member| Op::StaticRestart { member }),
        1 => (0..6usize).prop_map(|member| Op::StaticRestartEmptyId { member }),
        1 => (0..6usize).prop_map(|member| Op::DuplicateInstance { member }),
        1 => (0..6usize).prop_map(|member| Op::StaticPermanentLeave { member }),
        2 => (0..70_000i64).prop_map(|ms| Op::Advance { ms }),
        1 => (0..3usize, 1..7i32).prop_map(|(topic, count)| Op::Partitions { topic, count }),
        1 => Just(Op::Initialize),
        1 => (0..6usize).prop_map(|member| Op::Garbage { member }),
        2 => (0..6usize, 0..70_000i64).prop_map(|(kind, late)| Op::Failing { kind, late }),
    ]
}

const TOPICS: [&str; 3] = ["in", "in2", "app-store-changelog"];

const DRAFT: &str = "kip1071-draft";
/// The `kafka-*` runs speak Kafka 4.4, the first release with static members, task offsets and
/// warm-ups (4.2 and 4.3 refuse them up front: `tests/kafka42.rs`).
const K42: &str = "kafka-4.4";

/// With assignment batching (`group.streams.assignment.interval.ms` = 1000).
const DRAFT_BATCHED: &str = "kip1071-draft+batched";
const K42_BATCHED: &str = "kafka-4.4+batched";

/// The dialect of a run name (`DRAFT`, `K42`, or one of them `+batched`).
fn dialect_of(run: &str) -> &str {
    run.split('+').next().unwrap_or(run)
}

fn config(run: &str) -> Value {
    let mut config = json!({"dialect": dialect_of(run), "group.streams.num.standby.replicas": 1});
    // Kafka 4.3+ defaults the interval to 1000: every run says which it uses.
    let interval = if run.ends_with("+batched") { 1000 } else { 0 };
    config["group.streams.assignment.interval.ms"] = json!(interval);
    config
}

struct Sim {
    dialect: &'static str,
    coordinator: Coordinator,
    clients: Vec<Client>,
    now: i64,
    outputs: Vec<String>,
    records: Vec<Value>,
}

fn topology() -> Value {
    json!([
        {"subtopologyId": "0", "sourceTopics": ["in"],
         "stateChangelogTopics": [{"name": "app-store-changelog", "partitions": 0, "replicationFactor": 0, "topicConfigs": []}]},
        {"subtopologyId": "1", "sourceTopics": ["in2"]}
    ])
}

impl Sim {
    fn new(dialect: &'static str) -> Sim {
        let coordinator = Coordinator::from_json_config(&config(dialect)).unwrap();
        let mut sim = Sim {
            dialect,
            coordinator,
            clients: vec![
                Client {
                    endpoint_epoch: -1,
                    ..Client::default()
                };
                6
            ],
            now: 0,
            outputs: vec![],
            records: vec![],
        };
        sim.send(json!({"nowMs": 0, "type": "TopicMetadata", "topics": [
            {"name": "in", "partitions": 4}, {"name": "in2", "partitions": 2}, {"name": "app-store-changelog", "partitions": 4}]}));
        sim
    }

    fn send(&mut self, input: Value) -> Value {
        let text = self.coordinator.handle_json(&input.to_string());
        let out: Value = serde_json::from_str(&text).unwrap();
        if let Some(records) = out["records"].as_array() {
            self.records.extend(records.iter().cloned());
        }
        self.outputs.push(text);
        out
    }

    /// Sends an input that must fail at the boundary and checks that nothing changed.
    fn failing(&mut self, kind: usize, at: i64) {
        let text = match kind {
            // Decodes, but cannot be applied: a member's metadata tombstone right after its
            // current assignment put it at epoch 1.
            0 => json!({"nowMs": at, "type": "Replay", "records": [
                {"key": {"type": self.type_id(5), "data": {"groupId": "g", "memberId": "zz"}},
                 "value": {"version": 0, "data": {"memberEpoch": 1, "previousMemberEpoch": 0,
                    "state": 0, "activeTasks": [], "standbyTasks": [], "warmupTasks": [],
                    "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
                    "warmupTasksPendingRevocation": []}}},
                {"key": {"type": self.type_id(2), "data": {"groupId": "g", "memberId": "zz"}},
                 "value": null}]})
            .to_string(),
            1 => json!({"nowMs": at, "type": "Replay",
                        "records": [{"key": {"type": self.type_id(0), "data": {}}, "value": null}]})
            .to_string(),
            2 => json!({"nowMs": at, "type": "TopicMetadata",
                        "topics": [{"name": "in", "partitions": 3}], "deletedTopics": ["in"]})
            .to_string(),
            3 => json!({"nowMs": at, "type": "NoSuchInput"}).to_string(),
            4 => json!({"nowMs": at, "type": "StreamsGroupHeartbeat",
                        "request": {"groupId": "g", "memberEpoch": "x"}})
            .to_string(),
            _ => format!("{{\"nowMs\": {at}, \"type\": \"AdvanceTime\""),
        };
        let before = observed(&self.coordinator);
        let out = self.coordinator.handle_json(&text);
        assert!(out.starts_with("{\"error\":"), "{text} did not fail: {out}");
        assert_eq!(
            observed(&self.coordinator),
            before,
            "a failed input changed the coordinator: {text}"
        );
    }

    /// The dialect's type id of a record type, in `RecordType` order (PROTOCOL 5.1).
    fn type_id(&self, t: usize) -> i64 {
        let draft = [15, 16, 17, 18, 19, 20, 21];
        let k42 = [17, 0, 19, 20, 21, 22, 23];
        if self.k42() {
            k42[t]
        } else {
            draft[t]
        }
    }

    fn k42(&self) -> bool {
        dialect_of(self.dialect) == K42
    }

    /// A join in the coordinator's dialect: the draft names its topology by id, 4.2 sends it.
    fn join_request(&self, id: &str, process: String, instance: Option<String>) -> Value {
        let mut req = json!({"groupId": "g", "memberId": id, "memberEpoch": 0,
            "processId": process, "rebalanceTimeoutMs": 30000,
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
        if self.k42() {
            req["topology"] = json!({"epoch": 0, "subtopologies": topology()});
        } else {
            req["topologyId"] = json!("t");
        }
        if let Some(i) = instance {
            req["instanceId"] = json!(i);
        }
        req
    }

    fn heartbeat(&mut self, i: usize, mut request: Value) -> Value {
        if self.k42() && request.get("endpointInformationEpoch").is_none() {
            request["endpointInformationEpoch"] = json!(self.clients[i].endpoint_epoch);
        }
        self.now += 10;
        let input = json!({"nowMs": self.now, "type": "StreamsGroupHeartbeat",
            "client": {"clientId": format!("c{i}"), "clientHost": "/127.0.0.1"}, "request": request});
        self.send(input)
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Join {
                member,
                process,
                static_member,
            } => {
                let c = self.clients[member].clone();
                let id = c.member_id.clone().unwrap_or_else(|| format!("m{member}"));
                if static_member {
                    let req =
                        self.join_request(&id, format!("p{process}"), Some(format!("i{member}")));
                    self.static_join(member, req);
                } else {
                    let req = self.join_request(&id, format!("p{process}"), None);
                    self.join(member, req);
                }
            }
            Op::StaticRestart { member } => {
                let c = self.clients[member].clone();
                let id = format!("m{member}-r{}", c.restarts + 1);
                let req =
                    self.join_request(&id, format!("p{}", member % 3), Some(format!("i{member}")));
                self.clients[member].restarts += 1;
                self.static_join(member, req);
            }
            Op::StaticRestartEmptyId { member } => {
                let req =
                    self.join_request("", format!("p{}", member % 3), Some(format!("i{member}")));
                if self.k42() {
                    // 4.2 member ids are the client's: an empty one is refused and changes nothing.
                    // Timers due by the heartbeat's time fire first (their records are theirs).
                    self.send(json!({"nowMs": self.now + 10, "type": "AdvanceTime"}));
                    let before = self.coordinator.group("g").cloned();
                    let out = self.heartbeat(member, req);
                    assert_eq!(out["response"]["errorCode"], 42, "{out}");
                    assert_eq!(out["response"]["errorMessage"], "MemberId can't be empty.");
                    assert_eq!(out["records"].as_array().map_or(0, Vec::len), 0);
                    assert_eq!(self.coordinator.group("g").cloned(), before);
                } else {
                    self.static_join(member, req);
                }
            }
            Op::DuplicateInstance { member } => {
                let instance = format!("i{member}");
                // Timers due by the join's time (heartbeats go 10 ms later) fire first and may
                // write records of their own; fire them now so that a refused join is checked
                // alone.
                self.send(json!({"nowMs": self.now + 10, "type": "AdvanceTime"}));
                let before = self.coordinator.group("g").cloned();
                let holder_active = before.as_ref().is_some_and(|g| {
                    g.static_index
                        .get(&instance)
                        .and_then(|h| g.members.get(h))
                        .is_some_and(|m| m.member_epoch != -2)
                });
                let id = format!("dup{member}-{}", self.now);
                let req = self.join_request(&id, format!("p{}", member % 3), Some(instance));
                if holder_active {
                    let out = self.heartbeat(member, req);
                    assert_eq!(out["response"]["errorCode"], 111, "{out}");
                    assert_eq!(out["records"].as_array().map_or(0, Vec::len), 0, "{out}");
                    assert_eq!(self.coordinator.group("g").cloned(), before);
                } else {
                    self.static_join(member, req);
                }
            }
            Op::StaticPermanentLeave { member } => {
                let Some(id) = self.clients[member].member_id.clone() else {
                    return;
                };
                let out = self.heartbeat(
                    member,
                    json!({"groupId": "g", "memberId": id, "memberEpoch": -1, "instanceId": format!("i{member}")}),
                );
                if out["response"]["errorCode"] == 0 {
                    self.clients[member].member_id = None;
                }
            }
            Op::Heartbeat { member, report } => {
                let c = self.clients[member].clone();
                let Some(id) = c.member_id.clone() else {
                    return;
                };
                let mut req = json!({"groupId": "g", "memberId": id, "memberEpoch": c.epoch});
                if report {
                    // A correct client reports what it owns: it has already dropped revoked tasks.
                    req["activeTasks"] = c.owned["active"].clone();
                    req["standbyTasks"] = c.owned["standby"].clone();
                    req["warmupTasks"] = c.owned["warmup"].clone();
                }
                let out = self.heartbeat(member, req);
                self.absorb(member, &out);
            }
            Op::Leave { member } | Op::StaticLeave { member } => {
                let c = self.clients[member].clone();
                let Some(id) = c.member_id.clone() else {
                    return;
                };
                let epoch = if matches!(op, Op::Leave { .. }) {
                    -1
                } else {
                    -2
                };
                let mut req = json!({"groupId": "g", "memberId": id, "memberEpoch": epoch});
                if epoch == -2 {
                    req["instanceId"] = json!(format!("i{member}"));
                }
                let out = self.heartbeat(member, req);
                if out["response"]["errorCode"] == 0 && epoch == -1 {
                    self.clients[member].member_id = None;
                }
            }
            Op::Advance { ms } => {
                self.now += ms;
                self.send(json!({"nowMs": self.now, "type": "AdvanceTime"}));
            }
            Op::Partitions { topic, count } => {
                self.now += 1;
                self.send(json!({"nowMs": self.now, "type": "TopicMetadata", "topics": [{"name": TOPICS[topic], "partitions": count}]}));
            }
            Op::Initialize => {
                self.now += 1;
                let out = self.send(json!({"nowMs": self.now, "type": "StreamsGroupInitialize",
                    "request": {"groupId": "g", "topologyId": "t", "topology": topology()}}));
                if self.k42() {
                    assert_eq!(out["response"]["errorCode"], 35, "{out}");
                    assert_eq!(
                        out["response"]["errorMessage"],
                        "StreamsGroupInitialize is not supported by the kafka-4.2 dialect."
                    );
                }
            }
            Op::Failing { kind, late } => self.failing(kind, self.now + late),
            Op::Garbage { member } => {
                let id = self.clients[member]
                    .member_id
                    .clone()
                    .unwrap_or_else(|| "ghost".into());
                // Timers due by the heartbeat's time fire first and may write records of
                // their own; fire them now so that what follows is the heartbeat alone.
                self.send(json!({"nowMs": self.now + 10, "type": "AdvanceTime"}));
                let before = self.coordinator.group("g").cloned();
                let out = self.heartbeat(
                    member,
                    json!({"groupId": "g", "memberId": id, "memberEpoch": 9999}),
                );
                assert!(out.get("error").is_some() || out["response"]["errorCode"] != 0);
                assert_eq!(out["records"].as_array().map_or(0, Vec::len), 0);
                assert_eq!(
                    self.coordinator.group("g").cloned(),
                    before,
                    "a bad heartbeat changed the group"
                );
                let out = self.send(json!({"nowMs": self.now, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberEpoch": "x"}}));
                assert!(out.get("error").is_some());
            }
        }
    }

    /// A static join; a replacement that does not bump must keep the epoch and every task
    /// (PROTOCOL 6.4, 6.5).
    fn static_join(&mut self, member: usize, req: Value) {
        let instance = req["instanceId"].as_str().unwrap_or_default().to_string();
        let before = self.coordinator.group("g").cloned();
        let holder = before
            .as_ref()
            .and_then(|g| g.static_index.get(&instance).and_then(|h| g.members.get(h)))
            .cloned();
        let out = self.join(member, req);
        let explain = out["explain"].as_array().cloned().unwrap_or_default();
        let replaced = explain
            .iter()
            .any(|e| e["code"] == "STATIC_MEMBER_REPLACED");
        let bumped = explain.iter().any(|e| e["code"] == "GROUP_EPOCH_BUMPED");
        if let (true, Some(holder), Some(before)) = (replaced, holder, before) {
            assert_eq!(holder.member_epoch, -2, "only a member at -2 is replaced");
            // A group with a pending computation (a fence since the last heartbeat) computes
            // it in this heartbeat (R9); otherwise a replacement that does not bump runs nothing.
            if !bumped && before.group_epoch == before.assignment_epoch {
                // No assignor run: every target stays where it was (the holder's under the new
                // id), and the new member keeps whatever the holder held of its target.
                let g = self.coordinator.group("g").unwrap();
                assert_eq!(g.group_epoch, before.group_epoch);
                let new_id = out["response"]["memberId"].as_str().unwrap();
                let mut expected = before.targets.clone();
                let target = expected.remove(&holder.member_id).unwrap_or_default();
                expected.insert(new_id.to_string(), target.clone());
                assert_eq!(g.targets, expected, "the assignor ran");
                let now = &g.members[new_id].assigned;
                for (held, role, kept) in [
                    (&holder.assigned.active, &target.active, &now.active),
                    (&holder.assigned.standby, &target.standby, &now.standby),
                    (&holder.assigned.warmup, &target.warmup, &now.warmup),
                ] {
                    assert!(is_subset(&intersect(held, role), kept), "a task moved");
                }
                let types: Vec<i64> = out["records"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|r| r["key"]["type"].as_i64())
                    .collect();
                // No group metadata, no target metadata (draft 15/18, 4.2 17/20).
                let (group_md, target_md) = if self.k42() { (17, 20) } else { (15, 18) };
                assert!(
                    !types.contains(&group_md) && !types.contains(&target_md),
                    "{types:?}"
                );
            }
        }
    }

    fn join(&mut self, member: usize, req: Value) -> Value {
        let out = self.heartbeat(member, req);
        if out["response"]["errorCode"] == 0 {
            let c = &mut self.clients[member];
            c.member_id = out["response"]["memberId"].as_str().map(String::from);
        }
        self.absorb(member, &out);
        out
    }

    /// What a correct client does with a response.
    fn absorb(&mut self, member: usize, out: &Value) {
        self.clients[member].absorb(out);
    }
}

fn run(dialect: &'static str, ops: &[Op]) -> Sim {
    let mut sim = Sim::new(dialect);
    let mut last_epoch = 0;
    for op in ops {
        sim.apply(op);
        if let Some(g) = sim.coordinator.group("g") {
            assert!(g.group_epoch >= last_epoch, "group epoch went backwards");
            last_epoch = g.group_epoch;
            check_invariants(&sim.coordinator, g);
        }
    }
    sim
}

/// Replaying every emitted record rebuilds the same hard and derived state, and identical
/// inputs give identical outputs.
fn replay_and_determinism(dialect: &'static str, ops: &[Op]) -> Result<(), TestCaseError> {
    let sim = run(dialect, ops);
    let mut rebuilt = Coordinator::from_json_config(&config(dialect)).unwrap();
    let out = rebuilt.handle_json(
        &json!({"nowMs": sim.now, "type": "Replay", "records": sim.records}).to_string(),
    );
    prop_assert!(!out.contains("\"error\""), "replay failed: {}", out);
    prop_assert_eq!(rebuilt.groups(), sim.coordinator.groups());
    let again = run(dialect, ops);
    prop_assert_eq!(again.outputs, sim.outputs);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_and_replay_rebuilds_state(ops in proptest::collection::vec(op(), 1..60)) {
        replay_and_determinism(DRAFT, &ops)?;
    }

    #[test]
    fn invariants_hold_and_replay_rebuilds_state_kafka42(ops in proptest::collection::vec(op(), 1..60)) {
        replay_and_determinism(K42, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Assignment batching: the same invariants, replay and determinism.
    #[test]
    fn invariants_hold_with_assignment_batching(ops in proptest::collection::vec(op(), 1..60)) {
        replay_and_determinism(DRAFT_BATCHED, &ops)?;
    }

    #[test]
    fn invariants_hold_with_assignment_batching_kafka42(ops in proptest::collection::vec(op(), 1..60)) {
        replay_and_determinism(K42_BATCHED, &ops)?;
    }
}

fn settle(dialect: &'static str, mut ops: Vec<Op>) {
    for m in 1..4 {
        ops.push(Op::Join {
            member: m,
            process: m % 3,
            static_member: m % 2 == 0,
        });
    }
    // Past the 4.2 initial rebalance delay (3000 ms).
    ops.push(Op::Advance { ms: 5000 });
    for _ in 0..6 {
        for m in 0..4 {
            ops.push(Op::Heartbeat {
                member: m,
                report: true,
            });
        }
    }
    let sim = run(dialect, &ops);
    let g = sim.coordinator.group("g").unwrap();
    assert_eq!(
        sim.coordinator.group_state(g),
        streams_group_coordinator::group::GroupState::Stable
    );
    let tasks: usize = g.members.values().map(|m| m.assigned.active.count()).sum();
    assert_eq!(tasks, 6, "every task is active somewhere");
    let standbys: usize = g.members.values().map(|m| m.assigned.standby.count()).sum();
    assert_eq!(standbys, 4, "one standby per stateful task");
}

#[test]
fn a_simulated_group_settles() {
    settle(
        DRAFT,
        vec![
            Op::Join {
                member: 0,
                process: 0,
                static_member: false,
            },
            Op::Initialize,
        ],
    );
}

/// With assignment batching the group still converges once time passes.
#[test]
fn a_simulated_group_settles_with_assignment_batching() {
    for run in [DRAFT_BATCHED, K42_BATCHED] {
        let mut ops = vec![Op::Join {
            member: 0,
            process: 0,
            static_member: false,
        }];
        if run == DRAFT_BATCHED {
            ops.push(Op::Initialize);
        }
        settle(run, ops);
    }
}

#[test]
fn a_simulated_group_settles_kafka42() {
    settle(
        K42,
        vec![Op::Join {
            member: 0,
            process: 0,
            static_member: false,
        }],
    );
}

//! Property tests of the coordinator over random sequences of joins, heartbeats (with and
//! without revocation), leaves, static restarts, crashes, time and topic changes, driven by
//! simulated clients through the JSON API (PROTOCOL 2.6, DESIGN 6).

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::{json, Value};
use streams_group_coordinator::group::Group;
use streams_group_coordinator::tasks::{intersect, is_subset};
use streams_group_coordinator::Coordinator;

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
    ]
}

const TOPICS: [&str; 3] = ["in", "in2", "app-store-changelog"];

/// A client that behaves like a correct Kafka Streams member.
#[derive(Clone, Debug, Default)]
struct Client {
    member_id: Option<String>,
    epoch: i32,
    owned: Value,
    restarts: u32,
}

struct Sim {
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
    fn new() -> Sim {
        let coordinator =
            Coordinator::from_json_config(&json!({"group.streams.num.standby.replicas": 1}))
                .unwrap();
        let mut sim = Sim {
            coordinator,
            clients: vec![Client::default(); 6],
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

    fn heartbeat(&mut self, i: usize, request: Value) -> Value {
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
                let mut req = json!({"groupId": "g", "memberId": id, "memberEpoch": 0, "topologyId": "t",
                    "processId": format!("p{process}"), "rebalanceTimeoutMs": 30000,
                    "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
                if static_member {
                    req["instanceId"] = json!(format!("i{member}"));
                    self.static_join(member, req);
                } else {
                    self.join(member, req);
                }
            }
            Op::StaticRestart { member } => {
                let c = self.clients[member].clone();
                let id = format!("m{member}-r{}", c.restarts + 1);
                let req = json!({"groupId": "g", "memberId": id, "memberEpoch": 0, "topologyId": "t",
                    "processId": format!("p{}", member % 3), "rebalanceTimeoutMs": 30000, "instanceId": format!("i{member}"),
                    "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
                self.clients[member].restarts += 1;
                self.static_join(member, req);
            }
            Op::StaticRestartEmptyId { member } => {
                let req = json!({"groupId": "g", "memberId": "", "memberEpoch": 0, "topologyId": "t",
                    "processId": format!("p{}", member % 3), "rebalanceTimeoutMs": 30000, "instanceId": format!("i{member}"),
                    "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
                self.static_join(member, req);
            }
            Op::DuplicateInstance { member } => {
                let instance = format!("i{member}");
                let before = self.coordinator.group("g").cloned();
                let holder_active = before.as_ref().is_some_and(|g| {
                    g.static_index
                        .get(&instance)
                        .and_then(|h| g.members.get(h))
                        .is_some_and(|m| m.member_epoch != -2)
                });
                let id = format!("dup{member}-{}", self.now);
                let req = json!({"groupId": "g", "memberId": id, "memberEpoch": 0, "topologyId": "t",
                    "processId": format!("p{}", member % 3), "rebalanceTimeoutMs": 30000, "instanceId": instance,
                    "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
                if holder_active {
                    let out = self.heartbeat(member, req);
                    assert_eq!(out["response"]["errorCode"], 111, "{out}");
                    assert_eq!(out["records"].as_array().map_or(0, Vec::len), 0);
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
                self.send(json!({"nowMs": self.now, "type": "StreamsGroupInitialize",
                    "request": {"groupId": "g", "topologyId": "t", "topology": topology()}}));
            }
            Op::Garbage { member } => {
                let id = self.clients[member]
                    .member_id
                    .clone()
                    .unwrap_or_else(|| "ghost".into());
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
                assert!(!types.contains(&15) && !types.contains(&18), "{types:?}");
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
        let r = &out["response"];
        let c = &mut self.clients[member];
        match r["errorCode"].as_i64() {
            Some(0) => {
                c.epoch = r["memberEpoch"].as_i64().unwrap_or(0) as i32;
                if r["activeTasks"].is_array() {
                    c.owned = json!({"active": r["activeTasks"], "standby": r["standbyTasks"], "warmup": r["warmupTasks"]});
                }
            }
            Some(110) | Some(25) => {
                // Drop every task and rejoin next time.
                c.epoch = 0;
                c.owned = json!({"active": [], "standby": [], "warmup": []});
            }
            _ => {}
        }
        if c.owned.is_null() {
            c.owned = json!({"active": [], "standby": [], "warmup": []});
        }
    }
}

fn check_invariants(group: &Group) {
    let mut active: BTreeSet<(String, i32)> = BTreeSet::new();
    let mut copies: BTreeMap<(String, i32, String), u32> = BTreeMap::new();
    for m in group.members.values() {
        for a in [&m.assigned, &m.pending] {
            for (s, ps) in &a.active {
                for p in ps {
                    assert!(
                        active.insert((s.clone(), *p)),
                        "task {s}:{p} has two active owners"
                    );
                }
            }
        }
        // Two copies on one process are ruled out in targets; a member that moves to another
        // process may keep a task for a moment while the other copy is being revoked.
        if let Some(t) = group.targets.get(&m.member_id) {
            for (s, ps) in t.active.iter().chain(&t.standby) {
                for p in ps {
                    *copies
                        .entry((s.clone(), *p, m.metadata.process_id.clone()))
                        .or_default() += 1;
                }
            }
        }
    }
    for ((s, p, proc_), n) in copies {
        assert!(n <= 1, "process {proc_} holds {n} copies of {s}:{p}");
    }
    // The static index is exact: one member per instance id, and every static member indexed
    // (PROTOCOL 2.1, pitfall 5).
    let mut instances: BTreeMap<String, String> = BTreeMap::new();
    for m in group.members.values() {
        if let Some(i) = &m.metadata.instance_id {
            assert!(
                instances.insert(i.clone(), m.member_id.clone()).is_none(),
                "instance id {i} held twice"
            );
        }
    }
    assert_eq!(group.static_index, instances, "static index out of date");
    assert!(group.assignment_epoch <= group.group_epoch);
    if group.state() == streams_group_coordinator::group::GroupState::Stable {
        for m in group.members.values() {
            assert_eq!(
                m.member_epoch, group.assignment_epoch,
                "stable group with a member behind"
            );
        }
    }
}

fn run(ops: &[Op]) -> Sim {
    let mut sim = Sim::new();
    let mut last_epoch = 0;
    for op in ops {
        sim.apply(op);
        if let Some(g) = sim.coordinator.group("g") {
            assert!(g.group_epoch >= last_epoch, "group epoch went backwards");
            last_epoch = g.group_epoch;
            check_invariants(g);
        }
    }
    sim
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_and_replay_rebuilds_state(ops in proptest::collection::vec(op(), 1..60)) {
        let sim = run(&ops);
        // Replaying every emitted record rebuilds the same hard and derived state.
        let mut rebuilt = Coordinator::from_json_config(&json!({"group.streams.num.standby.replicas": 1})).unwrap();
        let out = rebuilt.handle_json(&json!({"nowMs": sim.now, "type": "Replay", "records": sim.records}).to_string());
        prop_assert!(!out.contains("\"error\""), "replay failed: {}", out);
        prop_assert_eq!(rebuilt.groups(), sim.coordinator.groups());
        // Identical inputs give identical outputs.
        let again = run(&ops);
        prop_assert_eq!(again.outputs, sim.outputs);
    }
}

#[test]
fn a_simulated_group_settles() {
    let mut ops = vec![
        Op::Join {
            member: 0,
            process: 0,
            static_member: false,
        },
        Op::Initialize,
    ];
    for m in 1..4 {
        ops.push(Op::Join {
            member: m,
            process: m % 3,
            static_member: m % 2 == 0,
        });
    }
    for _ in 0..6 {
        for m in 0..4 {
            ops.push(Op::Heartbeat {
                member: m,
                report: true,
            });
        }
    }
    let sim = run(&ops);
    let g = sim.coordinator.group("g").unwrap();
    assert_eq!(
        g.state(),
        streams_group_coordinator::group::GroupState::Stable
    );
    let tasks: usize = g
        .members
        .values()
        .map(|m| m.assigned.active.values().map(BTreeSet::len).sum::<usize>())
        .sum();
    assert_eq!(tasks, 6, "every task is active somewhere");
    let standbys: usize = g
        .members
        .values()
        .map(|m| {
            m.assigned
                .standby
                .values()
                .map(BTreeSet::len)
                .sum::<usize>()
        })
        .sum();
    assert_eq!(standbys, 4, "one standby per stateful task");
}

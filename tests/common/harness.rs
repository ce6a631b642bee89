//! The shared test harness: simulated clients that behave like correct Kafka Streams members,
//! the invariants every group must keep after every input (PROTOCOL 2.10, 2.2, 2.5), and a
//! driver that brings a group to `STABLE`. Used by the property tests and, through `#[path]`, by
//! the benchmarks.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use streams_group_coordinator::group::{Group, GroupState};
use streams_group_coordinator::{Config, Coordinator};

/// Handles one JSON input and parses the output.
pub fn send(c: &mut Coordinator, input: Value) -> Value {
    serde_json::from_str(&c.handle_json(&input.to_string())).unwrap_or(Value::Null)
}

/// A client that behaves like a correct Kafka Streams member.
#[derive(Clone, Debug, Default)]
pub struct Client {
    pub member_id: Option<String>,
    pub epoch: i32,
    /// `{"active", "standby", "warmup"}`: the task lists it owns, as it reports them.
    pub owned: Value,
    pub restarts: u32,
    /// 4.2: the last endpoint-information epoch received.
    pub endpoint_epoch: i64,
}

impl Client {
    /// What a correct client does with a heartbeat output: adopt the epoch and any new task
    /// lists; on `FENCED_MEMBER_EPOCH` (110) or `UNKNOWN_MEMBER_ID` (25) drop every task and
    /// rejoin next time.
    pub fn absorb(&mut self, out: &Value) {
        let r = &out["response"];
        match r["errorCode"].as_i64() {
            Some(0) => {
                self.epoch = r["memberEpoch"].as_i64().unwrap_or(0) as i32;
                if let Some(e) = r["endpointInformationEpoch"].as_i64() {
                    self.endpoint_epoch = e;
                }
                if r["activeTasks"].is_array() {
                    self.owned = json!({"active": r["activeTasks"], "standby": r["standbyTasks"], "warmup": r["warmupTasks"]});
                }
            }
            Some(110) | Some(25) => {
                self.epoch = 0;
                self.owned = json!({"active": [], "standby": [], "warmup": []});
            }
            _ => {}
        }
        if self.owned.is_null() {
            self.owned = json!({"active": [], "standby": [], "warmup": []});
        }
    }
}

/// A draft group `g` over two topics of `partitions` partitions, joined by `count` members (one
/// heartbeat each, 1 ms apart, over 100 processes) and driven to `STABLE` by correct clients:
/// the coordinator, each member's id and epoch, and the time reached.
///
/// The benchmarks' driver: its clients write their heartbeats from typed values and read only
/// the response of each output (as a Kafka client would; the records are for the log), so that
/// what it measures is mostly the coordinator.
pub fn stable_group(
    config: Config,
    count: usize,
    partitions: i32,
) -> (Coordinator, Vec<(String, i32)>, i64) {
    drive_to_stable(config, count, partitions, &mut |_| {})
}

/// Each member's steady heartbeat (its id and epoch, nothing else) as a Kafka request frame of
/// `dialect` (version 0, correlation id the member's index): what the wire benchmarks answer.
pub fn steady_heartbeat_frames(
    dialect: streams_group_coordinator::Dialect,
    members: &[(String, i32)],
) -> Vec<Vec<u8>> {
    use streams_group_coordinator::api::{ClientInfo, HeartbeatRequest, InputKind};
    members
        .iter()
        .enumerate()
        .map(|(i, (id, epoch))| {
            let kind = InputKind::StreamsGroupHeartbeat {
                client: ClientInfo::default(),
                request: Box::new(HeartbeatRequest {
                    group_id: "g".into(),
                    member_id: id.clone(),
                    member_epoch: *epoch,
                    rebalance_timeout_ms: -1,
                    ..Default::default()
                }),
            };
            let index = i32::try_from(i).expect("fewer members than i32::MAX");
            streams_group_coordinator::wire::encode_request(dialect, &kind, 0, index)
                .expect("every dialect serves heartbeat version 0")
        })
        .collect()
}

/// [`stable_group`]'s outputs, one JSON text a line: the log of the group's forming, as `sgc`
/// writes it.
pub fn stable_group_outputs(config: Config, count: usize, partitions: i32) -> String {
    let mut log = String::new();
    drive_to_stable(config, count, partitions, &mut |out| {
        log.push_str(out);
        log.push('\n');
    });
    log
}

/// [`stable_group`], handing every output to `seen`.
fn drive_to_stable(
    config: Config,
    count: usize,
    partitions: i32,
    seen: &mut dyn FnMut(&str),
) -> (Coordinator, Vec<(String, i32)>, i64) {
    let interval = i64::from(config.assignment_interval_ms);
    let mut c = Coordinator::new(config).expect("a valid config");
    seen(
        &c.handle_json(
            &json!({"nowMs": 0, "type": "TopicMetadata", "topics": [
        {"name": "a", "partitions": partitions}, {"name": "b", "partitions": partitions}]})
            .to_string(),
        ),
    );
    seen(&c.handle_json(
        &json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "g", "topologyId": "t",
        "topology": [{"subtopologyId": "0", "sourceTopics": ["a"]}, {"subtopologyId": "1", "sourceTopics": ["b"]}]}})
        .to_string(),
    ));
    let mut now = 1;
    let mut members: Vec<(String, LeanClient)> = Vec::new();
    for i in 0..count {
        let id = format!("member-{i:04}");
        let process = format!("p{}", i % 100);
        let mut client = LeanClient::default();
        let beat = Beat {
            now_ms: now,
            kind: "StreamsGroupHeartbeat",
            request: BeatRequest {
                group_id: "g",
                member_id: &id,
                member_epoch: 0,
                topology_id: Some("t"),
                process_id: Some(&process),
                rebalance_timeout_ms: Some(600_000),
                active_tasks: &client.owned[0],
                standby_tasks: &client.owned[1],
                warmup_tasks: &client.owned[2],
            },
        };
        let out = c.handle_json(&serde_json::to_string(&beat).unwrap_or_default());
        seen(&out);
        client.absorb(&out);
        members.push((id, client));
        now += 1;
    }
    for _round in 0..20 {
        if c.group("g").map(|g| c.group_state(g)) == Some(GroupState::Stable) {
            break;
        }
        // Past a batched assignment's due time.
        now += interval;
        for (id, client) in members.iter_mut() {
            let beat = Beat {
                now_ms: now,
                kind: "StreamsGroupHeartbeat",
                request: BeatRequest {
                    group_id: "g",
                    member_id: id,
                    member_epoch: client.epoch,
                    topology_id: None,
                    process_id: None,
                    rebalance_timeout_ms: None,
                    active_tasks: &client.owned[0],
                    standby_tasks: &client.owned[1],
                    warmup_tasks: &client.owned[2],
                },
            };
            let out = c.handle_json(&serde_json::to_string(&beat).unwrap_or_default());
            seen(&out);
            client.absorb(&out);
        }
        now += 1;
    }
    let stable = c.group("g").map(|g| c.group_state(g)) == Some(GroupState::Stable);
    assert!(stable, "the group did not reach STABLE");
    let members = members.into_iter().map(|(id, cl)| (id, cl.epoch)).collect();
    (c, members, now)
}

/// A heartbeat input, as `stable_group`'s clients write it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Beat<'a> {
    now_ms: i64,
    #[serde(rename = "type")]
    kind: &'static str,
    request: BeatRequest<'a>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct BeatRequest<'a> {
    group_id: &'a str,
    member_id: &'a str,
    member_epoch: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    topology_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    process_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rebalance_timeout_ms: Option<i32>,
    active_tasks: &'a [TaskIds],
    standby_tasks: &'a [TaskIds],
    warmup_tasks: &'a [TaskIds],
}

/// One subtopology's partitions, as heartbeats carry them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskIds {
    subtopology_id: String,
    partitions: Vec<i32>,
}

/// The part of a heartbeat's output a client reads; the rest is skipped unparsed into values.
#[derive(serde::Deserialize)]
struct BeatOutput {
    response: Option<BeatResponse>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct BeatResponse {
    error_code: i64,
    member_epoch: Option<i32>,
    active_tasks: Option<Vec<TaskIds>>,
    standby_tasks: Option<Vec<TaskIds>>,
    warmup_tasks: Option<Vec<TaskIds>>,
}

/// [`Client`]'s behaviour on typed values: adopt the epoch and any new task lists; on
/// `FENCED_MEMBER_EPOCH` (110) or `UNKNOWN_MEMBER_ID` (25) drop every task and rejoin.
#[derive(Debug, Default)]
struct LeanClient {
    epoch: i32,
    /// Active, standby and warm-up tasks owned.
    owned: [Vec<TaskIds>; 3],
}

impl LeanClient {
    fn absorb(&mut self, out: &str) {
        let Ok(BeatOutput { response: Some(r) }) = serde_json::from_str::<BeatOutput>(out) else {
            return;
        };
        match r.error_code {
            0 => {
                self.epoch = r.member_epoch.unwrap_or(0);
                if let Some(active) = r.active_tasks {
                    self.owned = [
                        active,
                        r.standby_tasks.unwrap_or_default(),
                        r.warmup_tasks.unwrap_or_default(),
                    ];
                }
            }
            110 | 25 => {
                self.epoch = 0;
                self.owned = Default::default();
            }
            _ => {}
        }
    }
}

/// The invariants of PROTOCOL 2.10 and 2.2 that every group keeps after every input.
pub fn check_invariants(coordinator: &Coordinator, group: &Group) {
    let mut active: BTreeSet<(String, i32)> = BTreeSet::new();
    let mut copies: BTreeMap<(String, i32, String), u32> = BTreeMap::new();
    for m in group.members.values() {
        for a in [&m.assigned, &m.pending] {
            for (s, ps) in &a.active {
                for p in ps {
                    assert!(
                        active.insert((s.to_string(), *p)),
                        "task {s}:{p} has two active owners"
                    );
                }
            }
        }
        // Two copies on one process are ruled out in targets; a member that moves to another
        // process may keep a task for a moment while the other copy is being revoked. Kafka
        // 4.3+ holds a bump's computation for the assignment interval even when a member moved
        // (its old target then follows it), so there the rule holds for current targets only.
        let held = matches!(
            coordinator.config().dialect,
            streams_group_coordinator::records::Dialect::Kafka43
                | streams_group_coordinator::records::Dialect::Kafka44
        ) && group.group_epoch > group.assignment_epoch;
        if let Some(t) = group.targets.get(&m.member_id).filter(|_| !held) {
            for (s, ps) in t.active.iter().chain(&t.standby) {
                for p in ps {
                    *copies
                        .entry((s.to_string(), *p, m.metadata.process_id.clone()))
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
    // Members never run ahead of the assignment, except the 4.2 delay placeholder epoch 1
    // (PROTOCOL 2.3, 4.7); -2 marks a static member away.
    for m in group.members.values() {
        assert!(
            m.member_epoch == -2 || m.member_epoch <= group.assignment_epoch.max(1),
            "member {} at epoch {} ahead of assignment epoch {}",
            m.member_id,
            m.member_epoch,
            group.assignment_epoch
        );
    }
    // Per-task assignment epochs (4.2's AssignmentEpochs; the draft reads them as the member
    // epoch): exactly the active tasks, assigned or pending, none granted after the member's epoch.
    for m in group.members.values() {
        let mut active: BTreeSet<(String, i32)> = BTreeSet::new();
        for (s, ps) in m.assigned.active.iter().chain(&m.pending.active) {
            active.extend(ps.iter().map(|p| (s.to_string(), *p)));
        }
        let keys: BTreeSet<(String, i32)> = m
            .active_epochs
            .iter()
            .map(|(s, p, _)| (s.to_string(), p))
            .collect();
        assert_eq!(keys, active, "per-task epochs of {}", m.member_id);
        assert_eq!(m.active_epochs.len(), keys.len(), "each task once");
        for (s, p, e) in m.active_epochs.iter() {
            assert!(
                e <= m.member_epoch.max(0),
                "task ({s}, {p}) of {} granted at {e}, after the member's epoch {}",
                m.member_id,
                m.member_epoch
            );
        }
    }
    // A stable group (every member reconciled to the assignment epoch, PROTOCOL 2.2) has every
    // member holding exactly its target, with nothing pending revocation: what reconciliation
    // (2.5) must have reached, checked against the targets rather than against the epochs that
    // define the state.
    if coordinator.group_state(group) == GroupState::Stable {
        for m in group.members.values() {
            let target = group.targets.get(&m.member_id).cloned().unwrap_or_default();
            assert_eq!(
                m.assigned, target,
                "stable group: member {} does not hold its target",
                m.member_id
            );
            assert!(
                m.pending.active.is_empty()
                    && m.pending.standby.is_empty()
                    && m.pending.warmup.is_empty(),
                "stable group: member {} has tasks pending revocation",
                m.member_id
            );
        }
    }
}

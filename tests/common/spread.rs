//! Standby spread figures shared by `tests/standby_spread.rs` and `examples/standby_spread.rs`:
//! each process's actives' standbys per other process, and a group formed through a draft
//! coordinator by correct clients (docs/assignor.md, "Standby spread").
#![allow(dead_code)]

use std::collections::BTreeMap;

use serde_json::json;
use streams_group_coordinator::api::{
    ClientInfo, HeartbeatRequest, Input, InputKind, Response, TaskIdsJson,
};
use streams_group_coordinator::assignor::{MemberSpec, SubtopologySpec};
use streams_group_coordinator::group::GroupState;
use streams_group_coordinator::tasks::Assignment;
use streams_group_coordinator::{Config, Coordinator};

use super::harness;

/// A synthetic group: member `i` on process `i % processes`, every subtopology stateful.
#[derive(Clone, Copy)]
pub struct Size {
    pub members: usize,
    pub processes: usize,
    pub subtopologies: usize,
    pub partitions: usize,
}

/// The groups where pairing was measured: 100 members / 10 processes / 10 x 100 tasks, 1,000 /
/// 100 / 10 x 1,000, 5,000 / 500 / 50 x 1,000, 10,000 / 1,000 / 100 x 1,000.
pub const SIZES: [Size; 4] = [
    Size {
        members: 100,
        processes: 10,
        subtopologies: 10,
        partitions: 100,
    },
    Size {
        members: 1_000,
        processes: 100,
        subtopologies: 10,
        partitions: 1_000,
    },
    Size {
        members: 5_000,
        processes: 500,
        subtopologies: 50,
        partitions: 1_000,
    },
    Size {
        members: 10_000,
        processes: 1_000,
        subtopologies: 100,
        partitions: 1_000,
    },
];

impl Size {
    pub fn label(&self) -> String {
        format!(
            "{} / {}, {} x {}",
            self.members, self.processes, self.subtopologies, self.partitions
        )
    }
}

/// The group's members: member `i` on process `i % processes`.
pub fn members(size: &Size) -> Vec<MemberSpec<'static>> {
    (0..size.members)
        .map(|i| MemberSpec {
            member_id: format!("member-{i:05}").into(),
            process_id: format!("process-{:04}", i % size.processes).into(),
            ..Default::default()
        })
        .collect()
}

/// Its subtopologies, every one stateful.
pub fn subtopologies(size: &Size) -> Vec<SubtopologySpec> {
    (0..size.subtopologies)
        .map(|s| SubtopologySpec {
            subtopology_id: format!("{s}"),
            num_tasks: size.partitions as i32,
            stateful: true,
        })
        .collect()
}

/// Per process with at least 8 stateful actives: the largest share of its actives' standbys on
/// one other process. Also the pairs of processes each holding >= 90% of the other's standbys.
pub fn shares(targets: &BTreeMap<String, (String, Assignment)>) -> (Vec<f64>, usize) {
    let mut owner: BTreeMap<(String, i32), &str> = BTreeMap::new();
    for (process, a) in targets.values() {
        for (s, p) in a.active.tasks() {
            owner.insert((s.to_string(), p), process);
        }
    }
    // (active process, standby process) -> standbys.
    let mut pair: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut total: BTreeMap<&str, usize> = BTreeMap::new();
    let mut actives: BTreeMap<&str, usize> = BTreeMap::new();
    for (process, a) in targets.values() {
        *actives.entry(process).or_default() += a.active.count();
        for (s, p) in a.standby.tasks() {
            if let Some(&o) = owner.get(&(s.to_string(), p)) {
                *pair.entry((o, process)).or_default() += 1;
                *total.entry(o).or_default() += 1;
            }
        }
    }
    let mut largest: BTreeMap<&str, usize> = BTreeMap::new();
    for (&(p, _), &n) in &pair {
        let l = largest.entry(p).or_default();
        *l = (*l).max(n);
    }
    let mut out = Vec::new();
    for (&p, &t) in &total {
        if actives.get(p).copied().unwrap_or(0) >= 8 && t > 0 {
            out.push(largest[p] as f64 / t as f64);
        }
    }
    out.sort_by(f64::total_cmp);
    let mutual = pair
        .iter()
        .filter(|(&(p, q), &n)| {
            p < q
                && n * 10 >= total[p] * 9
                && pair.get(&(q, p)).copied().unwrap_or(0) * 10
                    >= total.get(q).copied().unwrap_or(0) * 9
        })
        .count();
    (out, mutual)
}

/// The median and the largest of sorted figures.
pub fn median_max(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    (v[v.len() / 2], v[v.len() - 1])
}

/// How a group comes together through the coordinator.
#[derive(Clone, Copy, Debug)]
pub enum Path {
    /// Every member joins 1 ms apart before the first computation (interval 60 s): one cold
    /// computation.
    Cold,
    /// Joins 1 ms apart, computations at most every 50 ms: batches of about 50 members.
    Batched,
    /// A computation at every join (interval 0).
    JoinByJoin,
    /// The first member joins alone and gets every task; the others join 10 ms apart and one
    /// computation (interval 60 s) moves tasks off it.
    BehindALoneFirst,
    /// Formed batched; then one process's members stop (their sessions time out) and, once the
    /// group settled without them, come back under new member ids.
    AfterFailures,
}

pub const PATHS: [Path; 5] = [
    Path::Cold,
    Path::Batched,
    Path::JoinByJoin,
    Path::BehindALoneFirst,
    Path::AfterFailures,
];

/// A correct client's state, typed: its epoch and the task lists it owns.
#[derive(Clone, Debug, Default)]
pub struct TypedClient {
    pub epoch: i32,
    pub active: Vec<TaskIdsJson>,
    pub standby: Vec<TaskIdsJson>,
    pub warmup: Vec<TaskIdsJson>,
}

/// A group `g` driven by correct clients through a draft coordinator, through the typed API
/// (`Coordinator::handle`): what a formation costs is the coordinator's, not a JSON driver's
/// (each output of a join into a small group carries megabytes of target records).
pub struct Formation {
    pub c: Coordinator,
    pub now: i64,
    /// Member id -> (process, client); members that stopped are removed.
    pub clients: BTreeMap<String, (String, TypedClient)>,
    /// Heartbeats answered with an error, by code.
    pub errors: BTreeMap<i16, usize>,
    /// The last error answered.
    pub last_error: Option<String>,
    interval_ms: i32,
}

impl Formation {
    pub fn new(size: &Size, interval_ms: i32) -> Self {
        let tasks = (size.subtopologies * size.partitions) as i32;
        let config = Config {
            num_standby_replicas: 1,
            assignment_interval_ms: interval_ms,
            max_tasks: tasks.max(Config::default().max_tasks),
            // A computation rewrites the target of every member whose tasks change: in a
            // balanced group joined one by one, nearly all of them, about 10 bytes a task. Past
            // 1 MiB (Kafka's default `max.message.bytes` of `__consumer_offsets`, which bounds
            // its coordinator's batches as `maxRecordBatchBytes` bounds ours) every join fails
            // with UNKNOWN_SERVER_ERROR, in Kafka as here, and is retried for ever: 10,000
            // members on 100,000 tasks join by join need about 2 MiB a join from the 251st on.
            max_record_batch_bytes: (i64::from(tasks) * 2 * 16).max(1 << 20),
            ..Default::default()
        };
        let mut c = Coordinator::new(config).expect("a valid config");
        let mut topics = Vec::new();
        let mut topology = Vec::new();
        for s in 0..size.subtopologies {
            topics.push(json!({"name": format!("in-{s}"), "partitions": size.partitions}));
            topics.push(json!({"name": format!("chg-{s}"), "partitions": size.partitions}));
            topology.push(json!({"subtopologyId": format!("{s}"), "sourceTopics": [format!("in-{s}")],
                "stateChangelogTopics": [{"name": format!("chg-{s}"), "partitions": 0, "replicationFactor": 0, "topicConfigs": []}]}));
        }
        harness::send(
            &mut c,
            json!({"nowMs": 0, "type": "TopicMetadata", "topics": topics}),
        );
        let out = harness::send(
            &mut c,
            json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "g", "topologyId": "t", "topology": topology}}),
        );
        assert_eq!(out["response"]["errorCode"], 0, "{out}");
        Formation {
            c,
            now: 1,
            clients: BTreeMap::new(),
            errors: BTreeMap::new(),
            last_error: None,
            interval_ms,
        }
    }

    fn beat(&mut self, id: &str, join: Option<&str>) {
        let Some((_, cl)) = self.clients.get_mut(id) else {
            return;
        };
        let request = HeartbeatRequest {
            group_id: "g".into(),
            member_id: id.into(),
            member_epoch: cl.epoch,
            rebalance_timeout_ms: if join.is_some() { 600_000 } else { -1 },
            topology_id: join.map(|_| "t".into()),
            process_id: join.map(str::to_string),
            active_tasks: Some(cl.active.clone()),
            standby_tasks: Some(cl.standby.clone()),
            warmup_tasks: Some(cl.warmup.clone()),
            ..Default::default()
        };
        let input = Input {
            now_ms: self.now,
            kind: InputKind::StreamsGroupHeartbeat {
                client: ClientInfo::default(),
                request: Box::new(request),
            },
        };
        let out = self.c.handle(input).expect("a valid heartbeat");
        let Some(Response::Heartbeat(r)) = out.response else {
            panic!("a heartbeat answered without a heartbeat response");
        };
        match r.error_code {
            0 => {
                cl.epoch = r.member_epoch;
                if let (Some(a), Some(s), Some(w)) =
                    (r.active_tasks, r.standby_tasks, r.warmup_tasks)
                {
                    (cl.active, cl.standby, cl.warmup) = (a, s, w);
                }
            }
            code => {
                *self.errors.entry(code).or_default() += 1;
                self.last_error = r.error_message;
                if matches!(code, 110 | 25) {
                    *cl = TypedClient::default();
                }
            }
        }
    }

    /// A member joins now.
    pub fn join(&mut self, id: &str, process: &str) {
        self.clients.insert(
            id.to_string(),
            (process.to_string(), TypedClient::default()),
        );
        self.beat(id, Some(process));
    }

    /// Every member heartbeats, `step_ms` after the last round.
    pub fn round(&mut self, step_ms: i64) {
        self.now += step_ms;
        let ids: Vec<String> = self.clients.keys().cloned().collect();
        for id in ids {
            self.beat(&id, None);
        }
    }

    /// Members whose epoch is not the group's, and the group's state.
    pub fn progress(&self) -> (usize, String) {
        let Some(g) = self.c.group("g") else {
            return (0, "no group".into());
        };
        let behind = self
            .clients
            .values()
            .filter(|(_, cl)| cl.epoch != g.group_epoch)
            .count();
        (behind, format!("{:?}", self.c.group_state(g)))
    }

    pub fn stable(&self) -> bool {
        let Some(g) = self.c.group("g") else {
            return false;
        };
        self.c.group_state(g) == GroupState::Stable
            && g.members.len() == self.clients.len()
            && self
                .clients
                .values()
                .all(|(_, cl)| cl.epoch == g.group_epoch)
    }

    /// Rounds of heartbeats until the group is stable with every client in it; no heartbeat may
    /// have been answered with an error.
    pub fn settle(&mut self) {
        let step = (i64::from(self.interval_ms) + 1).min(5_000);
        for _ in 0..200 {
            assert!(
                self.errors.is_empty(),
                "heartbeats answered with errors {:?}, the last {:?}",
                self.errors,
                self.last_error
            );
            if self.stable() {
                return;
            }
            self.round(step);
        }
        panic!("the group did not settle by {}", self.now);
    }

    /// The members of `process` stop heartbeating; the others go on until their sessions
    /// time out and the group settles without them.
    pub fn fail(&mut self, process: &str) {
        self.clients.retain(|_, (p, _)| p != process);
        let until = self.now + 60_000;
        while self.now < until {
            self.round(5_000);
        }
        self.settle();
    }

    /// The stable members' assignments by process.
    pub fn targets(&self) -> BTreeMap<String, (String, Assignment)> {
        let g = self.c.group("g").expect("the group");
        g.members
            .iter()
            .map(|(id, m)| (id.clone(), (m.process_id().to_string(), m.assigned.clone())))
            .collect()
    }
}

/// Forms the group through a draft coordinator by `path`; the stable members' assignments by
/// process at each stage (one stage, or for [`Path::AfterFailures`]: formed, without the
/// failed process, with it back).
pub fn form_by(size: &Size, path: Path) -> Vec<BTreeMap<String, (String, Assignment)>> {
    let interval = match path {
        Path::Cold | Path::BehindALoneFirst => 60_000,
        Path::Batched | Path::AfterFailures => 50,
        Path::JoinByJoin => 0,
    };
    let mut f = Formation::new(size, interval);
    let process = |i: usize| format!("process-{:04}", i % size.processes);
    let mut first = 0;
    if let Path::BehindALoneFirst = path {
        f.join("member-00000", &process(0));
        f.settle();
        first = 1;
    }
    let spacing = if matches!(path, Path::BehindALoneFirst) {
        10
    } else {
        1
    };
    for i in first..size.members {
        f.join(&format!("member-{i:05}"), &process(i));
        f.now += spacing;
    }
    f.settle();
    let mut stages = vec![f.targets()];
    if let Path::AfterFailures = path {
        let lost = process(size.members / 2);
        let back: Vec<String> = f
            .clients
            .iter()
            .filter(|(_, (p, _))| *p == lost)
            .map(|(id, _)| id.clone())
            .collect();
        f.fail(&lost);
        stages.push(f.targets());
        for id in back {
            f.join(&format!("{id}-restarted"), &lost);
            f.now += 1;
        }
        f.settle();
        stages.push(f.targets());
    }
    stages
}

/// Forms the group through a draft coordinator with every join before the assignment interval
/// ends (`interval_ms` 60,000: cold; 50: batched; 0: join by join); the stable members'
/// assignments by process.
pub fn form(size: &Size, interval_ms: i32) -> BTreeMap<String, (String, Assignment)> {
    let path = match interval_ms {
        0 => Path::JoinByJoin,
        i if i < 60_000 => Path::Batched,
        _ => Path::Cold,
    };
    form_by(size, path).swap_remove(0)
}

//! Standby spread figures shared by `tests/standby_spread.rs` and `examples/standby_spread.rs`:
//! each process's actives' standbys per other process, and a group formed through a draft
//! coordinator by correct clients (docs/assignor.md, "Standby spread").
#![allow(dead_code)]

use std::collections::BTreeMap;

use serde_json::json;
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

/// Forms the group through a draft coordinator; the stable members' assignments by process.
pub fn form(size: &Size, interval_ms: i32) -> BTreeMap<String, (String, Assignment)> {
    let tasks = (size.subtopologies * size.partitions) as i32;
    let config = Config {
        num_standby_replicas: 1,
        assignment_interval_ms: interval_ms,
        max_tasks: tasks.max(Config::default().max_tasks),
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
    let mut now = 1i64;
    let mut clients: Vec<(String, harness::Client)> = Vec::new();
    let beat = |c: &mut Coordinator,
                now: i64,
                id: &str,
                cl: &mut harness::Client,
                join: Option<&str>| {
        let mut request = json!({"groupId": "g", "memberId": id, "memberEpoch": cl.epoch,
            "activeTasks": cl.owned["active"], "standbyTasks": cl.owned["standby"], "warmupTasks": cl.owned["warmup"]});
        if let Some(process) = join {
            request["topologyId"] = json!("t");
            request["processId"] = json!(process);
            request["rebalanceTimeoutMs"] = json!(600_000);
        }
        let out = harness::send(
            c,
            json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": request}),
        );
        cl.absorb(&out);
    };
    for i in 0..size.members {
        let id = format!("member-{i:05}");
        let mut cl = harness::Client {
            owned: json!({"active": [], "standby": [], "warmup": []}),
            ..Default::default()
        };
        beat(
            &mut c,
            now,
            &id,
            &mut cl,
            Some(&format!("process-{:04}", i % size.processes)),
        );
        clients.push((id, cl));
        now += 1;
    }
    for _ in 0..100 {
        if c.group("g").map(|g| c.group_state(g)) == Some(GroupState::Stable) {
            break;
        }
        now += (i64::from(interval_ms) + 1).min(5_000);
        for (id, cl) in clients.iter_mut() {
            beat(&mut c, now, id, cl, None);
        }
    }
    let g = c.group("g").expect("the group");
    assert_eq!(
        c.group_state(g),
        GroupState::Stable,
        "the group did not settle"
    );
    g.members
        .iter()
        .map(|(id, m)| (id.clone(), (m.process_id().to_string(), m.assigned.clone())))
        .collect()
}

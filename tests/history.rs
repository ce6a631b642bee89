//! Post-mortems from a log (`history`, `sgc history`): every scenario's records are written
//! the way Kafka's `kafka-dump-log.sh --offsets-decoder` prints them (string `type` and
//! `version`, `<DELETE>` for tombstones, one batch per coordinator write, `CreateTime` = the
//! input's `nowMs`) and as a raw log segment; the history told from them alone must agree with
//! what the scenario's inputs and the coordinator's `explain` say happened. The `sgc history`
//! command is tested with the CLI (`crates/sgc-cli/tests/history.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use streams_group_coordinator::history::{parse_log, tell};
use streams_group_coordinator::Dialect;

#[path = "common/logs.rs"]
mod logs;
use logs::{dump_log, run, segment, Run};

fn scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// History events of `code`, per group, in order.
fn events<'a>(history: &'a Value, code: &str) -> Vec<&'a Value> {
    history["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["events"].as_array().unwrap())
        .filter(|e| e["code"] == code)
        .collect()
}

fn explained<'a>(run: &'a Run, code: &str) -> Vec<(usize, &'a Value)> {
    run.outputs
        .iter()
        .enumerate()
        .flat_map(|(i, o)| {
            o["explain"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(move |e| {
                    e["code"] == code && o["records"].as_array().is_some_and(|r| !r.is_empty())
                })
                .map(move |e| (i, e))
        })
        .collect()
}

/// Stable-sorted by group: the history tells group by group, explain interleaves them.
fn by_group<T: Clone>(mut v: Vec<T>, gid: impl Fn(&T) -> String) -> Vec<T> {
    v.sort_by_key(|x| gid(x));
    v
}

/// The reasons the records can show for an `explain` reason.
fn seen_reason(r: &str) -> &str {
    match r {
        "MEMBER_LEFT" | "MEMBER_FENCED" => "MEMBER_LEFT_OR_FENCED",
        // Only the heartbeat's task offsets (memory, not records) show a warm-up caught up.
        "MANUAL_ASSIGNMENT" | "WARMUP_CAUGHT_UP" => "UNKNOWN",
        other => other,
    }
}

/// The history told from `log_bytes` agrees with the scenario's inputs and explanations.
fn check(run: &Run, log_bytes: &[u8], what: &str) -> Result<(), String> {
    let mut log = parse_log(log_bytes, None).map_err(|e| format!("{what}: {e}"))?;
    // The releases share one record layout, which the reader names `kafka-4.2`.
    if log.dialect.is_kafka() != run.dialect.is_kafka() {
        return Err(format!("{what}: guessed dialect {:?}", log.dialect));
    }
    // A 4.3 or 4.4 log none of whose records shows a later release (every computation at
    // time 0 writes `AssignmentTimestamp` 0, the tag's default) reads as 4.2, and 4.4's settling
    // of a group its last member left (type 20, timestamp 0) would be told as a computation: it
    // is told as its release, as `sgc history --dialect` tells it.
    if log.dialect == Dialect::Kafka42 && matches!(run.dialect, Dialect::Kafka43 | Dialect::Kafka44)
    {
        log = parse_log(log_bytes, Some(run.dialect)).map_err(|e| format!("{what}: {e}"))?;
    }
    let written: usize = run
        .outputs
        .iter()
        .map(|o| o["records"].as_array().map_or(0, Vec::len))
        .sum();
    if log.records.len() != written {
        return Err(format!(
            "{what}: read {} of {written} records",
            log.records.len()
        ));
    }
    let h = tell(&log);
    let fail = |m: String| {
        Err(format!(
            "{what}: {m}\n{}",
            serde_json::to_string_pretty(&h).unwrap()
        ))
    };

    // Epoch bumps: the same steps, in order, with the reasons the records can show.
    let want: Vec<(Value, Value, Value, BTreeSet<String>)> = explained(run, "GROUP_EPOCH_BUMPED")
        .into_iter()
        .map(|(_, e)| {
            let reasons = e["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| seen_reason(r.as_str().unwrap()).to_string())
                .collect();
            // From Kafka 4.3 a new group starts at epoch 1 in memory, which no record shows:
            // the told history starts it at 0.
            let from = match &e["from"] {
                Value::Number(n) if n.as_i64() == Some(1) && run.dialect.is_kafka() => json!(0),
                other => other.clone(),
            };
            (e["groupId"].clone(), from, e["to"].clone(), reasons)
        })
        .collect();
    let got: Vec<(Value, Value, Value, BTreeSet<String>)> = events(&h, "GROUP_EPOCH_BUMPED")
        .into_iter()
        .map(|e| {
            let reasons = e["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| match r.as_str().unwrap() {
                    // A static member that left with -2 and was then removed: the records show
                    // its session timeout, which explain calls MEMBER_FENCED.
                    "MEMBER_FENCED" => "MEMBER_LEFT_OR_FENCED".to_string(),
                    x => x.to_string(),
                })
                .collect();
            (
                e["groupId"].clone(),
                e["from"].clone(),
                e["to"].clone(),
                reasons,
            )
        })
        .collect();
    let got = by_group(got, |x| x.0.to_string());
    let want = by_group(want, |x| x.0.to_string());
    if want != got {
        return fail(format!(
            "epoch bumps differ:\n want {want:?}\n got  {got:?}"
        ));
    }

    // Members who joined: the heartbeats with epoch 0 that created a member (not a static
    // member's replacement, not a rejoin of a member the group still has).
    let mut members: BTreeSet<(String, String)> = BTreeSet::new();
    let mut joined = Vec::new();
    for (i, (input, out)) in run.inputs.iter().zip(&run.outputs).enumerate() {
        for (_, e) in explained(run, "MEMBER_FENCED")
            .iter()
            .filter(|(j, _)| *j == i)
        {
            members.remove(&(
                e["groupId"].as_str().unwrap().to_string(),
                e["memberId"].as_str().unwrap().to_string(),
            ));
        }
        if input["type"] == "StreamsGroupHeartbeat"
            && input["request"]["memberEpoch"] == 0
            && out["response"]["errorCode"] == 0
        {
            let gid = input["request"]["groupId"].as_str().unwrap().to_string();
            let mid = out["response"]["memberId"].as_str().unwrap().to_string();
            let replaced = out["explain"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["code"] == "STATIC_MEMBER_REPLACED");
            if replaced {
                members.insert((gid, mid));
            } else if members.insert((gid.clone(), mid.clone())) {
                joined.push((gid, mid));
            }
        }
        if out["explain"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["code"] == "GROUP_DELETED")
        {
            members.clear();
        }
    }
    let told: Vec<(String, String)> = events(&h, "MEMBER_JOINED")
        .into_iter()
        .map(|e| {
            (
                e["groupId"].as_str().unwrap().to_string(),
                e["memberId"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let joined = by_group(joined, |x| x.0.clone());
    let told = by_group(told, |x| x.0.clone());
    if told != joined {
        return fail(format!("joins differ:\n want {joined:?}\n got  {told:?}"));
    }

    // Members removed: the ones explain says were fenced or left; a cause only where the
    // records show one.
    let fenced = by_group(explained(run, "MEMBER_FENCED"), |x| {
        x.1["groupId"].to_string()
    });
    let want: Vec<(Value, Value)> = fenced
        .iter()
        .map(|(_, e)| (e["groupId"].clone(), e["memberId"].clone()))
        .collect();
    let removed = by_group(events(&h, "MEMBER_REMOVED"), |x| x["groupId"].to_string());
    let got: Vec<(Value, Value)> = removed
        .iter()
        .map(|e| (e["groupId"].clone(), e["memberId"].clone()))
        .collect();
    if want != got {
        return fail(format!("removals differ:\n want {want:?}\n got  {got:?}"));
    }
    for (e, (_, x)) in removed.iter().zip(fenced) {
        if e["cause"] != "UNKNOWN" && e["cause"] != x["cause"] {
            return fail(format!(
                "removal cause {} but explain says {}",
                e["cause"], x["cause"]
            ));
        }
    }

    // Static replacements.
    let want: Vec<Value> = by_group(explained(run, "STATIC_MEMBER_REPLACED"), |x| {
        x.1["groupId"].to_string()
    })
    .into_iter()
    .map(|(_, e)| json!([e["instanceId"], e["oldMemberId"], e["newMemberId"]]))
    .collect();
    let got: Vec<Value> = by_group(events(&h, "STATIC_MEMBER_REPLACED"), |x| {
        x["groupId"].to_string()
    })
    .into_iter()
    .map(|e| json!([e["instanceId"], e["oldMemberId"], e["newMemberId"]]))
    .collect();
    if want != got {
        return fail(format!(
            "replacements differ:\n want {want:?}\n got  {got:?}"
        ));
    }

    // Target assignments: epoch, tasks moved and orphaned tasks reassigned.
    let want: Vec<Value> = by_group(explained(run, "TARGET_ASSIGNMENT_COMPUTED"), |x| {
        x.1["groupId"].to_string()
    })
    .into_iter()
    .map(|(_, e)| {
        json!([
            e["groupId"],
            e["assignmentEpoch"],
            e["tasksMoved"],
            e["tasksReassigned"]
        ])
    })
    .collect();
    let got: Vec<Value> = by_group(events(&h, "TARGET_ASSIGNMENT_COMPUTED"), |x| {
        x["groupId"].to_string()
    })
    .into_iter()
    .map(|e| {
        json!([
            e["groupId"],
            e["assignmentEpoch"],
            e["tasksMoved"],
            e["tasksReassigned"]
        ])
    })
    .collect();
    if want != got {
        return fail(format!(
            "target assignments differ:\n want {want:?}\n got  {got:?}"
        ));
    }

    // Reconciliations: each one happened at a heartbeat of that member whose response put it
    // at that epoch, and took the time from the input that computed the target.
    if log.records.iter().all(|r| r.timestamp_ms.is_some()) {
        // (group, epoch) -> the steps that computed a target for it (a recreated group
        // computes its epochs again).
        let mut target_at: BTreeMap<(String, i64), Vec<usize>> = BTreeMap::new();
        for (i, e) in explained(run, "TARGET_ASSIGNMENT_COMPUTED") {
            target_at
                .entry((
                    e["groupId"].as_str().unwrap().to_string(),
                    e["assignmentEpoch"].as_i64().unwrap(),
                ))
                .or_default()
                .push(i);
        }
        // Record index -> step.
        let mut step_of = Vec::new();
        for (i, o) in run.outputs.iter().enumerate() {
            for _ in o["records"].as_array().into_iter().flatten() {
                step_of.push(i);
            }
        }
        for e in events(&h, "MEMBER_RECONCILED") {
            let step = step_of[e["index"].as_u64().unwrap() as usize];
            let input = &run.inputs[step];
            let res = &run.outputs[step]["response"];
            let epoch = e["memberEpoch"].as_i64().unwrap();
            let by_heartbeat = input["type"] == "StreamsGroupHeartbeat"
                && res["memberId"] == e["memberId"]
                && res["memberEpoch"].as_i64() == Some(epoch);
            if !by_heartbeat {
                return fail(format!(
                    "{e} is not at a heartbeat of that member answered with epoch {epoch}"
                ));
            }
            let gid = e["groupId"].as_str().unwrap().to_string();
            let computed = target_at
                .get(&(gid, epoch))
                .and_then(|steps| steps.iter().rev().find(|&&i| i <= step));
            // From 4.3 a new group starts at assignment epoch 1 with an empty assignment
            // (KAFKA-20268) that no record computes: a member may reconcile to it.
            let initial = epoch == 1 && matches!(run.dialect, Dialect::Kafka43 | Dialect::Kafka44);
            if computed.is_none() && initial {
                continue;
            }
            let Some(t0) = computed.map(|&i| run.inputs[i]["nowMs"].as_i64().unwrap()) else {
                return fail(format!("{e}: no target was computed for epoch {epoch}"));
            };
            if e["tookMs"].as_i64() != Some(input["nowMs"].as_i64().unwrap() - t0) {
                return fail(format!(
                    "{e}: took {} ms, the inputs say {}",
                    e["tookMs"],
                    input["nowMs"].as_i64().unwrap() - t0
                ));
            }
        }
    }

    // Transactions: each end marker that completed a group's pending offsets is told there,
    // committing (all but the superseded ones, as explain's `committed`) or dropping them.
    let want: Vec<Value> = by_group(
        run.outputs
            .iter()
            .flat_map(|o| o["explain"].as_array().into_iter().flatten())
            .filter(|e| e["code"] == "TRANSACTION_COMPLETED")
            .map(|e| {
                json!([
                    e["groupId"],
                    e["producerId"],
                    e["result"],
                    e["partitions"],
                    e["committed"]
                ])
            })
            .collect(),
        |x| x[0].to_string(),
    );
    let count = |e: &Value, k: &str| e[k].as_array().map_or(0, Vec::len);
    let got: Vec<Value> = by_group(
        events(&h, "OFFSETS_COMMITTED")
            .into_iter()
            .filter(|e| e["transactional"] == true)
            .map(|e| {
                let committed = count(e, "partitions");
                let all = committed + count(e, "superseded");
                json!([e["groupId"], e["producerId"], "COMMIT", all, committed])
            })
            .chain(
                events(&h, "TRANSACTIONAL_OFFSETS_ABORTED")
                    .into_iter()
                    .map(|e| {
                        json!([
                            e["groupId"],
                            e["producerId"],
                            "ABORT",
                            count(e, "partitions"),
                            0
                        ])
                    }),
            )
            .collect(),
        |x| x[0].to_string(),
    );
    let sorted = |v: Vec<Value>| {
        let mut v = v;
        v.sort_by_key(|x| x.to_string());
        v
    };
    if sorted(want.clone()) != sorted(got.clone()) {
        return fail(format!(
            "completed transactions differ:\n want {want:?}\n got  {got:?}"
        ));
    }
    Ok(())
}

#[test]
fn history_from_kafka_dump_log_text_and_raw_segments_of_every_scenario() {
    let mut checked = 0;
    let mut k42 = 0;
    let mut failures = Vec::new();
    for path in scenarios() {
        let Some(run) = run(&path) else { continue };
        let text = dump_log(&run);
        if let Err(e) = check(
            &run,
            text.as_bytes(),
            &format!("{} (dump-log text)", run.name),
        ) {
            failures.push(e);
        }
        if let Err(e) = check(&run, &segment(&run), &format!("{} (raw segment)", run.name)) {
            failures.push(e);
        }
        checked += 1;
        if run.dialect == Dialect::Kafka42 {
            k42 += 1;
        }
    }
    assert!(
        checked >= 30 && k42 >= 10,
        "{checked} scenarios, {k42} of kafka-4.2"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A larger group's life in both dialects, written by simulated clients: 40 members (a third
/// static) on 8 processes join and reconcile, ten leave (the static ones for a while, -2), three
/// of those come back under new member ids, the others time out. Its history, told from the
/// dump-log text and from the raw segment, must agree with the coordinator's `explain` as every
/// scenario's does: the targets' moved and reassigned tasks among it.
#[test]
fn history_of_a_generated_group_life_agrees_with_explain() {
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let run = generated_run(dialect);
        let reassigned: i64 = run
            .outputs
            .iter()
            .flat_map(|o| o["explain"].as_array().into_iter().flatten())
            .filter_map(|e| e["tasksReassigned"].as_i64())
            .sum();
        assert!(reassigned > 0, "the run reassigns departed members' tasks");
        check(&run, dump_log(&run).as_bytes(), &run.name).unwrap();
        check(&run, &segment(&run), &run.name).unwrap();
    }
}

/// A simulated member: id, epoch, the task lists it owns (as it reports them), its static
/// instance id, and whether it still runs.
struct Sim {
    id: String,
    epoch: i64,
    owned: Value,
    instance: Option<String>,
    process: usize,
    running: bool,
}

/// A coordinator and what went in and came out.
struct Life {
    c: streams_group_coordinator::Coordinator,
    dialect: Dialect,
    now: i64,
    inputs: Vec<Value>,
    outputs: Vec<Value>,
}

const SUBTOPOLOGIES: &str = r#"[
    {"subtopologyId": "0", "sourceTopics": ["a"], "sourceTopicRegex": [], "stateChangelogTopics": [],
     "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []},
    {"subtopologyId": "1", "sourceTopics": ["b"], "sourceTopicRegex": [], "stateChangelogTopics": [],
     "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]"#;

impl Life {
    fn send(&mut self, mut input: Value) -> Value {
        input["nowMs"] = json!(self.now);
        let out: Value = serde_json::from_str(&self.c.handle_json(&input.to_string())).unwrap();
        self.inputs.push(input);
        self.outputs.push(out.clone());
        out
    }

    /// A member's heartbeat, and what a correct client makes of the answer.
    fn beat(&mut self, m: &mut Sim, request: Value) {
        self.now += 10;
        let out = self.send(json!({"type": "StreamsGroupHeartbeat", "request": request}));
        let r = &out["response"];
        if r["errorCode"] == 0 {
            m.epoch = r["memberEpoch"].as_i64().unwrap_or(0);
            if r["activeTasks"].is_array() {
                m.owned = json!({"activeTasks": r["activeTasks"], "standbyTasks": r["standbyTasks"], "warmupTasks": r["warmupTasks"]});
            }
        } else {
            m.epoch = 0;
        }
    }

    fn join(&mut self, m: &mut Sim) {
        let mut r = json!({"groupId": "g", "memberId": m.id, "memberEpoch": 0,
            "processId": format!("p{}", m.process), "rebalanceTimeoutMs": 300000,
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
        let subtopologies: Value = serde_json::from_str(SUBTOPOLOGIES).unwrap();
        if self.dialect == Dialect::Kafka42 {
            r["endpointInformationEpoch"] = json!(-1);
            r["topology"] = json!({"epoch": 0, "subtopologies": subtopologies});
        } else {
            r["topologyId"] = json!("t");
        }
        if let Some(instance) = &m.instance {
            r["instanceId"] = json!(instance);
        }
        self.beat(m, r);
    }

    /// Six heartbeats of every running member (a member without an epoch joins again).
    fn rounds(&mut self, members: &mut [Sim]) {
        for _ in 0..6 {
            self.now += 100;
            for m in members.iter_mut().filter(|m| m.running) {
                if m.epoch == 0 {
                    self.join(m);
                    continue;
                }
                let mut r = json!({"groupId": "g", "memberId": m.id, "memberEpoch": m.epoch});
                if let Some(owned) = m.owned.as_object() {
                    for (k, v) in owned {
                        r[k] = v.clone();
                    }
                }
                self.beat(m, r);
            }
        }
    }
}

/// The inputs and outputs of [`history_of_a_generated_group_life_agrees_with_explain`].
fn generated_run(dialect: Dialect) -> Run {
    let config = json!({"dialect": dialect.name(), "recordBytes": true,
        "group.streams.num.standby.replicas": 1, "group.streams.initial.rebalance.delay.ms": 0});
    let mut life = Life {
        c: streams_group_coordinator::Coordinator::from_json_config(&config).unwrap(),
        dialect,
        now: 0,
        inputs: Vec::new(),
        outputs: Vec::new(),
    };
    life.send(json!({"type": "TopicMetadata", "deletedTopics": [],
        "topics": [{"name": "a", "partitions": 24}, {"name": "b", "partitions": 24}]}));
    let sim = |id: String, instance: Option<String>, process: usize| Sim {
        id,
        epoch: 0,
        owned: Value::Null,
        instance,
        process,
        running: true,
    };
    let mut members: Vec<Sim> = (0..40)
        .map(|i| {
            sim(
                format!("m{i:02}"),
                (i % 3 == 0).then(|| format!("i{i}")),
                i % 8,
            )
        })
        .collect();
    for (i, m) in members.iter_mut().enumerate() {
        life.join(m);
        if i == 0 && dialect == Dialect::Kip1071Draft {
            let topology: Value = serde_json::from_str(SUBTOPOLOGIES).unwrap();
            life.send(
                json!({"type": "StreamsGroupInitialize", "request": {"groupId": "g",
                "topologyId": "t", "topology": topology}}),
            );
        }
    }
    life.rounds(&mut members);
    // Ten leave: dynamic members for good (-1), static ones for a while (-2).
    for m in members.iter_mut().take(10) {
        let epoch = if m.instance.is_some() { -2 } else { -1 };
        let mut r = json!({"groupId": "g", "memberId": m.id, "memberEpoch": epoch});
        if let Some(instance) = &m.instance {
            r["instanceId"] = json!(instance);
        }
        life.beat(m, r);
        m.running = false;
    }
    life.rounds(&mut members);
    // Three static members come back under new ids; the fourth times out.
    let mut back: Vec<Sim> = members
        .iter()
        .take(10)
        .filter(|m| m.instance.is_some())
        .take(3)
        .map(|m| sim(format!("{}-again", m.id), m.instance.clone(), m.process))
        .collect();
    for m in back.iter_mut() {
        life.join(m);
    }
    members.extend(back);
    life.rounds(&mut members);
    // The running members heartbeat on; the one that did not come back times out.
    for _ in 0..4 {
        life.now += 20_000;
        life.send(json!({"type": "AdvanceTime"}));
        life.rounds(&mut members);
    }
    Run {
        name: format!("generated group life ({})", dialect.name()),
        dialect,
        inputs: life.inputs,
        outputs: life.outputs,
    }
}

/// The k44-static-membership story (static members arrived in Kafka 4.4), told: the told
/// history names its events in order, and the log is found to be 4.4's by its static members.
#[test]
fn history_of_a_kafka_44_group_with_static_members_in_words() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/k44-static-membership.json");
    let run = run(&path).unwrap();
    let h = tell(&parse_log(dump_log(&run).as_bytes(), None).unwrap());
    let codes: Vec<&str> = h["groups"][0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .filter(|c| !c.ends_with("STATE_CHANGED") && *c != "MEMBER_RECONCILED")
        .collect();
    assert_eq!(
        codes,
        [
            "MEMBER_JOINED",
            "TOPOLOGY_STORED",
            "GROUP_EPOCH_BUMPED",
            "TARGET_ASSIGNMENT_COMPUTED",
            "MEMBER_JOINED",
            "GROUP_EPOCH_BUMPED",
            "TARGET_ASSIGNMENT_COMPUTED",
            "STATIC_MEMBER_LEFT_TEMPORARILY",
            "STATIC_MEMBER_REPLACED",
            "STATIC_MEMBER_LEFT_TEMPORARILY",
            "MEMBER_REMOVED",
            "GROUP_EPOCH_BUMPED",
            "TARGET_ASSIGNMENT_COMPUTED",
        ]
    );
    assert_eq!(h["dialect"], "kafka-4.4");
    // The replacement left with -2 too and did not come back: the records show that cause.
    let removed = by_group(events(&h, "MEMBER_REMOVED"), |x| x["groupId"].to_string());
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0]["cause"], "SESSION_TIMEOUT");
}

/// Offset commits from a Kafka dump and a raw segment alike: a run of records at one commit time
/// is one event, each partition with the member that held its task as active and its epoch;
/// the tombstones of the expiry are told as removals.
#[test]
fn history_tells_offset_commits_with_their_task_holders() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/k42-offsets-commit.json");
    let run = run(&path).unwrap();
    for log in [dump_log(&run).into_bytes(), segment(&run)] {
        let h = tell(&parse_log(&log, Some(Dialect::Kafka42)).unwrap());
        let commits = events(&h, "OFFSETS_COMMITTED");
        let held: Vec<&Value> = commits
            .iter()
            .flat_map(|e| e["partitions"].as_array().unwrap())
            .filter(|p| p["taskHolder"].is_string())
            .collect();
        assert!(!held.is_empty(), "{commits:?}");
        assert!(held.iter().all(|p| p["memberEpoch"].as_i64() > Some(0)));
        let pair = commits
            .iter()
            .find(|e| e["partitions"].as_array().unwrap().len() == 2)
            .expect("a commit of two partitions as one event");
        assert!(pair["text"]
            .as_str()
            .unwrap()
            .starts_with("Offsets committed: in-0 at 10"));
    }
}

/// Transactional offset commits from a Kafka dump, a raw segment and `sgc`'s outputs alike:
/// written as pending for their producer, committed at its end marker, and the run's still
/// open transactions told at the end.
#[test]
fn history_tells_transactional_offsets_at_their_markers_in_every_form() {
    for name in ["k44-txn-offset-commit", "k42-txn-expiry"] {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/scenarios/{name}.json"));
        let run = run(&path).unwrap();
        let outputs: String = run
            .inputs
            .iter()
            .zip(&run.outputs)
            .map(|(i, o)| {
                let mut o = o.clone();
                o["nowMs"] = i["nowMs"].clone();
                logs::compact(&o) + "\n"
            })
            .collect();
        let mut told = Vec::new();
        for log in [
            dump_log(&run).into_bytes(),
            segment(&run),
            outputs.into_bytes(),
        ] {
            let h = tell(&parse_log(&log, None).unwrap());
            let written = events(&h, "TRANSACTIONAL_OFFSETS_WRITTEN");
            let committed: Vec<&Value> = events(&h, "OFFSETS_COMMITTED")
                .into_iter()
                .filter(|e| e["transactional"] == true)
                .collect();
            let aborted = events(&h, "TRANSACTIONAL_OFFSETS_ABORTED");
            assert!(!written.is_empty(), "{name}: {h}");
            assert!(!committed.is_empty() || !aborted.is_empty(), "{name}: {h}");
            assert!(committed.iter().all(|e| e["producerId"].is_i64()));
            let pending: Vec<Value> = events(&h, "TRANSACTIONAL_OFFSETS_PENDING")
                .into_iter()
                .map(|e| json!([e["producerId"], e["partitions"]]))
                .collect();
            told.push((written.len(), committed.len(), aborted.len(), pending));
        }
        assert!(told.windows(2).all(|w| w[0] == w[1]), "{name}: {told:?}");
    }
}

/// Malformed logs never panic: every truncation and many byte flips of a real segment and of a
/// dump-log text are either read or refused with an error.
#[test]
fn history_never_panics_on_damaged_logs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let seg = segment(&run);
    let text = dump_log(&run).into_bytes();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for bytes in [&seg, &text] {
        for cut in (0..bytes.len()).step_by(7) {
            if let Ok(log) = parse_log(&bytes[..cut], None) {
                let _ = tell(&log);
            }
        }
        for _ in 0..400 {
            let mut b = bytes.clone();
            for _ in 0..3 {
                let i = (next() as usize) % b.len();
                b[i] = (next() & 0xff) as u8;
            }
            if let Ok(log) = parse_log(&b, None) {
                let _ = tell(&log);
            }
        }
    }
}

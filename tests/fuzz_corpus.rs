//! The fuzz targets' seed corpus (`fuzz/seeds/<target>/`) and every past crash
//! (`fuzz/regressions/<target>/`), replayed on stable Rust through the same bodies the
//! cargo-fuzz targets run (`fuzz/src/lib.rs`).
//!
//! The seeds are generated from `tests/scenarios/*.json`:
//! `SGC_WRITE_FUZZ_SEEDS=1 cargo test --test fuzz_corpus seed_corpus` (`make fuzz-seeds`)
//! rewrites them.

#[path = "../fuzz/src/lib.rs"]
mod bodies;

use std::collections::BTreeMap;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::Value;
use streams_group_coordinator::records::{encode_key, encode_value};
use streams_group_coordinator::{wire, Config, Coordinator, Dialect, Input};

type Body = fn(&[u8]);

const TARGETS: &[(&str, Body)] = &[
    ("frames", bodies::frames),
    ("handle_json", bodies::handle_json),
    ("handle_json_lines", bodies::handle_json_lines),
    ("handle_ops", bodies::handle_ops),
    ("record_bytes", bodies::record_bytes),
    ("settings", bodies::settings),
];

/// Targets whose bodies the core does not know, replayed by their own crate's test.
const ELSEWHERE: &[(&str, &str)] = &[("wasi_abi", "crates/sgc-wasi/tests/fuzz_corpus.rs")];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Runs `body` on every file of `dir`; the failures, by file.
fn replay_dir(body: Body, dir: &Path) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let all = files(dir);
    for path in &all {
        let data = fs::read(path).expect("readable corpus file");
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| body(&data))) {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    (all.len(), failures)
}

#[test]
fn seeds_and_past_crashes_replay_cleanly() {
    let mut failures = Vec::new();
    for (target, body) in TARGETS {
        let (seeds, mut f) = replay_dir(*body, &fuzz_dir().join("seeds").join(target));
        assert!(seeds > 0, "no seeds for fuzz target {target}");
        failures.append(&mut f);
        let (_, mut f) = replay_dir(*body, &fuzz_dir().join("regressions").join(target));
        failures.append(&mut f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fuzz_target_has_a_body_here() {
    let dir = fuzz_dir().join("fuzz_targets");
    let mut names: Vec<String> = files(&dir)
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut known: Vec<String> = TARGETS
        .iter()
        .map(|(t, _)| t.to_string())
        .chain(ELSEWHERE.iter().map(|(t, _)| t.to_string()))
        .collect();
    known.sort();
    assert_eq!(names, known, "add the new target's body to TARGETS");
    for (target, test) in ELSEWHERE {
        let test = Path::new(env!("CARGO_MANIFEST_DIR")).join(test);
        assert!(test.is_file(), "{target}: {} is missing", test.display());
    }
}

#[test]
fn populated_bases_have_topics_a_topology_and_several_members() {
    let bases = bodies::bases();
    assert_eq!(bases.len(), 4 + bodies::BASE_SCENARIOS.len());
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        bodies::populated_base(dialect);
    }
    for base in &bases[2..] {
        let c = &base.harness.live;
        assert!(!c.topics().is_empty(), "{}: no topics", base.name);
        let g = c
            .group("g")
            .unwrap_or_else(|| panic!("{}: no group g", base.name));
        assert!(g.topology.is_some(), "{}: no topology", base.name);
        assert!(
            g.members.len() >= 2,
            "{}: {} member(s)",
            base.name,
            g.members.len()
        );
    }
}

/// The harness notices a boundary error that changes state: a `Replay` refused after due
/// timers fired is the one known case (issue 16, item 1), reported as such rather than hidden.
#[test]
fn harness_reports_the_known_replay_after_timers_defect() {
    let mut h = bodies::Harness::new(
        &serde_json::json!({"dialect": "kafka-4.2", "group.streams.initial.rebalance.delay.ms": 3000}),
    );
    let sub = r#"{"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]}"#;
    let lines = [
        r#"{"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 2}]}"#
            .to_string(),
        format!(
            r#"{{"nowMs": 1000, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": "m1", "memberEpoch": 0, "endpointInformationEpoch": -1, "topology": {sub}, "processId": "p1", "rebalanceTimeoutMs": 30000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}}}"#
        ),
        // A second member configures the stored group (the creating join's configuration is
        // not kept, as in Kafka), so that the delay computes when it fires.
        format!(
            r#"{{"nowMs": 2000, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": "m2", "memberEpoch": 0, "endpointInformationEpoch": -1, "topology": {sub}, "processId": "p2", "rebalanceTimeoutMs": 30000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}}}"#
        ),
    ];
    for line in &lines {
        assert_eq!(h.feed(line), bodies::Fed::Checked, "{line}");
    }
    let before = h.live.clone();
    let replay = r#"{"nowMs": 5000, "type": "Replay", "records": [{"key": {"type": 20, "data": {"groupId": "g"}}, "value": null}]}"#;
    // The refused input changed nothing, the due timers included.
    assert_eq!(h.feed(replay), bodies::Fed::Checked);
    assert!(bodies::same_state(&before, &h.live));
}

/// The shadow check is live: a shadow that missed records makes the next output fail it.
#[test]
fn harness_notices_a_shadow_that_missed_records() {
    let base = &bodies::bases()[2];
    assert!(base.name.starts_with("crafted"));
    let mut h = base.harness.clone();
    h.shadow =
        Coordinator::from_json_config(&bodies::crafted_config(Dialect::Kip1071Draft)).unwrap();
    let describe =
        r#"{"nowMs": 20000, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}"#;
    let result = catch_unwind(AssertUnwindSafe(|| h.feed(describe)));
    let message = result.expect_err("a desynchronised shadow went unnoticed");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        message.contains("does not rebuild the live groups"),
        "{message}"
    );
}

/// The op generator reaches real states: two members join, get tasks, and reconcile.
#[test]
fn ops_reconcile_two_members() {
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        let mut h = bodies::Harness::new(
            &serde_json::json!({"dialect": dialect.name(), "group.streams.initial.rebalance.delay.ms": 0}),
        );
        // Topics `in` and the changelog with 6 partitions, the repartition topic with 3, `m2`
        // and `m3` join, the topology (draft), then rounds of acknowledging heartbeats.
        let mut ops = vec![5, 20, 5, 21, 5, 10, 0, 2, 0, 3, 8, 0];
        for _ in 0..6 {
            ops.extend([2, 2, 2, 3]);
        }
        bodies::run_ops(&mut h, &ops);
        let g = h.live.group("g").expect("group g");
        assert_eq!(g.members.len(), 2, "{dialect:?}");
        assert!(g.assignment_epoch > 0, "{dialect:?}");
        let mut tasks = 0;
        for m in g.members.values() {
            assert!(m.is_reconciled_to(g.assignment_epoch), "{dialect:?}: {m:?}");
            let n: usize = m.assigned.active.values().map(|p| p.len()).sum();
            assert!(n > 0, "{dialect:?}: {m:?}");
            tasks += n;
        }
        assert_eq!(tasks, 9, "{dialect:?}: 6 tasks of subtopology 0, 3 of 1");
    }
}

#[test]
fn harness_skips_partition_counts_beyond_the_fed_limit() {
    let mut h = bodies::Harness::new(&Value::Null);
    let big = format!(
        r#"{{"nowMs": 0, "type": "TopicMetadata", "topics": [{{"name": "in", "partitions": {}}}]}}"#,
        bodies::MAX_FED_PARTITIONS + 1
    );
    assert_eq!(h.feed(&big), bodies::Fed::Skipped);
    assert!(h.live.topics().is_empty());
    let small = big.replace(&(bodies::MAX_FED_PARTITIONS + 1).to_string(), "3");
    assert_eq!(h.feed(&small), bodies::Fed::Checked);
    assert_eq!(h.live.topics()["in"].partitions, 3);
}

// ---------------------------------------------------------------------------------------------
// The seed corpus

/// Largest seed file of the `handle_json` target.
const MAX_SEED_BYTES: usize = 1024;
/// Largest seed file of the `handle_json_lines` target.
const MAX_LINES_SEED_BYTES: usize = 1536;
/// `handle_json` seeds taken from one scenario.
const INPUTS_PER_SCENARIO: usize = 12;
/// Record seeds taken from one scenario.
const RECORDS_PER_SCENARIO: usize = 24;

fn scenarios() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    files(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = fs::read_to_string(&p).unwrap();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

fn inputs(scenario: &Value) -> Vec<String> {
    scenario["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["input"].to_string())
        .collect()
}

/// The seeds of every target, by target, as file name -> content.
fn generate_seeds() -> BTreeMap<&'static str, BTreeMap<String, Vec<u8>>> {
    let bases = bodies::bases();
    let populated = |d: Dialect| -> Vec<u8> {
        (0..bases.len())
            .filter(|&i| {
                let c = &bases[i].harness.live;
                c.config().dialect == d && !c.groups().is_empty()
            })
            .map(|i| u8::try_from(i).unwrap())
            .collect()
    };
    let mut seeds: BTreeMap<&'static str, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    let mut add = |target: &'static str, name: String, data: Vec<u8>| {
        let files = seeds.entry(target).or_default();
        if !files.values().any(|d| *d == data) {
            files.insert(name, data);
        }
    };
    for (name, scenario) in scenarios() {
        let config = Config::from_json(&scenario["config"]).expect("scenario config");
        // The releases share one input shape: later releases' scenarios seed the 4.2 bases.
        let dialect = match config.dialect {
            Dialect::Kip1071Draft => Dialect::Kip1071Draft,
            _ => Dialect::Kafka42,
        };
        let on = populated(dialect);
        let empty = u8::from(dialect == Dialect::Kafka42);
        let inputs = inputs(&scenario);

        // One input on a populated base of the scenario's dialect, a dozen per scenario.
        let stride = inputs.len().div_ceil(INPUTS_PER_SCENARIO);
        for (i, input) in inputs.iter().enumerate().step_by(stride) {
            if input.len() <= MAX_SEED_BYTES {
                let mut data = vec![on[i % on.len()]];
                data.extend_from_slice(input.as_bytes());
                add("handle_json", format!("{name}-{i:02}"), data);
            }
        }

        // The scenario's opening inputs on an empty base, and a later window on a populated one.
        for (selector, skip) in [(empty, 0), (on[0], inputs.len() / 2)] {
            let mut data = vec![selector];
            for input in inputs.iter().skip(skip) {
                if data.len() + input.len() + 1 > MAX_LINES_SEED_BYTES {
                    break;
                }
                data.extend_from_slice(input.as_bytes());
                data.push(b'\n');
            }
            if data.len() > 1 {
                add("handle_json_lines", format!("{name}-from-{skip:02}"), data);
            }
        }

        // The scenario's requests as the frames a client sends, after an ApiVersions, on an
        // empty base and on a populated one (the scenario's own dialect: the frames differ).
        let api_versions = vec![0, 18, 0, 3, 0, 0, 0, 9, 0, 1, b'c', 0, 2, b'j', 2, b'1', 0];
        let mut frames = vec![api_versions];
        for (i, input) in inputs.iter().enumerate() {
            let kind = Input::parse(input).map(|i| i.kind);
            // Version 0, else the input's own (the offsets APIs), else the oldest that encodes.
            let encode = |k: &streams_group_coordinator::InputKind| {
                let own = match k {
                    streams_group_coordinator::InputKind::OffsetCommit { api_version, .. }
                    | streams_group_coordinator::InputKind::OffsetFetch { api_version, .. } => {
                        *api_version
                    }
                    _ => 0,
                };
                [0, own]
                    .into_iter()
                    .chain(1..=10)
                    .find_map(|v| wire::encode_request(config.dialect, k, v, i as i32))
            };
            if let Some(f) = kind.ok().as_ref().and_then(encode) {
                if frames.len() < bodies::MAX_FRAMES && f.len() <= MAX_SEED_BYTES {
                    frames.push(f);
                }
            }
        }
        let own = (0..bases.len())
            .filter(|&i| bases[i].harness.live.config().dialect == config.dialect)
            .map(|i| u8::try_from(i).unwrap())
            .collect::<Vec<u8>>();
        if let Some(&first) = own.first() {
            add(
                "frames",
                format!("{name}-frames"),
                bodies::frames_input(first, &frames),
            );
            let last = *own.last().unwrap_or(&first);
            add(
                "frames",
                format!("{name}-frames-populated"),
                bodies::frames_input(last, &frames),
            );
        }

        // The records the scenario writes, as bytes.
        let mut c = Coordinator::new(config.clone()).unwrap();
        let mut n = 0;
        for input in &inputs {
            let Ok(out) = Input::parse(input).and_then(|i| c.handle(i)) else {
                continue;
            };
            for r in out.records {
                if n == RECORDS_PER_SCENARIO {
                    break;
                }
                let key = encode_key(dialect, &r.key);
                let value = r.value.as_ref().map(|v| encode_value(dialect, v));
                let t = bodies::RECORD_TYPES
                    .iter()
                    .position(|t| *t == r.key.record_type())
                    .unwrap();
                let selector = u8::from(dialect == Dialect::Kafka42)
                    | (u8::try_from(t).unwrap() << 1)
                    | (u8::from(n % 2 == 1) << 4);
                let data = bodies::record_bytes_input(selector, &key, value.as_deref());
                add("record_bytes", format!("{name}-r{n:02}"), data);
                n += 1;
            }
        }

        // Op sequences: pseudo-random bytes seeded by the scenario name, on each base.
        let mut state = name
            .bytes()
            .fold(0x9e37_79b9_u32, |h, b| h.rotate_left(5) ^ u32::from(b));
        let mut ops = vec![u8::try_from(name.len() % bases.len()).unwrap()];
        for _ in 0..96 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            ops.push(state.to_le_bytes()[0]);
        }
        add("handle_ops", format!("{name}-ops"), ops);

        add(
            "settings",
            format!("{name}-config"),
            scenario["config"].to_string().into_bytes(),
        );
        add(
            "settings",
            format!("{name}-explicit"),
            bodies::settings_json(&config).to_string().into_bytes(),
        );
    }
    add("settings", "null".into(), b"null".to_vec());
    add(
        "settings",
        "unknown-setting".into(),
        br#"{"group.streams.session.timeout": 1}"#.to_vec(),
    );
    seeds
}

/// Every object key and short string of `v`.
fn words(v: &Value, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                out.insert(k.clone());
                words(v, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| words(v, out)),
        Value::String(s) if s.len() <= 24 => {
            out.insert(s.clone());
        }
        _ => {}
    }
}

/// libFuzzer dictionaries: the JSON words of the scenarios' inputs, and the setting names.
fn generate_dictionaries() -> BTreeMap<&'static str, String> {
    let mut inputs = std::collections::BTreeSet::new();
    let mut settings = std::collections::BTreeSet::new();
    for (_, scenario) in scenarios() {
        for step in scenario["steps"].as_array().unwrap() {
            words(&step["input"], &mut inputs);
        }
        words(&scenario["config"], &mut settings);
    }
    settings.extend(streams_group_coordinator::config::settings().map(|s| s.to_string()));
    // Each word as it appears in JSON text (quoted), escaped for libFuzzer: `\"`, `\\`, `\xAB`.
    let dict = |words: &std::collections::BTreeSet<String>| -> String {
        let mut out = String::new();
        for w in words {
            out.push('"');
            for b in serde_json::to_string(w).unwrap().bytes() {
                match b {
                    b'"' | b'\\' => out.extend(['\\', char::from(b)]),
                    0x20..=0x7e => out.push(char::from(b)),
                    _ => out.push_str(&format!("\\x{b:02x}")),
                }
            }
            out.push_str("\"\n");
        }
        out
    };
    BTreeMap::from([
        ("handle_json", dict(&inputs)),
        ("settings", dict(&settings)),
    ])
}

/// Generates the seeds (every target gets some from the scenarios) and, with
/// `SGC_WRITE_FUZZ_SEEDS=1`, writes them to `fuzz/seeds/` (replacing what is there) and the
/// dictionaries to `fuzz/dict/`.
#[test]
fn seed_corpus_covers_every_target() {
    let dictionaries = generate_dictionaries();
    assert!(dictionaries["handle_json"].contains(r#""\"memberEpoch\"""#));
    let seeds = generate_seeds();
    for (target, _) in TARGETS {
        let n = seeds.get(target).map_or(0, BTreeMap::len);
        assert!(n >= 10, "only {n} seeds for {target}");
    }
    if std::env::var_os("SGC_WRITE_FUZZ_SEEDS").is_some() {
        for (target, files) in &seeds {
            let dir = fuzz_dir().join("seeds").join(target);
            if dir.exists() {
                fs::remove_dir_all(&dir).unwrap();
            }
            fs::create_dir_all(&dir).unwrap();
            for (name, data) in files {
                fs::write(dir.join(name), data).unwrap();
            }
        }
        let dir = fuzz_dir().join("dict");
        fs::create_dir_all(&dir).unwrap();
        for (name, text) in &dictionaries {
            fs::write(dir.join(format!("{name}.dict")), text).unwrap();
        }
    }
}

//! The bodies of the fuzz targets.
//!
//! One function per target. The cargo-fuzz targets in `fuzz/fuzz_targets/` call them, and the
//! stable test `tests/fuzz_corpus.rs` includes this file (`#[path]`) to replay the committed
//! seeds and every past crash through the same functions under plain `cargo test`. A body
//! panics when an invariant breaks, not only when the coordinator does:
//!
//! - `handle_json`, `handle_json_lines` and `handle_ops`: every output is JSON, either a boundary error
//!   (`{"error": {code, message, path}}`, and then the coordinator's observable state is what it
//!   was) or the five output fields in their fixed order; the same state and input give the same
//!   output; every emitted record reads back from its JSON form to the same JSON; and the
//!   records, replayed into a shadow coordinator that only ever sees records, rebuild the live
//!   groups (DESIGN 2: live state == replayed state).
//! - `record_bytes`: a key that decodes encodes back to the same bytes; a value that decodes
//!   encodes to canonical bytes that decode to the same value and encode to themselves; the JSON
//!   form of a decoded record reads back to it; a `Replay` of the bytes agrees with the decoders
//!   and with `Coordinator::replay` of the decoded record, and a refused one changes nothing.
//! - `settings`: `Config::from_json` and coordinator construction agree; an accepted config,
//!   written out with every setting explicit, parses to itself; a coordinator built from it
//!   runs a short session (joins, heartbeats, time far ahead) under the `handle_json` checks.
//!
//! Fuzz input layout: `handle_json` and `handle_json_lines` take one selector byte (the base
//! coordinator, see [`bases`]) and then the input text (one input, or one input per line);
//! `handle_ops` a selector byte and then op bytes (see [`handle_ops`]);
//! `record_bytes` takes a selector byte (bit 0: dialect, bits 1-3: record type when the key does
//! not decode, bit 4: replay into a populated coordinator), a little-endian u16 key length, the
//! key bytes and the value bytes (none: a tombstone); `settings` takes the JSON text.

use std::sync::OnceLock;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Map, Value};
use streams_group_coordinator::records::{
    decode_key, decode_value, encode_key, encode_value, record_from_json, record_to_json, Record,
    RecordType,
};
use streams_group_coordinator::{BoundaryCode, Config, Coordinator, Dialect, Input, InputKind};

/// Scenario files whose inputs build populated bases: each leaves topics, a topology and at
/// least two members in group `g`.
pub const BASE_SCENARIOS: &[(&str, &str)] = &[
    (
        "draft-worked-example",
        include_str!("../../tests/scenarios/draft-worked-example.json"),
    ),
    (
        "draft-manual-assignor",
        include_str!("../../tests/scenarios/draft-manual-assignor.json"),
    ),
    (
        "draft-describe",
        include_str!("../../tests/scenarios/draft-describe.json"),
    ),
    (
        "draft-target-assignment",
        include_str!("../../tests/scenarios/draft-target-assignment.json"),
    ),
    (
        "static-rolling-restart",
        include_str!("../../tests/scenarios/static-rolling-restart.json"),
    ),
    (
        "static-replacement-details",
        include_str!("../../tests/scenarios/static-replacement-details.json"),
    ),
    (
        "k42-reconciliation-endpoints",
        include_str!("../../tests/scenarios/k42-reconciliation-endpoints.json"),
    ),
    (
        "k42-manual-assignor",
        include_str!("../../tests/scenarios/k42-manual-assignor.json"),
    ),
    (
        "k42-stale-topology-epoch",
        include_str!("../../tests/scenarios/k42-stale-topology-epoch.json"),
    ),
    (
        "k42-join-topology",
        include_str!("../../tests/scenarios/k42-join-topology.json"),
    ),
];

/// A starting point: a live coordinator and a shadow that has replayed every record the live
/// one emitted (and nothing else).
#[derive(Clone)]
pub struct Base {
    pub name: String,
    pub harness: Harness,
}

/// The bases a selector byte picks from (`selector % len`): an empty coordinator of each
/// dialect with default settings (indexes 0 and 1), a populated one of each dialect from
/// [`crafted_inputs`] (2 and 3), then one per [`BASE_SCENARIOS`] entry, in that order, with
/// the scenario's settings.
pub fn bases() -> &'static [Base] {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        let mut out = vec![
            Base {
                name: "empty kip1071-draft".into(),
                harness: Harness::new(&json!({"dialect": "kip1071-draft"})),
            },
            Base {
                name: "empty kafka-4.2".into(),
                harness: Harness::new(&json!({"dialect": "kafka-4.2"})),
            },
        ];
        for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
            let mut harness = Harness::new(&crafted_config(dialect));
            for input in crafted_inputs(dialect) {
                let input = input.to_string();
                assert_eq!(harness.feed(&input), Fed::Checked, "crafted base: {input}");
            }
            out.push(Base {
                name: format!("crafted {}", dialect.name()),
                harness,
            });
        }
        for (name, text) in BASE_SCENARIOS {
            let scenario: Value = serde_json::from_str(text).expect("scenario is JSON");
            let mut harness = Harness::new(&scenario["config"]);
            for step in scenario["steps"].as_array().expect("scenario steps") {
                let input = step["input"].to_string();
                assert_eq!(
                    harness.feed(&input),
                    Fed::Checked,
                    "base {name}: input {input}"
                );
            }
            out.push(Base {
                name: (*name).to_string(),
                harness,
            });
        }
        out
    })
}

/// The index of the first base of `dialect`'s populated ones.
pub fn populated_base(dialect: Dialect) -> usize {
    bases()
        .iter()
        .position(|b| {
            b.harness.live.config().dialect == dialect && !b.harness.live.groups().is_empty()
        })
        .expect("a populated base of each dialect")
}

/// What [`Harness::feed`] did with an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fed {
    /// Handled, and every invariant held.
    Checked,
    /// Not handled: it asks for work beyond the limits the coordinator does not enforce yet.
    Skipped,
}

/// A live coordinator and its record-only shadow.
#[derive(Clone)]
pub struct Harness {
    pub live: Coordinator,
    pub shadow: Coordinator,
    /// Every record the shadow was given: what a fresh shadow is rebuilt from when one of its
    /// timers is due at its own clock (see [`Harness::feed_output`]).
    pub shadow_log: Vec<Record>,
}

/// Partition counts above this are not fed, for the fuzzer's speed: the coordinator's limits
/// bound the work of larger ones (tests/limits.rs, examples/cost.rs), so they would only spend
/// executions on assignments of tens of thousands of tasks.
pub const MAX_FED_PARTITIONS: i64 = 10_000;

impl Harness {
    pub fn new(config: &Value) -> Harness {
        let live = Coordinator::from_json_config(config).expect("base config");
        Harness::of(live)
    }

    /// A harness on `live`, its shadow a copy of it (no record given yet).
    pub fn of(live: Coordinator) -> Harness {
        Harness {
            shadow: live.clone(),
            live,
            shadow_log: Vec::new(),
        }
    }

    /// Handles `text` on the live coordinator and checks the invariants of one output.
    pub fn feed(&mut self, text: &str) -> Fed {
        self.feed_output(text).0
    }

    /// [`Harness::feed`], also giving the output (`null` when skipped).
    pub fn feed_output(&mut self, text: &str) -> (Fed, Value) {
        if too_costly(text) {
            return (Fed::Skipped, Value::Null);
        }
        let parsed = Input::parse(text);
        let before = self.live.clone();
        let out_text = self.live.handle_json(text);
        let again = before.clone().handle_json(text);
        assert_eq!(out_text, again, "same state and input, different output");
        let out: Value = serde_json::from_str(&out_text)
            .unwrap_or_else(|e| panic!("handle_json output is not JSON ({e}): {out_text}"));
        let obj = out.as_object().expect("handle_json output is an object");

        if let Some(error) = obj.get("error") {
            check_boundary_error(obj, error);
            let unchanged = same_state(&before, &self.live);
            // Due timers included: a refused `Replay` undoes what they did (README, "Atomic
            // inputs, timers included").
            assert!(
                unchanged,
                "a boundary error changed the coordinator's state: {out_text}"
            );
            return (Fed::Checked, out);
        }

        let input = parsed.unwrap_or_else(|e| {
            panic!("Input::parse refused ({e:?}) what handle_json accepted: {out_text}")
        });
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "response",
                "records",
                "topicsToCreate",
                "explain",
                "nextDeadlineMs"
            ],
            "output fields: {out_text}"
        );
        match &obj["response"] {
            Value::Null => {}
            Value::Object(r) => {
                if let Some(code) = r.get("errorCode") {
                    assert!(code.is_i64(), "errorCode {code}");
                }
            }
            other => panic!("response is neither null nor an object: {other}"),
        }
        let answers_nothing = matches!(
            input.kind,
            InputKind::TopicMetadata { .. }
                | InputKind::AdvanceTime
                | InputKind::Replay { .. }
                | InputKind::TransactionCompleted { .. }
        );
        assert_eq!(
            obj["response"].is_null(),
            answers_nothing,
            "response of {text}: {out_text}"
        );
        assert!(obj["topicsToCreate"].is_array(), "{out_text}");
        for e in obj["explain"].as_array().expect("explain is an array") {
            assert!(e["code"].is_string(), "explain entry without code: {e}");
            assert!(
                e["groupId"].is_string(),
                "explain entry without groupId: {e}"
            );
        }
        assert_eq!(
            obj["nextDeadlineMs"].as_i64(),
            self.live.timers().next_deadline(),
            "nextDeadlineMs"
        );
        assert_eq!(
            self.live.now_ms(),
            input.now_ms.max(before.now_ms()),
            "time after {text}"
        );

        // The text is what the general way gives: the input decoded by `Input::parse` rather
        // than a fast decoder (a heartbeat's, a replay's text), and the output written by
        // serde from the derived serialisers rather than by the core's own writer
        // (`api::text`), byte for byte.
        let dialect = self.live.config().dialect;
        let with_bytes = self.live.config().record_bytes;
        let general = match before.clone().handle(input.clone()) {
            Ok(o) => o.to_json(dialect, with_bytes).to_string(),
            Err(e) => panic!("the general way refused ({e:?}) what handle_json accepted"),
        };
        assert_eq!(
            out_text, general,
            "the general way answers {text} otherwise"
        );

        // The emitted records, then (for a `Replay`) the replayed ones, into the shadow.
        let mut records: Vec<Record> = Vec::new();
        for (i, r) in obj["records"]
            .as_array()
            .expect("records is an array")
            .iter()
            .enumerate()
        {
            let record = record_from_json(dialect, r, &format!("records[{i}]"))
                .unwrap_or_else(|e| panic!("emitted record does not read back ({e:?}): {r}"))
                .unwrap_or_else(|| panic!("emitted record of another kind: {r}"));
            assert_eq!(
                &record_to_json(dialect, &record, with_bytes),
                r,
                "emitted record is not in its canonical JSON form"
            );
            records.push(record);
        }
        if let InputKind::Replay { records: replayed } = &input.kind {
            for (i, r) in replayed.iter().enumerate() {
                let parsed = record_from_json(dialect, r, &format!("records[{i}]"))
                    .unwrap_or_else(|e| panic!("accepted replay record refused ({e:?}): {r}"));
                records.extend(parsed);
            }
        }
        // The shadow's clock stays where it started, so that none of its own timers (armed by
        // the replays) ever fires: it only ever sees records. A replayed timeout below zero (a
        // member known only from its assignment records has the default rebalance timeout,
        // -1 ms) arms a timer already due at that clock: then a fresh shadow, which has no
        // timer to fire, is rebuilt from every record instead.
        let at = self.shadow.now_ms();
        self.shadow_log.extend(records.iter().cloned());
        if self
            .shadow
            .timers()
            .next_deadline()
            .is_some_and(|d| d <= at)
        {
            self.shadow = Coordinator::new(self.shadow.config().clone())
                .expect("the shadow's config builds a coordinator");
            records.clone_from(&self.shadow_log);
        }
        match self.shadow.replay(&records, at) {
            Err(e) => panic!("the records of {text} do not replay: {e:?}\noutput: {out_text}"),
            Ok(o) => assert!(o.records.is_empty(), "a shadow timer fired after {text}"),
        }
        assert!(
            self.shadow.groups() == self.live.groups(),
            "replaying the records does not rebuild the live groups after {text}\noutput: {out_text}\nlive: {:?}\nreplayed: {:?}",
            self.live.groups(),
            self.shadow.groups()
        );
        (Fed::Checked, out)
    }
}

fn check_boundary_error(obj: &Map<String, Value>, error: &Value) {
    assert_eq!(obj.len(), 1, "a boundary error is the whole output");
    let code = error["code"].as_str().expect("error code is a string");
    assert!(
        [
            "INVALID_INPUT",
            "INVALID_CONFIG",
            "INVALID_RECORD",
            "TOO_LARGE"
        ]
        .contains(&code),
        "error code {code}"
    );
    assert!(error["message"].is_string(), "error message: {error}");
    assert!(error["path"].is_string(), "error path: {error}");
    assert_eq!(
        error.as_object().map(Map::len),
        Some(3),
        "error fields: {error}"
    );
}

/// Whether `input` is a `Replay` handled after at least one timer was due.
/// Observable state: groups (hard and derived), the snapshot views draw (timers, topic image,
/// soft state), topic ids and racks, and time.
pub fn same_state(a: &Coordinator, b: &Coordinator) -> bool {
    a.now_ms() == b.now_ms()
        && a.groups() == b.groups()
        && a.topics() == b.topics()
        && a.snapshot() == b.snapshot()
}

/// Whether `text` is JSON naming a partition count above [`MAX_FED_PARTITIONS`].
fn too_costly(text: &str) -> bool {
    fn walk(v: &Value) -> bool {
        match v {
            Value::Object(m) => m.iter().any(|(k, v)| {
                let count = matches!(k.as_str(), "partitions" | "numPartitions")
                    && v.as_f64().is_some_and(|n| n > MAX_FED_PARTITIONS as f64);
                count || walk(v)
            }),
            Value::Array(a) => a.iter().any(walk),
            _ => false,
        }
    }
    serde_json::from_str::<Value>(text).is_ok_and(|v| walk(&v))
}

fn base_for(selector: u8) -> Harness {
    let all = bases();
    all[usize::from(selector) % all.len()].harness.clone()
}

/// Target `handle_json`: one input on a base coordinator.
pub fn handle_json(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut harness = base_for(selector);
    harness.feed(text);
}

/// At most this many lines of a `handle_json_lines` input are fed.
pub const MAX_LINES: usize = 64;

/// Target `handle_json_lines`: a sequence of inputs, one per line, on a base coordinator.
pub fn handle_json_lines(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let mut harness = base_for(selector);
    for line in rest.split(|b| *b == b'\n').take(MAX_LINES) {
        let text = String::from_utf8_lossy(line);
        if text.trim().is_empty() {
            continue;
        }
        harness.feed(&text);
    }
}

/// Target `handle_ops`: a sequence of well-formed inputs built from the bytes, one op per byte
/// pair or triple, on a base coordinator: members `m0`..`m5` of group `g` (`m0`, `m1` and `m5`
/// static, `m5` taking over `m0`'s instance) join, heartbeat at their epoch (or a stale or
/// future one), acknowledge what they were last sent, leave; time advances; topics change;
/// describe, delete, initialize and manual targets. Every input goes through [`Harness::feed`].
pub fn handle_ops(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let mut harness = base_for(selector);
    run_ops(&mut harness, rest);
}

/// The ops of [`handle_ops`] on `harness`.
pub fn run_ops(harness: &mut Harness, mut rest: &[u8]) {
    let dialect = harness.live.config().dialect;
    // The task lists each member was last sent.
    let mut sent: std::collections::BTreeMap<String, Value> = Default::default();
    let mut next = || -> Option<u8> {
        let (&b, r) = rest.split_first()?;
        rest = r;
        Some(b)
    };
    for _ in 0..MAX_LINES {
        let Some(op) = next() else { break };
        let arg = next().unwrap_or(0);
        let now = harness.live.now_ms();
        let member = format!("m{}", arg % 6);
        let instance = match arg % 6 {
            0 | 5 => Some("i0"),
            1 => Some("i1"),
            _ => None,
        };
        let epoch = harness
            .live
            .group("g")
            .and_then(|g| g.members.get(&member))
            .map_or(0, |m| m.member_epoch);
        let input = match op % 10 {
            0 => join(dialect, now, &member, &format!("p{}", arg % 3), instance),
            1 | 2 => {
                let epoch = match arg >> 5 {
                    0..=4 => epoch,
                    5 => epoch - 1,
                    6 => epoch + 1,
                    _ => -1,
                };
                let mut input = beat(dialect, now, &member, epoch);
                if let Some(instance) = instance {
                    input["request"]["instanceId"] = json!(instance);
                }
                if op % 10 == 2 {
                    // Acknowledge what the member was last sent.
                    let lists = sent.get(&member).cloned().unwrap_or_else(
                        || json!({"activeTasks": [], "standbyTasks": [], "warmupTasks": []}),
                    );
                    for k in ["activeTasks", "standbyTasks", "warmupTasks"] {
                        input["request"][k] = lists[k].clone();
                    }
                }
                input
            }
            3 => {
                let mut input = beat(dialect, now, &member, -2);
                input["request"]["instanceId"] = json!(instance.unwrap_or("i9"));
                input
            }
            4 => {
                let step = [
                    100, 1000, 5000, 30_000, 60_000, 300_000, 3_600_000, 86_400_000,
                ];
                json!({"nowMs": now + step[usize::from(arg % 8)], "type": "AdvanceTime"})
            }
            5 => {
                let name = ["in", "app-store-changelog", "app-rep", "other"][usize::from(arg % 4)];
                if arg >> 5 == 7 {
                    json!({"nowMs": now, "type": "TopicMetadata", "topics": [], "deletedTopics": [name]})
                } else {
                    json!({"nowMs": now, "type": "TopicMetadata",
                        "topics": [{"name": name, "partitions": 1 + (arg >> 2) % 8}]})
                }
            }
            6 => json!({"nowMs": now, "type": "StreamsGroupDescribe",
                "request": {"groupIds": ["g"], "includeAuthorizedOperations": arg % 2 == 0}}),
            7 => json!({"nowMs": now, "type": "DeleteGroups", "groupIds": ["g"]}),
            8 => json!({"nowMs": now, "type": "StreamsGroupInitialize",
                "request": {"groupId": "g", "topologyId": "t", "topology": subtopologies()}}),
            _ => {
                let partitions: Vec<u8> = (0..6).filter(|p| arg & (1 << p) != 0).collect();
                json!({"nowMs": now, "type": "SetTargetAssignment", "groupId": "g",
                    "assignment": {member.clone(): {"activeTasks": [{"subtopologyId": "0", "partitions": partitions}],
                        "standbyTasks": [], "warmupTasks": []}}})
            }
        };
        let (_, out) = harness.feed_output(&input.to_string());
        let response = &out["response"];
        if response["errorCode"] == json!(0) {
            if let Some(id) = response["memberId"].as_str() {
                let entry = sent.entry(id.to_string()).or_insert_with(
                    || json!({"activeTasks": [], "standbyTasks": [], "warmupTasks": []}),
                );
                for k in ["activeTasks", "standbyTasks", "warmupTasks"] {
                    if response[k].is_array() {
                        entry[k] = response[k].clone();
                    }
                }
            }
        }
    }
}

/// Every record type, in the order the `record_bytes` selector names them.
pub const RECORD_TYPES: [RecordType; 9] = [
    RecordType::GroupMetadata,
    RecordType::PartitionMetadata,
    RecordType::MemberMetadata,
    RecordType::TargetAssignmentMetadata,
    RecordType::TargetAssignmentMember,
    RecordType::CurrentMemberAssignment,
    RecordType::Topology,
    RecordType::OffsetCommit,
    RecordType::ClassicGroupMetadata,
];

/// Builds a `record_bytes` input.
pub fn record_bytes_input(selector: u8, key: &[u8], value: Option<&[u8]>) -> Vec<u8> {
    let len = u16::try_from(key.len()).expect("key shorter than 64 KiB");
    let mut out = vec![selector];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(value.unwrap_or_default());
    out
}

/// Target `record_bytes`: key and value decoding, canonical round trips, and the `Replay` path
/// (against `Coordinator::replay` of the decoded record and `Coordinator::replay_bytes` of the
/// bytes).
pub fn record_bytes(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let selector = data[0];
    let dialect = if selector & 1 == 0 {
        Dialect::Kip1071Draft
    } else {
        Dialect::Kafka42
    };
    let key_len = usize::from(u16::from_le_bytes([data[1], data[2]]));
    let rest = &data[3..];
    let (key_bytes, value_bytes) = rest.split_at(key_len.min(rest.len()));

    let key = decode_key(dialect, key_bytes);
    let t = match &key {
        Ok(Some(k)) => {
            assert_eq!(
                encode_key(dialect, k),
                key_bytes,
                "a decoded key does not encode back to its bytes: {k:?}"
            );
            k.record_type()
        }
        _ => RECORD_TYPES[usize::from(selector >> 1) % RECORD_TYPES.len()],
    };
    let value = if value_bytes.is_empty() {
        None
    } else {
        Some(decode_value(dialect, t, value_bytes))
    };
    if let Some(Ok(v)) = &value {
        assert_eq!(v.record_type(), t, "decoded value of another type");
        let canonical = encode_value(dialect, v);
        let again = decode_value(dialect, t, &canonical)
            .unwrap_or_else(|e| panic!("canonical bytes of {v:?} do not decode: {e:?}"));
        assert_eq!(&again, v, "canonical bytes decode to another value");
        assert_eq!(
            encode_value(dialect, &again),
            canonical,
            "encoding is not canonical"
        );
    }
    let record = match (&key, &value) {
        (Ok(Some(k)), None) => Some(Record::tombstone(k.clone())),
        (Ok(Some(k)), Some(Ok(v))) => Some(Record::new(k.clone(), v.clone())),
        _ => None,
    };
    if let Some(r) = &record {
        for with_bytes in [false, true] {
            let j = record_to_json(dialect, r, with_bytes);
            let back = record_from_json(dialect, &j, "r")
                .unwrap_or_else(|e| panic!("JSON form of a decoded record refused ({e:?}): {j}"));
            assert_eq!(
                back.as_ref(),
                Some(r),
                "JSON form reads back otherwise: {j}"
            );
        }
    }

    // The same bytes through the host's way in.
    let base = if selector & 0x10 == 0 {
        usize::from(dialect == Dialect::Kafka42)
    } else {
        populated_base(dialect)
    };
    let start = bases()[base].harness.live.clone();
    let now = start.now_ms();
    let value_json = if value_bytes.is_empty() {
        Value::Null
    } else {
        STANDARD.encode(value_bytes).into()
    };
    let input = json!({"nowMs": now, "type": "Replay",
        "records": [{"keyBytes": STANDARD.encode(key_bytes), "valueBytes": value_json}]});
    let mut live = start.clone();
    let out_text = live.handle_json(&input.to_string());
    let out: Value = serde_json::from_str(&out_text).expect("handle_json output is JSON");
    // The same bytes as a broker hands them over: the same answer and the same state.
    #[cfg(feature = "replay-text")]
    {
        let mut broker = start.clone();
        let value = (!value_bytes.is_empty()).then_some(value_bytes);
        let broker_text = match broker.replay_bytes(&[(key_bytes, value)], now) {
            Ok(o) => o.to_json_string(dialect, broker.config().record_bytes),
            Err(e) => streams_group_coordinator::api::boundary_error_json(&e).to_string(),
        };
        assert_eq!(
            broker_text, out_text,
            "replay_bytes and a Replay input answer differently"
        );
        assert!(
            same_state(&live, &broker),
            "replay_bytes and a Replay input leave different states"
        );
    }
    let mut direct = start.clone();
    let direct_result = match (&key, &record) {
        (Ok(None), _) => Ok(None),
        (_, Some(r)) => direct.replay(std::slice::from_ref(r), now).map(Some),
        _ => {
            assert!(
                out.get("error").is_some(),
                "Replay accepted bytes the decoders refuse: {out_text}"
            );
            assert!(same_state(&start, &live), "a refused Replay changed state");
            return;
        }
    };
    match (out.get("error"), direct_result) {
        (Some(_), Err(_)) => assert!(same_state(&start, &live), "a refused Replay changed state"),
        (None, Ok(direct_out)) => {
            assert!(
                live.groups() == direct.groups(),
                "Replay and Coordinator::replay of the decoded record disagree"
            );
            // One way in: the same meaning, so the same output (the timers' records).
            if let Some(o) = direct_out {
                let config = direct.config();
                assert_eq!(
                    o.to_json(config.dialect, config.record_bytes),
                    out,
                    "Replay and Coordinator::replay answer differently"
                );
            }
        }
        (e, d) => panic!("Replay answered {e:?}, Coordinator::replay {d:?}"),
    }
}

/// Every setting of `config`, with Kafka's names, as `Config::from_json` reads them.
pub fn settings_json(config: &Config) -> Value {
    json!({
        "dialect": config.dialect.name(),
        "assignor": config.assignor.name(),
        "group.streams.session.timeout.ms": config.session_timeout_ms,
        "group.streams.heartbeat.interval.ms": config.heartbeat_interval_ms,
        "group.streams.max.size": config.max_size,
        "group.streams.num.standby.replicas": config.num_standby_replicas,
        "group.streams.acceptable.recovery.lag": config.acceptable_recovery_lag,
        "group.streams.num.warmup.replicas": config.num_warmup_replicas,
        "group.streams.rack.aware.assignment.tags": config.rack_aware_assignment_tags,
        "group.streams.task.offset.interval.ms": config.task_offset_interval_ms,
        "group.streams.initial.rebalance.delay.ms": config.initial_rebalance_delay_ms,
        "group.streams.assignment.interval.ms": config.assignment_interval_ms,
        "group.streams.max.tasks.per.subtopology": config.max_tasks_per_subtopology,
        "group.streams.max.tasks": config.max_tasks,
        "group.streams.topology.max.regex.patterns": config.max_regex_patterns,
        "group.streams.topology.max.regex.compiled.bytes": config.max_regex_compiled_bytes,
        "group.streams.topology.max.regex.match.cost": config.max_regex_match_cost,
        "offsets.retention.minutes": config.offsets_retention_minutes,
        "offsets.topic.num.partitions": config.offsets_topic_num_partitions,
        "recordBytes": config.record_bytes,
        "maxRecordBatchBytes": config.max_record_batch_bytes,
    })
}

fn subtopologies() -> Value {
    json!([{"subtopologyId": "0", "sourceTopics": ["in"],
        "stateChangelogTopics": [{"name": "app-store-changelog"}],
        "repartitionSinkTopics": ["app-rep"], "repartitionSourceTopics": [],
        "copartitionGroups": []},
       {"subtopologyId": "1", "sourceTopics": ["app-rep"], "sourceTopicRegex": [],
        "stateChangelogTopics": [], "repartitionSinkTopics": [],
        "repartitionSourceTopics": [{"name": "app-rep", "partitions": 3}],
        "copartitionGroups": []}])
}

/// A joining heartbeat of `member` in group `g`.
fn join(dialect: Dialect, now: i64, member: &str, process: &str, instance: Option<&str>) -> Value {
    let mut request = json!({"groupId": "g", "memberId": member, "memberEpoch": 0,
        "processId": process, "rebalanceTimeoutMs": 30000,
        "activeTasks": [], "standbyTasks": [], "warmupTasks": []});
    match dialect {
        Dialect::Kip1071Draft => request["topologyId"] = json!("t"),
        _ => {
            request["endpointInformationEpoch"] = json!(-1);
            request["topology"] = json!({"epoch": 0, "subtopologies": subtopologies()});
        }
    }
    if let Some(instance) = instance {
        request["instanceId"] = json!(instance);
    }
    json!({"nowMs": now, "type": "StreamsGroupHeartbeat",
        "client": {"clientId": process, "clientHost": "/127.0.0.1"}, "request": request})
}

/// A plain heartbeat of `member` in group `g` at `epoch`.
fn beat(dialect: Dialect, now: i64, member: &str, epoch: i32) -> Value {
    let mut request = json!({"groupId": "g", "memberId": member, "memberEpoch": epoch});
    if dialect.is_kafka() {
        request["endpointInformationEpoch"] = json!(0);
    }
    json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": request})
}

/// Topics, a two-subtopology topology with a changelog and a repartition topic, and four
/// members (two static) in group `g`, part-way through reconciliation.
pub fn crafted_inputs(dialect: Dialect) -> Vec<Value> {
    let mut out = vec![json!({"nowMs": 0, "type": "TopicMetadata",
        "topics": [{"name": "in", "partitions": 6, "racks": [["r1"], ["r2"], ["r1"], ["r2"], ["r1"], ["r2"]]},
                   {"name": "app-store-changelog", "partitions": 6},
                   {"name": "app-rep", "partitions": 3}]})];
    out.push(join(dialect, 1000, "m1", "p1", Some("i1")));
    if dialect == Dialect::Kip1071Draft {
        out.push(json!({"nowMs": 1500, "type": "StreamsGroupInitialize",
            "request": {"groupId": "g", "topologyId": "t", "topology": subtopologies()}}));
    }
    out.push(join(dialect, 2000, "m2", "p1", None));
    out.push(join(dialect, 2100, "m3", "p2", Some("i3")));
    for (i, epoch) in [1, 2, 3, 4].into_iter().enumerate() {
        let now = 3000 + 1000 * i as i64;
        for m in ["m1", "m2", "m3"] {
            out.push(beat(dialect, now, m, epoch));
        }
    }
    out.push(join(dialect, 8000, "m4", "p3", None));
    out.push(beat(dialect, 8100, "m1", 4));
    out
}

/// The settings of the crafted bases.
pub fn crafted_config(dialect: Dialect) -> Value {
    json!({"dialect": dialect.name(), "group.streams.num.standby.replicas": 1,
        "group.streams.initial.rebalance.delay.ms": 0, "recordBytes": true})
}

/// A short session in `dialect`: members join and reconcile, one leaves, time jumps far.
pub fn session_inputs(dialect: Dialect) -> Vec<Value> {
    let mut out = crafted_inputs(dialect);
    out.push(json!({"nowMs": 9000, "type": "StreamsGroupDescribe",
        "request": {"groupIds": ["g"], "includeAuthorizedOperations": false}}));
    out.push(beat(dialect, 9100, "m2", -1));
    out.push(json!({"nowMs": 4_000_000_000_000i64, "type": "AdvanceTime"}));
    out.push(join(dialect, i64::MAX - 1, "m5", "p5", Some("i1")));
    out.push(json!({"nowMs": i64::MAX, "type": "AdvanceTime"}));
    out
}

/// Target `settings`: `Config::from_json` and coordinator construction.
pub fn settings(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let parsed = Config::from_json(&value);
    let built = Coordinator::from_json_config(&value);
    let config = match parsed {
        Err(e) => {
            assert_eq!(
                built.err(),
                Some(e.clone()),
                "parser and constructor disagree"
            );
            if let Value::Object(m) = &value {
                assert!(
                    e.path.is_empty() || m.contains_key(&e.path),
                    "error path {:?} names no setting of {value}",
                    e.path
                );
            }
            return;
        }
        Ok(config) => config,
    };
    let coordinator = built.expect("the constructor refused a config the parser accepts");
    assert_eq!(coordinator.config(), &config);
    let explicit = settings_json(&config);
    assert_eq!(
        Config::from_json(&explicit).as_ref(),
        Ok(&config),
        "an accepted config, written out, parses otherwise: {explicit}"
    );
    let mut harness = Harness::of(coordinator);
    for input in session_inputs(config.dialect) {
        harness.feed(&input.to_string());
    }
}

/// At most this many frames of a `frames` input are fed.
pub const MAX_FRAMES: usize = 16;

/// The `frames` input layout: a base selector byte, then frames, each a big-endian `u16`
/// length and that many bytes (Kafka's own int32 size prefix is the host's, not the core's).
pub fn frames_input(selector: u8, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut data = vec![selector];
    for f in frames {
        let len = u16::try_from(f.len()).unwrap_or(u16::MAX);
        data.extend_from_slice(&len.to_be_bytes());
        data.extend_from_slice(&f[..usize::from(len)]);
    }
    data
}

/// Target `frames`: request frames on a base coordinator, through `wire::handle_frame_with`
/// and one `FrameScratch` kept for the whole input, as a host keeps it.
/// Invariants: the same state and frame give the same answer, with the kept scratch as with a
/// fresh one (nothing a frame leaves in it reaches the next); a refused frame is a boundary
/// error that changes nothing; an answered one echoes the correlation id, its response frame
/// reads back (as the typed response's wire form, at the request's version), and its output is
/// what the typed input the frame decodes to gives on the JSON face's way in.
pub fn frames(data: &[u8]) {
    use streams_group_coordinator::wire::{
        decode_request, handle_frame, handle_frame_with, response_as_wire_json, response_json,
        FrameOutput, FrameScratch, Peer,
    };
    let Some((&selector, mut rest)) = data.split_first() else {
        return;
    };
    let mut harness = base_for(selector);
    let c = &mut harness.live;
    let dialect = c.config().dialect;
    let peer = Peer {
        client_host: "/127.0.0.1".into(),
    };
    let mut scratch = FrameScratch::default();
    let mut written = Vec::new();
    for _ in 0..MAX_FRAMES {
        let Some((len, tail)) = rest.split_first_chunk::<2>() else {
            return;
        };
        let len = usize::from(u16::from_be_bytes(*len)).min(tail.len());
        let (frame, tail) = tail.split_at(len);
        rest = tail;
        let now = c.now_ms() + 1_000;
        let before = c.clone();
        let answer =
            handle_frame_with(c, &mut scratch, frame, now, &peer, &mut written).map(|output| {
                FrameOutput {
                    frame: written.clone(),
                    output,
                }
            });
        let again = handle_frame(&mut before.clone(), frame, now, &peer);
        assert_eq!(answer, again, "same state and frame, different answers");
        let out = match answer {
            Err(e) => {
                assert!(
                    same_state(&before, c),
                    "a refused frame changed the coordinator: {e:?}"
                );
                // Kafka would close the connection (INVALID_FRAME, with where reading stopped),
                // or the coordinator refused the decoded input as the JSON face does.
                assert!(!e.message.is_empty(), "a refusal without a message: {e:?}");
                match e.code {
                    BoundaryCode::InvalidFrame => assert!(
                        e.path.is_empty()
                            || e.path.starts_with("header")
                            || e.path.starts_with("body"),
                        "INVALID_FRAME at {}",
                        e.path
                    ),
                    BoundaryCode::InvalidInput | BoundaryCode::TooLarge => {}
                    other => panic!("a frame refused with {other:?}: {e:?}"),
                }
                continue;
            }
            Ok(out) => out,
        };
        assert_eq!(
            out.frame.get(..4),
            frame.get(4..8),
            "correlation id not echoed"
        );
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let version = i16::from_be_bytes([frame[2], frame[3]]);
        let Ok((_, Some(kind))) = decode_request(dialect, frame) else {
            // ApiVersions: answered by the wire itself, at the request's version or at 0.
            assert_eq!(out.output, Default::default());
            assert!(
                response_json(dialect, key, version, &out.frame).is_ok()
                    || response_json(dialect, key, 0, &out.frame).is_ok(),
                "an ApiVersions answer that does not read back"
            );
            continue;
        };
        // A version-10 offsets request (or a version-6 transactional commit) is first named by
        // the topic image (the broker front-end's step, `wire::offsets`): its typed input is not
        // the decoded one. Its answer must still read back.
        if matches!(
            kind,
            InputKind::OffsetCommit {
                api_version: 10..,
                ..
            } | InputKind::OffsetFetch {
                api_version: 10..,
                ..
            } | InputKind::TxnOffsetCommit {
                api_version: 6..,
                ..
            }
        ) {
            assert!(
                response_json(dialect, key, version, &out.frame).is_ok(),
                "a version-10 offsets answer that does not read back"
            );
            continue;
        }
        // The typed way, with the frame's client id and the peer's host.
        let kind = match kind {
            InputKind::StreamsGroupHeartbeat {
                mut client,
                request,
            } => {
                client.client_id = out_client_id(frame);
                client.client_host = peer.client_host.clone();
                InputKind::StreamsGroupHeartbeat { client, request }
            }
            InputKind::StreamsGroupInitialize {
                mut client,
                request,
            } => {
                client.client_id = out_client_id(frame);
                client.client_host = peer.client_host.clone();
                InputKind::StreamsGroupInitialize { client, request }
            }
            k => k,
        };
        let mut typed = before
            .clone()
            .handle(Input { now_ms: now, kind })
            .expect("the typed way answers what the wire answered");
        let response = typed.response.take().expect("a request's response");
        assert_eq!(typed, out.output, "the typed way answers otherwise");
        let (_, read) = response_json(dialect, key, version, &out.frame)
            .unwrap_or_else(|e| panic!("a response frame that does not read back: {e:?}"));
        assert_eq!(
            Some(read),
            response_as_wire_json(dialect, version, &response)
        );
    }
}

/// The client id of a request frame's header.
fn out_client_id(frame: &[u8]) -> String {
    streams_group_coordinator::wire::read_header(frame)
        .map(|(h, _)| h.client_id.unwrap_or_default())
        .unwrap_or_default()
}

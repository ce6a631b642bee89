//! Post-mortems from a log: reads a group's records as an operator has them (the text
//! `kafka-dump-log.sh --offsets-decoder` prints, a raw `__consumer_offsets` log segment, JSON
//! records with or without `keyBytes` / `valueBytes`, or the JSON-lines outputs of `sgc`),
//! replays them and tells each group's history from the records alone: who joined, left or
//! was fenced, each epoch bump and its reasons, what each target assignment moved and how long
//! each member took to reconcile.
//!
//! Records say less than requests: a leave (-1) and a session or rebalance timeout write the
//! same tombstones, so such a removal is told with the cause `UNKNOWN`; a bump whose cause no
//! record shows (a manual target, for instance) has the reason `UNKNOWN`. Everything else uses
//! `explain`'s codes and meanings (DESIGN 3).
//!
//! Kafka's dump-log prints `"type"` and `"version"` as strings and a tombstone's payload as
//! `<DELETE>`; both that form and this crate's (numbers, `null`) are read. Nothing here
//! panics on input: a line or record that cannot be read is a [`LogError`] naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Map, Value};

use crate::group::{self, Group, MemberState};
use crate::ordered::Ordered;
use crate::records::{
    record_from_bytes_at, record_from_json, Dialect, KeyValue, Record, RecordKey, RecordValue,
    TopologyValue,
};
use crate::tasks::count;
use targets::{TargetBook, TargetCounts};

mod targets;

/// One record read from a log, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    /// The log offset, when the source shows it.
    pub offset: Option<i64>,
    /// The record's timestamp (`CreateTime`), when the source shows it.
    pub timestamp_ms: Option<i64>,
    /// The batch (one coordinator write) it belongs to, when the source shows batches.
    pub batch: Option<u64>,
    /// The record.
    pub record: Record,
}

/// A read log: the coordinator records in log order.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedLog {
    /// The dialect the records were read in.
    pub dialect: Dialect,
    /// `dump-log`, `segment`, `json` or `outputs`.
    pub form: &'static str,
    /// The records in log order.
    pub records: Vec<LogRecord>,
    /// Records of other kinds (offset commits, consumer or share groups, unknown types).
    pub skipped: usize,
}

/// Why a log could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError {
    /// 1-based line of a text log.
    pub line: Option<usize>,
    /// Byte position in a raw segment.
    pub position: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.position) {
            (Some(l), _) => write!(f, "line {l}: {}", self.message),
            (None, Some(p)) => write!(f, "byte {p}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LogError {}

fn line_err(line: usize, message: impl Into<String>) -> LogError {
    LogError {
        line: Some(line),
        position: None,
        message: message.into(),
    }
}

fn pos_err(position: usize, message: impl Into<String>) -> LogError {
    LogError {
        line: None,
        position: Some(position),
        message: message.into(),
    }
}

/// A record before the dialect is known: its JSON form (either kind) or its bytes, and where
/// it came from.
struct RawEntry<'a> {
    line: Option<usize>,
    position: Option<usize>,
    offset: Option<i64>,
    timestamp_ms: Option<i64>,
    batch: Option<u64>,
    source: Source<'a>,
}

/// A record as the log holds it.
enum Source<'a> {
    Json(Value),
    /// A segment's key and value (`None`: a tombstone), lent by the segment: read as they
    /// are, with no copy (and no JSON tree) per record.
    Bytes(&'a [u8], Option<&'a [u8]>),
}

/// Reads a log in any of the supported forms. `dialect` `None` guesses it from the record
/// type ids (4.2 unless only draft ids appear).
pub fn parse_log(input: &[u8], dialect: Option<Dialect>) -> Result<ParsedLog, LogError> {
    let (form, entries) = if input.first() == Some(&0) {
        ("segment", parse_segment(input)?)
    } else {
        let text = std::str::from_utf8(input).map_err(|e| LogError {
            line: None,
            position: Some(e.valid_up_to()),
            message: "neither text (UTF-8) nor a log segment (which starts with a zero byte)"
                .to_string(),
        })?;
        parse_text(text)?
    };
    let dialect = dialect.unwrap_or_else(|| guess_dialect(&entries));
    let mut records = Vec::with_capacity(entries.len());
    let mut skipped = 0;
    // Each entry's JSON is freed once its record is read: the two are not held whole at once.
    for (i, e) in entries.into_iter().enumerate() {
        let read = match &e.source {
            Source::Json(json) => record_from_json(dialect, json, &format!("records[{i}]")),
            Source::Bytes(key, value) => record_from_bytes_at(dialect, key, *value, "records", i),
        };
        match read {
            Ok(Some(record)) => records.push(LogRecord {
                offset: e.offset,
                timestamp_ms: e.timestamp_ms,
                batch: e.batch,
                record,
            }),
            Ok(None) => skipped += 1,
            Err(err) => {
                let at = e
                    .offset
                    .map(|o| format!("the record at offset {o}"))
                    .unwrap_or_else(|| "a record".to_string());
                let message = format!(
                    "{at} is not a {} streams group record: {} (at {})",
                    dialect.name(),
                    err.message,
                    err.path
                );
                return Err(LogError {
                    line: e.line,
                    position: e.position,
                    message,
                });
            }
        }
    }
    Ok(ParsedLog {
        dialect,
        form,
        records,
        skipped,
    })
}

/// The record type id of an entry (JSON `key.type`, or the first int16 of `keyBytes`).
fn type_of(v: &Value) -> Option<i64> {
    if let Some(t) = v
        .get("key")
        .and_then(|k| k.get("type"))
        .and_then(Value::as_i64)
    {
        return Some(t);
    }
    type_id(&STANDARD.decode(v.get("keyBytes")?.as_str()?).ok()?)
}

/// The record type id a key's bytes open with.
fn type_id(key: &[u8]) -> Option<i64> {
    match key {
        [hi, lo, ..] => Some(i64::from(i16::from_be_bytes([*hi, *lo]))),
        _ => None,
    }
}

fn guess_dialect(entries: &[RawEntry<'_>]) -> Dialect {
    let types: BTreeSet<i64> = entries
        .iter()
        .filter_map(|e| match &e.source {
            Source::Json(json) => type_of(json),
            Source::Bytes(key, _) => type_id(key),
        })
        .to_set();
    if types.contains(&22) || types.contains(&23) {
        Dialect::Kafka42
    } else if types.contains(&18) || types.contains(&21) {
        Dialect::Kip1071Draft
    } else {
        Dialect::Kafka42
    }
}

// ---------------------------------------------------------------------------------------------
// Text forms.

fn parse_text(text: &str) -> Result<(&'static str, Vec<RawEntry<'static>>), LogError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let list: Value = serde_json::from_str(trimmed)
            .map_err(|e| line_err(e.line(), format!("not a JSON list of records: {e}")))?;
        let Value::Array(list) = list else {
            return Ok(("json", Vec::new()));
        };
        // The list's items are moved into the entries, not copied: a log is read once.
        let mut entries = Vec::with_capacity(list.len());
        for (i, v) in list.into_iter().enumerate() {
            entries.push(RawEntry {
                line: None,
                position: None,
                offset: Some(i as i64),
                timestamp_ms: None,
                batch: None,
                source: Source::Json(normalize(v)),
            });
        }
        return Ok(("json", entries));
    }
    let mut entries = Vec::new();
    let mut batch: Option<u64> = None;
    let mut batches = 0u64;
    let mut dump = false;
    let mut outputs = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("baseOffset:") {
            batch = Some(batches);
            batches += 1;
            continue;
        }
        if let Some(k) = line.find(" key: ") {
            if line.starts_with('|') || line.starts_with("offset:") {
                dump = true;
                if let Some(json) = dump_record(line, k, n)? {
                    entries.push(RawEntry {
                        line: Some(n),
                        position: None,
                        offset: number_after(line, "offset: "),
                        timestamp_ms: number_after(line, "CreateTime: "),
                        batch,
                        source: Source::Json(json),
                    });
                } else {
                    entries.push(RawEntry {
                        line: Some(n),
                        position: None,
                        offset: number_after(line, "offset: "),
                        timestamp_ms: None,
                        batch,
                        source: Source::Json(
                            json!({"key": {"type": -1, "data": {}}, "value": null}),
                        ),
                    });
                }
                continue;
            }
        }
        if !line.starts_with('{') {
            // Headers of the dump-log tool ("Dumping ...", "Log starting offset: 0", ...).
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| line_err(n, format!("not a JSON object: {e}")))?;
        if let Some(list) = v.get("records").and_then(Value::as_array) {
            // An output of the coordinator (`sgc` or `handle`): one batch.
            outputs = true;
            let b = batches;
            batches += 1;
            let now = v.get("nowMs").and_then(Value::as_i64);
            for r in list {
                entries.push(RawEntry {
                    line: Some(n),
                    position: None,
                    offset: Some(entries.len() as i64),
                    timestamp_ms: now,
                    batch: Some(b),
                    source: Source::Json(normalize(r.clone())),
                });
            }
        } else if v.get("error").is_some() || v.get("response").is_some() {
            // A boundary error or an output without records: nothing was written.
            outputs = true;
        } else if v.get("key").is_some() || v.get("keyBytes").is_some() {
            entries.push(RawEntry {
                line: Some(n),
                position: None,
                offset: v
                    .get("offset")
                    .and_then(Value::as_i64)
                    .or(Some(entries.len() as i64)),
                timestamp_ms: v.get("timestampMs").and_then(Value::as_i64),
                batch: v.get("batch").and_then(Value::as_u64),
                source: Source::Json(normalize(strip_location(v))),
            });
        } else if v.get("type").is_some() && v.get("nowMs").is_some() {
            return Err(line_err(
                n,
                "this is a coordinator input, not a record; run the inputs through `sgc` and pass its outputs",
            ));
        } else {
            return Err(line_err(
                n,
                "not a record (key/value or keyBytes/valueBytes), a coordinator output or a kafka-dump-log.sh line",
            ));
        }
    }
    let form = if dump {
        "dump-log"
    } else if outputs {
        "outputs"
    } else {
        "json"
    };
    Ok((form, entries))
}

fn strip_location(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("offset");
        o.remove("timestampMs");
        o.remove("batch");
    }
    v
}

/// The integer after `label` in a dump-log line (`offset: 12`, `CreateTime: 1700000000000`).
fn number_after(line: &str, label: &str) -> Option<i64> {
    let mut from = 0;
    while let Some(i) = line.get(from..)?.find(label) {
        let at = from + i;
        // "offset: " must not match inside "baseOffset: " or "lastOffset: ".
        let word_start = at == 0
            || line
                .as_bytes()
                .get(at - 1)
                .is_some_and(|b| !b.is_ascii_alphanumeric());
        let rest = line.get(at + label.len()..)?;
        if word_start {
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            return digits.parse().ok();
        }
        from = at + label.len();
    }
    None
}

/// The record of a dump-log record line: `... key: {json} payload: {json}|<DELETE>`.
/// `None` for a line about a record the decoder could not read ("Unknown record type ...").
fn dump_record(line: &str, key_at: usize, n: usize) -> Result<Option<Value>, LogError> {
    let rest = line.get(key_at + " key: ".len()..).unwrap_or_default();
    if !rest.starts_with('{') {
        return Ok(None);
    }
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    let key = match stream.next() {
        Some(Ok(k)) => k,
        Some(Err(e)) => return Err(line_err(n, format!("the key is not JSON: {e}"))),
        None => return Err(line_err(n, "the key is missing")),
    };
    let after = rest
        .get(stream.byte_offset()..)
        .unwrap_or_default()
        .trim_start();
    let value = if let Some(p) = after.strip_prefix("payload:") {
        let p = p.trim();
        if p == "<DELETE>" || p.is_empty() {
            Value::Null
        } else {
            let mut s = serde_json::Deserializer::from_str(p).into_iter::<Value>();
            match s.next() {
                Some(Ok(v)) => v,
                Some(Err(e)) => return Err(line_err(n, format!("the payload is not JSON: {e}"))),
                None => Value::Null,
            }
        }
    } else {
        // A record without a value is a tombstone.
        Value::Null
    };
    Ok(Some(normalize(json!({"key": key, "value": value}))))
}

/// Kafka's dump-log form to this crate's: string `type` / `version` become numbers and a
/// `"<DELETE>"` value becomes `null`.
fn normalize(mut v: Value) -> Value {
    fn number(x: &mut Value) {
        if let Some(n) = x.as_str().and_then(|s| s.trim().parse::<i64>().ok()) {
            *x = Value::from(n);
        }
    }
    if let Some(o) = v.as_object_mut() {
        if let Some(t) = o.get_mut("key").and_then(|k| k.get_mut("type")) {
            number(t);
        }
        if o.get("value").and_then(Value::as_str) == Some("<DELETE>") {
            o.insert("value".into(), Value::Null);
        }
        if let Some(ver) = o.get_mut("value").and_then(|x| x.get_mut("version")) {
            number(ver);
        }
        if o.get("valueBytes").and_then(Value::as_str) == Some("<DELETE>") {
            o.insert("valueBytes".into(), Value::Null);
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Raw log segments (Kafka's record batch format, magic 2).

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], LogError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| pos_err(self.pos, "the segment ends in the middle of a record batch"))?;
        let s = self.bytes.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        Ok(s)
    }

    fn int<const N: usize>(&mut self) -> Result<[u8; N], LogError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn varlong(&mut self) -> Result<i64, LogError> {
        let start = self.pos;
        let mut raw: u64 = 0;
        for shift in (0..70).step_by(7) {
            let b = *self.take(1)?.first().unwrap_or(&0);
            if shift >= 64 {
                return Err(pos_err(start, "a varint is too long"));
            }
            raw |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64));
            }
        }
        Err(pos_err(start, "a varint is too long"))
    }

    /// A varint-length-prefixed byte string; `None` for length -1.
    fn bytes(&mut self) -> Result<Option<&'a [u8]>, LogError> {
        let at = self.pos;
        let len = self.varlong()?;
        if len < 0 {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| pos_err(at, "a length is out of range"))?;
        self.take(len).map(Some)
    }
}

fn parse_segment(bytes: &[u8]) -> Result<Vec<RawEntry<'_>>, LogError> {
    let mut entries = Vec::new();
    let mut r = Reader { bytes, pos: 0 };
    let mut batch_no = 0u64;
    while r.pos < bytes.len() {
        let batch_start = r.pos;
        if bytes.len() - r.pos < 12 {
            // A preallocated segment ends in zeros; a partial header otherwise.
            if bytes
                .get(r.pos..)
                .unwrap_or_default()
                .iter()
                .all(|&b| b == 0)
            {
                break;
            }
            return Err(pos_err(
                r.pos,
                "the segment ends in the middle of a record batch header",
            ));
        }
        let base_offset = i64::from_be_bytes(r.int::<8>()?);
        let length = i32::from_be_bytes(r.int::<4>()?);
        if length == 0 && base_offset == 0 {
            break; // preallocated zeros
        }
        let length = usize::try_from(length)
            .ok()
            .filter(|&l| l >= 49)
            .ok_or_else(|| {
                pos_err(
                    batch_start,
                    format!("record batch length {length} is not valid"),
                )
            })?;
        let body = r.take(length)?;
        let mut b = Reader {
            bytes: body,
            pos: 0,
        };
        let fix = |e: LogError| LogError {
            position: e.position.map(|p| batch_start + 12 + p),
            ..e
        };
        let _leader_epoch = b.int::<4>().map_err(fix)?;
        let magic = b.int::<1>().map_err(fix)?[0];
        if magic != 2 {
            return Err(pos_err(
                batch_start,
                format!(
                    "record batch magic {magic}: only the v2 format (Kafka 0.11 and later) is read"
                ),
            ));
        }
        let _crc = b.int::<4>().map_err(fix)?;
        let attributes = i16::from_be_bytes(b.int::<2>().map_err(fix)?);
        let _last_offset_delta = b.int::<4>().map_err(fix)?;
        let base_ts = i64::from_be_bytes(b.int::<8>().map_err(fix)?);
        let _max_ts = b.int::<8>().map_err(fix)?;
        let _producer = b.int::<8>().map_err(fix)?;
        let _producer_epoch = b.int::<2>().map_err(fix)?;
        let _base_seq = b.int::<4>().map_err(fix)?;
        let n = i32::from_be_bytes(b.int::<4>().map_err(fix)?);
        let this_batch = batch_no;
        batch_no += 1;
        if attributes & 0x20 != 0 {
            continue; // a control batch (transaction markers)
        }
        if attributes & 0x07 != 0 {
            return Err(pos_err(
                batch_start,
                "a compressed record batch: decompress the segment first (kafka-dump-log.sh --offsets-decoder prints it as text, which is read too)",
            ));
        }
        for _ in 0..n.max(0) {
            let at = batch_start + 12 + b.pos;
            let _len = b.varlong().map_err(fix)?;
            let _attr = b.int::<1>().map_err(fix)?;
            let ts_delta = b.varlong().map_err(fix)?;
            let offset_delta = b.varlong().map_err(fix)?;
            let key = b.bytes().map_err(fix)?;
            let value = b.bytes().map_err(fix)?;
            let headers = b.varlong().map_err(fix)?;
            for _ in 0..headers.max(0) {
                b.bytes().map_err(fix)?;
                b.bytes().map_err(fix)?;
            }
            let Some(key) = key else {
                return Err(pos_err(at, "a record without a key"));
            };
            entries.push(RawEntry {
                line: None,
                position: Some(at),
                offset: Some(base_offset.saturating_add(offset_delta)),
                timestamp_ms: Some(base_ts.saturating_add(ts_delta)),
                batch: Some(this_batch),
                source: Source::Bytes(key, value),
            });
        }
    }
    Ok(entries)
}

// ---------------------------------------------------------------------------------------------
// Telling the history.

/// One thing that happened, in `explain`'s style: `code`, `groupId`, the code's fields, and
/// where in the log (`index` of the record, `offset`, `timestampMs` when known) plus `text`.
pub type Event = Map<String, Value>;

/// A member removal waiting for the record that tells what it was (a bump, or a static
/// member's replacement).
struct Removed {
    member_id: String,
    instance_id: Option<String>,
    was_away: bool,
}

#[derive(Default)]
struct Tracker {
    events: Vec<Event>,
    removed: Vec<Removed>,
    joined: Vec<String>,
    changed: Vec<String>,
    topology: Option<&'static str>,
    topics: bool,
    /// The target as of the last target assignment metadata record.
    targets: TargetBook,
    /// Timestamp of the target assignment metadata record of each assignment epoch.
    target_at: BTreeMap<i32, Option<i64>>,
    /// Members at -2 (a static member away).
    away: BTreeSet<String>,
    state: Option<&'static str>,
    bumps: u64,
    reconciled: Vec<Option<i64>>,
    deleted: bool,
}

struct Place {
    index: usize,
    offset: Option<i64>,
    timestamp_ms: Option<i64>,
}

fn event(code: &str, group_id: &str, at: &Place, fields: Value, text: String) -> Event {
    let mut e = Map::new();
    e.insert("code".into(), code.into());
    e.insert("groupId".into(), group_id.into());
    if let Value::Object(f) = fields {
        e.extend(f);
    }
    e.insert("index".into(), at.index.into());
    e.insert("offset".into(), json!(at.offset));
    e.insert("timestampMs".into(), json!(at.timestamp_ms));
    e.insert("text".into(), text.into());
    e
}

const REASON_TEXT: &[(&str, &str)] = &[
    ("MEMBER_JOINED", "a new member joined"),
    ("MEMBER_LEFT_OR_FENCED", "a member left or was fenced"),
    ("MEMBER_FENCED", "a member was fenced"),
    ("MEMBER_METADATA_CHANGED", "a member's metadata changed"),
    ("TOPOLOGY_INITIALIZED", "the topology was initialized"),
    ("TOPOLOGY_CHANGED", "the topology changed"),
    ("TOPIC_METADATA_CHANGED", "the group's topics changed"),
    (
        "ASSIGNMENT_CONFIG_CHANGED",
        "the assignment configuration changed",
    ),
    (
        "TOPOLOGY_READINESS_CHANGED",
        "the topology became ready or stopped being ready",
    ),
    (
        "UNKNOWN",
        "unknown (no record shows the cause; a manual target assignment is one)",
    ),
];

fn reason_text(r: &str) -> &str {
    REASON_TEXT
        .iter()
        .find(|(k, _)| *k == r)
        .map_or(r, |(_, t)| t)
}

fn fmt_ms(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 120_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{:.1} min", ms as f64 / 60_000.0)
    }
}

fn who(member_id: &str, instance: Option<&str>) -> String {
    match instance {
        Some(i) => format!("{member_id} (instance {i})"),
        None => member_id.to_string(),
    }
}

impl Tracker {
    fn flush_removed(&mut self, gid: &str, at: &Place) {
        for r in std::mem::take(&mut self.removed) {
            let (cause, text) = if r.was_away {
                (
                    "SESSION_TIMEOUT",
                    format!(
                        "{} was removed: it had left temporarily (-2) and did not come back within its session timeout.",
                        who(&r.member_id, r.instance_id.as_deref())
                    ),
                )
            } else {
                (
                    "UNKNOWN",
                    format!(
                        "{} left the group or was fenced (the records do not say which: a leave and a session or rebalance timeout write the same records).",
                        who(&r.member_id, r.instance_id.as_deref())
                    ),
                )
            };
            self.events.push(event(
                "MEMBER_REMOVED",
                gid,
                at,
                json!({"memberId": r.member_id, "instanceId": r.instance_id, "cause": cause}),
                text,
            ));
        }
    }
}

/// What a record's telling reads of its group as it was before the record: only what that
/// kind of record needs, so that a record costs what it changes, not a copy of its group.
#[derive(Default)]
struct Before {
    group_epoch: i32,
    /// A topology record: the group's topology.
    topology: Option<TopologyValue>,
    /// A group metadata record of 4.2: what the group's previous one said.
    kafka42: Option<Kafka42Before>,
    /// A target assignment metadata record: the tasks of departed members not yet reassigned,
    /// for the count of those the new target reassigns.
    orphaned: BTreeSet<(String, i32)>,
}

/// The fields of a 4.2 group metadata record whose change a group epoch bump is told by.
struct Kafka42Before {
    metadata_hash: i64,
    validated_topology_epoch: i32,
    last_assignment_configs: Option<Vec<KeyValue>>,
}

impl Before {
    fn of(group: Option<&Group>, rec: &Record) -> Before {
        let Some(g) = group else {
            return Before::default();
        };
        let mut before = Before {
            group_epoch: g.group_epoch,
            ..Before::default()
        };
        match (&rec.key, &rec.value) {
            (RecordKey::Topology { .. }, Some(_)) => before.topology = g.topology.clone(),
            (RecordKey::GroupMetadata { .. }, Some(_)) => {
                before.kafka42 = g.kafka42().map(|k| Kafka42Before {
                    metadata_hash: k.metadata_hash,
                    validated_topology_epoch: k.validated_topology_epoch,
                    last_assignment_configs: k.last_assignment_configs.clone(),
                })
            }
            (RecordKey::TargetAssignmentMetadata { .. }, Some(_)) => {
                before.orphaned = g.orphaned.clone()
            }
            _ => {}
        }
        before
    }
}

/// The history of every group in a read log.
pub fn tell(log: &ParsedLog) -> Value {
    let dialect = log.dialect;
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let mut trackers: BTreeMap<String, Tracker> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let n = log.records.len();
    for (index, lr) in log.records.iter().enumerate() {
        let rec = &lr.record;
        let gid = rec.key.group_id().to_string();
        if !trackers.contains_key(&gid) {
            order.push(gid.clone());
        }
        let t = trackers.entry(gid.clone()).or_default();
        let at = Place {
            index,
            offset: lr.offset,
            timestamp_ms: lr.timestamp_ms,
        };
        let before = Before::of(groups.get(&gid), rec);
        let old_member = rec
            .key
            .member_id()
            .and_then(|m| groups.get(&gid).and_then(|g| g.members.get(m)).cloned());
        // Removals are told once the next record shows what they were.
        let continues_removal = matches!(
            (&rec.key, &rec.value),
            (RecordKey::MemberMetadata { .. }, Some(_)) | (_, None)
        );
        if !continues_removal && !matches!(rec.key, RecordKey::GroupMetadata { .. }) {
            t.flush_removed(&gid, &at);
        }
        if let Err(e) = group::apply(
            &mut groups,
            rec,
            &crate::topology::Limits::default(),
            dialect,
        ) {
            t.events.push(event(
                "RECORD_NOT_APPLIED",
                &gid,
                &at,
                json!({"message": e.to_string()}),
                format!("A record could not be applied and was skipped: {e}"),
            ));
            continue;
        }
        if let RecordKey::TargetAssignmentMember { member_id, .. }
        | RecordKey::MemberMetadata { member_id, .. } = &rec.key
        {
            t.targets.touch(member_id);
        }
        let g = groups.get(&gid);
        match (&rec.key, &rec.value) {
            (
                RecordKey::MemberMetadata { member_id, .. },
                Some(RecordValue::MemberMetadata(md)),
            ) => match &old_member {
                None => {
                    let replaced = md.instance_id.as_ref().and_then(|i| {
                        t.removed
                            .iter()
                            .position(|r| r.instance_id.as_ref() == Some(i))
                    });
                    if let Some(pos) = replaced {
                        let old = t.removed.remove(pos);
                        t.targets.replace(&old.member_id, member_id);
                        t.away.remove(&old.member_id);
                        let instance = md.instance_id.clone().unwrap_or_default();
                        t.events.push(event(
                                "STATIC_MEMBER_REPLACED",
                                &gid,
                                &at,
                                json!({"instanceId": instance, "oldMemberId": old.member_id, "newMemberId": member_id}),
                                format!("Static member {instance} came back as {member_id} (was {}): it takes over its tasks and target; no rebalance.", old.member_id),
                            ));
                    } else {
                        t.joined.push(member_id.clone());
                        let text = format!(
                            "{} joined (process {}, client {} from {}{}).",
                            who(member_id, md.instance_id.as_deref()),
                            md.process_id,
                            md.client_id,
                            md.client_host,
                            md.rack_id
                                .as_ref()
                                .map(|r| format!(", rack {r}"))
                                .unwrap_or_default()
                        );
                        t.events.push(event(
                                "MEMBER_JOINED",
                                &gid,
                                &at,
                                json!({"memberId": member_id, "instanceId": md.instance_id, "processId": md.process_id, "clientId": md.client_id, "clientHost": md.client_host}),
                                text,
                            ));
                    }
                }
                Some(old) if old.metadata != *md => t.changed.push(member_id.clone()),
                Some(_) => {}
            },
            (RecordKey::MemberMetadata { member_id, .. }, None) => {
                if let Some(old) = &old_member {
                    t.removed.push(Removed {
                        member_id: member_id.clone(),
                        instance_id: old.metadata.instance_id.clone(),
                        was_away: t.away.remove(member_id),
                    });
                }
            }
            (RecordKey::Topology { .. }, Some(RecordValue::Topology(v))) => {
                let had = before.topology;
                if had.as_ref() != Some(v) {
                    t.topology = Some(if had.is_none() {
                        "TOPOLOGY_INITIALIZED"
                    } else {
                        "TOPOLOGY_CHANGED"
                    });
                    let id = if dialect == Dialect::Kafka42 {
                        format!("epoch {}", v.epoch)
                    } else {
                        format!("id {}", v.topology_id.get(..12).unwrap_or(&v.topology_id))
                    };
                    t.events.push(event(
                        "TOPOLOGY_STORED",
                        &gid,
                        &at,
                        json!({"topologyId": (dialect == Dialect::Kip1071Draft).then(|| v.topology_id.clone()), "topologyEpoch": (dialect == Dialect::Kafka42).then_some(v.epoch), "subtopologies": v.subtopologies.len()}),
                        format!(
                            "The group stores a {} topology ({id}, {} subtopologies).",
                            if had.is_none() { "first" } else { "new" },
                            v.subtopologies.len()
                        ),
                    ));
                }
            }
            (RecordKey::PartitionMetadata { .. }, _) => t.topics = true,
            (RecordKey::GroupMetadata { .. }, Some(RecordValue::GroupMetadata(v))) => {
                let from = before.group_epoch;
                if v.epoch != from {
                    let mut reasons: Vec<&str> = Vec::new();
                    if !t.joined.is_empty() {
                        reasons.push("MEMBER_JOINED");
                    }
                    if t.removed.iter().any(|r| !r.was_away) {
                        reasons.push("MEMBER_LEFT_OR_FENCED");
                    }
                    if t.removed.iter().any(|r| r.was_away) {
                        reasons.push("MEMBER_FENCED");
                    }
                    if !t.changed.is_empty() {
                        reasons.push("MEMBER_METADATA_CHANGED");
                    }
                    if let Some(r) = t.topology {
                        reasons.push(r);
                    }
                    let old = before.kafka42.as_ref();
                    let hash_changed = old.is_some_and(|k| {
                        k.metadata_hash != 0 && k.metadata_hash != v.metadata_hash
                    });
                    // A new group (epoch 0) writes its first view of the topics without a reason.
                    if from > 0 && t.topology.is_none() && (t.topics || hash_changed) {
                        reasons.push("TOPIC_METADATA_CHANGED");
                    }
                    if dialect == Dialect::Kafka42
                        && t.topology.is_none()
                        && old.is_some_and(|k| {
                            k.validated_topology_epoch != v.validated_topology_epoch
                        })
                    {
                        reasons.push("TOPOLOGY_READINESS_CHANGED");
                    }
                    // Configs known before (the default is the empty list) and changed.
                    if old.is_some_and(|k| {
                        k.last_assignment_configs
                            .as_ref()
                            .is_some_and(|c| !c.is_empty())
                            && k.last_assignment_configs != v.last_assignment_configs
                    }) {
                        reasons.push("ASSIGNMENT_CONFIG_CHANGED");
                    }
                    if reasons.is_empty() {
                        reasons.push("UNKNOWN");
                    }
                    t.flush_removed(&gid, &at);
                    t.bumps += 1;
                    let text = format!(
                        "Group epoch {from} → {}: {}.",
                        v.epoch,
                        reasons
                            .iter()
                            .map(|r| reason_text(r))
                            .collect::<Vec<_>>()
                            .join("; ")
                    );
                    t.events.push(event(
                        "GROUP_EPOCH_BUMPED",
                        &gid,
                        &at,
                        json!({"from": from, "to": v.epoch, "reasons": reasons}),
                        text,
                    ));
                }
                t.joined.clear();
                t.changed.clear();
                t.topology = None;
                t.topics = false;
            }
            (
                RecordKey::TargetAssignmentMetadata { .. },
                Some(RecordValue::TargetAssignmentMetadata(v)),
            ) => {
                if let Some(g) = g {
                    let TargetCounts {
                        moved,
                        reassigned,
                        active: tasks,
                        standby,
                        warmup,
                        members,
                    } = t.targets.next(g, &before.orphaned);
                    let mut extra = String::new();
                    if standby > 0 || warmup > 0 {
                        extra = format!(" (+{standby} standby, {warmup} warm-up)");
                    }
                    t.events.push(event(
                        "TARGET_ASSIGNMENT_COMPUTED",
                        &gid,
                        &at,
                        json!({"assignmentEpoch": v.assignment_epoch, "tasksMoved": moved, "tasksReassigned": reassigned, "activeTasks": tasks, "standbyTasks": standby, "warmupTasks": warmup, "members": members}),
                        format!(
                            "Target assignment for epoch {}: {tasks} active tasks{extra} over {} members; {moved} moved between members, {reassigned} of departed members reassigned.",
                            v.assignment_epoch,
                            members
                        ),
                    ));
                    t.target_at.insert(v.assignment_epoch, lr.timestamp_ms);
                }
            }
            (
                RecordKey::CurrentMemberAssignment { member_id, .. },
                Some(RecordValue::CurrentMemberAssignment(v)),
            ) => {
                if let Some(g) = g {
                    let ms = MemberState::from_code(v.state);
                    let was = old_member
                        .as_ref()
                        .map(|m| (m.member_epoch, m.member_state()));
                    if v.member_epoch == -2 {
                        if t.away.insert(member_id.clone()) {
                            t.events.push(event(
                                "STATIC_MEMBER_LEFT_TEMPORARILY",
                                &gid,
                                &at,
                                json!({"memberId": member_id}),
                                format!("{member_id} left temporarily (-2): it keeps its tasks and nobody else gets them until it returns or its session times out."),
                            ));
                        }
                    } else if let Some((_, old_state)) = was {
                        if old_state != ms {
                            t.events.push(event(
                                "MEMBER_STATE_CHANGED",
                                &gid,
                                &at,
                                json!({"memberId": member_id, "from": old_state.name(), "to": ms.name(), "memberEpoch": v.member_epoch}),
                                format!("{member_id}: {} → {} at epoch {}.", old_state.name(), ms.name(), v.member_epoch),
                            ));
                        }
                    }
                    let reconciled_now = ms == MemberState::Stable
                        && v.member_epoch == g.assignment_epoch
                        && v.member_epoch > 0;
                    let reconciled_before =
                        was.is_some_and(|(e, s)| e == v.member_epoch && s == MemberState::Stable);
                    if reconciled_now && !reconciled_before {
                        let took = t
                            .target_at
                            .get(&v.member_epoch)
                            .copied()
                            .flatten()
                            .zip(lr.timestamp_ms)
                            .map(|(a, b)| b.saturating_sub(a).max(0));
                        t.reconciled.push(took);
                        let when = took.map_or_else(
                            || " (the log has no timestamps)".to_string(),
                            |ms| format!(" in {} after its target was computed", fmt_ms(ms)),
                        );
                        let tasks = g
                            .members
                            .get(member_id)
                            .map_or(0, |m| count(&m.assigned.active));
                        t.events.push(event(
                            "MEMBER_RECONCILED",
                            &gid,
                            &at,
                            json!({"memberId": member_id, "memberEpoch": v.member_epoch, "activeTasks": tasks, "tookMs": took}),
                            format!("{member_id} reconciled to epoch {} ({tasks} active tasks){when}.", v.member_epoch),
                        ));
                    }
                    if v.member_epoch != -2 {
                        t.away.remove(member_id);
                    }
                }
            }
            (RecordKey::GroupMetadata { .. }, None) => {
                t.deleted = true;
                t.target_at.clear();
                t.targets.clear();
                t.away.clear();
                t.events.push(event(
                    "GROUP_DELETED",
                    &gid,
                    &at,
                    json!({"cause": "UNKNOWN"}),
                    "The group was deleted (DeleteGroups or the retention timer: the records do not say which).".to_string(),
                ));
            }
            _ => {}
        }
        // Group states between coordinator writes (at a batch end when the log shows batches).
        let batch_ends = match (lr.batch, log.records.get(index + 1)) {
            (Some(b), Some(next)) => next.batch != Some(b),
            _ => true,
        };
        if batch_ends || index + 1 == n {
            let now = groups.get(&gid).map(|g| g.state().code());
            let now = now.unwrap_or("DEAD");
            let prev = t.state.unwrap_or("NONE");
            if prev != now && !(prev == "NONE" && now == "DEAD") {
                if t.state.is_some() {
                    t.events.push(event(
                        "GROUP_STATE_CHANGED",
                        &gid,
                        &at,
                        json!({"from": prev, "to": now}),
                        format!("Group {prev} → {now}."),
                    ));
                }
                t.state = Some(now);
            }
            if lr.batch.is_some() {
                let end = Place {
                    index,
                    offset: lr.offset,
                    timestamp_ms: lr.timestamp_ms,
                };
                t.flush_removed(&gid, &end);
                // Causes that no bump consumed within their write (a metadata update without
                // a rebalance) are not causes of a later bump.
                t.joined.clear();
                t.changed.clear();
                t.topology = None;
                t.topics = false;
            }
        }
    }
    let last = Place {
        index: n,
        offset: None,
        timestamp_ms: None,
    };
    let mut out = Vec::new();
    // Looked up, not removed: no removal code for this map type in the module.
    for gid in order {
        let Some(t) = trackers.get_mut(&gid) else {
            continue;
        };
        t.flush_removed(&gid, &last);
        let g = groups.get(&gid);
        let times: Vec<i64> = t.reconciled.iter().flatten().copied().collect();
        let summary = json!({
            "state": g.map_or("DEAD", |g| g.state().code()),
            "groupEpoch": g.map(|g| g.group_epoch),
            "assignmentEpoch": g.map(|g| g.assignment_epoch),
            "members": g.map_or(0, |g| g.members.len()),
            "epochBumps": t.bumps,
            "reconciliations": t.reconciled.len(),
            "slowestReconcileMs": times.iter().max(),
            "deleted": t.deleted && g.is_none(),
        });
        let events = std::mem::take(&mut t.events);
        out.push(json!({"groupId": gid, "summary": summary, "events": events}));
    }
    json!({
        "dialect": dialect.name(),
        "records": log.records.len(),
        "skipped": log.skipped,
        "groups": out,
    })
}

/// The history as text: per group, epoch by epoch.
pub fn render_text(history: &Value) -> String {
    let mut s = String::new();
    let records = history["records"].as_u64().unwrap_or(0);
    let skipped = history["skipped"].as_u64().unwrap_or(0);
    s += &format!(
        "{records} streams group records ({} dialect){}\n",
        history["dialect"].as_str().unwrap_or("?"),
        if skipped > 0 {
            format!(", {skipped} records of other kinds skipped")
        } else {
            String::new()
        }
    );
    for g in history["groups"].as_array().into_iter().flatten() {
        let sum = &g["summary"];
        s += &format!(
            "\ngroup {}: {} epoch bumps, now {} at epoch {} with {} members",
            g["groupId"].as_str().unwrap_or("?"),
            sum["epochBumps"],
            sum["state"].as_str().unwrap_or("?"),
            sum["groupEpoch"],
            sum["members"]
        );
        if let Some(ms) = sum["slowestReconcileMs"].as_i64() {
            s += &format!("; slowest reconciliation {}", fmt_ms(ms));
        }
        s += "\n";
        for e in g["events"].as_array().into_iter().flatten() {
            let code = e["code"].as_str().unwrap_or("");
            if code == "GROUP_EPOCH_BUMPED" {
                s += &format!("  epoch {}\n", e["to"]);
            }
            let at = match (e["offset"].as_i64(), e["timestampMs"].as_i64()) {
                (Some(o), Some(t)) => format!("@{o} t={t}"),
                (Some(o), None) => format!("@{o}"),
                (None, Some(t)) => format!("t={t}"),
                (None, None) => String::new(),
            };
            s += &format!("    {at:<18} {}\n", e["text"].as_str().unwrap_or(""));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn history_reads_kafka_dump_log_form() {
        let text = r#"Dumping /tmp/kafka-logs/__consumer_offsets-7/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 0 lastSequence: 1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 5 size: 200 magic: 2 compresscodec: none crc: 1 isvalid: true
| offset: 0 CreateTime: 5 keySize: 10 valueSize: 10 sequence: 0 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":2,"metadataHash":0,"validatedTopologyEpoch":-1}}
| offset: 1 CreateTime: 5 keySize: 10 valueSize: -1 sequence: 1 headerKeys: [] key: {"type":"99","data":{}} payload: <DELETE>
"#;
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!(log.form, "dump-log");
        assert_eq!(log.dialect, Dialect::Kafka42);
        assert_eq!(log.records.len(), 1);
        assert_eq!(log.skipped, 1);
        assert_eq!(log.records[0].offset, Some(0));
        assert_eq!(log.records[0].timestamp_ms, Some(5));
        let h = tell(&log);
        assert_eq!(h["groups"][0]["events"][0]["code"], "GROUP_EPOCH_BUMPED");
        assert_eq!(h["groups"][0]["events"][0]["reasons"], json!(["UNKNOWN"]));
    }

    #[test]
    fn history_bad_input_is_an_error_not_a_panic() {
        for bad in [
            &b"{not json"[..],
            b"| offset: 0 key: {\"type\":\"17\",\"data\":{}} payload: {\"version\":\"0\"}",
            b"\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x40\x00",
            b"\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff",
            b"\xff\xfe",
            b"{\"nowMs\": 1, \"type\": \"AdvanceTime\"}",
            b"[1, 2]",
        ] {
            assert!(
                parse_log(bad, None).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        assert_eq!(parse_log(b"", None).map(|l| l.records.len()), Ok(0));
    }

    #[test]
    fn history_number_after_skips_longer_labels() {
        let line = "baseOffset: 5 lastOffset: 6 | offset: 7 CreateTime: 8";
        assert_eq!(number_after(line, "offset: "), Some(7));
        assert_eq!(number_after(line, "CreateTime: "), Some(8));
        assert_eq!(number_after("x", "offset: "), None);
    }
}

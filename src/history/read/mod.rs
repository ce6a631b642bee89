//! Reading a log: whatever its form, a log becomes the same [`RawEntry`]s (a record's JSON or
//! its bytes, and where it was), then the records of one dialect. Each form has its reader:
//! `dump` for the text `kafka-dump-log.sh --offsets-decoder` prints, `segment` for a raw log
//! segment, `json` for JSON records, lists and the coordinator's outputs. A text log may mix
//! dump-log lines and JSON lines; the line loop here hands each line to its reader.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;

use super::{LogError, LogMarker, LogRecord, ParsedLog};
use crate::error::BoundaryError;
use crate::ordered::{sort_by, Ordered};
use crate::records::{
    record_from_bytes_at, record_from_json_at, Dialect, Producer, Record, RecordValue,
};

mod compressed;
mod dump;
mod json;
mod newer;
mod segment;

use dump::DumpLine;

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
    /// The producer of the record's transactional batch, as its batch header says (a JSON
    /// record says its own).
    producer: Option<Producer>,
    source: Source<'a>,
}

/// A record as the log holds it.
enum Source<'a> {
    Json(Value),
    /// A segment's key and value (`None`: a tombstone), lent by the segment: read as they
    /// are, with no copy (and no JSON tree) per record; a compressed batch's are its own.
    Bytes(Cow<'a, [u8]>, Option<Cow<'a, [u8]>>),
    /// A transaction's end marker: its producer, and `COMMIT` (true) or `ABORT`.
    Marker(i64, bool),
}

/// Reads a log in any of the supported forms. `dialect` `None` guesses it from the records
/// (their type ids, then the first record that reads in one dialect only).
pub fn parse_log(input: &[u8], dialect: Option<Dialect>) -> Result<ParsedLog, LogError> {
    let Text {
        form,
        entries,
        damage,
    } = if input.first() == Some(&0) {
        let segment::Segment { entries, damage } = segment::parse_segment(input)?;
        Text {
            form: "segment",
            entries,
            damage,
        }
    } else {
        let text = std::str::from_utf8(input).map_err(|e| LogError {
            line: None,
            position: Some(e.valid_up_to()),
            message: "neither text (UTF-8) nor a log segment (which starts with a zero byte)"
                .to_string(),
        })?;
        parse_text(text)?
    };
    let guessed = dialect.is_none();
    let dialect = dialect.unwrap_or_else(|| guess_dialect(&entries));
    let mut records = Vec::with_capacity(entries.len());
    let mut markers = Vec::new();
    let mut skipped = 0;
    let mut unknown = Unknown::default();
    // Each entry's JSON is freed once its record is read: the two are not held whole at once.
    for (i, e) in entries.into_iter().enumerate() {
        let read = match &e.source {
            &Source::Marker(producer_id, commit) => {
                markers.push(LogMarker {
                    before: records.len(),
                    offset: e.offset,
                    timestamp_ms: e.timestamp_ms,
                    producer_id,
                    commit,
                });
                continue;
            }
            Source::Json(json) => {
                newer::read_leaving_out_unknown(dialect, json, i).map(|(record, left_out)| {
                    unknown.note(&e, left_out);
                    record
                })
            }
            Source::Bytes(..) => read_entry(dialect, &e, i),
        };
        match read {
            Ok(Some(mut record)) => {
                // A dump's or a segment's record has its batch header's producer.
                if e.producer.is_some() {
                    record.producer = e.producer;
                }
                records.push(LogRecord {
                    offset: e.offset,
                    timestamp_ms: e.timestamp_ms,
                    batch: e.batch,
                    record,
                })
            }
            Ok(None) => skipped += 1,
            Err(err) => {
                let at = e
                    .offset
                    .map(|o| format!("the record at offset {o}"))
                    .unwrap_or_else(|| "a record".to_string());
                let other = match dialect {
                    Dialect::Kip1071Draft => Dialect::Kafka42,
                    _ => Dialect::Kip1071Draft,
                };
                let how = if guessed {
                    "guessed from the records"
                } else {
                    "given by --dialect"
                };
                let message = format!(
                    "{at} is not a {} streams group record: {} (at {}); the dialect was {how}: if this log is from {}, try --dialect {}",
                    dialect.name(),
                    err.message,
                    err.path,
                    other.name(),
                    other.name()
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
        markers,
        skipped,
        damage,
        warnings: unknown.warnings(dialect),
    })
}

/// Value fields of a newer release left out of the records, each with where it first shows
/// and how many records have it.
#[derive(Default)]
struct Unknown(Vec<(String, LogError, usize)>);

impl Unknown {
    fn note(&mut self, e: &RawEntry<'_>, left_out: Vec<String>) {
        for field in left_out {
            // One warning per field, whichever list item holds it.
            let field: String = field
                .split('[')
                .map(|s| s.split_once(']').map_or(s, |(_, rest)| rest))
                .collect();
            match self.0.iter_mut().find(|(f, ..)| *f == field) {
                Some((.., n)) => *n += 1,
                None => {
                    let at = LogError {
                        line: e.line,
                        position: e.position,
                        message: dump::At(e.offset).to_string(),
                    };
                    self.0.push((field, at, 1));
                }
            }
        }
    }

    fn warnings(self, dialect: Dialect) -> Vec<LogError> {
        self.0
            .into_iter()
            .map(|(field, at, n)| {
                let more = if n > 1 {
                    format!(" (and {} more records)", n - 1)
                } else {
                    String::new()
                };
                LogError {
                    message: format!(
                        "{}{more} has the value field {field}, which {} does not have (a newer release's tagged field): left out, as Kafka's readers skip it",
                        at.message,
                        dialect.name()
                    ),
                    ..at
                }
            })
            .collect()
    }
}

/// The record type id a key's bytes open with.
fn type_id(key: &[u8]) -> Option<i64> {
    match key {
        [hi, lo, ..] => Some(i64::from(i16::from_be_bytes([*hi, *lo]))),
        _ => None,
    }
}

/// The record of an entry in `dialect` (`Ok(None)`: a record of another kind); `i` is its
/// index, for the path of an error.
fn read_entry(
    dialect: Dialect,
    e: &RawEntry<'_>,
    i: usize,
) -> Result<Option<Record>, BoundaryError> {
    match &e.source {
        Source::Json(json) => record_from_json_at(dialect, json, "records", i),
        Source::Bytes(key, value) => {
            record_from_bytes_at(dialect, key, value.as_deref(), "records", i)
        }
        Source::Marker(..) => Ok(None),
    }
}

/// The dialect of a log: the ids only 4.2 writes (22, 23) decide; otherwise the first
/// streams group record that reads in one dialect only (ids 17 and 19 to 21 are other records
/// in each: 4.2's group metadata, member metadata, target metadata and target members are the
/// draft's member metadata, target members, current assignment and topology); then, as
/// before, the draft for its ids 18 and 21, Kafka's otherwise. Which Kafka release is
/// `kafka_release`'s question.
fn guess_dialect(entries: &[RawEntry<'_>]) -> Dialect {
    let types: BTreeSet<i64> = entries.iter().filter_map(entry_type).to_set();
    if types.contains(&22) || types.contains(&23) {
        return kafka_release(entries);
    }
    let reads = |d, e, i| matches!(read_entry(d, e, i), Ok(Some(_)));
    for (i, e) in entries.iter().enumerate() {
        if !entry_type(e).is_some_and(|t| (15..=23).contains(&t)) {
            continue;
        }
        match (
            reads(Dialect::Kafka42, e, i),
            reads(Dialect::Kip1071Draft, e, i),
        ) {
            (true, false) => return kafka_release(entries),
            (false, true) => return Dialect::Kip1071Draft,
            _ => {}
        }
    }
    if types.contains(&18) || types.contains(&21) {
        Dialect::Kip1071Draft
    } else {
        kafka_release(entries)
    }
}

/// Which Kafka release wrote a Kafka log, from what only a later release writes: 4.4's
/// description epochs on the group metadata (tags 2 and 3), its static members (4.2 and 4.3
/// refuse an instance id) and its warm-up tasks (4.2's and 4.3's assignors place none); 4.3's
/// assignment timestamp (tag 0 of the target metadata); 4.2 when none shows. Records are read as
/// 4.4 writes them (every earlier release's fields with its own), and only the types that can
/// tell: the group and target metadata, member metadata and target members.
fn kafka_release(entries: &[RawEntry<'_>]) -> Dialect {
    let mut release = Dialect::Kafka42;
    for (i, e) in entries.iter().enumerate() {
        if !entry_type(e).is_some_and(|t| matches!(t, 17 | 19 | 20 | 21)) {
            continue;
        }
        let Ok(Some(record)) = read_entry(Dialect::Kafka44, e, i) else {
            continue;
        };
        match record.value {
            Some(RecordValue::GroupMetadata(v))
                if v.stored_description_topology_epoch != -1
                    || v.failed_description_topology_epoch != -1 =>
            {
                return Dialect::Kafka44
            }
            Some(RecordValue::MemberMetadata(v)) if v.instance_id.is_some() => {
                return Dialect::Kafka44
            }
            Some(RecordValue::TargetAssignmentMember(v)) if !v.warmup_tasks.is_empty() => {
                return Dialect::Kafka44
            }
            Some(RecordValue::TargetAssignmentMetadata(v)) if v.assignment_timestamp != 0 => {
                release = Dialect::Kafka43;
            }
            _ => {}
        }
    }
    release
}

/// The record type id of an entry.
fn entry_type(e: &RawEntry<'_>) -> Option<i64> {
    match &e.source {
        Source::Json(json) => json::type_of(json),
        Source::Bytes(key, _) => type_id(key),
        Source::Marker(..) => None,
    }
}

/// A record line without key and payload (line `n`, the record at `offset`) in a dump whose
/// other lines have them.
fn no_key_or_payload((n, offset): (usize, Option<i64>)) -> LogError {
    let at = dump::At(offset);
    line_err(
        n,
        format!("{at} has no key and payload as --offsets-decoder prints them: its line is cut there, or kafka-dump-log.sh stopped at it"),
    )
}

/// A dump made without `--offsets-decoder` (line `n` is its first record line; `raw`: the
/// key and payload printed as raw bytes), and how to dump `file` again.
fn no_decoder(n: usize, raw: bool, file: Option<&str>) -> LogError {
    let shows = if raw {
        "the keys and payloads as raw bytes"
    } else {
        "offsets and sizes"
    };
    let file = file.unwrap_or(".../__consumer_offsets-N/00000000000000000000.log");
    line_err(
        n,
        format!(
            "this dump was made without --offsets-decoder: its record lines show {shows}, not the records; \
             dump the segment again with `kafka-dump-log.sh --offsets-decoder --files {file}` \
             (or pass the segment file itself)"
        ),
    )
}

/// A read text: its form, its entries up to the first damage, and the damaged lines.
struct Text<'a> {
    form: &'static str,
    entries: Vec<RawEntry<'a>>,
    damage: Vec<LogError>,
}

/// A text log: a JSON list of records, or lines (dump-log lines, JSON records, the
/// coordinator's outputs). A damaged dump-log line cuts the log there: the entries before it
/// are read, and every damaged line is reported (a line that cannot be read after the cut is
/// reported, not refused: nothing after the cut is told).
fn parse_text(text: &str) -> Result<Text<'static>, LogError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return Ok(Text {
            form: "json",
            entries: json::list(trimmed)?,
            damage: Vec::new(),
        });
    }
    let mut entries = Vec::new();
    let mut damage = Vec::new();
    let mut header = dump::Header::default();
    let mut batches = 0u64;
    // Batches that failed their CRC check (`isvalid: false`): damage, once the dump is known
    // to be one made with the decoder.
    let mut invalid = Vec::new();
    // Record lines without the decoder's parts before the first record it printed (damage
    // once one shows).
    let mut undecoded: Vec<(usize, Option<i64>)> = Vec::new();
    let mut dump = false;
    let mut outputs = false;
    // The file the dump-log tool dumped, for the advice of a dump without the decoder.
    let mut dumping = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(file) = dump::dumped_file(line) {
            dumping = Some(file);
            continue;
        }
        if dump::is_batch_header(line) {
            header = dump::Header::of(line, batches);
            batches += 1;
            if let Some(why) = dump::invalid_batch(line) {
                invalid.push(line_err(n, why));
            }
            continue;
        }
        let read = match dump::record_line(line, n, &header) {
            Ok(DumpLine::Other) if line.starts_with('{') => {
                json::line(line, n, &mut entries, &mut batches).map(|o| outputs |= o)
            }
            // Headers of the dump-log tool ("Dumping ...", "Log starting offset: 0", ...).
            Ok(DumpLine::Other | DumpLine::Control) => Ok(()),
            // A transaction's end marker: no damage, and no record of a dump with the decoder.
            Ok(DumpLine::Marker(entry)) => {
                entries.push(entry);
                Ok(())
            }
            Ok(DumpLine::Record(entry)) => {
                dump = true;
                damage.extend(undecoded.drain(..).map(no_key_or_payload));
                entries.push(entry);
                Ok(())
            }
            Ok(DumpLine::Undecoded(offset)) if dump => {
                damage.push(no_key_or_payload((n, offset)));
                Ok(())
            }
            Ok(DumpLine::Undecoded(offset)) => {
                undecoded.push((n, offset));
                Ok(())
            }
            // Raw bytes are never the cut of a decoded line.
            Ok(DumpLine::RawBytes(offset)) if dump => {
                damage.push(no_key_or_payload((n, offset)));
                Ok(())
            }
            Ok(DumpLine::RawBytes(_)) => return Err(no_decoder(n, true, dumping)),
            Ok(DumpLine::Damaged(why)) => {
                damage.push(line_err(n, why));
                Ok(())
            }
            Err(e) => Err(e),
        };
        if let Err(e) = read {
            if damage.is_empty() && invalid.is_empty() {
                return Err(e);
            }
            damage.push(e);
        }
    }
    // Offsets and sizes only, but for a last line cut short: a dump without the decoder.
    if let (false, Some(&(first, _)), Some(&(last, _))) =
        (dump, undecoded.first(), undecoded.last())
    {
        if damage.iter().all(|d| d.line.is_some_and(|l| l > last)) {
            return Err(no_decoder(first, false, dumping));
        }
    }
    damage.extend(undecoded.into_iter().map(no_key_or_payload));
    damage.extend(invalid);
    sort_by(&mut damage, |a, b| a.line.cmp(&b.line));
    if let Some(cut) = damage.first().and_then(|d| d.line) {
        entries.retain(|e| e.line.is_some_and(|l| l < cut));
    }
    let form = if dump {
        "dump-log"
    } else if outputs {
        "outputs"
    } else {
        "json"
    };
    Ok(Text {
        form,
        entries,
        damage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn history_bad_input_is_an_error_not_a_panic() {
        for bad in [
            &b"{not json"[..],
            b"| offset: 0 key: {\"type\":\"17\",\"data\":{}} payload: {\"version\":\"0\"}",
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
        // A segment cut in its first batch: nothing read, and the cut is damage.
        let cut = parse_log(
            b"\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x40\x00",
            None,
        )
        .unwrap();
        assert_eq!((cut.records.len(), cut.damage[0].position), (0, Some(0)));
    }

    /// A kafka-4.2 write that bumps the group epoch and computes a target, as
    /// `kafka-dump-log.sh --offsets-decoder` prints it: only the ids 17, 20 and 21, which the
    /// draft writes too (for its member metadata, current assignments and topology).
    const K42_GROUP_AND_TARGET: &str = r#"Dumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000040.log
Log starting offset: 40
baseOffset: 40 lastOffset: 43 count: 4 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1100 size: 157 magic: 2 compresscodec: none crc: 2874526517 isvalid: true
| offset: 40 CreateTime: 1100 keySize: 5 valueSize: 48 sequence: 0 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":3,"metadataHash":5050876873066757062,"validatedTopologyEpoch":0,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"0"}]}}
| offset: 41 CreateTime: 1100 keySize: 9 valueSize: 14 sequence: 1 headerKeys: [] key: {"type":"21","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[0]}],"standbyTasks":[],"warmupTasks":[]}}
| offset: 42 CreateTime: 1100 keySize: 9 valueSize: 14 sequence: 2 headerKeys: [] key: {"type":"21","data":{"groupId":"g","memberId":"m2"}} payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[1]}],"standbyTasks":[],"warmupTasks":[]}}
| offset: 43 CreateTime: 1100 keySize: 5 valueSize: 7 sequence: 3 headerKeys: [] key: {"type":"20","data":{"groupId":"g"}} payload: {"version":"0","data":{"assignmentEpoch":3}}
"#;

    #[test]
    fn history_a_kafka_42_dump_of_ids_the_draft_has_too_is_read_as_kafka_42() {
        let log = parse_log(K42_GROUP_AND_TARGET.as_bytes(), None).unwrap();
        assert_eq!(log.dialect, Dialect::Kafka42);
        assert_eq!((log.records.len(), log.skipped), (4, 0));
        // Tombstones too: a 4.2 target member's key names a member, the draft topology's not.
        let text = K42_GROUP_AND_TARGET.replace(
            r#"payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[1]}],"standbyTasks":[],"warmupTasks":[]}}"#,
            "payload: <DELETE>",
        );
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("\"type\":\"17\""))
            .collect();
        let log = parse_log(lines.join("\n").as_bytes(), None).unwrap();
        assert_eq!(log.dialect, Dialect::Kafka42);
        assert_eq!(log.records.len(), 3);
    }

    #[test]
    fn history_a_record_its_dialect_cannot_read_names_the_dialect_option() {
        let e =
            parse_log(K42_GROUP_AND_TARGET.as_bytes(), Some(Dialect::Kip1071Draft)).unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(
            e.message
                .contains("not a kip1071-draft streams group record")
                && e.message.ends_with("try --dialect kafka-4.2"),
            "{e}"
        );
        // Read in neither dialect: the guess is named as a guess.
        let text = K42_GROUP_AND_TARGET.replace(r#"{"groupId":"g"}"#, r#"{"groupId":7}"#);
        let e = parse_log(text.as_bytes(), None).unwrap_err();
        assert!(
            e.message
                .contains("the dialect was guessed from the records")
                && e.message.contains("--dialect kip1071-draft"),
            "{e}"
        );
    }
}

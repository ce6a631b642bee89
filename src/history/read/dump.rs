//! The text `kafka-dump-log.sh --offsets-decoder` prints: a header line per record batch
//! (`baseOffset: ...`) and a line per record (`| offset: 12 CreateTime: ... key: {json}
//! payload: {json}|<DELETE>`), with Kafka's string `type` and `version`. A batch of
//! timestamp type LogAppendTime says so (`LogAppendTime: T`) where others say `CreateTime: T`.
//!
//! Kafka prints every part of a record line it has: the decoder's key is always followed by a
//! payload, `<DELETE>` for a tombstone. A record line that stops short (cut before its key, in
//! its key, before or in its payload) is damage, never a tombstone; so is a record the decoder
//! could not read (`Error at offset 7, skipping. ...`), and a segment's end the tool could not
//! read (`Found 42 invalid bytes at the end of ...`), and a batch whose header says it failed
//! its CRC check (`isvalid: false`). A record line with neither key nor
//! payload, or with its key printed as raw bytes, is the dump of a tool run without
//! `--offsets-decoder`.
//!
//! A transactional batch's header names its producer (`isTransactional: true producerId: 7
//! producerEpoch: 0`), which its records keep; a control batch's `endTxnMarker: COMMIT|ABORT`
//! line is that producer's end marker, an entry of its own.

use std::fmt;

use serde_json::{json, Value};

use super::json::normalize;
use super::{line_err, LogError, RawEntry, Source};
use crate::records::Producer;

/// A record batch's header line: the records after it are one coordinator write.
pub(super) fn is_batch_header(line: &str) -> bool {
    line.starts_with("baseOffset:")
}

/// What a batch header says of the record lines after it.
#[derive(Default)]
pub(super) struct Header {
    /// The batch's number in the log.
    batch: Option<u64>,
    /// A control batch (transaction markers): its record lines hold no record.
    control: bool,
    /// `LogAppendTime: T`: every record's time.
    append_time: Option<i64>,
    /// `isTransactional: true`: the producer whose transaction the records are written in.
    producer: Option<Producer>,
}

impl Header {
    /// The header line `line` of the log's `batch`th batch.
    pub(super) fn of(line: &str, batch: u64) -> Header {
        let producer = match (
            line.contains(" isTransactional: true"),
            number_after(line, "producerId: "),
            number_after(line, "producerEpoch: ").and_then(|e| i16::try_from(e).ok()),
        ) {
            (true, Some(id), Some(epoch)) if id >= 0 && epoch >= 0 => Some(Producer { id, epoch }),
            _ => None,
        };
        Header {
            batch: Some(batch),
            control: line.contains(" isControl: true"),
            append_time: log_append_time(line),
            producer,
        }
    }
}

/// Why a batch header marks its batch as damage: `isvalid: false`, the batch failed its
/// CRC check, so its records may not be what was written.
pub(super) fn invalid_batch(line: &str) -> Option<String> {
    line.ends_with(" isvalid: false").then(|| {
        let base = number_after(line, "baseOffset: ")
            .map(|o| format!(" at offset {o}"))
            .unwrap_or_default();
        format!("the record batch{base} fails its CRC check (isvalid: false): its records may not be what was written")
    })
}

/// The time of every record of a batch whose header says `LogAppendTime: T`: the broker's
/// time of the append, the batch's max timestamp.
fn log_append_time(line: &str) -> Option<i64> {
    number_after(line, "LogAppendTime: ")
}

/// What a line of the dump-log text is.
pub(super) enum DumpLine {
    /// Not a record line (a header of the tool, a batch header, a JSON line).
    Other,
    /// A record the decoder printed (a record of an unknown type reads as one of another
    /// kind, skipped).
    Record(RawEntry<'static>),
    /// A record line with offsets and sizes only, and the record's offset: a dump made
    /// without `--offsets-decoder` (and without `--print-data-log`), or a line cut there.
    Undecoded(Option<i64>),
    /// A record line with its key and payload as raw bytes, and the record's offset: a dump
    /// made with `--print-data-log` but without `--offsets-decoder`.
    RawBytes(Option<i64>),
    /// A control record other than a transaction marker (or one of no known producer).
    Control,
    /// A transaction's end marker (`endTxnMarker: COMMIT|ABORT` in a control batch).
    Marker(RawEntry<'static>),
    /// A damaged record line, and what is wrong with it.
    Damaged(String),
}

/// What a dump-log line is: for a record line, its entry or why it has none.
pub(super) fn record_line(line: &str, n: usize, header: &Header) -> Result<DumpLine, LogError> {
    // The tool's word on a segment whose end it could not read as record batches.
    if line.starts_with("Found ") && line.contains(" invalid bytes at the end of ") {
        return Ok(DumpLine::Damaged(format!(
            "kafka-dump-log.sh could not read the segment's end (\"{line}\"): records there may be missing"
        )));
    }
    let key_at = line.find(" key: ");
    // Kafka's record lines start with "|"; older tools printed "offset: ... key: ...".
    if !(line.starts_with('|') || line.starts_with("offset:") && key_at.is_some()) {
        return Ok(DumpLine::Other);
    }
    let offset = number_after(line, "offset: ");
    let at = At(offset);
    // A record line says the batch's timestamp type: `LogAppendTime: T` in a batch of that
    // type, T its max timestamp.
    let timestamp_ms = number_after(line, "CreateTime: ")
        .or_else(|| number_after(line, "LogAppendTime: "))
        .or(header.append_time);
    let Some(k) = key_at else {
        let result = line
            .split_once(" endTxnMarker: ")
            .and_then(|(_, r)| r.split_whitespace().next());
        let commit = match result {
            Some("COMMIT") => Some(true),
            Some("ABORT") => Some(false),
            _ => None,
        };
        if let (Some(commit), Some(p), true) = (commit, header.producer, header.control) {
            return Ok(DumpLine::Marker(RawEntry {
                line: Some(n),
                position: None,
                offset,
                timestamp_ms,
                batch: header.batch,
                producer: None,
                source: Source::Marker(p.id, commit),
            }));
        }
        return Ok(if header.control || is_control_record(line) {
            DumpLine::Control
        } else if metadata_complete(line) {
            DumpLine::Undecoded(offset)
        } else {
            DumpLine::Damaged(format!("{at} is cut before its key"))
        });
    };
    let key = line.get(k + " key: ".len()..).unwrap_or_default();
    let json = match dump_record(key, n, at)? {
        Decoded::Record(json) => json,
        Decoded::Other => json!({"key": {"type": -1, "data": {}}, "value": null}),
        Decoded::Raw => return Ok(DumpLine::RawBytes(offset)),
        Decoded::Damaged(why) => return Ok(DumpLine::Damaged(why)),
    };
    Ok(DumpLine::Record(RawEntry {
        line: Some(n),
        position: None,
        offset,
        timestamp_ms,
        batch: header.batch,
        producer: header.producer,
        source: Source::Json(json),
    }))
}

/// A record line of a control batch: what `kafka-dump-log.sh` prints of its marker.
fn is_control_record(line: &str) -> bool {
    [
        " endTxnMarker: ",
        " LeaderChange: ",
        " SnapshotHeader ",
        " SnapshotFooter ",
        " KRaftVersion ",
        " KRaftVoters ",
        " controlType: ",
    ]
    .iter()
    .any(|m| line.contains(m))
}

/// A record line whose metadata is whole: it ends with the header keys (`headerKeys: [...]`,
/// record batch format v2) or the checksum (`crc: 12345`, the older formats).
fn metadata_complete(line: &str) -> bool {
    if line.contains(" headerKeys: [") {
        return line.ends_with(']');
    }
    line.rsplit_once(" crc: ")
        .is_some_and(|(_, c)| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
}

/// The file a dump-log text dumps (`Dumping /path/00000000000000000000.log`).
pub(super) fn dumped_file(line: &str) -> Option<&str> {
    line.strip_prefix("Dumping ").map(str::trim)
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

/// A record in messages, by its offset when the line shows it; written only into a message.
#[derive(Clone, Copy)]
pub(super) struct At(pub(super) Option<i64>);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(o) => write!(f, "the record at offset {o}"),
            None => f.write_str("the record"),
        }
    }
}

/// What the decoder printed after ` key: `.
enum Decoded {
    /// A record: its key and value, in this crate's JSON form.
    Record(Value),
    /// A record the decoder names but does not print (`Unknown record type ...`), or a key in
    /// an older tool's words: a record of another kind.
    Other,
    /// The key as raw bytes: a dump made without `--offsets-decoder`.
    Raw,
    /// A damaged record, and what is wrong with it.
    Damaged(String),
}

const UNKNOWN_TYPE: &str = "Unknown record type";
const DECODE_ERROR: &str = "Error at offset";
const DELETE: &str = "<DELETE>";

/// The record of the text after ` key: ` (`{json} payload: {json}|<DELETE>`); `at` names the
/// record in messages.
fn dump_record(rest: &str, n: usize, at: At) -> Result<Decoded, LogError> {
    if !rest.starts_with('{') {
        let rest = rest.trim_end();
        return Ok(if rest.starts_with(DECODE_ERROR) {
            Decoded::Damaged(format!(
                "kafka-dump-log.sh could not decode {at} (\"{rest}\")"
            ))
        } else if rest.is_empty()
            || UNKNOWN_TYPE.starts_with(rest)
            || DECODE_ERROR.starts_with(rest)
        {
            Decoded::Damaged(format!("{at} is cut in its key"))
        } else if rest.starts_with(|c: char| c.is_control()) {
            Decoded::Raw
        } else {
            Decoded::Other
        });
    }
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    let key = match stream.next() {
        Some(Ok(k)) => k,
        Some(Err(e)) if e.is_eof() => {
            return Ok(Decoded::Damaged(format!("{at} is cut in its key")))
        }
        Some(Err(e)) => return Err(line_err(n, format!("the key is not JSON: {e}"))),
        None => return Err(line_err(n, "the key is missing")),
    };
    let after = rest.get(stream.byte_offset()..).unwrap_or_default();
    let cut_before_payload = || {
        Decoded::Damaged(format!(
            "{at} is cut before its payload (Kafka prints a tombstone as `payload: {DELETE}`)"
        ))
    };
    let Some(p) = after.trim_start().strip_prefix("payload:") else {
        return Ok(cut_before_payload());
    };
    let p = p.trim();
    let value = if p == DELETE {
        Value::Null
    } else if p.is_empty() || DELETE.starts_with(p) {
        return Ok(cut_before_payload());
    } else {
        let mut s = serde_json::Deserializer::from_str(p).into_iter::<Value>();
        match s.next() {
            Some(Ok(v)) => v,
            Some(Err(e)) if e.is_eof() => {
                return Ok(Decoded::Damaged(format!("{at} is cut in its payload")))
            }
            Some(Err(e)) => return Err(line_err(n, format!("the payload is not JSON: {e}"))),
            None => return Ok(cut_before_payload()),
        }
    };
    Ok(Decoded::Record(normalize(
        json!({"key": key, "value": value}),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use crate::history::read::parse_log;

    /// The first write of a kafka-4.2 group, as `kafka-dump-log.sh --offsets-decoder` prints
    /// it: line 4 is the member metadata (offset 0), 5 the topology, 6 the group metadata, 7
    /// to 9 the target and the member's current assignment.
    const DUMP: &str = r#"Dumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 5 count: 6 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1000 size: 205 magic: 2 compresscodec: none crc: 2874526517 isvalid: true
| offset: 0 CreateTime: 1000 keySize: 9 valueSize: 35 sequence: 0 headerKeys: [] key: {"type":"19","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"app-1","clientHost":"/127.0.0.1","rebalanceTimeoutMs":300000,"topologyEpoch":0,"processId":"p1","userEndpoint":null,"clientTags":[]}}
| offset: 1 CreateTime: 1000 keySize: 5 valueSize: 20 sequence: 1 headerKeys: [] key: {"type":"23","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":0,"subtopologies":[{"subtopologyId":"0","sourceTopics":["in"],"sourceTopicRegex":[],"stateChangelogTopics":[],"repartitionSinkTopics":[],"repartitionSourceTopics":[],"copartitionGroups":[]}]}}
| offset: 2 CreateTime: 1000 keySize: 5 valueSize: 48 sequence: 2 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":2,"metadataHash":5050876873066757062,"validatedTopologyEpoch":0,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"0"}]}}
| offset: 3 CreateTime: 1000 keySize: 9 valueSize: 18 sequence: 3 headerKeys: [] key: {"type":"21","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[0,1]}],"standbyTasks":[],"warmupTasks":[]}}
| offset: 4 CreateTime: 1000 keySize: 5 valueSize: 7 sequence: 4 headerKeys: [] key: {"type":"20","data":{"groupId":"g"}} payload: {"version":"0","data":{"assignmentEpoch":2}}
| offset: 5 CreateTime: 1000 keySize: 9 valueSize: 41 sequence: 5 headerKeys: [] key: {"type":"22","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"memberEpoch":2,"previousMemberEpoch":0,"state":1,"activeTasks":[{"subtopologyId":"0","partitions":[0,1],"assignmentEpochs":[2,2]}],"standbyTasks":[],"warmupTasks":[],"activeTasksPendingRevocation":[],"standbyTasksPendingRevocation":[],"warmupTasksPendingRevocation":[]}}
"#;

    /// `DUMP` with its line `n` (1-based) replaced.
    fn with_line(n: usize, line: &str) -> String {
        DUMP.lines()
            .enumerate()
            .map(|(i, l)| if i + 1 == n { line } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn history_a_dump_line_cut_short_is_damage_not_a_tombstone() {
        let whole = parse_log(DUMP.as_bytes(), None).unwrap();
        assert_eq!((whole.records.len(), whole.damage.len()), (6, 0));
        let line = DUMP.lines().nth(5).unwrap();
        let key = line.find(" key: ").unwrap();
        let payload = line.find(" payload: ").unwrap();
        let tombstone = format!("{} payload: <DELETE>", &line[..payload]);
        for (cut, why) in [
            (&line[..payload], "cut before its payload"),
            (&line[..payload + 5], "cut before its payload"),
            (
                &line[..payload + " payload: ".len()],
                "cut before its payload",
            ),
            (&tombstone[..tombstone.len() - 3], "cut before its payload"),
            (&line[..line.len() - 3], "cut in its payload"),
            (&line[..key + 20], "cut in its key"),
            (&line[..key + " key: ".len()], "cut before its key"),
            (&line[..key], "offset 2 has no key and payload"),
            (&line[..key - 8], "cut before its key"),
            (&line[..12], "cut before its key"),
        ] {
            // Cut at the end of the dump, and in its middle: the lines after a cut are not
            // read either (what they tell may hang on the lost record).
            for text in [
                DUMP.lines()
                    .take(5)
                    .chain([cut])
                    .collect::<Vec<_>>()
                    .join("\n"),
                with_line(6, cut),
            ] {
                let log = parse_log(text.as_bytes(), None).unwrap();
                assert_eq!(log.records.len(), 2, "{cut}");
                assert_eq!(log.skipped, 0, "{cut}");
                assert_eq!(log.damage[0].line, Some(6), "{cut}");
                assert!(
                    log.damage[0].message.contains(why),
                    "{cut}: {:?}",
                    log.damage
                );
            }
        }
        // A line of a control batch (a transaction marker) has no key and is no damage.
        let control = format!(
            "{DUMP}baseOffset: 6 lastOffset: 6 count: 1 baseSequence: -1 lastSequence: -1 producerId: 7 producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: 410 CreateTime: 1001 size: 78 magic: 2 compresscodec: none crc: 1 isvalid: true\n| offset: 6 CreateTime: 1001 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0\n"
        );
        let log = parse_log(control.as_bytes(), None).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (6, 0));
    }

    #[test]
    fn history_a_record_the_dump_tool_could_not_decode_is_damage_not_another_kind() {
        let text = with_line(
            7,
            "| offset: 3 CreateTime: 1000 keySize: 9 valueSize: 18 sequence: 3 headerKeys: [] key: Error at offset 3, skipping. Could not read record with version 1 from value's buffer due to: Error reading field 'activeTasks'",
        );
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!((log.records.len(), log.skipped), (3, 0));
        assert_eq!(log.damage.len(), 1);
        assert_eq!(log.damage[0].line, Some(7));
        assert!(
            log.damage[0]
                .message
                .contains("could not decode the record at offset 3"),
            "{:?}",
            log.damage
        );
        // A type the tool does not know is a record of another kind.
        let text = with_line(
            7,
            "| offset: 3 CreateTime: 1000 keySize: 4 valueSize: 8 sequence: 3 headerKeys: [] key: Unknown record type 99 at offset 3, skipping.",
        );
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!(
            (log.records.len(), log.skipped, log.damage.len()),
            (5, 1, 0)
        );
        // A segment whose end the tool could not read: the records before it are all told.
        let text = format!("{DUMP}Found 77 invalid bytes at the end of 00000000000000000000.log\n");
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!(log.records.len(), 6);
        assert_eq!(log.damage[0].line, Some(10));
        assert!(
            log.damage[0]
                .message
                .contains("could not read the segment's end"),
            "{:?}",
            log.damage
        );
    }

    #[test]
    fn history_a_dump_made_without_the_offsets_decoder_is_refused_with_how_to_redo_it() {
        let file = "/var/lib/kafka/data/__consumer_offsets-12/00000000000000000000.log";
        // Without --print-data-log: offsets and sizes only (the last line cut, as it may be).
        let bare: Vec<&str> = DUMP
            .lines()
            .map(|l| l.split(" key: ").next().unwrap())
            .collect();
        let mut cut = bare.join("\n");
        cut.truncate(cut.len() - 30);
        // With --print-data-log: the key and payload as raw bytes (member metadata m1 of g).
        let raw = format!(
            "{}\n| offset: 0 CreateTime: 1000 keySize: 9 valueSize: 35 sequence: 0 headerKeys: [] key: \u{0}\u{13}\u{0}\u{1}g\u{0}\u{2}m1 payload: \u{0}\u{0}\u{0}\u{6}app-1\n",
            DUMP.lines().take(3).collect::<Vec<_>>().join("\n")
        );
        for (text, shows) in [
            (bare.join("\n"), "offsets and sizes"),
            (cut, "offsets and sizes"),
            (raw, "raw bytes"),
        ] {
            let e = parse_log(text.as_bytes(), None).unwrap_err();
            assert_eq!(e.line, Some(4), "{e}");
            assert!(
                e.message.contains("made without --offsets-decoder")
                    && e.message.contains(shows)
                    && e.message.contains(&format!(
                        "kafka-dump-log.sh --offsets-decoder --files {file}"
                    )),
                "{e}"
            );
        }
    }

    /// A second write after `DUMP` (lines 10 and 11): the group's target at epoch 3, its batch
    /// header ending in `isvalid` as given.
    fn second_batch(valid: bool) -> String {
        format!(
            "{DUMP}baseOffset: 6 lastOffset: 6 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 410 CreateTime: 1100 size: 80 magic: 2 compresscodec: none crc: 3735928559 isvalid: {valid}\n\
             | offset: 6 CreateTime: 1100 keySize: 5 valueSize: 7 sequence: 0 headerKeys: [] key: {{\"type\":\"20\",\"data\":{{\"groupId\":\"g\"}}}} payload: {{\"version\":\"0\",\"data\":{{\"assignmentEpoch\":3}}}}\n"
        )
    }

    #[test]
    fn history_a_batch_the_dump_tool_found_invalid_is_damage() {
        let log = parse_log(second_batch(true).as_bytes(), None).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (7, 0));
        let log = parse_log(second_batch(false).as_bytes(), None).unwrap();
        assert_eq!(log.records.len(), 6);
        assert_eq!(log.damage.len(), 1);
        assert_eq!(log.damage[0].line, Some(10));
        assert!(
            log.damage[0]
                .message
                .contains("the record batch at offset 6 fails its CRC check (isvalid: false)"),
            "{:?}",
            log.damage
        );
        // The first batch invalid: nothing is read.
        let text = DUMP.replace("isvalid: true", "isvalid: false");
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!((log.records.len(), log.damage[0].line), (0, Some(3)));
    }

    #[test]
    fn history_a_log_append_time_batch_gives_its_records_the_brokers_time() {
        // Kafka prints the batch's type and max timestamp in the header and the same time on
        // each record line of a LogAppendTime batch.
        let text = second_batch(true).replace("CreateTime: 1100", "LogAppendTime: 1234");
        let log = parse_log(text.as_bytes(), None).unwrap();
        let times: Vec<_> = log.records.iter().map(|r| r.timestamp_ms).collect();
        assert_eq!(times[5..], [Some(1000), Some(1234)]);
        // A record line without its time (an older tool's) takes the header's.
        let text = text.replace("| offset: 6 LogAppendTime: 1234 ", "| offset: 6 ");
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!(log.records[6].timestamp_ms, Some(1234));
    }

    /// `DUMP` then two transactions of the group's offsets: producer 7's (in-0 and in-1)
    /// committed, producer 8's (in-0) aborted, each a transactional batch and its marker.
    fn transactions() -> String {
        let txn = |base: i64, producer: i64, t: i64, parts: &[(i32, i64)]| {
            let mut s = format!(
                "baseOffset: {base} lastOffset: {} count: {} baseSequence: 0 lastSequence: 0 producerId: {producer} producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: true isControl: false deleteHorizonMs: OptionalLong.empty position: 500 CreateTime: {t} size: 120 magic: 2 compresscodec: none crc: 1 isvalid: true\n",
                base + parts.len() as i64 - 1,
                parts.len()
            );
            for (i, (p, o)) in parts.iter().enumerate() {
                s += &format!(
                    "| offset: {} CreateTime: {t} keySize: 14 valueSize: 30 sequence: {i} headerKeys: [] key: {{\"type\":\"1\",\"data\":{{\"group\":\"g\",\"topic\":\"in\",\"partition\":{p}}}}} payload: {{\"version\":\"4\",\"data\":{{\"offset\":{o},\"leaderEpoch\":3,\"metadata\":\"\",\"commitTimestamp\":{t}}}}}\n",
                    base + i as i64
                );
            }
            s
        };
        let marker = |at: i64, producer: i64, t: i64, result: &str| {
            format!(
                "baseOffset: {at} lastOffset: {at} count: 1 baseSequence: -1 lastSequence: -1 producerId: {producer} producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: 700 CreateTime: {t} size: 78 magic: 2 compresscodec: none crc: 1 isvalid: true\n\
                 | offset: {at} CreateTime: {t} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: {result} coordinatorEpoch: 0\n"
            )
        };
        [
            DUMP.to_string(),
            txn(6, 7, 1200, &[(0, 11), (1, 21)]),
            marker(8, 7, 1300, "COMMIT"),
            txn(9, 8, 1400, &[(0, 12)]),
            marker(10, 8, 1500, "ABORT"),
        ]
        .concat()
    }

    #[test]
    fn history_a_dump_keeps_transactional_producers_and_end_markers() {
        let log = parse_log(transactions().as_bytes(), None).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (9, 0));
        let producers: Vec<_> = log
            .records
            .iter()
            .map(|r| r.record.producer.map(|p| (p.id, p.epoch)))
            .collect();
        assert_eq!(producers[..6], [None; 6]);
        assert_eq!(producers[6..], [Some((7, 0)), Some((7, 0)), Some((8, 0))]);
        let markers: Vec<_> = log
            .markers
            .iter()
            .map(|m| (m.before, m.offset, m.timestamp_ms, m.producer_id, m.commit))
            .collect();
        assert_eq!(
            markers,
            [
                (8, Some(8), Some(1300), 7, true),
                (9, Some(10), Some(1500), 8, false)
            ]
        );
        // A marker of a batch that names no producer is no marker (nor damage).
        let text = transactions().replace("producerId: 8 producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: true isControl: true", "producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: true isControl: true");
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!((log.markers.len(), log.damage.len()), (1, 0));
    }

    #[test]
    fn history_number_after_skips_longer_labels() {
        let line = "baseOffset: 5 lastOffset: 6 | offset: 7 CreateTime: 8";
        assert_eq!(number_after(line, "offset: "), Some(7));
        assert_eq!(number_after(line, "CreateTime: "), Some(8));
        assert_eq!(number_after("x", "offset: "), None);
    }
}

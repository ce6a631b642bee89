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
//!
//! Reading and telling are two jobs: `read/` turns each form into the same records (one file
//! per form: `dump.rs`, `segment.rs`, `json.rs`), `tell/` replays those records and tells what
//! happened; neither knows how the other works.

use std::fmt;

use crate::records::{Dialect, Record};

mod read;
mod tell;

pub use read::parse_log;
pub use tell::{render_text, tell, Event};

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
    /// Damaged lines of a dump-log text (a record line cut short, a record the dump tool could
    /// not decode), in log order: `records` stop before the first. Empty for a whole log.
    pub damage: Vec<LogError>,
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

/// Reading and telling together, where both are in sight (`read` never imports `tell`).
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
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
        assert_eq!(h["damage"], json!([]));
    }

    #[test]
    fn history_of_a_cut_dump_is_told_up_to_the_cut_and_says_where() {
        let text = r#"Dumping /tmp/kafka-logs/__consumer_offsets-7/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 5 size: 200 magic: 2 compresscodec: none crc: 1 isvalid: true
| offset: 0 CreateTime: 5 keySize: 5 valueSize: 10 sequence: 0 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":2,"metadataHash":0,"validatedTopologyEpoch":-1}}
| offset: 1 CreateTime: 5 keySize: 5 valueSize: -1 sequence: 1 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payl"#;
        let log = parse_log(text.as_bytes(), None).unwrap();
        // The cut record is not read as the group's tombstone.
        assert_eq!(log.records.len(), 1);
        let h = tell(&log);
        assert_eq!(h["groups"][0]["summary"]["deleted"], false);
        assert_eq!(h["damage"][0]["line"], 5);
        assert!(h["damage"][0]["message"]
            .as_str()
            .unwrap()
            .contains("offset 1 is cut before its payload"));
        let words = render_text(&h);
        assert!(
            words.contains("told up to line 5") && words.contains("\ncut at line 5: "),
            "{words}"
        );
    }
}

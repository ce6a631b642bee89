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
//! panics on input: a line or record that cannot be read is a [`LogError`] naming it, and a
//! damaged dump-log line (cut short, or a record the tool could not decode) is one in
//! [`ParsedLog::damage`], the records stopping before it; so is a segment's first batch that is
//! cut short or fails its CRC-32C, as Kafka's recovery reads a segment. A newer release's
//! tagged fields are skipped, as Kafka's readers skip them: in the bytes form silently, in
//! the JSON form each named once in [`ParsedLog::warnings`].
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

/// A transaction's end marker (a control record): the offset commits its producer wrote in
/// transactional batches before it count from here (`commit`) or are dropped, as Kafka's
/// coordinator replays them (docs/transactions.md). Kept apart from the records: it is no
/// key/value record and changes no group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogMarker {
    /// How many of [`ParsedLog::records`] come before it in the log.
    pub before: usize,
    /// The marker's log offset, when the source shows it.
    pub offset: Option<i64>,
    /// The marker's timestamp, when the source shows it.
    pub timestamp_ms: Option<i64>,
    /// The producer whose transaction ended.
    pub producer_id: i64,
    /// `COMMIT` (true) or `ABORT`.
    pub commit: bool,
}

/// A read log: the coordinator records in log order.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedLog {
    /// The dialect the records were read in.
    pub dialect: Dialect,
    /// `dump-log`, `segment`, `json` or `outputs`.
    pub form: &'static str,
    /// The records in log order; a record of a transactional batch has its `producer`.
    pub records: Vec<LogRecord>,
    /// Transactions' end markers in log order, each placed among the records.
    pub markers: Vec<LogMarker>,
    /// Records of other kinds (offset commits, consumer or share groups, unknown types).
    pub skipped: usize,
    /// Damaged lines of a dump-log text (a record line cut short, a record the dump tool could
    /// not decode), or where a segment stops being whole valid batches (a batch cut short or
    /// failing its CRC), in log order: `records` stop before the first. Empty for a whole log.
    pub damage: Vec<LogError>,
    /// What was read leniently: value fields of a newer release (tagged fields the dialect has
    /// not) left out of JSON records, one per field, at its first record. The records are
    /// whole without them.
    pub warnings: Vec<LogError>,
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
    use serde_json::{json, Value};
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

    /// Two writes of a kafka-4.2 group as `kafka-dump-log.sh --offsets-decoder` prints them:
    /// m1 joins and reconciles; m2 joins, and must wait for a task m1 still holds.
    const TWO_JOINS: &str = r#"Dumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 5 count: 6 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1000 size: 205 magic: 2 compresscodec: none crc: 2874526517 isvalid: true
| offset: 0 CreateTime: 1000 keySize: 9 valueSize: 35 sequence: 0 headerKeys: [] key: {"type":"19","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"app-1","clientHost":"/127.0.0.1","rebalanceTimeoutMs":300000,"topologyEpoch":0,"processId":"p1","userEndpoint":null,"clientTags":[]}}
| offset: 1 CreateTime: 1000 keySize: 5 valueSize: 20 sequence: 1 headerKeys: [] key: {"type":"23","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":0,"subtopologies":[{"subtopologyId":"0","sourceTopics":["in"],"sourceTopicRegex":[],"stateChangelogTopics":[],"repartitionSinkTopics":[],"repartitionSourceTopics":[],"copartitionGroups":[]}]}}
| offset: 2 CreateTime: 1000 keySize: 5 valueSize: 48 sequence: 2 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":2,"metadataHash":5050876873066757062,"validatedTopologyEpoch":0,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"0"}]}}
| offset: 3 CreateTime: 1000 keySize: 9 valueSize: 18 sequence: 3 headerKeys: [] key: {"type":"21","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[0,1]}],"standbyTasks":[],"warmupTasks":[]}}
| offset: 4 CreateTime: 1000 keySize: 5 valueSize: 7 sequence: 4 headerKeys: [] key: {"type":"20","data":{"groupId":"g"}} payload: {"version":"0","data":{"assignmentEpoch":2}}
| offset: 5 CreateTime: 1000 keySize: 9 valueSize: 41 sequence: 5 headerKeys: [] key: {"type":"22","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"memberEpoch":2,"previousMemberEpoch":0,"state":1,"activeTasks":[{"subtopologyId":"0","partitions":[0,1],"assignmentEpochs":[2,2]}],"standbyTasks":[],"warmupTasks":[],"activeTasksPendingRevocation":[],"standbyTasksPendingRevocation":[],"warmupTasksPendingRevocation":[]}}
baseOffset: 6 lastOffset: 11 count: 6 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 205 CreateTime: 1100 size: 205 magic: 2 compresscodec: none crc: 2874526517 isvalid: true
| offset: 6 CreateTime: 1100 keySize: 9 valueSize: 35 sequence: 0 headerKeys: [] key: {"type":"19","data":{"groupId":"g","memberId":"m2"}} payload: {"version":"0","data":{"instanceId":null,"rackId":null,"clientId":"app-2","clientHost":"/127.0.0.1","rebalanceTimeoutMs":300000,"topologyEpoch":0,"processId":"p2","userEndpoint":null,"clientTags":[]}}
| offset: 7 CreateTime: 1100 keySize: 5 valueSize: 48 sequence: 1 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":3,"metadataHash":5050876873066757062,"validatedTopologyEpoch":0,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"0"}]}}
| offset: 8 CreateTime: 1100 keySize: 9 valueSize: 14 sequence: 2 headerKeys: [] key: {"type":"21","data":{"groupId":"g","memberId":"m1"}} payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[0]}],"standbyTasks":[],"warmupTasks":[]}}
| offset: 9 CreateTime: 1100 keySize: 9 valueSize: 14 sequence: 3 headerKeys: [] key: {"type":"21","data":{"groupId":"g","memberId":"m2"}} payload: {"version":"0","data":{"activeTasks":[{"subtopologyId":"0","partitions":[1]}],"standbyTasks":[],"warmupTasks":[]}}
| offset: 10 CreateTime: 1100 keySize: 5 valueSize: 7 sequence: 4 headerKeys: [] key: {"type":"20","data":{"groupId":"g"}} payload: {"version":"0","data":{"assignmentEpoch":3}}
| offset: 11 CreateTime: 1100 keySize: 9 valueSize: 18 sequence: 5 headerKeys: [] key: {"type":"22","data":{"groupId":"g","memberId":"m2"}} payload: {"version":"0","data":{"memberEpoch":3,"previousMemberEpoch":0,"state":3,"activeTasks":[],"standbyTasks":[],"warmupTasks":[],"activeTasksPendingRevocation":[],"standbyTasksPendingRevocation":[],"warmupTasksPendingRevocation":[]}}
"#;

    /// A batch of group g's offset commits of `in` (partition, offset) at `base`, of
    /// `producer`'s transaction when given, as `kafka-dump-log.sh` prints it.
    fn commits(base: i64, producer: Option<i64>, t: i64, parts: &[(i32, i64)]) -> String {
        let (id, txn) = producer.map_or((-1, false), |p| (p, true));
        let mut s = format!(
            "baseOffset: {base} lastOffset: {} count: {} baseSequence: 0 lastSequence: 0 producerId: {id} producerEpoch: {} partitionLeaderEpoch: 3 isTransactional: {txn} isControl: false deleteHorizonMs: OptionalLong.empty position: 900 CreateTime: {t} size: 120 magic: 2 compresscodec: none crc: 1 isvalid: true\n",
            base + parts.len() as i64 - 1,
            parts.len(),
            if txn { 0 } else { -1 }
        );
        for (i, (p, o)) in parts.iter().enumerate() {
            s += &format!(
                "| offset: {} CreateTime: {t} keySize: 14 valueSize: 30 sequence: {i} headerKeys: [] key: {{\"type\":\"1\",\"data\":{{\"group\":\"g\",\"topic\":\"in\",\"partition\":{p}}}}} payload: {{\"version\":\"4\",\"data\":{{\"offset\":{o},\"leaderEpoch\":3,\"metadata\":\"\",\"commitTimestamp\":{t}}}}}\n",
                base + i as i64
            );
        }
        s
    }

    /// `producer`'s end marker at `at`, as `kafka-dump-log.sh` prints a control batch.
    fn marker(at: i64, producer: i64, t: i64, result: &str) -> String {
        format!(
            "baseOffset: {at} lastOffset: {at} count: 1 baseSequence: -1 lastSequence: -1 producerId: {producer} producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: 990 CreateTime: {t} size: 78 magic: 2 compresscodec: none crc: 1 isvalid: true\n\
             | offset: {at} CreateTime: {t} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: {result} coordinatorEpoch: 0\n"
        )
    }

    #[test]
    fn history_tells_transactional_offsets_at_their_end_markers() {
        let text = [
            TWO_JOINS.to_string(),
            // Producer 7 commits in-0 and in-1; producer 8 aborts in-0.
            commits(12, Some(7), 1200, &[(0, 11), (1, 21)]),
            marker(14, 7, 1300, "COMMIT"),
            commits(15, Some(8), 1400, &[(0, 12)]),
            marker(16, 8, 1500, "ABORT"),
            // Producer 10's in-1 is written before a plain commit of in-1: the plain one stays.
            commits(17, Some(10), 1600, &[(1, 40)]),
            commits(18, None, 1700, &[(1, 50)]),
            marker(19, 10, 1800, "COMMIT"),
            // Producer 9's in-0 has no marker in the log.
            commits(20, Some(9), 1900, &[(0, 30)]),
        ]
        .concat();
        let h = tell(&parse_log(text.as_bytes(), None).unwrap());
        let events = h["groups"][0]["events"].as_array().unwrap();
        let offsets: Vec<&Value> = events
            .iter()
            .filter(|e| e["code"].as_str().unwrap().contains("OFFSETS"))
            .collect();
        let codes: Vec<&str> = offsets
            .iter()
            .map(|e| e["code"].as_str().unwrap())
            .collect();
        assert_eq!(
            codes,
            [
                "TRANSACTIONAL_OFFSETS_WRITTEN",
                "OFFSETS_COMMITTED",
                "TRANSACTIONAL_OFFSETS_WRITTEN",
                "TRANSACTIONAL_OFFSETS_ABORTED",
                "TRANSACTIONAL_OFFSETS_WRITTEN",
                "OFFSETS_COMMITTED",
                "OFFSETS_COMMITTED",
                "TRANSACTIONAL_OFFSETS_WRITTEN",
                "TRANSACTIONAL_OFFSETS_PENDING",
            ],
            "{h}"
        );
        // Written: pending for the producer, one event for the batch, with the task holder.
        let w = offsets[0];
        assert_eq!(
            (w["producerId"].clone(), w["producerEpoch"].clone()),
            (json!(7), json!(0))
        );
        assert_eq!(w["offset"], 12);
        assert_eq!(w["partitions"].as_array().unwrap().len(), 2);
        assert_eq!(w["partitions"][0]["taskHolder"], "m1");
        // Committed at the marker's place: its offset and time, the record count before it.
        let c = offsets[1];
        assert_eq!(
            (&c["offset"], &c["timestampMs"], &c["index"]),
            (&json!(14), &json!(1300), &json!(14))
        );
        assert_eq!(
            (&c["producerId"], &c["transactional"]),
            (&json!(7), &json!(true))
        );
        assert_eq!(c["commitTimestampMs"], 1200);
        assert_eq!(
            c["partitions"],
            json!([
                {"topic": "in", "partition": 0, "offset": 11, "taskHolder": "m1", "memberEpoch": 2},
                {"topic": "in", "partition": 1, "offset": 21, "taskHolder": "m1", "memberEpoch": 2}
            ])
        );
        assert!(c.get("superseded").is_none());
        // Aborted: dropped, with the partitions.
        let a = offsets[3];
        assert_eq!((&a["producerId"], &a["offset"]), (&json!(8), &json!(16)));
        assert_eq!(a["partitions"][0]["offset"], 12);
        // A plain commit is told as before, with neither producer nor `transactional`.
        let plain = offsets[5];
        assert!(plain.get("transactional").is_none() && plain.get("producerId").is_none());
        // A commit whose partition has a committed offset written after it keeps that one.
        let s = offsets[6];
        assert_eq!(s["partitions"], json!([]));
        assert_eq!(
            s["superseded"],
            json!([{"topic": "in", "partition": 1, "offset": 40}])
        );
        // Still pending at the end: told at the log's end, and counted in the summary.
        let p = offsets[8];
        assert_eq!((&p["producerId"], &p["offset"]), (&json!(9), &Value::Null));
        assert_eq!(p["partitions"][0]["offset"], 30);
        assert_eq!(h["groups"][0]["summary"]["pendingTransactionalOffsets"], 1);
        let words = render_text(&h);
        for said in [
            "Producer 7's transaction committed: offsets committed: in-0 at 11 (task held by m1 at epoch 2), in-1 at 21",
            "Producer 8's transaction was aborted",
            "a newer committed offset was kept for in-1",
            "1 transactional offsets still pending",
            "producer 9's transaction has no end marker here",
        ] {
            assert!(words.contains(said), "{said}\n{words}");
        }
    }

    #[test]
    fn history_tells_a_new_members_first_state_without_a_state_before_it() {
        let h = tell(&parse_log(TWO_JOINS.as_bytes(), None).unwrap());
        let states: Vec<&Value> = h["groups"][0]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["code"] == "MEMBER_STATE_CHANGED")
            .collect();
        assert_eq!(states.len(), 1, "{states:?}");
        assert_eq!(states[0]["memberId"], "m2");
        assert_eq!(states[0]["from"], Value::Null);
        assert_eq!(states[0]["to"], "UNRELEASED_TASKS");
        let words = render_text(&h);
        assert!(
            words.contains("m2's first state: UNRELEASED_TASKS at epoch 3.")
                && !words.contains("STABLE → UNRELEASED_TASKS"),
            "{words}"
        );
    }

    #[test]
    fn history_of_log_append_time_batches_tells_reconcile_times() {
        // As Kafka prints batches of that timestamp type: the header's max timestamp is each
        // record's time.
        let text = TWO_JOINS.replace("CreateTime: ", "LogAppendTime: ");
        let log = parse_log(text.as_bytes(), None).unwrap();
        let h = tell(&log);
        assert_eq!(h, tell(&parse_log(TWO_JOINS.as_bytes(), None).unwrap()));
        assert_eq!(h["groups"][0]["summary"]["slowestReconcileMs"], 0, "{h}");
    }

    #[test]
    fn history_says_a_deleted_group_was_deleted_without_an_epoch() {
        let text = r#"Dumping /tmp/kafka-logs/__consumer_offsets-7/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 5 size: 100 magic: 2 compresscodec: none crc: 1 isvalid: true
| offset: 0 CreateTime: 5 keySize: 5 valueSize: 17 sequence: 0 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":1,"metadataHash":0,"validatedTopologyEpoch":-1}}
baseOffset: 1 lastOffset: 2 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 100 CreateTime: 9 size: 98 magic: 2 compresscodec: none crc: 1 isvalid: true
| offset: 1 CreateTime: 9 keySize: 5 valueSize: -1 sequence: 0 headerKeys: [] key: {"type":"20","data":{"groupId":"g"}} payload: <DELETE>
| offset: 2 CreateTime: 9 keySize: 5 valueSize: -1 sequence: 1 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: <DELETE>
"#;
        let h = tell(&parse_log(text.as_bytes(), None).unwrap());
        assert_eq!(h["groups"][0]["summary"]["deleted"], true);
        let words = render_text(&h);
        assert!(
            words.contains("group g: 1 epoch bumps, then deleted\n") && !words.contains("null"),
            "{words}"
        );
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

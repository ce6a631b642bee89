//! JSON forms of a log: a JSON list of records; JSON lines, each a record (`key` / `value` or
//! `keyBytes` / `valueBytes`, with its `offset`, `timestampMs` and `batch` when known) or an
//! output of the coordinator (`sgc` or `handle`, whose `records` are one write). Kafka's
//! dump-log spelling of a record (string `type` and `version`, `<DELETE>`) is read too. A
//! record's `producerId` marks it as of a transactional batch; a transaction's end marker is a
//! line of its own (`endTxnMarker`), or the `TRANSACTION_COMPLETED` of an output.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

use super::{line_err, type_id, LogError, RawEntry, Source};

/// The entries of a JSON list of records.
pub(super) fn list(text: &str) -> Result<Vec<RawEntry<'static>>, LogError> {
    let list: Value = serde_json::from_str(text)
        .map_err(|e| line_err(e.line(), format!("not a JSON list of records: {e}")))?;
    let Value::Array(list) = list else {
        return Ok(Vec::new());
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
            producer: None,
            source: marker(&v).unwrap_or_else(|| Source::Json(normalize(v))),
        });
    }
    Ok(entries)
}

/// Reads JSON line `n` (a record or a coordinator output) into `entries`; `batches` counts the
/// log's batches so far (an output is one). `true` when the line is a coordinator output.
pub(super) fn line(
    line: &str,
    n: usize,
    entries: &mut Vec<RawEntry<'static>>,
    batches: &mut u64,
) -> Result<bool, LogError> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| line_err(n, format!("not a JSON object: {e}")))?;
    if let Some(list) = v.get("records").and_then(Value::as_array) {
        // An output of the coordinator (`sgc` or `handle`): one batch.
        let b = *batches;
        *batches += 1;
        let now = v.get("nowMs").and_then(Value::as_i64);
        for r in list {
            entries.push(RawEntry {
                line: Some(n),
                position: None,
                offset: Some(entries.len() as i64),
                timestamp_ms: now,
                batch: Some(b),
                producer: None,
                source: Source::Json(normalize(r.clone())),
            });
        }
        // A `TransactionCompleted`'s output: the host wrote its end marker, which `explain`
        // names once per group that had the producer's pending offsets.
        let mut ended: Vec<(i64, bool)> = Vec::new();
        for e in v
            .get("explain")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if e.get("code").and_then(Value::as_str) != Some("TRANSACTION_COMPLETED") {
                continue;
            }
            let id = e.get("producerId").and_then(Value::as_i64);
            let commit = e
                .get("result")
                .and_then(Value::as_str)
                .map(|r| r == "COMMIT");
            if let (Some(id), Some(commit)) = (id, commit) {
                if !ended.contains(&(id, commit)) {
                    ended.push((id, commit));
                }
            }
        }
        for (id, commit) in ended {
            entries.push(RawEntry {
                line: Some(n),
                position: None,
                offset: None,
                timestamp_ms: now,
                batch: Some(b),
                producer: None,
                source: Source::Marker(id, commit),
            });
        }
        Ok(true)
    } else if v.get("error").is_some() || v.get("response").is_some() {
        // A boundary error or an output without records: nothing was written.
        Ok(true)
    } else if let Some(source) = marker(&v) {
        entries.push(RawEntry {
            line: Some(n),
            position: None,
            offset: v.get("offset").and_then(Value::as_i64),
            timestamp_ms: v.get("timestampMs").and_then(Value::as_i64),
            batch: v.get("batch").and_then(Value::as_u64),
            producer: None,
            source,
        });
        Ok(false)
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
            producer: None,
            source: Source::Json(normalize(strip_location(v))),
        });
        Ok(false)
    } else if v.get("type").is_some() && v.get("nowMs").is_some() {
        Err(line_err(
            n,
            "this is a coordinator input, not a record; run the inputs through `sgc` and pass its outputs",
        ))
    } else {
        Err(line_err(
            n,
            "not a record (key/value or keyBytes/valueBytes), a coordinator output or a kafka-dump-log.sh line",
        ))
    }
}

/// A transaction's end marker in JSON, named as `kafka-dump-log.sh` names a control record's
/// parts: `{"endTxnMarker": "COMMIT"|"ABORT", "producerId": 7, "producerEpoch": 0}` (with
/// `offset`, `timestampMs` and `batch` when known).
fn marker(v: &Value) -> Option<Source<'static>> {
    let commit = match v.get("endTxnMarker")?.as_str()? {
        "COMMIT" => true,
        "ABORT" => false,
        _ => return None,
    };
    let id = v.get("producerId")?.as_i64().filter(|&id| id >= 0)?;
    Some(Source::Marker(id, commit))
}

/// The record type id of an entry (JSON `key.type`, or the first int16 of `keyBytes`).
pub(super) fn type_of(v: &Value) -> Option<i64> {
    if let Some(t) = v
        .get("key")
        .and_then(|k| k.get("type"))
        .and_then(Value::as_i64)
    {
        return Some(t);
    }
    type_id(&STANDARD.decode(v.get("keyBytes")?.as_str()?).ok()?)
}

fn strip_location(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("offset");
        o.remove("timestampMs");
        o.remove("batch");
    }
    v
}

/// Kafka's dump-log form to this crate's: string `type` / `version` become numbers and a
/// `"<DELETE>"` value becomes `null`.
pub(super) fn normalize(mut v: Value) -> Value {
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use crate::history::read::parse_log;

    /// Group g's offset commit of `in`'s `partition` at `offset`, of `producer`'s transactional
    /// batch when given, as a JSON record.
    fn commit(partition: i32, offset: i64, producer: Option<i64>) -> String {
        let txn = producer
            .map(|p| format!(r#","producerId":{p},"producerEpoch":0"#))
            .unwrap_or_default();
        format!(
            r#"{{"key":{{"type":1,"data":{{"group":"g","topic":"in","partition":{partition}}}}},"value":{{"version":4,"data":{{"offset":{offset},"leaderEpoch":3,"metadata":"","commitTimestamp":1200}}}}{txn}}}"#
        )
    }

    fn markers(log: &crate::history::ParsedLog) -> Vec<(usize, Option<i64>, i64, bool)> {
        log.markers
            .iter()
            .map(|m| (m.before, m.timestamp_ms, m.producer_id, m.commit))
            .collect()
    }

    #[test]
    fn history_json_lines_keep_producers_and_end_markers() {
        let text = [
            commit(0, 10, None),
            commit(0, 11, Some(7)),
            commit(1, 21, Some(7)),
            r#"{"endTxnMarker":"COMMIT","producerId":7,"producerEpoch":0,"offset":3,"timestampMs":1300}"#.into(),
            commit(0, 12, Some(8)),
            r#"{"endTxnMarker":"ABORT","producerId":8,"producerEpoch":0,"timestampMs":1500}"#.into(),
        ]
        .join("\n");
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (4, 0));
        let producers: Vec<_> = log
            .records
            .iter()
            .map(|r| r.record.producer.map(|p| p.id))
            .collect();
        assert_eq!(producers, [None, Some(7), Some(7), Some(8)]);
        assert_eq!(
            markers(&log),
            [(3, Some(1300), 7, true), (4, Some(1500), 8, false)]
        );
        // The same as a JSON list.
        let list = format!("[{}]", text.replace('\n', ","));
        let log = parse_log(list.as_bytes(), None).unwrap();
        assert_eq!(log.records.len(), 4);
        assert_eq!(markers(&log), [(3, None, 7, true), (4, None, 8, false)]);
    }

    #[test]
    fn history_coordinator_outputs_mark_a_transaction_completed() {
        let written = format!(
            r#"{{"nowMs":1200,"response":{{}},"records":[{},{}],"explain":[]}}"#,
            commit(0, 11, Some(7)),
            commit(1, 21, Some(7))
        );
        let text = [
            written.as_str(),
            r#"{"nowMs":1300,"response":null,"records":[],"explain":[{"code":"TRANSACTION_COMPLETED","groupId":"g","producerId":7,"result":"COMMIT","partitions":2,"committed":2},{"code":"TRANSACTION_COMPLETED","groupId":"h","producerId":7,"result":"COMMIT","partitions":1,"committed":1}]}"#,
            r#"{"nowMs":1400,"response":null,"records":[],"explain":[{"code":"TRANSACTION_COMPLETED","groupId":"g","producerId":8,"result":"ABORT","partitions":1,"committed":0}]}"#,
        ]
        .join("\n");
        let log = parse_log(text.as_bytes(), None).unwrap();
        assert_eq!(log.form, "outputs");
        assert_eq!(log.records.len(), 2);
        assert!(log.records.iter().all(|r| r.record.producer.is_some()));
        // One marker per output, whichever groups it completed in.
        assert_eq!(
            markers(&log),
            [(2, Some(1300), 7, true), (2, Some(1400), 8, false)]
        );
    }
}

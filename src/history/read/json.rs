//! JSON forms of a log: a JSON list of records; JSON lines, each a record (`key` / `value` or
//! `keyBytes` / `valueBytes`, with its `offset`, `timestampMs` and `batch` when known) or an
//! output of the coordinator (`sgc` or `handle`, whose `records` are one write). Kafka's
//! dump-log spelling of a record (string `type` and `version`, `<DELETE>`) is read too.

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
            source: Source::Json(normalize(v)),
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
                source: Source::Json(normalize(r.clone())),
            });
        }
        Ok(true)
    } else if v.get("error").is_some() || v.get("response").is_some() {
        // A boundary error or an output without records: nothing was written.
        Ok(true)
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

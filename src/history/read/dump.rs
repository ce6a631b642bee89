//! The text `kafka-dump-log.sh --offsets-decoder` prints: a header line per record batch
//! (`baseOffset: ...`) and a line per record (`| offset: 12 CreateTime: ... key: {json}
//! payload: {json}|<DELETE>`), with Kafka's string `type` and `version`.

use serde_json::{json, Value};

use super::json::normalize;
use super::{line_err, LogError, RawEntry, Source};

/// A record batch's header line: the records after it are one coordinator write.
pub(super) fn is_batch_header(line: &str) -> bool {
    line.starts_with("baseOffset:")
}

/// The entry of a dump-log record line; `None` for a line of another kind. A record the
/// decoder could not read ("Unknown record type ...") is an entry of an unknown type, counted
/// as skipped.
pub(super) fn record_line(
    line: &str,
    n: usize,
    batch: Option<u64>,
) -> Result<Option<RawEntry<'static>>, LogError> {
    let Some(k) = line.find(" key: ") else {
        return Ok(None);
    };
    if !(line.starts_with('|') || line.starts_with("offset:")) {
        return Ok(None);
    }
    let entry = if let Some(json) = dump_record(line, k, n)? {
        RawEntry {
            line: Some(n),
            position: None,
            offset: number_after(line, "offset: "),
            timestamp_ms: number_after(line, "CreateTime: "),
            batch,
            source: Source::Json(json),
        }
    } else {
        RawEntry {
            line: Some(n),
            position: None,
            offset: number_after(line, "offset: "),
            timestamp_ms: None,
            batch,
            source: Source::Json(json!({"key": {"type": -1, "data": {}}, "value": null})),
        }
    };
    Ok(Some(entry))
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

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn history_number_after_skips_longer_labels() {
        let line = "baseOffset: 5 lastOffset: 6 | offset: 7 CreateTime: 8";
        assert_eq!(number_after(line, "offset: "), Some(7));
        assert_eq!(number_after(line, "CreateTime: "), Some(8));
        assert_eq!(number_after("x", "offset: "), None);
    }
}

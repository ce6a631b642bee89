//! The fast way in for a log read back (feature `replay-text`): a `Replay` input whose records
//! are all in the bytes form, read by one scan of its text that decodes each record's base64
//! as it passes, into one buffer. No JSON tree, no list of borrowed strings, no second pass.
//!
//! The scan knows one shape only, the one the general path ([`super::Input::parse`], then the
//! coordinator's decoding) accepts with the same records: an object of `nowMs` (a non-negative
//! integer), `type` (`"Replay"`) and `records` (a list of objects of `keyBytes`, a base64
//! string, and `valueBytes`, a base64 string or `null`), each key once, in any order, with any
//! JSON whitespace; the list and its strings within the limits. Anything else, escapes and
//! unknown keys included, is `None`: the general path reads it and gives every error its path.

use super::scan::Scan;
use super::{MAX_LIST_LEN, MAX_STRING_BYTES};
use crate::records::json::append_base64_string;

/// A `Replay` input's records in the bytes form, decoded from base64 into one buffer
/// ([`replay_from_text`]): what its records are read from, in place where they can be.
pub(crate) struct ReplayBytes {
    pub(crate) now_ms: i64,
    bytes: Vec<u8>,
    /// Each record's key and value (`None`: a tombstone) as ranges of `bytes`.
    spans: Vec<(Span, Option<Span>)>,
}

/// A start and an end in [`ReplayBytes::bytes`].
type Span = (usize, usize);

/// The records of a `Replay` input's text in the bytes form, or `None` when the text is not
/// of the one shape this reads (see the module's comment).
pub(crate) fn replay_from_text(text: &str) -> Option<ReplayBytes> {
    let mut scan = Scan::new(text);
    let mut out = ReplayBytes {
        now_ms: 0,
        bytes: Vec::new(),
        spans: Vec::new(),
    };
    let (mut now_ms, mut kind, mut records) = (false, false, false);
    scan.expect(b'{')?;
    loop {
        match scan.key()? {
            b"nowMs" if !now_ms => {
                out.now_ms = scan.natural()?;
                now_ms = true;
            }
            b"type" if !kind => {
                scan.expect_text(b"\"Replay\"")?;
                kind = true;
            }
            b"records" if !records => {
                scan.records(&mut out)?;
                records = true;
            }
            _ => return None,
        }
        if !scan.more(b'}')? {
            break;
        }
    }
    (now_ms && kind && records && scan.at_end()).then_some(out)
}

impl ReplayBytes {
    /// The records, each with its index in the input: target and current assignment records
    /// read in place, the others decoded; records of other kinds are left out, as the general
    /// path skips them. `None` when the general path would refuse one (it is then asked, for
    /// the error and its path).
    pub(crate) fn records(
        &self,
        dialect: crate::records::Dialect,
    ) -> Option<crate::records::in_place::ReadLog<'_>> {
        let mut records = Vec::with_capacity(self.spans.len());
        for &((start, end), value) in &self.spans {
            let key = self.bytes.get(start..end)?;
            let value = match value {
                Some((start, end)) => Some(self.bytes.get(start..end)?),
                None => None,
            };
            records.push((key, value));
        }
        crate::records::in_place::read_log(dialect, &records).ok()
    }
}

impl Scan<'_> {
    /// A base64 string within the string limit, decoded onto the end of `out`.
    fn base64(&mut self, out: &mut Vec<u8>) -> Option<Span> {
        self.expect(b'"')?;
        let start = out.len();
        let len = append_base64_string(self.text.get(self.at..)?, out)?;
        self.at += len + 1;
        (len <= MAX_STRING_BYTES).then_some((start, out.len()))
    }

    /// The list of records.
    fn records(&mut self, out: &mut ReplayBytes) -> Option<()> {
        self.expect(b'[')?;
        // A base64 character is three quarters of a byte once decoded: a buffer of three
        // quarters of the text left holds every record (sized here, so that other inputs,
        // which fail at their first key, allocate nothing).
        out.bytes
            .reserve(self.text.len().saturating_sub(self.at) / 4 * 3);
        self.skip_whitespace();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(());
        }
        loop {
            if out.spans.len() == MAX_LIST_LEN {
                return None;
            }
            let record = self.record(&mut out.bytes)?;
            out.spans.push(record);
            if !self.more(b']')? {
                return Some(());
            }
        }
    }

    /// One record: `keyBytes` and `valueBytes`, once each.
    fn record(&mut self, bytes: &mut Vec<u8>) -> Option<(Span, Option<Span>)> {
        let (mut key, mut value) = (None, None);
        self.expect(b'{')?;
        loop {
            match self.key()? {
                b"keyBytes" if key.is_none() => key = Some(self.base64(bytes)?),
                b"valueBytes" if value.is_none() => {
                    value = Some(match self.expect_text(b"null") {
                        Some(()) => None,
                        None => Some(self.base64(bytes)?),
                    });
                }
                _ => return None,
            }
            if !self.more(b'}')? {
                return Some((key?, value?));
            }
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use proptest::prelude::*;
    use serde::Deserialize;

    use super::*;

    /// What a `Replay` text holds by serde's reading of the same shape (the derived decoders
    /// refuse unknown and duplicate fields, and borrow their strings, so an escape fails):
    /// `now_ms` and each record's decoded key and value.
    type Read = (i64, Vec<(Vec<u8>, Option<Vec<u8>>)>);

    fn by_serde(text: &str) -> Option<Read> {
        fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de str>, D::Error> {
            Option::<&'de str>::deserialize(d)
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct ReplayText<'a> {
            #[serde(rename = "nowMs")]
            now_ms: i64,
            #[serde(rename = "type")]
            kind: &'a str,
            #[serde(borrow)]
            records: Vec<BytesRecord<'a>>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct BytesRecord<'a> {
            #[serde(rename = "keyBytes")]
            key_bytes: &'a str,
            #[serde(rename = "valueBytes", borrow, deserialize_with = "present")]
            value_bytes: Option<&'a str>,
        }
        let parsed: ReplayText<'_> = serde_json::from_str(text).ok()?;
        let decode = |s: &str| (s.len() <= MAX_STRING_BYTES).then(|| STANDARD.decode(s).ok())?;
        if parsed.now_ms < 0 || parsed.kind != "Replay" || parsed.records.len() > MAX_LIST_LEN {
            return None;
        }
        let mut records = Vec::new();
        for r in parsed.records {
            let value = match r.value_bytes {
                Some(v) => Some(decode(v)?),
                None => None,
            };
            records.push((decode(r.key_bytes)?, value));
        }
        Some((parsed.now_ms, records))
    }

    fn by_scan(text: &str) -> Option<Read> {
        let read = replay_from_text(text)?;
        let slice = |(start, end): Span| read.bytes[start..end].to_vec();
        let records = read
            .spans
            .iter()
            .map(|&(key, value)| (slice(key), value.map(slice)))
            .collect();
        Some((read.now_ms, records))
    }

    #[test]
    fn every_variant_is_read_as_serde_reads_it() {
        let long = "QUFB".repeat(MAX_STRING_BYTES / 4 + 1);
        let record = |key: &str, value: &str| {
            format!(
                r#"{{"nowMs":1,"type":"Replay","records":[{{"keyBytes":{key},"valueBytes":{value}}}]}}"#
            )
        };
        let outer = |rest: &str| format!(r#"{{"type":"Replay",{rest}}}"#);
        // Read by both, the same.
        let read = [
            r#"{"nowMs":5,"type":"Replay","records":[{"keyBytes":"AAE=","valueBytes":"AAIDBA=="}]}"#.to_string(),
            r#" { "records" : [ { "valueBytes" : null , "keyBytes" : "AAE=" } ] , "type" : "Replay" , "nowMs" : 0 } "#.into(),
            "{\n\t\"nowMs\":\r1,\"type\":\"Replay\",\"records\":[]}\n".into(),
            outer(r#""nowMs":1,"records":[ ]"#),
            outer(r#""nowMs":123456789012345678,"records":[]"#),
            record(r#""""#, r#""""#),
            record(r#""AAE=""#, "null"),
        ];
        // Refused by both.
        let refused = [
            outer(r#""nowMs":-1,"records":[]"#),
            outer(r#""nowMs":-0,"records":[]"#),
            outer(r#""nowMs":01,"records":[]"#),
            outer(r#""nowMs":1.0,"records":[]"#),
            outer(r#""nowMs":1e3,"records":[]"#),
            outer(r#""nowMs":"1","records":[]"#),
            outer(r#""nowMs":99999999999999999999,"records":[]"#),
            outer(r#""nowMs":1,"records":[],"nowMs":2"#),
            outer(r#""nowMs":1,"records":[],"x":2"#),
            outer(r#""nowMs":1"#),
            outer(r#""records":[]"#),
            outer(r#""nowMs":1,"records":[],"#),
            outer(r#""nowMs":1,"records":[,]"#),
            outer(r#""nowMs":1,"records":[{}]"#),
            outer(r#""nowMs":1,"records":{}"#),
            outer(r#""nowMs":1,"records":null"#),
            outer(r#""nowMs":1,"records":[]"#) + "x",
            r#"{"nowMs":1,"type":"Replay ","records":[]}"#.into(),
            r#"{"nowMs":1,"type":"Re\u0070lay","records":[]}"#.into(),
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","records":[]}"#.into(),
            outer(r#""nowMs":1,"records":[{"keyBytes":"AAE="}]"#),
            outer(r#""nowMs":1,"records":[{"valueBytes":null}]"#),
            outer(
                r#""nowMs":1,"records":[{"keyBytes":"AAE=","valueBytes":null,"keyBytes":"AAE="}]"#,
            ),
            outer(r#""nowMs":1,"records":[{"keyBytes":"AAE=","valueBytes":null}]"#)
                .replace("}]}", "}]"),
            record(r#""AAE=""#, "nul"),
            record(r#""AA\/E""#, "null"),
            record(r#""AAE""#, "null"),
            record(r#""AAF=""#, "null"),
            record("null", "null"),
            record(&format!("\"{long}\""), "null"),
            String::new(),
        ];
        // Read by serde only: taken the general way, which reads them as serde does.
        let missed = [
            outer(r#""nowMs":1234567890123456789,"records":[]"#),
            outer(r#""nowMs":1,"records":[{"key\u0042ytes":"AAE=","valueBytes":null}]"#),
        ];
        for text in &read {
            assert!(by_scan(text).is_some(), "{text}");
            assert_eq!(by_scan(text), by_serde(text), "{text}");
        }
        for text in &refused {
            assert_eq!((by_scan(text), by_serde(text)), (None, None), "{text}");
        }
        for text in &missed {
            assert_eq!(by_scan(text), None, "{text}");
            assert!(by_serde(text).is_some(), "{text}");
        }
    }

    /// A text of the shape with a few records, from the parts proptest picks.
    fn replay_text(now_ms: i64, records: &[(Vec<u8>, Option<Vec<u8>>)], space: &str) -> String {
        let record = |(k, v): &(Vec<u8>, Option<Vec<u8>>)| {
            let v = v.as_ref().map_or("null".to_string(), |v| {
                format!("\"{}\"", STANDARD.encode(v))
            });
            format!(
                "{{{space}\"keyBytes\":{space}\"{}\",\"valueBytes\"{space}:{v}}}",
                STANDARD.encode(k)
            )
        };
        let list: Vec<String> = records.iter().map(record).collect();
        format!(
            "{{\"nowMs\":{now_ms},{space}\"type\":\"Replay\",\"records\":[{space}{}]{space}}}",
            list.join(&format!(",{space}"))
        )
    }

    proptest! {
        /// Any text of the shape reads as it was written; that text with one byte replaced,
        /// inserted or removed (JSON's own characters the likeliest picks) as serde reads it.
        #[test]
        fn a_text_and_its_mutants_read_as_serde_reads_them(
            now_ms in 0i64..1 << 40,
            records in proptest::collection::vec(
                (proptest::collection::vec(any::<u8>(), 0..9),
                 proptest::option::of(proptest::collection::vec(any::<u8>(), 0..9))),
                0..4,
            ),
            space in prop::sample::select(vec!["", " ", "\n\t"]),
            at in any::<prop::sample::Index>(),
            edit in 0..3u8,
            byte in prop::sample::select(b"{}[],:\"\\ =Aa0-.en/+".to_vec()),
        ) {
            let text = replay_text(now_ms, &records, space);
            prop_assert_eq!(by_scan(&text), Some((now_ms, records.clone())));
            let mutant = super::super::scan::mutant(&text, at, edit, byte).expect("ASCII");
            // The scan may leave a text to the general way (an escaped key), never read it otherwise.
            let scanned = by_scan(&mutant);
            prop_assert!(scanned.is_none() || scanned == by_serde(&mutant), "{}", mutant);
        }
    }
}

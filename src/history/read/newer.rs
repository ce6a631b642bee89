//! Records of newer releases in a log's JSON form. A release adds fields to a value as tagged
//! fields (4.4's `storedDescriptionTopologyEpoch` and `failedDescriptionTopologyEpoch` on the
//! group metadata; 4.3's `assignmentTimestamp`, which the reader knows) without a new version: the schema's version-0 readers skip them, as the bytes
//! form here does. The records' JSON reader refuses fields it does not know; a log is read
//! like Kafka's own readers do, the value's unknown fields left out and each named once.

use serde_json::Value;

use crate::error::BoundaryError;
use crate::records::{record_from_json_at, Dialect, Record};

/// The most unknown fields left out of one record before it is refused.
const MAX_LEFT_OUT: usize = 16;

/// The record of `json` (item `i` of the log) in `dialect`, with the value's fields the
/// dialect does not know left out, and their paths in the value
/// (`data.storedDescriptionTopologyEpoch`).
pub(super) fn read_leaving_out_unknown(
    dialect: Dialect,
    json: &Value,
    i: usize,
) -> Result<(Option<Record>, Vec<String>), BoundaryError> {
    let mut left_out = Vec::new();
    let mut trimmed: Option<Value> = None;
    loop {
        let at = trimmed.as_ref().unwrap_or(json);
        match record_from_json_at(dialect, at, "records", i) {
            Ok(record) => return Ok((record, left_out)),
            Err(e) if e.message == "unknown field" && left_out.len() < MAX_LEFT_OUT => {
                let prefix = format!("records[{i}].value.");
                let Some(field) = e
                    .path
                    .strip_prefix(&prefix)
                    .filter(|f| f.starts_with("data."))
                else {
                    return Err(e);
                };
                let value = trimmed.get_or_insert_with(|| json.clone());
                if !remove_at(value.get_mut("value"), field) {
                    return Err(e);
                }
                left_out.push(field.to_string());
            }
            Err(e) => return Err(e),
        }
    }
}

/// Removes the field at `path` (`data.activeTasks[0].x`) under `v`: whether it was there.
fn remove_at(v: Option<&mut Value>, path: &str) -> bool {
    let Some((parent, name)) = path.rsplit_once('.') else {
        return false;
    };
    let mut cur = v;
    for step in parent.split('.') {
        let (field, indices) = match step.find('[') {
            Some(b) => (&step[..b], &step[b..]),
            None => (step, ""),
        };
        cur = cur.and_then(|c| c.get_mut(field));
        for index in indices.split(['[', ']']).filter(|s| !s.is_empty()) {
            cur = cur.and_then(|c| c.get_mut(index.parse::<usize>().ok()?));
        }
    }
    cur.and_then(Value::as_object_mut)
        .is_some_and(|m| m.remove(name).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use crate::history::read::parse_log;
    use crate::records::{Dialect, RecordValue};

    /// A write of a Kafka 4.4 broker, as its `kafka-dump-log.sh --offsets-decoder` prints it:
    /// the group metadata with 4.4's tags 2 and 3 (unknown to 4.2), then two target metadata
    /// records with 4.3's `assignmentTimestamp` (known to every Kafka dialect here).
    const DUMP_44: &str = r#"Dumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000040.log
Log starting offset: 40
baseOffset: 40 lastOffset: 42 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1100 size: 160 magic: 2 compresscodec: none crc: 1022337450 isvalid: true
| offset: 40 CreateTime: 1100 keySize: 5 valueSize: 62 sequence: 0 headerKeys: [] key: {"type":"17","data":{"groupId":"g"}} payload: {"version":"0","data":{"epoch":3,"metadataHash":5050876873066757062,"validatedTopologyEpoch":0,"lastAssignmentConfigs":[{"key":"num.standby.replicas","value":"0"}],"storedDescriptionTopologyEpoch":0,"failedDescriptionTopologyEpoch":-2}}
| offset: 41 CreateTime: 1100 keySize: 5 valueSize: 18 sequence: 1 headerKeys: [] key: {"type":"20","data":{"groupId":"g"}} payload: {"version":"0","data":{"assignmentEpoch":3,"assignmentTimestamp":1100}}
| offset: 42 CreateTime: 1100 keySize: 5 valueSize: 18 sequence: 2 headerKeys: [] key: {"type":"20","data":{"groupId":"h"}} payload: {"version":"0","data":{"assignmentEpoch":1,"assignmentTimestamp":1100}}
"#;

    #[test]
    fn history_a_newer_releases_tagged_fields_are_left_out_with_a_warning() {
        // Found to be 4.4's log, it is read whole, without a warning.
        let found = parse_log(DUMP_44.as_bytes(), None).unwrap();
        assert_eq!((found.dialect, found.warnings.len()), (Dialect::Kafka44, 0));
        // Read as 4.2 (`--dialect kafka-4.2`), 4.4's fields are left out with a warning.
        let log = parse_log(DUMP_44.as_bytes(), Some(Dialect::Kafka42)).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (3, 0));
        let RecordValue::GroupMetadata(g) = log.records[0].record.value.as_ref().unwrap() else {
            panic!("{:?}", log.records[0]);
        };
        assert_eq!(
            (g.epoch, g.last_assignment_configs.as_ref().map(Vec::len)),
            (3, Some(1))
        );
        let w: Vec<_> = log
            .warnings
            .iter()
            .map(|w| (w.line, w.message.as_str()))
            .collect();
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(w[0].0, Some(4));
        assert!(w[0].1.starts_with("the record at offset 40 has the value field data.storedDescriptionTopologyEpoch, which kafka-4.2 does not have"), "{w:?}");
        assert!(
            w[1].1.contains("data.failedDescriptionTopologyEpoch"),
            "{w:?}"
        );
        let RecordValue::TargetAssignmentMetadata(t) =
            log.records[1].record.value.as_ref().unwrap()
        else {
            panic!("{:?}", log.records[1]);
        };
        assert_eq!((t.assignment_epoch, t.assignment_timestamp), (3, 1100));
        // A 4.3 log: the assignment timestamps tell the release.
        let v43 = DUMP_44.replace(
            r#","storedDescriptionTopologyEpoch":0,"failedDescriptionTopologyEpoch":-2"#,
            "",
        );
        let log = parse_log(v43.as_bytes(), None).unwrap();
        assert_eq!((log.dialect, log.warnings.len()), (Dialect::Kafka43, 0));
        // A whole 4.2 log has none.
        let plain = DUMP_44
            .replace(
                r#","storedDescriptionTopologyEpoch":0,"failedDescriptionTopologyEpoch":-2"#,
                "",
            )
            .replace(r#","assignmentTimestamp":1100"#, "");
        let log = parse_log(plain.as_bytes(), None).unwrap();
        assert_eq!((log.dialect, log.warnings.len()), (Dialect::Kafka42, 0));
    }

    #[test]
    fn history_only_a_values_unknown_fields_are_left_out() {
        // In the key, or beside the value's version and data: not a newer release's tagged
        // field, refused.
        for (from, to) in [
            (r#"{"groupId":"h"}"#, r#"{"groupId":"h","x":1}"#),
            (
                r#"{"version":"0","data":{"assignmentEpoch":1,"#,
                r#"{"version":"0","x":1,"data":{"assignmentEpoch":1,"#,
            ),
        ] {
            let text = DUMP_44.replace(from, to);
            let e = parse_log(text.as_bytes(), Some(Dialect::Kafka42)).unwrap_err();
            assert!(e.message.contains("unknown field"), "{e}");
        }
        // In a list item of the value: left out.
        let mut v: Value = serde_json::from_str(
            r#"{"version":0,"data":{"activeTasks":[{"subtopologyId":"0","partitions":[0],"x":1}]}}"#,
        )
        .unwrap();
        assert!(remove_at(Some(&mut v), "data.activeTasks[0].x"));
        assert!(!remove_at(Some(&mut v), "data.activeTasks[0].x"));
        assert!(!remove_at(Some(&mut v), "data.activeTasks[3].x"));
        assert_eq!(v["data"]["activeTasks"][0].as_object().unwrap().len(), 2);
    }
}

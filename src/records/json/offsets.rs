//! The JSON form of offset commit records: key data `{group, topic, partition}` (Kafka's
//! `OffsetCommitKey` names), value `{version, data}` with the fields of that version; and of the
//! classic group tombstone (type 2) that deletes the simple group of an admin's commit.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use super::{err, field, int16, int32, int64, object, required, string, tagged, uuid, Parsed};
use crate::error::{BoundaryError, JsonPath as Path};
use crate::records::model::*;

/// An offset commit record in the JSON form: key data `{group, topic, partition}`, value
/// `{version, data}` at any version Kafka reads (0-4), each version with its own fields.
/// (`t`: an offset commit, or the classic group record of type id `id`.)
pub(super) fn record_from_json(
    t: RecordType,
    obj: &Map<String, Value>,
    key: &Map<String, Value>,
    id: i16,
    p: &Path<'_>,
) -> Result<Parsed, BoundaryError> {
    if t == RecordType::ClassicGroupMetadata {
        return classic_group_from_json(obj, key, id, p);
    }
    let kp = p.field("key");
    let dp = kp.field("data");
    let data = object(
        required(key, &kp, "data")?,
        &dp,
        &["group", "topic", "partition"],
    )?;
    let key = RecordKey::OffsetCommit {
        group_id: field(data, &dp, "group", string)?.into(),
        topic: field(data, &dp, "topic", string)?.into(),
        partition: field(data, &dp, "partition", int32)?,
    };
    let vp = p.field("value");
    let value = match required(obj, p, "value")? {
        Value::Null => None,
        v => {
            let envelope = object(v, &vp, &["version", "data"])?;
            let version = field(envelope, &vp, "version", int16)?;
            let allowed: &[&str] = match version {
                0 | 2 => &["offset", "metadata", "commitTimestamp"],
                1 => &["offset", "metadata", "commitTimestamp", "expireTimestamp"],
                3 => &["offset", "leaderEpoch", "metadata", "commitTimestamp"],
                4 => &[
                    "offset",
                    "leaderEpoch",
                    "metadata",
                    "commitTimestamp",
                    "topicId",
                ],
                _ => {
                    return Err(err(
                        &vp.field("version"),
                        format!("unsupported value version {version} (0-4 are known)"),
                    ))
                }
            };
            let dp = vp.field("data");
            let m = object(required(envelope, &vp, "data")?, &dp, allowed)?;
            let mut v = OffsetCommitValue {
                offset: field(m, &dp, "offset", int64)?,
                metadata: field(m, &dp, "metadata", string)?,
                commit_timestamp: field(m, &dp, "commitTimestamp", int64)?,
                ..OffsetCommitValue::default()
            };
            if version >= 3 {
                v.leader_epoch = field(m, &dp, "leaderEpoch", int32)?;
            }
            if version == 1 {
                v.expire_timestamp = field(m, &dp, "expireTimestamp", int64)?;
            }
            if let Some(id) = tagged(m, &dp, "topicId", uuid)? {
                v.topic_id = id;
            }
            Some(RecordValue::OffsetCommit(v))
        }
    };
    Ok(Parsed::Record(Box::new(Record::plain(key, value))))
}

/// The fields of a record in either form: JSON, bytes, and a transactional batch's producer.
pub(super) const RECORD_FIELDS: &[&str] = &[
    "key",
    "value",
    "keyBytes",
    "valueBytes",
    "producerId",
    "producerEpoch",
];

/// A record's transactional batch: `producerId` and `producerEpoch`, both or neither.
pub(super) fn producer(
    obj: &Map<String, Value>,
    p: &Path<'_>,
) -> Result<Option<Producer>, BoundaryError> {
    match (obj.get("producerId"), obj.get("producerEpoch")) {
        (None, None) => Ok(None),
        (Some(_), Some(_)) => {
            let id = field(obj, p, "producerId", int64)?;
            let epoch = field(obj, p, "producerEpoch", int16)?;
            if id < 0 {
                return Err(err(&p.field("producerId"), "must be 0 or more"));
            }
            if epoch < 0 {
                return Err(err(&p.field("producerEpoch"), "must be 0 or more"));
            }
            Ok(Some(Producer { id, epoch }))
        }
        (Some(_), None) => Err(err(p, "producerId without producerEpoch")),
        (None, Some(_)) => Err(err(p, "producerEpoch without producerId")),
    }
}

/// The value's `data` fields, of the version it is written at.
pub(super) fn write_value<M: SerializeMap>(
    m: &mut M,
    v: &OffsetCommitValue,
) -> Result<(), M::Error> {
    m.serialize_entry("offset", &v.offset)?;
    if v.version() == 1 {
        m.serialize_entry("metadata", &v.metadata)?;
        m.serialize_entry("commitTimestamp", &v.commit_timestamp)?;
        m.serialize_entry("expireTimestamp", &v.expire_timestamp)?;
    } else {
        m.serialize_entry("leaderEpoch", &v.leader_epoch)?;
        m.serialize_entry("metadata", &v.metadata)?;
        m.serialize_entry("commitTimestamp", &v.commit_timestamp)?;
        if v.topic_id != Uuid::default() {
            m.serialize_entry("topicId", &URL_SAFE_NO_PAD.encode(v.topic_id.0))?;
        }
    }
    Ok(())
}

/// Kafka's classic group record (type 2): its tombstone, keyed by Kafka's `group`; a value (a
/// classic group, which this coordinator does not hold) is skipped as a record of another kind.
fn classic_group_from_json(
    obj: &Map<String, Value>,
    key: &Map<String, Value>,
    id: i16,
    p: &Path<'_>,
) -> Result<Parsed, BoundaryError> {
    if !matches!(required(obj, p, "value")?, Value::Null) {
        return Ok(Parsed::Skipped(id));
    }
    let kp = p.field("key");
    let dp = kp.field("data");
    let data = object(required(key, &kp, "data")?, &dp, &["group"])?;
    let group_id = field(data, &dp, "group", string)?;
    Ok(Parsed::Record(Box::new(Record::tombstone(
        RecordKey::ClassicGroupMetadata { group_id },
    ))))
}

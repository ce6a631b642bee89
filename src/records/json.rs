//! The dump-log JSON form of records (PROTOCOL 5.7).
//!
//! Field names are the schema names in camelCase, in schema order; a dialect writes and reads
//! only its own fields. Tagged fields are written only when they differ from their defaults
//! and read whether present or not. Reading is strict: wrong types, missing fields, unknown
//! fields and out-of-range numbers are boundary errors naming the offending path.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::codec::{
    current_task_lists, decode_key, decode_value, encode_key, encode_value, has_member_id,
    make_key, record_type, wire_type_id,
};
use super::model::*;
use super::wire::MAX_STRING_BYTES;
use crate::error::{BoundaryCode, BoundaryError, JsonPath as Path};
use crate::topology::{CopartitionGroup, Subtopology, TopicConfig, TopicInfo};

#[cfg(feature = "replay-text")]
mod base64_text;
mod offsets;
#[cfg(feature = "replay-text")]
pub(crate) use base64_text::append_base64_string;

/// `{"key": {"type", "data"}, "value": {"version", "data"} | null}`, plus `keyBytes` /
/// `valueBytes` (base64) when `with_bytes`, and `producerId` / `producerEpoch` for a record of
/// a transactional batch, as a JSON tree ([`RecordJson`] serialised).
pub fn record_to_json(dialect: Dialect, record: &Record, with_bytes: bool) -> Value {
    serde_json::to_value(RecordJson {
        dialect,
        record,
        with_bytes,
    })
    .unwrap_or(Value::Null)
}

/// A record in its dump-log JSON form, serialised straight to the output (no JSON tree):
/// field names and order as [`record_to_json`] documents them.
#[derive(Clone, Copy)]
pub struct RecordJson<'a> {
    /// The dialect whose fields are written.
    pub dialect: Dialect,
    /// The record.
    pub record: &'a Record,
    /// Whether `keyBytes` and `valueBytes` are written too.
    pub with_bytes: bool,
}

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (dialect, record) = (self.dialect, self.record);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("key", &KeyJson(dialect, &record.key))?;
        m.serialize_entry(
            "value",
            &record.value.as_ref().map(|v| EnvelopeJson(dialect, v)),
        )?;
        if self.with_bytes {
            m.serialize_entry(
                "keyBytes",
                &STANDARD.encode(encode_key(dialect, &record.key)),
            )?;
            m.serialize_entry(
                "valueBytes",
                &record
                    .value
                    .as_ref()
                    .map(|v| STANDARD.encode(encode_value(dialect, v))),
            )?;
        }
        if let Some(producer) = record.producer {
            m.serialize_entry("producerId", &producer.id)?;
            m.serialize_entry("producerEpoch", &producer.epoch)?;
        }
        m.end()
    }
}

/// A JSON object of `(name, value)` entries, in order.
macro_rules! object {
    ($s:expr, $($name:expr => $value:expr),* $(,)?) => {{
        let mut m = $s.serialize_map(None)?;
        $(m.serialize_entry($name, $value)?;)*
        m.end()
    }};
}

struct KeyJson<'a>(Dialect, &'a RecordKey);

impl Serialize for KeyJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object!(s,
            "type" => &wire_type_id(self.0, self.1.record_type()),
            "data" => &KeyDataJson(self.1),
        )
    }
}

struct KeyDataJson<'a>(&'a RecordKey);

impl Serialize for KeyDataJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let RecordKey::OffsetCommit {
            group_id,
            topic,
            partition,
        } = self.0
        {
            // Kafka's `OffsetCommitKey` names.
            return object!(s, "group" => &**group_id, "topic" => &**topic, "partition" => partition);
        }
        let mut m = s.serialize_map(None)?;
        let classic = matches!(self.0, RecordKey::ClassicGroupMetadata { .. });
        m.serialize_entry(if classic { "group" } else { "groupId" }, self.0.group_id())?;
        if let Some(member_id) = self.0.member_id() {
            m.serialize_entry("memberId", member_id)?;
        }
        m.end()
    }
}

struct EnvelopeJson<'a>(Dialect, &'a RecordValue);

impl Serialize for EnvelopeJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let version = match self.1 {
            RecordValue::OffsetCommit(v) => v.version(),
            _ => 0,
        };
        object!(s, "version" => &version, "data" => &ValueJson(self.0, self.1))
    }
}

/// Parses either form (JSON, or `keyBytes`/`valueBytes` alone; both must agree when both are
/// given). `Ok(None)` for records of other kinds, which replay skips. Error paths are relative
/// to `path` (e.g. `records[3]`).
pub fn record_from_json(
    dialect: Dialect,
    value: &Value,
    path: &str,
) -> Result<Option<Record>, BoundaryError> {
    parse_record(dialect, value, &Path::Root(path))
}

/// [`record_from_json`] for item `index` of the list at `path`: the path is rendered only for
/// an error, so decoding a long list builds no string per record.
pub(crate) fn record_from_json_at(
    dialect: Dialect,
    value: &Value,
    path: &str,
    index: usize,
) -> Result<Option<Record>, BoundaryError> {
    parse_record(dialect, value, &Path::Root(path).index(index))
}

fn parse_record(
    dialect: Dialect,
    value: &Value,
    p: &Path<'_>,
) -> Result<Option<Record>, BoundaryError> {
    let obj = object(value, p, offsets::RECORD_FIELDS)?;
    let producer = offsets::producer(obj, p)?;
    let has_json = obj.contains_key("key") || obj.contains_key("value");
    let has_bytes = obj.contains_key("keyBytes") || obj.contains_key("valueBytes");
    let parsed = match (has_json, has_bytes) {
        (false, false) => {
            return Err(err(
                p,
                "a record needs key and value, or keyBytes and valueBytes",
            ))
        }
        (true, false) => json_form(dialect, obj, p)?,
        (false, true) => bytes_form(dialect, obj, p)?,
        (true, true) => {
            let from_json = json_form(dialect, obj, p)?;
            let from_bytes = bytes_form(dialect, obj, p)?;
            if from_json != from_bytes {
                return Err(err(p, "keyBytes/valueBytes do not match key/value"));
            }
            from_json
        }
    };
    Ok(match parsed {
        Parsed::Skipped(_) => None,
        Parsed::Record(mut record) => {
            record.producer = producer;
            Some(*record)
        }
    })
}

/// A record of this coordinator, or the type id of another kind of record.
#[derive(PartialEq)]
enum Parsed {
    Skipped(i16),
    Record(Box<Record>),
}

fn json_form(
    dialect: Dialect,
    obj: &Map<String, Value>,
    p: &Path<'_>,
) -> Result<Parsed, BoundaryError> {
    let kp = p.field("key");
    let key = object(required(obj, p, "key")?, &kp, &["type", "data"])?;
    let id = field(key, &kp, "type", int16)?;
    let Some(t) = record_type(dialect, id) else {
        return Ok(Parsed::Skipped(id));
    };
    let dp = kp.field("data");
    if t == RecordType::OffsetCommit || t == RecordType::ClassicGroupMetadata {
        return offsets::record_from_json(t, obj, key, id, p);
    }
    let allowed: &[&str] = if has_member_id(t) {
        &["groupId", "memberId"]
    } else {
        &["groupId"]
    };
    let data = object(required(key, &kp, "data")?, &dp, allowed)?;
    let group_id = field(data, &dp, "groupId", string)?;
    let member_id = if has_member_id(t) {
        field(data, &dp, "memberId", string)?
    } else {
        String::new()
    };
    let key = make_key(t, group_id, member_id);

    let vp = p.field("value");
    let value = match required(obj, p, "value")? {
        Value::Null => None,
        v => {
            let envelope = object(v, &vp, &["version", "data"])?;
            let version = field(envelope, &vp, "version", int16)?;
            if version != 0 {
                return Err(err(
                    &vp.field("version"),
                    format!("unsupported value version {version} (only 0 is known)"),
                ));
            }
            Some(field(envelope, &vp, "data", |v, p| {
                value_from_json(dialect, t, v, p)
            })?)
        }
    };
    Ok(Parsed::Record(Box::new(Record::plain(key, value))))
}

/// A record of a log read back, from its key and value bytes (`None`: a tombstone), as item
/// `index` of the list at `path`: what [`record_from_json`] makes of the same bytes in the
/// bytes form, with the same errors at the same paths (`records[3].keyBytes`); `Ok(None)` for a
/// record of another kind, which replay skips; also a log segment's records (`history`).
pub(crate) fn record_from_bytes_at(
    dialect: Dialect,
    key_bytes: &[u8],
    value_bytes: Option<&[u8]>,
    path: &str,
    index: usize,
) -> Result<Option<Record>, BoundaryError> {
    let p = Path::Root(path);
    Ok(
        match decoded_bytes_form(dialect, key_bytes, value_bytes, &p.index(index))? {
            Parsed::Skipped(_) => None,
            Parsed::Record(record) => Some(*record),
        },
    )
}

fn bytes_form(
    dialect: Dialect,
    obj: &Map<String, Value>,
    p: &Path<'_>,
) -> Result<Parsed, BoundaryError> {
    let key_bytes = field(obj, p, "keyBytes", base64)?;
    let value_bytes = field(obj, p, "valueBytes", |v, p| nullable(v, p, base64))?;
    decoded_bytes_form(dialect, &key_bytes, value_bytes.as_deref(), p)
}

/// [`bytes_form`] once the base64 is decoded.
fn decoded_bytes_form(
    dialect: Dialect,
    key_bytes: &[u8],
    value_bytes: Option<&[u8]>,
    p: &Path<'_>,
) -> Result<Parsed, BoundaryError> {
    let kp = p.field("keyBytes");
    let Some(key) = decode_key(dialect, key_bytes).map_err(|e| err(&kp, e.to_string()))? else {
        // `decode_key` read the id before deciding to skip, so these bytes exist.
        let id = match key_bytes {
            [a, b, ..] => i16::from_be_bytes([*a, *b]),
            _ => return Err(err(&kp, "too short for a record type id")),
        };
        return Ok(Parsed::Skipped(id));
    };
    let value = match value_bytes {
        None => None,
        Some(_) if key.record_type() == RecordType::ClassicGroupMetadata => {
            return Ok(Parsed::Skipped(wire_type_id(dialect, key.record_type())))
        }
        Some(bytes) => Some(
            decode_value(dialect, key.record_type(), bytes)
                .map_err(|e| err(&p.field("valueBytes"), e.to_string()))?,
        ),
    };
    Ok(Parsed::Record(Box::new(Record::plain(key, value))))
}

// ---------------------------------------------------------------------------------------------
// Writing values

/// Task lists: `{subtopologyId, partitions}` each, and `assignmentEpochs` where the dialect
/// has them (as in the bytes: the empty list is the default and left out; null is written).
struct TaskIdsJson<'a>(&'a [TaskIds], bool);

impl Serialize for TaskIdsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| TaskIdJson(t, self.1)))
    }
}

struct TaskIdJson<'a>(&'a TaskIds, bool);

impl Serialize for TaskIdJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("subtopologyId", &t.subtopology_id)?;
        m.serialize_entry("partitions", &t.partitions)?;
        match (self.1, &t.assignment_epochs) {
            (true, None) => m.serialize_entry("assignmentEpochs", &())?,
            (true, Some(epochs)) if !epochs.is_empty() => {
                m.serialize_entry("assignmentEpochs", epochs)?
            }
            _ => {}
        }
        m.end()
    }
}

/// `[{key, value}]`.
struct KeyValuesJson<'a>(&'a [KeyValue]);

impl Serialize for KeyValuesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|kv| PairJson(&kv.key, &kv.value)))
    }
}

struct PairJson<'a>(&'a str, &'a str);

impl Serialize for PairJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object!(s, "key" => self.0, "value" => self.1)
    }
}

struct TopicInfosJson<'a>(&'a [TopicInfo]);

impl Serialize for TopicInfosJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(TopicInfoJson))
    }
}

struct TopicInfoJson<'a>(&'a TopicInfo);

impl Serialize for TopicInfoJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let configs: Vec<PairJson<'_>> = t
            .topic_configs
            .iter()
            .map(|c| PairJson(&c.key, &c.value))
            .collect();
        object!(s,
            "name" => &t.name,
            "partitions" => &t.partitions,
            "replicationFactor" => &t.replication_factor,
            "topicConfigs" => &configs,
        )
    }
}

struct SubtopologyJson<'a>(&'a Subtopology);

impl Serialize for SubtopologyJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let groups: Vec<CopartitionJson<'_>> =
            t.copartition_groups.iter().map(CopartitionJson).collect();
        object!(s,
            "subtopologyId" => &t.subtopology_id,
            "sourceTopics" => &t.source_topics,
            "sourceTopicRegex" => &t.source_topic_regex,
            "stateChangelogTopics" => &TopicInfosJson(&t.state_changelog_topics),
            "repartitionSinkTopics" => &t.repartition_sink_topics,
            "repartitionSourceTopics" => &TopicInfosJson(&t.repartition_source_topics),
            "copartitionGroups" => &groups,
        )
    }
}

struct CopartitionJson<'a>(&'a CopartitionGroup);

impl Serialize for CopartitionJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let g = self.0;
        object!(s,
            "sourceTopics" => &g.source_topics,
            "sourceTopicRegex" => &g.source_topic_regex,
            "repartitionSourceTopics" => &g.repartition_source_topics,
        )
    }
}

struct TopicMetadataJson<'a>(&'a TopicMetadata);

impl Serialize for TopicMetadataJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let partitions: Vec<PartitionRacksJson<'_>> = t
            .partition_metadata
            .iter()
            .map(PartitionRacksJson)
            .collect();
        object!(s,
            "topicId" => &URL_SAFE_NO_PAD.encode(t.topic_id.0),
            "topicName" => &t.topic_name,
            "numPartitions" => &t.num_partitions,
            "partitionMetadata" => &partitions,
        )
    }
}

struct PartitionRacksJson<'a>(&'a PartitionRacks);

impl Serialize for PartitionRacksJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object!(s, "partition" => &self.0.partition, "racks" => &self.0.racks)
    }
}

struct EndpointJson<'a>(&'a Endpoint);

impl Serialize for EndpointJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object!(s, "host" => &self.0.host, "port" => &self.0.port)
    }
}

/// A record value's `data`: the dialect's fields in schema order.
struct ValueJson<'a>(Dialect, &'a RecordValue);

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v42 = self.0.is_kafka();
        let mut m = s.serialize_map(None)?;
        match self.1 {
            RecordValue::GroupMetadata(v) => {
                m.serialize_entry("epoch", &v.epoch)?;
                if v42 {
                    m.serialize_entry("metadataHash", &v.metadata_hash)?;
                    if v.validated_topology_epoch != -1 {
                        m.serialize_entry("validatedTopologyEpoch", &v.validated_topology_epoch)?;
                    }
                    // As in the bytes: the empty list is the default and left out; null is
                    // written.
                    match &v.last_assignment_configs {
                        None => m.serialize_entry("lastAssignmentConfigs", &())?,
                        Some(configs) if !configs.is_empty() => {
                            m.serialize_entry("lastAssignmentConfigs", &KeyValuesJson(configs))?
                        }
                        Some(_) => {}
                    }
                    if v.stored_description_topology_epoch != -1 {
                        m.serialize_entry(
                            "storedDescriptionTopologyEpoch",
                            &v.stored_description_topology_epoch,
                        )?;
                    }
                    if v.failed_description_topology_epoch != -1 {
                        m.serialize_entry(
                            "failedDescriptionTopologyEpoch",
                            &v.failed_description_topology_epoch,
                        )?;
                    }
                }
            }
            RecordValue::PartitionMetadata(v) => {
                let topics: Vec<TopicMetadataJson<'_>> =
                    v.topics.iter().map(TopicMetadataJson).collect();
                m.serialize_entry("topics", &topics)?;
            }
            RecordValue::MemberMetadata(v) => {
                m.serialize_entry("instanceId", &v.instance_id)?;
                m.serialize_entry("rackId", &v.rack_id)?;
                m.serialize_entry("clientId", &v.client_id)?;
                m.serialize_entry("clientHost", &v.client_host)?;
                m.serialize_entry("rebalanceTimeoutMs", &v.rebalance_timeout_ms)?;
                if v42 {
                    m.serialize_entry("topologyEpoch", &v.topology_epoch)?;
                } else {
                    m.serialize_entry("topologyId", &v.topology_id)?;
                }
                m.serialize_entry("processId", &v.process_id)?;
                m.serialize_entry("userEndpoint", &v.user_endpoint.as_ref().map(EndpointJson))?;
                m.serialize_entry("clientTags", &KeyValuesJson(&v.client_tags))?;
            }
            RecordValue::TargetAssignmentMetadata(v) => {
                m.serialize_entry("assignmentEpoch", &v.assignment_epoch)?;
                if v42 && v.assignment_timestamp != 0 {
                    m.serialize_entry("assignmentTimestamp", &v.assignment_timestamp)?;
                }
            }
            RecordValue::TargetAssignmentMember(v) => {
                m.serialize_entry("activeTasks", &TaskIdsJson(&v.active_tasks, false))?;
                m.serialize_entry("standbyTasks", &TaskIdsJson(&v.standby_tasks, false))?;
                m.serialize_entry("warmupTasks", &TaskIdsJson(&v.warmup_tasks, false))?;
            }
            RecordValue::CurrentMemberAssignment(v) => {
                m.serialize_entry("memberEpoch", &v.member_epoch)?;
                m.serialize_entry("previousMemberEpoch", &v.previous_member_epoch)?;
                m.serialize_entry("state", &v.state)?;
                for (name, tasks) in CURRENT_LISTS.iter().zip(current_task_lists(v)) {
                    m.serialize_entry(*name, &TaskIdsJson(tasks, v42))?;
                }
            }
            RecordValue::Topology(v) => {
                if v42 {
                    m.serialize_entry("epoch", &v.epoch)?;
                } else {
                    m.serialize_entry("topologyId", &v.topology_id)?;
                }
                let list = if v42 { "subtopologies" } else { "topology" };
                let subs: Vec<SubtopologyJson<'_>> =
                    v.subtopologies.iter().map(SubtopologyJson).collect();
                m.serialize_entry(list, &subs)?;
            }
            RecordValue::OffsetCommit(v) => offsets::write_value(&mut m, v)?,
        }
        m.end()
    }
}

const CURRENT_LISTS: [&str; 6] = [
    "activeTasks",
    "standbyTasks",
    "warmupTasks",
    "activeTasksPendingRevocation",
    "standbyTasksPendingRevocation",
    "warmupTasksPendingRevocation",
];

// ---------------------------------------------------------------------------------------------
// Reading values

fn value_from_json(
    dialect: Dialect,
    t: RecordType,
    v: &Value,
    p: &Path<'_>,
) -> Result<RecordValue, BoundaryError> {
    let v42 = dialect.is_kafka();
    Ok(match t {
        // Read with its key and version, or skipped (a classic group's): never asked here.
        RecordType::OffsetCommit | RecordType::ClassicGroupMetadata => {
            return Err(err(p, "this value is read with its key"))
        }
        RecordType::GroupMetadata => {
            let v44 = dialect == Dialect::Kafka44;
            let allowed: &[&str] = if v44 {
                &[
                    "epoch",
                    "metadataHash",
                    "validatedTopologyEpoch",
                    "lastAssignmentConfigs",
                    "storedDescriptionTopologyEpoch",
                    "failedDescriptionTopologyEpoch",
                ]
            } else if v42 {
                &[
                    "epoch",
                    "metadataHash",
                    "validatedTopologyEpoch",
                    "lastAssignmentConfigs",
                ]
            } else {
                &["epoch"]
            };
            let m = object(v, p, allowed)?;
            let mut g = GroupMetadataValue {
                epoch: field(m, p, "epoch", int32)?,
                ..GroupMetadataValue::default()
            };
            if v42 {
                g.metadata_hash = field(m, p, "metadataHash", int64)?;
                if let Some(e) = tagged(m, p, "validatedTopologyEpoch", int32)? {
                    g.validated_topology_epoch = e;
                }
                // Absent: the default, the empty list; `null`: null (PROTOCOL 5.6).
                if let Some(configs) = tagged(m, p, "lastAssignmentConfigs", |v, p| {
                    nullable(v, p, |v, p| list(v, p, key_value))
                })? {
                    g.last_assignment_configs = configs;
                }
                if let Some(e) = tagged(m, p, "storedDescriptionTopologyEpoch", int32)? {
                    g.stored_description_topology_epoch = e;
                }
                if let Some(e) = tagged(m, p, "failedDescriptionTopologyEpoch", int32)? {
                    g.failed_description_topology_epoch = e;
                }
            }
            RecordValue::GroupMetadata(g)
        }
        RecordType::PartitionMetadata => {
            let m = object(v, p, &["topics"])?;
            RecordValue::PartitionMetadata(PartitionMetadataValue {
                topics: field(m, p, "topics", |v, p| list(v, p, topic_metadata))?,
            })
        }
        RecordType::MemberMetadata => {
            let topology = if v42 { "topologyEpoch" } else { "topologyId" };
            let m = object(
                v,
                p,
                &[
                    "instanceId",
                    "rackId",
                    "clientId",
                    "clientHost",
                    "rebalanceTimeoutMs",
                    topology,
                    "processId",
                    "userEndpoint",
                    "clientTags",
                ],
            )?;
            let mut mm = MemberMetadataValue {
                instance_id: field(m, p, "instanceId", |v, p| nullable(v, p, string))?,
                rack_id: field(m, p, "rackId", |v, p| nullable(v, p, string))?,
                client_id: field(m, p, "clientId", string)?,
                client_host: field(m, p, "clientHost", string)?,
                rebalance_timeout_ms: field(m, p, "rebalanceTimeoutMs", int32)?,
                ..MemberMetadataValue::default()
            };
            if v42 {
                mm.topology_epoch = field(m, p, "topologyEpoch", int32)?;
            } else {
                mm.topology_id = field(m, p, "topologyId", string)?;
            }
            mm.process_id = field(m, p, "processId", string)?;
            mm.user_endpoint = field(m, p, "userEndpoint", |v, p| nullable(v, p, endpoint))?;
            mm.client_tags = field(m, p, "clientTags", |v, p| list(v, p, key_value))?;
            RecordValue::MemberMetadata(Box::new(mm))
        }
        RecordType::TargetAssignmentMetadata => {
            let m = object(v, p, &["assignmentEpoch", "assignmentTimestamp"])?;
            RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
                assignment_epoch: field(m, p, "assignmentEpoch", int32)?,
                assignment_timestamp: tagged(m, p, "assignmentTimestamp", int64)?.unwrap_or(0),
            })
        }
        RecordType::TargetAssignmentMember => {
            let m = object(v, p, &["activeTasks", "standbyTasks", "warmupTasks"])?;
            let tasks = |name| field(m, p, name, |v, p| list(v, p, |v, p| task_ids(v, p, false)));
            RecordValue::TargetAssignmentMember(TargetAssignmentMemberValue {
                active_tasks: tasks("activeTasks")?,
                standby_tasks: tasks("standbyTasks")?,
                warmup_tasks: tasks("warmupTasks")?,
            })
        }
        RecordType::CurrentMemberAssignment => {
            let mut allowed = vec!["memberEpoch", "previousMemberEpoch", "state"];
            allowed.extend(CURRENT_LISTS);
            let m = object(v, p, &allowed)?;
            let tasks = |name| field(m, p, name, |v, p| list(v, p, |v, p| task_ids(v, p, v42)));
            RecordValue::CurrentMemberAssignment(Box::new(CurrentMemberAssignmentValue {
                member_epoch: field(m, p, "memberEpoch", int32)?,
                previous_member_epoch: field(m, p, "previousMemberEpoch", int32)?,
                state: field(m, p, "state", int8)?,
                active_tasks: tasks(CURRENT_LISTS[0])?,
                standby_tasks: tasks(CURRENT_LISTS[1])?,
                warmup_tasks: tasks(CURRENT_LISTS[2])?,
                active_tasks_pending_revocation: tasks(CURRENT_LISTS[3])?,
                standby_tasks_pending_revocation: tasks(CURRENT_LISTS[4])?,
                warmup_tasks_pending_revocation: tasks(CURRENT_LISTS[5])?,
            }))
        }
        RecordType::Topology => {
            let (head, list_name) = if v42 {
                ("epoch", "subtopologies")
            } else {
                ("topologyId", "topology")
            };
            let m = object(v, p, &[head, list_name])?;
            let mut tv = TopologyValue::default();
            if v42 {
                tv.epoch = field(m, p, "epoch", int32)?;
            } else {
                tv.topology_id = field(m, p, "topologyId", string)?;
            }
            tv.subtopologies = field(m, p, list_name, |v, p| list(v, p, subtopology))?;
            RecordValue::Topology(tv)
        }
    })
}

fn key_value(v: &Value, p: &Path<'_>) -> Result<KeyValue, BoundaryError> {
    let m = object(v, p, &["key", "value"])?;
    Ok(KeyValue {
        key: field(m, p, "key", string)?,
        value: field(m, p, "value", string)?,
    })
}

fn endpoint(v: &Value, p: &Path<'_>) -> Result<Endpoint, BoundaryError> {
    let m = object(v, p, &["host", "port"])?;
    Ok(Endpoint {
        host: field(m, p, "host", string)?,
        port: field(m, p, "port", uint16)?,
    })
}

fn task_ids(v: &Value, p: &Path<'_>, with_epochs: bool) -> Result<TaskIds, BoundaryError> {
    let allowed: &[&str] = if with_epochs {
        &["subtopologyId", "partitions", "assignmentEpochs"]
    } else {
        &["subtopologyId", "partitions"]
    };
    let m = object(v, p, allowed)?;
    Ok(TaskIds {
        subtopology_id: field(m, p, "subtopologyId", string)?,
        partitions: field(m, p, "partitions", |v, p| list(v, p, int32))?,
        // Absent: the default, the empty list; `null`: null (PROTOCOL 5.6).
        assignment_epochs: if with_epochs {
            tagged(m, p, "assignmentEpochs", |v, p| {
                nullable(v, p, |v, p| list(v, p, int32))
            })?
            .unwrap_or(Some(Vec::new()))
        } else {
            None
        },
    })
}

fn topic_metadata(v: &Value, p: &Path<'_>) -> Result<TopicMetadata, BoundaryError> {
    let m = object(
        v,
        p,
        &["topicId", "topicName", "numPartitions", "partitionMetadata"],
    )?;
    Ok(TopicMetadata {
        topic_id: field(m, p, "topicId", uuid)?,
        topic_name: field(m, p, "topicName", string)?,
        num_partitions: field(m, p, "numPartitions", int32)?,
        partition_metadata: field(m, p, "partitionMetadata", |v, p| {
            list(v, p, |v, p| {
                let m = object(v, p, &["partition", "racks"])?;
                Ok(PartitionRacks {
                    partition: field(m, p, "partition", int32)?,
                    racks: field(m, p, "racks", |v, p| list(v, p, string))?,
                })
            })
        })?,
    })
}

fn topic_info(v: &Value, p: &Path<'_>) -> Result<TopicInfo, BoundaryError> {
    let m = object(
        v,
        p,
        &["name", "partitions", "replicationFactor", "topicConfigs"],
    )?;
    Ok(TopicInfo {
        name: field(m, p, "name", string)?,
        partitions: field(m, p, "partitions", int32)?,
        replication_factor: field(m, p, "replicationFactor", int16)?,
        topic_configs: field(m, p, "topicConfigs", |v, p| {
            list(v, p, |v, p| {
                let kv = key_value(v, p)?;
                Ok(TopicConfig {
                    key: kv.key,
                    value: kv.value,
                })
            })
        })?,
    })
}

fn subtopology(v: &Value, p: &Path<'_>) -> Result<Subtopology, BoundaryError> {
    let m = object(
        v,
        p,
        &[
            "subtopologyId",
            "sourceTopics",
            "sourceTopicRegex",
            "stateChangelogTopics",
            "repartitionSinkTopics",
            "repartitionSourceTopics",
            "copartitionGroups",
        ],
    )?;
    let strings = |name| field(m, p, name, |v, p| list(v, p, string));
    let topics = |name| field(m, p, name, |v, p| list(v, p, topic_info));
    Ok(Subtopology {
        subtopology_id: field(m, p, "subtopologyId", string)?,
        source_topics: strings("sourceTopics")?,
        source_topic_regex: strings("sourceTopicRegex")?,
        state_changelog_topics: topics("stateChangelogTopics")?,
        repartition_sink_topics: strings("repartitionSinkTopics")?,
        repartition_source_topics: topics("repartitionSourceTopics")?,
        copartition_groups: field(m, p, "copartitionGroups", |v, p| {
            list(v, p, copartition_group)
        })?,
    })
}

fn copartition_group(v: &Value, p: &Path<'_>) -> Result<CopartitionGroup, BoundaryError> {
    let m = object(
        v,
        p,
        &[
            "sourceTopics",
            "sourceTopicRegex",
            "repartitionSourceTopics",
        ],
    )?;
    let indices = |name| field(m, p, name, |v, p| list(v, p, int16));
    Ok(CopartitionGroup {
        source_topics: indices("sourceTopics")?,
        source_topic_regex: indices("sourceTopicRegex")?,
        repartition_source_topics: indices("repartitionSourceTopics")?,
    })
}

// ---------------------------------------------------------------------------------------------
// JSON primitives

fn err(p: &Path<'_>, message: impl Into<String>) -> BoundaryError {
    BoundaryError::new(BoundaryCode::InvalidRecord, p.render(), message)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An object whose keys are all among `allowed`.
fn object<'v>(
    v: &'v Value,
    p: &Path<'_>,
    allowed: &[&str],
) -> Result<&'v Map<String, Value>, BoundaryError> {
    let Value::Object(m) = v else {
        return Err(err(p, format!("expected an object, got {}", type_name(v))));
    };
    if let Some(unknown) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(err(&p.field(unknown), "unknown field"));
    }
    Ok(m)
}

fn required<'v>(
    m: &'v Map<String, Value>,
    p: &Path<'_>,
    name: &str,
) -> Result<&'v Value, BoundaryError> {
    m.get(name)
        .ok_or_else(|| err(&p.field(name), "missing required field"))
}

/// A required field, parsed with its own path.
fn field<T>(
    m: &Map<String, Value>,
    p: &Path<'_>,
    name: &str,
    parse: impl FnOnce(&Value, &Path<'_>) -> Result<T, BoundaryError>,
) -> Result<T, BoundaryError> {
    parse(required(m, p, name)?, &p.field(name))
}

/// A tagged field: `None` when absent.
fn tagged<T>(
    m: &Map<String, Value>,
    p: &Path<'_>,
    name: &str,
    parse: impl FnOnce(&Value, &Path<'_>) -> Result<T, BoundaryError>,
) -> Result<Option<T>, BoundaryError> {
    m.get(name).map(|v| parse(v, &p.field(name))).transpose()
}

fn nullable<T>(
    v: &Value,
    p: &Path<'_>,
    parse: impl FnOnce(&Value, &Path<'_>) -> Result<T, BoundaryError>,
) -> Result<Option<T>, BoundaryError> {
    match v {
        Value::Null => Ok(None),
        v => parse(v, p).map(Some),
    }
}

fn list<T>(
    v: &Value,
    p: &Path<'_>,
    mut elem: impl FnMut(&Value, &Path<'_>) -> Result<T, BoundaryError>,
) -> Result<Vec<T>, BoundaryError> {
    let Value::Array(items) = v else {
        return Err(err(p, format!("expected an array, got {}", type_name(v))));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| elem(item, &p.index(i)))
        .collect()
}

fn string(v: &Value, p: &Path<'_>) -> Result<String, BoundaryError> {
    let Value::String(s) = v else {
        return Err(err(p, format!("expected a string, got {}", type_name(v))));
    };
    if s.len() > MAX_STRING_BYTES {
        return Err(err(
            p,
            format!(
                "string of {} bytes is longer than Kafka's limit of {MAX_STRING_BYTES}",
                s.len()
            ),
        ));
    }
    Ok(s.clone())
}

fn integer(v: &Value, p: &Path<'_>, kind: &str, min: i64, max: i64) -> Result<i64, BoundaryError> {
    let Value::Number(n) = v else {
        return Err(err(p, format!("expected an integer, got {}", type_name(v))));
    };
    match n.as_i64() {
        Some(i) if (min..=max).contains(&i) => Ok(i),
        Some(_) => Err(err(p, format!("{n} is out of range for {kind}"))),
        None if n.is_u64() => Err(err(p, format!("{n} is out of range for {kind}"))),
        None => Err(err(p, format!("expected an integer, got {n}"))),
    }
}

macro_rules! int_parser {
    ($name:ident, $t:ty, $kind:literal) => {
        fn $name(v: &Value, p: &Path<'_>) -> Result<$t, BoundaryError> {
            let i = integer(v, p, $kind, i64::from(<$t>::MIN), i64::from(<$t>::MAX))?;
            <$t>::try_from(i).map_err(|_| err(p, format!("{i} is out of range for {}", $kind)))
        }
    };
}

int_parser!(int8, i8, "int8");
int_parser!(int16, i16, "int16");
int_parser!(uint16, u16, "uint16");
int_parser!(int32, i32, "int32");
int_parser!(int64, i64, "int64");

/// Kafka's uuid text: 22 characters of URL-safe base64 without padding.
fn uuid(v: &Value, p: &Path<'_>) -> Result<Uuid, BoundaryError> {
    let Value::String(s) = v else {
        return Err(err(
            p,
            format!("expected a uuid string, got {}", type_name(v)),
        ));
    };
    let bytes = if s.len() == 22 {
        URL_SAFE_NO_PAD.decode(s).ok()
    } else {
        None
    };
    bytes
        .and_then(|b| <[u8; 16]>::try_from(b).ok())
        .map(Uuid)
        .ok_or_else(|| err(p, "expected 22 characters of URL-safe base64 (a uuid)"))
}

/// Record bytes: standard base64 with padding.
fn base64(v: &Value, p: &Path<'_>) -> Result<Vec<u8>, BoundaryError> {
    let Value::String(s) = v else {
        return Err(err(
            p,
            format!("expected a base64 string, got {}", type_name(v)),
        ));
    };
    STANDARD
        .decode(s)
        .map_err(|e| err(p, format!("invalid base64: {e}")))
}

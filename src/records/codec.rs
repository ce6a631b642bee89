//! Kafka's binary encoding of coordinator records (PROTOCOL 5.6).
//!
//! Keys are non-flexible: the int16 record type id, then int16-length strings. Values are
//! version 0 of flexible schemas: the int16 version, then compact strings and arrays, with a
//! tagged-field section closing every struct. The layouts follow the schema files of each
//! dialect field for field; a dialect reads and writes only its own fields.

use super::model::*;
use super::wire::*;
use crate::topology::{CopartitionGroup, Subtopology, TopicConfig, TopicInfo};

/// A record that cannot be decoded; `field` names where decoding stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot decode {field}: {message}")]
pub struct DecodeError {
    /// The field being decoded.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl DecodeError {
    fn from_wire(e: &WireError, root: &str) -> Self {
        let (field, message) = e.render(root);
        DecodeError { field, message }
    }
}

/// The int16 type id of a record type in a dialect; `None` for a type the dialect lacks.
pub fn type_id(dialect: Dialect, t: RecordType) -> Option<i16> {
    use RecordType::*;
    match dialect {
        Dialect::Kip1071Draft => Some(match t {
            GroupMetadata => 15,
            PartitionMetadata => 16,
            MemberMetadata => 17,
            TargetAssignmentMetadata => 18,
            TargetAssignmentMember => 19,
            CurrentMemberAssignment => 20,
            Topology => 21,
            OffsetCommit => 1,
            ClassicGroupMetadata => 2,
        }),
        Dialect::Kafka42 | Dialect::Kafka43 | Dialect::Kafka44 => match t {
            GroupMetadata => Some(17),
            PartitionMetadata => None,
            MemberMetadata => Some(19),
            TargetAssignmentMetadata => Some(20),
            TargetAssignmentMember => Some(21),
            CurrentMemberAssignment => Some(22),
            Topology => Some(23),
            OffsetCommit => Some(1),
            ClassicGroupMetadata => Some(2),
        },
    }
}

/// The record type of a type id in a dialect; `None` for ids of other record kinds.
pub fn record_type(dialect: Dialect, id: i16) -> Option<RecordType> {
    use RecordType::*;
    [
        GroupMetadata,
        PartitionMetadata,
        MemberMetadata,
        TargetAssignmentMetadata,
        TargetAssignmentMember,
        CurrentMemberAssignment,
        Topology,
        OffsetCommit,
        ClassicGroupMetadata,
    ]
    .into_iter()
    .find(|&t| type_id(dialect, t) == Some(id))
}

/// The id written for a record type. The 4.2 dialect has no partition metadata record; should
/// one be encoded anyway it carries the id Kafka retired for it (18), which 4.2 replay skips.
pub(crate) fn wire_type_id(dialect: Dialect, t: RecordType) -> i16 {
    type_id(dialect, t).unwrap_or(18)
}

/// The name of a key struct in decode-error paths.
pub(crate) fn key_name(t: RecordType) -> &'static str {
    match t {
        RecordType::GroupMetadata => "GroupMetadataKey",
        RecordType::PartitionMetadata => "PartitionMetadataKey",
        RecordType::MemberMetadata => "MemberMetadataKey",
        RecordType::TargetAssignmentMetadata => "TargetAssignmentMetadataKey",
        RecordType::TargetAssignmentMember => "TargetAssignmentMemberKey",
        RecordType::CurrentMemberAssignment => "CurrentMemberAssignmentKey",
        RecordType::Topology => "TopologyKey",
        RecordType::OffsetCommit => "OffsetCommitKey",
        RecordType::ClassicGroupMetadata => "ClassicGroupMetadataKey",
    }
}

/// The name of a value struct in decode-error paths.
pub(crate) fn value_name(t: RecordType) -> &'static str {
    match t {
        RecordType::GroupMetadata => "GroupMetadataValue",
        RecordType::PartitionMetadata => "PartitionMetadataValue",
        RecordType::MemberMetadata => "MemberMetadataValue",
        RecordType::TargetAssignmentMetadata => "TargetAssignmentMetadataValue",
        RecordType::TargetAssignmentMember => "TargetAssignmentMemberValue",
        RecordType::CurrentMemberAssignment => "CurrentMemberAssignmentValue",
        RecordType::Topology => "TopologyValue",
        RecordType::OffsetCommit => "OffsetCommitValue",
        RecordType::ClassicGroupMetadata => "ClassicGroupMetadataValue",
    }
}

/// Whether the key of a record type has a `MemberId` after its `GroupId`.
pub(crate) fn has_member_id(t: RecordType) -> bool {
    matches!(
        t,
        RecordType::MemberMetadata
            | RecordType::TargetAssignmentMember
            | RecordType::CurrentMemberAssignment
    )
}

/// Builds a key from its type and fields (`member_id` is ignored for group-level keys; for an
/// offset commit it is the topic, with partition 0: tests build keys this way).
pub(crate) fn make_key(t: RecordType, group_id: String, member_id: String) -> RecordKey {
    match t {
        RecordType::GroupMetadata => RecordKey::GroupMetadata { group_id },
        RecordType::PartitionMetadata => RecordKey::PartitionMetadata { group_id },
        RecordType::MemberMetadata => RecordKey::MemberMetadata {
            group_id,
            member_id,
        },
        RecordType::TargetAssignmentMetadata => RecordKey::TargetAssignmentMetadata { group_id },
        RecordType::TargetAssignmentMember => RecordKey::TargetAssignmentMember {
            group_id,
            member_id,
        },
        RecordType::CurrentMemberAssignment => RecordKey::CurrentMemberAssignment {
            group_id,
            member_id,
        },
        RecordType::Topology => RecordKey::Topology { group_id },
        RecordType::ClassicGroupMetadata => RecordKey::ClassicGroupMetadata { group_id },
        RecordType::OffsetCommit => RecordKey::OffsetCommit {
            group_id: group_id.into(),
            topic: member_id.into(),
            partition: 0,
        },
    }
}

/// The int16 type id, then `GroupId` (and `MemberId`) as int16-length strings.
///
/// Kafka carries no string longer than 32767 bytes. Such a string is written as null here,
/// which every decoder refuses, so it can never read back as some other key; hosts should
/// refuse such ids at their boundary (`record_from_json` does).
pub fn encode_key(dialect: Dialect, key: &RecordKey) -> Vec<u8> {
    let mut size = Counter::default();
    write_key(dialect, key, &mut size);
    let mut out = Vec::with_capacity(size.0);
    write_key(dialect, key, &mut out);
    out
}

/// The int16 version 0, then the dialect's fields of the value (flexible encoding). A string
/// longer than 32767 bytes is written whole, and refused by decoders as Kafka's are.
pub fn encode_value(dialect: Dialect, value: &RecordValue) -> Vec<u8> {
    let mut size = Counter::default();
    write_value(dialect, value, &mut size);
    let mut out = Vec::with_capacity(size.0);
    write_value(dialect, value, &mut out);
    out
}

/// Key length plus value length (0 for a tombstone), for the batch limit (PROTOCOL 2.15).
pub fn encoded_size(dialect: Dialect, record: &Record) -> usize {
    let mut size = Counter::default();
    write_key(dialect, &record.key, &mut size);
    if let Some(value) = &record.value {
        write_value(dialect, value, &mut size);
    }
    size.0
}

/// `Ok(None)` when the type id belongs to another kind of record (skipped by replay).
pub fn decode_key(dialect: Dialect, bytes: &[u8]) -> Result<Option<RecordKey>, DecodeError> {
    let mut r = Reader::new(bytes);
    let id = r
        .i16()
        .at("type")
        .map_err(|e| DecodeError::from_wire(&e, "RecordKey"))?;
    let Some(t) = record_type(dialect, id) else {
        return Ok(None);
    };
    read_key_fields(t, &mut r)
        .map(Some)
        .map_err(|e| DecodeError::from_wire(&e, key_name(t)))
}

/// The value bytes of a record of type `t` (its key decoded first). The 4.2 dialect has no
/// partition metadata record; asked for one, it reads the draft layout (what `encode_value`
/// writes), though replay never asks, as `decode_key` skips its retired id.
pub fn decode_value(
    dialect: Dialect,
    t: RecordType,
    bytes: &[u8],
) -> Result<RecordValue, DecodeError> {
    let mut r = Reader::new(bytes);
    read_value(dialect, t, &mut r).map_err(|e| DecodeError::from_wire(&e, value_name(t)))
}

// ---------------------------------------------------------------------------------------------
// Keys

fn write_key<S: Sink + ?Sized>(dialect: Dialect, key: &RecordKey, out: &mut S) {
    put_i16(out, wire_type_id(dialect, key.record_type()));
    put_key_string(out, key.group_id());
    if let Some(member_id) = key.member_id() {
        put_key_string(out, member_id);
    }
    if let RecordKey::OffsetCommit {
        topic, partition, ..
    } = key
    {
        put_key_string(out, topic);
        put_i32(out, *partition);
    }
}

fn read_key_fields(t: RecordType, r: &mut Reader<'_>) -> WireResult<RecordKey> {
    if t == RecordType::OffsetCommit {
        let key = RecordKey::OffsetCommit {
            group_id: r.key_string().at("group")?.into(),
            topic: r.key_string().at("topic")?.into(),
            partition: r.i32().at("partition")?,
        };
        r.finish()?;
        return Ok(key);
    }
    // Kafka's `GroupMetadataKey` names its one field `group`, as `OffsetCommitKey` does.
    let group_id = if t == RecordType::ClassicGroupMetadata {
        r.key_string().at("group")?
    } else {
        r.key_string().at("groupId")?
    };
    let member_id = if has_member_id(t) {
        r.key_string().at("memberId")?
    } else {
        String::new()
    };
    r.finish()?;
    Ok(make_key(t, group_id, member_id))
}

// ---------------------------------------------------------------------------------------------
// Values: writing

fn write_value<S: Sink + ?Sized>(dialect: Dialect, value: &RecordValue, out: &mut S) {
    let v42 = dialect.is_kafka();
    if let RecordValue::OffsetCommit(v) = value {
        write_offset_commit(v, out);
        return;
    }
    put_i16(out, 0);
    match value {
        RecordValue::OffsetCommit(_) => {}
        RecordValue::GroupMetadata(v) => {
            put_i32(out, v.epoch);
            if v42 {
                put_i64(out, v.metadata_hash);
                let validated = v.validated_topology_epoch != -1;
                // Default: the empty list (PROTOCOL 5.6); null is written as a null array.
                let configs = v.last_assignment_configs.as_deref();
                let write_configs = configs.is_none_or(|c| !c.is_empty());
                // 4.4's description epochs, written (as every tag) only when not the default.
                let stored = v.stored_description_topology_epoch != -1;
                let failed = v.failed_description_topology_epoch != -1;
                put_uvarint(
                    out,
                    u64::from(validated)
                        + u64::from(write_configs)
                        + u64::from(stored)
                        + u64::from(failed),
                );
                if validated {
                    put_tagged(out, 0, &v.validated_topology_epoch);
                }
                if write_configs {
                    put_tagged(out, 1, &NullableKeyValues(configs));
                }
                if stored {
                    put_tagged(out, 2, &v.stored_description_topology_epoch);
                }
                if failed {
                    put_tagged(out, 3, &v.failed_description_topology_epoch);
                }
            } else {
                put_no_tagged_fields(out);
            }
        }
        RecordValue::PartitionMetadata(v) => {
            put_compact_array(out, &v.topics, |out, topic| {
                put_uuid(out, &topic.topic_id);
                put_compact_string(out, &topic.topic_name);
                put_i32(out, topic.num_partitions);
                put_compact_array(out, &topic.partition_metadata, |out, p| {
                    put_i32(out, p.partition);
                    put_compact_array(out, &p.racks, |out, rack| put_compact_string(out, rack));
                    put_no_tagged_fields(out);
                });
                put_no_tagged_fields(out);
            });
            put_no_tagged_fields(out);
        }
        RecordValue::MemberMetadata(v) => {
            put_compact_nullable_string(out, v.instance_id.as_deref());
            put_compact_nullable_string(out, v.rack_id.as_deref());
            put_compact_string(out, &v.client_id);
            put_compact_string(out, &v.client_host);
            put_i32(out, v.rebalance_timeout_ms);
            if v42 {
                put_i32(out, v.topology_epoch);
            } else {
                put_compact_string(out, &v.topology_id);
            }
            put_compact_string(out, &v.process_id);
            match &v.user_endpoint {
                None => put_i8(out, -1),
                Some(endpoint) => {
                    put_i8(out, 1);
                    put_compact_string(out, &endpoint.host);
                    put_u16(out, endpoint.port);
                    put_no_tagged_fields(out);
                }
            }
            NullableKeyValues(Some(&v.client_tags)).write(out);
            put_no_tagged_fields(out);
        }
        RecordValue::TargetAssignmentMetadata(v) => {
            put_i32(out, v.assignment_epoch);
            // Tag 0 (Kafka 4.3+), written only when not its default.
            if v42 && v.assignment_timestamp != 0 {
                put_uvarint(out, 1);
                put_tagged(out, 0, &v.assignment_timestamp);
            } else {
                put_no_tagged_fields(out);
            }
        }
        RecordValue::TargetAssignmentMember(v) => {
            for tasks in [&v.active_tasks, &v.standby_tasks, &v.warmup_tasks] {
                write_task_ids(out, tasks, false);
            }
            put_no_tagged_fields(out);
        }
        RecordValue::CurrentMemberAssignment(v) => {
            put_i32(out, v.member_epoch);
            put_i32(out, v.previous_member_epoch);
            put_i8(out, v.state);
            for tasks in current_task_lists(v) {
                write_task_ids(out, tasks, v42);
            }
            put_no_tagged_fields(out);
        }
        RecordValue::Topology(v) => {
            if v42 {
                put_i32(out, v.epoch);
            } else {
                put_compact_string(out, &v.topology_id);
            }
            put_compact_array(out, &v.subtopologies, write_subtopology);
            put_no_tagged_fields(out);
        }
    }
}

/// `OffsetCommitValue` at the version Kafka writes it ([`OffsetCommitValue::version`]): 1
/// (non-flexible: offset, metadata, commit and expire timestamps) or 4 (flexible: offset,
/// leader epoch, metadata, commit timestamp, the topic id in tag 0 unless zero).
fn write_offset_commit<S: Sink + ?Sized>(v: &OffsetCommitValue, out: &mut S) {
    let version = v.version();
    put_i16(out, version);
    put_i64(out, v.offset);
    if version == 1 {
        put_key_string(out, &v.metadata);
        put_i64(out, v.commit_timestamp);
        put_i64(out, v.expire_timestamp);
        return;
    }
    put_i32(out, v.leader_epoch);
    put_compact_string(out, &v.metadata);
    put_i64(out, v.commit_timestamp);
    if v.topic_id == Uuid::default() {
        put_no_tagged_fields(out);
    } else {
        put_uvarint(out, 1);
        put_tagged(out, 0, &v.topic_id);
    }
}

/// `OffsetCommitValue` at any version Kafka reads (0-4, PROTOCOL 5.6): v0 {offset, metadata,
/// commitTimestamp}, v1 + expireTimestamp, v2 as v0, v3 + leaderEpoch, v4 flexible + tagged
/// topicId. Strings are int16-length below version 4.
fn read_offset_commit(r: &mut Reader<'_>) -> WireResult<RecordValue> {
    let version = r.i16().at("version")?;
    if !(0..=4).contains(&version) {
        return Err(WireError::new(format!(
            "unsupported value version {version} (0-4 are known)"
        )))
        .at("version");
    }
    let mut v = OffsetCommitValue {
        offset: r.i64().at("offset")?,
        ..OffsetCommitValue::default()
    };
    if version >= 3 {
        v.leader_epoch = r.i32().at("leaderEpoch")?;
    }
    v.metadata = if version >= 4 {
        r.compact_string().at("metadata")?
    } else {
        r.key_string().at("metadata")?
    };
    v.commit_timestamp = r.i64().at("commitTimestamp")?;
    if version == 1 {
        v.expire_timestamp = r.i64().at("expireTimestamp")?;
    }
    if version >= 4 {
        r.tagged_fields(|tag, p| match tag {
            0 => {
                v.topic_id = p.uuid().at("topicId")?;
                Ok(true)
            }
            _ => Ok(false),
        })?;
    }
    r.finish()?;
    Ok(RecordValue::OffsetCommit(v))
}

/// The six task lists in schema order.
pub(crate) fn current_task_lists(v: &CurrentMemberAssignmentValue) -> [&Vec<TaskIds>; 6] {
    [
        &v.active_tasks,
        &v.standby_tasks,
        &v.warmup_tasks,
        &v.active_tasks_pending_revocation,
        &v.standby_tasks_pending_revocation,
        &v.warmup_tasks_pending_revocation,
    ]
}

/// `[]KeyValue` (client tags, last assignment configs): also a tagged payload.
/// A nullable `[]KeyValue` payload; `None` is the null array (varint 0).
struct NullableKeyValues<'a>(Option<&'a [KeyValue]>);

impl Payload for NullableKeyValues<'_> {
    fn write<S: Sink + ?Sized>(&self, out: &mut S) {
        match self.0 {
            None => put_uvarint(out, 0),
            Some(items) => put_compact_array(out, items, |out, kv| {
                put_compact_string(out, &kv.key);
                put_compact_string(out, &kv.value);
                put_no_tagged_fields(out);
            }),
        }
    }
}

/// A nullable `[]int32` payload; `None` is the null array (varint 0).
struct NullableInt32s<'a>(Option<&'a [i32]>);

impl Payload for NullableInt32s<'_> {
    fn write<S: Sink + ?Sized>(&self, out: &mut S) {
        match self.0 {
            None => put_uvarint(out, 0),
            Some(items) => put_compact_array(out, items, |out, v| put_i32(out, *v)),
        }
    }
}

/// `[]TaskIds`; `with_epochs` where the schema's `TaskIds` has `AssignmentEpochs` (tag 0).
fn write_task_ids<S: Sink + ?Sized>(out: &mut S, tasks: &[TaskIds], with_epochs: bool) {
    put_compact_array(out, tasks, |out, t| {
        put_compact_string(out, &t.subtopology_id);
        put_compact_array(out, &t.partitions, |out, p| put_i32(out, *p));
        // Default: the empty list (PROTOCOL 5.6); null is written as a null array.
        match (t.assignment_epochs.as_deref(), with_epochs) {
            (Some([]), _) | (_, false) => put_no_tagged_fields(out),
            (epochs, true) => {
                put_uvarint(out, 1);
                put_tagged(out, 0, &NullableInt32s(epochs));
            }
        }
    });
}

fn write_topic_info<S: Sink + ?Sized>(out: &mut S, t: &TopicInfo) {
    put_compact_string(out, &t.name);
    put_i32(out, t.partitions);
    put_i16(out, t.replication_factor);
    put_compact_array(out, &t.topic_configs, |out, c| {
        put_compact_string(out, &c.key);
        put_compact_string(out, &c.value);
        put_no_tagged_fields(out);
    });
    put_no_tagged_fields(out);
}

fn write_strings<S: Sink + ?Sized>(out: &mut S, items: &[String]) {
    put_compact_array(out, items, |out, s| put_compact_string(out, s));
}

fn write_int16s<S: Sink + ?Sized>(out: &mut S, items: &[i16]) {
    put_compact_array(out, items, |out, v| put_i16(out, *v));
}

fn write_subtopology<S: Sink + ?Sized>(out: &mut S, s: &Subtopology) {
    put_compact_string(out, &s.subtopology_id);
    write_strings(out, &s.source_topics);
    write_strings(out, &s.source_topic_regex);
    put_compact_array(out, &s.state_changelog_topics, write_topic_info);
    write_strings(out, &s.repartition_sink_topics);
    put_compact_array(out, &s.repartition_source_topics, write_topic_info);
    put_compact_array(out, &s.copartition_groups, |out, g| {
        write_int16s(out, &g.source_topics);
        write_int16s(out, &g.source_topic_regex);
        write_int16s(out, &g.repartition_source_topics);
        put_no_tagged_fields(out);
    });
    put_no_tagged_fields(out);
}

// ---------------------------------------------------------------------------------------------
// Values: reading

/// Smallest encodings of array elements, which bound how many an input can hold.
pub(super) mod min_size {
    /// Two strings and an empty tagged-field section.
    pub(in crate::records) const KEY_VALUE: usize = 3;
    /// `SubtopologyId`, `Partitions`, tagged fields.
    pub(in crate::records) const TASK_IDS: usize = 3;
    /// uuid, name, int32, array, tagged fields.
    pub(super) const TOPIC_METADATA: usize = 16 + 1 + 4 + 1 + 1;
    /// int32, array, tagged fields.
    pub(super) const PARTITION_RACKS: usize = 4 + 1 + 1;
    /// name, int32, int16, array, tagged fields.
    pub(super) const TOPIC_INFO: usize = 1 + 4 + 2 + 1 + 1;
    /// id, six arrays, tagged fields.
    pub(super) const SUBTOPOLOGY: usize = 8;
    /// three arrays, tagged fields.
    pub(super) const COPARTITION_GROUP: usize = 4;
}

fn read_value(dialect: Dialect, t: RecordType, r: &mut Reader<'_>) -> WireResult<RecordValue> {
    if t == RecordType::OffsetCommit {
        return read_offset_commit(r);
    }
    if t == RecordType::ClassicGroupMetadata {
        // Replay skips a classic group's value before asking (its key alone is modelled).
        return Err(WireError::new(
            "a classic group's value is not modelled (replay skips it)",
        ));
    }
    let version = r.i16().at("version")?;
    if version != 0 {
        return Err(WireError::new(format!(
            "unsupported value version {version} (only 0 is known)"
        )))
        .at("version");
    }
    let v42 = dialect.is_kafka();
    let value = match t {
        RecordType::GroupMetadata => {
            let v44 = dialect == Dialect::Kafka44;
            let mut v = GroupMetadataValue {
                epoch: r.i32().at("epoch")?,
                ..GroupMetadataValue::default()
            };
            if v42 {
                v.metadata_hash = r.i64().at("metadataHash")?;
                r.tagged_fields(|tag, p| match tag {
                    0 => {
                        v.validated_topology_epoch = p.i32().at("validatedTopologyEpoch")?;
                        Ok(true)
                    }
                    1 => {
                        v.last_assignment_configs = p
                            .compact_nullable_array(min_size::KEY_VALUE, read_key_value)
                            .at("lastAssignmentConfigs")?;
                        Ok(true)
                    }
                    // 4.4's tags; an older release skips them as unknown.
                    2 if v44 => {
                        v.stored_description_topology_epoch =
                            p.i32().at("storedDescriptionTopologyEpoch")?;
                        Ok(true)
                    }
                    3 if v44 => {
                        v.failed_description_topology_epoch =
                            p.i32().at("failedDescriptionTopologyEpoch")?;
                        Ok(true)
                    }
                    _ => Ok(false),
                })?;
            } else {
                skip_tagged_fields(r)?;
            }
            RecordValue::GroupMetadata(v)
        }
        RecordType::PartitionMetadata => {
            let topics = r
                .compact_array(min_size::TOPIC_METADATA, read_topic_metadata)
                .at("topics")?;
            skip_tagged_fields(r)?;
            RecordValue::PartitionMetadata(PartitionMetadataValue { topics })
        }
        RecordType::MemberMetadata => {
            let mut v = MemberMetadataValue {
                instance_id: r.compact_nullable_string().at("instanceId")?,
                rack_id: r.compact_nullable_string().at("rackId")?,
                client_id: r.compact_string().at("clientId")?,
                client_host: r.compact_string().at("clientHost")?,
                rebalance_timeout_ms: r.i32().at("rebalanceTimeoutMs")?,
                ..MemberMetadataValue::default()
            };
            if v42 {
                v.topology_epoch = r.i32().at("topologyEpoch")?;
            } else {
                v.topology_id = r.compact_string().at("topologyId")?;
            }
            v.process_id = r.compact_string().at("processId")?;
            v.user_endpoint = read_endpoint(r).at("userEndpoint")?;
            v.client_tags = r
                .compact_array(min_size::KEY_VALUE, read_key_value)
                .at("clientTags")?;
            skip_tagged_fields(r)?;
            RecordValue::MemberMetadata(Box::new(v))
        }
        RecordType::TargetAssignmentMetadata => {
            let assignment_epoch = r.i32().at("assignmentEpoch")?;
            let mut assignment_timestamp = 0;
            r.tagged_fields(|tag, p| match tag {
                0 if v42 => {
                    assignment_timestamp = p.i64().at("assignmentTimestamp")?;
                    Ok(true)
                }
                _ => Ok(false),
            })?;
            RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
                assignment_epoch,
                assignment_timestamp,
            })
        }
        RecordType::TargetAssignmentMember => {
            let v = TargetAssignmentMemberValue {
                active_tasks: read_task_ids(r, false).at("activeTasks")?,
                standby_tasks: read_task_ids(r, false).at("standbyTasks")?,
                warmup_tasks: read_task_ids(r, false).at("warmupTasks")?,
            };
            skip_tagged_fields(r)?;
            RecordValue::TargetAssignmentMember(v)
        }
        RecordType::CurrentMemberAssignment => {
            let v = CurrentMemberAssignmentValue {
                member_epoch: r.i32().at("memberEpoch")?,
                previous_member_epoch: r.i32().at("previousMemberEpoch")?,
                state: r.i8().at("state")?,
                active_tasks: read_task_ids(r, v42).at("activeTasks")?,
                standby_tasks: read_task_ids(r, v42).at("standbyTasks")?,
                warmup_tasks: read_task_ids(r, v42).at("warmupTasks")?,
                active_tasks_pending_revocation: read_task_ids(r, v42)
                    .at("activeTasksPendingRevocation")?,
                standby_tasks_pending_revocation: read_task_ids(r, v42)
                    .at("standbyTasksPendingRevocation")?,
                warmup_tasks_pending_revocation: read_task_ids(r, v42)
                    .at("warmupTasksPendingRevocation")?,
            };
            skip_tagged_fields(r)?;
            RecordValue::CurrentMemberAssignment(Box::new(v))
        }
        RecordType::Topology => {
            let mut v = TopologyValue::default();
            let list = if v42 {
                v.epoch = r.i32().at("epoch")?;
                "subtopologies"
            } else {
                v.topology_id = r.compact_string().at("topologyId")?;
                "topology"
            };
            v.subtopologies = r
                .compact_array(min_size::SUBTOPOLOGY, read_subtopology)
                .at(list)?;
            skip_tagged_fields(r)?;
            RecordValue::Topology(v)
        }
        RecordType::OffsetCommit => return read_offset_commit(r),
        // Refused at the top of the function; an error, never a panic, on an input path.
        RecordType::ClassicGroupMetadata => {
            return Err(WireError::new("a classic group's value is not modelled"))
        }
    };
    r.finish()?;
    Ok(value)
}

/// A tagged-field section of a struct without tagged fields in the dialect: all skipped.
fn skip_tagged_fields(r: &mut Reader<'_>) -> WireResult<()> {
    r.tagged_fields(|_, _| Ok(false))
}

fn read_key_value(r: &mut Reader<'_>) -> WireResult<KeyValue> {
    let kv = KeyValue {
        key: r.compact_string().at("key")?,
        value: r.compact_string().at("value")?,
    };
    skip_tagged_fields(r)?;
    Ok(kv)
}

fn read_endpoint(r: &mut Reader<'_>) -> WireResult<Option<Endpoint>> {
    match r.i8()? {
        -1 => Ok(None),
        1 => {
            let endpoint = Endpoint {
                host: r.compact_string().at("host")?,
                port: r.u16().at("port")?,
            };
            skip_tagged_fields(r)?;
            Ok(Some(endpoint))
        }
        other => Err(WireError::new(format!(
            "presence byte {other} is neither -1 (null) nor 1"
        ))),
    }
}

fn read_topic_metadata(r: &mut Reader<'_>) -> WireResult<TopicMetadata> {
    let topic = TopicMetadata {
        topic_id: r.uuid().at("topicId")?,
        topic_name: r.compact_string().at("topicName")?,
        num_partitions: r.i32().at("numPartitions")?,
        partition_metadata: r
            .compact_array(min_size::PARTITION_RACKS, |r| {
                let p = PartitionRacks {
                    partition: r.i32().at("partition")?,
                    racks: read_strings(r).at("racks")?,
                };
                skip_tagged_fields(r)?;
                Ok(p)
            })
            .at("partitionMetadata")?,
    };
    skip_tagged_fields(r)?;
    Ok(topic)
}

fn read_task_ids(r: &mut Reader<'_>, with_epochs: bool) -> WireResult<Vec<TaskIds>> {
    r.compact_array(min_size::TASK_IDS, |r| {
        let mut t = TaskIds {
            subtopology_id: r.compact_string().at("subtopologyId")?,
            partitions: r.compact_array(4, |r| r.i32()).at("partitions")?,
            // An absent tag is the schema's default, the empty list (PROTOCOL 5.6).
            assignment_epochs: with_epochs.then(Vec::new),
        };
        r.tagged_fields(|tag, p| {
            if with_epochs && tag == 0 {
                t.assignment_epochs = p
                    .compact_nullable_array(4, |r| r.i32())
                    .at("assignmentEpochs")?;
                Ok(true)
            } else {
                Ok(false)
            }
        })?;
        Ok(t)
    })
}

fn read_strings(r: &mut Reader<'_>) -> WireResult<Vec<String>> {
    r.compact_array(1, |r| r.compact_string())
}

fn read_int16s(r: &mut Reader<'_>) -> WireResult<Vec<i16>> {
    r.compact_array(2, |r| r.i16())
}

fn read_topic_info(r: &mut Reader<'_>) -> WireResult<TopicInfo> {
    let t = TopicInfo {
        name: r.compact_string().at("name")?,
        partitions: r.i32().at("partitions")?,
        replication_factor: r.i16().at("replicationFactor")?,
        topic_configs: r
            .compact_array(min_size::KEY_VALUE, |r| {
                let c = TopicConfig {
                    key: r.compact_string().at("key")?,
                    value: r.compact_string().at("value")?,
                };
                skip_tagged_fields(r)?;
                Ok(c)
            })
            .at("topicConfigs")?,
    };
    skip_tagged_fields(r)?;
    Ok(t)
}

fn read_subtopology(r: &mut Reader<'_>) -> WireResult<Subtopology> {
    let s = Subtopology {
        subtopology_id: r.compact_string().at("subtopologyId")?,
        source_topics: read_strings(r).at("sourceTopics")?,
        source_topic_regex: read_strings(r).at("sourceTopicRegex")?,
        state_changelog_topics: r
            .compact_array(min_size::TOPIC_INFO, read_topic_info)
            .at("stateChangelogTopics")?,
        repartition_sink_topics: read_strings(r).at("repartitionSinkTopics")?,
        repartition_source_topics: r
            .compact_array(min_size::TOPIC_INFO, read_topic_info)
            .at("repartitionSourceTopics")?,
        copartition_groups: r
            .compact_array(min_size::COPARTITION_GROUP, |r| {
                let g = CopartitionGroup {
                    source_topics: read_int16s(r).at("sourceTopics")?,
                    source_topic_regex: read_int16s(r).at("sourceTopicRegex")?,
                    repartition_source_topics: read_int16s(r).at("repartitionSourceTopics")?,
                };
                skip_tagged_fields(r)?;
                Ok(g)
            })
            .at("copartitionGroups")?,
    };
    skip_tagged_fields(r)?;
    Ok(s)
}

//! Coordinator records as typed values, one model for both dialects.
//!
//! Each value type holds the union of the two dialects' fields; a dialect's codec reads and
//! writes only its own fields and leaves the others at their defaults (PROTOCOL 5.2). The
//! state machine builds these values without knowing the dialect.

// The fields mirror Kafka's record schemas field for field (`kafka-schemas/*.json`, whose
// `about` texts document them); they are not repeated here.
#![allow(missing_docs)]

pub use crate::tasks::TaskIds;
use std::sync::Arc;

use crate::topology::Subtopology;

/// The wire dialects (DESIGN 1): the KIP-1071 draft and one per released Kafka, which share
/// the record layouts of 4.2 (4.3 adds the tagged assignment timestamp).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    #[default]
    Kip1071Draft,
    Kafka42,
    Kafka43,
    Kafka44,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Kip1071Draft => "kip1071-draft",
            Dialect::Kafka42 => "kafka-4.2",
            Dialect::Kafka43 => "kafka-4.3",
            Dialect::Kafka44 => "kafka-4.4",
        }
    }

    /// Whether this is a released Kafka's dialect (`kafka-*`).
    pub fn is_kafka(self) -> bool {
        self != Dialect::Kip1071Draft
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "kip1071-draft" => Some(Dialect::Kip1071Draft),
            "kafka-4.2" => Some(Dialect::Kafka42),
            "kafka-4.3" => Some(Dialect::Kafka43),
            "kafka-4.4" => Some(Dialect::Kafka44),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyValue {
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
}

/// Kafka's 128-bit topic id; the zero UUID when the host gave none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// Kafka's text form: 22 characters of URL-safe base64 without padding.
    pub fn to_text(self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.0)
    }

    /// A uuid from Kafka's text form (`None`: not one).
    pub fn from_text(text: &str) -> Option<Uuid> {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .ok()
            .and_then(|b| <[u8; 16]>::try_from(b).ok())
            .map(Uuid)
    }
}

/// The kind of a record; the dialect maps it to a type id (PROTOCOL 5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordType {
    GroupMetadata,
    /// Draft only.
    PartitionMetadata,
    MemberMetadata,
    TargetAssignmentMetadata,
    TargetAssignmentMember,
    CurrentMemberAssignment,
    Topology,
    /// Kafka's committed offset of one partition (type id 1 in every dialect).
    OffsetCommit,
    /// Kafka's classic group record (`GroupMetadataKey`/`GroupMetadataValue`, type id 2 in
    /// every dialect). Only its tombstone is modelled: it deletes Kafka's simple classic group
    /// of an admin's commit. A value describes a classic group, which this coordinator does not
    /// hold: replay skips it like the records of other group types.
    ClassicGroupMetadata,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordKey {
    GroupMetadata {
        group_id: String,
    },
    PartitionMetadata {
        group_id: String,
    },
    MemberMetadata {
        group_id: String,
        member_id: String,
    },
    TargetAssignmentMetadata {
        group_id: String,
    },
    TargetAssignmentMember {
        group_id: String,
        member_id: String,
    },
    CurrentMemberAssignment {
        group_id: String,
        member_id: String,
    },
    Topology {
        group_id: String,
    },
    /// `OffsetCommitKey`: the group, the topic and the partition (Kafka's `group`, `topic`,
    /// `partition`).
    ///
    /// The group and topic are shared (`Arc<str>`): a commit's records name the same group and
    /// a handful of topics, and a 1,000-partition commit would otherwise copy them 2,000 times.
    OffsetCommit {
        group_id: Arc<str>,
        topic: Arc<str>,
        partition: i32,
    },
    /// `GroupMetadataKey` (type 2): the classic group (Kafka's `group`). Written and read as a
    /// tombstone only (see [`RecordType::ClassicGroupMetadata`]).
    ClassicGroupMetadata {
        group_id: String,
    },
}

impl RecordKey {
    pub fn record_type(&self) -> RecordType {
        match self {
            RecordKey::GroupMetadata { .. } => RecordType::GroupMetadata,
            RecordKey::PartitionMetadata { .. } => RecordType::PartitionMetadata,
            RecordKey::MemberMetadata { .. } => RecordType::MemberMetadata,
            RecordKey::TargetAssignmentMetadata { .. } => RecordType::TargetAssignmentMetadata,
            RecordKey::TargetAssignmentMember { .. } => RecordType::TargetAssignmentMember,
            RecordKey::CurrentMemberAssignment { .. } => RecordType::CurrentMemberAssignment,
            RecordKey::Topology { .. } => RecordType::Topology,
            RecordKey::OffsetCommit { .. } => RecordType::OffsetCommit,
            RecordKey::ClassicGroupMetadata { .. } => RecordType::ClassicGroupMetadata,
        }
    }

    pub fn group_id(&self) -> &str {
        match self {
            RecordKey::GroupMetadata { group_id }
            | RecordKey::PartitionMetadata { group_id }
            | RecordKey::MemberMetadata { group_id, .. }
            | RecordKey::TargetAssignmentMetadata { group_id }
            | RecordKey::TargetAssignmentMember { group_id, .. }
            | RecordKey::CurrentMemberAssignment { group_id, .. }
            | RecordKey::Topology { group_id }
            | RecordKey::ClassicGroupMetadata { group_id } => group_id,
            RecordKey::OffsetCommit { group_id, .. } => group_id,
        }
    }

    pub fn member_id(&self) -> Option<&str> {
        match self {
            RecordKey::MemberMetadata { member_id, .. }
            | RecordKey::TargetAssignmentMember { member_id, .. }
            | RecordKey::CurrentMemberAssignment { member_id, .. } => Some(member_id),
            _ => None,
        }
    }
}

/// `StreamsGroupMetadataValue`. Draft: `epoch` only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupMetadataValue {
    pub epoch: i32,
    /// 4.2.
    pub metadata_hash: i64,
    /// 4.2, tag 0, default -1.
    pub validated_topology_epoch: i32,
    /// 4.2, tag 1, nullable. Kafka's generator reads the schema's `"default": null` as the
    /// empty list: an empty list is left out of the bytes and JSON, and `None` (null) is written
    /// explicitly (PROTOCOL 5.6). An absent tag reads as `Some(vec![])`.
    pub last_assignment_configs: Option<Vec<KeyValue>>,
    /// 4.4, tag 2, default -1: the topology epoch the description store holds (-2: a store
    /// operation began and its outcome is not recorded).
    pub stored_description_topology_epoch: i32,
    /// 4.4, tag 3, default -1: the topology epoch whose description the store refused for good.
    pub failed_description_topology_epoch: i32,
}

impl Default for GroupMetadataValue {
    fn default() -> Self {
        GroupMetadataValue {
            epoch: 0,
            metadata_hash: 0,
            validated_topology_epoch: -1,
            last_assignment_configs: Some(Vec::new()),
            stored_description_topology_epoch: -1,
            failed_description_topology_epoch: -1,
        }
    }
}

/// One partition's racks in the draft partition metadata record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionRacks {
    pub partition: i32,
    pub racks: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicMetadata {
    pub topic_id: Uuid,
    pub topic_name: String,
    pub num_partitions: i32,
    pub partition_metadata: Vec<PartitionRacks>,
}

/// `StreamsGroupPartitionMetadataValue` (draft only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionMetadataValue {
    pub topics: Vec<TopicMetadata>,
}

/// `StreamsGroupMemberMetadataValue`. Draft carries `topology_id`, 4.2 `topology_epoch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberMetadataValue {
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub topology_id: String,
    pub topology_epoch: i32,
    pub process_id: String,
    pub user_endpoint: Option<Endpoint>,
    pub client_tags: Vec<KeyValue>,
}

impl Default for MemberMetadataValue {
    fn default() -> Self {
        MemberMetadataValue {
            instance_id: None,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            rebalance_timeout_ms: -1,
            topology_id: String::new(),
            topology_epoch: 0,
            process_id: String::new(),
            user_endpoint: None,
            client_tags: Vec::new(),
        }
    }
}

/// `StreamsGroupTargetAssignmentMetadataValue`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetAssignmentMetadataValue {
    pub assignment_epoch: i32,
    /// Tagged, from Kafka 4.3 (KIP-1263): when the assignment was computed; 0 (the default,
    /// not written) when unknown.
    pub assignment_timestamp: i64,
}

/// `StreamsGroupTargetAssignmentMemberValue`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetAssignmentMemberValue {
    pub active_tasks: Vec<TaskIds>,
    pub standby_tasks: Vec<TaskIds>,
    pub warmup_tasks: Vec<TaskIds>,
}

/// `StreamsGroupCurrentMemberAssignmentValue`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CurrentMemberAssignmentValue {
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    pub state: i8,
    pub active_tasks: Vec<TaskIds>,
    pub standby_tasks: Vec<TaskIds>,
    pub warmup_tasks: Vec<TaskIds>,
    pub active_tasks_pending_revocation: Vec<TaskIds>,
    pub standby_tasks_pending_revocation: Vec<TaskIds>,
    pub warmup_tasks_pending_revocation: Vec<TaskIds>,
}

/// `StreamsGroupTopologyValue`. Draft: `topology_id` + `Topology`; 4.2: `Epoch` + `Subtopologies`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyValue {
    pub topology_id: String,
    pub epoch: i32,
    pub subtopologies: Vec<Subtopology>,
}

/// `OffsetCommitValue`. Written at version 1 when it has an expire timestamp (a commit with a
/// retention time), else at version 4 (flexible, the topic id tagged); read at versions 0-4.
/// Version 1 carries no leader epoch and no topic id, so a value with an expire timestamp has
/// them at their defaults (-1, the zero UUID): what reading it back gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetCommitValue {
    pub offset: i64,
    /// Versions 3+, default -1.
    pub leader_epoch: i32,
    pub metadata: String,
    pub commit_timestamp: i64,
    /// Version 1 only, default -1.
    pub expire_timestamp: i64,
    /// Version 4+, tag 0; the zero UUID when unknown.
    pub topic_id: Uuid,
}

impl Default for OffsetCommitValue {
    fn default() -> Self {
        OffsetCommitValue {
            offset: 0,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp: 0,
            expire_timestamp: -1,
            topic_id: Uuid::default(),
        }
    }
}

impl OffsetCommitValue {
    /// The version Kafka writes this value at: 1 with an expire timestamp, else 4.
    pub fn version(&self) -> i16 {
        if self.expire_timestamp != -1 {
            1
        } else {
            4
        }
    }

    /// The value as its version keeps it: at version 1 the leader epoch and topic id are
    /// dropped, as writing and reading the value back drops them.
    pub fn normalized(mut self) -> Self {
        if self.version() == 1 {
            self.leader_epoch = -1;
            self.topic_id = Uuid::default();
        }
        self
    }
}

/// A record's value. The two largest values are boxed: a record is a third of the size it
/// would be otherwise, and a 1,000-partition commit writes 1,000 records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordValue {
    GroupMetadata(GroupMetadataValue),
    PartitionMetadata(PartitionMetadataValue),
    MemberMetadata(Box<MemberMetadataValue>),
    TargetAssignmentMetadata(TargetAssignmentMetadataValue),
    TargetAssignmentMember(TargetAssignmentMemberValue),
    CurrentMemberAssignment(Box<CurrentMemberAssignmentValue>),
    Topology(TopologyValue),
    OffsetCommit(OffsetCommitValue),
}

impl RecordValue {
    pub fn record_type(&self) -> RecordType {
        match self {
            RecordValue::GroupMetadata(_) => RecordType::GroupMetadata,
            RecordValue::PartitionMetadata(_) => RecordType::PartitionMetadata,
            RecordValue::MemberMetadata(_) => RecordType::MemberMetadata,
            RecordValue::TargetAssignmentMetadata(_) => RecordType::TargetAssignmentMetadata,
            RecordValue::TargetAssignmentMember(_) => RecordType::TargetAssignmentMember,
            RecordValue::CurrentMemberAssignment(_) => RecordType::CurrentMemberAssignment,
            RecordValue::Topology(_) => RecordType::Topology,
            RecordValue::OffsetCommit(_) => RecordType::OffsetCommit,
        }
    }
}

/// The producer of a transactional batch, as Kafka's batch header names it: an offset commit
/// record of `TxnOffsetCommit` is written in its transaction's batch, and stays pending until
/// the transaction's end marker (docs/transactions.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Producer {
    /// `producerId` (0 or more).
    pub id: i64,
    /// `producerEpoch` (0 or more).
    pub epoch: i16,
}

/// A key and its value; `None` is a tombstone. `producer`: written in that producer's
/// transactional batch (`None`: a plain batch, as every record but a transactional offset
/// commit is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub key: RecordKey,
    pub value: Option<RecordValue>,
    pub producer: Option<Producer>,
}

impl Record {
    pub fn new(key: RecordKey, value: RecordValue) -> Self {
        Record {
            key,
            value: Some(value),
            producer: None,
        }
    }

    /// A record of a plain batch (`value` `None`: a tombstone).
    pub fn plain(key: RecordKey, value: Option<RecordValue>) -> Self {
        Record {
            key,
            value,
            producer: None,
        }
    }

    /// A record of `producer`'s transactional batch.
    pub fn transactional(key: RecordKey, value: RecordValue, producer: Producer) -> Self {
        Record {
            key,
            value: Some(value),
            producer: Some(producer),
        }
    }

    /// The key and value are of the same record type (a tombstone always is).
    pub fn is_consistent(&self) -> bool {
        self.value
            .as_ref()
            .is_none_or(|v| v.record_type() == self.key.record_type())
    }

    pub fn tombstone(key: RecordKey) -> Self {
        Record {
            key,
            value: None,
            producer: None,
        }
    }
}

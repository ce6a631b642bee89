//! Streams groups and their members: hard state (rebuilt from records), derived state
//! (recomputed whenever a record is applied) and soft state (memory only, PROTOCOL 2.1).

pub mod member_id;
pub mod naming;
pub mod owners;
pub mod replay;
pub mod state;

use std::collections::{BTreeMap, BTreeSet};

use crate::records::{
    Dialect, Endpoint, KeyValue, MemberMetadataValue, PartitionMetadataValue, TopologyValue,
};
use crate::tasks::Assignment;
use crate::topology::{Configuration, SourcePatterns};

pub use owners::OwnerIndex;
pub use replay::{apply, ApplyEffect, ApplyError};
pub use state::{GroupState, MemberState};

/// One member (one stream thread's heartbeat loop).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub member_id: String,
    /// The persisted metadata, exactly as in the member metadata record.
    pub metadata: MemberMetadataValue,
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    /// Raw state code (1, 2, 3; anything else reads as UNKNOWN).
    pub state: i8,
    pub assigned: Assignment,
    pub pending: Assignment,
    /// 4.2 per-task assignment epochs of the active tasks, assigned and pending revocation
    /// (PROTOCOL 4.8). Kept in both dialects; only the 4.2 records persist them.
    pub active_epochs: BTreeMap<(String, i32), i32>,
    pub soft: MemberSoft,
}

impl Member {
    pub fn new(member_id: &str) -> Self {
        Member {
            member_id: member_id.to_string(),
            metadata: MemberMetadataValue::default(),
            member_epoch: 0,
            previous_member_epoch: 0,
            state: MemberState::Stable.code(),
            assigned: Assignment::default(),
            pending: Assignment::default(),
            active_epochs: BTreeMap::new(),
            soft: MemberSoft::default(),
        }
    }

    pub fn member_state(&self) -> MemberState {
        MemberState::from_code(self.state)
    }

    pub fn process_id(&self) -> &str {
        &self.metadata.process_id
    }

    pub fn endpoint(&self) -> Option<&Endpoint> {
        self.metadata.user_endpoint.as_ref()
    }

    /// Reconciled to `epoch`: stable and at that epoch (PROTOCOL 2.1).
    pub fn is_reconciled_to(&self, epoch: i32) -> bool {
        self.state == MemberState::Stable.code() && self.member_epoch == epoch
    }
}

/// A reported task offset (soft).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskOffset {
    pub subtopology_id: String,
    pub partition: i32,
    pub offset: i64,
}

/// A heartbeat status as last sent to a member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub code: i8,
    pub detail: String,
}

/// Memory-only member state; excluded from comparisons between a live and a rebuilt group.
#[derive(Clone, Debug, Default)]
pub struct MemberSoft {
    pub task_offsets: Option<Vec<TaskOffset>>,
    pub task_end_offsets: Option<Vec<TaskOffset>>,
    pub last_topology_id: Option<String>,
    pub last_status: Option<Vec<Status>>,
    pub last_endpoint_epoch: Option<i32>,
}

impl PartialEq for MemberSoft {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for MemberSoft {}

/// Memory-only group state; excluded from comparisons between a live and a rebuilt group.
#[derive(Clone, Debug, Default)]
pub struct GroupSoft {
    pub refresh_due: bool,
    pub shutdown_requester: Option<String>,
    pub endpoint_epoch: i32,
    /// 4.2: the configured topology as the last refresh left it (PROTOCOL 2.1, 4.4 step 5);
    /// `None` until the first refresh (e.g. after a rebuild).
    pub configured: Option<Configuration>,
    /// The topology's source-topic regexes, compiled once per topology and remembering every
    /// topic they were matched against (kept current by [`apply`]).
    pub patterns: SourcePatterns,
    /// When this coordinator last computed the group's target assignment (assignment batching);
    /// `None` after a rebuild, so that a rebuilt coordinator computes at the next bump.
    pub last_assignment_ms: Option<i64>,
}

impl PartialEq for GroupSoft {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for GroupSoft {}

/// A streams group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub group_id: String,
    pub group_epoch: i32,
    pub assignment_epoch: i32,
    pub topology: Option<TopologyValue>,
    /// Draft: the stored view of the required topics.
    pub partition_metadata: PartitionMetadataValue,
    /// 4.2 group metadata fields.
    pub metadata_hash: i64,
    pub validated_topology_epoch: i32,
    pub last_assignment_configs: Option<Vec<KeyValue>>,
    pub members: BTreeMap<String, Member>,
    pub targets: BTreeMap<String, Assignment>,
    /// Derived: instance id -> member id.
    pub static_index: BTreeMap<String, String>,
    /// Derived: who holds each task.
    pub owners: OwnerIndex,
    /// Derived (draft): `configure(topology, partition metadata)`. The 4.2 dialect has no
    /// partition metadata and keeps its configured topology in [`GroupSoft::configured`]
    /// instead; there this field is never read.
    pub configured: Option<Configuration>,
    /// Derived: the active tasks of member targets removed (tombstoned) since the last target
    /// assignment metadata record; the next target computation reports those it hands to
    /// others as reassigned.
    pub orphaned: BTreeSet<(String, i32)>,
    pub soft: GroupSoft,
}

impl Group {
    pub fn new(group_id: &str) -> Self {
        Group {
            group_id: group_id.to_string(),
            group_epoch: 0,
            assignment_epoch: 0,
            topology: None,
            partition_metadata: PartitionMetadataValue::default(),
            metadata_hash: 0,
            validated_topology_epoch: -1,
            last_assignment_configs: Some(Vec::new()),
            members: BTreeMap::new(),
            targets: BTreeMap::new(),
            static_index: BTreeMap::new(),
            owners: OwnerIndex::default(),
            configured: None,
            orphaned: BTreeSet::new(),
            soft: GroupSoft::default(),
        }
    }

    /// The draft group state (PROTOCOL 2.2), derived from hard state.
    pub fn state(&self) -> GroupState {
        if self.topology.is_none() {
            GroupState::Initializing
        } else if self.members.is_empty() {
            GroupState::Empty
        } else {
            self.assignment_state()
        }
    }

    /// The 4.2 group state (PROTOCOL 2.2), derived from hard state.
    pub fn state_kafka42(&self) -> GroupState {
        if self.members.is_empty() {
            GroupState::Empty
        } else if self
            .topology
            .as_ref()
            .is_none_or(|t| t.epoch != self.validated_topology_epoch)
        {
            GroupState::NotReady
        } else {
            self.assignment_state()
        }
    }

    /// Rows 3-5 of PROTOCOL 2.2, the same in both dialects.
    fn assignment_state(&self) -> GroupState {
        if self.group_epoch > self.assignment_epoch {
            GroupState::Assigning
        } else if self
            .members
            .values()
            .any(|m| !m.is_reconciled_to(self.assignment_epoch))
        {
            GroupState::Reconciling
        } else {
            GroupState::Stable
        }
    }

    /// The group state as `dialect` derives it (PROTOCOL 2.2).
    pub fn state_in(&self, dialect: Dialect) -> GroupState {
        match dialect {
            Dialect::Kip1071Draft => self.state(),
            Dialect::Kafka42 => self.state_kafka42(),
        }
    }

    /// The partition counts of the stored view, as `configure` takes them.
    pub fn view(&self) -> BTreeMap<String, i32> {
        view_of(&self.partition_metadata)
    }
}

/// Topic name -> partition count of a partition metadata value.
pub fn view_of(pm: &PartitionMetadataValue) -> BTreeMap<String, i32> {
    pm.topics
        .iter()
        .map(|t| (t.topic_name.clone(), t.num_partitions))
        .collect()
}

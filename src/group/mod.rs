//! Streams groups and their members: hard state (rebuilt from records), derived state
//! (recomputed whenever a record is applied) and soft state (memory only, PROTOCOL 2.1).

pub(crate) mod member_id;
pub mod naming;
mod owners;
mod replay;
mod state;

use std::collections::{BTreeMap, BTreeSet};

use crate::id_map::IdMap;
use crate::ordered::Ordered;
use crate::records::build::{GroupMetadataFields, MemberFields};
use crate::records::{
    Dialect, Endpoint, KeyValue, MemberMetadataValue, PartitionMetadataValue, TopologyValue,
};
use crate::tasks::{Assignment, TargetMap, TaskEpochs};
use crate::topology::{Configuration, SourcePatterns};

pub use owners::OwnerIndex;

/// The members of a group by id, in ascending id order.
pub type MemberMap = IdMap<Member>;
#[cfg(feature = "replay-text")]
pub(crate) use replay::apply_in_place;
pub use replay::ApplyError;
pub(crate) use replay::{apply, ApplyEffect, MemberAfter};
pub use state::{GroupState, MemberState};

/// One member (one stream thread's heartbeat loop).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member id (generated in the draft, the client's in 4.2).
    pub member_id: String,
    /// The persisted metadata, exactly as in the member metadata record.
    pub metadata: MemberMetadataValue,
    /// The member epoch (PROTOCOL 2.3); -2 while a static member is away.
    pub member_epoch: i32,
    /// The epoch before the last change, accepted for one heartbeat (2.4).
    pub previous_member_epoch: i32,
    /// Raw state code (1, 2, 3; anything else reads as UNKNOWN).
    pub state: i8,
    /// The tasks it holds.
    pub assigned: Assignment,
    /// The tasks it must still revoke.
    pub pending: Assignment,
    /// 4.2 per-task assignment epochs of the active tasks, assigned and pending revocation
    /// (PROTOCOL 4.8). Kept in both dialects; only the 4.2 records persist them.
    pub active_epochs: TaskEpochs,
    /// Memory-only state.
    pub soft: MemberSoft,
}

impl Member {
    /// A new member with empty metadata and assignment.
    pub fn new(member_id: &str) -> Self {
        Member {
            member_id: member_id.to_string(),
            metadata: MemberMetadataValue::default(),
            member_epoch: 0,
            previous_member_epoch: 0,
            state: MemberState::Stable.code(),
            assigned: Assignment::default(),
            pending: Assignment::default(),
            active_epochs: TaskEpochs::new(),
            soft: MemberSoft::default(),
        }
    }

    /// Its reconciliation state (2.5).
    pub fn member_state(&self) -> MemberState {
        MemberState::from_code(self.state)
    }

    /// The process it runs in.
    pub fn process_id(&self) -> &str {
        &self.metadata.process_id
    }

    /// Its Interactive Queries endpoint.
    pub fn endpoint(&self) -> Option<&Endpoint> {
        self.metadata.user_endpoint.as_ref()
    }

    /// Reconciled to `epoch`: stable and at that epoch (PROTOCOL 2.1).
    pub fn is_reconciled_to(&self, epoch: i32) -> bool {
        self.state == MemberState::Stable.code() && self.member_epoch == epoch
    }
}

impl<'a> From<&'a Member> for MemberFields<'a> {
    /// What its records write of a member: all but its soft state.
    fn from(m: &'a Member) -> Self {
        MemberFields {
            member_id: &m.member_id,
            metadata: &m.metadata,
            member_epoch: m.member_epoch,
            previous_member_epoch: m.previous_member_epoch,
            state: m.state,
            assigned: &m.assigned,
            pending: &m.pending,
            active_epochs: &m.active_epochs,
        }
    }
}

/// A reported task offset (soft).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskOffset {
    /// The subtopology.
    pub subtopology_id: String,
    /// The partition (task number).
    pub partition: i32,
    /// The offset reported.
    pub offset: i64,
}

/// A heartbeat status as last sent to a member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The status code (PROTOCOL 3.10, 4.5).
    pub code: i8,
    /// The status detail.
    pub detail: String,
}

/// Memory-only member state; excluded from comparisons between a live and a rebuilt group.
#[derive(Clone, Debug, Default)]
pub struct MemberSoft {
    /// Last reported task offsets.
    pub task_offsets: Option<Vec<TaskOffset>>,
    /// Last reported task end offsets.
    pub task_end_offsets: Option<Vec<TaskOffset>>,
    /// The topology id last sent to it (the draft sends it only on change).
    pub last_topology_id: Option<String>,
    /// The statuses last sent to it.
    pub last_status: Option<Vec<Status>>,
    /// The endpoint information epoch last sent to it.
    pub last_endpoint_epoch: Option<i32>,
    /// When it was added to the group's member map, counted per group: Kafka's map iterates
    /// members of one slot in this order ([`Group::java_member_order`]).
    pub java_seq: u64,
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
    /// Whether the topic view must be recomputed at the next heartbeat (2.12).
    pub refresh_due: bool,
    /// The group epoch of Kafka's metadata refresh deadline (a plain field, set when a
    /// heartbeat bumps the epoch, and kept when that heartbeat then fails): while the group's
    /// epoch is below it, its topic view is due for a refresh (`hasMetadataExpired`).
    pub refresh_epoch: i32,
    /// The member that asked for a shutdown of the application (2.14).
    pub shutdown_requester: Option<String>,
    /// Bumped whenever an endpoint or its tasks change (PROTOCOL 2.13).
    pub endpoint_epoch: i32,
    /// The topology's source-topic regexes, compiled once per topology and remembering every
    /// topic they were matched against (kept current by [`apply`]).
    pub patterns: SourcePatterns,
    /// When this coordinator last computed the group's target assignment (assignment batching);
    /// `None` after a rebuild, so that a rebuilt coordinator computes at the next bump.
    pub last_assignment_ms: Option<i64>,
    /// The last target computation in task indices, while every member it had holds the
    /// target it computed: any target record applied drops it ([`apply`]).
    pub assignor_memo: Option<crate::assignor::Memo>,
    /// The topology's subtopology ids, sorted: the one copy of each that the task maps applied
    /// records build share (kept current by [`apply`]).
    pub(crate) subtopology_ids: Vec<std::sync::Arc<str>>,
    /// The next [`MemberSoft::java_seq`].
    pub java_next_seq: u64,
    /// The slot count of Kafka's member map (a `TimelineHashMap`: 2 at first, doubled when more
    /// than three quarters full, never shrunk), which decides its iteration order.
    pub java_member_slots: usize,
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
    /// The group id.
    pub group_id: String,
    /// The group epoch (2.3).
    pub group_epoch: i32,
    /// The epoch of the current target assignment.
    pub assignment_epoch: i32,
    /// When the current target assignment was computed, as its record says (Kafka 4.3+; 0:
    /// unknown).
    pub assignment_timestamp: i64,
    /// The stored topology.
    pub topology: Option<TopologyValue>,
    /// What only the group's dialect keeps: its topic view and configured topology.
    pub dialect: DialectState,
    /// The members, by id.
    pub members: MemberMap,
    /// Each member's target assignment.
    pub targets: TargetMap,
    /// Derived: instance id -> member id.
    pub static_index: BTreeMap<String, String>,
    /// Derived: who holds each task.
    pub owners: OwnerIndex,
    /// Derived: the active tasks of member targets removed (tombstoned) since the last target
    /// assignment metadata record; the next target computation reports those it hands to
    /// others as reassigned.
    pub orphaned: BTreeSet<(String, i32)>,
    /// Derived: how many members are not reconciled to `assignment_epoch` (PROTOCOL 2.1), kept
    /// by `apply` so that the group state costs no scan of the members.
    pub(crate) unreconciled: usize,
    /// Derived: how many members have an Interactive Queries endpoint, kept by `apply` so that
    /// a group without any answers the endpoint map without a scan.
    pub(crate) with_endpoint: usize,
    /// Memory-only state.
    pub soft: GroupSoft,
}

/// What only one dialect keeps of a group (PROTOCOL 2.1): the topic view each takes and the
/// configured topology it yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialectState {
    /// A `kip1071-draft` group.
    Draft(DraftState),
    /// A `kafka-4.2` group.
    Kafka42(Kafka42State),
}

/// `kip1071-draft`: the stored view of the required topics (the partition metadata record) and
/// the configuration derived from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DraftState {
    /// The stored view of the required topics.
    pub partition_metadata: PartitionMetadataValue,
    /// Derived: `configure(topology, partition metadata)`.
    pub configured: Option<Configuration>,
}

/// `kafka-4.2`: the topic-view fields of the group metadata record (PROTOCOL 4.5, 4.6), and the
/// configured topology as the last refresh left it, in memory only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kafka42State {
    /// The metadata hash of the group's topics (4.5).
    pub metadata_hash: i64,
    /// The topology epoch last found ready (-1: none).
    pub validated_topology_epoch: i32,
    /// The assignment configuration last used (4.6).
    pub last_assignment_configs: Option<Vec<KeyValue>>,
    /// 4.4: the topology epoch the description store holds (-1 none, -2 uncertain).
    pub stored_description_topology_epoch: i32,
    /// 4.4: the topology epoch whose description the store refused for good (-1 none).
    pub failed_description_topology_epoch: i32,
    /// Soft (PROTOCOL 4.4 step 5): `None` until the first refresh (e.g. after a rebuild).
    pub configured: Soft<Option<Configuration>>,
    /// Soft: `configured` was computed by the heartbeat that created the group, which Kafka
    /// computes on a group object it then drops: its statuses and endpoints read it, but the
    /// stored group counts as unconfigured (the delay timer computes nothing; the next
    /// heartbeat configures again).
    pub provisional: Soft<bool>,
}

impl Default for Kafka42State {
    fn default() -> Self {
        Kafka42State {
            metadata_hash: 0,
            validated_topology_epoch: -1,
            last_assignment_configs: Some(Vec::new()),
            stored_description_topology_epoch: -1,
            failed_description_topology_epoch: -1,
            configured: Soft(None),
            provisional: Soft(false),
        }
    }
}

/// Memory-only state inside a persisted structure: equal to any other, so that a live and a
/// rebuilt group compare by what records rebuild.
#[derive(Clone, Debug, Default)]
pub struct Soft<T>(pub T);

impl<T> PartialEq for Soft<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> Eq for Soft<T> {}

impl DialectState {
    /// The empty state of a new group in `dialect`.
    pub fn new(dialect: Dialect) -> Self {
        match dialect {
            Dialect::Kip1071Draft => DialectState::Draft(DraftState::default()),
            Dialect::Kafka42 | Dialect::Kafka43 | Dialect::Kafka44 => {
                DialectState::Kafka42(Kafka42State::default())
            }
        }
    }
}

impl Group {
    /// A new, empty group of `dialect`.
    pub fn new(group_id: &str, dialect: Dialect) -> Self {
        // From Kafka 4.3 a new group starts at group and assignment epoch 1 (an empty
        // assignment), so that its first members reconcile to 1 while the first computation
        // (epoch 2) waits (KAFKA-20268).
        let initial = match dialect {
            Dialect::Kafka43 | Dialect::Kafka44 => 1,
            _ => 0,
        };
        Group {
            group_id: group_id.to_string(),
            group_epoch: initial,
            assignment_epoch: initial,
            assignment_timestamp: 0,
            topology: None,
            dialect: DialectState::new(dialect),
            members: MemberMap::new(),
            targets: TargetMap::new(),
            static_index: BTreeMap::new(),
            owners: OwnerIndex::default(),
            orphaned: BTreeSet::new(),
            unreconciled: 0,
            with_endpoint: 0,
            soft: GroupSoft::default(),
        }
    }

    /// Counts the members not reconciled to `assignment_epoch` again (after it changed).
    pub(crate) fn recount_unreconciled(&mut self) {
        let epoch = self.assignment_epoch;
        self.unreconciled = self
            .members
            .values()
            .filter(|m| !m.is_reconciled_to(epoch))
            .count();
    }

    /// The draft state; `None` for a 4.2 group.
    pub fn draft(&self) -> Option<&DraftState> {
        match &self.dialect {
            DialectState::Draft(d) => Some(d),
            DialectState::Kafka42(_) => None,
        }
    }

    /// The 4.2 state; `None` for a draft group.
    pub fn kafka42(&self) -> Option<&Kafka42State> {
        match &self.dialect {
            DialectState::Kafka42(k) => Some(k),
            DialectState::Draft(_) => None,
        }
    }

    /// The group metadata fields as the group stores them, for a bump's record (the draft has
    /// none: its record writes the defaults, which its layout leaves out).
    pub fn metadata_fields(&self) -> GroupMetadataFields {
        match self.kafka42() {
            Some(k) => GroupMetadataFields {
                metadata_hash: k.metadata_hash,
                validated_topology_epoch: k.validated_topology_epoch,
                last_assignment_configs: k.last_assignment_configs.clone(),
                stored_description_topology_epoch: k.stored_description_topology_epoch,
                failed_description_topology_epoch: k.failed_description_topology_epoch,
            },
            None => GroupMetadataFields {
                metadata_hash: 0,
                validated_topology_epoch: -1,
                last_assignment_configs: Some(Vec::new()),
                ..GroupMetadataFields::default()
            },
        }
    }

    /// The member ids in the order Kafka's member map (a `TimelineHashMap`) iterates them: by
    /// slot, then the last added first (its iterator pops each slot's array from the end).
    pub fn java_member_order(&self) -> Vec<&str> {
        self.java_member_order_in(self.soft.java_member_slots)
    }

    /// [`Group::java_member_order`] in a table of `slots` slots: the table as it was before
    /// members were added (Kafka builds a heartbeat's response before its records are replayed,
    /// so a join that grows the table is answered in the order of the smaller one).
    pub fn java_member_order_in(&self, slots: usize) -> Vec<&str> {
        let bits = slots.max(2).trailing_zeros();
        let mut ids: Vec<(u64, std::cmp::Reverse<u64>, &str)> = self
            .members
            .iter()
            .map(|(id, m)| {
                (
                    crate::java::timeline_slot(id, bits),
                    std::cmp::Reverse(m.soft.java_seq),
                    id.as_str(),
                )
            })
            .collect();
        ids.sort_unstable();
        ids.into_iter().map(|(_, _, id)| id).collect()
    }

    /// The configured topology a stored Kafka group has (none when only its creating heartbeat
    /// configured it, see [`Kafka42State::provisional`]); the draft's as [`Group::configured`].
    pub fn stored_configuration(&self) -> Option<&Configuration> {
        match &self.dialect {
            DialectState::Kafka42(k) if k.provisional.0 => None,
            _ => self.configured(),
        }
    }

    /// The group's configured topology in either dialect (PROTOCOL 2.1).
    pub fn configured(&self) -> Option<&Configuration> {
        match &self.dialect {
            DialectState::Draft(d) => d.configured.as_ref(),
            DialectState::Kafka42(k) => k.configured.0.as_ref(),
        }
    }

    /// The group state (PROTOCOL 2.2) as the group's dialect derives it from hard state.
    pub fn state(&self) -> GroupState {
        match self.dialect {
            DialectState::Draft(_) => self.state_draft(),
            DialectState::Kafka42(_) => self.state_kafka42(),
        }
    }

    /// The draft group state (PROTOCOL 2.2).
    fn state_draft(&self) -> GroupState {
        if self.topology.is_none() {
            GroupState::Initializing
        } else if self.members.is_empty() {
            GroupState::Empty
        } else {
            self.assignment_state()
        }
    }

    /// The 4.2 group state (PROTOCOL 2.2).
    fn state_kafka42(&self) -> GroupState {
        if self.members.is_empty() {
            GroupState::Empty
        } else if self
            .topology
            .as_ref()
            .is_none_or(|t| Some(t.epoch) != self.kafka42().map(|k| k.validated_topology_epoch))
        {
            GroupState::NotReady
        } else {
            self.assignment_state()
        }
    }

    /// Rows 3-5 of PROTOCOL 2.2, the same in both dialects.
    fn assignment_state(&self) -> GroupState {
        debug_assert_eq!(
            self.unreconciled,
            self.members
                .values()
                .filter(|m| !m.is_reconciled_to(self.assignment_epoch))
                .count(),
            "the unreconciled count of group {} drifted",
            self.group_id
        );
        if self.group_epoch > self.assignment_epoch {
            GroupState::Assigning
        } else if self.unreconciled > 0 {
            GroupState::Reconciling
        } else {
            GroupState::Stable
        }
    }

    /// The partition counts of the stored draft view, as `configure` takes them (empty in 4.2).
    pub fn view(&self) -> BTreeMap<String, i32> {
        self.draft()
            .map(|d| view_of(&d.partition_metadata))
            .unwrap_or_default()
    }
}

/// Topic name -> partition count of a partition metadata value.
pub fn view_of(pm: &PartitionMetadataValue) -> BTreeMap<String, i32> {
    pm.topics
        .iter()
        .map(|t| (t.topic_name.clone(), t.num_partitions))
        .to_map()
}

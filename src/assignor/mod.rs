//! Task assignors (PROTOCOL 2.10). STUB: being written.

use std::collections::BTreeMap;

use crate::tasks::Assignment;

/// One member as the assignor sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberSpec {
    pub member_id: String,
    pub process_id: String,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_tags: BTreeMap<String, String>,
    /// The member's previous target (empty if none).
    pub previous: Assignment,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubtopologySpec {
    pub subtopology_id: String,
    pub num_tasks: i32,
    pub stateful: bool,
}

/// Everything an assignor needs; members sorted by member id, subtopologies by id.
#[derive(Clone, Copy, Debug)]
pub struct GroupSpec<'a> {
    pub members: &'a [MemberSpec],
    pub subtopologies: &'a [SubtopologySpec],
    pub num_standby_replicas: i32,
}

/// Computes target assignments. Deterministic: the same spec gives the same result.
pub trait TaskAssignor {
    fn name(&self) -> &'static str;
    /// A target for every member of the spec.
    fn assign(&self, spec: &GroupSpec<'_>) -> Result<BTreeMap<String, Assignment>, String>;
}

/// Number of (task, role) placements that differ between two targets: every task copy
/// present in `next` under a member that did not hold it in that role in `previous`.
pub fn tasks_moved(
    previous: &BTreeMap<String, Assignment>,
    next: &BTreeMap<String, Assignment>,
) -> u64 {
    let _ = (previous, next);
    unimplemented!()
}

// TEMPORARY: replaced by the assignor branch.
pub struct StickyAssignor;
impl TaskAssignor for StickyAssignor {
    fn name(&self) -> &'static str {
        "sticky"
    }
    fn assign(&self, _spec: &GroupSpec<'_>) -> Result<BTreeMap<String, Assignment>, String> {
        unimplemented!()
    }
}
pub struct ManualTarget {
    pub member_id: String,
    pub active: Vec<crate::records::TaskIds>,
    pub standby: Vec<crate::records::TaskIds>,
    pub warmup: Vec<crate::records::TaskIds>,
}
pub fn validate_manual(
    _group_id: &str,
    _members: &BTreeMap<String, String>,
    _topology: Option<&[SubtopologySpec]>,
    _targets: &[ManualTarget],
) -> Result<(), String> {
    unimplemented!()
}

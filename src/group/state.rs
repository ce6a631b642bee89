//! Group and member states (PROTOCOL 2.2, 2.6).

/// Group states; the draft and 4.2 dialects spell them differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupState {
    /// `INITIALIZING` (draft): no topology yet.
    Initializing,
    /// `NOT_READY` (4.2): the topology is not ready.
    NotReady,
    /// `EMPTY`: no members.
    Empty,
    /// `ASSIGNING`: the group epoch is ahead of the assignment epoch.
    Assigning,
    /// `RECONCILING`: members are moving to the target.
    Reconciling,
    /// `STABLE`: every member holds its target.
    Stable,
    /// `DEAD`: deleted.
    Dead,
}

impl GroupState {
    /// The enum name used in `explain` (`INITIALIZING`, `NOT_READY`, ...).
    pub fn code(self) -> &'static str {
        match self {
            GroupState::Initializing => "INITIALIZING",
            GroupState::NotReady => "NOT_READY",
            GroupState::Empty => "EMPTY",
            GroupState::Assigning => "ASSIGNING",
            GroupState::Reconciling => "RECONCILING",
            GroupState::Stable => "STABLE",
            GroupState::Dead => "DEAD",
        }
    }

    /// The string in describe responses.
    pub fn display(self) -> &'static str {
        match self {
            GroupState::Initializing => "Initializing",
            GroupState::NotReady => "NotReady",
            GroupState::Empty => "Empty",
            GroupState::Assigning => "Assigning",
            GroupState::Reconciling => "Reconciling",
            GroupState::Stable => "Stable",
            GroupState::Dead => "Dead",
        }
    }
}

/// Member states, persisted as int8 in the current assignment record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemberState {
    /// `STABLE`: holds its target.
    Stable,
    /// `UNREVOKED_TASKS`: must revoke tasks first.
    UnrevokedTasks,
    /// `UNRELEASED_TASKS`: waits for tasks others still hold.
    UnreleasedTasks,
    /// `UNKNOWN`: a state code the coordinator does not know.
    Unknown,
}

impl MemberState {
    /// The record's state code.
    pub fn code(self) -> i8 {
        match self {
            MemberState::Stable => 1,
            MemberState::UnrevokedTasks => 2,
            MemberState::UnreleasedTasks => 3,
            MemberState::Unknown => 127,
        }
    }

    /// The state of a record's code.
    pub fn from_code(code: i8) -> Self {
        match code {
            1 => MemberState::Stable,
            2 => MemberState::UnrevokedTasks,
            3 => MemberState::UnreleasedTasks,
            _ => MemberState::Unknown,
        }
    }

    /// The name `explain` uses.
    pub fn name(self) -> &'static str {
        match self {
            MemberState::Stable => "STABLE",
            MemberState::UnrevokedTasks => "UNREVOKED_TASKS",
            MemberState::UnreleasedTasks => "UNRELEASED_TASKS",
            MemberState::Unknown => "UNKNOWN",
        }
    }
}

//! `ListGroups` (Kafka's `GroupMetadataManager.listGroups`): every group of Kafka's group map
//! (the streams groups and the simple classic groups of admin commits), in its order, that
//! passes the states and types filters.

use crate::api::{ListGroupsRequest, ListGroupsResponse, ListedGroup};
use crate::group::GroupState;
use crate::Coordinator;

/// Kafka's `GroupType` names.
const STREAMS: &str = "streams";
const CLASSIC: &str = "classic";
const KNOWN_TYPES: &[&str] = &["consumer", CLASSIC, "share", STREAMS];

impl Coordinator {
    /// Every group id Kafka's group map holds, in its iteration order: the streams groups and
    /// the simple groups (a `TimelineHashMap` at the current number of groups; its growth
    /// history is not tracked, docs/kafka-compatibility.md).
    pub(crate) fn group_map_order(&self) -> Vec<String> {
        let mut ids: Vec<&str> = self.groups.keys().map(String::as_str).collect();
        ids.extend(
            self.offsets
                .groups()
                .filter(|(g, o)| o.simple_group && !self.groups.contains_key(*g))
                .map(|(g, _)| g),
        );
        crate::java::timeline_keys(&ids, ids.len())
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The listed groups that pass both filters (an empty filter passes every group).
    pub(crate) fn list_groups(&self, req: &ListGroupsRequest) -> ListGroupsResponse {
        // Kafka lower-cases and trims each state of the filter, and parses each type
        // case-insensitively (an unknown type is `UNKNOWN`, which no group has).
        let states: Vec<String> = req
            .states_filter
            .iter()
            .map(|s| java_trim(&s.to_lowercase()).to_string())
            .collect();
        let types: Vec<&str> = req
            .types_filter
            .iter()
            .map(|t| {
                let t = t.to_lowercase();
                KNOWN_TYPES
                    .iter()
                    .find(|k| **k == t)
                    .copied()
                    .unwrap_or("unknown")
            })
            .collect();
        let groups = self
            .group_map_order()
            .into_iter()
            .map(|gid| match self.groups.get(&gid) {
                Some(g) => (gid, STREAMS, g.state()),
                None => (gid, CLASSIC, GroupState::Empty),
            })
            .filter(|(_, ty, state)| {
                (states.is_empty() || states.iter().any(|s| s == lower_case_name(*state)))
                    && (types.is_empty() || types.contains(ty))
            })
            .map(|(group_id, ty, state)| ListedGroup {
                group_id,
                protocol_type: if ty == STREAMS { STREAMS } else { "" }.to_string(),
                group_state: state.display().to_string(),
                group_type: ty.to_string(),
            })
            .collect();
        ListGroupsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            groups,
        }
    }
}

/// Kafka's `toLowerCaseString` of a state, which the states filter is matched against (Kafka
/// writes `NotReady` as `not_ready` there).
fn lower_case_name(state: GroupState) -> &'static str {
    match state {
        GroupState::Initializing => "initializing",
        GroupState::NotReady => "not_ready",
        GroupState::Empty => "empty",
        GroupState::Assigning => "assigning",
        GroupState::Reconciling => "reconciling",
        GroupState::Stable => "stable",
        GroupState::Dead => "dead",
    }
}

/// Java's `String.trim`: every leading and trailing character up to U+0020.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

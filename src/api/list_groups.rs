//! `ListGroups` (Kafka's API key 16) at the JSON boundary: Kafka's request and response field
//! names, in the version-5 shape (the wire face writes each version's).

// The fields are Kafka's schema fields in camelCase (ListGroupsRequest.json, ...).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

/// `ListGroupsRequest`: both filters empty lists every group.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListGroupsRequest {
    /// Version 4+: group states, matched as Kafka matches them (case-insensitively, trimmed,
    /// against the state's lower-case name: `not_ready` for `NotReady`).
    #[serde(default)]
    pub states_filter: Vec<String>,
    /// Version 5+: group types (`streams`, `classic`, ...), case-insensitively; an unknown
    /// one matches no group.
    #[serde(default)]
    pub types_filter: Vec<String>,
}

/// `ListGroupsResponse`: the groups in the order of Kafka's group map.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListGroupsResponse {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub groups: Vec<ListedGroup>,
}

/// One listed group: a streams group (`streams`, `streams`), or Kafka's simple classic group
/// of an admin's commit (protocol type `""`, `Empty`, `classic`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedGroup {
    pub group_id: String,
    pub protocol_type: String,
    /// Version 4+.
    pub group_state: String,
    /// Version 5+.
    pub group_type: String,
}

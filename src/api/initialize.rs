//! `StreamsGroupInitialize` (draft only, PROTOCOL 3.13).

// The fields are `StreamsGroupInitialize`'s schema fields in camelCase (DESIGN 3).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

use crate::topology::Subtopology;

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitializeRequest {
    pub group_id: String,
    pub topology_id: String,
    pub topology: Vec<Subtopology>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub error_message: Option<String>,
}

//! `StreamsGroupTopologyDescriptionUpdate` (Kafka 4.4, API key 93, KIP-1331): a member pushes
//! its topology's description for the broker's topology description plugin to keep.

// The fields are the schemas' (`StreamsGroupTopologyDescriptionUpdate*.json`) in the contract's
// camelCase (DESIGN 3).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

use super::describe::TopologyDescriptionJson;

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopologyDescriptionUpdateRequest {
    pub group_id: String,
    pub member_id: String,
    pub topology_epoch: i32,
    /// Not nullable on the wire; a JSON input's null is refused as Kafka refuses it.
    pub topology_description: Option<TopologyDescriptionJson>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyDescriptionUpdateResponse {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub error_message: Option<String>,
}

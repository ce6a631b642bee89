//! `StreamsGroupHeartbeat` request and response (PROTOCOL 3.3, 3.4; 4.2 in 4.2).

// The fields are the request and response schemas' (`kafka-schemas/StreamsGroupHeartbeat*.json`)
// in the contract's camelCase (DESIGN 3).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

use super::common::{EndpointJson, KeyValueJson, TaskIdsJson, TaskOffsetJson};
use crate::topology::Subtopology;

fn minus_one() -> i32 {
    -1
}

/// The union of both dialects' request fields; each dialect rejects what it lacks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HeartbeatRequest {
    pub group_id: String,
    pub member_id: String,
    pub member_epoch: i32,
    /// 4.2 only.
    #[serde(default)]
    pub endpoint_information_epoch: Option<i32>,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    #[serde(default = "minus_one")]
    pub rebalance_timeout_ms: i32,
    /// Draft only.
    pub topology_id: Option<String>,
    /// 4.2 only.
    pub topology: Option<TopologyJson>,
    pub active_tasks: Option<Vec<TaskIdsJson>>,
    pub standby_tasks: Option<Vec<TaskIdsJson>>,
    pub warmup_tasks: Option<Vec<TaskIdsJson>>,
    pub process_id: Option<String>,
    pub user_endpoint: Option<EndpointJson>,
    pub client_tags: Option<Vec<KeyValueJson>>,
    pub task_offsets: Option<Vec<TaskOffsetJson>>,
    pub task_end_offsets: Option<Vec<TaskOffsetJson>>,
    #[serde(default)]
    pub shutdown_application: bool,
    /// The input's `apiVersion` (not a request field): the version decides the response's
    /// fields and statuses (4.4's v1).
    #[serde(skip)]
    pub api_version: i16,
}

/// The 4.2 heartbeat's `Topology {epoch, subtopologies}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopologyJson {
    pub epoch: i32,
    #[serde(default)]
    pub subtopologies: Vec<Subtopology>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusJson {
    pub status_code: i8,
    pub status_detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicPartitionJson {
    pub topic: String,
    pub partitions: Vec<i32>,
}

/// Draft `EndpointToPartitions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointToPartitionsJson {
    pub user_endpoint: EndpointJson,
    pub partitions: Vec<TopicPartitionJson>,
}

/// Draft heartbeat response, fields in schema order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatResponse {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub error_message: Option<String>,
    pub member_id: Option<String>,
    pub member_epoch: i32,
    pub heartbeat_interval_ms: i32,
    pub acceptable_recovery_lag: i32,
    pub task_offset_interval_ms: i32,
    pub should_initialize_topology: bool,
    pub group_topology_id: Option<String>,
    pub status: Option<Vec<StatusJson>>,
    pub active_tasks: Option<Vec<TaskIdsJson>>,
    pub standby_tasks: Option<Vec<TaskIdsJson>>,
    pub warmup_tasks: Option<Vec<TaskIdsJson>>,
    pub partitions_by_user_endpoint: Option<Vec<EndpointToPartitionsJson>>,
}

/// 4.2 `EndpointToPartitions`: one entry per member with an endpoint (PROTOCOL 4.9).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointToPartitions42Json {
    pub user_endpoint: EndpointJson,
    pub active_partitions: Vec<TopicPartitionJson>,
    pub standby_partitions: Vec<TopicPartitionJson>,
}

/// 4.2 heartbeat response (PROTOCOL 4.2), fields in schema order. `Default` is the error shape:
/// `memberId` `""`, `status` `[]`, the task lists and the endpoint map null.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatResponse42 {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub error_message: Option<String>,
    pub member_id: String,
    pub member_epoch: i32,
    pub heartbeat_interval_ms: i32,
    /// Version 0's int32 field (always 0: no release sets it), version 1's int64 one (4.4).
    pub acceptable_recovery_lag: i64,
    pub task_offset_interval_ms: i32,
    pub status: Option<Vec<StatusJson>>,
    pub active_tasks: Option<Vec<TaskIdsJson>>,
    pub standby_tasks: Option<Vec<TaskIdsJson>>,
    pub warmup_tasks: Option<Vec<TaskIdsJson>>,
    /// Version 1 only (absent at version 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_description_required: Option<bool>,
    pub endpoint_information_epoch: i32,
    pub partitions_by_user_endpoint: Option<Vec<EndpointToPartitions42Json>>,
}

impl HeartbeatResponse42 {
    /// The fields version `v` adds, at the schema's defaults, for a response no step filled
    /// for v1 (an error, a leave): `AcceptableRecoveryLag` -1, `TopologyDescriptionRequired`
    /// false, as Kafka's fresh response object has them.
    pub fn with_version_defaults(&mut self, v: i16) {
        if v >= 1 && self.topology_description_required.is_none() {
            self.acceptable_recovery_lag = -1;
            self.topology_description_required = Some(false);
        }
    }
}

impl Default for HeartbeatResponse42 {
    fn default() -> Self {
        HeartbeatResponse42 {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: String::new(),
            member_epoch: 0,
            heartbeat_interval_ms: 0,
            acceptable_recovery_lag: 0,
            task_offset_interval_ms: 0,
            status: Some(Vec::new()),
            active_tasks: None,
            standby_tasks: None,
            warmup_tasks: None,
            topology_description_required: None,
            endpoint_information_epoch: 0,
            partitions_by_user_endpoint: None,
        }
    }
}

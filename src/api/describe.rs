//! `StreamsGroupDescribe` (PROTOCOL 3.14, 4.10).

// The fields are the describe schemas' (`kafka-schemas/StreamsGroupDescribe*.json`) in the
// contract's camelCase (DESIGN 3).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

use super::common::{AssignmentJson, EndpointJson, KeyValueJson, TaskOffsetJson};
use crate::topology::TopicInfo;

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeRequest {
    pub group_ids: Vec<String>,
    #[serde(default)]
    pub include_authorized_operations: bool,
    /// Version 1 (4.4): the description the store holds for each group.
    #[serde(default)]
    pub include_topology_description: bool,
    /// The input's `apiVersion` (not a request field).
    #[serde(skip)]
    pub api_version: i16,
}

/// A described group with each member replaced by `f(member)` (views extend members).
macro_rules! map_members {
    ($t:ident $(, $extra:ident)*) => {
        impl<M> $t<M> {
            /// The same group with every member mapped by `f`.
            pub fn map_members<N>(self, f: impl FnMut(M) -> N) -> $t<N> {
                $t {
                    error_code: self.error_code,
                    error_message: self.error_message,
                    group_id: self.group_id,
                    group_state: self.group_state,
                    group_epoch: self.group_epoch,
                    assignment_epoch: self.assignment_epoch,
                    topology: self.topology,
                    members: self.members.into_iter().map(f).collect(),
                    authorized_operations: self.authorized_operations,
                    $($extra: self.$extra,)*
                }
            }
        }
    };
}
map_members!(DescribedGroup);
map_members!(DescribedGroup42, v1);

/// A subtopology as describe shows it (no copartition groups), in schema order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedSubtopology {
    pub subtopology_id: String,
    pub source_topics: Vec<String>,
    pub repartition_sink_topics: Vec<String>,
    pub source_topic_regex: Vec<String>,
    pub state_changelog_topics: Vec<TopicInfo>,
    pub repartition_source_topics: Vec<TopicInfo>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedMember {
    pub member_id: String,
    pub member_epoch: i32,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub topology_id: String,
    pub process_id: String,
    pub client_tags: Vec<KeyValueJson>,
    pub task_offsets: Vec<TaskOffsetJson>,
    pub task_end_offsets: Vec<TaskOffsetJson>,
    pub assignment: AssignmentJson,
    pub target_assignment: AssignmentJson,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedGroup<M = DescribedMember> {
    pub error_code: i16,
    pub error_message: Option<String>,
    pub group_id: String,
    pub group_state: String,
    pub group_epoch: i32,
    pub assignment_epoch: i32,
    pub topology: Option<Vec<DescribedSubtopology>>,
    pub members: Vec<M>,
    pub authorized_operations: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeResponse {
    pub throttle_time_ms: i32,
    pub groups: Vec<DescribedGroup>,
}

/// A 4.2 subtopology as describe shows it (PROTOCOL 4.10), in schema order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedSubtopology42 {
    pub subtopology_id: String,
    pub source_topics: Vec<String>,
    pub repartition_sink_topics: Vec<String>,
    pub state_changelog_topics: Vec<TopicInfo>,
    pub repartition_source_topics: Vec<TopicInfo>,
}

/// The 4.2 describe topology `{epoch, subtopologies}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedTopology42 {
    pub epoch: i32,
    pub subtopologies: Option<Vec<DescribedSubtopology42>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedMember42 {
    pub member_id: String,
    pub member_epoch: i32,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub topology_epoch: i32,
    pub process_id: String,
    pub user_endpoint: Option<EndpointJson>,
    pub client_tags: Vec<KeyValueJson>,
    pub task_offsets: Vec<TaskOffsetJson>,
    pub task_end_offsets: Vec<TaskOffsetJson>,
    pub assignment: AssignmentJson,
    pub target_assignment: AssignmentJson,
    pub is_classic: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedGroup42<M = DescribedMember42> {
    pub error_code: i16,
    pub error_message: Option<String>,
    pub group_id: String,
    pub group_state: String,
    pub group_epoch: i32,
    pub assignment_epoch: i32,
    pub topology: Option<DescribedTopology42>,
    pub members: Vec<M>,
    pub authorized_operations: i32,
    /// The fields of version 1 (4.4), absent at version 0.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub v1: Option<DescribedGroupV1>,
}

/// `TopologyDescriptionStatus` (KIP-1331): what describe says of the stored description.
pub mod description_status {
    /// The request did not ask for it (or the group could not be described).
    pub const NOT_REQUESTED: i8 = 0;
    /// No description is stored for the group's topology epoch.
    pub const NOT_STORED: i8 = 1;
    /// The store failed (never for the in-memory store).
    pub const ERROR: i8 = 2;
    /// `topologyDescription` carries it.
    pub const AVAILABLE: i8 = 3;
}

/// A described group's version-1 fields, in schema order after `authorizedOperations`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedGroupV1 {
    pub topology_description: Option<TopologyDescriptionJson>,
    pub topology_description_status: i8,
    /// The assignor the next computation uses; null for a group that could not be described.
    pub assignor_name: Option<String>,
}

/// A topology's description as a client pushes it (`StreamsGroupTopologyDescriptionUpdate`)
/// and describe answers it, in the schemas' camelCase.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopologyDescriptionJson {
    pub subtopologies: Vec<DescriptionSubtopologyJson>,
    pub global_stores: Vec<DescriptionGlobalStoreJson>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescriptionSubtopologyJson {
    pub subtopology_id: String,
    pub nodes: Vec<DescriptionNodeJson>,
}

/// One node; `nodeType` 1 source, 2 processor, 3 sink.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescriptionNodeJson {
    pub name: String,
    pub node_type: i8,
    #[serde(default)]
    pub source_topics: Vec<String>,
    #[serde(default)]
    pub sink_topic: Option<String>,
    #[serde(default)]
    pub stores: Vec<String>,
    #[serde(default)]
    pub successors: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescriptionGlobalStoreJson {
    pub source: DescriptionNodeJson,
    pub processor: DescriptionNodeJson,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeResponse42 {
    pub throttle_time_ms: i32,
    pub groups: Vec<DescribedGroup42>,
}

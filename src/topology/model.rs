//! The topology as clients send it (`StreamsGroupInitialize.Topology`, the 4.2 heartbeat's
//! `Topology.Subtopologies`) and as the topology record stores it, field for field.

// The fields mirror the schemas' `Subtopology` and `TopicInfo` (`kafka-schemas/`).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

/// A topic-level configuration entry; the schema spells its fields in lower case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicConfig {
    pub key: String,
    pub value: String,
}

/// An internal topic (changelog or repartition) the application needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopicInfo {
    pub name: String,
    /// 0 = decided by the coordinator; always 0 for changelogs.
    #[serde(default)]
    pub partitions: i32,
    /// 0 or -1 = broker default.
    #[serde(default)]
    pub replication_factor: i16,
    #[serde(default)]
    pub topic_configs: Vec<TopicConfig>,
}

/// Inputs of one subtopology that must be copartitioned, as indices into its lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CopartitionGroup {
    #[serde(default)]
    pub source_topics: Vec<i16>,
    #[serde(default)]
    pub source_topic_regex: Vec<i16>,
    #[serde(default)]
    pub repartition_source_topics: Vec<i16>,
}

/// One connected part of a Streams topology.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Subtopology {
    pub subtopology_id: String,
    #[serde(default)]
    pub source_topics: Vec<String>,
    #[serde(default)]
    pub source_topic_regex: Vec<String>,
    #[serde(default)]
    pub state_changelog_topics: Vec<TopicInfo>,
    #[serde(default)]
    pub repartition_sink_topics: Vec<String>,
    #[serde(default)]
    pub repartition_source_topics: Vec<TopicInfo>,
    #[serde(default)]
    pub copartition_groups: Vec<CopartitionGroup>,
}

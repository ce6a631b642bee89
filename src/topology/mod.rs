//! Topology analysis: validation, configuration against topic metadata, internal topics and
//! topology ids (PROTOCOL 2.11, 7). Pure functions, no coordinator state. STUB: being written.

pub mod model;

use std::collections::{BTreeMap, BTreeSet};

pub use model::*;

/// A topic the host must create (DESIGN 3 `topicsToCreate`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicToCreate {
    pub name: String,
    pub num_partitions: i32,
    pub replication_factor: i16,
    pub configs: Vec<TopicConfigEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TopicConfigEntry {
    pub name: String,
    pub value: String,
}

/// A subtopology of a ready topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredSubtopology {
    pub subtopology_id: String,
    pub num_tasks: i32,
    /// At least one changelog topic.
    pub stateful: bool,
    /// External source topics and repartition source topics with their partition counts,
    /// sorted by name (used for IQ endpoint information).
    pub input_topics: Vec<(String, i32)>,
}

/// The result of `configure` (PROTOCOL 2.11 steps 1-7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Configuration {
    /// Step 7: subtopologies sorted by id.
    Ready(Vec<ConfiguredSubtopology>),
    /// Step 1: missing names and unmatched patterns, sorted, deduplicated.
    MissingSourceTopics(Vec<String>),
    /// Step 2 (or a copartition group with all counts undefined): `STREAMS_INVALID_TOPOLOGY`.
    Invalid(String),
    /// Step 3, external sources of a copartition group disagree (status 2 in the draft).
    SourceTopicsIncorrectlyPartitioned(String),
    /// Step 3, a repartition member conflicts (status 3 in the draft).
    InternalTopicsIncorrectlyPartitioned(String),
    /// Step 5: `(name, expected, found)` sorted by name.
    InternalTopicsMismatch(Vec<(String, i32, i32)>),
    /// Step 6: sorted by name.
    MissingInternalTopics(Vec<TopicToCreate>),
}

/// Structural validation V1-V10; the error is the V message.
pub fn validate(subtopologies: &[Subtopology]) -> Result<(), String> {
    let _ = subtopologies;
    unimplemented!()
}

/// Configuration against `view` (topic name -> partition count).
pub fn configure(subtopologies: &[Subtopology], view: &BTreeMap<String, i32>) -> Configuration {
    let _ = (subtopologies, view);
    unimplemented!()
}

/// Required topics (PROTOCOL 1.2): literal sources, existing topics matched by a regex,
/// repartition and changelog topics.
pub fn required_topics<'a>(
    subtopologies: &[Subtopology],
    existing: impl Iterator<Item = &'a str>,
) -> BTreeSet<String> {
    let _ = (subtopologies, existing.count());
    unimplemented!()
}

/// Whether `topic` is required by the topology or matched by one of its regexes.
pub fn concerns_topic(subtopologies: &[Subtopology], topic: &str) -> bool {
    let _ = (subtopologies, topic);
    unimplemented!()
}

/// The topology id: lowercase hex SHA-256 of the canonical form (README).
pub fn topology_id(subtopologies: &[Subtopology]) -> String {
    let _ = subtopologies;
    unimplemented!()
}

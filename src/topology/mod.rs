//! Topology analysis: validation, configuration against topic metadata, internal topics and
//! topology ids (PROTOCOL 2.11, 7). Pure functions, no coordinator state.
//!
//! - [`validate()`]: structural rules V1-V10, with Kafka's messages ([`check`] runs one rule).
//! - [`configure()`]: steps 1-7 against a topic view (name -> partition count): task counts,
//!   repartition partition counts, copartitioning, internal topics to create or that disagree,
//!   as one [`Configuration`] that each dialect maps to its errors or statuses.
//! - [`required_topics`], [`concerns_topic`]: which topics matter for a topic refresh.
//! - [`topology_id`]: the deterministic id of PROTOCOL 7 (recipe: `docs/topology-id.md`).
//!
//! Source-topic regexes match whole topic names and run on a linear-time engine
//! ([`patterns`]). Callers that configure the same topology repeatedly (every heartbeat) can
//! compile its regexes once with [`SourcePatterns::compile`] and use the `*_with` variants.
//!
//! ```
//! use std::collections::BTreeMap;
//! use streams_group_coordinator::topology::{self, Configuration, Subtopology, TopicInfo};
//!
//! let topology = vec![Subtopology {
//!     subtopology_id: "0".into(),
//!     source_topics: vec!["input".into()],
//!     state_changelog_topics: vec![TopicInfo { name: "app-store-changelog".into(), ..Default::default() }],
//!     ..Default::default()
//! }];
//! assert_eq!(topology::validate(&topology), Ok(()));
//! let view = BTreeMap::from([("input".to_string(), 6)]);
//! match topology::configure(&topology, &view) {
//!     Configuration::MissingInternalTopics(topics) => {
//!         assert_eq!(topics[0].name, "app-store-changelog");
//!         assert_eq!(topics[0].num_partitions, 6);
//!         assert_eq!(topics[0].replication_factor, -1);
//!     }
//!     other => panic!("unexpected {other:?}"),
//! }
//! assert_eq!(topology::topology_id(&topology).len(), 64);
//! ```

pub mod configure;
pub mod id;
pub mod limits;
pub mod model;
pub mod patterns;
pub mod validate;

use crate::ordered::Ordered;
use std::collections::{BTreeMap, BTreeSet};

pub use configure::configure_with;
pub use id::{canonical_form, TOPOLOGY_ID_VERSION};
pub use limits::{total_tasks, Limits};
pub use model::*;
pub use patterns::SourcePatterns;
pub use validate::{
    check, is_kafka_internal_topic, is_valid_topic_name, ValidationRule, KAFKA_INTERNAL_TOPICS,
};

/// A topic the host must create (DESIGN 3 `topicsToCreate`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicToCreate {
    /// The topic name.
    pub name: String,
    /// Its partition count.
    pub num_partitions: i32,
    /// Its replication factor (-1: the broker's default).
    pub replication_factor: i16,
    /// Its topic configs.
    pub configs: Vec<TopicConfigEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
/// One topic config.
pub struct TopicConfigEntry {
    /// The config name.
    pub name: String,
    /// The config value.
    pub value: String,
}

/// A subtopology of a ready topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredSubtopology {
    /// The subtopology.
    pub subtopology_id: String,
    /// Its task count.
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

/// Structural validation V1-V10 (in that order, each over the subtopologies in request order);
/// the error is the message of the first failing rule.
pub fn validate(subtopologies: &[Subtopology]) -> Result<(), String> {
    validate::validate(subtopologies)
}

/// Configuration against `view` (topic name -> partition count), PROTOCOL 2.11 steps 1-7.
/// Compiles the topology's regexes once; see [`configure_with`] to reuse them across calls.
///
/// Where the specification leaves room, this implementation decides:
/// - literal `sourceTopics` that are not repartition topics are always external sources (a
///   changelog listed as a source of the same subtopology is a "source table" and no internal
///   topic); topics matched by a regex exclude the topology's repartition topics and its
///   internal changelogs, and a regex is unmatched (step 1) when it matches no *other* topic;
/// - step 2 visits unknown repartition topics in name order, and a count decided in a pass is
///   known to the rest of that pass (as Kafka's loop), so the result depends on names only;
/// - a subtopology without any input (V3, unchecked by the 4.2 dialect) is *invalid* with the V3
///   message after step 3, where Kafka detects it;
/// - copartition groups run in topology order; a later group may override a non-fixed count set
///   by an earlier one;
/// - a name that is both a repartition topic and a changelog is a repartition topic; a changelog
///   listed by several subtopologies takes its count and settings from its first listing.
pub fn configure(subtopologies: &[Subtopology], view: &BTreeMap<String, i32>) -> Configuration {
    configure_with(subtopologies, &SourcePatterns::compile(subtopologies), view)
}

/// Required topics (PROTOCOL 1.2): literal sources, existing topics matched by a regex,
/// repartition and changelog topics.
pub fn required_topics<'a>(
    subtopologies: &[Subtopology],
    existing: impl Iterator<Item = &'a str>,
) -> BTreeSet<String> {
    required_topics_with(
        subtopologies,
        &SourcePatterns::compile(subtopologies),
        existing,
    )
}

/// [`required_topics`] with regexes compiled beforehand.
pub fn required_topics_with<'a>(
    subtopologies: &[Subtopology],
    patterns: &SourcePatterns,
    existing: impl Iterator<Item = &'a str>,
) -> BTreeSet<String> {
    let mut required: BTreeSet<String> = literal_topics(subtopologies).map(str::to_owned).to_set();
    required.extend(
        existing
            .filter(|t| !required.contains(*t) && patterns.any_match(t))
            .map(str::to_owned)
            .collect::<Vec<_>>(),
    );
    required
}

/// Whether `topic` is required by the topology or matched by one of its regexes (a change of
/// such a topic makes the group refresh-due, PROTOCOL 2.12). Compiles the regexes on every call;
/// a caller checking many topics should compile them once and use [`concerns_topic_with`].
pub fn concerns_topic(subtopologies: &[Subtopology], topic: &str) -> bool {
    literal_topics(subtopologies).any(|t| t == topic)
        || subtopologies
            .iter()
            .flat_map(|s| &s.source_topic_regex)
            .any(|p| patterns::compile_full_match(p).is_some_and(|r| r.is_match(topic)))
}

/// [`concerns_topic`] with regexes compiled beforehand.
pub fn concerns_topic_with(
    subtopologies: &[Subtopology],
    patterns: &SourcePatterns,
    topic: &str,
) -> bool {
    literal_topics(subtopologies).any(|t| t == topic) || patterns.any_match(topic)
}

/// Literal sources, repartition source topics and changelog topics.
fn literal_topics(subtopologies: &[Subtopology]) -> impl Iterator<Item = &str> {
    subtopologies.iter().flat_map(|s| {
        s.source_topics
            .iter()
            .map(String::as_str)
            .chain(s.repartition_source_topics.iter().map(|t| t.name.as_str()))
            .chain(s.state_changelog_topics.iter().map(|t| t.name.as_str()))
    })
}

/// The topology id: lowercase hex SHA-256 of the canonical form (`docs/topology-id.md`).
pub fn topology_id(subtopologies: &[Subtopology]) -> String {
    id::topology_id(subtopologies)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests;
#[cfg(test)]
mod tests;

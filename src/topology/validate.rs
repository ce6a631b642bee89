//! Structural validation V1-V10 (PROTOCOL 2.11): checks that depend on the topology only.
//!
//! The draft dialect runs all rules in order ([`validate()`]); the 4.2 dialect interleaves some of
//! them with its own request checks (PROTOCOL 4.3), so every rule can also run on its own
//! ([`check`]).

use std::collections::BTreeSet;

use super::model::{Subtopology, TopicInfo};
use super::patterns;
use crate::ordered::Ordered;

/// Kafka-internal topics a Streams topology may not use (V8).
pub const KAFKA_INTERNAL_TOPICS: [&str; 3] = [
    "__consumer_offsets",
    "__transaction_state",
    "__share_group_state",
];

/// Kafka's maximum topic name length.
pub const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// One structural rule of PROTOCOL 2.11, in the order [`validate()`] checks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValidationRule {
    /// V1: a blank subtopology id.
    BlankSubtopologyId,
    /// V2: two subtopologies with the same id.
    DuplicateSubtopologyId,
    /// V3: a subtopology without literal, regex or repartition sources.
    NoSourceTopics,
    /// V4: a changelog topic with a partition count.
    ChangelogPartitions,
    /// V5: a repartition source topic with a negative partition count.
    RepartitionPartitions,
    /// V6: a topic with a replication factor below -1.
    ReplicationFactor,
    /// V7: a name that is not a legal Kafka topic name.
    InvalidTopicNames,
    /// V8: a Kafka-internal topic.
    KafkaInternalTopics,
    /// V9: a copartition group index outside its list.
    CopartitionIndices,
    /// V10: a source topic regex that does not compile.
    InvalidRegex,
}

impl ValidationRule {
    /// All rules in the order of PROTOCOL 2.11 (V1 to V10).
    pub const ALL: [ValidationRule; 10] = [
        ValidationRule::BlankSubtopologyId,
        ValidationRule::DuplicateSubtopologyId,
        ValidationRule::NoSourceTopics,
        ValidationRule::ChangelogPartitions,
        ValidationRule::RepartitionPartitions,
        ValidationRule::ReplicationFactor,
        ValidationRule::InvalidTopicNames,
        ValidationRule::KafkaInternalTopics,
        ValidationRule::CopartitionIndices,
        ValidationRule::InvalidRegex,
    ];
}

/// Structural validation V1-V10; the error is the message of the first failing rule.
pub fn validate(subtopologies: &[Subtopology]) -> Result<(), String> {
    ValidationRule::ALL
        .iter()
        .try_for_each(|rule| check(subtopologies, *rule))
}

/// Checks one rule over the subtopologies in request order; the error is the rule's message.
pub fn check(subtopologies: &[Subtopology], rule: ValidationRule) -> Result<(), String> {
    match rule {
        ValidationRule::BlankSubtopologyId => check_blank_ids(subtopologies),
        ValidationRule::DuplicateSubtopologyId => check_duplicate_ids(subtopologies),
        ValidationRule::NoSourceTopics => check_sources(subtopologies),
        ValidationRule::ChangelogPartitions => check_changelog_partitions(subtopologies),
        ValidationRule::RepartitionPartitions => check_repartition_partitions(subtopologies),
        ValidationRule::ReplicationFactor => check_replication_factors(subtopologies),
        ValidationRule::InvalidTopicNames => check_topic_names(subtopologies),
        ValidationRule::KafkaInternalTopics => check_internal_topics(subtopologies),
        ValidationRule::CopartitionIndices => check_copartition_indices(subtopologies),
        ValidationRule::InvalidRegex => check_regexes(subtopologies),
    }
}

/// Kafka's topic name rule: 1 to 249 characters from `[a-zA-Z0-9._-]`, neither `.` nor `..`.
pub fn is_valid_topic_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOPIC_NAME_LENGTH
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

/// Whether `name` is one of [`KAFKA_INTERNAL_TOPICS`].
pub fn is_kafka_internal_topic(name: &str) -> bool {
    KAFKA_INTERNAL_TOPICS.contains(&name)
}

/// "Blank" per PROTOCOL 1.3: empty after trimming code points `<= U+0020` (Java `String.trim`).
fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c <= '\u{20}')
}

fn check_blank_ids(subtopologies: &[Subtopology]) -> Result<(), String> {
    match subtopologies.iter().any(|s| is_blank(&s.subtopology_id)) {
        true => Err("Subtopology id can't be empty.".to_owned()),
        false => Ok(()),
    }
}

fn check_duplicate_ids(subtopologies: &[Subtopology]) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for s in subtopologies {
        if !seen.insert(s.subtopology_id.as_str()) {
            return Err(format!("Duplicate subtopology id {}.", s.subtopology_id));
        }
    }
    Ok(())
}

fn check_sources(subtopologies: &[Subtopology]) -> Result<(), String> {
    match subtopologies.iter().find(|s| {
        s.source_topics.is_empty()
            && s.source_topic_regex.is_empty()
            && s.repartition_source_topics.is_empty()
    }) {
        Some(s) => Err(format!(
            "No source topics found for subtopology {}",
            s.subtopology_id
        )),
        None => Ok(()),
    }
}

fn check_changelog_partitions(subtopologies: &[Subtopology]) -> Result<(), String> {
    match subtopologies
        .iter()
        .flat_map(|s| &s.state_changelog_topics)
        .find(|t| t.partitions != 0)
    {
        Some(t) => Err(format!(
            "Changelog topic {} must have an undefined partition count, but it is set to {}.",
            t.name, t.partitions
        )),
        None => Ok(()),
    }
}

fn check_repartition_partitions(subtopologies: &[Subtopology]) -> Result<(), String> {
    match subtopologies
        .iter()
        .flat_map(|s| &s.repartition_source_topics)
        .find(|t| t.partitions < 0)
    {
        Some(t) => Err(format!(
            "Repartition topic {} must have a partition count greater than or equal to 0, but \
             it is set to {}.",
            t.name, t.partitions
        )),
        None => Ok(()),
    }
}

/// Within a subtopology, changelog topics come before repartition source topics (the order of
/// the fields in the schema).
fn topic_infos(s: &Subtopology) -> impl Iterator<Item = &TopicInfo> {
    s.state_changelog_topics
        .iter()
        .chain(&s.repartition_source_topics)
}

fn check_replication_factors(subtopologies: &[Subtopology]) -> Result<(), String> {
    match subtopologies
        .iter()
        .flat_map(topic_infos)
        .find(|t| t.replication_factor < -1)
    {
        Some(t) => Err(format!(
            "Topic {} must have a replication factor greater than or equal to -1, but it is set \
             to {}.",
            t.name, t.replication_factor
        )),
        None => Ok(()),
    }
}

/// Every literal topic name of the topology (sources, repartition sinks and sources, changelogs).
fn topic_names(subtopologies: &[Subtopology]) -> impl Iterator<Item = &str> {
    subtopologies.iter().flat_map(|s| {
        s.source_topics
            .iter()
            .chain(&s.repartition_sink_topics)
            .map(String::as_str)
            .chain(s.repartition_source_topics.iter().map(|t| t.name.as_str()))
            .chain(s.state_changelog_topics.iter().map(|t| t.name.as_str()))
    })
}

fn names_failing(subtopologies: &[Subtopology], failing: impl Fn(&str) -> bool) -> Option<String> {
    let names: BTreeSet<&str> = topic_names(subtopologies).filter(|n| failing(n)).to_set();
    match names.is_empty() {
        true => None,
        false => Some(names.into_iter().collect::<Vec<_>>().join(", ")),
    }
}

fn check_topic_names(subtopologies: &[Subtopology]) -> Result<(), String> {
    match names_failing(subtopologies, |n| !is_valid_topic_name(n)) {
        Some(list) => Err(format!("Topic names {list} are not valid topic names.")),
        None => Ok(()),
    }
}

fn check_internal_topics(subtopologies: &[Subtopology]) -> Result<(), String> {
    match names_failing(subtopologies, is_kafka_internal_topic) {
        Some(list) => Err(format!(
            "Use of Kafka internal topics {list} in a Kafka Streams topology is prohibited."
        )),
        None => Ok(()),
    }
}

fn check_copartition_indices(subtopologies: &[Subtopology]) -> Result<(), String> {
    for s in subtopologies {
        for (k, group) in s.copartition_groups.iter().enumerate() {
            let lists: [(&str, &[i16], usize); 3] = [
                ("sourceTopics", &group.source_topics, s.source_topics.len()),
                (
                    "sourceTopicRegex",
                    &group.source_topic_regex,
                    s.source_topic_regex.len(),
                ),
                (
                    "repartitionSourceTopics",
                    &group.repartition_source_topics,
                    s.repartition_source_topics.len(),
                ),
            ];
            for (list, indices, len) in lists {
                if let Some(i) = indices.iter().find(|&&i| index(i, len).is_none()) {
                    return Err(format!(
                        "Copartition group {k} of subtopology {} refers to a missing {list} \
                         index {i}.",
                        s.subtopology_id
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A copartition index as a position in a list of `len` elements, if it is one.
pub(crate) fn index(i: i16, len: usize) -> Option<usize> {
    usize::try_from(i).ok().filter(|&i| i < len)
}

fn check_regexes(subtopologies: &[Subtopology]) -> Result<(), String> {
    for s in subtopologies {
        if let Some(r) = s
            .source_topic_regex
            .iter()
            .find(|r| !patterns::is_valid_pattern(r))
        {
            return Err(format!(
                "Source topic regex {r} of subtopology {} is not a valid regular expression.",
                s.subtopology_id
            ));
        }
    }
    Ok(())
}

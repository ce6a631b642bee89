//! Topology ids (PROTOCOL 7): lowercase hex SHA-256 of a canonical byte form. The recipe is
//! documented for other languages in `docs/topology-id.md`; changing anything here changes every
//! id and must come with a new version prefix.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use super::model::{Subtopology, TopicConfig, TopicInfo};
use super::validate::index;
use crate::ordered::{self, Ordered};

/// The first string of every canonical form; names the recipe.
pub const TOPOLOGY_ID_VERSION: &str = "sgc-topology-v1";

/// The topology id: lowercase hex SHA-256 of [`canonical_form`] (64 characters).
pub fn topology_id(subtopologies: &[Subtopology]) -> String {
    let digest = Sha256::digest(canonical_form(subtopologies));
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(hex_digit(b >> 4));
        hex.push(hex_digit(b & 0x0f));
    }
    hex
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble & 0x0f)])
}

/// The canonical byte form hashed by [`topology_id`] (`docs/topology-id.md`):
///
/// ```text
/// topology     = str(TOPOLOGY_ID_VERSION) u32(n) subtopology*n   (sorted by id, then bytes)
/// subtopology  = str(subtopologyId) strset(sourceTopics) strset(sourceTopicRegex)
///                infos(stateChangelogTopics) strset(repartitionSinkTopics)
///                infos(repartitionSourceTopics) groups(copartitionGroups)
/// strset       = u32(n) str*n          (sorted, duplicates removed)
/// infos        = u32(n) info*n         (sorted by name, partitions, replicationFactor, configs)
/// info         = str(name) i32(partitions) i16(replicationFactor, 0 written as -1)
///                u32(n) (str(key) str(value))*n   (sorted by key, then value)
/// groups       = u32(n) (strset(topic names) strset(regex patterns))*n  (sorted, deduplicated)
/// str          = u32(UTF-8 length) UTF-8 bytes;  integers big-endian two's complement
/// ```
pub fn canonical_form(subtopologies: &[Subtopology]) -> Vec<u8> {
    let mut sorted: Vec<&Subtopology> = subtopologies.iter().collect();
    ordered::sort_by(&mut sorted, |a, b| a.subtopology_id.cmp(&b.subtopology_id));
    let mut out = Vec::with_capacity(64 + 256 * sorted.len());
    put_str(&mut out, TOPOLOGY_ID_VERSION);
    put_len(&mut out, sorted.len());
    for same_id in sorted.chunk_by(|a, b| a.subtopology_id == b.subtopology_id) {
        if let [s] = same_id {
            encode_subtopology(&mut out, s);
        } else {
            // Duplicate ids (an invalid topology, V2) are ordered by their encodings.
            let mut encoded: Vec<Vec<u8>> = same_id
                .iter()
                .map(|s| {
                    let mut bytes = Vec::new();
                    encode_subtopology(&mut bytes, s);
                    bytes
                })
                .collect();
            ordered::sort(&mut encoded);
            encoded
                .iter()
                .for_each(|bytes| out.extend_from_slice(bytes));
        }
    }
    out
}

fn encode_subtopology(out: &mut Vec<u8>, s: &Subtopology) {
    put_str(out, &s.subtopology_id);
    put_str_set(out, s.source_topics.iter().map(String::as_str));
    put_str_set(out, s.source_topic_regex.iter().map(String::as_str));
    put_infos(out, &s.state_changelog_topics);
    put_str_set(out, s.repartition_sink_topics.iter().map(String::as_str));
    put_infos(out, &s.repartition_source_topics);

    // A group is the set of topic names its indices resolve to (source and repartition source
    // indices alike) and the set of regex patterns; indices outside their list (V9) are skipped.
    let groups: BTreeSet<(BTreeSet<&str>, BTreeSet<&str>)> = s
        .copartition_groups
        .iter()
        .map(|g| {
            let sources = g.source_topics.iter().filter_map(|&i| {
                index(i, s.source_topics.len())
                    .and_then(|i| s.source_topics.get(i))
                    .map(String::as_str)
            });
            let repartition = g.repartition_source_topics.iter().filter_map(|&i| {
                index(i, s.repartition_source_topics.len())
                    .and_then(|i| s.repartition_source_topics.get(i))
                    .map(|t| t.name.as_str())
            });
            let regexes = g.source_topic_regex.iter().filter_map(|&i| {
                index(i, s.source_topic_regex.len())
                    .and_then(|i| s.source_topic_regex.get(i))
                    .map(String::as_str)
            });
            (sources.chain(repartition).to_set(), regexes.to_set())
        })
        .to_set();
    put_len(out, groups.len());
    for (topics, regexes) in groups {
        put_str_set(out, topics.into_iter());
        put_str_set(out, regexes.into_iter());
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    // Lengths beyond u32 cannot come from a Kafka request (arrays and strings are int32-sized);
    // saturating keeps this total without a panic.
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_str_set<'s>(out: &mut Vec<u8>, items: impl Iterator<Item = &'s str>) {
    let mut set: Vec<&str> = items.collect();
    ordered::sort(&mut set);
    set.dedup();
    put_len(out, set.len());
    for s in set {
        put_str(out, s);
    }
}

/// The sort key of a `TopicInfo`: name, partitions, normalized replication factor, sorted
/// configs.
type InfoKey<'t> = (&'t str, i32, i16, Vec<(&'t str, &'t str)>);

fn info_key(t: &TopicInfo) -> InfoKey<'_> {
    let mut configs: Vec<(&str, &str)> = t
        .topic_configs
        .iter()
        .map(|TopicConfig { key, value }| (key.as_str(), value.as_str()))
        .collect();
    ordered::sort(&mut configs);
    let replication_factor = match t.replication_factor {
        0 => -1,
        r => r,
    };
    (t.name.as_str(), t.partitions, replication_factor, configs)
}

fn put_infos(out: &mut Vec<u8>, infos: &[TopicInfo]) {
    let mut keys: Vec<InfoKey<'_>> = infos.iter().map(info_key).collect();
    ordered::sort(&mut keys);
    put_len(out, keys.len());
    for (name, partitions, replication_factor, configs) in keys {
        put_str(out, name);
        out.extend_from_slice(&partitions.to_be_bytes());
        out.extend_from_slice(&replication_factor.to_be_bytes());
        put_len(out, configs.len());
        for (key, value) in configs {
            put_str(out, key);
            put_str(out, value);
        }
    }
}

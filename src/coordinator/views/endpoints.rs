//! The endpoint-to-partitions maps of Interactive Queries (PROTOCOL 2.13, 3.12, 4.9).

use std::collections::{BTreeMap, BTreeSet};

use crate::api::{
    EndpointJson, EndpointToPartitions42Json, EndpointToPartitionsJson, TopicPartitionJson,
};
use crate::group::Group;
use crate::ordered::Ordered;
use crate::tasks::TaskMap;
use crate::topology::Configuration;

/// Whether no member has an endpoint: the count `apply` keeps (checked against a scan in debug
/// builds), so that a group without Interactive Queries pays nothing for the map.
fn no_endpoints(group: &Group) -> bool {
    debug_assert_eq!(
        group.with_endpoint,
        group
            .members
            .values()
            .filter(|m| m.endpoint().is_some())
            .count(),
        "the endpoint count of group {} drifted",
        group.group_id
    );
    group.with_endpoint == 0
}

/// PROTOCOL 3.12: partitions of the active tasks per distinct endpoint.
pub(crate) fn draft(group: &Group) -> Vec<EndpointToPartitionsJson> {
    if no_endpoints(group) {
        return Vec::new();
    }
    let inputs = subtopology_inputs(group.configured());
    let mut by_endpoint: BTreeMap<(String, u16), BTreeMap<String, BTreeSet<i32>>> = BTreeMap::new();
    for m in group.members.values() {
        let Some(ep) = m.endpoint() else { continue };
        let topics = by_endpoint.entry((ep.host.clone(), ep.port)).or_default();
        task_partitions(&inputs, &m.assigned.active, topics);
    }
    by_endpoint
        .into_iter()
        .map(|((host, port), topics)| EndpointToPartitionsJson {
            user_endpoint: EndpointJson { host, port },
            partitions: topic_partitions_json(topics),
        })
        .collect()
}

/// PROTOCOL 4.9, as Kafka builds it: one entry per member with an endpoint, the other members
/// first in `order` (the group's member map order) and the heartbeating member last. Each lists
/// its active, then its standby tasks' input partitions: for each subtopology (in the order of a
/// Java `HashMap` of the member's tasks), each input topic (a `HashSet` of the source and
/// repartition source topics) with the task partitions, in `HashMap` order of the partitions.
pub(crate) fn kafka42<'g>(
    group: &'g Group,
    order: impl Iterator<Item = &'g str>,
    updated: &'g str,
) -> Vec<EndpointToPartitions42Json> {
    if no_endpoints(group) {
        return Vec::new();
    }
    let inputs = subtopology_inputs(group.configured());
    order
        .filter(|id| *id != updated)
        .chain(std::iter::once(updated))
        .filter_map(|id| {
            let m = group.members.get(id)?;
            let ep = m.endpoint()?;
            Some(EndpointToPartitions42Json {
                user_endpoint: EndpointJson::from(ep),
                active_partitions: java_topic_partitions(&inputs, &m.assigned.active),
                standby_partitions: java_topic_partitions(&inputs, &m.assigned.standby),
            })
        })
        .collect()
}

/// The topic partitions of `tasks` in the order Kafka 4.2 lists them.
fn java_topic_partitions(
    inputs: &BTreeMap<&str, &[(String, i32)]>,
    tasks: &TaskMap,
) -> Vec<TopicPartitionJson> {
    let subs: Vec<&str> = tasks.keys().collect();
    let mut out = Vec::new();
    for sub in crate::java::hash_map_keys(subs) {
        let (Some(topics), Some(parts)) = (inputs.get(sub), tasks.get(sub)) else {
            continue;
        };
        let names: Vec<&str> = topics.iter().map(|(t, _)| t.as_str()).collect();
        let java_parts = crate::java::hash_map_keys(parts.iter().copied());
        for name in crate::java::hash_map_keys(names) {
            let Some(&(_, count)) = topics.iter().find(|(t, _)| t == name) else {
                continue;
            };
            let n = usize::try_from(count).unwrap_or(0);
            let partitions = if n < java_parts.len() {
                let mut sorted = java_parts.clone();
                sorted.sort_unstable();
                sorted.truncate(n);
                sorted
            } else {
                java_parts.clone()
            };
            out.push(TopicPartitionJson {
                topic: name.to_string(),
                partitions,
            });
        }
    }
    out
}

/// The subtopologies of a ready configuration with their input topics and partition counts
/// (external sources and repartition sources), for the IQ endpoint maps (PROTOCOL 2.13).
pub(crate) fn subtopology_inputs(
    configured: Option<&Configuration>,
) -> BTreeMap<&str, &[(String, i32)]> {
    match configured {
        Some(Configuration::Ready(subs)) => subs
            .iter()
            .map(|s| (s.subtopology_id.as_str(), s.input_topics.as_slice()))
            .to_map(),
        _ => BTreeMap::new(),
    }
}

/// Adds the partitions of `tasks` to `topics`: for task `(s, p)`, partition `p` of every input
/// topic of `s` that has more than `p` partitions (KAFKA-20885).
pub(crate) fn task_partitions(
    inputs: &BTreeMap<&str, &[(String, i32)]>,
    tasks: &TaskMap,
    topics: &mut BTreeMap<String, BTreeSet<i32>>,
) {
    for (sub, parts) in tasks {
        let Some(inputs) = inputs.get(sub) else {
            continue;
        };
        for (topic, count) in inputs.iter() {
            for p in parts.iter().filter(|p| **p < *count) {
                topics.entry(topic.clone()).or_default().insert(*p);
            }
        }
    }
}
/// `[TopicPartition]` sorted by topic, partitions ascending.
pub(crate) fn topic_partitions_json(
    topics: BTreeMap<String, BTreeSet<i32>>,
) -> Vec<TopicPartitionJson> {
    topics
        .into_iter()
        .map(|(topic, ps)| TopicPartitionJson {
            topic,
            partitions: ps.into_iter().collect(),
        })
        .collect()
}

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
///
/// With `v4_4` (Kafka 4.4, KAFKA-20899, KAFKA-20868, KAFKA-20665) the standby partitions include
/// the warm-up tasks' (a client runs a warm-up task as a standby), each topic lists only the
/// partitions it has, ascending, and a topic with none is left out.
pub(crate) fn kafka42<'g>(
    group: &'g Group,
    order: impl Iterator<Item = &'g str>,
    updated: &'g str,
    v4_4: bool,
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
            let (active, standby) = if v4_4 {
                let warmup = (!m.assigned.warmup.is_empty()).then_some(&m.assigned.warmup);
                (
                    java_topic_partitions_44(&inputs, &m.assigned.active, None),
                    java_topic_partitions_44(&inputs, &m.assigned.standby, warmup),
                )
            } else {
                (
                    java_topic_partitions(&inputs, &m.assigned.active),
                    java_topic_partitions(&inputs, &m.assigned.standby),
                )
            };
            Some(EndpointToPartitions42Json {
                user_endpoint: EndpointJson::from(ep),
                active_partitions: active,
                standby_partitions: standby,
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

/// The topic partitions of `tasks` (merged with `also`, as a Java `HashMap` filled with the
/// first's entries, then the second's) in the order Kafka 4.4 lists them: subtopologies in that
/// map's order, each input topic in `HashSet` order with the task partitions it has, sorted;
/// a topic with none left out.
fn java_topic_partitions_44(
    inputs: &BTreeMap<&str, &[(String, i32)]>,
    tasks: &TaskMap,
    also: Option<&TaskMap>,
) -> Vec<TopicPartitionJson> {
    let mut subs: Vec<&str> = crate::java::hash_map_keys(tasks.keys());
    if let Some(more) = also {
        subs.extend(more.keys().filter(|s| tasks.get(s).is_none()));
        subs = crate::java::hash_map_keys(subs);
    }
    let mut out = Vec::new();
    for sub in subs {
        let Some(topics) = inputs.get(sub) else {
            continue;
        };
        let mut parts: Vec<i32> = tasks.get(sub).unwrap_or_default().to_vec();
        if let Some(more) = also.and_then(|m| m.get(sub)) {
            parts.extend_from_slice(more);
        }
        parts.sort_unstable();
        parts.dedup();
        let names: Vec<&str> = topics.iter().map(|(t, _)| t.as_str()).collect();
        for name in crate::java::hash_map_keys(names) {
            let Some(&(_, count)) = topics.iter().find(|(t, _)| t == name) else {
                continue;
            };
            let partitions: Vec<i32> = parts.iter().copied().filter(|p| *p < count).collect();
            if !partitions.is_empty() {
                out.push(TopicPartitionJson {
                    topic: name.to_string(),
                    partitions,
                });
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(out: &[TopicPartitionJson]) -> Vec<(&str, Vec<i32>)> {
        out.iter()
            .map(|t| (t.topic.as_str(), t.partitions.clone()))
            .collect()
    }

    #[test]
    fn kafka_4_4_merges_warmups_into_standbys_and_lists_only_partitions_a_topic_has() {
        let a = [("a".to_string(), 4), ("b".to_string(), 2)];
        let c = [("c".to_string(), 8)];
        let inputs: BTreeMap<&str, &[(String, i32)]> = [("0", &a[..]), ("1", &c[..])].into();
        let standby: TaskMap = [("0", vec![3])].into_iter().collect();
        let warmup: TaskMap = [("0", vec![1]), ("1", vec![5])].into_iter().collect();
        let listed = java_topic_partitions_44(&inputs, &standby, Some(&warmup));
        assert_eq!(
            names(&listed),
            [("a", vec![1, 3]), ("b", vec![1]), ("c", vec![5])]
        );
        // Task 3 alone: b has no partition 3, so it is left out (4.2 would list b with [3]).
        let alone = java_topic_partitions_44(&inputs, &standby, None);
        assert_eq!(names(&alone), [("a", vec![3])]);
        assert_eq!(
            names(&java_topic_partitions(&inputs, &standby)),
            [("a", vec![3]), ("b", vec![3])]
        );
    }
}

//! `StreamsGroupDescribe` in both dialects' shapes (PROTOCOL 3.15, 4.10).

use std::collections::BTreeMap;

use crate::api::{
    description_status, AssignmentJson, DescribedGroup, DescribedGroup42, DescribedGroupV1,
    DescribedMember, DescribedMember42, DescribedSubtopology, DescribedSubtopology42,
    DescribedTopology42, EndpointJson, KeyValueJson, TaskOffsetJson,
};
use crate::coordinator::Coordinator;
use crate::error::ErrorCode;
use crate::group::Group;
use crate::offsets::Offsets;
use crate::ordered::{self, Ordered};
use crate::topology::{self, Configuration, Subtopology, TopicConfig, TopicInfo};

/// One entry per requested group id, in request order: a blank id is `INVALID_GROUP_ID`, an
/// unknown one `GROUP_ID_NOT_FOUND` (Kafka's "not a streams group" for the simple classic
/// group of an admin's commit), any other the group as `found` describes it.
pub(crate) fn entries<'a, G>(
    groups: &BTreeMap<String, Group>,
    offsets: &Offsets,
    group_ids: impl IntoIterator<Item = &'a String>,
    refused: impl Fn(&str) -> bool,
    found: impl Fn(&Group) -> G,
    error: impl Fn(&str, ErrorCode, String) -> G,
) -> Vec<G> {
    group_ids
        .into_iter()
        .map(|gid| {
            if refused(gid) {
                return error(
                    gid,
                    ErrorCode::InvalidGroupId,
                    "The group id can't be empty.".into(),
                );
            }
            match groups.get(gid) {
                None if offsets.is_simple_group(gid) => error(
                    gid,
                    ErrorCode::GroupIdNotFound,
                    format!("Group {gid} is not a streams group."),
                ),
                None => error(
                    gid,
                    ErrorCode::GroupIdNotFound,
                    format!("Group {gid} not found."),
                ),
                Some(g) => found(g),
            }
        })
        .collect()
}

/// A draft describe error entry (24, 69).
pub(crate) fn draft_error(group_id: &str, code: ErrorCode, message: String) -> DescribedGroup {
    DescribedGroup {
        error_code: code.code(),
        error_message: Some(message),
        group_id: group_id.to_string(),
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// A group as the draft describe shows it.
pub(crate) fn draft_group(g: &Group) -> DescribedGroup {
    let topology = g.topology.as_ref().map(|t| {
        t.subtopologies
            .iter()
            .map(|s| DescribedSubtopology {
                subtopology_id: s.subtopology_id.clone(),
                source_topics: s.source_topics.clone(),
                repartition_sink_topics: s.repartition_sink_topics.clone(),
                source_topic_regex: s.source_topic_regex.clone(),
                state_changelog_topics: s.state_changelog_topics.clone(),
                repartition_source_topics: s.repartition_source_topics.clone(),
            })
            .collect()
    });
    let members = g
        .members
        .values()
        .map(|m| DescribedMember {
            member_id: m.member_id.clone(),
            member_epoch: m.member_epoch,
            instance_id: m.metadata.instance_id.clone(),
            rack_id: m.metadata.rack_id.clone(),
            client_id: m.metadata.client_id.clone(),
            client_host: m.metadata.client_host.clone(),
            topology_id: m.metadata.topology_id.clone(),
            process_id: m.metadata.process_id.clone(),
            client_tags: client_tags(m),
            task_offsets: task_offsets_json(&m.soft.task_offsets),
            task_end_offsets: task_offsets_json(&m.soft.task_end_offsets),
            assignment: AssignmentJson::from(&m.assigned),
            target_assignment: target_of(g, m),
        })
        .collect();
    DescribedGroup {
        error_code: 0,
        error_message: None,
        group_id: g.group_id.clone(),
        group_state: g.state().display().to_string(),
        group_epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        topology,
        members,
        authorized_operations: i32::MIN,
    }
}

/// A group as the 4.2 describe shows it.
pub(crate) fn kafka42_group(g: &Group) -> DescribedGroup42 {
    let topology = Some(match &g.topology {
        None => DescribedTopology42 {
            epoch: -1,
            subtopologies: None,
        },
        Some(t) => DescribedTopology42 {
            epoch: t.epoch,
            subtopologies: Some(match g.stored_configuration() {
                Some(Configuration::Ready(configured)) => {
                    configured_subtopologies(&t.subtopologies, configured)
                }
                _ => t.subtopologies.iter().map(stored_subtopology).collect(),
            }),
        },
    });
    // Kafka lists the members in its member map's order.
    let members = g
        .java_member_order()
        .into_iter()
        .filter_map(|id| g.members.get(id))
        .map(|m| DescribedMember42 {
            member_id: m.member_id.clone(),
            member_epoch: m.member_epoch,
            instance_id: m.metadata.instance_id.clone(),
            rack_id: m.metadata.rack_id.clone(),
            client_id: m.metadata.client_id.clone(),
            client_host: m.metadata.client_host.clone(),
            topology_epoch: m.metadata.topology_epoch,
            process_id: m.metadata.process_id.clone(),
            user_endpoint: m.endpoint().map(EndpointJson::from),
            client_tags: client_tags(m),
            task_offsets: task_offsets_json(&m.soft.task_offsets),
            task_end_offsets: task_offsets_json(&m.soft.task_end_offsets),
            assignment: AssignmentJson::from(&m.assigned),
            target_assignment: target_of(g, m),
            is_classic: false,
        })
        .collect();
    DescribedGroup42 {
        error_code: 0,
        error_message: None,
        group_id: g.group_id.clone(),
        group_state: g.state().display().to_string(),
        group_epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        topology,
        members,
        authorized_operations: i32::MIN,
        v1: None,
    }
}

/// 4.4's version-1 fields of a described group: the assignor of the next computation, and the
/// stored topology description when asked for (a group that could not be described gets the
/// defaults: no assignor, `NOT_REQUESTED`).
pub(crate) fn kafka44_v1(
    c: &Coordinator,
    g: &DescribedGroup42,
    include_description: bool,
) -> DescribedGroupV1 {
    if g.error_code != 0 {
        return DescribedGroupV1::default();
    }
    let (status, description) = if include_description {
        stored_description(c, g)
    } else {
        (description_status::NOT_REQUESTED, None)
    };
    DescribedGroupV1 {
        topology_description: description,
        topology_description_status: status,
        assignor_name: Some(c.config().assignor.name().to_string()),
    }
}

/// What describe says of a group's stored description (`attachTopologyDescriptions`): only a
/// description stored at the group's current topology epoch is available; no plugin, no
/// topology, an uncertain or older stored epoch, or a store that lost it: not stored.
fn stored_description(
    c: &Coordinator,
    g: &DescribedGroup42,
) -> (i8, Option<crate::api::TopologyDescriptionJson>) {
    let not_stored = (description_status::NOT_STORED, None);
    let Some(epoch) = g.topology.as_ref().map(|t| t.epoch) else {
        return not_stored;
    };
    let stored = c
        .group(&g.group_id)
        .and_then(Group::kafka42)
        .map_or(-1, |k| k.stored_description_topology_epoch);
    if stored < 0 || stored != epoch {
        return not_stored;
    }
    match c.stored_topology_description(&g.group_id, epoch) {
        Some(d) => (description_status::AVAILABLE, Some(d.clone())),
        None => not_stored,
    }
}

/// A describe error entry (24, 69).
pub(crate) fn kafka42_error(group_id: &str, code: ErrorCode, message: String) -> DescribedGroup42 {
    DescribedGroup42 {
        error_code: code.code(),
        // Kafka's invalid group id carries no message.
        error_message: (code != ErrorCode::InvalidGroupId).then_some(message),
        group_id: group_id.to_string(),
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// A stored subtopology as the describe schema has it (no regexes, no copartition groups).
fn stored_subtopology(s: &Subtopology) -> DescribedSubtopology42 {
    DescribedSubtopology42 {
        subtopology_id: s.subtopology_id.clone(),
        source_topics: s.source_topics.clone(),
        repartition_sink_topics: s.repartition_sink_topics.clone(),
        state_changelog_topics: s.state_changelog_topics.clone(),
        repartition_source_topics: s.repartition_source_topics.clone(),
    }
}

/// The configured subtopologies (KAFKA-19730): sorted by id, topics sorted by name and
/// deduplicated, repartition source topics with their decided partition counts, changelogs with
/// the subtopology's task count, topic configs sorted by key.
fn configured_subtopologies(
    stored: &[Subtopology],
    configured: &[topology::ConfiguredSubtopology],
) -> Vec<DescribedSubtopology42> {
    configured
        .iter()
        .filter_map(|c| {
            let s = stored
                .iter()
                .find(|s| s.subtopology_id == c.subtopology_id)?;
            let counts: BTreeMap<&str, i32> = c
                .input_topics
                .iter()
                .map(|(name, n)| (name.as_str(), *n))
                .to_map();
            let sorted = |names: &[String]| -> Vec<String> {
                names.iter().cloned().to_set().into_iter().collect()
            };
            let infos = |list: &[TopicInfo], count: &dyn Fn(&TopicInfo) -> i32| -> Vec<TopicInfo> {
                let mut by_name: BTreeMap<&str, TopicInfo> = BTreeMap::new();
                for t in list {
                    by_name.entry(t.name.as_str()).or_insert_with(|| {
                        let mut configs: Vec<TopicConfig> = t.topic_configs.clone();
                        ordered::sort(&mut configs);
                        TopicInfo {
                            name: t.name.clone(),
                            partitions: count(t),
                            replication_factor: t.replication_factor,
                            topic_configs: configs,
                        }
                    });
                }
                by_name.into_values().collect()
            };
            Some(DescribedSubtopology42 {
                subtopology_id: c.subtopology_id.clone(),
                source_topics: sorted(&s.source_topics),
                repartition_sink_topics: sorted(&s.repartition_sink_topics),
                state_changelog_topics: infos(&s.state_changelog_topics, &|_| c.num_tasks),
                repartition_source_topics: infos(&s.repartition_source_topics, &|t| {
                    counts.get(t.name.as_str()).copied().unwrap_or(t.partitions)
                }),
            })
        })
        .collect()
}
/// Last reported task offsets (soft) as describe shows them; `[]` when none were reported.
pub(crate) fn task_offsets_json(o: &Option<Vec<crate::group::TaskOffset>>) -> Vec<TaskOffsetJson> {
    o.iter()
        .flatten()
        .map(|t| TaskOffsetJson {
            subtopology_id: t.subtopology_id.clone(),
            partition: t.partition,
            offset: t.offset,
        })
        .collect()
}

fn client_tags(m: &crate::group::Member) -> Vec<KeyValueJson> {
    m.metadata
        .client_tags
        .iter()
        .map(KeyValueJson::from)
        .collect()
}

/// The member's target as describe shows it (empty when it has none).
fn target_of(g: &Group, m: &crate::group::Member) -> AssignmentJson {
    g.targets
        .get(&m.member_id)
        .map(AssignmentJson::from)
        .unwrap_or_default()
}

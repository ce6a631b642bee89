//! Target assignment computation (PROTOCOL 2.7) and the topic view (2.12).

use std::collections::BTreeMap;

use super::{Batch, Coordinator};
use crate::api::Explain;
use crate::assignor::{
    tasks_moved, tasks_reassigned, GroupSpec, MemberSpec, StickyAssignor, SubtopologySpec,
    TaskAssignor,
};
use crate::config::AssignorKind;
use crate::error::{ErrorCode, ProtocolError};
use crate::records::{
    MemberMetadataValue, PartitionMetadataValue, PartitionRacks, Record, RecordKey, RecordValue,
    TargetAssignmentMemberValue, TargetAssignmentMetadataValue, TopicMetadata,
};
use crate::tasks::Assignment;
use crate::topology::{self, Configuration, Subtopology};

impl Coordinator {
    /// Computes every member's new target for `epoch`, writes the target member records of the
    /// members whose target changed (or who had none) and the target metadata record, and
    /// returns the new targets. `members` is the member list as updated by the operation.
    pub(crate) fn compute_targets(
        &self,
        group_id: &str,
        members: &BTreeMap<String, &MemberMetadataValue>,
        previous: &BTreeMap<String, Assignment>,
        configured: Option<&Configuration>,
        epoch: i32,
        batch: &mut Batch,
    ) -> Result<BTreeMap<String, Assignment>, ProtocolError> {
        let new_targets: BTreeMap<String, Assignment> = match (self.config.assignor, configured) {
            (AssignorKind::Manual, _) => members
                .keys()
                .map(|id| (id.clone(), previous.get(id).cloned().unwrap_or_default()))
                .collect(),
            (AssignorKind::Sticky, Some(Configuration::Ready(subs))) => {
                let specs: Vec<MemberSpec> = members
                    .iter()
                    .map(|(id, md)| MemberSpec {
                        member_id: id.clone(),
                        process_id: md.process_id.clone(),
                        instance_id: md.instance_id.clone(),
                        rack_id: md.rack_id.clone(),
                        client_tags: md
                            .client_tags
                            .iter()
                            .map(|kv| (kv.key.clone(), kv.value.clone()))
                            .collect(),
                        previous: previous.get(id).cloned().unwrap_or_default(),
                    })
                    .collect();
                let subtopologies: Vec<SubtopologySpec> = subs
                    .iter()
                    .map(|s| SubtopologySpec {
                        subtopology_id: s.subtopology_id.clone(),
                        num_tasks: s.num_tasks,
                        stateful: s.stateful,
                    })
                    .collect();
                let spec = GroupSpec {
                    members: &specs,
                    subtopologies: &subtopologies,
                    num_standby_replicas: self.config.num_standby_replicas,
                };
                let mut result = StickyAssignor.assign(&spec).map_err(|reason| {
                    ProtocolError::new(
                        ErrorCode::UnknownServerError,
                        format!(
                            "Failed to compute a new target assignment for epoch {epoch}: {reason}"
                        ),
                    )
                })?;
                members
                    .keys()
                    .map(|id| (id.clone(), result.remove(id).unwrap_or_default()))
                    .collect()
            }
            // No topology, or not ready: every target is empty.
            _ => members
                .keys()
                .map(|id| (id.clone(), Assignment::default()))
                .collect(),
        };
        for (id, target) in &new_targets {
            if previous.get(id) != Some(target) {
                batch.push(target_record(group_id, id, target));
            }
        }
        batch.push(Record::new(
            RecordKey::TargetAssignmentMetadata {
                group_id: group_id.to_string(),
            },
            RecordValue::TargetAssignmentMetadata(TargetAssignmentMetadataValue {
                assignment_epoch: epoch,
            }),
        ));
        let previous_of_members: BTreeMap<String, Assignment> = previous
            .iter()
            .filter(|(id, _)| members.contains_key(*id))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        batch.explain.push(Explain::TargetAssignmentComputed {
            group_id: group_id.to_string(),
            assignment_epoch: epoch,
            tasks_moved: tasks_moved(&previous_of_members, &new_targets),
            tasks_reassigned: self.groups.get(group_id).map_or(0, |g| {
                tasks_reassigned(&g.orphaned, &previous_of_members, &new_targets)
            }),
            assignor: self.config.assignor.name(),
        });
        Ok(new_targets)
    }

    /// The draft partition metadata of the required topics of `subtopologies`, from the topic
    /// image (PROTOCOL 2.12, 5.2).
    pub(crate) fn partition_metadata(
        &self,
        subtopologies: Option<&[Subtopology]>,
    ) -> PartitionMetadataValue {
        let Some(subs) = subtopologies else {
            return PartitionMetadataValue::default();
        };
        let required = topology::required_topics(subs, self.topics.keys().map(String::as_str));
        let topics = required
            .iter()
            .filter_map(|name| {
                let t = self.topics.get(name)?;
                Some(TopicMetadata {
                    topic_id: t.topic_id,
                    topic_name: name.clone(),
                    num_partitions: t.partitions,
                    partition_metadata: t
                        .racks
                        .iter()
                        .enumerate()
                        .filter(|(_, racks)| !racks.is_empty())
                        .map(|(p, racks)| PartitionRacks {
                            partition: p as i32,
                            racks: racks.clone(),
                        })
                        .collect(),
                })
            })
            .collect();
        PartitionMetadataValue { topics }
    }

    /// Topic name -> partition count of the whole topic image.
    pub(crate) fn image_view(&self) -> BTreeMap<String, i32> {
        self.topics
            .iter()
            .map(|(k, t)| (k.clone(), t.partitions))
            .collect()
    }
}

/// A target assignment member record with the full target.
pub(crate) fn target_record(group_id: &str, member_id: &str, target: &Assignment) -> Record {
    let (active, standby, warmup) = target.to_task_ids();
    Record::new(
        RecordKey::TargetAssignmentMember {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        },
        RecordValue::TargetAssignmentMember(TargetAssignmentMemberValue {
            active_tasks: active,
            standby_tasks: standby,
            warmup_tasks: warmup,
        }),
    )
}

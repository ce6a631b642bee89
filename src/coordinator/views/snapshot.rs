//! `Coordinator::snapshot`: every group as describe shows it plus what views draw (member
//! reconciliation states, the configuration result, timers, the topic image).

use serde::Serialize;

use super::describe;
use crate::api::{AssignmentJson, EndpointJson};
use crate::coordinator::Coordinator;
use crate::group::{Group, Member};
use crate::records::Dialect;
use crate::topology::Configuration;

/// The whole coordinator as views draw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The latest `nowMs` seen.
    pub now_ms: i64,
    /// Every group.
    pub groups: Vec<SnapshotGroup>,
    /// Every pending timer, in firing order.
    pub timers: Vec<SnapshotTimer>,
    /// Every topic of the image.
    pub topics: Vec<SnapshotTopic>,
}

/// A group: its describe entry (in the dialect's shape) and the view fields after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotGroup {
    #[serde(flatten)]
    pub described: DescribedAny,
    /// The group state code (PROTOCOL 2.2).
    pub state: &'static str,
    /// Draft only: the group's topology id (`null` before initialization).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_id: Option<Option<String>>,
    pub shutdown_requested_by: Option<String>,
    pub configuration: ConfigurationView,
}

/// A describe entry of either dialect with snapshot members.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DescribedAny {
    Draft(crate::api::DescribedGroup<SnapshotMember<crate::api::DescribedMember>>),
    Kafka42(crate::api::DescribedGroup42<SnapshotMember<crate::api::DescribedMember42>>),
}

/// A member: its describe entry and its reconciliation state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotMember<M> {
    #[serde(flatten)]
    pub described: M,
    pub previous_member_epoch: i32,
    pub member_state: &'static str,
    pub pending_revocation: AssignmentJson,
    /// Draft only (4.2's describe has it already).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_endpoint: Option<Option<EndpointJson>>,
}

/// A pending timer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotTimer {
    pub kind: &'static str,
    pub group_id: String,
    pub subject: String,
    pub deadline_ms: i64,
}

/// A topic of the image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotTopic {
    pub name: String,
    pub partitions: i32,
}

/// Why a group has (or has no) tasks: the configuration result of PROTOCOL 2.11.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigurationView {
    pub status: &'static str,
    pub detail: ConfigurationDetail,
    pub subtopologies: Vec<SubtopologyView>,
}

/// The detail of a configuration result: nothing, a message, topic names or mismatches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ConfigurationDetail {
    None,
    Message(String),
    Topics(Vec<String>),
    Mismatches(Vec<Mismatch>),
}

/// An existing internal topic of the wrong size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    pub name: String,
    pub expected: i32,
    pub found: i32,
}

/// A ready subtopology.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubtopologyView {
    pub subtopology_id: String,
    pub num_tasks: i32,
    pub stateful: bool,
}

impl Coordinator {
    /// Every group as `StreamsGroupDescribe` describes it, with each member's reconciliation
    /// state, plus the pending timers and the topic image: what a view such as the playground
    /// draws.
    pub fn snapshot(&self) -> Snapshot {
        let dialect = self.config.dialect;
        let groups = self
            .groups
            .values()
            .map(|g| SnapshotGroup {
                described: match dialect {
                    Dialect::Kip1071Draft => DescribedAny::Draft(
                        describe::draft_group(g).map_members(|m| member(g, m, true)),
                    ),
                    Dialect::Kafka42 | Dialect::Kafka43 | Dialect::Kafka44 => {
                        DescribedAny::Kafka42(
                            describe::kafka42_group(g).map_members(|m| member(g, m, false)),
                        )
                    }
                },
                state: self.group_state(g).code(),
                topology_id: (dialect == Dialect::Kip1071Draft)
                    .then(|| g.topology.as_ref().map(|t| t.topology_id.clone())),
                shutdown_requested_by: g.soft.shutdown_requester.clone(),
                configuration: configuration_view(self.configured_of(g)),
            })
            .collect();
        let timers = self
            .timers
            .iter()
            .map(|(k, t)| SnapshotTimer {
                kind: k.kind.name(),
                group_id: k.group_id.to_string(),
                subject: k.subject.clone(),
                deadline_ms: t.deadline,
            })
            .collect();
        let topics = self
            .topics
            .iter()
            .map(|(name, t)| SnapshotTopic {
                name: name.clone(),
                partitions: t.partitions,
            })
            .collect();
        Snapshot {
            now_ms: self.now_ms,
            groups,
            timers,
            topics,
        }
    }
}

/// Member ids of describe entries are the group's own.
trait HasMemberId {
    fn member_id(&self) -> &str;
}
impl HasMemberId for crate::api::DescribedMember {
    fn member_id(&self) -> &str {
        &self.member_id
    }
}
impl HasMemberId for crate::api::DescribedMember42 {
    fn member_id(&self) -> &str {
        &self.member_id
    }
}

fn member<M: HasMemberId>(g: &Group, described: M, with_endpoint: bool) -> SnapshotMember<M> {
    let found: Option<&Member> = g.members.get(described.member_id());
    SnapshotMember {
        previous_member_epoch: found.map_or(0, |m| m.previous_member_epoch),
        member_state: found.map_or("", |m| m.member_state().name()),
        pending_revocation: found.map_or_else(AssignmentJson::default, |m| {
            AssignmentJson::from(&m.pending)
        }),
        user_endpoint: with_endpoint
            .then(|| found.and_then(Member::endpoint).map(EndpointJson::from)),
        described,
    }
}

fn configuration_view(configured: Option<&Configuration>) -> ConfigurationView {
    use ConfigurationDetail as D;
    let (status, detail) = match configured {
        None => ("NO_TOPOLOGY", D::None),
        Some(Configuration::Ready(_)) => ("READY", D::None),
        Some(Configuration::MissingSourceTopics(list)) => {
            ("MISSING_SOURCE_TOPICS", D::Topics(list.clone()))
        }
        Some(Configuration::Invalid(m)) => ("INVALID", D::Message(m.clone())),
        Some(Configuration::SourceTopicsIncorrectlyPartitioned(m)) => (
            "SOURCE_TOPICS_INCORRECTLY_PARTITIONED",
            D::Message(m.clone()),
        ),
        Some(Configuration::InternalTopicsIncorrectlyPartitioned(m)) => (
            "INTERNAL_TOPICS_INCORRECTLY_PARTITIONED",
            D::Message(m.clone()),
        ),
        Some(Configuration::InternalTopicsMismatch(list)) => (
            "INTERNAL_TOPICS_MISMATCH",
            D::Mismatches(
                list.iter()
                    .map(|(name, expected, found)| Mismatch {
                        name: name.clone(),
                        expected: *expected,
                        found: *found,
                    })
                    .collect(),
            ),
        ),
        Some(Configuration::MissingInternalTopics(topics)) => (
            "MISSING_INTERNAL_TOPICS",
            D::Topics(topics.iter().map(|t| t.name.clone()).collect()),
        ),
    };
    let subtopologies = match configured {
        Some(Configuration::Ready(subs)) => subs
            .iter()
            .map(|s| SubtopologyView {
                subtopology_id: s.subtopology_id.clone(),
                num_tasks: s.num_tasks,
                stateful: s.stateful,
            })
            .collect(),
        _ => Vec::new(),
    };
    ConfigurationView {
        status,
        detail,
        subtopologies,
    }
}

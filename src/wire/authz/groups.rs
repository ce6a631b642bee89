//! The group checks of Kafka's `KafkaApis` around the coordinator, API by API: what a request
//! may ask for before it reaches the coordinator, and what of the coordinator's answer the
//! client may see.

use super::acl::{AclOperation, ResourceType, CLUSTER_NAME};
use super::authorizer::{authorized_operations, Authorizer};
use crate::api::{
    ConsumerGroupDescribeResponse, DescribeGroupsResponse, DescribedClassicGroup,
    DescribedConsumerGroup, InitializeResponse, ListGroupsResponse,
};
use crate::api::{
    DeleteGroupsResponse, DeletedGroup, DescribeResponse, DescribeResponse42, DescribedGroup,
    DescribedGroup42, DescribedGroupV1, DescribedSubtopology, DescribedSubtopology42, InputKind,
    OffsetCommitResponse, OffsetCommitResponsePartition, OffsetCommitResponseTopic,
    OffsetCommitTopic, OffsetDeleteResponse, OffsetFetchGroup, OffsetFetchResponse,
    OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponseTopic, Response,
    TopologyDescriptionUpdateResponse,
};
use crate::records::Dialect;

/// Kafka's `TOPIC_AUTHORIZATION_FAILED`, `GROUP_AUTHORIZATION_FAILED` and
/// `TRANSACTIONAL_ID_AUTHORIZATION_FAILED`.
pub(super) const TOPIC_AUTHORIZATION_FAILED: i16 = 29;
pub(super) const GROUP_AUTHORIZATION_FAILED: i16 = 30;
pub(super) const TRANSACTIONAL_ID_AUTHORIZATION_FAILED: i16 = 53;
/// The `authorizedOperations` of a group not asked for them (Kafka's default).
const NOT_ASKED: i32 = i32::MIN;
/// `DescribeGroups` answers `authorizedOperations` from version 3.
const DESCRIBE_GROUPS_OPERATIONS_FROM: i16 = 3;
/// `OffsetFetch` has a group-level error from version 2.
const FETCH_GROUP_ERROR_FROM: i16 = 2;
/// Kafka's words for a described streams group that names topics the client may not describe.
pub(super) const STREAMS_DESCRIBE_TOPICS_DENIED: &str =
    "The described group uses topics that the client is not authorized to describe.";

/// What the checks before the coordinator decided.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// The answer without the coordinator (a request denied as a whole, or nothing left to
    /// ask it), still passed through [`After`].
    pub(crate) answer: Option<Response>,
    /// What to do to the answer.
    pub(crate) after: After,
}

/// What the checks after the coordinator do to its answer.
#[derive(Debug, Default)]
pub(crate) enum After {
    /// Nothing.
    #[default]
    Nothing,
    /// Describes (streams, classic, consumer): the denied groups first, then the answered
    /// ones, with their operations if asked for.
    Describe {
        denied: Vec<String>,
        operations: bool,
        v1: bool,
    },
    /// `DeleteGroups`: the denied groups after the answered ones.
    Delete { denied: Vec<String> },
    /// `ListGroups`: only the groups the client may describe, unless it may describe the
    /// cluster.
    List,
    /// `OffsetFetch`: each denied group's answer at its place in the request.
    Fetch {
        denied: Vec<(usize, OffsetFetchResponseGroup)>,
    },
}

fn allowed(a: &dyn Authorizer, op: AclOperation, group: &str) -> bool {
    a.authorize(op, ResourceType::Group, group)
}

/// A commit's answer when the whole request is refused: every partition with `code`, topics as
/// the request named them (`OffsetCommitRequest.getErrorResponse`).
fn commit_refused(topics: &[OffsetCommitTopic], code: i16) -> OffsetCommitResponse {
    OffsetCommitResponse {
        throttle_time_ms: 0,
        topics: topics
            .iter()
            .map(|t| OffsetCommitResponseTopic {
                name: t.name.clone(),
                topic_id: t.topic_id.clone(),
                partitions: t
                    .partitions
                    .iter()
                    .map(|p| OffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        error_code: code,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Kafka's `OffsetFetchResponse.groupError`: the group-level error from version 2, below it
/// the error on every partition asked for.
fn fetch_group_error(g: &OffsetFetchGroup, v: i16) -> OffsetFetchResponseGroup {
    if v >= FETCH_GROUP_ERROR_FROM {
        return OffsetFetchResponseGroup {
            group_id: g.group_id.clone(),
            topics: Vec::new(),
            error_code: GROUP_AUTHORIZATION_FAILED,
        };
    }
    let topics = g.topics.as_deref().unwrap_or_default();
    OffsetFetchResponseGroup {
        group_id: g.group_id.clone(),
        error_code: 0,
        topics: topics
            .iter()
            .map(|t| OffsetFetchResponseTopic {
                name: t.name.clone(),
                topic_id: None,
                partitions: t
                    .partition_indexes
                    .iter()
                    .map(|&p| OffsetFetchResponsePartition {
                        partition_index: p,
                        committed_offset: -1,
                        committed_leader_epoch: -1,
                        metadata: String::new(),
                        error_code: GROUP_AUTHORIZATION_FAILED,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Splits `ids` into those `op` is allowed on (kept in `ids`) and the denied ones (returned,
/// each once when `distinct`).
fn split(
    a: &dyn Authorizer,
    op: AclOperation,
    ids: &mut Vec<String>,
    distinct: bool,
) -> Vec<String> {
    let mut denied: Vec<String> = Vec::new();
    ids.retain(|g| {
        let ok = allowed(a, op, g);
        let seen = distinct && denied.contains(g);
        if !ok && !seen {
            denied.push(g.clone());
        }
        ok
    });
    denied
}

/// Kafka's `KafkaApis` checks before the coordinator (`handle*Request` of 4.2, 4.3 and 4.4,
/// the same for these APIs): the request trimmed to what the client may ask, or answered.
pub(crate) fn before(a: &dyn Authorizer, dialect: Dialect, kind: &mut InputKind) -> Gate {
    let refuse = |r: Response| Gate {
        answer: Some(r),
        after: After::Nothing,
    };
    match kind {
        InputKind::OffsetCommit { request, .. } => {
            if !allowed(a, AclOperation::Read, &request.group_id) {
                let r = commit_refused(&request.topics, GROUP_AUTHORIZATION_FAILED);
                return refuse(Response::OffsetCommit(r));
            }
            Gate::default()
        }
        InputKind::TxnOffsetCommit { request, .. } => {
            let code = if !a.authorize(
                AclOperation::Write,
                ResourceType::TransactionalId,
                &request.transactional_id,
            ) {
                TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            } else if !allowed(a, AclOperation::Read, &request.group_id) {
                GROUP_AUTHORIZATION_FAILED
            } else {
                return Gate::default();
            };
            refuse(Response::TxnOffsetCommit(commit_refused(
                &request.topics,
                code,
            )))
        }
        InputKind::OffsetDelete { request } => {
            if !allowed(a, AclOperation::Delete, &request.group_id) {
                return refuse(Response::OffsetDelete(OffsetDeleteResponse {
                    error_code: GROUP_AUTHORIZATION_FAILED,
                    ..OffsetDeleteResponse::default()
                }));
            }
            Gate::default()
        }
        InputKind::OffsetFetch {
            api_version,
            request,
        } => {
            let mut denied = Vec::new();
            let mut at = 0;
            request.groups.retain(|g| {
                let ok = allowed(a, AclOperation::Describe, &g.group_id);
                if !ok {
                    denied.push((at, fetch_group_error(g, *api_version)));
                }
                at += 1;
                ok
            });
            let answer = request
                .groups
                .is_empty()
                .then(|| Response::OffsetFetch(OffsetFetchResponse::default()));
            Gate {
                answer,
                after: After::Fetch { denied },
            }
        }
        InputKind::DeleteGroups { group_ids } => {
            let denied = split(a, AclOperation::Delete, group_ids, true);
            let answer = group_ids
                .is_empty()
                .then(|| Response::DeleteGroups(DeleteGroupsResponse::default()));
            Gate {
                answer,
                after: After::Delete { denied },
            }
        }
        InputKind::ListGroups { .. } => Gate {
            answer: None,
            after: After::List,
        },
        InputKind::StreamsGroupDescribe { request } => {
            let denied = split(a, AclOperation::Describe, &mut request.group_ids, false);
            let answer = request.group_ids.is_empty().then(|| match dialect {
                Dialect::Kip1071Draft => Response::Describe(DescribeResponse::default()),
                _ => Response::Describe42(DescribeResponse42::default()),
            });
            Gate {
                answer,
                after: After::Describe {
                    denied,
                    operations: request.include_authorized_operations,
                    v1: request.api_version >= 1,
                },
            }
        }
        InputKind::DescribeGroups {
            api_version,
            request,
        } => {
            let denied = split(a, AclOperation::Describe, &mut request.groups, false);
            let answer = request
                .groups
                .is_empty()
                .then(|| Response::DescribeGroups(DescribeGroupsResponse::default()));
            Gate {
                answer,
                after: After::Describe {
                    denied,
                    operations: request.include_authorized_operations
                        && *api_version >= DESCRIBE_GROUPS_OPERATIONS_FROM,
                    v1: false,
                },
            }
        }
        InputKind::ConsumerGroupDescribe { request } => {
            let denied = split(a, AclOperation::Describe, &mut request.group_ids, false);
            let answer = request
                .group_ids
                .is_empty()
                .then(|| Response::ConsumerGroupDescribe(ConsumerGroupDescribeResponse::default()));
            Gate {
                answer,
                after: After::Describe {
                    denied,
                    operations: request.include_authorized_operations,
                    v1: false,
                },
            }
        }
        InputKind::StreamsGroupTopologyDescriptionUpdate { request } => {
            if !allowed(a, AclOperation::Read, &request.group_id) {
                return refuse(Response::TopologyDescriptionUpdate(
                    TopologyDescriptionUpdateResponse {
                        error_code: GROUP_AUTHORIZATION_FAILED,
                        ..TopologyDescriptionUpdateResponse::default()
                    },
                ));
            }
            Gate::default()
        }
        InputKind::StreamsGroupInitialize { request, .. } => {
            if !allowed(a, AclOperation::Read, &request.group_id) {
                return refuse(Response::Initialize(InitializeResponse {
                    error_code: GROUP_AUTHORIZATION_FAILED,
                    ..InitializeResponse::default()
                }));
            }
            Gate::default()
        }
        _ => Gate::default(),
    }
}

/// The operation a request's topics are checked for, topic by topic, beside the coordinator's
/// own (`None`: its topics are not checked this way).
pub(crate) fn topic_operation(kind: &InputKind) -> Option<AclOperation> {
    match kind {
        InputKind::OffsetCommit { .. }
        | InputKind::TxnOffsetCommit { .. }
        | InputKind::OffsetDelete { .. } => Some(AclOperation::Read),
        InputKind::OffsetFetch { .. } => Some(AclOperation::Describe),
        _ => None,
    }
}

/// Kafka's `KafkaApis` checks after the coordinator: the denied groups put back where Kafka
/// puts them, operations answered, what the client may not see taken out.
pub(crate) fn after(a: &dyn Authorizer, after: After, response: &mut Response) {
    match (after, response) {
        (After::Nothing, _) => {}
        (After::Fetch { denied }, Response::OffsetFetch(r)) => {
            for (at, g) in denied {
                let at = at.min(r.groups.len());
                r.groups.insert(at, g);
            }
        }
        (After::Delete { denied }, Response::DeleteGroups(r)) => {
            r.results
                .extend(denied.into_iter().map(|group_id| DeletedGroup {
                    group_id,
                    error_code: GROUP_AUTHORIZATION_FAILED,
                }));
        }
        (After::List, Response::ListGroups(r)) => list(a, r),
        (after @ After::Describe { .. }, r) => describe(a, after, r),
        _ => {}
    }
}

fn list(a: &dyn Authorizer, r: &mut ListGroupsResponse) {
    if !a.authorize(AclOperation::Describe, ResourceType::Cluster, CLUSTER_NAME) {
        r.groups
            .retain(|g| allowed(a, AclOperation::Describe, &g.group_id));
    }
}

/// The operations of a group answered without error, if asked for.
fn operations(a: &dyn Authorizer, asked: bool, code: i16, group: &str, ops: &mut i32) {
    if asked && code == 0 {
        *ops = authorized_operations(a, ResourceType::Group, group);
    }
}

/// Puts `denied` (made by `make`) before the answered groups.
fn denied_first<G>(groups: &mut Vec<G>, denied: Vec<String>, make: impl Fn(String) -> G) {
    if !denied.is_empty() {
        let answered = std::mem::take(groups);
        groups.extend(denied.into_iter().map(make));
        groups.extend(answered);
    }
}

fn describe(a: &dyn Authorizer, after: After, response: &mut Response) {
    let After::Describe {
        denied,
        operations: asked,
        v1,
    } = after
    else {
        return;
    };
    match response {
        Response::Describe42(r) => {
            for g in &mut r.groups {
                operations(
                    a,
                    asked,
                    g.error_code,
                    &g.group_id,
                    &mut g.authorized_operations,
                );
            }
            denied_first(&mut r.groups, denied, |group_id| DescribedGroup42 {
                error_code: GROUP_AUTHORIZATION_FAILED,
                group_id,
                authorized_operations: NOT_ASKED,
                v1: v1.then(DescribedGroupV1::default),
                ..DescribedGroup42::default()
            });
            for g in &mut r.groups {
                hide_topics_42(a, g, v1);
            }
        }
        Response::Describe(r) => describe_draft(a, asked, denied, r),
        Response::DescribeGroups(r) => {
            for g in &mut r.groups {
                operations(
                    a,
                    asked,
                    g.error_code,
                    &g.group_id,
                    &mut g.authorized_operations,
                );
            }
            denied_first(&mut r.groups, denied, |group_id| DescribedClassicGroup {
                error_code: GROUP_AUTHORIZATION_FAILED,
                error_message: None,
                group_id,
                group_state: String::new(),
                protocol_type: String::new(),
                protocol_data: String::new(),
                members: Vec::new(),
                authorized_operations: NOT_ASKED,
            });
        }
        Response::ConsumerGroupDescribe(r) => {
            for g in &mut r.groups {
                operations(
                    a,
                    asked,
                    g.error_code,
                    &g.group_id,
                    &mut g.authorized_operations,
                );
            }
            // Its groups have no members here, so no assignment names a topic to hide.
            denied_first(&mut r.groups, denied, |group_id| DescribedConsumerGroup {
                error_code: GROUP_AUTHORIZATION_FAILED,
                error_message: None,
                group_id,
                group_state: String::new(),
                group_epoch: 0,
                assignment_epoch: 0,
                assignor_name: String::new(),
                members: Vec::new(),
                authorized_operations: NOT_ASKED,
            });
        }
        _ => {}
    }
}

/// The draft's describe: the 4.2 rules on the draft's shape.
fn describe_draft(a: &dyn Authorizer, asked: bool, denied: Vec<String>, r: &mut DescribeResponse) {
    for g in &mut r.groups {
        operations(
            a,
            asked,
            g.error_code,
            &g.group_id,
            &mut g.authorized_operations,
        );
    }
    denied_first(&mut r.groups, denied, |group_id| DescribedGroup {
        error_code: GROUP_AUTHORIZATION_FAILED,
        group_id,
        authorized_operations: NOT_ASKED,
        ..DescribedGroup::default()
    });
    for g in &mut r.groups {
        let subs = g.topology.as_deref().unwrap_or_default();
        if subs.iter().any(|s| !draft_topics_allowed(a, s)) {
            *g = DescribedGroup {
                error_code: TOPIC_AUTHORIZATION_FAILED,
                error_message: Some(STREAMS_DESCRIBE_TOPICS_DENIED.into()),
                group_id: std::mem::take(&mut g.group_id),
                authorized_operations: NOT_ASKED,
                ..DescribedGroup::default()
            };
        }
    }
}

fn describable(a: &dyn Authorizer, topic: &str) -> bool {
    a.authorize(AclOperation::Describe, ResourceType::Topic, topic)
}

fn draft_topics_allowed(a: &dyn Authorizer, s: &DescribedSubtopology) -> bool {
    s.source_topics
        .iter()
        .chain(&s.repartition_sink_topics)
        .chain(s.repartition_source_topics.iter().map(|t| &t.name))
        .chain(s.state_changelog_topics.iter().map(|t| &t.name))
        .all(|t| describable(a, t))
}

fn topics_allowed_42(a: &dyn Authorizer, s: &DescribedSubtopology42) -> bool {
    s.source_topics
        .iter()
        .chain(&s.repartition_sink_topics)
        .chain(s.repartition_source_topics.iter().map(|t| &t.name))
        .chain(s.state_changelog_topics.iter().map(|t| &t.name))
        .all(|t| describable(a, t))
}

/// Kafka's `handleStreamsGroupDescribe`: a group whose topology names a topic the client may
/// not describe is answered `TOPIC_AUTHORIZATION_FAILED` instead, without members or topology.
fn hide_topics_42(a: &dyn Authorizer, g: &mut DescribedGroup42, v1: bool) {
    let subs = g
        .topology
        .as_ref()
        .and_then(|t| t.subtopologies.as_deref())
        .unwrap_or_default();
    if subs.iter().all(|s| topics_allowed_42(a, s)) {
        return;
    }
    *g = DescribedGroup42 {
        error_code: TOPIC_AUTHORIZATION_FAILED,
        error_message: Some(STREAMS_DESCRIBE_TOPICS_DENIED.into()),
        group_id: std::mem::take(&mut g.group_id),
        authorized_operations: NOT_ASKED,
        v1: v1.then(DescribedGroupV1::default),
        ..DescribedGroup42::default()
    };
}

//! `StreamsGroupHeartbeat` behind Kafka's `KafkaApis.handleStreamsGroupHeartbeat` (4.2, 4.3
//! and 4.4 alike): the group's `READ`, the topology's topics' `DESCRIBE` before the coordinator,
//! and `CREATE` of the internal topics it would have the host create after it.

use super::acl::{AclOperation, ResourceType, CLUSTER_NAME};
use super::authorizer::Authorizer;
use super::groups::{GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED};
use crate::api::{
    HeartbeatRequest, HeartbeatResponse, HeartbeatResponse42, Output, Response, StatusJson,
};
use crate::records::Dialect;
use crate::topology::{is_kafka_internal_topic, is_valid_topic_name};

/// The heartbeat status `MISSING_INTERNAL_TOPICS`.
const MISSING_INTERNAL_TOPICS: i8 = 3;

/// Every topic the topology names, once each, in Kafka's order: per subtopology its source
/// topics, repartition sink topics, repartition source topics, then changelog topics.
pub(crate) fn required_topics(req: &HeartbeatRequest) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let Some(t) = &req.topology else {
        return out;
    };
    for s in &t.subtopologies {
        let names = s
            .source_topics
            .iter()
            .chain(&s.repartition_sink_topics)
            .chain(s.repartition_source_topics.iter().map(|t| &t.name))
            .chain(s.state_changelog_topics.iter().map(|t| &t.name));
        for n in names {
            if !out.contains(&n.as_str()) {
                out.push(n);
            }
        }
    }
    out
}

fn error42(code: i16, v: i16) -> Response {
    let mut r = HeartbeatResponse42 {
        error_code: code,
        ..HeartbeatResponse42::default()
    };
    r.with_version_defaults(v);
    Response::Heartbeat42(Box::new(r))
}

/// The answer to a heartbeat the client may not send, before the coordinator (`None`: it may).
/// Without the group's `READ`, `GROUP_AUTHORIZATION_FAILED`. With a topology whose topics are
/// all valid names of no Kafka-internal topic (the coordinator answers the others as
/// `KafkaApis` does), `TOPIC_AUTHORIZATION_FAILED` if any of them may not be described; Kafka
/// sets no message on either.
pub(crate) fn deny(
    a: &dyn Authorizer,
    dialect: Dialect,
    req: &HeartbeatRequest,
) -> Option<Response> {
    let group_ok = a.authorize(AclOperation::Read, ResourceType::Group, &req.group_id);
    if dialect == Dialect::Kip1071Draft {
        return (!group_ok).then(|| {
            Response::Heartbeat(Box::new(HeartbeatResponse {
                error_code: GROUP_AUTHORIZATION_FAILED,
                ..HeartbeatResponse::default()
            }))
        });
    }
    if !group_ok {
        return Some(error42(GROUP_AUTHORIZATION_FAILED, req.api_version));
    }
    let topics = required_topics(req);
    if topics
        .iter()
        .any(|t| is_kafka_internal_topic(t) || !is_valid_topic_name(t))
    {
        return None;
    }
    topics
        .iter()
        .any(|t| !a.authorize(AclOperation::Describe, ResourceType::Topic, t))
        .then(|| error42(TOPIC_AUTHORIZATION_FAILED, req.api_version))
}

/// After the coordinator: internal topics to create need `CREATE` on the cluster or on each
/// topic. If any is denied, none is created (the output's `topics_to_create` is emptied) and
/// the response's `MISSING_INTERNAL_TOPICS` status says which, as Kafka words it.
pub(crate) fn after(a: &dyn Authorizer, response: &mut Response, output: &mut Output) {
    let Response::Heartbeat42(r) = response else {
        return;
    };
    if output.topics_to_create.is_empty()
        || a.authorize(AclOperation::Create, ResourceType::Cluster, CLUSTER_NAME)
    {
        return;
    }
    let denied: Vec<&str> = output
        .topics_to_create
        .iter()
        .map(|t| t.name.as_str())
        .filter(|t| !a.authorize(AclOperation::Create, ResourceType::Topic, t))
        .collect();
    if denied.is_empty() {
        return;
    }
    let words = format!("Unauthorized to CREATE on topics {}.", denied.join(", "));
    let status = r.status.get_or_insert_with(Vec::new);
    match status
        .iter_mut()
        .find(|s| s.status_code == MISSING_INTERNAL_TOPICS)
    {
        Some(s) => {
            s.status_detail.push_str("; ");
            s.status_detail.push_str(&words);
        }
        None => status.push(StatusJson {
            status_code: MISSING_INTERNAL_TOPICS,
            status_detail: words,
        }),
    }
    output.topics_to_create.clear();
}

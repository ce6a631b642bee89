//! The statuses of a member as each dialect reports them (PROTOCOL 3.10, 4.5), in wire form.

use crate::api::StatusJson;
use crate::group::{Group, Member, Status};
use crate::topology::Configuration;

/// `ASSIGNMENT_DELAYED`'s detail while the assignment interval holds it back (Kafka 4.3+).
pub(crate) const ASSIGNMENT_INTERVAL_DETAIL: &str =
    "Assignment delayed due to the configured assignment interval.";

/// `ASSIGNMENT_DELAYED`'s detail; Kafka's wording is not known (PROTOCOL 4.5).
pub(crate) const ASSIGNMENT_DELAYED_DETAIL: &str =
    "Assignment delayed due to the configured initial rebalance delay.";

/// `STALE_TOPOLOGY`'s code in the released protocol.
pub(crate) const STALE_TOPOLOGY: i8 = 0;

/// Statuses in their wire form.
pub(crate) fn status_json(statuses: &[Status]) -> Vec<StatusJson> {
    statuses
        .iter()
        .map(|s| StatusJson {
            status_code: s.code,
            status_detail: s.detail.clone(),
        })
        .collect()
}

/// PROTOCOL 3.10: the statuses of `member`, in code order.
pub(crate) fn draft(group: &Group, member: &Member) -> Vec<Status> {
    let g = &group.group_id;
    let mut out = Vec::new();
    match &group.topology {
        None => out.push(Status {
            code: 0,
            detail: format!("The topology of streams group {g} is not initialized."),
        }),
        Some(t) => {
            if member.metadata.topology_id != t.topology_id {
                out.push(Status {
                    code: 1,
                    detail: format!(
                        "The topology id {} of member {} is inconsistent with the topology id {} of the group.",
                        member.metadata.topology_id, member.member_id, t.topology_id
                    ),
                });
            }
            match group.configured() {
                Some(Configuration::MissingSourceTopics(list)) => out.push(Status {
                    code: 2,
                    detail: format!("Missing source topics: {}", list.join(", ")),
                }),
                Some(Configuration::SourceTopicsIncorrectlyPartitioned(msg)) => out.push(Status {
                    code: 2,
                    detail: msg.clone(),
                }),
                Some(Configuration::MissingInternalTopics(topics)) => out.push(Status {
                    code: 3,
                    detail: draft_missing_internal_detail(topics),
                }),
                Some(Configuration::InternalTopicsIncorrectlyPartitioned(msg))
                | Some(Configuration::Invalid(msg)) => out.push(Status {
                    code: 3,
                    detail: msg.clone(),
                }),
                Some(Configuration::InternalTopicsMismatch(list)) => out.push(Status {
                    code: 3,
                    detail: mismatch_message(list),
                }),
                Some(Configuration::Ready(_)) | None => {}
            }
        }
    }
    if let Some(requester) = &group.soft.shutdown_requester {
        out.push(Status {
            code: 4,
            detail: shutdown_detail(requester),
        });
    }
    out
}

/// PROTOCOL 4.5: the statuses of `member`, in the order of 4.4 step 10: `STALE_TOPOLOGY`,
/// `ASSIGNMENT_DELAYED`, the configuration's status, `SHUTDOWN_APPLICATION`.
pub(crate) fn kafka42(group: &Group, member: &Member, delayed: Option<&str>) -> Vec<Status> {
    let mut out = Vec::new();
    if let Some(t) = &group.topology {
        if member.metadata.topology_epoch < t.epoch {
            out.push(Status {
                code: 0,
                detail: format!(
                    "The member's topology epoch {} is behind the group's topology epoch {}.",
                    member.metadata.topology_epoch, t.epoch
                ),
            });
        }
    }
    if let Some(detail) = delayed {
        out.push(Status {
            code: 5,
            detail: detail.to_string(),
        });
    }
    match group.configured() {
        Some(Configuration::MissingSourceTopics(list)) => out.push(Status {
            code: 1,
            detail: missing_sources_detail(list),
        }),
        Some(Configuration::SourceTopicsIncorrectlyPartitioned(msg))
        | Some(Configuration::InternalTopicsIncorrectlyPartitioned(msg)) => out.push(Status {
            code: 2,
            detail: msg.clone(),
        }),
        Some(Configuration::InternalTopicsMismatch(list)) => {
            if let Some((t, n, k)) = list.first() {
                out.push(Status {
                    code: 2,
                    detail: format!(
                        "Existing topic {t} has different number of partitions: expected {n}, found {k}"
                    ),
                });
            }
        }
        Some(Configuration::MissingInternalTopics(topics)) => out.push(Status {
            code: 3,
            detail: missing_internal_detail(topics),
        }),
        // An invalid configuration fails the heartbeat (130) and is never kept.
        Some(Configuration::Invalid(_)) | Some(Configuration::Ready(_)) | None => {}
    }
    if let Some(requester) = &group.soft.shutdown_requester {
        out.push(Status {
            code: 4,
            detail: shutdown_detail(requester),
        });
    }
    out
}

/// PROTOCOL 2.14's status detail.
pub(crate) fn shutdown_detail(requester: &str) -> String {
    format!(
        "Streams group member {requester} encountered a fatal error and requested a shutdown for the entire application."
    )
}

/// PROTOCOL 3.13 step 4's message for existing internal topics of the wrong size.
pub(crate) fn mismatch_message(list: &[(String, i32, i32)]) -> String {
    let parts: Vec<String> = list
        .iter()
        .map(|(t, n, k)| format!("{t} (expected {n}, found {k})"))
        .collect();
    format!(
        "Existing internal topics have a different number of partitions: {}",
        parts.join(", ")
    )
}

/// `Source topics <a, b, c> and <n> additional topics are missing.`: at most three named, from
/// the sorted list (PROTOCOL 4.5).
pub(crate) fn missing_sources_detail(list: &[String]) -> String {
    let named = list.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match list.len().saturating_sub(3) {
        0 => format!("Source topics {named} are missing."),
        more => format!("Source topics {named} and {more} additional topics are missing."),
    }
}

/// The draft's `MISSING_INTERNAL_TOPICS` detail (PROTOCOL 3): the sorted names in brackets.
fn draft_missing_internal_detail(topics: &[crate::topology::TopicToCreate]) -> String {
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    format!("Internal topics are missing: [{}]", names.join(", "))
}

/// `MISSING_INTERNAL_TOPICS`' detail: Kafka's summary of its `HashMap` of topics to create, in
/// that map's order: at most three names, then how many more.
fn missing_internal_detail(topics: &[crate::topology::TopicToCreate]) -> String {
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    let names = crate::java::hash_map_keys(names);
    let shown = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    match names.len().saturating_sub(3) {
        0 => format!("Internal topics are missing: {shown}"),
        more => format!("Internal topics are missing: {shown} and {more} additional topics"),
    }
}

/// Java's `\s`: the whitespace Kafka's split and `trim` of the tags setting remove.
fn java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// 4.4's `MISSING_CLIENT_TAGS` (6) for a version-1 heartbeat: the rack-aware tags the member's
/// client tags lack, as Kafka reads the setting (joined by commas, trimmed, split again), in
/// the setting's order.
pub(crate) fn missing_client_tags(required: &[String], member: &Member) -> Option<Status> {
    let joined = required.join(",");
    let joined = joined.trim_matches(java_space);
    if joined.is_empty() {
        return None;
    }
    let missing: Vec<&str> = joined
        .split(',')
        .map(|t| t.trim_matches(java_space))
        .filter(|t| !member.metadata.client_tags.iter().any(|kv| kv.key == *t))
        .collect();
    (!missing.is_empty()).then(|| Status {
        code: 6,
        detail: format!(
            "Missing required client tags for rack-aware standby assignment: [{}]. Configure them via 'client.tag.<tagKey>' in your Streams config.",
            missing.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn missing_sources_name_at_most_three() {
        let list = |n: usize| (0..n).map(|i| format!("t{i}")).collect::<Vec<_>>();
        assert_eq!(
            missing_sources_detail(&list(1)),
            "Source topics t0 are missing."
        );
        assert_eq!(
            missing_sources_detail(&list(3)),
            "Source topics t0, t1, t2 are missing."
        );
        assert_eq!(
            missing_sources_detail(&list(5)),
            "Source topics t0, t1, t2 and 2 additional topics are missing."
        );
    }

    #[test]
    fn missing_client_tags_name_what_the_member_lacks_in_setting_order() {
        let mut m = Member::new("m");
        let tags = |l: &[&str]| l.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(missing_client_tags(&[], &m), None);
        assert_eq!(missing_client_tags(&tags(&[" "]), &m), None);
        let s = missing_client_tags(&tags(&["zone", "cluster"]), &m).expect("a status");
        assert_eq!(s.code, 6);
        assert!(s.detail.contains(": [zone, cluster]. "), "{}", s.detail);
        m.metadata.client_tags.push(crate::records::KeyValue {
            key: "cluster".into(),
            value: "c1".into(),
        });
        let s = missing_client_tags(&tags(&[" zone ", "cluster"]), &m).expect("a status");
        assert!(s.detail.contains(": [zone]. "), "{}", s.detail);
        m.metadata.client_tags.push(crate::records::KeyValue {
            key: "zone".into(),
            value: "z".into(),
        });
        assert_eq!(missing_client_tags(&tags(&["zone", "cluster"]), &m), None);
    }
}

//! Who may commit and fetch a group's offsets: Kafka's `OffsetMetadataManager.validateOffsetCommit`
//! and `StreamsGroup.validateOffsetCommit` / `validateOffsetFetch`, in their order and with
//! their messages (docs: the offsets specification, 1.4, 1.5, 3.4). A simple classic group
//! (`offsets` module docs) answers as Kafka's `ClassicGroup` does when it is empty.

use std::collections::BTreeMap;

use crate::error::{ErrorCode, ProtocolError};
use crate::group::{Group, Member};

/// What a commit's partitions are checked against once the request passed the group checks.
#[derive(Debug)]
pub enum CommitValidator<'a> {
    /// Every partition is accepted.
    NoOp,
    /// A known member at an older epoch: each partition must be an active task the member
    /// holds or is revoking, granted at or before the request's epoch (Kafka's
    /// `createAssignmentEpochValidator`).
    AssignmentEpochs {
        /// The member.
        member: &'a Member,
        /// The request's epoch.
        member_epoch: i32,
        /// Kafka's `sourceTopicMap`: each source and repartition source topic to its
        /// subtopology (a later subtopology wins).
        source_topics: BTreeMap<&'a str, &'a str>,
    },
}

fn stale(message: String) -> ProtocolError {
    ProtocolError::new(ErrorCode::StaleMemberEpoch, message)
}

impl CommitValidator<'_> {
    /// Kafka's per-partition check; an error fails the whole request.
    pub fn validate(&self, topic: &str, partition: i32) -> Result<(), ProtocolError> {
        let CommitValidator::AssignmentEpochs {
            member,
            member_epoch,
            source_topics,
        } = self
        else {
            return Ok(());
        };
        let Some(sub) = source_topics.get(topic) else {
            return Err(stale(format!("Topic {topic} is not in the topology.")));
        };
        let Some(epoch) = member.active_epochs.get(sub, partition) else {
            return Err(stale(format!(
                "Task {sub}-{partition} is not assigned or pending revocation for member."
            )));
        };
        if *member_epoch < epoch {
            return Err(stale(format!(
                "Received member epoch {member_epoch} is older than assignment epoch {epoch} for task {sub}-{partition}."
            )));
        }
        Ok(())
    }
}

/// The group checks of a non-transactional `OffsetCommit` of `api_version`: `group` is the
/// streams group of the id, `simple_group` whether Kafka's simple classic group of the id
/// exists instead. `Ok` carries the per-partition check; with no group and a negative epoch
/// the commit is accepted (and creates the simple group).
pub fn validate_commit<'a>(
    group_id: &str,
    group: Option<&'a Group>,
    simple_group: bool,
    member_id: &str,
    member_epoch: i32,
    api_version: i16,
) -> Result<CommitValidator<'a>, ProtocolError> {
    let Some(group) = group else {
        // An empty classic group: a negative generation commits (the admin's way); any other
        // names a member, which it has none of.
        if member_epoch < 0 {
            return Ok(CommitValidator::NoOp);
        }
        if simple_group {
            return Err(ProtocolError::new(
                ErrorCode::UnknownMemberId,
                "The coordinator is not aware of this member.",
            ));
        }
        return Err(if api_version >= 9 {
            ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {group_id} not found."),
            )
        } else {
            illegal_generation()
        });
    };
    validate_streams_commit(
        group_id,
        group,
        member_id,
        None,
        member_epoch,
        Some(api_version),
    )
}

/// `StreamsGroup.validateOffsetCommit`: `api_version` is the `OffsetCommit` version, `None` for
/// a transactional commit (which has no version rule, and passes without a member when it
/// names none).
fn validate_streams_commit<'a>(
    group_id: &str,
    group: &'a Group,
    member_id: &str,
    instance_id: Option<&str>,
    member_epoch: i32,
    api_version: Option<i16>,
) -> Result<CommitValidator<'a>, ProtocolError> {
    if member_epoch < 0 && group.members.is_empty() {
        return Ok(CommitValidator::NoOp);
    }
    // A transactional commit need not name its member (TxnOffsetCommit below version 3).
    if api_version.is_none() && member_epoch == -1 && member_id.is_empty() && instance_id.is_none()
    {
        return Ok(CommitValidator::NoOp);
    }
    let Some(member) = group.members.get(member_id) else {
        return Err(ProtocolError::unknown_member(group_id, member_id));
    };
    if api_version.is_some_and(|v| v < 9) {
        return Err(ProtocolError::new(
            ErrorCode::UnsupportedVersion,
            "OffsetCommit version 9 or above must be used by members using the streams group protocol",
        ));
    }
    if member_epoch == member.member_epoch {
        return Ok(CommitValidator::NoOp);
    }
    if member_epoch > member.member_epoch {
        return Err(stale(format!(
            "Received member epoch {member_epoch} is newer than current member epoch {}.",
            member.member_epoch
        )));
    }
    let Some(topology) = &group.topology else {
        return Err(stale(
            "Topology is not available for offset commit validation.".to_string(),
        ));
    };
    let mut source_topics = BTreeMap::new();
    for s in &topology.subtopologies {
        let sub = s.subtopology_id.as_str();
        for t in &s.source_topics {
            source_topics.insert(t.as_str(), sub);
        }
        for t in &s.repartition_source_topics {
            source_topics.insert(t.name.as_str(), sub);
        }
    }
    Ok(CommitValidator::AssignmentEpochs {
        member,
        member_epoch,
        source_topics,
    })
}

/// The group checks of a `TxnOffsetCommit` (Kafka's `validateTransactionalOffsetCommit` and
/// `StreamsGroup.validateOffsetCommit` with `isTransactional`): `group` is the streams group of
/// the id, `simple_group` whether Kafka's simple classic group of the id exists instead. A
/// `STALE_MEMBER_EPOCH` comes back as it is; the caller maps it as the version wants.
/// `group_id_not_found`: a missing group named by a member answers `GROUP_ID_NOT_FOUND`
/// (4.4's version 6) rather than `ILLEGAL_GENERATION`.
pub fn validate_txn_commit<'a>(
    group_id: &str,
    group: Option<&'a Group>,
    simple_group: bool,
    member_id: &str,
    instance_id: Option<&str>,
    generation_id: i32,
    group_id_not_found: bool,
) -> Result<CommitValidator<'a>, ProtocolError> {
    let Some(group) = group else {
        // Kafka's simple classic group (or a new one, for a negative generation): empty, so a
        // negative generation commits; anything else names a member it has none of.
        if generation_id < 0 {
            return Ok(CommitValidator::NoOp);
        }
        if simple_group {
            return Err(ProtocolError::new(
                ErrorCode::UnknownMemberId,
                "The coordinator is not aware of this member.",
            ));
        }
        return Err(if group_id_not_found {
            ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {group_id} not found."),
            )
        } else {
            illegal_generation()
        });
    };
    validate_streams_commit(group_id, group, member_id, instance_id, generation_id, None)
}

/// `ILLEGAL_GENERATION` with Kafka's default message (what a transactional commit answers for
/// a stale epoch below `TxnOffsetCommit` version 6).
pub fn illegal_generation() -> ProtocolError {
    ProtocolError::new(
        ErrorCode::IllegalGeneration,
        "Specified group generation id is not valid.",
    )
}

impl CommitValidator<'_> {
    /// Whether every partition is accepted (Kafka's `CommitPartitionValidator.NO_OP`).
    pub fn is_no_op(&self) -> bool {
        matches!(self, CommitValidator::NoOp)
    }
}

/// Kafka's `StreamsGroup.isSubscribedToTopic`: while the group has members (a memberless
/// streams group is `EMPTY`, whose offsets may go), a topic is subscribed when its topology
/// reads it as a source or repartition source topic (`sourceTopicMap`; a topic a source regex
/// matches is not in that map). Subscribed offsets neither expire nor are deleted by
/// `OffsetDelete`.
pub fn is_subscribed_to_topic(group: &Group, topic: &str) -> bool {
    !group.members.is_empty()
        && group.topology.as_ref().is_some_and(|t| {
            t.subtopologies.iter().any(|s| {
                s.source_topics.iter().any(|x| x == topic)
                    || s.repartition_source_topics.iter().any(|x| x.name == topic)
            })
        })
}

/// The group checks of an `OffsetFetch` (`member_id` null and a negative epoch: the admin's
/// way). A missing group is no error: it has no offsets.
pub fn validate_fetch(
    group_id: &str,
    group: Option<&Group>,
    member_id: Option<&str>,
    member_epoch: i32,
) -> Result<(), ProtocolError> {
    let Some(group) = group else {
        return Ok(());
    };
    if member_id.is_none() && member_epoch < 0 {
        return Ok(());
    }
    let Some(member_id) = member_id else {
        // Kafka looks the null id up and fails (`NullPointerException`).
        return Err(ProtocolError::new(ErrorCode::UnknownServerError, ""));
    };
    let Some(member) = group.members.get(member_id) else {
        return Err(ProtocolError::unknown_member(group_id, member_id));
    };
    if member_epoch != member.member_epoch {
        return Err(stale(format!(
            "The received member epoch {member_epoch} does not match the expected member epoch {}.",
            member.member_epoch
        )));
    }
    Ok(())
}

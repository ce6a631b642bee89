//! Kafka error codes (protocol outcomes, carried in responses) and boundary errors (input the
//! coordinator cannot understand at all).

use serde::Serialize;

/// A broken internal invariant: a bug in this crate, never an answer to input. It panics with a
/// clear message rather than answering a protocol error over state it cannot trust (README,
/// "Panics and errors"); no input reaches it, which the fuzz targets check.
#[cold]
#[track_caller]
pub(crate) fn bug(what: &str) -> ! {
    panic!("streams-group-coordinator bug: {what}; please report it with the inputs that led here")
}

/// Kafka's error codes as this coordinator uses them (PROTOCOL 2.17, 3.16, 4.11). Codes
/// 129-134 mean different things in the two dialects, so they are named per dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `NONE` (0).
    None,
    /// `UNKNOWN_SERVER_ERROR` (-1).
    UnknownServerError,
    /// `OFFSET_METADATA_TOO_LARGE` (12).
    OffsetMetadataTooLarge,
    /// `ILLEGAL_GENERATION` (22).
    IllegalGeneration,
    /// `INVALID_GROUP_ID` (24).
    InvalidGroupId,
    /// `UNKNOWN_MEMBER_ID` (25).
    UnknownMemberId,
    /// `UNSUPPORTED_VERSION` (35).
    UnsupportedVersion,
    /// `INVALID_REQUEST` (42).
    InvalidRequest,
    /// `NON_EMPTY_GROUP` (68).
    NonEmptyGroup,
    /// `GROUP_ID_NOT_FOUND` (69).
    GroupIdNotFound,
    /// `GROUP_MAX_SIZE_REACHED` (81).
    GroupMaxSizeReached,
    /// `UNSTABLE_OFFSET_COMMIT` (88).
    UnstableOffsetCommit,
    /// `FENCED_INSTANCE_ID` (82).
    FencedInstanceId,
    /// `FENCED_MEMBER_EPOCH` (110).
    FencedMemberEpoch,
    /// `UNRELEASED_INSTANCE_ID` (111).
    UnreleasedInstanceId,
    /// `STALE_MEMBER_EPOCH` (113).
    StaleMemberEpoch,
    /// `GROUP_SUBSCRIBED_TO_TOPIC` (86).
    GroupSubscribedToTopic,
    /// Draft 129.
    StreamsInvalidTopology,
    /// Draft 131.
    StreamsMissingSourceTopics,
    /// Draft 134.
    StreamsInconsistentInternalTopics,
    /// 4.2 130.
    StreamsInvalidTopology42,
}

impl ErrorCode {
    /// Kafka's numeric error code.
    pub fn code(self) -> i16 {
        match self {
            ErrorCode::None => 0,
            ErrorCode::UnknownServerError => -1,
            ErrorCode::OffsetMetadataTooLarge => 12,
            ErrorCode::IllegalGeneration => 22,
            ErrorCode::InvalidGroupId => 24,
            ErrorCode::UnknownMemberId => 25,
            ErrorCode::UnsupportedVersion => 35,
            ErrorCode::InvalidRequest => 42,
            ErrorCode::NonEmptyGroup => 68,
            ErrorCode::GroupIdNotFound => 69,
            ErrorCode::GroupMaxSizeReached => 81,
            ErrorCode::UnstableOffsetCommit => 88,
            ErrorCode::FencedInstanceId => 82,
            ErrorCode::FencedMemberEpoch => 110,
            ErrorCode::UnreleasedInstanceId => 111,
            ErrorCode::StaleMemberEpoch => 113,
            ErrorCode::GroupSubscribedToTopic => 86,
            ErrorCode::StreamsInvalidTopology => 129,
            ErrorCode::StreamsMissingSourceTopics => 131,
            ErrorCode::StreamsInconsistentInternalTopics => 134,
            ErrorCode::StreamsInvalidTopology42 => 130,
        }
    }

    /// Kafka's error name (`UNKNOWN_MEMBER_ID`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::None => "NONE",
            ErrorCode::UnknownServerError => "UNKNOWN_SERVER_ERROR",
            ErrorCode::OffsetMetadataTooLarge => "OFFSET_METADATA_TOO_LARGE",
            ErrorCode::IllegalGeneration => "ILLEGAL_GENERATION",
            ErrorCode::InvalidGroupId => "INVALID_GROUP_ID",
            ErrorCode::UnknownMemberId => "UNKNOWN_MEMBER_ID",
            ErrorCode::UnsupportedVersion => "UNSUPPORTED_VERSION",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::NonEmptyGroup => "NON_EMPTY_GROUP",
            ErrorCode::GroupIdNotFound => "GROUP_ID_NOT_FOUND",
            ErrorCode::GroupMaxSizeReached => "GROUP_MAX_SIZE_REACHED",
            ErrorCode::UnstableOffsetCommit => "UNSTABLE_OFFSET_COMMIT",
            ErrorCode::FencedInstanceId => "FENCED_INSTANCE_ID",
            ErrorCode::FencedMemberEpoch => "FENCED_MEMBER_EPOCH",
            ErrorCode::UnreleasedInstanceId => "UNRELEASED_INSTANCE_ID",
            ErrorCode::StaleMemberEpoch => "STALE_MEMBER_EPOCH",
            ErrorCode::GroupSubscribedToTopic => "GROUP_SUBSCRIBED_TO_TOPIC",
            ErrorCode::StreamsInvalidTopology | ErrorCode::StreamsInvalidTopology42 => {
                "STREAMS_INVALID_TOPOLOGY"
            }
            ErrorCode::StreamsMissingSourceTopics => "STREAMS_MISSING_SOURCE_TOPICS",
            ErrorCode::StreamsInconsistentInternalTopics => "STREAMS_INCONSISTENT_INTERNAL_TOPICS",
        }
    }
}

/// A protocol failure: the code and the exact message sent to the client.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", code.name())]
pub struct ProtocolError {
    /// The Kafka error.
    pub code: ErrorCode,
    /// The message sent to the client, word for word Kafka's where Kafka has one.
    pub message: String,
}

impl ProtocolError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            message: message.into(),
        }
    }

    /// `INVALID_REQUEST` with `message`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    /// `UNKNOWN_MEMBER_ID` for a member id the group does not know.
    pub fn unknown_member(group_id: &str, member_id: &str) -> Self {
        Self::new(
            ErrorCode::UnknownMemberId,
            format!("Member {member_id} is not a member of group {group_id}."),
        )
    }

    /// `FENCED_INSTANCE_ID`: `instance` is held by another member.
    pub fn fenced_instance(member_id: &str, instance: &str, holder: &str) -> Self {
        Self::new(
            ErrorCode::FencedInstanceId,
            format!(
                "Static member {member_id} with instance id {instance} was fenced by member {holder}."
            ),
        )
    }

    /// `UNKNOWN_MEMBER_ID` for an instance id the group does not know.
    pub fn unknown_instance(instance: &str) -> Self {
        Self::new(
            ErrorCode::UnknownMemberId,
            format!("Instance id {instance} is unknown."),
        )
    }
}

/// Codes of boundary errors: stable strings a host can match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BoundaryCode {
    /// Malformed JSON, wrong types, missing fields, out-of-range numbers, unknown input types.
    InvalidInput,
    /// A constructor setting that is unknown or out of range.
    InvalidConfig,
    /// A `Replay` record that cannot be decoded or applied.
    InvalidRecord,
    /// A list longer than the coordinator accepts.
    TooLarge,
    /// A Kafka request frame that cannot be read, or an API or version the dialect does not
    /// serve: Kafka closes the connection (`ApiVersions` aside, which it answers).
    InvalidFrame,
}

/// Input the coordinator cannot understand; it changed nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code:?} at {path}: {message}")]
pub struct BoundaryError {
    /// What kind of boundary error.
    pub code: BoundaryCode,
    /// What is wrong, for people.
    pub message: String,
    /// JSON path of the offending value, e.g. `request.memberEpoch` or `records[2]`.
    pub path: String,
}

impl BoundaryError {
    /// A boundary error at JSON path `path`.
    pub fn new(code: BoundaryCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        BoundaryError {
            code,
            message: message.into(),
            path: path.into(),
        }
    }

    /// `INVALID_INPUT` at `path`.
    pub fn input(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(BoundaryCode::InvalidInput, path, message)
    }
}

/// The JSON path of a boundary error, built on the stack as a decoder descends and rendered
/// only for an error (`records[3].key.data`, `request.activeTasks[0]`): shared by the input
/// shape check and the record decoder, so a valid input builds no path string.
pub(crate) enum JsonPath<'a> {
    Root(&'a str),
    Field(&'a JsonPath<'a>, &'a str),
    Index(&'a JsonPath<'a>, usize),
}

impl<'a> JsonPath<'a> {
    pub(crate) fn field(&'a self, name: &'a str) -> JsonPath<'a> {
        JsonPath::Field(self, name)
    }

    pub(crate) fn index(&'a self, i: usize) -> JsonPath<'a> {
        JsonPath::Index(self, i)
    }

    pub(crate) fn render(&self) -> String {
        match self {
            JsonPath::Root(root) => (*root).to_owned(),
            JsonPath::Field(parent, name) => {
                let parent = parent.render();
                if parent.is_empty() {
                    (*name).to_owned()
                } else {
                    format!("{parent}.{name}")
                }
            }
            JsonPath::Index(parent, i) => format!("{}[{i}]", parent.render()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_protocol_error_reads_as_kafka_names_it() {
        let e = ProtocolError::unknown_member("g", "m");
        assert_eq!(e.code.code(), 25);
        assert_eq!(
            e.to_string(),
            "UNKNOWN_MEMBER_ID: Member m is not a member of group g."
        );
        let e = ProtocolError::fenced_instance("m2", "i", "m1");
        assert_eq!(
            e.to_string(),
            "FENCED_INSTANCE_ID: Static member m2 with instance id i was fenced by member m1."
        );
    }
}

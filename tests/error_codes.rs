//! Every Kafka error code the crate answers with is the number Kafka's `Errors` gives its name,
//! in every release (`schemas/kafka-*/errors.txt`, taken from each release's `Errors.java`).

use streams_group_coordinator::ErrorCode;

/// Every variant; the draft's own block (129, 131, 134) is checked apart.
const ALL: [ErrorCode; 21] = [
    ErrorCode::None,
    ErrorCode::UnknownServerError,
    ErrorCode::OffsetMetadataTooLarge,
    ErrorCode::IllegalGeneration,
    ErrorCode::InvalidGroupId,
    ErrorCode::UnknownMemberId,
    ErrorCode::UnsupportedVersion,
    ErrorCode::InvalidRequest,
    ErrorCode::NonEmptyGroup,
    ErrorCode::GroupIdNotFound,
    ErrorCode::GroupMaxSizeReached,
    ErrorCode::UnstableOffsetCommit,
    ErrorCode::FencedInstanceId,
    ErrorCode::FencedMemberEpoch,
    ErrorCode::UnreleasedInstanceId,
    ErrorCode::StaleMemberEpoch,
    ErrorCode::GroupSubscribedToTopic,
    ErrorCode::StreamsInvalidTopology,
    ErrorCode::StreamsMissingSourceTopics,
    ErrorCode::StreamsInconsistentInternalTopics,
    ErrorCode::StreamsInvalidTopology42,
];

const DRAFT: [ErrorCode; 3] = [
    ErrorCode::StreamsInvalidTopology,
    ErrorCode::StreamsMissingSourceTopics,
    ErrorCode::StreamsInconsistentInternalTopics,
];

#[test]
fn every_released_code_is_kafkas_number_for_its_name() {
    // A variant added to ErrorCode without a place here fails to compile the match.
    for e in ALL {
        match e {
            ErrorCode::None
            | ErrorCode::UnknownServerError
            | ErrorCode::OffsetMetadataTooLarge
            | ErrorCode::IllegalGeneration
            | ErrorCode::InvalidGroupId
            | ErrorCode::UnknownMemberId
            | ErrorCode::UnsupportedVersion
            | ErrorCode::InvalidRequest
            | ErrorCode::NonEmptyGroup
            | ErrorCode::GroupIdNotFound
            | ErrorCode::GroupMaxSizeReached
            | ErrorCode::UnstableOffsetCommit
            | ErrorCode::FencedInstanceId
            | ErrorCode::FencedMemberEpoch
            | ErrorCode::UnreleasedInstanceId
            | ErrorCode::StaleMemberEpoch
            | ErrorCode::GroupSubscribedToTopic
            | ErrorCode::StreamsInvalidTopology
            | ErrorCode::StreamsMissingSourceTopics
            | ErrorCode::StreamsInconsistentInternalTopics
            | ErrorCode::StreamsInvalidTopology42 => {}
        }
    }
    for table in [
        include_str!("../schemas/kafka-4.2/errors.txt"),
        include_str!("../schemas/kafka-4.3/errors.txt"),
        include_str!("../schemas/kafka-4.4/errors.txt"),
    ] {
        for e in ALL.iter().filter(|e| !DRAFT.contains(e)) {
            let line = format!("{} {}", e.code(), e.name());
            assert!(
                table.lines().any(|l| l == line),
                "{line} is not in Kafka's Errors"
            );
        }
    }
    assert_eq!(ErrorCode::GroupSubscribedToTopic.code(), 86);
    // The draft's block keeps its own numbers (PROTOCOL 2.17).
    let numbers: Vec<i16> = DRAFT.iter().map(|e| e.code()).collect();
    assert_eq!(numbers, [129, 131, 134]);
}

//! The describes of other group types asked of a streams group: Kafka's
//! `GroupMetadataManager.describeGroups` (`DescribeGroups`, the classic groups') and
//! `consumerGroupDescribe`, which look the id up as their type (`classicGroup`,
//! `consumerGroup`) and answer `GROUP_ID_NOT_FOUND` for a group of another type. Kafka's simple
//! classic group of an admin's commit is a classic group: an empty one.

use crate::api::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, DescribeGroupsRequest,
    DescribeGroupsResponse, DescribedClassicGroup, DescribedConsumerGroup,
};
use crate::error::ErrorCode;
use crate::Coordinator;

/// The version that brought `DescribeGroups`' error code and message for an unknown group.
const DESCRIBE_ERRORS_FROM: i16 = 6;

impl Coordinator {
    /// `DescribeGroups`: the simple group as Kafka describes an empty classic group; a streams
    /// group or an unknown id as `Dead`, with `GROUP_ID_NOT_FOUND` and Kafka's message from
    /// version 6 on (an older version has no error for it).
    pub(crate) fn describe_groups(
        &self,
        api_version: i16,
        req: &DescribeGroupsRequest,
    ) -> DescribeGroupsResponse {
        let groups = crate::partition::kafka_order(
            &req.groups,
            self.config.offsets_topic_num_partitions,
            false,
        )
        .into_iter()
        .map(|gid| {
            let described = |state: &str| DescribedClassicGroup {
                error_code: 0,
                error_message: None,
                group_id: gid.clone(),
                group_state: state.to_string(),
                protocol_type: String::new(),
                protocol_data: String::new(),
                members: Vec::new(),
                authorized_operations: i32::MIN,
            };
            let not_found = match self.kind_of(gid) {
                Kind::Simple => return described("Empty"),
                Kind::Streams => format!("Group {gid} is not a classic group."),
                Kind::None => format!("Group {gid} not found."),
            };
            let mut dead = described("Dead");
            if api_version >= DESCRIBE_ERRORS_FROM {
                dead.error_code = ErrorCode::GroupIdNotFound.code();
                dead.error_message = Some(not_found);
            }
            dead
        })
        .collect();
        DescribeGroupsResponse {
            throttle_time_ms: 0,
            groups,
        }
    }

    /// `ConsumerGroupDescribe`: no group here is a consumer group. An empty id is refused by
    /// Kafka's `GroupCoordinatorService` before any partition is asked, so its answers come
    /// first (`INVALID_GROUP_ID`, no message, as `""`); the others follow partition by
    /// partition, as the service merges them.
    pub(crate) fn consumer_group_describe(
        &self,
        req: &ConsumerGroupDescribeRequest,
    ) -> ConsumerGroupDescribeResponse {
        let error = |gid: &str, code: ErrorCode, message: Option<String>| DescribedConsumerGroup {
            error_code: code.code(),
            error_message: message,
            group_id: gid.to_string(),
            group_state: String::new(),
            group_epoch: 0,
            assignment_epoch: 0,
            assignor_name: String::new(),
            members: Vec::new(),
            authorized_operations: i32::MIN,
        };
        let groups = crate::partition::kafka_order(
            &req.group_ids,
            self.config.offsets_topic_num_partitions,
            true,
        )
        .into_iter()
        .map(|gid| {
            if gid.is_empty() {
                return error("", ErrorCode::InvalidGroupId, None);
            }
            let message = match self.kind_of(gid) {
                Kind::None => format!("Group {gid} not found."),
                Kind::Simple | Kind::Streams => format!("Group {gid} is not a consumer group."),
            };
            error(gid, ErrorCode::GroupIdNotFound, Some(message))
        })
        .collect();
        ConsumerGroupDescribeResponse {
            throttle_time_ms: 0,
            groups,
        }
    }

    /// What Kafka's group map holds under an id.
    fn kind_of(&self, group_id: &str) -> Kind {
        if self.groups.contains_key(group_id) {
            Kind::Streams
        } else if self.offsets.is_simple_group(group_id) {
            Kind::Simple
        } else {
            Kind::None
        }
    }
}

/// The type of group an id names.
enum Kind {
    Streams,
    Simple,
    None,
}

//! The generated codec against an independent one: the `kafka-protocol` crate, generated from
//! Kafka's schema files by other hands. For every message both know (the headers,
//! `ApiVersions`, `DeleteGroups`, `OffsetCommit`, `OffsetFetch`, `ListGroups`, `OffsetDelete`,
//! `DescribeGroups`, `ConsumerGroupDescribe`, `TxnOffsetCommit`; it has no streams messages),
//! random messages at every version both define (the crate stops at version 9 of the offsets
//! APIs and 5 of `TxnOffsetCommit`; the newer ones are checked by the golden frames): what this
//! codec writes, the other reads and writes back byte for byte, and this codec reads the
//! other's bytes back to the same message.

use bytes::{Bytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};
use proptest::prelude::*;
use streams_group_coordinator::wire::codec::{Reader, WireError};
use streams_group_coordinator::wire::messages::kafka::{
    api_versions_request as avq, api_versions_response as avs,
    consumer_group_describe_request as cdq, consumer_group_describe_response as cds,
    delete_groups_request as dgq, delete_groups_response as dgs, describe_groups_request as dsq,
    describe_groups_response as dss, list_groups_request as lgq, list_groups_response as lgs,
    offset_commit_request as ocq, offset_commit_response as ocs, offset_delete_request as odq,
    offset_delete_response as ods, offset_fetch_request as ofq, offset_fetch_response as ofs,
    request_header as rqh, response_header as rsh, txn_offset_commit_request as tcq,
    txn_offset_commit_response as tcs,
};

/// Ours written, theirs read and written, ours read back: the same bytes all the way.
fn agree<Theirs: Decodable + Encodable>(
    ours: Vec<u8>,
    v: i16,
    read_ours: impl Fn(&mut Reader<'_>, i16) -> Result<Vec<u8>, WireError>,
) -> Result<(), TestCaseError> {
    let mut buf = Bytes::from(ours.clone());
    let theirs = Theirs::decode(&mut buf, v)
        .map_err(|e| TestCaseError::fail(format!("theirs cannot read ours at v{v}: {e}")))?;
    prop_assert!(buf.is_empty(), "theirs left {} bytes at v{}", buf.len(), v);
    let mut back = BytesMut::new();
    theirs
        .encode(&mut back, v)
        .map_err(|e| TestCaseError::fail(format!("theirs cannot write at v{v}: {e}")))?;
    prop_assert_eq!(&back[..], &ours[..], "v{}", v);
    let mut r = Reader::new(&back);
    let again = read_ours(&mut r, v)
        .map_err(|e| TestCaseError::fail(format!("ours cannot read theirs at v{v}: {e}")))?;
    prop_assert_eq!(r.remaining(), 0);
    prop_assert_eq!(again, ours);
    Ok(())
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9._é-]{0,12}"
}

/// Ours written at `v`, then [`agree`] with `Theirs`.
macro_rules! check {
    ($theirs:ty, $ours:ty, $m:expr, $v:expr) => {{
        let mut w = Vec::new();
        $m.write(&mut w, $v);
        agree::<$theirs>(w, $v, |r, v| {
            let mut w = Vec::new();
            <$ours>::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
    }};
}

fn commit_topics() -> impl Strategy<Value = Vec<ocq::OffsetCommitRequestTopic>> {
    let partition = (
        any::<i32>(),
        any::<i64>(),
        any::<i32>(),
        proptest::option::of(text()),
    )
        .prop_map(
            |(partition_index, committed_offset, committed_leader_epoch, committed_metadata)| {
                ocq::OffsetCommitRequestPartition {
                    partition_index,
                    committed_offset,
                    committed_leader_epoch,
                    committed_metadata,
                }
            },
        );
    prop::collection::vec((text(), prop::collection::vec(partition, 0..4)), 0..4).prop_map(|l| {
        l.into_iter()
            .map(|(name, partitions)| ocq::OffsetCommitRequestTopic {
                name,
                partitions,
                ..Default::default()
            })
            .collect()
    })
}

fn fetched_partition() -> impl Strategy<Value = (i32, i64, i32, Option<String>, i16)> {
    (
        any::<i32>(),
        any::<i64>(),
        any::<i32>(),
        proptest::option::of(text()),
        any::<i16>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn request_headers(key in any::<i16>(), version in any::<i16>(), id in any::<i32>(), client in proptest::option::of(text()), v in 1i16..=2) {
        let h = rqh::RequestHeader { request_api_key: key, request_api_version: version, correlation_id: id, client_id: client };
        let mut w = Vec::new();
        h.write(&mut w, v);
        agree::<kafka_protocol::messages::RequestHeader>(w, v, |r, v| {
            let mut w = Vec::new();
            rqh::RequestHeader::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
    }

    #[test]
    fn response_headers(id in any::<i32>(), v in 0i16..=1) {
        let mut w = Vec::new();
        rsh::ResponseHeader { correlation_id: id }.write(&mut w, v);
        agree::<kafka_protocol::messages::ResponseHeader>(w, v, |r, v| {
            let mut w = Vec::new();
            rsh::ResponseHeader::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
    }

    #[test]
    fn api_versions_requests(name in text(), version in text(), v in 0i16..=4) {
        let m = avq::ApiVersionsRequest { client_software_name: name, client_software_version: version, ..Default::default() };
        let mut w = Vec::new();
        m.write(&mut w, v);
        agree::<kafka_protocol::messages::ApiVersionsRequest>(w, v, |r, v| {
            let mut w = Vec::new();
            avq::ApiVersionsRequest::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
    }

    #[test]
    fn api_versions_responses(
        error in any::<i16>(),
        keys in prop::collection::vec((any::<i16>(), any::<i16>(), any::<i16>()), 0..8),
        throttle in any::<i32>(),
        supported in prop::collection::vec((text(), any::<i16>(), any::<i16>()), 0..3),
        epoch in prop_oneof![Just(-1i64), any::<i64>()],
        finalized in prop::collection::vec((text(), any::<i16>(), any::<i16>()), 0..3),
        zk in any::<bool>(),
        v in 0i16..=4,
    ) {
        // Kafka's map keys are unique: one entry per API key, feature name.
        let mut keys = keys;
        keys.sort_by_key(|k| k.0);
        keys.dedup_by_key(|k| k.0);
        let unique = |mut l: Vec<(String, i16, i16)>| { l.sort(); l.dedup_by(|a, b| a.0 == b.0); l };
        let m = avs::ApiVersionsResponse {
            error_code: error,
            api_keys: keys.into_iter().map(|(api_key, min_version, max_version)| avs::ApiVersion { api_key, min_version, max_version }).collect(),
            throttle_time_ms: throttle,
            supported_features: unique(supported).into_iter().map(|(name, min_version, max_version)| avs::SupportedFeatureKey { name, min_version, max_version }).collect(),
            finalized_features_epoch: epoch,
            finalized_features: unique(finalized).into_iter().map(|(name, max_version_level, min_version_level)| avs::FinalizedFeatureKey { name, max_version_level, min_version_level }).collect(),
            zk_migration_ready: zk,
        };
        let mut w = Vec::new();
        m.write(&mut w, v);
        agree::<kafka_protocol::messages::ApiVersionsResponse>(w, v, |r, v| {
            let mut w = Vec::new();
            avs::ApiVersionsResponse::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
    }

    #[test]
    fn delete_groups(names in prop::collection::vec(text(), 0..6), throttle in any::<i32>(), codes in prop::collection::vec(any::<i16>(), 0..6), v in 0i16..=2) {
        let q = dgq::DeleteGroupsRequest { groups_names: names.clone() };
        let mut w = Vec::new();
        q.write(&mut w, v);
        agree::<kafka_protocol::messages::DeleteGroupsRequest>(w, v, |r, v| {
            let mut w = Vec::new();
            dgq::DeleteGroupsRequest::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
        let mut names = names;
        names.sort();
        names.dedup();
        let s = dgs::DeleteGroupsResponse {
            throttle_time_ms: throttle,
            results: names.into_iter().zip(codes).map(|(group_id, error_code)| dgs::DeletableGroupResult { group_id, error_code, error_message: None }).collect(),
        };
        let mut w = Vec::new();
        s.write(&mut w, v);
        agree::<kafka_protocol::messages::DeleteGroupsResponse>(w, v, |r, v| {
            let mut w = Vec::new();
            dgs::DeleteGroupsResponse::read(r, v)?.write(&mut w, v);
            Ok(w)
        })?;
    }

    #[test]
    fn offset_commits(
        group in text(), epoch in any::<i32>(), member in text(), instance in proptest::option::of(text()),
        retention in any::<i64>(), topics in commit_topics(), throttle in any::<i32>(),
        codes in prop::collection::vec((text(), prop::collection::vec((any::<i32>(), any::<i16>()), 0..4)), 0..4),
        v in 2i16..=9,
    ) {
        let q = ocq::OffsetCommitRequest {
            group_id: group, generation_id_or_member_epoch: epoch, member_id: member,
            group_instance_id: instance,
            retention_time_ms: retention,
            topics,
        };
        check!(kafka_protocol::messages::OffsetCommitRequest, ocq::OffsetCommitRequest, q, v);
        let s = ocs::OffsetCommitResponse {
            throttle_time_ms: throttle,
            topics: codes.into_iter().map(|(name, p)| ocs::OffsetCommitResponseTopic {
                name,
                partitions: p.into_iter().map(|(partition_index, error_code)| ocs::OffsetCommitResponsePartition { partition_index, error_code }).collect(),
                ..Default::default()
            }).collect(),
        };
        check!(kafka_protocol::messages::OffsetCommitResponse, ocs::OffsetCommitResponse, s, v);
    }

    #[test]
    fn offset_fetch_requests(
        group in text(),
        topics in proptest::option::of(prop::collection::vec((text(), prop::collection::vec(any::<i32>(), 0..4)), 0..4)),
        groups in prop::collection::vec((text(), proptest::option::of(text()), any::<i32>(), proptest::option::of(prop::collection::vec((text(), prop::collection::vec(any::<i32>(), 0..4)), 0..3))), 0..3),
        stable in any::<bool>(),
        v in 1i16..=9,
    ) {
        let q = ofq::OffsetFetchRequest {
            group_id: group,
            topics: topics.map(|l| l.into_iter().map(|(name, partition_indexes)| ofq::OffsetFetchRequestTopic { name, partition_indexes }).collect()),
            groups: groups.into_iter().map(|(group_id, member_id, member_epoch, topics)| ofq::OffsetFetchRequestGroup {
                group_id,
                member_id,
                member_epoch,
                topics: topics.map(|l| l.into_iter().map(|(name, partition_indexes)| ofq::OffsetFetchRequestTopics { name, partition_indexes, ..Default::default() }).collect()),
            }).collect(),
            require_stable: stable,
        };
        check!(kafka_protocol::messages::OffsetFetchRequest, ofq::OffsetFetchRequest, q, v);
    }

    #[test]
    fn offset_fetch_responses(
        throttle in any::<i32>(),
        topics in prop::collection::vec((text(), prop::collection::vec(fetched_partition(), 0..3)), 0..3),
        error in any::<i16>(),
        groups in prop::collection::vec((text(), prop::collection::vec((text(), prop::collection::vec(fetched_partition(), 0..3)), 0..3), any::<i16>()), 0..3),
        v in 1i16..=9,
    ) {
        let s = ofs::OffsetFetchResponse {
            throttle_time_ms: throttle,
            topics: topics.into_iter().map(|(name, p)| ofs::OffsetFetchResponseTopic {
                name,
                partitions: p.into_iter().map(|(partition_index, committed_offset, committed_leader_epoch, metadata, error_code)| ofs::OffsetFetchResponsePartition {
                    partition_index, committed_offset, committed_leader_epoch, metadata, error_code,
                }).collect(),
            }).collect(),
            error_code: error,
            groups: groups.into_iter().map(|(group_id, t, error_code)| ofs::OffsetFetchResponseGroup {
                group_id,
                error_code,
                topics: t.into_iter().map(|(name, p)| ofs::OffsetFetchResponseTopics {
                    name,
                    partitions: p.into_iter().map(|(partition_index, committed_offset, committed_leader_epoch, metadata, error_code)| ofs::OffsetFetchResponsePartitions {
                        partition_index, committed_offset, committed_leader_epoch, metadata, error_code,
                    }).collect(),
                    ..Default::default()
                }).collect(),
            }).collect(),
        };
        check!(kafka_protocol::messages::OffsetFetchResponse, ofs::OffsetFetchResponse, s, v);
    }

    #[test]
    fn list_groups(
        states in prop::collection::vec(text(), 0..4),
        types in prop::collection::vec(text(), 0..4),
        throttle in any::<i32>(),
        error in any::<i16>(),
        groups in prop::collection::vec((text(), text(), text(), text()), 0..5),
        v in 0i16..=5,
    ) {
        let q = lgq::ListGroupsRequest { states_filter: states, types_filter: types };
        check!(kafka_protocol::messages::ListGroupsRequest, lgq::ListGroupsRequest, q, v);
        let s = lgs::ListGroupsResponse {
            throttle_time_ms: throttle,
            error_code: error,
            groups: groups.into_iter().map(|(group_id, protocol_type, group_state, group_type)| lgs::ListedGroup { group_id, protocol_type, group_state, group_type }).collect(),
        };
        check!(kafka_protocol::messages::ListGroupsResponse, lgs::ListGroupsResponse, s, v);
    }

    #[test]
    fn offset_deletes(
        group in text(),
        topics in prop::collection::vec((text(), prop::collection::vec(any::<i32>(), 0..4)), 0..4),
        error in any::<i16>(),
        throttle in any::<i32>(),
        answers in prop::collection::vec((text(), prop::collection::vec((any::<i32>(), any::<i16>()), 0..4)), 0..4),
    ) {
        let q = odq::OffsetDeleteRequest {
            group_id: group,
            topics: topics.into_iter().map(|(name, p)| odq::OffsetDeleteRequestTopic {
                name,
                partitions: p.into_iter().map(|partition_index| odq::OffsetDeleteRequestPartition { partition_index }).collect(),
            }).collect(),
        };
        check!(kafka_protocol::messages::OffsetDeleteRequest, odq::OffsetDeleteRequest, q, 0);
        let s = ods::OffsetDeleteResponse {
            error_code: error,
            throttle_time_ms: throttle,
            topics: answers.into_iter().map(|(name, p)| ods::OffsetDeleteResponseTopic {
                name,
                partitions: p.into_iter().map(|(partition_index, error_code)| ods::OffsetDeleteResponsePartition { partition_index, error_code }).collect(),
            }).collect(),
        };
        check!(kafka_protocol::messages::OffsetDeleteResponse, ods::OffsetDeleteResponse, s, 0);
    }

    #[test]
    fn describe_groups(
        names in prop::collection::vec(text(), 0..4),
        ops in any::<bool>(),
        throttle in any::<i32>(),
        groups in prop::collection::vec((any::<i16>(), proptest::option::of(text()), text(), text(), any::<i32>(), prop::collection::vec((text(), proptest::option::of(text()), text(), prop::collection::vec(any::<u8>(), 0..4)), 0..3)), 0..3),
        v in 0i16..=6,
    ) {
        let q = dsq::DescribeGroupsRequest {
            groups: names,
            include_authorized_operations: ops && v >= 3,
        };
        check!(kafka_protocol::messages::DescribeGroupsRequest, dsq::DescribeGroupsRequest, q, v);
        let s = dss::DescribeGroupsResponse {
            throttle_time_ms: if v >= 1 { throttle } else { 0 },
            groups: groups.into_iter().map(|(error_code, message, group_id, state, authorized, members)| dss::DescribedGroup {
                error_code,
                error_message: if v >= 6 { message } else { None },
                group_id,
                group_state: state.clone(),
                protocol_type: state.clone(),
                protocol_data: state,
                members: members.into_iter().map(|(member_id, instance, client, bytes)| dss::DescribedGroupMember {
                    member_id,
                    group_instance_id: if v >= 4 { instance } else { None },
                    client_id: client.clone(),
                    client_host: client,
                    member_metadata: bytes.clone(),
                    member_assignment: bytes,
                }).collect(),
                authorized_operations: if v >= 3 { authorized } else { i32::MIN },
            }).collect(),
        };
        check!(kafka_protocol::messages::DescribeGroupsResponse, dss::DescribeGroupsResponse, s, v);
    }

    #[test]
    fn consumer_group_describes(
        names in prop::collection::vec(text(), 0..4),
        ops in any::<bool>(),
        throttle in any::<i32>(),
        groups in prop::collection::vec((any::<i16>(), proptest::option::of(text()), text(), any::<i32>(), any::<i32>()), 0..3),
        v in 0i16..=1,
    ) {
        let q = cdq::ConsumerGroupDescribeRequest { group_ids: names, include_authorized_operations: ops };
        check!(kafka_protocol::messages::ConsumerGroupDescribeRequest, cdq::ConsumerGroupDescribeRequest, q, v);
        let s = cds::ConsumerGroupDescribeResponse {
            throttle_time_ms: throttle,
            groups: groups.into_iter().map(|(error_code, error_message, group_id, epoch, authorized_operations)| cds::DescribedGroup {
                error_code,
                error_message,
                group_state: group_id.clone(),
                assignor_name: group_id.clone(),
                group_id,
                group_epoch: epoch,
                assignment_epoch: epoch,
                authorized_operations,
                ..Default::default()
            }).collect(),
        };
        check!(kafka_protocol::messages::ConsumerGroupDescribeResponse, cds::ConsumerGroupDescribeResponse, s, v);
    }

    #[test]
    fn txn_offset_commits(
        txn in text(), group in text(), producer in any::<i64>(), epoch in any::<i16>(),
        generation in any::<i32>(), member in text(), instance in proptest::option::of(text()),
        topics in commit_topics(), throttle in any::<i32>(),
        codes in prop::collection::vec((text(), prop::collection::vec((any::<i32>(), any::<i16>()), 0..4)), 0..4),
        v in 0i16..=5,
    ) {
        let q = tcq::TxnOffsetCommitRequest {
            transactional_id: txn,
            group_id: group,
            producer_id: producer,
            producer_epoch: epoch,
            generation_id_or_member_epoch: if v >= 3 { generation } else { -1 },
            member_id: if v >= 3 { member } else { String::new() },
            group_instance_id: if v >= 3 { instance } else { None },
            topics: topics.into_iter().map(|t| tcq::TxnOffsetCommitRequestTopic {
                name: t.name,
                partitions: t.partitions.into_iter().map(|p| tcq::TxnOffsetCommitRequestPartition {
                    partition_index: p.partition_index,
                    committed_offset: p.committed_offset,
                    committed_leader_epoch: if v >= 2 { p.committed_leader_epoch } else { -1 },
                    committed_metadata: p.committed_metadata,
                }).collect(),
                ..Default::default()
            }).collect(),
        };
        check!(kafka_protocol::messages::TxnOffsetCommitRequest, tcq::TxnOffsetCommitRequest, q, v);
        let s = tcs::TxnOffsetCommitResponse {
            throttle_time_ms: throttle,
            topics: codes.into_iter().map(|(name, p)| tcs::TxnOffsetCommitResponseTopic {
                name,
                partitions: p.into_iter().map(|(partition_index, error_code)| tcs::TxnOffsetCommitResponsePartition { partition_index, error_code }).collect(),
                ..Default::default()
            }).collect(),
        };
        check!(kafka_protocol::messages::TxnOffsetCommitResponse, tcs::TxnOffsetCommitResponse, s, v);
    }
}

//! The generated codec against an independent one: the `kafka-protocol` crate, generated from
//! Kafka's schema files by other hands. For every message both know (the headers,
//! `ApiVersions`, `DeleteGroups`; it has no streams messages), random messages at every
//! version: what this codec writes, the other reads and writes back byte for byte, and this
//! codec reads the other's bytes back to the same message.

use bytes::{Bytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};
use proptest::prelude::*;
use streams_group_coordinator::wire::codec::{Reader, WireError};
use streams_group_coordinator::wire::messages::kafka::{
    api_versions_request as avq, api_versions_response as avs, delete_groups_request as dgq,
    delete_groups_response as dgs, request_header as rqh, response_header as rsh,
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
}

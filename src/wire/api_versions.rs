//! `ApiVersions`: the APIs and versions a dialect serves, answered as Kafka answers it.

use super::codec::Reader;
use super::messages::kafka::api_versions_request::{self, ApiVersionsRequest};
use super::messages::kafka::api_versions_response::{ApiVersion, ApiVersionsResponse};
use super::messages::versions::{ApiRange, KAFKA_4_2, KAFKA_4_3, KAFKA_4_4, KIP1071_DRAFT};
use super::{respond, Header};
use crate::records::Dialect;

/// `ApiVersions`' key.
pub(super) const API_KEY: i16 = api_versions_request::API_KEY;

/// Kafka's `UNSUPPORTED_VERSION` and `INVALID_REQUEST`.
const UNSUPPORTED_VERSION: i16 = 35;
const INVALID_REQUEST: i16 = 42;

/// The schema tables a dialect's APIs come from: the draft's streams APIs, with 4.2's
/// group and offset APIs (`SHARED`; the draft's groups follow 4.2 for these).
fn tables(dialect: Dialect) -> [&'static [ApiRange]; 2] {
    match dialect {
        Dialect::Kip1071Draft => [KIP1071_DRAFT, KAFKA_4_2],
        Dialect::Kafka42 => [KAFKA_4_2, &[]],
        Dialect::Kafka43 => [KAFKA_4_3, &[]],
        Dialect::Kafka44 => [KAFKA_4_4, &[]],
    }
}

/// The APIs the draft takes from 4.2.
const SHARED: &[&str] = &[
    "ApiVersions",
    "DeleteGroups",
    "OffsetCommit",
    "OffsetFetch",
    "ListGroups",
    "OffsetDelete",
    "DescribeGroups",
    "ConsumerGroupDescribe",
    "TxnOffsetCommit",
];

/// The API this dialect serves under `key`, with the versions it serves.
pub(super) fn lookup(dialect: Dialect, key: i16) -> Option<ApiRange> {
    let [own, shared] = tables(dialect);
    own.iter()
        .find(|a| a.key == key)
        .or_else(|| {
            shared
                .iter()
                .find(|a| a.key == key && SHARED.contains(&a.name))
        })
        .copied()
}

/// Every API the dialect serves, by key.
pub fn served(dialect: Dialect) -> Vec<ApiRange> {
    let [own, shared] = tables(dialect);
    // As i32s: the sort the other lists of numbers use, not one more instance for i16s.
    let mut keys: Vec<i32> = own.iter().chain(shared).map(|a| a.key.into()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| lookup(dialect, i16::try_from(k).ok()?))
        .collect()
}

/// How `ApiVersions` lists an API that both the dialect and the host list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SharedApis {
    /// The dialect's versions: the host lists only APIs of its own, or hands the coordinator's
    /// frames on undecoded.
    #[default]
    Dialect,
    /// The versions both serve (the newer oldest, the older newest): the host's codec decodes
    /// the request before the coordinator does, and a version only one side reads is not
    /// offered. An API with no version in common is left out.
    Intersection,
}

/// The APIs a host answers `ApiVersions` with, by key: the dialect's, then `host`'s own, an
/// API listed by both as `shared` says.
pub fn api_ranges(dialect: Dialect, host: &[ApiRange], shared: SharedApis) -> Vec<ApiRange> {
    let mut apis = served(dialect);
    let dialect_keys: Vec<i16> = apis.iter().map(|a| a.key).collect();
    for h in host {
        if !dialect_keys.contains(&h.key) {
            apis.push(*h);
        } else if shared == SharedApis::Intersection {
            if let Some(a) = apis.iter_mut().find(|a| a.key == h.key) {
                a.min = a.min.max(h.min);
                a.max = a.max.min(h.max);
            }
        }
    }
    apis.retain(|a| !dialect_keys.contains(&a.key) || a.min <= a.max);
    apis.sort_by_key(|a| a.key);
    apis
}

/// Kafka's rule for client software names and versions (KIP-511).
fn valid_software(s: &str) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'.';
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric() && b.iter().all(inner)
        }
        _ => false,
    }
}

/// The `ApiVersions` response frame (response header version 0 always, as Kafka writes it).
pub(super) fn answer(
    dialect: Dialect,
    header: &Header,
    body: &[u8],
    (host, shared): (&[ApiRange], SharedApis),
) -> Vec<u8> {
    let apis = api_ranges(dialect, host, shared);
    // Its own versions as listed (a host's codec may narrow them too).
    let own = (apis.iter().find(|a| a.key == API_KEY).copied())
        .or_else(|| lookup(dialect, API_KEY))
        .unwrap_or(ApiRange {
            key: API_KEY,
            name: "ApiVersions",
            min: 0,
            max: 0,
        });
    let v = header.api_version;
    let mut response = ApiVersionsResponse::default();
    let version = if v < own.min || v > own.max {
        // Kafka reads no body and answers version 0 with its own range only.
        response.error_code = UNSUPPORTED_VERSION;
        response.api_keys = vec![ApiVersion {
            api_key: API_KEY,
            min_version: own.min,
            max_version: own.max,
        }];
        0
    } else {
        let request = ApiVersionsRequest::read(&mut Reader::new(body), v);
        match request {
            Ok(r)
                if v < 3
                    || (valid_software(&r.client_software_name)
                        && valid_software(&r.client_software_version)) =>
            {
                response.api_keys = apis
                    .into_iter()
                    .map(|a| ApiVersion {
                        api_key: a.key,
                        min_version: a.min,
                        max_version: a.max,
                    })
                    .collect();
            }
            _ => response.error_code = INVALID_REQUEST,
        }
        v
    };
    respond(header.correlation_id, 0, |w| response.write(w, version))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn software_names_follow_kafkas_pattern() {
        for ok in ["apache-kafka-java", "4.2.0", "a", "librdkafka.2"] {
            assert!(valid_software(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a b", "é"] {
            assert!(!valid_software(bad), "{bad}");
        }
    }

    #[test]
    fn each_dialect_serves_its_releases_versions() {
        let keys = |d| {
            served(d)
                .iter()
                .map(|a| (a.key, a.min, a.max))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(Dialect::Kafka42),
            [
                (8, 2, 10),
                (9, 1, 10),
                (15, 0, 6),
                (16, 0, 5),
                (18, 0, 4),
                (28, 0, 5),
                (42, 0, 2),
                (47, 0, 0),
                (69, 0, 1),
                (88, 0, 0),
                (89, 0, 0)
            ]
        );
        assert_eq!(
            keys(Dialect::Kafka44),
            [
                (8, 2, 10),
                (9, 1, 10),
                (15, 0, 6),
                (16, 0, 5),
                (18, 0, 5),
                (28, 0, 6),
                (42, 0, 3),
                (47, 0, 0),
                (69, 0, 1),
                (88, 0, 1),
                (89, 0, 1),
                (93, 0, 0)
            ]
        );
        assert_eq!(
            keys(Dialect::Kip1071Draft),
            [
                (8, 2, 10),
                (9, 1, 10),
                (15, 0, 6),
                (16, 0, 5),
                (18, 0, 4),
                (28, 0, 5),
                (42, 0, 2),
                (47, 0, 0),
                (69, 0, 1),
                (88, 0, 0),
                (89, 0, 0),
                (90, 0, 0)
            ]
        );
    }
}

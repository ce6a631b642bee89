//! The host kit: what every broker that embeds the coordinator does around it, sans-IO, so
//! that no host writes it twice. Kafka's broker routes a group request to the coordinator of
//! the group's `__consumer_offsets` partition, splits one naming several groups by partition
//! and merges the answers in its own order, answers for a coordinator that is not there, and
//! lists its own APIs beside the coordinator's in `ApiVersions`:
//!
//! - [`route_request`]: which API a frame is and where it goes ([`Route`]); [`is_mine`]:
//!   whether a host leads a group's partition;
//! - [`Split`]: the sub-requests of a request for several groups (or of `ListGroups`, one per
//!   partition) and [`Split::merge`] of their answers into the response, in Kafka's order
//!   ([`merge_responses`]: the same from the request frame, for a host that keeps only it);
//! - [`error_response`]: the response of one error code per group, for a partition whose
//!   coordinator is not available ([`COORDINATOR_NOT_AVAILABLE`]) or not here
//!   ([`NOT_COORDINATOR`]);
//! - [`answer_api_versions_with`]: `ApiVersions` with the host's APIs, a shared API at the
//!   versions both the dialect and the host's codec serve ([`SharedApis::Intersection`]);
//!   [`apis_from_json`] reads a host's APIs given as JSON.
//!
//! `sgc serve` is built on it (docs/host-kit.md).

mod apis;
mod error_response;
mod frames;
mod route;
mod split;

pub use super::{answer_api_versions_with, api_ranges, SharedApis};
pub use apis::apis_from_json;
pub use error_response::{error_response, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR};
pub use route::{is_mine, merge_responses, route_request, Route, Routed};
pub use split::{Part, Split};

#[cfg(test)]
mod tests;

//! Where a request frame goes, as Kafka's broker sends it on: `ApiVersions` answered by the
//! host, a request for one group to the coordinator of the group's `__consumer_offsets`
//! partition, one for several groups split by partition, `ListGroups` to every partition, and
//! any other API to the host's own handlers.

use super::super::codec::Reader;
use super::super::messages::{draft, kafka};
use super::super::{api_versions, body_error, frame_error, read_header};
use super::split::Split;
use crate::partition_for;
use crate::records::Dialect;
use crate::BoundaryError;

/// `ListGroups`' key: the one request asked of every partition.
const LIST_GROUPS: i16 = kafka::list_groups_request::API_KEY;

/// A request frame routed: its API and where it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Routed {
    /// The API key.
    pub api_key: i16,
    /// The API version.
    pub api_version: i16,
    /// Where the frame goes.
    pub route: Route,
}

/// Where a request frame goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// `ApiVersions`: answered by the host, with its own APIs
    /// ([`answer_api_versions_with`](super::answer_api_versions_with)).
    ApiVersions,
    /// A request for one group: the frame as it came, to the coordinator of `partition`.
    Group {
        /// The group the request names (a transactional commit's second field).
        group_id: String,
        /// Its `__consumer_offsets` partition.
        partition: i32,
    },
    /// A request naming several groups: one sub-request per partition, the answers merged
    /// with [`Split::merge`].
    Groups(Split),
    /// `ListGroups`: the frame to every partition, the answers merged with [`Split::merge`].
    EveryPartition(Split),
    /// An API the dialect's coordinator does not serve: the host's own (`Metadata`,
    /// `FindCoordinator`, ...), or closing the connection.
    Host,
}

/// Routes a request frame (header and body, without the 4-byte size) among `partitions`
/// `__consumer_offsets` partitions, as Kafka's broker does before its group coordinator
/// service sees it. An error is a frame Kafka closes the connection on (`INVALID_FRAME`: a
/// header or the group field that does not read), or fewer than one partition.
pub fn route_request(
    dialect: Dialect,
    frame: &[u8],
    partitions: i32,
) -> Result<Routed, BoundaryError> {
    if partitions < 1 {
        return Err(BoundaryError::input("partitions", "must be at least 1"));
    }
    let [a, b, c, d, ..] = *frame else {
        return Err(frame_error(
            "header",
            format!(
                "a request needs its API key and version (4 bytes), the frame has {}",
                frame.len()
            ),
        ));
    };
    let (api_key, api_version) = (i16::from_be_bytes([a, b]), i16::from_be_bytes([c, d]));
    let routed = |route| {
        Ok(Routed {
            api_key,
            api_version,
            route,
        })
    };
    if api_key == api_versions::API_KEY {
        return routed(Route::ApiVersions);
    }
    let Some(api) = api_versions::lookup(dialect, api_key) else {
        return routed(Route::Host);
    };
    if api_key == LIST_GROUPS {
        return routed(Route::EveryPartition(Split::every_partition(
            dialect, frame, partitions,
        )?));
    }
    if let Some(field) = multi_group_field(dialect, api_key, api_version) {
        let split = Split::groups(dialect, frame, partitions, field)?;
        return routed(Route::Groups(split));
    }
    let (_, at) = read_header(frame)?;
    let group_id = single_group(dialect, api_key, api_version, &frame[at..])
        .map_err(|e| body_error(api.name, &e))?;
    let partition = partition_for(&group_id, partitions);
    routed(Route::Group {
        group_id,
        partition,
    })
}

/// [`Split::merge`] for a host that keeps the request frame rather than its split (the npm
/// package and the WASI plugin hand the parts out and take the answers back): `frame` routed
/// again among `partitions`, and `answers` merged as its parts' answers. An error for a frame
/// that is not split (its one answer is the response) and as [`Split::merge`].
pub fn merge_responses<A: AsRef<[u8]>>(
    dialect: Dialect,
    frame: &[u8],
    partitions: i32,
    answers: &[A],
) -> Result<Vec<u8>, BoundaryError> {
    match route_request(dialect, frame, partitions)?.route {
        Route::Groups(split) | Route::EveryPartition(split) => split.merge(answers),
        _ => Err(BoundaryError::input(
            "",
            "not a request split by partition: the one answer is the response",
        )),
    }
}

/// Whether `group_id` is one of a host's groups: its `__consumer_offsets` partition (of
/// `partitions`) is one `owns` says the host leads. A host answers a request for a group that
/// is not with `NOT_COORDINATOR` ([`error_response`](super::error_response)), and the client
/// looks for the coordinator again.
pub fn is_mine(group_id: &str, partitions: i32, owns: impl Fn(i32) -> bool) -> bool {
    owns(partition_for(group_id, partitions))
}

/// The group of a request for one group: the body's first field (a transactional commit's
/// second, after its transactional id).
fn single_group(
    dialect: Dialect,
    key: i16,
    v: i16,
    body: &[u8],
) -> Result<String, super::super::codec::WireError> {
    if key == kafka::txn_offset_commit_request::API_KEY {
        let flexible = v >= kafka::txn_offset_commit_request::FLEXIBLE_FROM;
        let mut r = Reader::new(body);
        r.string(flexible, "TransactionalId")?;
        return r.string(flexible, "GroupId");
    }
    let draft = dialect == Dialect::Kip1071Draft;
    // Every other API of one group is flexible from version 0 but the offsets APIs.
    let flexible_from = match key {
        8 => kafka::offset_commit_request::FLEXIBLE_FROM,
        9 => kafka::offset_fetch_request::FLEXIBLE_FROM,
        47 => kafka::offset_delete_request::FLEXIBLE_FROM,
        88 if draft => draft::streams_group_initialize_request::FLEXIBLE_FROM,
        89 if draft => draft::streams_group_heartbeat_request::FLEXIBLE_FROM,
        93 => kafka::streams_group_topology_description_update_request::FLEXIBLE_FROM,
        _ => kafka::streams_group_heartbeat_request::FLEXIBLE_FROM,
    };
    Reader::new(body).string(v >= flexible_from, "GroupId")
}

/// The request field that lists the groups of a request for several groups (`None`: a
/// request for one group).
pub(super) fn multi_group_field(dialect: Dialect, key: i16, v: i16) -> Option<&'static str> {
    let draft = dialect == Dialect::Kip1071Draft;
    match key {
        42 => Some("groupsNames"),
        9 if v >= 8 => Some("groups"),
        15 => Some("groups"),
        69 => Some("groupIds"),
        89 if !draft => Some("groupIds"),
        90 if draft => Some("groupIds"),
        _ => None,
    }
}

//! The shared group APIs answered by both sides: Nisshi for its classic groups, the
//! coordinators for the streams groups. A request naming groups of both kinds goes to both, and
//! the answer is Nisshi's with the entries of the streams groups taken from the coordinators'
//! answer (in the request's order, as Nisshi answers); `ListGroups` lists the groups of both.

use streams_group_coordinator::wire;
use streams_group_coordinator::wire::codec::Reader;
use streams_group_coordinator::wire::messages::kafka::{
    consumer_group_describe_response as cgd, delete_groups_response as del,
    describe_groups_response as desc, list_groups_response as list, offset_fetch_response as fetch,
    response_header::ResponseHeader,
};

/// A response frame read as its correlation id, header version and message.
fn read<T>(
    frame: &[u8],
    version: i16,
    flexible_from: i16,
    message: impl Fn(&mut Reader<'_>, i16) -> Result<T, wire::codec::WireError>,
) -> Option<(i32, i16, T)> {
    let header_version = i16::from(version >= flexible_from);
    let mut r = Reader::new(frame);
    let header = ResponseHeader::read(&mut r, header_version).ok()?;
    let body = message(&mut r, version).ok()?;
    Some((header.correlation_id, header_version, body))
}

/// Nisshi's answer (`nisshi`) with the entries of the `streams` groups taken from the
/// coordinators' (`ours`); `None` when an answer does not read.
pub fn merge(
    key: i16,
    version: i16,
    nisshi: &[u8],
    ours: &[u8],
    streams: &[String],
) -> Option<Vec<u8>> {
    let is_streams = |g: &str| streams.iter().any(|s| s == g);
    match key {
        desc::API_KEY => {
            let (corr, hv, mut n) = read(
                nisshi,
                version,
                desc::FLEXIBLE_FROM,
                desc::DescribeGroupsResponse::read,
            )?;
            let (_, _, o) = read(
                ours,
                version,
                desc::FLEXIBLE_FROM,
                desc::DescribeGroupsResponse::read,
            )?;
            for g in n.groups.iter_mut().filter(|g| is_streams(&g.group_id)) {
                if let Some(mine) = o.groups.iter().find(|m| m.group_id == g.group_id) {
                    *g = mine.clone();
                }
            }
            Some(wire::respond(corr, hv, |w| n.write(w, version)))
        }
        cgd::API_KEY => {
            let (corr, hv, mut n) = read(
                nisshi,
                version,
                cgd::FLEXIBLE_FROM,
                cgd::ConsumerGroupDescribeResponse::read,
            )?;
            let (_, _, o) = read(
                ours,
                version,
                cgd::FLEXIBLE_FROM,
                cgd::ConsumerGroupDescribeResponse::read,
            )?;
            for g in n.groups.iter_mut().filter(|g| is_streams(&g.group_id)) {
                if let Some(mine) = o.groups.iter().find(|m| m.group_id == g.group_id) {
                    *g = mine.clone();
                }
            }
            Some(wire::respond(corr, hv, |w| n.write(w, version)))
        }
        del::API_KEY => {
            let (corr, hv, mut n) = read(
                nisshi,
                version,
                del::FLEXIBLE_FROM,
                del::DeleteGroupsResponse::read,
            )?;
            let (_, _, o) = read(
                ours,
                version,
                del::FLEXIBLE_FROM,
                del::DeleteGroupsResponse::read,
            )?;
            for g in n.results.iter_mut().filter(|g| is_streams(&g.group_id)) {
                if let Some(mine) = o.results.iter().find(|m| m.group_id == g.group_id) {
                    *g = mine.clone();
                }
            }
            Some(wire::respond(corr, hv, |w| n.write(w, version)))
        }
        fetch::API_KEY => {
            let (corr, hv, mut n) = read(
                nisshi,
                version,
                fetch::FLEXIBLE_FROM,
                fetch::OffsetFetchResponse::read,
            )?;
            let (_, _, o) = read(
                ours,
                version,
                fetch::FLEXIBLE_FROM,
                fetch::OffsetFetchResponse::read,
            )?;
            for g in n.groups.iter_mut().filter(|g| is_streams(&g.group_id)) {
                if let Some(mine) = o.groups.iter().find(|m| m.group_id == g.group_id) {
                    *g = mine.clone();
                }
            }
            Some(wire::respond(corr, hv, |w| n.write(w, version)))
        }
        list::API_KEY => {
            let (corr, hv, mut n) = read(
                nisshi,
                version,
                list::FLEXIBLE_FROM,
                list::ListGroupsResponse::read,
            )?;
            let (_, _, o) = read(
                ours,
                version,
                list::FLEXIBLE_FROM,
                list::ListGroupsResponse::read,
            )?;
            if n.error_code == 0 {
                n.error_code = o.error_code;
            }
            for g in o.groups {
                if !n.groups.iter().any(|m| m.group_id == g.group_id) {
                    n.groups.push(g);
                }
            }
            Some(wire::respond(corr, hv, |w| n.write(w, version)))
        }
        _ => None,
    }
}

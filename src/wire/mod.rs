//! Kafka's wire protocol: a request frame in (header and body, without the 4-byte size the
//! host reads), the response frame out, through the same [`Coordinator::handle`] as the JSON
//! face. The messages are generated from Kafka's schema files (`messages/`, by
//! `tools/wire-codegen`); this module maps them to the coordinator's inputs and its responses
//! back, and answers `ApiVersions` itself.
//!
//! Kafka answers a request it cannot parse (an API key it does not serve, a version it does not
//! support, a body that does not decode) by closing the connection, and so does a host of this
//! module: such a frame gets a boundary error `INVALID_FRAME`, with no response and no change.
//! `ApiVersions` is the exception, as in Kafka: an unsupported version is answered with
//! `UNSUPPORTED_VERSION` (35) at version 0.

pub mod authz;
pub mod codec;
pub mod host;
pub mod messages;

mod api_versions;
mod offsets;
mod requests;
mod responses;

use crate::api::{ClientInfo, Input, InputKind, Output, Response};
use crate::records::Dialect;
use crate::Coordinator;
use crate::{BoundaryCode, BoundaryError};

pub use crate::{duplicate_topic_names, in_java_hash_set_order};
pub use api_versions::{api_ranges, served, SharedApis};
use authz::Authorizer;
use codec::{Reader, WireError};
use messages::kafka::{request_header::RequestHeader, response_header::ResponseHeader};
use messages::versions::ApiRange;
pub use offsets::MetadataCache;

/// What a request frame gives: the response frame to send (header and body, without the size
/// prefix), and the same records, topics to create, `explain` and next deadline as the JSON
/// face's [`Output`] (whose `response` is `None`: the frame carries it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameOutput {
    /// The response frame.
    pub frame: Vec<u8>,
    /// The coordinator's output for the request without its response (empty for
    /// `ApiVersions`).
    pub output: Output,
}

/// Who sent a frame, as the broker saw the connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Peer {
    /// The client's address as Kafka prints it (`/10.0.0.1`).
    pub client_host: String,
}

/// A request frame's header, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The API key.
    pub api_key: i16,
    /// The API version.
    pub api_version: i16,
    /// Echoed in the response.
    pub correlation_id: i32,
    /// The client id (`None`: null).
    pub client_id: Option<String>,
}

fn frame_error(path: &str, message: impl Into<String>) -> BoundaryError {
    BoundaryError::new(BoundaryCode::InvalidFrame, path, message)
}

fn body_error(api: &str, e: &WireError) -> BoundaryError {
    frame_error(
        &format!("body.{}", e.field),
        format!("cannot read {api}: {e}; Kafka closes the connection"),
    )
}

/// Whether version `v` of the message with `flexible_from` is flexible.
fn flexible(v: i16, flexible_from: i16) -> bool {
    v >= flexible_from
}

/// Reads a request header (version 2 for a flexible request version, else 1).
pub fn read_header(frame: &[u8]) -> Result<(Header, usize), BoundaryError> {
    let mut h = RequestHeader::default();
    let at = read_header_into(frame, &mut h)?;
    let client_id = h.client_id.take();
    Ok((Header::of(&h, client_id), at))
}

impl Header {
    /// The header `read` with `client_id` (the coordinator's input takes the read one's).
    fn of(read: &RequestHeader, client_id: Option<String>) -> Header {
        Header {
            api_key: read.request_api_key,
            api_version: read.request_api_version,
            correlation_id: read.correlation_id,
            client_id,
        }
    }
}

/// [`read_header`] into a kept header (its client id's buffer reused); the body's offset.
fn read_header_into(frame: &[u8], h: &mut RequestHeader) -> Result<usize, BoundaryError> {
    if frame.len() < 8 {
        return Err(frame_error(
            "header",
            format!(
                "a request header needs at least 8 bytes, the frame has {}",
                frame.len()
            ),
        ));
    }
    let api_key = i16::from_be_bytes([frame[0], frame[1]]);
    let api_version = i16::from_be_bytes([frame[2], frame[3]]);
    let header_version = if flexible(api_version, requests::flexible_from(api_key)) {
        2
    } else {
        1
    };
    let mut r = Reader::new(frame);
    h.read_into(&mut r, header_version).map_err(|e| {
        frame_error(
            &format!("header.{}", e.field),
            format!("cannot read the request header: {e}"),
        )
    })?;
    Ok(r.position())
}

/// `ApiVersions` answered for a host that serves more than the coordinator (a broker, `sgc
/// serve`): the dialect's APIs and `extra`, with Kafka's rules for an unsupported version; an
/// API in both at the dialect's versions.
pub fn answer_api_versions(
    dialect: Dialect,
    frame: &[u8],
    extra: &[ApiRange],
) -> Result<Vec<u8>, BoundaryError> {
    answer_api_versions_with(dialect, frame, extra, SharedApis::Dialect)
}

/// [`answer_api_versions`] with the rule for an API both the dialect and the host list
/// (`host`): the dialect's versions, or those both serve ([`api_ranges`]).
pub fn answer_api_versions_with(
    dialect: Dialect,
    frame: &[u8],
    host: &[ApiRange],
    shared: SharedApis,
) -> Result<Vec<u8>, BoundaryError> {
    let (header, at) = read_header(frame)?;
    if header.api_key != api_versions::API_KEY {
        return Err(frame_error(
            "header.RequestApiKey",
            "not an ApiVersions request",
        ));
    }
    Ok(api_versions::answer(
        dialect,
        &header,
        &frame[at..],
        (host, shared),
    ))
}

/// Writes a response header (version 1 with tagged fields for a flexible version, else 0) and
/// then the body through `body`: a response frame of a host's own APIs.
pub fn respond(
    correlation_id: i32,
    header_version: i16,
    body: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    let mut w = Vec::with_capacity(256);
    ResponseHeader { correlation_id }.write(&mut w, header_version);
    body(&mut w);
    w
}

/// The API a dialect serves for `key`, if it serves it.
fn api(dialect: Dialect, key: i16) -> Option<ApiRange> {
    api_versions::lookup(dialect, key)
}

/// What a host keeps from one request frame to the next, beside its response buffer: the
/// header, the heartbeat input and the generated messages they are read into. Read into again,
/// they keep their strings' buffers, and the heartbeat's response goes back to the coordinator
/// ([`Coordinator::recycle`]) once written: with it, a steady heartbeat allocates nothing.
#[derive(Debug)]
pub struct FrameScratch {
    header: RequestHeader,
    messages: requests::HeartbeatMessages,
    heartbeat: Input,
}

impl Default for FrameScratch {
    fn default() -> Self {
        FrameScratch {
            header: RequestHeader::default(),
            messages: requests::HeartbeatMessages::default(),
            heartbeat: Input {
                now_ms: 0,
                kind: InputKind::StreamsGroupHeartbeat {
                    client: ClientInfo::default(),
                    request: Box::default(),
                },
            },
        }
    }
}

/// Handles one request frame: decodes it, runs it through `coordinator` at `now_ms` (its
/// `Input::now_ms`), and encodes the response. Errors change nothing.
pub fn handle_frame(
    coordinator: &mut Coordinator,
    frame: &[u8],
    now_ms: i64,
    peer: &Peer,
) -> Result<FrameOutput, BoundaryError> {
    let mut out = Vec::with_capacity(256);
    let output = handle_frame_into(coordinator, frame, now_ms, peer, &mut out)?;
    Ok(FrameOutput { frame: out, output })
}

/// [`handle_frame`] writing the response frame into `out` (cleared first, its capacity kept:
/// a host that keeps one buffer per connection allocates nothing for responses); the output
/// has no `response` (the frame carries it, and the typed response was moved into it).
pub fn handle_frame_into(
    coordinator: &mut Coordinator,
    frame: &[u8],
    now_ms: i64,
    peer: &Peer,
    out: &mut Vec<u8>,
) -> Result<Output, BoundaryError> {
    handle_frame_with(
        coordinator,
        &mut FrameScratch::default(),
        frame,
        now_ms,
        peer,
        out,
    )
}

/// [`handle_frame_into`] reading the frame into `scratch`, which the host keeps from one frame
/// to the next (one per coordinator): a steady heartbeat allocates nothing.
pub fn handle_frame_with(
    coordinator: &mut Coordinator,
    scratch: &mut FrameScratch,
    frame: &[u8],
    now_ms: i64,
    peer: &Peer,
    out: &mut Vec<u8>,
) -> Result<Output, BoundaryError> {
    handle(coordinator, scratch, frame, (now_ms, peer), out, None, None)
}

/// [`handle_frame_with`] behind Kafka's broker front-end, for a host that knows the cluster's
/// topics (`sgc serve`): version-10 ids are named by `topics` rather than by the coordinator's
/// topic image, and a commit, transactional commit or offset delete of a topic or partition
/// `topics` does not know is answered `UNKNOWN_TOPIC_OR_PARTITION` for it without reaching the
/// coordinator, the answers merged in Kafka's order (`KafkaApis.handleOffsetCommitRequest`,
/// `handleTxnOffsetCommitRequest`, `handleOffsetDeleteRequest`).
pub fn handle_frame_checked(
    coordinator: &mut Coordinator,
    scratch: &mut FrameScratch,
    frame: &[u8],
    now_ms: i64,
    peer: &Peer,
    out: &mut Vec<u8>,
    topics: &dyn MetadataCache,
) -> Result<Output, BoundaryError> {
    handle(
        coordinator,
        scratch,
        frame,
        (now_ms, peer),
        out,
        Some(topics),
        None,
    )
}

/// What a broker knows beside the coordinator when it answers a frame for a client: the
/// cluster's topics (`None`: the coordinator's topic image names ids and nothing is checked, as
/// [`handle_frame_with`]) and the authorizer of the client's principal.
#[derive(Clone, Copy)]
pub struct Broker<'a> {
    /// The host's metadata cache, as [`handle_frame_checked`] takes it.
    pub topics: Option<&'a dyn MetadataCache>,
    /// Who may do what ([`authz::Decisions`], or the host's own).
    pub authorizer: &'a dyn Authorizer,
}

/// [`handle_frame_checked`] (or [`handle_frame_with`] without a metadata cache) behind Kafka's
/// authorization: each API's checks of `KafkaApis` in the dialect's release, a client that is
/// not allowed answered exactly as Kafka answers it (`GROUP_AUTHORIZATION_FAILED`,
/// `TOPIC_AUTHORIZATION_FAILED`, `TRANSACTIONAL_ID_AUTHORIZATION_FAILED`, groups and topics it
/// may not describe left out, internal topics it may not create reported and not created;
/// docs/authorization.md). A request denied as a whole changes nothing.
pub fn handle_frame_authorized(
    coordinator: &mut Coordinator,
    scratch: &mut FrameScratch,
    frame: &[u8],
    now_ms: i64,
    peer: &Peer,
    out: &mut Vec<u8>,
    broker: Broker<'_>,
) -> Result<Output, BoundaryError> {
    handle(
        coordinator,
        scratch,
        frame,
        (now_ms, peer),
        out,
        broker.topics,
        Some(broker.authorizer),
    )
}

/// A frame through the front-end (`cache`: a host's, else the coordinator's topic image
/// names ids and nothing is checked), the coordinator and back.
fn handle(
    coordinator: &mut Coordinator,
    scratch: &mut FrameScratch,
    frame: &[u8],
    (now_ms, peer): (i64, &Peer),
    out: &mut Vec<u8>,
    cache: Option<&dyn MetadataCache>,
    authorizer: Option<&dyn Authorizer>,
) -> Result<Output, BoundaryError> {
    let dialect = coordinator.config().dialect;
    // The key first, as Kafka looks it up before it reads the rest of the header.
    let key = match frame {
        [a, b, ..] => i16::from_be_bytes([*a, *b]),
        _ => 0,
    };
    if frame.len() < 8 {
        read_header(frame)?;
    }
    let Some(served) = api(dialect, key) else {
        return Err(frame_error(
            "header.RequestApiKey",
            format!(
                "API key {key} is not served by this coordinator ({}); Kafka closes the connection",
                dialect.name()
            ),
        ));
    };
    let at = read_header_into(frame, &mut scratch.header)?;
    let body = &frame[at..];
    let read = &mut scratch.header;
    let mut header = Header::of(read, None);
    let v = header.api_version;
    if header.api_key == api_versions::API_KEY {
        header.client_id = read.client_id.take();
        *out = api_versions::answer(dialect, &header, body, (&[], SharedApis::Dialect));
        return Ok(Output::default());
    }
    if v < served.min || v > served.max {
        return Err(frame_error(
            "header.RequestApiVersion",
            format!(
                "{} version {v} is not supported ({}-{} in {}); Kafka closes the connection",
                served.name,
                served.min,
                served.max,
                dialect.name()
            ),
        ));
    }
    if requests::is_heartbeat(dialect, header.api_key) {
        let request = (dialect, &header, served.name, body);
        return heartbeat(
            coordinator,
            scratch,
            request,
            (now_ms, peer),
            out,
            authorizer,
        );
    }
    // The response header needs only the correlation id: the client id moves to the input.
    let client = ClientInfo {
        client_id: read.client_id.take().unwrap_or_default(),
        client_host: peer.client_host.clone(),
    };
    let mut kind = requests::decode(dialect, &header, body, client)
        .map_err(|e| body_error(served.name, &e))?;
    let lookup = match cache {
        Some(c) => offsets::Lookup::Cache(c),
        None => offsets::Lookup::Image(coordinator.topics()),
    };
    let gate = match authorizer {
        Some(a) => authz::before(a, dialect, &mut kind),
        None => authz::Gate::default(),
    };
    let topic_op = authz::topic_operation(&kind);
    let check = authorizer
        .zip(topic_op)
        .map(|(a, op)| move |name: &str| a.authorize(op, authz::ResourceType::Topic, name));
    let allowed = check.as_ref().map(|f| f as &dyn Fn(&str) -> bool);
    let (front, early) = match gate.answer {
        Some(answer) => (None, Some(answer)),
        None => {
            let front = offsets::resolve(&lookup, &mut kind, allowed);
            (front, offsets::answered_before_coordinator(&kind))
        }
    };
    let mut output = match early {
        Some(response) => Output {
            response: Some(response),
            ..Output::default()
        },
        None => coordinator.handle(Input { now_ms, kind })?,
    };
    match output.response.take() {
        Some(mut response) => {
            if let Some(f) = front {
                offsets::merge(f, &mut response, allowed);
            }
            if let Some(a) = authorizer {
                authz::after(a, gate.after, &mut response);
            }
            if let Some(kept) = responses::encode_into(&header, response, out) {
                coordinator.recycle(kept);
            }
        }
        None => return Err(frame_error("", format!("{} gave no response", served.name))),
    }
    Ok(output)
}

/// A heartbeat frame of [`handle_frame_with`]: its body read into the kept input, the client
/// id and host copied into its buffers, the response written and handed back for reuse.
fn heartbeat(
    coordinator: &mut Coordinator,
    scratch: &mut FrameScratch,
    (dialect, header, api, body): (Dialect, &Header, &str, &[u8]),
    (now_ms, peer): (i64, &Peer),
    out: &mut Vec<u8>,
    authorizer: Option<&dyn Authorizer>,
) -> Result<Output, BoundaryError> {
    let input = &mut scratch.heartbeat;
    input.now_ms = now_ms;
    let InputKind::StreamsGroupHeartbeat { client, request } = &mut input.kind else {
        return Err(frame_error(
            "",
            "the kept heartbeat input is not a heartbeat",
        ));
    };
    requests::heartbeat_into(
        dialect,
        header.api_version,
        body,
        &mut scratch.messages,
        request,
    )
    .map_err(|e| body_error(api, &e))?;
    match &mut scratch.header.client_id {
        // Swapped: the header keeps the input's old buffer for the next frame's id.
        Some(id) => std::mem::swap(id, &mut client.client_id),
        None => client.client_id.clear(),
    }
    client.client_host.clear();
    client.client_host.push_str(&peer.client_host);
    if let Some(denied) = authorizer.and_then(|a| authz::heartbeat_deny(a, dialect, request)) {
        responses::encode_into(header, denied, out);
        return Ok(Output::default());
    }
    let mut output = coordinator.handle_ref(input)?;
    let Some(mut response) = output.response.take() else {
        return Err(frame_error("", format!("{api} gave no response")));
    };
    if let Some(a) = authorizer {
        authz::heartbeat_after(a, &mut response, &mut output);
    }
    if let Some(kept) = responses::encode_into(header, response, out) {
        coordinator.recycle(kept);
    }
    Ok(output)
}

/// The input a request frame stands for, for people and tests (`sgc frame`): the header and
/// the coordinator input its body decodes to.
pub fn decode_request(
    dialect: Dialect,
    frame: &[u8],
) -> Result<(Header, Option<InputKind>), BoundaryError> {
    let (header, at) = read_header(frame)?;
    if header.api_key == api_versions::API_KEY {
        return Ok((header, None));
    }
    let Some(served) = api(dialect, header.api_key) else {
        return Err(frame_error(
            "header.RequestApiKey",
            format!("API key {} is not served", header.api_key),
        ));
    };
    let kind = requests::decode(dialect, &header, &frame[at..], ClientInfo::default())
        .map_err(|e| body_error(served.name, &e))?;
    Ok((header, Some(kind)))
}

/// A request frame as its header and Kafka's JSON form of its body (field names as in the
/// schema, first letter lowercased), for people (`sgc frame-json`).
pub fn request_json(
    dialect: Dialect,
    frame: &[u8],
) -> Result<(Header, serde_json::Value), BoundaryError> {
    let (header, at) = read_header(frame)?;
    let name = api(dialect, header.api_key).map_or("the request", |a| a.name);
    let json =
        requests::decode_json(dialect, &header, &frame[at..]).map_err(|e| body_error(name, &e))?;
    Ok((header, json))
}

/// Encodes a coordinator input as the request frame a client would send (`None` for inputs
/// that are not requests, or an API version the dialect does not serve).
pub fn encode_request(
    dialect: Dialect,
    kind: &InputKind,
    api_version: i16,
    correlation_id: i32,
) -> Option<Vec<u8>> {
    let frame = requests::encode(dialect, kind, api_version, correlation_id)?;
    let served = api(
        dialect,
        i16::from_be_bytes([*frame.first()?, *frame.get(1)?]),
    )?;
    (served.min..=served.max)
        .contains(&api_version)
        .then_some(frame)
}

/// A response frame decoded into Kafka's JSON form of the response message (field names as in
/// the schema, first letter lowercased), for people and tests.
pub fn response_json(
    dialect: Dialect,
    api_key: i16,
    api_version: i16,
    frame: &[u8],
) -> Result<(i32, serde_json::Value), BoundaryError> {
    responses::decode_json(dialect, api_key, api_version, frame)
}

/// The typed response of the JSON face, as the JSON the wire form of it decodes to
/// (`response_json`): what a scenario's response looks like once through the wire.
pub fn response_as_wire_json(
    dialect: Dialect,
    api_version: i16,
    response: &Response,
) -> Option<serde_json::Value> {
    responses::as_wire_json(dialect, api_version, response)
}

/// Splits Kafka's size-prefixed stream (an int32 size, then that many bytes, repeated) into
/// frames; an error names the offset of a size that runs past the end.
pub fn split_frames(stream: &[u8]) -> Result<Vec<&[u8]>, BoundaryError> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < stream.len() {
        let Some(size) = stream.get(at..at + 4) else {
            return Err(frame_error(
                &format!("stream[{at}]"),
                "a frame size needs 4 bytes",
            ));
        };
        let size = i32::from_be_bytes([size[0], size[1], size[2], size[3]]);
        let start = at + 4;
        let end = usize::try_from(size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .filter(|&e| e <= stream.len())
            .ok_or_else(|| {
                frame_error(
                    &format!("stream[{at}]"),
                    format!(
                        "a frame of {size} bytes where {} are left",
                        stream.len() - start
                    ),
                )
            })?;
        out.push(&stream[start..end]);
        at = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

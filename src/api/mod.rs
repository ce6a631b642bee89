//! The JSON boundary (DESIGN 3): inputs, outputs, `explain` entries and boundary errors.

pub mod common;
mod decode;
pub mod describe;
pub mod describe_groups;
mod explain;
pub mod heartbeat;
#[cfg(feature = "heartbeat-text")]
mod heartbeat_text;
pub mod initialize;
pub mod list_groups;
pub mod offsets;
#[cfg(feature = "replay-text")]
mod replay_text;
pub mod response;
#[cfg(any(feature = "heartbeat-text", feature = "replay-text"))]
mod scan;
mod text;
pub mod topology_description;
mod tree;

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{BoundaryCode, BoundaryError, JsonPath};
use crate::records::json::RecordJson;
use crate::records::{Dialect, Record};
use crate::topology::TopicToCreate;
#[cfg(feature = "replay-text")]
pub(crate) use replay_text::replay_from_text;

pub use common::*;
pub use decode::decode_value;
pub use describe::*;
pub use describe_groups::*;
pub use explain::Explain;
pub use heartbeat::*;
pub use initialize::*;
pub use list_groups::*;
pub use offsets::*;
pub use response::*;
pub use topology_description::*;
pub use tree::{json_tree, tree_from, MAX_TREE_VALUES};

/// The longest list accepted anywhere in an input.
pub const MAX_LIST_LEN: usize = 1_000_000;
/// The longest string accepted anywhere in an input: Kafka's limit for record strings, so that
/// every id the coordinator writes can be read back.
pub const MAX_STRING_BYTES: usize = 32_767;
/// The deepest nesting accepted in an input.
pub const MAX_DEPTH: usize = 32;
/// The longest input text read as a JSON tree (16 MiB). A tree takes up to about 16 times its
/// text (a list of zeros: two bytes of text, a 32-byte value each), and the list limit is
/// checked on the tree, so a longer text could exhaust a wasm module's memory (which ends its
/// instance) before any limit answered. A heartbeat and a `Replay` in the bytes form are read
/// without a tree (and a heartbeat is within [`MAX_STRING_BYTES`]).
pub const MAX_TREE_INPUT_BYTES: usize = 16 << 20;

/// `client` of an input (optional; both fields default to `""`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientInfo {
    #[serde(default)]
    /// Kafka's `clientId` of the request header.
    pub client_id: String,
    #[serde(default)]
    /// The client's host as the broker saw it (`/10.0.0.1`).
    pub client_host: String,
}

/// One topic of a `TopicMetadata` input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TopicSpec {
    /// The topic name.
    pub name: String,
    /// The partition count.
    pub partitions: i32,
    /// Kafka's 22-character URL-safe base64 form.
    #[serde(default)]
    pub topic_id: Option<String>,
    /// `racks[p]`: the rack ids of partition `p`'s replicas.
    #[serde(default)]
    pub racks: Option<Vec<Vec<String>>>,
}

/// What a host sends the coordinator: one variant per input `type` of DESIGN 3, whose fields
/// are the input's keys.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq)]
pub enum InputKind {
    StreamsGroupHeartbeat {
        client: ClientInfo,
        request: Box<HeartbeatRequest>,
    },
    StreamsGroupInitialize {
        client: ClientInfo,
        request: InitializeRequest,
    },
    StreamsGroupDescribe {
        request: DescribeRequest,
    },
    TopicMetadata {
        topics: Vec<TopicSpec>,
        deleted_topics: Vec<String>,
    },
    AdvanceTime,
    DeleteGroups {
        group_ids: Vec<String>,
    },
    /// Records are decoded by the coordinator, which knows its dialect.
    Replay {
        records: Vec<Value>,
    },
    SetTargetAssignment {
        group_id: String,
        assignment: BTreeMap<String, AssignmentJson>,
    },
    /// `apiVersion`: the version the request came at (default: the newest served, 10).
    OffsetCommit {
        api_version: i16,
        request: OffsetCommitRequest,
    },
    /// `apiVersion`: the version the request came at (default: the newest served, 10).
    OffsetFetch {
        api_version: i16,
        request: OffsetFetchRequest,
    },
    /// Kafka's API key 47 (version 0 only).
    OffsetDelete {
        request: OffsetDeleteRequest,
    },
    /// Kafka's API key 15, the classic groups' describe; `apiVersion`: the version the request
    /// came at (default: the newest served, 6).
    DescribeGroups {
        api_version: i16,
        request: DescribeGroupsRequest,
    },
    /// Kafka's API key 69, the consumer groups' describe.
    ConsumerGroupDescribe {
        request: ConsumerGroupDescribeRequest,
    },
    /// Kafka's API key 28; `apiVersion`: the version the request came at (default 5, the
    /// newest every release serves; 6 in `kafka-4.4`).
    TxnOffsetCommit {
        api_version: i16,
        request: TxnOffsetCommitRequest,
    },
    /// A transaction's end marker in the partition (Kafka's coordinator learns it from the
    /// `WriteTxnMarkers` the transaction coordinator sends): the host reports it, and reports it
    /// again at its place in the log when it replays the log (docs/transactions.md).
    TransactionCompleted {
        producer_id: i64,
        producer_epoch: i16,
        result: TransactionResult,
    },
    /// `request` is optional: no filter lists every group.
    ListGroups {
        request: ListGroupsRequest,
    },
    /// Kafka 4.4 (API key 93): a member's topology description for the description store.
    StreamsGroupTopologyDescriptionUpdate {
        request: TopologyDescriptionUpdateRequest,
    },
    /// A group's whole set of group-level configs (Kafka's `GroupConfig`, from the metadata
    /// image): `{name: value}`, read in the dialect's release (`group_config::parse`).
    GroupConfig {
        group_id: String,
        configs: Map<String, Value>,
    },
}

#[derive(Clone, Debug, PartialEq)]
/// One input: the time it happens at and what it is.
pub struct Input {
    /// The host's clock at this input; time never goes back (a smaller value counts as the latest seen).
    pub now_ms: i64,
    /// What the input is.
    pub kind: InputKind,
}

/// Every input `type`, as the boundary error for an unknown one lists them.
pub const INPUT_TYPES: &[&str] = &[
    "StreamsGroupHeartbeat",
    "StreamsGroupInitialize",
    "StreamsGroupDescribe",
    "TopicMetadata",
    "AdvanceTime",
    "DeleteGroups",
    "Replay",
    "SetTargetAssignment",
    "OffsetCommit",
    "OffsetFetch",
    "ListGroups",
    "StreamsGroupTopologyDescriptionUpdate",
    "OffsetDelete",
    "DescribeGroups",
    "ConsumerGroupDescribe",
    "TxnOffsetCommit",
    "TransactionCompleted",
    "GroupConfig",
];

impl Input {
    /// Parses one JSON input; a boundary error names the JSON path of what is wrong.
    pub fn parse(text: &str) -> Result<Input, BoundaryError> {
        match Input::parse_heartbeat(text) {
            Some(input) => Ok(input),
            None => Input::parse_tree(text),
        }
    }

    /// The fast way in for a heartbeat's text ([`heartbeat_from_text`]), when it answers.
    pub(crate) fn parse_heartbeat(text: &str) -> Option<Input> {
        #[cfg(feature = "heartbeat-text")]
        return heartbeat_from_text(text);
        #[cfg(not(feature = "heartbeat-text"))]
        {
            let _ = text;
            None
        }
    }

    /// [`Input::parse`] by the general way: the JSON tree, its shape checked, then typed.
    pub(crate) fn parse_tree(text: &str) -> Result<Input, BoundaryError> {
        let mut value = json_tree(text, "")?;
        check_shape(&value, &JsonPath::Root(""), 0)?;
        // A Replay's records are moved into the input, not copied out of the parsed text.
        let records = match &mut value {
            Value::Object(obj) if obj.get("type").and_then(Value::as_str) == Some("Replay") => {
                match obj.get_mut("records") {
                    Some(Value::Array(items)) => Some(std::mem::take(items)),
                    _ => None,
                }
            }
            _ => None,
        };
        let mut input = Input::from_checked_value(&value)?;
        if let (Some(moved), InputKind::Replay { records }) = (records, &mut input.kind) {
            *records = moved;
        }
        Ok(input)
    }

    /// [`Input::parse`] of an already parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Input, BoundaryError> {
        check_shape(value, &JsonPath::Root(""), 0)?;
        Input::from_checked_value(value)
    }

    /// [`Input::from_value`] once the shape limits are checked.
    fn from_checked_value(value: &Value) -> Result<Input, BoundaryError> {
        let Value::Object(obj) = value else {
            return Err(BoundaryError::input("", "an input must be a JSON object"));
        };
        let now_ms = match obj.get("nowMs") {
            None => return Err(BoundaryError::input("nowMs", "missing field `nowMs`")),
            Some(v) => v
                .as_i64()
                .filter(|n| *n >= 0)
                .ok_or_else(|| BoundaryError::input("nowMs", "must be a non-negative integer"))?,
        };
        let ty = match obj.get("type") {
            None => return Err(BoundaryError::input("type", "missing field `type`")),
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(BoundaryError::input("type", "must be a string")),
        };
        let allowed: &[&str] = match ty {
            "StreamsGroupHeartbeat" => &["apiVersion", "client", "request"],
            "StreamsGroupInitialize" => &["client", "request"],
            "StreamsGroupDescribe" => &["apiVersion", "request"],
            "ListGroups"
            | "StreamsGroupTopologyDescriptionUpdate"
            | "OffsetDelete"
            | "ConsumerGroupDescribe" => &["request"],
            "TopicMetadata" => &["topics", "deletedTopics"],
            "AdvanceTime" => &[],
            "DeleteGroups" => &["groupIds"],
            "Replay" => &["records"],
            "SetTargetAssignment" => &["groupId", "assignment"],
            "GroupConfig" => &["groupId", "configs"],
            "OffsetCommit" | "OffsetFetch" | "DescribeGroups" | "TxnOffsetCommit" => {
                &["apiVersion", "request"]
            }
            "TransactionCompleted" => &["producerId", "producerEpoch", "result"],
            other => {
                return Err(BoundaryError::input(
                    "type",
                    format!(
                        "unknown input type {other:?}; expected one of {}",
                        INPUT_TYPES.join(", ")
                    ),
                ))
            }
        };
        for key in obj.keys() {
            if key != "nowMs" && key != "type" && !allowed.contains(&key.as_str()) {
                return Err(BoundaryError::input(
                    key.clone(),
                    format!("unknown field `{key}` for input type {ty}"),
                ));
            }
        }
        let kind = match ty {
            "StreamsGroupHeartbeat" => InputKind::StreamsGroupHeartbeat {
                client: optional(obj, "client")?,
                request: {
                    let v = streams_version(obj)?;
                    let mut r: Box<HeartbeatRequest> = required(obj, "request")?;
                    r.api_version = v;
                    r
                },
            },
            "StreamsGroupInitialize" => InputKind::StreamsGroupInitialize {
                client: optional(obj, "client")?,
                request: required(obj, "request")?,
            },
            "StreamsGroupDescribe" => InputKind::StreamsGroupDescribe {
                request: {
                    let v = streams_version(obj)?;
                    let mut r: DescribeRequest = required(obj, "request")?;
                    r.api_version = v;
                    r
                },
            },
            "TopicMetadata" => InputKind::TopicMetadata {
                topics: optional(obj, "topics")?,
                deleted_topics: optional(obj, "deletedTopics")?,
            },
            "AdvanceTime" => InputKind::AdvanceTime,
            "DeleteGroups" => InputKind::DeleteGroups {
                group_ids: required(obj, "groupIds")?,
            },
            "Replay" => InputKind::Replay {
                records: values(obj, "records")?,
            },
            "OffsetCommit" => InputKind::OffsetCommit {
                api_version: api_version(obj, OFFSET_COMMIT_VERSIONS)?,
                request: required(obj, "request")?,
            },
            "OffsetFetch" => InputKind::OffsetFetch {
                api_version: api_version(obj, OFFSET_FETCH_VERSIONS)?,
                request: required(obj, "request")?,
            },
            "ListGroups" => InputKind::ListGroups {
                request: optional(obj, "request")?,
            },
            "OffsetDelete" => InputKind::OffsetDelete {
                request: required(obj, "request")?,
            },
            "DescribeGroups" => InputKind::DescribeGroups {
                api_version: api_version(obj, DESCRIBE_GROUPS_VERSIONS)?,
                request: required(obj, "request")?,
            },
            "ConsumerGroupDescribe" => InputKind::ConsumerGroupDescribe {
                request: required(obj, "request")?,
            },
            "TxnOffsetCommit" => InputKind::TxnOffsetCommit {
                api_version: match obj.get("apiVersion") {
                    None => TXN_OFFSET_COMMIT_DEFAULT_VERSION,
                    Some(_) => api_version(obj, TXN_OFFSET_COMMIT_VERSIONS)?,
                },
                request: required(obj, "request")?,
            },
            "TransactionCompleted" => InputKind::TransactionCompleted {
                producer_id: required(obj, "producerId")?,
                producer_epoch: required(obj, "producerEpoch")?,
                result: required(obj, "result")?,
            },
            "StreamsGroupTopologyDescriptionUpdate" => {
                InputKind::StreamsGroupTopologyDescriptionUpdate {
                    request: required(obj, "request")?,
                }
            }
            "GroupConfig" => InputKind::GroupConfig {
                group_id: required(obj, "groupId")?,
                configs: match obj.get("configs") {
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => {
                        return Err(BoundaryError::input("configs", "must be a JSON object"))
                    }
                    None => return Err(BoundaryError::input("configs", "missing field `configs`")),
                },
            },
            _ => InputKind::SetTargetAssignment {
                group_id: required(obj, "groupId")?,
                assignment: required(obj, "assignment")?,
            },
        };
        Ok(Input { now_ms, kind })
    }
}

/// The versions of `StreamsGroupHeartbeat` and `StreamsGroupDescribe` any release serves (4.4
/// adds 1); the coordinator refuses one its dialect does not serve.
pub const STREAMS_API_VERSIONS: std::ops::RangeInclusive<i16> = 0..=1;

/// A streams input's `apiVersion`: the oldest (0) when absent, so that an input written before
/// version 1 existed is answered as it was.
fn streams_version(obj: &Map<String, Value>) -> Result<i16, BoundaryError> {
    match obj.get("apiVersion") {
        None => Ok(*STREAMS_API_VERSIONS.start()),
        Some(_) => api_version(obj, STREAMS_API_VERSIONS),
    }
}

/// An input's `apiVersion`: one of `served` (Kafka closes the connection of any other), the
/// newest when absent.
fn api_version(
    obj: &Map<String, Value>,
    served: std::ops::RangeInclusive<i16>,
) -> Result<i16, BoundaryError> {
    let Some(v) = obj.get("apiVersion") else {
        return Ok(*served.end());
    };
    v.as_i64()
        .and_then(|n| i16::try_from(n).ok())
        .filter(|n| served.contains(n))
        .ok_or_else(|| {
            BoundaryError::input(
                "apiVersion",
                format!(
                    "must be a version this release serves, {} to {}",
                    served.start(),
                    served.end()
                ),
            )
        })
}

/// A heartbeat input's text, decoded straight into the typed request.
#[cfg(feature = "heartbeat-text")]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeartbeatText<'a> {
    #[serde(rename = "nowMs")]
    now_ms: i64,
    /// Only a string, as the general path requires (an enum would also take `{"X": null}`).
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default)]
    client: Option<ClientInfo>,
    request: Box<HeartbeatRequest>,
    /// A null is left to the general path, which refuses it.
    #[serde(rename = "apiVersion", default, deserialize_with = "present_version")]
    api_version: Option<i16>,
}

#[cfg(feature = "heartbeat-text")]
fn present_version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i16>, D::Error> {
    i16::deserialize(d).map(Some)
}

/// The fast way in for the most frequent input: a heartbeat decoded from its text without the
/// intermediate JSON tree, by one scan for the shape of a steady heartbeat, else by the typed
/// decoding. It answers only when the general path would accept the text with the same result:
/// the text is too short for any string or list limit and too shallow for the depth limit, and
/// the scan or the typed decoding (which refuses unknown and duplicate fields) succeeded.
/// Anything else (`None`) takes the general path, which gives every error its path.
#[cfg(feature = "heartbeat-text")]
fn heartbeat_from_text(text: &str) -> Option<Input> {
    if text.len() > MAX_STRING_BYTES {
        return None;
    }
    heartbeat_text::heartbeat_from_scan(text).or_else(|| heartbeat_from_serde(text))
}

/// A heartbeat's text by serde's derived decoders: what the scan
/// ([`heartbeat_text::heartbeat_from_scan`]) leaves, such as a topology, task offsets or an
/// escaped string.
#[cfg(feature = "heartbeat-text")]
fn heartbeat_from_serde(text: &str) -> Option<Input> {
    // Decoded first and checked after: another input fails at its first field a heartbeat does
    // not have, and a search of the text for the type's name cost more than that (the search
    // runs byte by byte in wasm).
    let mut parsed: HeartbeatText<'_> = serde_json::from_str(text).ok()?;
    let api_version = parsed.api_version.unwrap_or(*STREAMS_API_VERSIONS.start());
    if parsed.now_ms < 0
        || parsed.kind != "StreamsGroupHeartbeat"
        || !STREAMS_API_VERSIONS.contains(&api_version)
        || too_deep(text)
    {
        return None;
    }
    parsed.request.api_version = api_version;
    Some(Input {
        now_ms: parsed.now_ms,
        kind: InputKind::StreamsGroupHeartbeat {
            client: parsed.client.unwrap_or_default(),
            request: parsed.request,
        },
    })
}

/// Whether JSON text nests deeper than [`MAX_DEPTH`] ([`nesting`]).
#[cfg(feature = "heartbeat-text")]
fn too_deep(text: &str) -> bool {
    // No more openings than the limit: no deeper either, and the count (one pass the compiler
    // vectorises) costs a fraction of the walk. A heartbeat has a few dozen at most.
    let openings = text.bytes().filter(|&b| b == b'{' || b == b'[').count();
    openings > MAX_DEPTH && nesting(text) > MAX_DEPTH
}

/// How deep JSON text nests, as `check_shape` counts depth (the top level is 0, and a string
/// counts at its container's depth plus one): the number of objects and arrays open at the
/// deepest point, brackets inside strings excluded. It may overcount by one, never undercount.
#[cfg(feature = "heartbeat-text")]
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Rejects oversized lists and deep nesting before any typed decoding.
fn check_shape(value: &Value, path: &JsonPath<'_>, depth: usize) -> Result<(), BoundaryError> {
    if depth > MAX_DEPTH {
        return Err(deep_error(path));
    }
    match value {
        Value::Array(items) => {
            if items.len() > MAX_LIST_LEN {
                return Err(list_error(path, items.len()));
            }
            for (i, item) in items.iter().enumerate() {
                if !matches!(item, Value::Number(_) | Value::Bool(_) | Value::Null) {
                    check_shape(item, &path.index(i), depth + 1)?;
                }
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                if !matches!(v, Value::Number(_) | Value::Bool(_) | Value::Null) {
                    check_shape(v, &path.field(k), depth + 1)?;
                }
            }
        }
        Value::String(s) if s.len() > MAX_STRING_BYTES => return Err(string_error(path, s.len())),
        _ => {}
    }
    Ok(())
}

/// The shape check's errors ([`check_shape`], and [`tree_from`] as it builds a tree).
pub(crate) fn deep_error(path: &JsonPath<'_>) -> BoundaryError {
    BoundaryError::new(
        BoundaryCode::TooLarge,
        path.render(),
        format!("nesting deeper than {MAX_DEPTH} levels"),
    )
}

pub(crate) fn list_error(path: &JsonPath<'_>, len: usize) -> BoundaryError {
    BoundaryError::new(
        BoundaryCode::TooLarge,
        path.render(),
        format!("a list of {len} entries; at most {MAX_LIST_LEN} are accepted"),
    )
}

pub(crate) fn string_error(path: &JsonPath<'_>, len: usize) -> BoundaryError {
    BoundaryError::new(
        BoundaryCode::TooLarge,
        path.render(),
        format!("a string of {len} bytes; at most {MAX_STRING_BYTES} are accepted"),
    )
}

fn decode<T: DeserializeOwned>(value: &Value, base: &str) -> Result<T, BoundaryError> {
    decode_value(value).map_err(|e| decode_error(e, base))
}

/// The boundary error of a failed [`decode`] under `base` (not generic: one copy for all types).
fn decode_error((inner, e): (String, serde_json::Error), base: &str) -> BoundaryError {
    let path = if inner == "." || inner.is_empty() {
        base.to_string()
    } else if inner.starts_with('[') {
        format!("{base}{inner}")
    } else {
        format!("{base}.{inner}")
    };
    BoundaryError::input(path, e.to_string())
}

fn required<T: DeserializeOwned>(obj: &Map<String, Value>, key: &str) -> Result<T, BoundaryError> {
    match obj.get(key) {
        None => Err(BoundaryError::input(key, format!("missing field `{key}`"))),
        Some(v) => decode(v, key),
    }
}

/// A list of any JSON values, taken as they are (a `Vec<Value>` decodes from any list and needs
/// no decoder of its own); anything else has the boundary error of every list type
/// (`invalid type: ..., expected a sequence`, or the missing field).
fn values(obj: &Map<String, Value>, key: &str) -> Result<Vec<Value>, BoundaryError> {
    match obj.get(key) {
        Some(Value::Array(items)) => Ok(items.clone()),
        _ => required::<Vec<String>>(obj, key).map(|_| Vec::new()),
    }
}

fn optional<T: DeserializeOwned + Default>(
    obj: &Map<String, Value>,
    key: &str,
) -> Result<T, BoundaryError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => decode(v, key),
    }
}

/// What the coordinator answers to one input.
#[derive(Clone, Debug, Default, PartialEq)]
#[must_use]
pub struct Output {
    /// `None` for inputs that answer nothing.
    pub response: Option<Response>,
    /// Every record written, timer firings first, in order.
    pub records: Vec<Record>,
    /// Internal topics the host must create before the group can be assigned (PROTOCOL 3.13).
    pub topics_to_create: Vec<TopicToCreate>,
    /// Why things happened, in order (DESIGN 3).
    pub explain: Vec<Explain>,
    /// The earliest pending timer: when the host must send `AdvanceTime` at the latest.
    pub next_deadline_ms: Option<i64>,
}

impl Output {
    /// Appends an operation's records; the first batch is moved in, not copied (a
    /// 1,000-partition commit's records are a quarter of a megabyte).
    pub(crate) fn push_records(&mut self, records: Vec<Record>) {
        if self.records.is_empty() {
            self.records = records;
        } else {
            self.records.extend(records);
        }
    }

    /// The JSON form, keys in a fixed order (DESIGN 3).
    pub fn to_json(&self, dialect: Dialect, record_bytes: bool) -> Value {
        serde_json::to_value(self.json(dialect, record_bytes)).unwrap_or(Value::Null)
    }

    /// The JSON text of [`Output::to_json`], written without an intermediate `Value`.
    pub fn to_json_string(&self, dialect: Dialect, record_bytes: bool) -> String {
        // Written into a buffer about the output's size (a steady heartbeat's is about 400
        // bytes), not serde_json's 128 bytes grown twice on the way.
        let capacity = OUTPUT_BYTES + RECORD_BYTES * self.records.len();
        text::output_text(&self.json(dialect, record_bytes), capacity).unwrap_or_default()
    }

    /// Appends to `buffer` the JSON text of the output's fields but its response (`records`,
    /// `topicsToCreate`, `explain`, `nextDeadlineMs`), as [`Output::to_json`] writes them: what
    /// a wire face answers beside the response frame. `false` (nothing appended) if a value
    /// cannot be written.
    pub fn append_fields_json(
        &self,
        dialect: Dialect,
        record_bytes: bool,
        buffer: &mut Vec<u8>,
    ) -> bool {
        buffer.reserve(OUTPUT_BYTES + RECORD_BYTES * self.records.len());
        text::append_fields_text(&self.json(dialect, record_bytes), buffer)
    }

    /// A serialisable view of this output in the contract's key order.
    pub fn json(&self, dialect: Dialect, record_bytes: bool) -> OutputJson<'_> {
        OutputJson {
            out: self,
            dialect,
            record_bytes,
        }
    }
}

/// The first guess of an output's JSON size: a heartbeat's without records, and each record's.
const OUTPUT_BYTES: usize = 512;
const RECORD_BYTES: usize = 256;

/// [`Output`] as the contract's JSON object: `response`, `records`, `topicsToCreate`,
/// `explain`, `nextDeadlineMs`.
pub struct OutputJson<'a> {
    out: &'a Output,
    dialect: Dialect,
    record_bytes: bool,
}

impl Serialize for OutputJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(5))?;
        map.serialize_entry("response", &self.out.response)?;
        map.serialize_entry("records", &RecordsJson(self))?;
        map.serialize_entry("topicsToCreate", &self.out.topics_to_create)?;
        map.serialize_entry("explain", &self.out.explain)?;
        map.serialize_entry("nextDeadlineMs", &self.out.next_deadline_ms)?;
        map.end()
    }
}

struct RecordsJson<'a>(&'a OutputJson<'a>);

impl Serialize for RecordsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        s.collect_seq(o.out.records.iter().map(|record| RecordJson {
            dialect: o.dialect,
            record,
            with_bytes: o.record_bytes,
        }))
    }
}

/// `{"error": {"code", "message", "path"}}`: the whole output for a boundary error.
pub fn boundary_error_json(e: &BoundaryError) -> Value {
    let mut inner = Map::new();
    inner.insert(
        "code".into(),
        serde_json::to_value(e.code).unwrap_or(Value::Null),
    );
    inner.insert("message".into(), Value::String(e.message.clone()));
    inner.insert("path".into(), Value::String(e.path.clone()));
    let mut outer = Map::new();
    outer.insert("error".into(), Value::Object(inner));
    Value::Object(outer)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The general path alone: the JSON tree, its shape check and the typed decoding.
    #[cfg(feature = "heartbeat-text")]
    fn general(text: &str) -> Result<Input, BoundaryError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| BoundaryError::input("", format!("malformed JSON: {e}")))?;
        Input::from_value(&value)
    }

    #[test]
    #[cfg(feature = "heartbeat-text")]
    fn heartbeat_text_answers_what_the_general_path_answers() {
        let hb = |rest: &str| {
            format!(
                r#"{{"nowMs": 5, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": "m", "memberEpoch": 1{rest}}}}}"#
            )
        };
        let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
        let long = "x".repeat(MAX_STRING_BYTES + 1);
        let texts = [
            hb(""),
            hb(r#", "activeTasks": [{"subtopologyId": "0", "partitions": [1, 2]}], "rackId": null"#),
            hb(r#", "memberEpoch": 2"#),
            hb(r#", "unknown": 1"#),
            hb(r#", "memberEpoch": 1.0"#),
            hb(r#", "processId": "a\"b\u00e9[{""#),
            hb(&format!(r#", "processId": "{long}""#)),
            hb(&format!(r#", "clientTags": [{{"key": "k", "value": "v"}}], "x": {deep}"#)),
            r#"{"type": "StreamsGroupHeartbeat", "nowMs": 1, "client": null, "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"type": {"StreamsGroupHeartbeat": null}, "nowMs": 1, "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"nowMs": -1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"nowMs": 1, "nowMs": 2, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "client": {"clientId": "c", "extra": 1}, "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"nowMs": 1, "type": "StreamsGroupDescribe", "request": {"groupIds": ["StreamsGroupHeartbeat"]}}"#.into(),
            r#"{"nowMs": 1, "type": "Streams\u0047roupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"nowMs": 1, "type": "StreamsGroupInitialize", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 0}}"#.into(),
            r#"{"nowMs": 1, "type": "LeaveGroup", "request": {"groupId": "g", "memberId": "m", "memberEpoch": -1}}"#.into(),
        ];
        for text in &texts {
            assert_eq!(Input::parse(text), general(text), "{text}");
        }
        // The fast way answered the plain ones and left the doubtful ones to the general path.
        assert!(heartbeat_from_text(&texts[0]).is_some());
        assert!(heartbeat_from_text(&texts[1]).is_some());
        // An escaped type name is the same heartbeat; the fast way now reads it too.
        assert!(heartbeat_from_text(&texts[14]).is_some());
        for doubtful in [2, 3, 4, 6, 7, 9, 10, 11, 12, 13, 15, 16] {
            assert!(
                heartbeat_from_text(&texts[doubtful]).is_none(),
                "{}",
                texts[doubtful]
            );
        }
    }

    #[test]
    #[cfg(feature = "heartbeat-text")]
    fn nesting_counts_containers_outside_strings() {
        assert_eq!(nesting("1"), 0);
        assert_eq!(nesting(r#"{"a": [1, {"b": "[[{{"}]}"#), 3);
        assert_eq!(nesting(r#"["\"[[", []]"#), 2);
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let wide = format!("[{}1]", "[],".repeat(MAX_DEPTH + 1));
        let quoted = format!(r#"["{}"]"#, "[".repeat(MAX_DEPTH + 1));
        assert!(too_deep(&deep));
        assert!(!too_deep(&deep[1..deep.len() - 1]), "at the limit");
        assert!(!too_deep(&wide), "many openings, none deep");
        assert!(!too_deep(&quoted), "openings in a string");
    }

    #[test]
    fn parses_a_join() {
        let input = Input::parse(
            r#"{"nowMs": 1000, "type": "StreamsGroupHeartbeat",
                "client": {"clientId": "app-1", "clientHost": "/127.0.0.1"},
                "request": {"groupId": "g", "memberId": "", "memberEpoch": 0, "topologyId": "t1",
                            "processId": "p1", "rebalanceTimeoutMs": 300000,
                            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#,
        )
        .unwrap();
        assert_eq!(input.now_ms, 1000);
        let InputKind::StreamsGroupHeartbeat { client, request } = input.kind else {
            panic!("wrong kind")
        };
        assert_eq!(client.client_id, "app-1");
        assert_eq!(request.rebalance_timeout_ms, 300000);
        assert_eq!(request.instance_id, None);
        assert_eq!(request.active_tasks, Some(vec![]));
    }

    #[test]
    fn errors_carry_a_json_path() {
        let e = Input::parse(r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 99999999999}}"#).unwrap_err();
        assert_eq!(e.path, "request.memberEpoch");
        let e = Input::parse(r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m", "memberEpoch": 1, "activeTasks": [{"subtopologyId": "0", "partitions": ["x"]}]}}"#).unwrap_err();
        assert_eq!(e.path, "request.activeTasks[0].partitions[0]");
        let e = Input::parse(r#"{"nowMs": 1, "type": "Dance"}"#).unwrap_err();
        assert_eq!(e.path, "type");
        let e = Input::parse(r#"{"nowMs": -5, "type": "AdvanceTime"}"#).unwrap_err();
        assert_eq!(e.path, "nowMs");
        let e = Input::parse("{not json").unwrap_err();
        assert_eq!(e.code, BoundaryCode::InvalidInput);
        let e = Input::parse(r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberEpoch": 1}}"#).unwrap_err();
        assert!(e.message.contains("memberId"), "{e:?}");
        let e = Input::parse(r#"{"nowMs": 1, "type": "AdvanceTime", "extra": 1}"#).unwrap_err();
        assert_eq!(e.path, "extra");
    }

    #[test]
    fn replay_records_must_be_a_list() {
        let e = |records: &str| {
            let text = format!(r#"{{"nowMs": 1, "type": "Replay", "records": {records}}}"#);
            let e = Input::parse(&text).unwrap_err();
            (e.path, e.message)
        };
        let list = |m: &str| ("records".to_string(), m.to_string());
        assert_eq!(e("{}"), list("invalid type: map, expected a sequence"));
        assert_eq!(e("null"), list("invalid type: null, expected a sequence"));
        assert_eq!(
            e("-5"),
            list("invalid type: integer `-5`, expected a sequence")
        );
        assert_eq!(
            e("1.5"),
            list("invalid type: floating point `1.5`, expected a sequence")
        );
        assert_eq!(
            e(r#""x""#),
            list(r#"invalid type: string "x", expected a sequence"#)
        );
        let missing = Input::parse(r#"{"nowMs": 1, "type": "Replay"}"#).unwrap_err();
        assert_eq!(missing.message, "missing field `records`");
        let ok = Input::parse(r#"{"nowMs": 1, "type": "Replay", "records": [1, {"a": []}]}"#);
        assert!(matches!(ok.unwrap().kind, InputKind::Replay { records } if records.len() == 2));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = format!(
            "{{\"nowMs\": 1, \"type\": \"Replay\", \"records\": {}{}}}",
            "[".repeat(100),
            "]".repeat(100)
        );
        let e = Input::parse(&text).unwrap_err();
        assert_eq!(e.code, BoundaryCode::TooLarge);
    }
}

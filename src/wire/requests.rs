//! Request bodies to the coordinator's inputs, and back (for clients, tests and `sgc`).

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::codec::{Reader, WireError};
use super::messages::{draft, kafka};
use super::{offsets, Header};
use crate::api::{
    ClientInfo, ConsumerGroupDescribeRequest, DescribeGroupsRequest, DescribeRequest, EndpointJson,
    HeartbeatRequest, InitializeRequest, InputKind, KeyValueJson, ListGroupsRequest,
    OffsetDeletePartition, OffsetDeleteRequest, OffsetDeleteTopic, TaskIdsJson, TaskOffsetJson,
    TopologyDescriptionUpdateRequest, TopologyJson,
};
use crate::records::Dialect;
use crate::topology::Subtopology;

/// The first flexible version of a request (its header is version 2 from there on).
pub(super) fn flexible_from(key: i16) -> i16 {
    match key {
        kafka::api_versions_request::API_KEY => kafka::api_versions_request::FLEXIBLE_FROM,
        kafka::delete_groups_request::API_KEY => kafka::delete_groups_request::FLEXIBLE_FROM,
        kafka::offset_commit_request::API_KEY => kafka::offset_commit_request::FLEXIBLE_FROM,
        kafka::offset_fetch_request::API_KEY => kafka::offset_fetch_request::FLEXIBLE_FROM,
        kafka::list_groups_request::API_KEY => kafka::list_groups_request::FLEXIBLE_FROM,
        kafka::offset_delete_request::API_KEY => kafka::offset_delete_request::FLEXIBLE_FROM,
        kafka::describe_groups_request::API_KEY => kafka::describe_groups_request::FLEXIBLE_FROM,
        kafka::consumer_group_describe_request::API_KEY => {
            kafka::consumer_group_describe_request::FLEXIBLE_FROM
        }
        kafka::txn_offset_commit_request::API_KEY => {
            kafka::txn_offset_commit_request::FLEXIBLE_FROM
        }
        // The streams APIs of both families are flexible from version 0.
        _ => kafka::streams_group_heartbeat_request::FLEXIBLE_FROM,
    }
}

/// A value of one schema type as another with the same JSON form (the topology, whose model
/// the JSON face shares with the schemas' structs).
fn convert<T: Serialize, U: DeserializeOwned>(
    value: &T,
    field: &'static str,
) -> Result<U, WireError> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|e| WireError {
            field,
            message: e.to_string(),
        })
}

/// A list of a generated request into the kept input's, element by element with `swap`: both
/// keep their elements' buffers (null is null).
fn swap_list<A: Default, B>(
    into: &mut Option<Vec<A>>,
    from: &mut Option<Vec<B>>,
    swap: impl Fn(&mut A, &mut B),
) {
    match from {
        None => *into = None,
        Some(list) => {
            let into = into.get_or_insert_with(Vec::new);
            into.resize_with(list.len(), A::default);
            for (a, b) in into.iter_mut().zip(list.iter_mut()) {
                swap(a, b);
            }
        }
    }
}

/// The heartbeat fields both families share, from a generated request `$r` (a `&mut`) into
/// the JSON face's request `$h` in place (a heartbeat's request is boxed once and filled, not
/// built on the stack and moved). The strings are swapped, not moved: both structs keep a
/// buffer, so a host that reads each frame into the same two allocates nothing for them.
macro_rules! fill_common {
    ($h:expr, $r:expr) => {{
        // Task lists element by element, buffers swapped as the strings are.
        let tasks = |h: &mut Option<Vec<TaskIdsJson>>, r: &mut Option<Vec<TaskIdsOf>>| {
            swap_list(h, r, |a, b| {
                std::mem::swap(&mut a.subtopology_id, &mut b.subtopology_id);
                std::mem::swap(&mut a.partitions, &mut b.partitions);
            })
        };
        let offsets = |h: &mut Option<Vec<TaskOffsetJson>>, r: &mut Option<Vec<TaskOffsetOf>>| {
            swap_list(h, r, |a, b| {
                std::mem::swap(&mut a.subtopology_id, &mut b.subtopology_id);
                a.partition = b.partition;
                a.offset = b.offset;
            })
        };
        let h: &mut HeartbeatRequest = $h;
        let r = $r;
        std::mem::swap(&mut h.group_id, &mut r.group_id);
        std::mem::swap(&mut h.member_id, &mut r.member_id);
        h.member_epoch = r.member_epoch;
        std::mem::swap(&mut h.instance_id, &mut r.instance_id);
        std::mem::swap(&mut h.rack_id, &mut r.rack_id);
        h.rebalance_timeout_ms = r.rebalance_timeout_ms;
        tasks(&mut h.active_tasks, &mut r.active_tasks);
        tasks(&mut h.standby_tasks, &mut r.standby_tasks);
        tasks(&mut h.warmup_tasks, &mut r.warmup_tasks);
        std::mem::swap(&mut h.process_id, &mut r.process_id);
        h.user_endpoint = r.user_endpoint.take().map(|e| EndpointJson {
            host: e.host,
            port: e.port,
        });
        h.client_tags = r.client_tags.take().map(|l| {
            l.into_iter()
                .map(|kv| KeyValueJson {
                    key: kv.key,
                    value: kv.value,
                })
                .collect()
        });
        offsets(&mut h.task_offsets, &mut r.task_offsets);
        offsets(&mut h.task_end_offsets, &mut r.task_end_offsets);
        h.shutdown_application = r.shutdown_application;
    }};
}

/// And back: the JSON face's heartbeat as a generated request of module `$m`.
macro_rules! common_from_api {
    ($m:path, $h:expr) => {{
        use $m as m;
        let tasks = |l: &Option<Vec<TaskIdsJson>>| {
            l.as_ref().map(|l| {
                l.iter()
                    .map(|t| m::TaskIds {
                        subtopology_id: t.subtopology_id.clone(),
                        partitions: t.partitions.clone(),
                    })
                    .collect()
            })
        };
        let offsets = |l: &Option<Vec<TaskOffsetJson>>| {
            l.as_ref().map(|l| {
                l.iter()
                    .map(|o| m::TaskOffset {
                        subtopology_id: o.subtopology_id.clone(),
                        partition: o.partition,
                        offset: o.offset,
                    })
                    .collect()
            })
        };
        m::StreamsGroupHeartbeatRequest {
            group_id: $h.group_id.clone(),
            member_id: $h.member_id.clone(),
            member_epoch: $h.member_epoch,
            instance_id: $h.instance_id.clone(),
            rack_id: $h.rack_id.clone(),
            rebalance_timeout_ms: $h.rebalance_timeout_ms,
            active_tasks: tasks(&$h.active_tasks),
            standby_tasks: tasks(&$h.standby_tasks),
            warmup_tasks: tasks(&$h.warmup_tasks),
            process_id: $h.process_id.clone(),
            user_endpoint: $h.user_endpoint.as_ref().map(|e| m::Endpoint {
                host: e.host.clone(),
                port: e.port,
            }),
            client_tags: $h.client_tags.as_ref().map(|l| {
                l.iter()
                    .map(|kv| m::KeyValue {
                        key: kv.key.clone(),
                        value: kv.value.clone(),
                    })
                    .collect()
            }),
            task_offsets: offsets(&$h.task_offsets),
            task_end_offsets: offsets(&$h.task_end_offsets),
            shutdown_application: $h.shutdown_application,
            ..m::StreamsGroupHeartbeatRequest::default()
        }
    }};
}

/// A 4.2-family heartbeat body read into `r` and then `h`, both kept by the caller.
fn kafka_heartbeat_into(
    body: &[u8],
    v: i16,
    r: &mut kafka::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest,
    h: &mut HeartbeatRequest,
) -> Result<(), WireError> {
    use kafka::streams_group_heartbeat_request as m;
    type TaskIdsOf = m::TaskIds;
    type TaskOffsetOf = m::TaskOffset;
    r.read_into(&mut Reader::new(body), v)?;
    h.topology = match r.topology.take() {
        Some(t) => Some(TopologyJson {
            epoch: t.epoch,
            subtopologies: convert::<_, Vec<Subtopology>>(&t.subtopologies, "Topology")?,
        }),
        None => None,
    };
    h.topology_id = None;
    h.endpoint_information_epoch = Some(r.endpoint_information_epoch);
    h.api_version = v;
    fill_common!(h, r);
    Ok(())
}

/// A draft heartbeat body read into `r` and then `h`, both kept by the caller.
fn draft_heartbeat_into(
    body: &[u8],
    v: i16,
    r: &mut draft::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest,
    h: &mut HeartbeatRequest,
) -> Result<(), WireError> {
    use draft::streams_group_heartbeat_request as m;
    type TaskIdsOf = m::TaskIds;
    type TaskOffsetOf = m::TaskOffset;
    r.read_into(&mut Reader::new(body), v)?;
    h.topology = None;
    std::mem::swap(&mut h.topology_id, &mut r.topology_id);
    h.endpoint_information_epoch = None;
    h.api_version = v;
    fill_common!(h, r);
    Ok(())
}

/// The generated heartbeat requests a host keeps between frames ([`super::FrameScratch`]).
#[derive(Debug, Default)]
pub(super) struct HeartbeatMessages {
    kafka: kafka::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest,
    draft: draft::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest,
}

/// Whether `key` is the dialect's heartbeat.
pub(super) fn is_heartbeat(dialect: Dialect, key: i16) -> bool {
    match dialect {
        Dialect::Kip1071Draft => key == draft::streams_group_heartbeat_request::API_KEY,
        _ => key == kafka::streams_group_heartbeat_request::API_KEY,
    }
}

/// A heartbeat body of the dialect read into `h` through `messages`, buffers reused.
pub(super) fn heartbeat_into(
    dialect: Dialect,
    v: i16,
    body: &[u8],
    messages: &mut HeartbeatMessages,
    h: &mut HeartbeatRequest,
) -> Result<(), WireError> {
    match dialect {
        Dialect::Kip1071Draft => draft_heartbeat_into(body, v, &mut messages.draft, h),
        _ => kafka_heartbeat_into(body, v, &mut messages.kafka, h),
    }
}

fn kafka_heartbeat(body: &[u8], v: i16) -> Result<Box<HeartbeatRequest>, WireError> {
    let mut h = Box::<HeartbeatRequest>::default();
    kafka_heartbeat_into(body, v, &mut Default::default(), &mut h)?;
    Ok(h)
}

fn draft_heartbeat(body: &[u8], v: i16) -> Result<Box<HeartbeatRequest>, WireError> {
    let mut h = Box::<HeartbeatRequest>::default();
    draft_heartbeat_into(body, v, &mut Default::default(), &mut h)?;
    Ok(h)
}

/// The coordinator input of a request body. Heartbeats, nearly every request a coordinator
/// serves, take a path of their own: the other APIs' decoding, with its large stack frame,
/// stays out of theirs.
pub(super) fn decode(
    dialect: Dialect,
    header: &Header,
    body: &[u8],
    client: ClientInfo,
) -> Result<InputKind, WireError> {
    let v = header.api_version;
    let request = match (dialect == Dialect::Kip1071Draft, header.api_key) {
        (false, kafka::streams_group_heartbeat_request::API_KEY) => kafka_heartbeat(body, v)?,
        (true, draft::streams_group_heartbeat_request::API_KEY) => draft_heartbeat(body, v)?,
        _ => return decode_other(dialect, header, body, client),
    };
    Ok(InputKind::StreamsGroupHeartbeat { client, request })
}

/// [`decode`] of every API but the heartbeat.
#[inline(never)]
fn decode_other(
    dialect: Dialect,
    header: &Header,
    body: &[u8],
    client: ClientInfo,
) -> Result<InputKind, WireError> {
    let v = header.api_version;
    let draft = dialect == Dialect::Kip1071Draft;
    Ok(match (draft, header.api_key) {
        (_, kafka::delete_groups_request::API_KEY) => {
            let r =
                kafka::delete_groups_request::DeleteGroupsRequest::read(&mut Reader::new(body), v)?;
            InputKind::DeleteGroups {
                group_ids: r.groups_names,
            }
        }
        (_, kafka::offset_commit_request::API_KEY) => InputKind::OffsetCommit {
            api_version: v,
            request: offsets::read_commit(body, v)?,
        },
        (_, kafka::offset_fetch_request::API_KEY) => InputKind::OffsetFetch {
            api_version: v,
            request: offsets::read_fetch(body, v)?,
        },
        (_, kafka::txn_offset_commit_request::API_KEY) => InputKind::TxnOffsetCommit {
            api_version: v,
            request: offsets::read_txn_commit(body, v)?,
        },
        (_, kafka::list_groups_request::API_KEY) => {
            let r = kafka::list_groups_request::ListGroupsRequest::read(&mut Reader::new(body), v)?;
            InputKind::ListGroups {
                request: ListGroupsRequest {
                    states_filter: r.states_filter,
                    types_filter: r.types_filter,
                },
            }
        }
        (_, kafka::offset_delete_request::API_KEY) => {
            use kafka::offset_delete_request as m;
            let r = m::OffsetDeleteRequest::read(&mut Reader::new(body), v)?;
            InputKind::OffsetDelete {
                request: OffsetDeleteRequest {
                    group_id: r.group_id,
                    topics: r
                        .topics
                        .into_iter()
                        .map(|t| OffsetDeleteTopic {
                            name: t.name,
                            partitions: t
                                .partitions
                                .into_iter()
                                .map(|p| OffsetDeletePartition {
                                    partition_index: p.partition_index,
                                })
                                .collect(),
                        })
                        .collect(),
                },
            }
        }
        (_, kafka::describe_groups_request::API_KEY) => {
            use kafka::describe_groups_request as m;
            let r = m::DescribeGroupsRequest::read(&mut Reader::new(body), v)?;
            InputKind::DescribeGroups {
                api_version: v,
                request: DescribeGroupsRequest {
                    groups: r.groups,
                    include_authorized_operations: r.include_authorized_operations,
                },
            }
        }
        (_, kafka::consumer_group_describe_request::API_KEY) => {
            use kafka::consumer_group_describe_request as m;
            let r = m::ConsumerGroupDescribeRequest::read(&mut Reader::new(body), v)?;
            InputKind::ConsumerGroupDescribe {
                request: ConsumerGroupDescribeRequest {
                    group_ids: r.group_ids,
                    include_authorized_operations: r.include_authorized_operations,
                },
            }
        }
        (false, kafka::streams_group_describe_request::API_KEY) => {
            use kafka::streams_group_describe_request::StreamsGroupDescribeRequest as Wire;
            let r = Wire::read(&mut Reader::new(body), v)?;
            InputKind::StreamsGroupDescribe {
                request: DescribeRequest {
                    group_ids: r.group_ids,
                    include_authorized_operations: r.include_authorized_operations,
                    include_topology_description: r.include_topology_description,
                    api_version: v,
                },
            }
        }
        (false, kafka::streams_group_topology_description_update_request::API_KEY) => {
            use kafka::streams_group_topology_description_update_request as m;
            let r =
                m::StreamsGroupTopologyDescriptionUpdateRequest::read(&mut Reader::new(body), v)?;
            InputKind::StreamsGroupTopologyDescriptionUpdate {
                request: TopologyDescriptionUpdateRequest {
                    group_id: r.group_id,
                    member_id: r.member_id,
                    topology_epoch: r.topology_epoch,
                    topology_description: Some(convert(
                        &r.topology_description,
                        "TopologyDescription",
                    )?),
                },
            }
        }
        (true, draft::streams_group_describe_request::API_KEY) => {
            use draft::streams_group_describe_request::StreamsGroupDescribeRequest as Wire;
            let r = Wire::read(&mut Reader::new(body), v)?;
            InputKind::StreamsGroupDescribe {
                request: DescribeRequest {
                    group_ids: r.group_ids,
                    include_authorized_operations: r.include_authorized_operations,
                    ..Default::default()
                },
            }
        }
        (true, draft::streams_group_initialize_request::API_KEY) => {
            use draft::streams_group_initialize_request::StreamsGroupInitializeRequest as Wire;
            let r = Wire::read(&mut Reader::new(body), v)?;
            InputKind::StreamsGroupInitialize {
                client,
                request: InitializeRequest {
                    group_id: r.group_id,
                    topology_id: r.topology_id,
                    topology: convert(&r.topology, "Topology")?,
                },
            }
        }
        (_, key) => {
            return Err(WireError {
                field: "RequestApiKey",
                message: format!("API key {key} is not served"),
            })
        }
    })
}

/// A request header and body as one frame.
fn frame(
    key: i16,
    v: i16,
    correlation_id: i32,
    client_id: &str,
    body: impl FnOnce(&mut Vec<u8>),
) -> Vec<u8> {
    let mut w = Vec::with_capacity(256);
    let header_version = if v >= flexible_from(key) { 2 } else { 1 };
    kafka::request_header::RequestHeader {
        request_api_key: key,
        request_api_version: v,
        correlation_id,
        client_id: Some(client_id.to_string()),
    }
    .write(&mut w, header_version);
    body(&mut w);
    w
}

/// The request frame of a coordinator input (`None`: not a request of this dialect).
pub(super) fn encode(
    dialect: Dialect,
    kind: &InputKind,
    v: i16,
    correlation_id: i32,
) -> Option<Vec<u8>> {
    let draft = dialect == Dialect::Kip1071Draft;
    let client_id = match kind {
        InputKind::StreamsGroupHeartbeat { client, .. }
        | InputKind::StreamsGroupInitialize { client, .. } => client.client_id.as_str(),
        _ => "",
    };
    let frame = |key, body: &dyn Fn(&mut Vec<u8>)| frame(key, v, correlation_id, client_id, body);
    Some(match (draft, kind) {
        (_, InputKind::DeleteGroups { group_ids }) => {
            let r = kafka::delete_groups_request::DeleteGroupsRequest {
                groups_names: group_ids.clone(),
            };
            frame(kafka::delete_groups_request::API_KEY, &|w| r.write(w, v))
        }
        (_, InputKind::OffsetCommit { request, .. }) => {
            let r = offsets::commit_message(request, v)?;
            frame(kafka::offset_commit_request::API_KEY, &|w| r.write(w, v))
        }
        (_, InputKind::OffsetFetch { request, .. }) => {
            let r = offsets::fetch_message(request, v)?;
            frame(kafka::offset_fetch_request::API_KEY, &|w| r.write(w, v))
        }
        (_, InputKind::TxnOffsetCommit { request, .. }) => {
            let r = offsets::txn_commit_message(request, v)?;
            frame(kafka::txn_offset_commit_request::API_KEY, &|w| {
                r.write(w, v)
            })
        }
        (_, InputKind::ListGroups { request }) => {
            use kafka::list_groups_request as m;
            // Kafka's client refuses a filter the version cannot carry.
            if (v < 4 && !request.states_filter.is_empty())
                || (v < 5 && !request.types_filter.is_empty())
            {
                return None;
            }
            let r = m::ListGroupsRequest {
                states_filter: request.states_filter.clone(),
                types_filter: request.types_filter.clone(),
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (_, InputKind::OffsetDelete { request }) => {
            use kafka::offset_delete_request as m;
            let r = m::OffsetDeleteRequest {
                group_id: request.group_id.clone(),
                topics: request
                    .topics
                    .iter()
                    .map(|t| m::OffsetDeleteRequestTopic {
                        name: t.name.clone(),
                        partitions: t
                            .partitions
                            .iter()
                            .map(|p| m::OffsetDeleteRequestPartition {
                                partition_index: p.partition_index,
                            })
                            .collect(),
                    })
                    .collect(),
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (_, InputKind::DescribeGroups { request, .. }) => {
            use kafka::describe_groups_request as m;
            // Kafka's client asks for the authorized operations from version 3 only.
            if v < 3 && request.include_authorized_operations {
                return None;
            }
            let r = m::DescribeGroupsRequest {
                groups: request.groups.clone(),
                include_authorized_operations: request.include_authorized_operations,
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (_, InputKind::ConsumerGroupDescribe { request }) => {
            use kafka::consumer_group_describe_request as m;
            let r = m::ConsumerGroupDescribeRequest {
                group_ids: request.group_ids.clone(),
                include_authorized_operations: request.include_authorized_operations,
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (false, InputKind::StreamsGroupHeartbeat { request, .. }) => {
            use kafka::streams_group_heartbeat_request as m;
            let topology = match &request.topology {
                None => None,
                Some(t) => Some(m::Topology {
                    epoch: t.epoch,
                    subtopologies: convert(&t.subtopologies, "Topology").ok()?,
                }),
            };
            let r = m::StreamsGroupHeartbeatRequest {
                endpoint_information_epoch: request.endpoint_information_epoch.unwrap_or(0),
                topology,
                ..common_from_api!(kafka::streams_group_heartbeat_request, request)
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (true, InputKind::StreamsGroupHeartbeat { request, .. }) => {
            use draft::streams_group_heartbeat_request as m;
            let r = m::StreamsGroupHeartbeatRequest {
                topology_id: request.topology_id.clone(),
                ..common_from_api!(draft::streams_group_heartbeat_request, request)
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (false, InputKind::StreamsGroupDescribe { request }) => {
            use kafka::streams_group_describe_request as m;
            // A client cannot ask for the description below version 1.
            if v < 1 && request.include_topology_description {
                return None;
            }
            let r = m::StreamsGroupDescribeRequest {
                group_ids: request.group_ids.clone(),
                include_authorized_operations: request.include_authorized_operations,
                include_topology_description: request.include_topology_description,
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (true, InputKind::StreamsGroupDescribe { request }) => {
            use draft::streams_group_describe_request as m;
            let r = m::StreamsGroupDescribeRequest {
                group_ids: request.group_ids.clone(),
                include_authorized_operations: request.include_authorized_operations,
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (false, InputKind::StreamsGroupTopologyDescriptionUpdate { request }) => {
            use kafka::streams_group_topology_description_update_request as m;
            // The field is not nullable: a client cannot send a null description.
            let r = m::StreamsGroupTopologyDescriptionUpdateRequest {
                group_id: request.group_id.clone(),
                member_id: request.member_id.clone(),
                topology_epoch: request.topology_epoch,
                topology_description: convert(
                    request.topology_description.as_ref()?,
                    "TopologyDescription",
                )
                .ok()?,
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        (true, InputKind::StreamsGroupInitialize { request, .. }) => {
            use draft::streams_group_initialize_request as m;
            let r = m::StreamsGroupInitializeRequest {
                group_id: request.group_id.clone(),
                topology_id: request.topology_id.clone(),
                topology: convert(&request.topology, "Topology").ok()?,
            };
            frame(m::API_KEY, &|w| r.write(w, v))
        }
        _ => return None,
    })
}

fn json_of<T: Serialize>(
    body: &[u8],
    v: i16,
    read: impl FnOnce(&mut Reader<'_>, i16) -> Result<T, WireError>,
) -> Result<serde_json::Value, WireError> {
    let message = read(&mut Reader::new(body), v)?;
    Ok(serde_json::to_value(message).unwrap_or(serde_json::Value::Null))
}

/// A request body as Kafka's JSON form of its message (for people: `sgc frame-json`).
pub(super) fn decode_json(
    dialect: Dialect,
    header: &Header,
    body: &[u8],
) -> Result<serde_json::Value, WireError> {
    let v = header.api_version;
    let draft = dialect == Dialect::Kip1071Draft;
    match (draft, header.api_key) {
        (_, kafka::api_versions_request::API_KEY) => json_of(
            body,
            v,
            kafka::api_versions_request::ApiVersionsRequest::read,
        ),
        (_, kafka::delete_groups_request::API_KEY) => json_of(
            body,
            v,
            kafka::delete_groups_request::DeleteGroupsRequest::read,
        ),
        (_, kafka::offset_commit_request::API_KEY) => json_of(
            body,
            v,
            kafka::offset_commit_request::OffsetCommitRequest::read,
        ),
        (_, kafka::offset_fetch_request::API_KEY) => json_of(
            body,
            v,
            kafka::offset_fetch_request::OffsetFetchRequest::read,
        ),
        (_, kafka::list_groups_request::API_KEY) => {
            json_of(body, v, kafka::list_groups_request::ListGroupsRequest::read)
        }
        (_, kafka::offset_delete_request::API_KEY) => json_of(
            body,
            v,
            kafka::offset_delete_request::OffsetDeleteRequest::read,
        ),
        (_, kafka::describe_groups_request::API_KEY) => json_of(
            body,
            v,
            kafka::describe_groups_request::DescribeGroupsRequest::read,
        ),
        (_, kafka::consumer_group_describe_request::API_KEY) => json_of(
            body,
            v,
            kafka::consumer_group_describe_request::ConsumerGroupDescribeRequest::read,
        ),
        (_, kafka::txn_offset_commit_request::API_KEY) => json_of(
            body,
            v,
            kafka::txn_offset_commit_request::TxnOffsetCommitRequest::read,
        ),
        (false, kafka::streams_group_heartbeat_request::API_KEY) => json_of(
            body,
            v,
            kafka::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest::read,
        ),
        (false, kafka::streams_group_describe_request::API_KEY) => json_of(
            body,
            v,
            kafka::streams_group_describe_request::StreamsGroupDescribeRequest::read,
        ),
        (false, kafka::streams_group_topology_description_update_request::API_KEY) => json_of(
            body,
            v,
            kafka::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest::read,
        ),
        (true, draft::streams_group_heartbeat_request::API_KEY) => json_of(
            body,
            v,
            draft::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest::read,
        ),
        (true, draft::streams_group_describe_request::API_KEY) => json_of(
            body,
            v,
            draft::streams_group_describe_request::StreamsGroupDescribeRequest::read,
        ),
        (true, draft::streams_group_initialize_request::API_KEY) => json_of(
            body,
            v,
            draft::streams_group_initialize_request::StreamsGroupInitializeRequest::read,
        ),
        (_, key) => Err(WireError {
            field: "RequestApiKey",
            message: format!("API key {key} is not served"),
        }),
    }
}

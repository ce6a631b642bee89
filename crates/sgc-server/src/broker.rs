//! What the server answers itself (`ApiVersions`, `Metadata`, `FindCoordinator`,
//! `CreateTopics`) and how it routes the coordinator's APIs, through the core's host kit
//! (`wire::host`): a request for one group goes to the partition that owns the group
//! (`partitionFor`), one for several groups is split by partition and the answers merged, as
//! Kafka's `GroupCoordinatorService` does.

use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};

use streams_group_coordinator::records::Dialect;
use streams_group_coordinator::topology::TopicToCreate;
use streams_group_coordinator::wire::authz::{self, AclOperation};
use streams_group_coordinator::wire::codec::Reader;
use streams_group_coordinator::wire::host::{route_request, Route, Routed, Split};
use streams_group_coordinator::wire::messages::kafka::request_header::RequestHeader;
use streams_group_coordinator::wire::messages::versions::ApiRange;
use streams_group_coordinator::wire::{self, Peer};
use tokio::sync::oneshot;

use crate::acl::{self, AclStore};
use crate::messages::{
    alter_user_scram_credentials_request as ascq, alter_user_scram_credentials_response as ascs,
};
use crate::messages::{create_acls_request as caq, create_acls_response as cas};
use crate::messages::{create_topics_request as ctq, create_topics_response as cts};
use crate::messages::{delete_acls_request as daq, delete_acls_response as das};
use crate::messages::{describe_acls_request as dsq, describe_acls_response as dss};
use crate::messages::{
    describe_user_scram_credentials_request as dscq,
    describe_user_scram_credentials_response as dscs,
};
use crate::messages::{find_coordinator_request as fcq, find_coordinator_response as fcs};
use crate::messages::{metadata_request as mdq, metadata_response as mds};
use crate::metrics::Metrics;
use crate::shard::{Job, Reply};
use crate::topics::{Topic, Topics, CLUSTER_METADATA_TOPIC};

/// The APIs the server answers besides the coordinator's.
pub const BROKER_APIS: &[ApiRange] = &[
    ApiRange {
        key: mdq::API_KEY,
        name: "Metadata",
        min: mdq::VERSIONS.0,
        max: mdq::VERSIONS.1,
    },
    ApiRange {
        key: fcq::API_KEY,
        name: "FindCoordinator",
        min: fcq::VERSIONS.0,
        max: fcq::VERSIONS.1,
    },
    ApiRange {
        key: ctq::API_KEY,
        name: "CreateTopics",
        min: ctq::VERSIONS.0,
        max: ctq::VERSIONS.1,
    },
    ApiRange {
        key: dsq::API_KEY,
        name: "DescribeAcls",
        min: dsq::VERSIONS.0,
        max: dsq::VERSIONS.1,
    },
    ApiRange {
        key: caq::API_KEY,
        name: "CreateAcls",
        min: caq::VERSIONS.0,
        max: caq::VERSIONS.1,
    },
    ApiRange {
        key: daq::API_KEY,
        name: "DeleteAcls",
        min: daq::VERSIONS.0,
        max: daq::VERSIONS.1,
    },
    ApiRange {
        key: crate::messages::sasl_handshake_request::API_KEY,
        name: "SaslHandshake",
        min: crate::messages::sasl_handshake_request::VERSIONS.0,
        max: crate::messages::sasl_handshake_request::VERSIONS.1,
    },
    ApiRange {
        key: crate::messages::sasl_authenticate_request::API_KEY,
        name: "SaslAuthenticate",
        min: crate::messages::sasl_authenticate_request::VERSIONS.0,
        max: crate::messages::sasl_authenticate_request::VERSIONS.1,
    },
    ApiRange {
        key: dscq::API_KEY,
        name: "DescribeUserScramCredentials",
        min: dscq::VERSIONS.0,
        max: dscq::VERSIONS.1,
    },
    ApiRange {
        key: ascq::API_KEY,
        name: "AlterUserScramCredentials",
        min: ascq::VERSIONS.0,
        max: ascq::VERSIONS.1,
    },
];

/// Kafka's error codes the server answers with.
const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
const COORDINATOR_NOT_AVAILABLE: i16 = 15;
const INVALID_TOPIC_EXCEPTION: i16 = 17;
const TOPIC_ALREADY_EXISTS: i16 = 36;
const INVALID_PARTITIONS: i16 = 37;
const INVALID_REPLICATION_FACTOR: i16 = 38;
const INVALID_REQUEST: i16 = 42;
const UNKNOWN_TOPIC_ID: i16 = 100;
const TOPIC_AUTHORIZATION_FAILED: i16 = 29;
const GROUP_AUTHORIZATION_FAILED: i16 = 30;
const TRANSACTIONAL_ID_AUTHORIZATION_FAILED: i16 = 53;
const CLUSTER_AUTHORIZATION_FAILED: i16 = 31;

/// The broker: this node, the topics it knows, and the coordinator threads that own the
/// partitions (partition `p` on thread `p % threads`).
pub struct Broker {
    pub dialect: Dialect,
    pub node_id: i32,
    pub host: String,
    pub port: i32,
    pub cluster_id: String,
    pub workers: Vec<Sender<Job>>,
    /// `offsets.topic.num.partitions`.
    pub partitions: usize,
    pub topics: Mutex<Topics>,
    pub data_dir: PathBuf,
    pub metrics: Arc<Metrics>,
    /// The ACLs and the authorizer's settings (`--authorizer standard`); `None`: no authorizer,
    /// everyone may do anything, as a Kafka broker without `authorizer.class.name`.
    pub acls: Option<Arc<RwLock<AclStore>>>,
    /// The users and mechanisms of a `SASL_PLAINTEXT` listener; `None`: `PLAINTEXT`.
    pub sasl: Option<crate::sasl::SaslConfig>,
    /// The SCRAM credentials (`DIR/scram.json`), managed as Kafka's admin manages them.
    pub scram: Arc<RwLock<crate::sasl::credentials::ScramStore>>,
}

/// A connection's client: its address as Kafka prints it (`/10.0.0.1`) and who it is (the
/// principal its authentication gave it, else `User:ANONYMOUS`).
#[derive(Clone, Debug)]
pub struct Conn {
    pub peer: Peer,
    pub who: acl::Requester,
}

impl Conn {
    pub fn new(peer: Peer, principal: &str) -> Conn {
        let host = peer.client_host.trim_start_matches('/').to_string();
        Conn {
            peer,
            who: acl::Requester {
                principal: principal.to_string(),
                host,
            },
        }
    }
}

/// A request routed: queued at its group's partition, or to be handled by the broker.
pub enum Dispatch {
    /// Queued at its partition (`None`: the partition's coordinator has stopped).
    Queued(Option<oneshot::Receiver<Reply>>),
    /// For [`Broker::handle`]: the frame and where it goes.
    Handle(Vec<u8>, Routed),
    /// Handled: the response frame.
    Answered(Vec<u8>),
    /// The connection is to be closed, for this reason.
    Refused(String),
}

/// What a request frame gets: a response frame, or the connection closed (Kafka's answer to
/// a request it cannot read).
pub enum Answer {
    Frame(Vec<u8>),
    Close(String),
}

fn close(why: impl Into<String>) -> Answer {
    Answer::Close(why.into())
}

/// Writes a response frame of one of the server's own messages.
macro_rules! respond {
    ($m:ident, $body:expr, $corr:expr, $v:expr) => {{
        let header_version = i16::from($v >= $m::FLEXIBLE_FROM);
        Answer::Frame(wire::respond($corr, header_version, |w| $body.write(w, $v)))
    }};
}

fn served(v: i16, range: (i16, i16)) -> bool {
    (range.0..=range.1).contains(&v)
}

impl Broker {
    fn send(&self, partition: usize, job: Job) -> bool {
        let n = self.workers.len().max(1);
        self.workers
            .get(partition % n)
            .is_some_and(|s| s.send(job).is_ok())
    }

    /// Answers one request frame routed by [`Broker::dispatch`].
    pub async fn handle(&self, frame: Vec<u8>, routed: Routed, conn: &Conn) -> Answer {
        let (key, v) = (routed.api_key, routed.api_version);
        match routed.route {
            Route::ApiVersions => {
                match wire::answer_api_versions(self.dialect, &frame, BROKER_APIS) {
                    Ok(f) => Answer::Frame(f),
                    Err(e) => close(e.to_string()),
                }
            }
            Route::Group { partition, .. } => self.to_shard(partition, frame, conn).await,
            Route::Groups(split) | Route::EveryPartition(split) => self.split(split, conn).await,
            Route::Host => {
                let Some((header, at)) = read_header(&frame) else {
                    return close(format!("API key {key} version {v} is not served here"));
                };
                let corr = header.correlation_id;
                let body = &frame[at..];
                match key {
                    mdq::API_KEY => self.metadata(v, corr, body, &conn.who),
                    fcq::API_KEY => self.find_coordinator(v, corr, body, &conn.who),
                    ctq::API_KEY => self.create_topics(v, corr, body, &conn.who),
                    dsq::API_KEY | caq::API_KEY | daq::API_KEY => {
                        self.acl_api(key, v, corr, body, &conn.who)
                    }
                    dscq::API_KEY | ascq::API_KEY => self.scram_api(key, v, corr, body, &conn.who),
                    _ => close(format!("API key {key} version {v} is not served here")),
                }
            }
        }
    }

    /// Routes a request frame: a request for one group is queued at its partition at once
    /// (so that a connection's requests reach a partition in the order they were sent), the
    /// others are answered by [`Broker::handle`]; a frame that cannot be routed closes the
    /// connection.
    pub fn dispatch(&self, frame: Vec<u8>, conn: &Conn) -> Dispatch {
        let partitions = i32::try_from(self.partitions).unwrap_or(i32::MAX);
        match route_request(self.dialect, &frame, partitions) {
            Ok(Routed {
                route: Route::Group { partition, .. },
                ..
            }) => Dispatch::Queued(self.queue(partition, frame, conn)),
            Ok(routed) => Dispatch::Handle(frame, routed),
            Err(e) => Dispatch::Refused(e.to_string()),
        }
    }

    fn queue(
        &self,
        partition: i32,
        frame: Vec<u8>,
        conn: &Conn,
    ) -> Option<oneshot::Receiver<Reply>> {
        let partition = usize::try_from(partition).unwrap_or_default();
        let (tx, rx) = oneshot::channel();
        let job = Job::Frame {
            partition,
            frame,
            peer: conn.peer.clone(),
            who: conn.who.clone(),
            reply: tx,
        };
        self.send(partition, job).then_some(rx)
    }

    /// The answer of a queued request, once its partition replied.
    pub async fn answer(&self, queued: Option<oneshot::Receiver<Reply>>) -> Answer {
        let Some(rx) = queued else {
            return close("the partition's coordinator has stopped");
        };
        match rx.await {
            Ok(Reply::Frame {
                frame,
                topics_to_create,
            }) => {
                if !topics_to_create.is_empty() {
                    self.create_internal(&topics_to_create);
                }
                Answer::Frame(frame)
            }
            Ok(Reply::Close(why)) => close(why),
            Err(_) => close("the partition's coordinator has stopped"),
        }
    }

    async fn to_shard(&self, partition: i32, frame: Vec<u8>, conn: &Conn) -> Answer {
        self.answer(self.queue(partition, frame, conn)).await
    }

    /// A request for several groups, or for every group (`ListGroups`): its parts asked of
    /// their partitions one after the other, the answers merged in Kafka's order.
    async fn split(&self, mut split: Split, conn: &Conn) -> Answer {
        let parts = std::mem::take(&mut split.parts);
        let mut answers = Vec::with_capacity(parts.len());
        for part in parts {
            match self.to_shard(part.partition, part.frame, conn).await {
                Answer::Frame(answer) => answers.push(answer),
                refused => return refused,
            }
        }
        split
            .merge(&answers)
            .map_or_else(|e| close(e.to_string()), Answer::Frame)
    }

    /// Creates the internal topics a coordinator asked for, and tells every partition.
    pub fn create_internal(&self, topics: &[TopicToCreate]) {
        let mut created = Vec::new();
        if let Ok(mut known) = self.topics.lock() {
            for t in topics {
                let n = if t.num_partitions < 1 {
                    1
                } else {
                    t.num_partitions
                };
                if let Ok(topic) = known.create(&t.name, n) {
                    created.push(topic);
                }
            }
            if !created.is_empty() {
                if let Err(e) = known.save() {
                    eprintln!("sgc serve: {e}");
                }
            }
        }
        if !created.is_empty() {
            self.tell_topics(created);
        }
    }

    /// Sends topics to every coordinator thread: its front-end checks learn them all, its
    /// partitions' coordinators those that are not internal.
    pub fn tell_topics(&self, topics: Vec<Topic>) {
        for w in &self.workers {
            let _ = w.send(Job::Topics(topics.clone()));
        }
    }

    /// [`Broker::allowed`] as the core's `Authorizer` for `who`, for the bit sets of
    /// authorized operations.
    fn decider<'a>(
        &'a self,
        who: &'a acl::Requester,
    ) -> impl Fn(AclOperation, authz::ResourceType, &str) -> bool + 'a {
        move |op, rt, name| {
            let (op, rt) = (
                acl::Operation::from_code(op.code()),
                acl::ResourceType::from_code(rt.code()),
            );
            self.allowed(who, op, rt, name)
        }
    }

    /// Kafka's decision for `who` (everything without an authorizer).
    fn allowed(
        &self,
        who: &acl::Requester,
        op: acl::Operation,
        rt: acl::ResourceType,
        name: &str,
    ) -> bool {
        match self.acls.as_deref().map(RwLock::read) {
            None => true,
            Some(Ok(store)) => store.authorize(who, op, rt, name),
            Some(Err(_)) => false,
        }
    }

    /// `Metadata` as `KafkaApis.handleTopicMetadataRequest` filters it: every topic (or none
    /// listed at version 0) lists those `who` may DESCRIBE; listed topics it may not describe
    /// are answered `TOPIC_AUTHORIZATION_FAILED` after the others, by name with a zero id (by
    /// id with no name), without saying whether they exist.
    fn metadata(&self, v: i16, corr: i32, body: &[u8], who: &acl::Requester) -> Answer {
        if !served(v, mdq::VERSIONS) {
            return close(format!("Metadata version {v} is not supported"));
        }
        let Ok(request) = mdq::MetadataRequest::read(&mut Reader::new(body), v) else {
            return close("a Metadata request that cannot be read");
        };
        let Ok(known) = self.topics.lock() else {
            return close("the topic table is unavailable");
        };
        let all = request
            .topics
            .as_ref()
            .is_none_or(|t| v == 0 && t.is_empty());
        let describe = |name: &str| {
            self.allowed(
                who,
                acl::Operation::Describe,
                acl::ResourceType::Topic,
                name,
            )
        };
        let denied = |name: Option<String>, id: [u8; 16]| mds::MetadataResponseTopic {
            error_code: TOPIC_AUTHORIZATION_FAILED,
            name,
            topic_id: id,
            ..Default::default()
        };
        // Kafka's bit set of the operations `who` may do on a topic it may describe (version
        // 8 on, when asked; else the schema's default).
        let decide = self.decider(who);
        let with_ops = |mut t: mds::MetadataResponseTopic| {
            if v >= 8 && request.include_topic_authorized_operations {
                let name = t.name.clone().unwrap_or_default();
                t.topic_authorized_operations =
                    authz::authorized_operations(&decide, authz::ResourceType::Topic, &name);
            }
            t
        };
        let topics: Vec<mds::MetadataResponseTopic> = if all {
            known
                .all()
                .filter(|t| describe(&t.name))
                .map(|t| with_ops(self.topic_entry(Some(t), None, None)))
                .collect()
        } else {
            let mut unknown_ids = Vec::new();
            let mut answered = Vec::new();
            let mut refused = Vec::new();
            for t in request.topics.clone().unwrap_or_default() {
                match &t.name {
                    Some(name) if describe(name) => answered.push(with_ops(self.topic_entry(
                        known.get(name),
                        Some(name.clone()),
                        None,
                    ))),
                    Some(name) => refused.push(denied(Some(name.clone()), [0; 16])),
                    None => match known.by_id(t.topic_id) {
                        None => unknown_ids.push(self.topic_entry(None, None, Some(t.topic_id))),
                        Some(topic) if describe(&topic.name) => {
                            answered.push(with_ops(self.topic_entry(Some(topic), None, None)))
                        }
                        Some(_) => refused.push(denied(None, t.topic_id)),
                    },
                }
            }
            unknown_ids
                .into_iter()
                .chain(answered)
                .chain(refused)
                .collect()
        };
        let response = mds::MetadataResponse {
            brokers: vec![mds::MetadataResponseBroker {
                node_id: self.node_id,
                host: self.host.clone(),
                port: self.port,
                rack: None,
            }],
            cluster_id: Some(self.cluster_id.clone()),
            controller_id: self.node_id,
            topics,
            cluster_authorized_operations: self.cluster_operations(v, &request, who),
            ..Default::default()
        };
        respond!(mds, response, corr, v)
    }

    /// Versions 8 to 10, when asked: the cluster's authorized operations if `who` may describe
    /// it, else 0 (`handleTopicMetadataRequest`); otherwise the schema's default.
    fn cluster_operations(
        &self,
        v: i16,
        request: &mdq::MetadataRequest,
        who: &acl::Requester,
    ) -> i32 {
        if !(8..=10).contains(&v) || !request.include_cluster_authorized_operations {
            return i32::MIN;
        }
        let name = acl::model::CLUSTER_NAME;
        if !self.allowed(
            who,
            acl::Operation::Describe,
            acl::ResourceType::Cluster,
            name,
        ) {
            return 0;
        }
        let decide = self.decider(who);
        authz::authorized_operations(&decide, authz::ResourceType::Cluster, name)
    }

    fn topic_entry(
        &self,
        topic: Option<&crate::topics::Topic>,
        name: Option<String>,
        id: Option<[u8; 16]>,
    ) -> mds::MetadataResponseTopic {
        match topic {
            Some(t) => mds::MetadataResponseTopic {
                name: Some(t.name.clone()),
                topic_id: t.id,
                is_internal: t.internal,
                partitions: (0..t.partitions)
                    .map(|p| mds::MetadataResponsePartition {
                        partition_index: p,
                        leader_id: self.node_id,
                        leader_epoch: 0,
                        replica_nodes: vec![self.node_id],
                        isr_nodes: vec![self.node_id],
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            },
            None => mds::MetadataResponseTopic {
                error_code: if name.is_some() {
                    UNKNOWN_TOPIC_OR_PARTITION
                } else {
                    UNKNOWN_TOPIC_ID
                },
                name,
                topic_id: id.unwrap_or_default(),
                ..Default::default()
            },
        }
    }

    /// Kafka's `getCoordinator`: DESCRIBE on the group (the transactional id) first.
    fn coordinator_for(
        &self,
        key: &str,
        key_type: i8,
        who: &acl::Requester,
    ) -> (i16, Option<String>) {
        let (rt, denied) = match key_type {
            0 => (acl::ResourceType::Group, GROUP_AUTHORIZATION_FAILED),
            1 => (
                acl::ResourceType::TransactionalId,
                TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
            ),
            _ => (acl::ResourceType::Unknown, 0),
        };
        if denied != 0 && !self.allowed(who, acl::Operation::Describe, rt, key) {
            return (denied, None);
        }
        match key_type {
            0 if key.is_empty() => (INVALID_REQUEST, Some("The group id is empty.".into())),
            0 => (0, None),
            1 | 2 => (
                COORDINATOR_NOT_AVAILABLE,
                Some("This server is a group coordinator only.".into()),
            ),
            t => (
                INVALID_REQUEST,
                Some(format!("Unknown coordinator type {t}.")),
            ),
        }
    }

    fn find_coordinator(&self, v: i16, corr: i32, body: &[u8], who: &acl::Requester) -> Answer {
        if !served(v, fcq::VERSIONS) {
            return close(format!("FindCoordinator version {v} is not supported"));
        }
        let Ok(request) = fcq::FindCoordinatorRequest::read(&mut Reader::new(body), v) else {
            return close("a FindCoordinator request that cannot be read");
        };
        let mut response = fcs::FindCoordinatorResponse::default();
        if v < 4 {
            let (code, message) = self.coordinator_for(&request.key, request.key_type, who);
            response.error_code = code;
            // Below version 4 an error is Kafka's error response: the error's own message.
            response.error_message = match code {
                GROUP_AUTHORIZATION_FAILED => Some("Group authorization failed.".into()),
                TRANSACTIONAL_ID_AUTHORIZATION_FAILED => {
                    Some("Transactional Id authorization failed.".into())
                }
                _ => message,
            };
            if code == 0 {
                response.node_id = self.node_id;
                response.host = self.host.clone();
                response.port = self.port;
            } else {
                response.node_id = -1;
                response.port = -1;
            }
        } else {
            response.coordinators = request
                .coordinator_keys
                .iter()
                .map(|key| {
                    let (code, message) = self.coordinator_for(key, request.key_type, who);
                    let ok = code == 0;
                    fcs::Coordinator {
                        key: key.clone(),
                        node_id: if ok { self.node_id } else { -1 },
                        host: if ok { self.host.clone() } else { String::new() },
                        port: if ok { self.port } else { -1 },
                        error_code: code,
                        error_message: message,
                    }
                })
                .collect();
        }
        respond!(fcs, response, corr, v)
    }

    /// `DescribeUserScramCredentials` (DESCRIBE on the cluster, else the request's error
    /// `CLUSTER_AUTHORIZATION_FAILED`, as `KafkaApis`) and `AlterUserScramCredentials` (ALTER on
    /// the cluster, else every user refused, sorted, as the request's error response).
    fn scram_api(&self, key: i16, v: i16, corr: i32, body: &[u8], who: &acl::Requester) -> Answer {
        let mut r = Reader::new(body);
        let cluster = |op| {
            self.allowed(
                who,
                op,
                acl::ResourceType::Cluster,
                acl::model::CLUSTER_NAME,
            )
        };
        let Ok(mut store) = self.scram.write() else {
            return close("the SCRAM credentials are unavailable");
        };
        match key {
            dscq::API_KEY if served(v, dscq::VERSIONS) => {
                let Ok(request) = dscq::DescribeUserScramCredentialsRequest::read(&mut r, v) else {
                    return close("a DescribeUserScramCredentials request that cannot be read");
                };
                let response = if cluster(acl::Operation::Describe) {
                    let users = request
                        .users
                        .map(|u| u.into_iter().map(|n| n.name).collect());
                    dscs::DescribeUserScramCredentialsResponse {
                        results: store.describe(users),
                        ..Default::default()
                    }
                } else {
                    dscs::DescribeUserScramCredentialsResponse {
                        error_code: CLUSTER_AUTHORIZATION_FAILED,
                        error_message: Some("Cluster authorization failed.".into()),
                        ..Default::default()
                    }
                };
                respond!(dscs, response, corr, v)
            }
            ascq::API_KEY if served(v, ascq::VERSIONS) => {
                let Ok(request) = ascq::AlterUserScramCredentialsRequest::read(&mut r, v) else {
                    return close("an AlterUserScramCredentials request that cannot be read");
                };
                let results = if cluster(acl::Operation::Alter) {
                    store.alter(&request)
                } else {
                    let mut users: Vec<String> = request
                        .deletions
                        .iter()
                        .map(|d| d.name.clone())
                        .chain(request.upsertions.iter().map(|u| u.name.clone()))
                        .collect();
                    users.sort();
                    users.dedup();
                    users
                        .into_iter()
                        .map(|user| ascs::AlterUserScramCredentialsResult {
                            user,
                            error_code: CLUSTER_AUTHORIZATION_FAILED,
                            error_message: Some("Cluster authorization failed.".into()),
                        })
                        .collect()
                };
                let response = ascs::AlterUserScramCredentialsResponse {
                    results,
                    ..Default::default()
                };
                respond!(ascs, response, corr, v)
            }
            _ => close(format!("API key {key} version {v} is not supported")),
        }
    }

    /// `DescribeAcls`, `CreateAcls` and `DeleteAcls` (crate::acl::apis).
    fn acl_api(&self, key: i16, v: i16, corr: i32, body: &[u8], who: &acl::Requester) -> Answer {
        let store = self.acls.as_deref();
        let mut r = Reader::new(body);
        match key {
            dsq::API_KEY if served(v, dsq::VERSIONS) => {
                match dsq::DescribeAclsRequest::read(&mut r, v) {
                    Ok(request) => {
                        respond!(dss, acl::apis::describe(store, who, &request), corr, v)
                    }
                    Err(_) => close("a DescribeAcls request that cannot be read"),
                }
            }
            caq::API_KEY if served(v, caq::VERSIONS) => {
                match caq::CreateAclsRequest::read(&mut r, v) {
                    Ok(request) => respond!(cas, acl::apis::create(store, who, &request), corr, v),
                    Err(_) => close("a CreateAcls request that cannot be read"),
                }
            }
            daq::API_KEY if served(v, daq::VERSIONS) => {
                match daq::DeleteAclsRequest::read(&mut r, v) {
                    Ok(request) => respond!(das, acl::apis::delete(store, who, &request), corr, v),
                    Err(_) => close("a DeleteAcls request that cannot be read"),
                }
            }
            _ => close(format!("API key {key} version {v} is not supported")),
        }
    }

    /// `CreateTopics` as Kafka's controller answers it (`ControllerApis.createTopics`): a topic
    /// needs CREATE on the cluster or on itself, else it is answered `TOPIC_AUTHORIZATION_FAILED`
    /// "Authorization failed." after the others, in the order of a Java `HashSet` of names.
    fn create_topics(&self, v: i16, corr: i32, body: &[u8], who: &acl::Requester) -> Answer {
        if !served(v, ctq::VERSIONS) {
            return close(format!("CreateTopics version {v} is not supported"));
        }
        let Ok(request) = ctq::CreateTopicsRequest::read(&mut Reader::new(body), v) else {
            return close("a CreateTopics request that cannot be read");
        };
        let Ok(mut known) = self.topics.lock() else {
            return close("the topic table is unavailable");
        };
        // Kafka's controller creates nothing for a name listed twice, nor its own metadata
        // topic: each is answered after the other topics' results (ControllerApis.createTopics).
        let duplicates =
            wire::duplicate_topic_names(request.topics.iter().map(|t| t.name.as_str()));
        let cluster = self.allowed(
            who,
            acl::Operation::Create,
            acl::ResourceType::Cluster,
            acl::model::CLUSTER_NAME,
        );
        let creatable = |name: &str| {
            cluster || self.allowed(who, acl::Operation::Create, acl::ResourceType::Topic, name)
        };
        let refused = |name: &str| {
            duplicates.iter().any(|d| d == name)
                || name == CLUSTER_METADATA_TOPIC
                || !creatable(name)
        };
        let mut created = Vec::new();
        let mut results = Vec::new();
        for t in request.topics.iter().filter(|t| !refused(&t.name)) {
            let n = if t.num_partitions == -1 {
                1
            } else {
                t.num_partitions
            };
            let (code, message) = if known.get(&t.name).is_some() {
                (
                    TOPIC_ALREADY_EXISTS,
                    Some(format!("Topic '{}' already exists.", t.name)),
                )
            } else if let Err(why) = crate::topics::valid_name(&t.name) {
                (INVALID_TOPIC_EXCEPTION, Some(why))
            } else if n < 1 {
                (
                    INVALID_PARTITIONS,
                    Some("Number of partitions must be larger than 0.".into()),
                )
            } else if t.replication_factor > 1 {
                (
                    INVALID_REPLICATION_FACTOR,
                    Some(format!(
                        "Unable to replicate the partition {} time(s): The target replication factor of {} cannot be reached because only 1 broker(s) are registered.",
                        t.replication_factor, t.replication_factor
                    )),
                )
            } else if t.replication_factor == 0 || t.replication_factor < -1 {
                (
                    INVALID_REPLICATION_FACTOR,
                    Some(
                        "Replication factor must be larger than 0, or -1 to use the default value."
                            .into(),
                    ),
                )
            } else {
                (0, None)
            };
            let mut result = cts::CreatableTopicResult {
                name: t.name.clone(),
                error_code: code,
                error_message: message,
                num_partitions: if code == 0 { n } else { -1 },
                replication_factor: if code == 0 { 1 } else { -1 },
                ..Default::default()
            };
            if code == 0 && !request.validate_only {
                match known.create(&t.name, n) {
                    Ok(topic) => {
                        result.topic_id = topic.id;
                        created.push(topic);
                    }
                    Err(why) => {
                        result.error_code = INVALID_TOPIC_EXCEPTION;
                        result.error_message = Some(why);
                    }
                }
            }
            results.push(result);
        }
        for name in duplicates.iter().cloned() {
            results.push(cts::CreatableTopicResult {
                name,
                error_code: INVALID_REQUEST,
                error_message: Some("Duplicate topic name.".into()),
                ..Default::default()
            });
        }
        // Kafka's controller walks the set of names once: its own metadata topic refused,
        // then each name `who` may not create.
        let mut later: Vec<String> = Vec::new();
        for t in &request.topics {
            let name = t.name.as_str();
            let duplicate = duplicates.iter().any(|d| d == name);
            let refusal = name == CLUSTER_METADATA_TOPIC || !creatable(name);
            if !duplicate && refusal && !later.iter().any(|u| u == name) {
                later.push(name.to_string());
            }
        }
        for name in wire::in_java_hash_set_order(later) {
            let (code, message) = if name == CLUSTER_METADATA_TOPIC {
                (
                    INVALID_REQUEST,
                    format!("Creation of internal topic {CLUSTER_METADATA_TOPIC} is prohibited."),
                )
            } else {
                (
                    TOPIC_AUTHORIZATION_FAILED,
                    "Authorization failed.".to_string(),
                )
            };
            results.push(cts::CreatableTopicResult {
                name,
                error_code: code,
                error_message: Some(message),
                ..Default::default()
            });
        }
        if !created.is_empty() {
            if let Err(e) = known.save() {
                eprintln!("sgc serve: {e}");
            }
        }
        drop(known);
        if !created.is_empty() {
            self.tell_topics(created);
        }
        let response = cts::CreateTopicsResponse {
            topics: results,
            ..Default::default()
        };
        respond!(cts, response, corr, v)
    }
}

/// A request header of one of the server's own APIs, read as its version says.
fn read_header(frame: &[u8]) -> Option<(RequestHeader, usize)> {
    let key = i16::from_be_bytes([*frame.first()?, *frame.get(1)?]);
    let v = i16::from_be_bytes([*frame.get(2)?, *frame.get(3)?]);
    let flexible_from = match key {
        mdq::API_KEY => mdq::FLEXIBLE_FROM,
        fcq::API_KEY => fcq::FLEXIBLE_FROM,
        ctq::API_KEY => ctq::FLEXIBLE_FROM,
        dsq::API_KEY => dsq::FLEXIBLE_FROM,
        caq::API_KEY => caq::FLEXIBLE_FROM,
        daq::API_KEY => daq::FLEXIBLE_FROM,
        dscq::API_KEY => dscq::FLEXIBLE_FROM,
        ascq::API_KEY => ascq::FLEXIBLE_FROM,
        _ => return None,
    };
    let mut r = Reader::new(frame);
    let header = RequestHeader::read(&mut r, if v >= flexible_from { 2 } else { 1 }).ok()?;
    Some((header, r.position()))
}

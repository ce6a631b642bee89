//! `make serve-load`: `sgc serve`'s figures on this machine, in one run, against a server
//! process of its own on loopback (the load stops on its own):
//!
//! 1. throughput: 1,000 members (100 groups of 10) joined and reconciled, then steady
//!    heartbeats from 50 connections, each keeping 16 in flight, for `--seconds`;
//! 2. latency: steady heartbeats sent at a fixed `--rate` (open loop), p50/p99/p99.9/max;
//!
//!    both on each listener of `--security` (default all three, one after the other):
//!    `plaintext`; `plaintext-acl`, the same with `--authorizer standard` and the ACLs the
//!    load needs (every request's ACL checks); `sasl_ssl`, TLS and SASL/PLAIN with the ACLs;
//! 3. the same steady heartbeats through the core alone (`wire::handle_frame_with` on
//!    coordinators rebuilt from the server's own log), for the server's cost beside the
//!    core's;
//! 4. restart: a log of `--log-mb` MB written by churning groups through the core, then the
//!    time from starting `sgc serve` on it to its `listening` line.
//!
//! `cargo run --release -p sgc-server --example load -- --sgc target/release/sgc`

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sgc_server::log::PartitionLog;
use streams_group_coordinator::api::{Input, InputKind};
use streams_group_coordinator::records::{batch, encode_key, encode_value};
use streams_group_coordinator::wire::{self, Peer};
use streams_group_coordinator::{partition_for, Coordinator, Dialect};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

const PARTITIONS: i32 = 50;

fn config() -> Value {
    json!({"dialect": "kafka-4.2", "group.streams.initial.rebalance.delay.ms": 0,
           "group.streams.session.timeout.ms": 60000, "group.streams.heartbeat.interval.ms": 5000})
}

struct Opts {
    sgc: PathBuf,
    members: usize,
    group_size: usize,
    connections: usize,
    in_flight: usize,
    seconds: u64,
    rate: u64,
    log_mb: u64,
    fsync: String,
    /// Only the restart, of the log kept in this folder (written there first if missing).
    restart_only: Option<PathBuf>,
    /// The listeners compared (`--security plaintext,plaintext-acl,sasl_ssl`).
    security: Vec<String>,
}

fn opts() -> Result<Opts, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let num = |name: &str, d: u64| -> Result<u64, String> {
        get(name).map_or(Ok(d), |v| {
            v.parse().map_err(|_| format!("{name} takes a number"))
        })
    };
    Ok(Opts {
        sgc: PathBuf::from(get("--sgc").ok_or("--sgc PATH (the sgc binary) is required")?),
        members: num("--members", 1000)? as usize,
        group_size: num("--group-size", 10)? as usize,
        connections: num("--connections", 50)? as usize,
        in_flight: num("--in-flight", 16)? as usize,
        seconds: num("--seconds", 5)?,
        rate: num("--rate", 20000)?,
        log_mb: num("--log-mb", 1024)?,
        fsync: get("--fsync").cloned().unwrap_or_else(|| "group".into()),
        restart_only: get("--restart-only").map(PathBuf::from),
        security: get("--security")
            .map_or("plaintext,plaintext-acl,sasl_ssl", |s| s.as_str())
            .split(',')
            .map(str::to_string)
            .collect(),
    })
}

struct Server {
    child: Child,
    port: u16,
    started: Instant,
    ready: Duration,
}

impl Server {
    fn start(sgc: &Path, dir: &Path, fsync: &str) -> Server {
        Server::start_with(sgc, dir, fsync, "127.0.0.1:0", &[])
    }

    fn start_with(sgc: &Path, dir: &Path, fsync: &str, listen: &str, extra: &[String]) -> Server {
        std::fs::write(dir.join("config.json"), config().to_string()).unwrap();
        let started = Instant::now();
        let mut child = Command::new(sgc)
            .args([
                "serve", "--listen", listen, "--fsync", fsync, "--topic", "in:64",
            ])
            .args(extra)
            .arg("--data-dir")
            .arg(dir.join("data"))
            .arg("--config")
            .arg(dir.join("config.json"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("sgc serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ready = started.elapsed();
        let port = line
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("a port");
        Server {
            child,
            port,
            started,
            ready,
        }
    }

    /// The process's CPU time so far (user + system), from /proc.
    fn cpu(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let ticks: u64 = fields.get(11).and_then(|u| u.parse().ok()).unwrap_or(0)
            + fields.get(12).and_then(|s| s.parse().ok()).unwrap_or(0);
        Duration::from_millis(ticks * 10)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = self.started;
    }
}

#[derive(Clone)]
struct Member {
    group: String,
    id: String,
    epoch: i64,
    active: Value,
}

fn heartbeat(m: &Member, corr: i32) -> Vec<u8> {
    let mut request = json!({"groupId": m.group, "memberId": m.id, "memberEpoch": m.epoch,
        "endpointInformationEpoch": -1, "activeTasks": m.active, "standbyTasks": [], "warmupTasks": []});
    if m.epoch == 0 {
        request["processId"] = json!(format!("p-{}", m.id));
        request["rebalanceTimeoutMs"] = json!(300000);
        request["topology"] = json!({"epoch": 0, "subtopologies": [{"subtopologyId": "0",
            "sourceTopics": ["in"], "sourceTopicRegex": [], "stateChangelogTopics": [],
            "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]});
    }
    let input = Input::parse(
        &json!({"nowMs": 0, "type": "StreamsGroupHeartbeat", "request": request}).to_string(),
    )
    .expect("a heartbeat");
    let mut frame = wire::encode_request(Dialect::Kafka42, &input.kind, 0, corr).expect("a frame");
    frame.splice(0..0, (frame.len() as i32).to_be_bytes());
    frame
}

type Rd = Box<dyn AsyncRead + Unpin + Send>;
type Wr = Box<dyn AsyncWrite + Unpin + Send>;

/// How the load's clients reach the server.
#[derive(Clone)]
enum Security {
    /// `PLAINTEXT`, no authorizer.
    Plain,
    /// `PLAINTEXT` with `--authorizer standard`: every request's ACL check, as `User:ANONYMOUS`.
    PlainAcl,
    /// `SASL_SSL` (TLS, SASL/PLAIN as `User:loader`) with the authorizer.
    SaslSsl(tokio_rustls::TlsConnector),
}

/// A connection, authenticated if the listener asks for it.
async fn connect(port: u16, sec: &Security) -> (Rd, Wr) {
    let s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.set_nodelay(true).unwrap();
    match sec {
        Security::Plain | Security::PlainAcl => {
            let (rd, wr) = s.into_split();
            (Box::new(rd), Box::new(wr))
        }
        Security::SaslSsl(tls) => {
            let name = tokio_rustls::rustls::pki_types::ServerName::try_from("localhost").unwrap();
            let stream = tls.connect(name, s).await.expect("a TLS handshake");
            let (rd, wr) = tokio::io::split(stream);
            let (mut rd, mut wr): (Rd, Wr) = (Box::new(rd), Box::new(wr));
            sasl_plain(&mut rd, &mut wr).await;
            (rd, wr)
        }
    }
}

/// SaslHandshake v1 (PLAIN) and SaslAuthenticate v2 as `loader`.
async fn sasl_plain(rd: &mut Rd, wr: &mut Wr) {
    use sgc_server::messages::{sasl_authenticate_request as saq, sasl_handshake_request as shq};
    use streams_group_coordinator::wire::messages::kafka::request_header::RequestHeader;
    let header = |key: i16, v: i16| RequestHeader {
        request_api_key: key,
        request_api_version: v,
        correlation_id: 1,
        client_id: Some("load".into()),
    };
    let mut frame = Vec::new();
    header(shq::API_KEY, 1).write(&mut frame, 1);
    shq::SaslHandshakeRequest {
        mechanism: "PLAIN".into(),
    }
    .write(&mut frame, 1);
    let r = exchange(rd, wr, &sized(frame)).await;
    assert_eq!(&r[4..6], &[0, 0], "the handshake refused");
    let mut frame = Vec::new();
    header(saq::API_KEY, 2).write(&mut frame, 2);
    saq::SaslAuthenticateRequest {
        auth_bytes: b"\0loader\0loader-secret".to_vec(),
    }
    .write(&mut frame, 2);
    let r = exchange(rd, wr, &sized(frame)).await;
    assert_eq!(&r[5..7], &[0, 0], "the authentication refused");
}

fn sized(mut frame: Vec<u8>) -> Vec<u8> {
    frame.splice(0..0, (frame.len() as i32).to_be_bytes());
    frame
}

async fn exchange(rd: &mut Rd, wr: &mut Wr, frame: &[u8]) -> Vec<u8> {
    wr.write_all(frame).await.unwrap();
    read_frame(rd).await
}

async fn read_frame(s: &mut (impl AsyncReadExt + Unpin)) -> Vec<u8> {
    let size = s.read_i32().await.unwrap() as usize;
    let mut buf = vec![0u8; size];
    s.read_exact(&mut buf).await.unwrap();
    buf
}

/// Joins every member and heartbeats until every group is stable (no member's epoch or tasks
/// change for a round).
async fn join(port: u16, members: &mut [Member], sec: &Security) {
    let (mut rd, mut wr) = connect(port, sec).await;
    for round in 0..30 {
        let mut changed = false;
        for m in members.iter_mut() {
            let r = exchange(&mut rd, &mut wr, &heartbeat(m, 1)).await;
            let (_, json) = wire::response_json(Dialect::Kafka42, 88, 0, &r).unwrap();
            assert_eq!(json["errorCode"], 0, "{json}");
            let epoch = json["memberEpoch"].as_i64().unwrap();
            if epoch != m.epoch {
                changed = true;
                m.epoch = epoch;
            }
            if !json["activeTasks"].is_null() && json["activeTasks"] != m.active {
                changed = true;
                m.active = json["activeTasks"].clone();
            }
        }
        if !changed && round > 0 {
            return;
        }
    }
    panic!("the groups did not settle");
}

/// Steady heartbeats, closed loop: `in_flight` per connection; the count answered.
async fn throughput(port: u16, frames: Arc<Vec<Vec<u8>>>, o: &Opts, sec: &Security) -> u64 {
    let answered = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let mut tasks = Vec::new();
    for c in 0..o.connections {
        let (frames, answered, window) = (frames.clone(), answered.clone(), o.in_flight);
        let n = o.connections;
        let sec = sec.clone();
        tasks.push(tokio::spawn(async move {
            let (mut rd, mut wr) = connect(port, &sec).await;
            let mine: Vec<&Vec<u8>> = frames.iter().skip(c).step_by(n).collect();
            let mine: Vec<Vec<u8>> = mine.into_iter().cloned().collect();
            let (tx, mut rx) = tokio::sync::mpsc::channel::<()>(window);
            let reader = tokio::spawn(async move {
                let mut rd = tokio::io::BufReader::with_capacity(64 * 1024, &mut rd);
                let mut got = 0u64;
                while rx.recv().await.is_some() {
                    let r = read_frame(&mut rd).await;
                    assert_eq!(
                        &r[9..11],
                        &[0, 0],
                        "a steady heartbeat answered with an error"
                    );
                    got += 1;
                }
                got
            });
            let mut i = 0;
            while Instant::now() < deadline {
                // The channel's capacity is the window: a send waits for an answer.
                let f = &mine[i % mine.len()];
                wr.write_all(f).await.unwrap();
                tx.send(()).await.unwrap();
                i += 1;
            }
            drop(tx);
            let got = reader.await.unwrap();
            answered.fetch_add(got, Ordering::Relaxed);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    answered.load(Ordering::Relaxed)
}

/// Steady heartbeats sent at `rate` a second (open loop); the latencies in microseconds.
async fn latency(port: u16, frames: Arc<Vec<Vec<u8>>>, o: &Opts, sec: &Security) -> Vec<u64> {
    let conns = o.connections.min(20);
    let per = o.rate as f64 / conns as f64;
    let total = (o.rate * o.seconds) as usize / conns;
    let mut tasks = Vec::new();
    for c in 0..conns {
        let frames = frames.clone();
        let sec = sec.clone();
        tasks.push(tokio::spawn(async move {
            let (mut rd, mut wr) = connect(port, &sec).await;
            let sent: Arc<std::sync::Mutex<VecDeque<Instant>>> = Arc::default();
            let sent2 = sent.clone();
            let reader = tokio::spawn(async move {
                let mut out = Vec::with_capacity(total);
                for _ in 0..total {
                    let _ = read_frame(&mut rd).await;
                    let at = sent2.lock().unwrap().pop_front().unwrap();
                    out.push(at.elapsed().as_micros() as u64);
                }
                out
            });
            let start = Instant::now();
            for i in 0..total {
                let due = start + Duration::from_secs_f64(i as f64 / per);
                tokio::time::sleep_until(due.into()).await;
                let f = &frames[(c + i * conns) % frames.len()];
                sent.lock().unwrap().push_back(Instant::now());
                wr.write_all(f).await.unwrap();
            }
            reader.await.unwrap()
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort_unstable();
    all
}

/// Rebuilds each partition's coordinator from the server's log and times the same steady
/// frames through the core alone: microseconds per heartbeat.
fn core_alone(data: &Path, frames: &[Vec<u8>], groups: &[String]) -> f64 {
    let now = sgc_server::shard::now_ms();
    let mut coordinators: Vec<Coordinator> = Vec::new();
    for p in 0..PARTITIONS {
        let mut c = Coordinator::from_json_config(&config()).unwrap();
        let _ = c.handle(Input {
            now_ms: now,
            kind: topic_metadata(data),
        });
        let dir = data.join(format!("__consumer_offsets-{p}"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            for b in batch::scan(&bytes).0 {
                let records = batch::records(&bytes[b.start..b.end]).unwrap();
                let _ = c.replay_bytes(&records, now);
            }
        }
        coordinators.push(c);
    }
    // The server saw the clients at the loopback address: the same member metadata.
    let peer = Peer {
        client_host: "/127.0.0.1".into(),
    };
    let mut out = Vec::with_capacity(512);
    let mut scratch = wire::FrameScratch::default();
    let rounds = 20;
    let started = Instant::now();
    for _ in 0..rounds {
        for (f, g) in frames.iter().zip(groups) {
            let c = &mut coordinators[partition_for(g, PARTITIONS) as usize];
            let o =
                wire::handle_frame_with(c, &mut scratch, &f[4..], now, &peer, &mut out).unwrap();
            assert!(o.records.is_empty(), "{:?}", o.explain);
        }
    }
    started.elapsed().as_secs_f64() * 1e6 / (rounds * frames.len()) as f64
}

/// The `TopicMetadata` input the server's partitions got: its topics as it keeps them.
fn topic_metadata(data: &Path) -> InputKind {
    let (table, _) =
        sgc_server::topics::Topics::load(data.join("topics.json"), PARTITIONS).unwrap();
    InputKind::TopicMetadata {
        topics: table.specs(),
        deleted_topics: Vec::new(),
    }
}

/// Writes about `mb` MB of records by churning groups through the core: each group's ten
/// members join, then leave.
fn write_log(data: &Path, mb: u64) -> u64 {
    let mut logs: Vec<PartitionLog> = (0..PARTITIONS)
        .map(|p| {
            PartitionLog::open(
                &sgc_server::log::partition_dir(data, p),
                100 << 20,
                |_, _| Ok(()),
            )
            .unwrap()
            .0
        })
        .collect();
    let mut cs: Vec<Coordinator> = (0..PARTITIONS)
        .map(|_| Coordinator::from_json_config(&config()).unwrap())
        .collect();
    let topics = Input::parse(&json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 64}], "deletedTopics": []}).to_string()).unwrap();
    for c in &mut cs {
        let _ = c.handle(topics.clone());
    }
    let mut bytes = 0u64;
    let mut g = 0u64;
    let mut now = 1i64;
    while bytes < mb << 20 {
        let group = format!("churn-{g}");
        let p = partition_for(&group, PARTITIONS) as usize;
        let members: Vec<Member> = (0..10)
            .map(|i| Member {
                group: group.clone(),
                id: format!("m{i}"),
                epoch: 0,
                active: json!([]),
            })
            .collect();
        for leave in [false, true] {
            for m in &members {
                let mut m = m.clone();
                if leave {
                    m.epoch = -1;
                }
                let frame = heartbeat(&m, 1);
                let mut out = Vec::new();
                let o = wire::handle_frame_into(
                    &mut cs[p],
                    &frame[4..],
                    now,
                    &Peer::default(),
                    &mut out,
                )
                .unwrap();
                let records: Vec<_> = o
                    .records
                    .iter()
                    .map(|r| {
                        (
                            encode_key(Dialect::Kafka42, &r.key),
                            r.value.as_ref().map(|v| encode_value(Dialect::Kafka42, v)),
                        )
                    })
                    .collect();
                logs[p].stage(now, None, &records);
                now += 1;
            }
        }
        let before: u64 = logs[p].total_bytes;
        logs[p].commit(false).unwrap();
        bytes += logs[p].total_bytes - before;
        g += 1;
    }
    bytes
}

/// Restarts `sgc serve` on the log in `dir` (written first if missing) three times; the
/// log's size and the median time to `listening`.
fn restart(o: &Opts, dir: &Path) -> (u64, f64) {
    std::fs::create_dir_all(dir).unwrap();
    let written = if dir.join("data").exists() {
        dir_size(&dir.join("data"))
    } else {
        write_log(&dir.join("data"), o.log_mb)
    };
    let mut times: Vec<f64> = (0..3)
        .map(|_| Server::start(&o.sgc, dir, &o.fsync).ready.as_secs_f64())
        .collect();
    times.sort_by(f64::total_cmp);
    (written, times[1])
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_size(&p)
                    } else {
                        e.metadata().map_or(0, |m| m.len())
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

/// The ACLs the load's principal needs: READ on its groups, DESCRIBE on its topology's topic.
fn write_acls(data: &Path, principal: &str) -> Result<(), String> {
    use sgc_server::acl::{Acl, Operation, PatternType, Permission, ResourceType};
    let acl = |rt, name: &str, pt, op| Acl {
        resource_type: rt,
        resource_name: name.into(),
        pattern_type: pt,
        principal: principal.into(),
        host: "*".into(),
        operation: op,
        permission: Permission::Allow,
    };
    let acls = vec![
        acl(
            ResourceType::Group,
            "app-",
            PatternType::Prefixed,
            Operation::Read,
        ),
        acl(
            ResourceType::Topic,
            "in",
            PatternType::Literal,
            Operation::Describe,
        ),
    ];
    let text = serde_json::to_vec(&acls).map_err(|e| e.to_string())?;
    std::fs::write(data.join("acls.json"), text).map_err(|e| e.to_string())
}

/// A listener of `mode`: how clients connect, the `--listen` value and the server's flags.
fn security(mode: &str, dir: &Path) -> Result<(Security, String, Vec<String>), String> {
    let authorizer = vec!["--authorizer".to_string(), "standard".into()];
    match mode {
        "plaintext" => Ok((Security::Plain, "127.0.0.1:0".into(), Vec::new())),
        "plaintext-acl" => {
            write_acls(&dir.join("data"), "User:ANONYMOUS")?;
            Ok((Security::PlainAcl, "127.0.0.1:0".into(), authorizer))
        }
        "sasl_ssl" => {
            write_acls(&dir.join("data"), "User:loader")?;
            let ca_key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
            let mut ca_params =
                rcgen::CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
            ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
            let ca = ca_params.self_signed(&ca_key).map_err(|e| e.to_string())?;
            let key = rcgen::KeyPair::generate().map_err(|e| e.to_string())?;
            let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
                .and_then(|p| p.signed_by(&key, &ca, &ca_key))
                .map_err(|e| e.to_string())?;
            let keystore = dir.join("keystore.pem");
            std::fs::write(&keystore, format!("{}{}", cert.pem(), key.serialize_pem()))
                .map_err(|e| e.to_string())?;
            let users = dir.join("users.json");
            std::fs::write(&users, r#"{"loader": "loader-secret"}"#).map_err(|e| e.to_string())?;
            let mut roots = tokio_rustls::rustls::RootCertStore::empty();
            roots.add(ca.der().clone()).map_err(|e| e.to_string())?;
            #[allow(deprecated)]
            let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
            let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .with_root_certificates(roots)
                .with_no_client_auth();
            let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
            let mut extra = authorizer;
            extra.extend([
                "--ssl-keystore-location".to_string(),
                keystore.display().to_string(),
                "--sasl-users".into(),
                users.display().to_string(),
            ]);
            Ok((
                Security::SaslSsl(connector),
                "SASL_SSL://127.0.0.1:0".into(),
                extra,
            ))
        }
        other => Err(format!(
            "--security takes plaintext, plaintext-acl or sasl_ssl, not {other}"
        )),
    }
}

fn main() -> Result<(), String> {
    let o = opts()?;
    if let Some(dir) = &o.restart_only {
        let (written, secs) = restart(&o, dir);
        println!(
            "| restart: {} MB of log replayed, ready in (median of 3) | {:.2} s ({:.0} MB/s) |",
            written >> 20,
            secs,
            (written as f64 / (1 << 20) as f64) / secs
        );
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("sgc-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();

    let mut rows = Vec::new();
    let mut core_us = 0.0;
    for mode in &o.security {
        let here = dir.join(mode);
        std::fs::create_dir_all(here.join("data")).map_err(|e| e.to_string())?;
        let (sec, listen, extra) = security(mode, &here)?;
        let server = Server::start_with(&o.sgc, &here, &o.fsync, &listen, &extra);
        let mut members: Vec<Member> = (0..o.members)
            .map(|i| Member {
                group: format!("app-{}", i / o.group_size),
                id: format!("m{i:05}"),
                epoch: 0,
                active: json!([]),
            })
            .collect();
        rt.block_on(join(server.port, &mut members, &sec));
        let frames: Vec<Vec<u8>> = members
            .iter()
            .enumerate()
            .map(|(i, m)| heartbeat(m, i as i32))
            .collect();
        let groups: Vec<String> = members.iter().map(|m| m.group.clone()).collect();
        let frames = Arc::new(frames);

        let cpu0 = server.cpu();
        let t0 = Instant::now();
        let n = rt.block_on(throughput(server.port, frames.clone(), &o, &sec));
        let wall = t0.elapsed().as_secs_f64();
        let cpu = (server.cpu() - cpu0).as_secs_f64();
        let lat = rt.block_on(latency(server.port, frames.clone(), &o, &sec));
        let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
        drop(server);
        if rows.is_empty() {
            core_us = core_alone(&here.join("data"), &frames, &groups);
        }
        rows.push(format!(
            "| {mode} | {:.0} /s | {:.1} us | {} / {} / {} / {} us |",
            n as f64 / wall,
            cpu * 1e6 / n as f64,
            pct(0.5),
            pct(0.99),
            pct(0.999),
            lat[lat.len() - 1]
        ));
    }

    let (written, secs) = restart(&o, &dir.join("restart"));

    println!(
        "steady heartbeats: {} members, {} connections x {} in flight, {} s, fsync {}; latency at {} heartbeats/s (open loop)\n",
        o.members, o.connections, o.in_flight, o.seconds, o.fsync, o.rate
    );
    println!("| listener | answered | server CPU per heartbeat (user + system) | latency p50 / p99 / p99.9 / max |\n|---|---:|---:|---:|");
    for row in &rows {
        println!("{row}");
    }
    println!("\n| figure | value |\n|---|---:|");
    println!(
        "| the core alone per heartbeat (`handle_frame_with`, same frames) | {:.2} us |",
        core_us
    );
    println!(
        "| restart: {} MB of log replayed, ready in (median of 3) | {:.2} s ({:.0} MB/s) |",
        written >> 20,
        secs,
        (written as f64 / (1 << 20) as f64) / secs
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

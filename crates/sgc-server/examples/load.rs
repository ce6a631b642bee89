//! `make serve-load`: `sgc serve`'s figures on this machine, in one run, against a server
//! process of its own on loopback (the load stops on its own):
//!
//! 1. throughput: 1,000 members (100 groups of 10) joined and reconciled, then steady
//!    heartbeats from 50 connections, each keeping 16 in flight, for `--seconds`;
//! 2. latency: steady heartbeats sent at a fixed `--rate` (open loop), p50/p99/p99.9/max;
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
use tokio::io::{AsyncReadExt, AsyncWriteExt};
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
        std::fs::write(dir.join("config.json"), config().to_string()).unwrap();
        let started = Instant::now();
        let mut child = Command::new(sgc)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--fsync",
                fsync,
                "--topic",
                "in:64",
            ])
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

async fn exchange(s: &mut TcpStream, frame: &[u8]) -> Vec<u8> {
    s.write_all(frame).await.unwrap();
    read_frame(s).await
}

async fn read_frame(s: &mut (impl AsyncReadExt + Unpin)) -> Vec<u8> {
    let size = s.read_i32().await.unwrap() as usize;
    let mut buf = vec![0u8; size];
    s.read_exact(&mut buf).await.unwrap();
    buf
}

/// Joins every member and heartbeats until every group is stable (no member's epoch or tasks
/// change for a round).
async fn join(port: u16, members: &mut [Member]) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.set_nodelay(true).unwrap();
    for round in 0..30 {
        let mut changed = false;
        for m in members.iter_mut() {
            let r = exchange(&mut s, &heartbeat(m, 1)).await;
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
async fn throughput(port: u16, frames: Arc<Vec<Vec<u8>>>, o: &Opts) -> u64 {
    let answered = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let mut tasks = Vec::new();
    for c in 0..o.connections {
        let (frames, answered, window) = (frames.clone(), answered.clone(), o.in_flight);
        let n = o.connections;
        tasks.push(tokio::spawn(async move {
            let s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            s.set_nodelay(true).unwrap();
            let (mut rd, mut wr) = s.into_split();
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
async fn latency(port: u16, frames: Arc<Vec<Vec<u8>>>, o: &Opts) -> Vec<u64> {
    let conns = o.connections.min(20);
    let per = o.rate as f64 / conns as f64;
    let total = (o.rate * o.seconds) as usize / conns;
    let mut tasks = Vec::new();
    for c in 0..conns {
        let frames = frames.clone();
        tasks.push(tokio::spawn(async move {
            let s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            s.set_nodelay(true).unwrap();
            let (mut rd, mut wr) = s.into_split();
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

    let server = Server::start(&o.sgc, &dir, &o.fsync);
    let mut members: Vec<Member> = (0..o.members)
        .map(|i| Member {
            group: format!("app-{}", i / o.group_size),
            id: format!("m{i:05}"),
            epoch: 0,
            active: json!([]),
        })
        .collect();
    rt.block_on(join(server.port, &mut members));
    let frames: Vec<Vec<u8>> = members
        .iter()
        .enumerate()
        .map(|(i, m)| heartbeat(m, i as i32))
        .collect();
    let groups: Vec<String> = members.iter().map(|m| m.group.clone()).collect();
    let frames = Arc::new(frames);

    let cpu0 = server.cpu();
    let t0 = Instant::now();
    let n = rt.block_on(throughput(server.port, frames.clone(), &o));
    let wall = t0.elapsed().as_secs_f64();
    let cpu = (server.cpu() - cpu0).as_secs_f64();
    let lat = rt.block_on(latency(server.port, frames.clone(), &o));
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    drop(server);
    let core_us = core_alone(&dir.join("data"), &frames, &groups);

    let (written, secs) = restart(&o, &dir.join("restart"));

    println!("| figure | value |\n|---|---:|");
    println!("| steady heartbeats answered ({} members, {} connections x {} in flight, {} s, fsync {}) | {:.0} /s |", o.members, o.connections, o.in_flight, o.seconds, o.fsync, n as f64 / wall);
    println!(
        "| server CPU per heartbeat (user + system, all threads) | {:.1} us |",
        cpu * 1e6 / n as f64
    );
    println!(
        "| the core alone per heartbeat (`handle_frame_with`, same frames) | {:.2} us |",
        core_us
    );
    println!("| latency at {} heartbeats/s (open loop): p50 / p99 / p99.9 / max | {} / {} / {} / {} us |", o.rate, pct(0.5), pct(0.99), pct(0.999), lat[lat.len() - 1]);
    println!(
        "| restart: {} MB of log replayed, ready in (median of 3) | {:.2} s ({:.0} MB/s) |",
        written >> 20,
        secs,
        (written as f64 / (1 << 20) as f64) / secs
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

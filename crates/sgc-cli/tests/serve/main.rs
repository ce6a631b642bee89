//! `sgc serve` from the outside: the binary started on a free port with a data folder of its
//! own, driven over TCP with Kafka's frames (the project's encoder stands in for a streams
//! client), killed with SIGKILL and restarted.

mod acls;
mod client;
mod topics;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use client::{heartbeat, Client, Server};
use serde_json::{json, Value};
use streams_group_coordinator::api::Input;
use streams_group_coordinator::records::batch;
use streams_group_coordinator::{partition_for, Coordinator, Dialect};

const CONFIG: &str = r#"{"dialect": "kafka-4.2", "group.streams.initial.rebalance.delay.ms": 0, "offsets.topic.num.partitions": 8}"#;

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sgc-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("config.json"), CONFIG).unwrap();
    d
}

fn start(dir: &Path, extra: &[&str]) -> Server {
    let mut args = vec![
        "--data-dir".to_string(),
        dir.join("data").display().to_string(),
        "--config".into(),
        dir.join("config.json").display().to_string(),
        "--topic".into(),
        "in:4".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    Server::start(&args)
}

#[test]
fn a_client_finds_the_coordinator_joins_and_is_answered_by_its_partition() {
    let dir = temp("basics");
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    let versions = c.api_versions();
    for key in [3, 10, 19, 42, 88, 89] {
        assert!(
            versions.contains_key(&key),
            "ApiVersions lists {key}: {versions:?}"
        );
    }
    let found = c.find_coordinators(&["g1", "g2"]);
    assert_eq!(found.len(), 2);
    for f in &found {
        assert_eq!(
            (f["errorCode"].as_i64(), f["port"].as_i64()),
            (Some(0), Some(i64::from(server.port)))
        );
    }
    let topics = c.metadata_topics();
    assert_eq!(topics.get("in"), Some(&4));
    assert_eq!(topics.get("__consumer_offsets"), Some(&8));

    let r = c.call(&heartbeat("g1", "m1", 0, &[]), 0);
    assert_eq!(r["errorCode"], 0, "{r}");
    assert_eq!(r["memberEpoch"], 2, "{r}");
    // The groups of one describe sit on different partitions: the answers are merged as
    // Kafka's service merges them, partition by partition in a Java HashMap's order (Java
    // prints that map {__consumer_offsets-0=[other], __consumer_offsets-3=[g2],
    // __consumer_offsets-2=[g1]}).
    let groups = ["g1", "other", "g2"];
    assert!(
        groups
            .iter()
            .map(|g| partition_for(g, 8))
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 1
    );
    let d = c.call(
        &json!({"type": "StreamsGroupDescribe", "request": {"groupIds": groups, "includeAuthorizedOperations": false}}),
        0,
    );
    let ids: Vec<_> = d["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["groupId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["other", "g2", "g1"]);
    assert_eq!(d["groups"][2]["errorCode"], 0);
    assert_eq!(d["groups"][0]["errorCode"], 69);
    let del = c.call(
        &json!({"type": "DeleteGroups", "groupIds": ["g2", "g1"]}),
        2,
    );
    let codes: Vec<_> = del["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["groupId"].clone(), r["errorCode"].clone()))
        .collect();
    assert_eq!(codes, [(json!("g2"), json!(69)), (json!("g1"), json!(68))]);

    // Admin commits, then one fetch of two groups on two partitions, and ListGroups of all.
    for (g, offset) in [("o1", 11), ("o2", 22)] {
        let commit = c.call(
            &json!({"type": "OffsetCommit", "request": {"groupId": g,
            "generationIdOrMemberEpoch": -1, "memberId": "", "topics": [{"name": "in",
            "partitions": [{"partitionIndex": 1, "committedOffset": offset}]}]}}),
            9,
        );
        assert_eq!(
            commit["topics"][0]["partitions"][0]["errorCode"], 0,
            "{commit}"
        );
    }
    assert_ne!(partition_for("o1", 8), partition_for("o2", 8));
    let fetch = c.call(
        &json!({"type": "OffsetFetch", "request": {"groups": [
        {"groupId": "o2", "memberId": null, "memberEpoch": -1, "topics": null},
        {"groupId": "o1", "memberId": null, "memberEpoch": -1, "topics": null}]}}),
        9,
    );
    let got: Vec<_> = fetch["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["groupId"].clone(),
                g["topics"][0]["partitions"][0]["committedOffset"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [(json!("o2"), json!(22)), (json!("o1"), json!(11))],
        "{fetch}"
    );
    let listed = c.call(&json!({"type": "ListGroups", "request": {}}), 5);
    let mut ids: Vec<_> = listed["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["groupId"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, ["g1", "o1", "o2"], "{listed}");

    // CreateTopics as an admin sends it; a topic that exists is refused.
    let created = c.create_topics(&[("out", 3), ("in", 1)]);
    assert_eq!(created, [("out".to_string(), 0), ("in".to_string(), 36)]);
    assert_eq!(c.metadata_topics().get("out"), Some(&3));
}

#[test]
fn the_metrics_endpoint_counts_requests_groups_and_log_bytes() {
    let dir = temp("metrics");
    let server = start(&dir, &["--metrics-listen", "127.0.0.1:0"]);
    let mut c = Client::connect(server.port);
    assert_eq!(c.call(&heartbeat("g", "m", 0, &[]), 0)["errorCode"], 0);
    let mut s = std::net::TcpStream::connect(("127.0.0.1", server.metrics_port.unwrap())).unwrap();
    use std::io::{Read, Write};
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    assert!(
        text.contains("sgc_requests_total{api_key=\"88\"} 1"),
        "{text}"
    );
    let p = partition_for("g", 8);
    assert!(
        text.contains(&format!(
            "sgc_group_members{{partition=\"{p}\",group=\"g\",state=\"Stable\"}} 1"
        )),
        "{text}"
    );
    let log_bytes = text
        .lines()
        .find_map(|l| l.strip_prefix(&format!("sgc_log_bytes{{partition=\"{p}\"}} ")))
        .and_then(|v| v.parse::<u64>().ok());
    assert!(log_bytes.is_some_and(|b| b > 0), "{text}");
}

#[test]
fn bad_frames_close_their_connection_and_no_other() {
    let dir = temp("bad");
    let server = start(
        &dir,
        &[
            "--socket-request-max-bytes",
            "1000",
            "--connections-max-idle-ms",
            "300",
        ],
    );
    let mut over = Client::connect(server.port);
    assert!(
        over.send_raw(&100_000i32.to_be_bytes()).is_closed(),
        "a size over the limit closes"
    );
    let mut unknown = Client::connect(server.port);
    let mut frame = vec![0u8, 0x45, 0, 0, 0, 0, 0, 1, 0xff, 0xff];
    frame.splice(0..0, (frame.len() as i32).to_be_bytes());
    assert!(
        unknown.send_raw(&frame).is_closed(),
        "an API key not served closes"
    );
    let mut half = Client::connect(server.port);
    let started = Instant::now();
    assert!(
        half.send_raw(&[0, 0, 0, 50, 0, 18]).is_closed(),
        "a half-sent frame is closed when idle"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Another client, served all along (a client idle for connections.max.idle.ms is closed).
    let mut good = Client::connect(server.port);
    assert_eq!(good.call(&heartbeat("g", "m", 0, &[]), 0)["errorCode"], 0);
}

#[test]
fn thousands_of_idle_and_half_sent_connections_cost_bounded_memory_and_stall_no_one() {
    let dir = temp("idle");
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    assert_eq!(c.call(&heartbeat("g", "m", 0, &[]), 0)["errorCode"], 0);
    let before = server.rss_kib();
    let mut idle = Vec::new();
    for i in 0..2000 {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        if i % 2 == 0 {
            // Half a frame: a size of 100 MB (within socket.request.max.bytes), 10 bytes of it.
            use std::io::Write;
            s.write_all(&100_000_000i32.to_be_bytes()).unwrap();
            s.write_all(&[0u8; 10]).unwrap();
        }
        idle.push(s);
    }
    let started = Instant::now();
    for i in 0..20 {
        let r = c.call(&heartbeat(&format!("h{i}"), "m", 0, &[]), 0);
        assert_eq!(r["errorCode"], 0);
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "answered while 2,000 connections wait"
    );
    let after = server.rss_kib();
    assert!(
        after < before + 64 * 1024,
        "2,000 waiting connections cost {} KiB (from {before} KiB)",
        after - before
    );
}

/// Reads every partition's log as recovery does and replays it into a fresh coordinator.
fn replay_logs(data: &Path) -> Coordinator {
    let mut c = Coordinator::from_json_config(&serde_json::from_str(CONFIG).unwrap()).unwrap();
    for p in 0..8 {
        let dir = data.join(format!("__consumer_offsets-{p}"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "log"))
        {
            let bytes = std::fs::read(f).unwrap();
            let (batches, damage) = batch::scan(&bytes);
            assert!(damage.is_none(), "{}: {damage:?}", f.display());
            for b in batches {
                let records = batch::records(&bytes[b.start..b.end]).unwrap();
                let out = c.replay_bytes(&records, 1).unwrap();
                assert!(out.records.is_empty());
            }
        }
    }
    c
}

fn describe_local(c: &mut Coordinator, group: &str) -> Value {
    let input = Input::parse(&json!({"nowMs": 1, "type": "StreamsGroupDescribe", "request": {"groupIds": [group], "includeAuthorizedOperations": false}}).to_string()).unwrap();
    let kind = input.kind.clone();
    let out = c.handle(Input { now_ms: 1, kind }).unwrap();
    let response = out.response.unwrap();
    streams_group_coordinator::wire::response_as_wire_json(Dialect::Kafka42, 0, &response).unwrap()
}

#[derive(Clone, Debug, Default)]
struct Member {
    epoch: i64,
    active: Vec<Value>,
    /// A request was sent and its answer never read (the server was killed first).
    in_flight: bool,
}

#[test]
fn after_sigkill_every_answered_write_is_in_the_log_and_clients_carry_on() {
    let dir = temp("kill");
    let server = start(&dir, &[]);
    let members: Arc<Mutex<BTreeMap<(String, String), Member>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for t in 0..6 {
        let (members, stop, port) = (members.clone(), stop.clone(), server.port);
        threads.push(std::thread::spawn(move || {
            let Ok(mut c) = Client::try_connect(port) else {
                return;
            };
            let mut round = 0;
            while !stop.load(Ordering::Relaxed) {
                for g in 0..4 {
                    for m in 0..3 {
                        let key = (format!("g{t}-{g}"), format!("m{m}"));
                        let me = members
                            .lock()
                            .unwrap()
                            .get(&key)
                            .cloned()
                            .unwrap_or_default();
                        let input = heartbeat(&key.0, &key.1, me.epoch, &me.active);
                        members
                            .lock()
                            .unwrap()
                            .entry(key.clone())
                            .or_default()
                            .in_flight = true;
                        let Ok(r) = c.try_call(&input, 0) else { return };
                        assert_eq!(r["errorCode"], 0, "{key:?} round {round}: {r}");
                        let mut all = members.lock().unwrap();
                        let entry = all.entry(key).or_default();
                        entry.in_flight = false;
                        entry.epoch = r["memberEpoch"].as_i64().unwrap();
                        if let Some(a) = r["activeTasks"].as_array() {
                            entry.active = a.clone();
                        }
                    }
                }
                round += 1;
            }
        }));
    }
    std::thread::sleep(Duration::from_millis(1500));
    server.kill9();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    let answered: BTreeMap<_, _> = members.lock().unwrap().clone();
    assert!(
        answered.len() >= 60,
        "the storm reached every member: {}",
        answered.len()
    );
    let epochs: i64 = answered.values().map(|m| m.epoch).sum();
    assert!(epochs > 100, "members moved through epochs: {epochs}");

    let server = start(&dir, &[]);
    let mut offline = replay_logs(&dir.join("data"));
    let mut c = Client::connect(server.port);
    let groups: std::collections::BTreeSet<String> = answered.keys().map(|k| k.0.clone()).collect();
    for g in &groups {
        let live = c.call(&json!({"type": "StreamsGroupDescribe", "request": {"groupIds": [g], "includeAuthorizedOperations": false}}), 0);
        let replayed = describe_local(&mut offline, g);
        assert_eq!(
            live, replayed,
            "{g}: the restarted server holds what its log replays to"
        );
    }
    let mut carried_on = 0;
    for ((g, m), me) in &answered {
        if me.in_flight || me.epoch == 0 {
            continue;
        }
        let r = c.call(&heartbeat(g, m, me.epoch, &me.active), 0);
        assert_eq!(
            r["errorCode"], 0,
            "{g}/{m} at its answered epoch {}: {r}",
            me.epoch
        );
        assert!(r["memberEpoch"].as_i64().unwrap() >= me.epoch);
        carried_on += 1;
    }
    assert!(carried_on >= 50, "{carried_on}");
    // The segments are Kafka's format: `sgc history` tells them without damage.
    let segment = dir.join(format!(
        "data/__consumer_offsets-{}/00000000000000000000.log",
        partition_for("g0-0", 8)
    ));
    let history = std::process::Command::new(env!("CARGO_BIN_EXE_sgc"))
        .args(["history", "--dialect", "kafka-4.2"])
        .arg(&segment)
        .output()
        .unwrap();
    let told = String::from_utf8_lossy(&history.stdout);
    assert!(
        history.status.success(),
        "{told}{}",
        String::from_utf8_lossy(&history.stderr)
    );
    assert!(told.contains("g0-0"), "{told}");
}

#[test]
fn a_torn_tail_is_truncated_and_a_damaged_middle_stops_only_its_partition() {
    let dir = temp("damage");
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    for g in ["a", "b", "c", "d", "e", "f"] {
        assert_eq!(c.call(&heartbeat(g, "m", 0, &[]), 0)["errorCode"], 0);
        assert_eq!(c.call(&heartbeat(g, "n", 0, &[]), 0)["errorCode"], 0);
    }
    server.kill9();
    let data = dir.join("data");
    let seg = |g: &str| {
        data.join(format!(
            "__consumer_offsets-{}/00000000000000000000.log",
            partition_for(g, 8)
        ))
    };
    // "a": a write cut short; the whole batches before it stay.
    let mut torn = std::fs::read(seg("a")).unwrap();
    let whole = torn.len();
    let head = torn[..30].to_vec();
    torn.extend_from_slice(&head);
    std::fs::write(seg("a"), &torn).unwrap();
    // "b" (another partition): one flipped byte in its first batch.
    let pb = partition_for("b", 8);
    assert_ne!(pb, partition_for("a", 8));
    let mut bad = std::fs::read(seg("b")).unwrap();
    bad[40] ^= 0x20;
    std::fs::write(seg("b"), &bad).unwrap();

    let server = start(&dir, &[]);
    assert!(server.stderr().contains("truncated"), "{}", server.stderr());
    assert!(
        server.stderr().contains(&format!("partition {pb} stopped")),
        "{}",
        server.stderr()
    );
    assert!(server.stderr().contains("byte 0"), "{}", server.stderr());
    assert_eq!(std::fs::metadata(seg("a")).unwrap().len() as usize, whole);
    let mut c = Client::connect(server.port);
    let r = c.call(&json!({"type": "StreamsGroupDescribe", "request": {"groupIds": ["a"], "includeAuthorizedOperations": false}}), 0);
    assert_eq!(
        r["groups"][0]["members"].as_array().map(Vec::len),
        Some(2),
        "{r}"
    );
    let r = c.call(&heartbeat("b", "m", 0, &[]), 0);
    assert_eq!(
        r["errorCode"], 15,
        "the stopped partition answers COORDINATOR_NOT_AVAILABLE: {r}"
    );
    assert_eq!(
        std::fs::read(seg("b")).unwrap(),
        bad,
        "nothing is cut from a damaged log"
    );
}

/// A small tmpfs mounted for one test (the tests run as root, as CI does on this project's
/// machines), unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(dir: &Path, size: &str) -> SmallDisk {
        std::fs::create_dir_all(dir).unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "mounting a tmpfs needs root (CI runs as root)"
        );
        SmallDisk(dir.to_path_buf())
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_refuses_writes_and_answers_no_unwritten_success() {
    let dir = temp("full");
    let disk = SmallDisk::mount(&dir.join("data"), "160k");
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    let (mut ok, mut refused) = (Vec::new(), Vec::new());
    for i in 0..400 {
        let group = format!("full-{i}");
        let r = c.call(&heartbeat(&group, "m", 0, &[]), 0);
        match r["errorCode"].as_i64() {
            Some(0) => ok.push(group),
            Some(15) => refused.push(group),
            other => panic!("{group}: {other:?} {r}"),
        }
    }
    assert!(
        ok.len() > 5 && refused.len() > 5,
        "{} written, {} refused",
        ok.len(),
        refused.len()
    );
    assert!(
        server.stderr().contains("write failed"),
        "{}",
        server.stderr()
    );
    server.kill9();
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    for (groups, members) in [(&ok, 1), (&refused, 0)] {
        for g in groups.iter() {
            let d = c.call(&json!({"type": "StreamsGroupDescribe", "request": {"groupIds": [g], "includeAuthorizedOperations": false}}), 0);
            let n = d["groups"][0]["members"].as_array().map_or(0, Vec::len);
            assert_eq!(n, members, "{g}: {d}");
        }
    }
    drop(server);
    drop(disk);
}

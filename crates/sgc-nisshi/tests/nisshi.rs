//! `sgc-nisshi` as a process on a temporary directory: a streams group joins, is described,
//! and is there again after the process is killed and started again (replayed from Nisshi's
//! storage); Nisshi's own produce and fetch still work through the same listener.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use streams_group_coordinator::api::Input;
use streams_group_coordinator::{Dialect, wire};

struct Server {
    child: Child,
    port: u16,
    stderr: PathBuf,
}

impl Server {
    fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    fn start_with(dir: &Path, args: &[&str]) -> Server {
        let stderr = dir.with_extension("stderr");
        let mut child = Command::new(env!("CARGO_BIN_EXE_sgc-nisshi"))
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("sgc-nisshi starts");
        let stdout = child.stdout.take().unwrap();
        // Kept from here on, so the process is killed should the test fail.
        let mut server = Server {
            child,
            port: 0,
            stderr,
        };
        let mut out = BufReader::new(stdout);
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        // Anything printed afterwards is read and dropped.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        server.port = line
            .trim()
            .strip_prefix("listening ")
            .and_then(|a| a.rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "no port in {line:?}; stderr: {}",
                    std::fs::read_to_string(&server.stderr).unwrap_or_default()
                )
            });
        server
    }

    fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgc-nisshi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The data directory and the server's stderr, removed.
fn cleanup(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_file(dir.with_extension("stderr"));
}

struct Client {
    stream: TcpStream,
    correlation: i32,
}

impl Client {
    fn connect(port: u16) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("the server accepts");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Client {
            stream,
            correlation: 0,
        }
    }

    fn exchange(&mut self, frame: &[u8]) -> Vec<u8> {
        self.stream
            .write_all(&(frame.len() as i32).to_be_bytes())
            .unwrap();
        self.stream.write_all(frame).unwrap();
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size).expect("an answer");
        let mut response = vec![0u8; i32::from_be_bytes(size) as usize];
        self.stream.read_exact(&mut response).unwrap();
        assert_eq!(
            i32::from_be_bytes([response[0], response[1], response[2], response[3]]),
            self.correlation
        );
        response
    }

    /// A coordinator input (JSON, as `sgc` reads it) as its request frame; the response as
    /// Kafka's JSON.
    fn call(&mut self, input: &Value) -> Value {
        self.call_v(input, 0)
    }

    /// [`Client::call`] at API version `version`.
    fn call_v(&mut self, input: &Value, version: i16) -> Value {
        let mut input = input.clone();
        input["nowMs"] = json!(0);
        let input = Input::parse(&input.to_string()).expect("a valid input");
        self.correlation += 1;
        let frame = wire::encode_request(Dialect::Kafka42, &input.kind, version, self.correlation)
            .expect("a request");
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let response = self.exchange(&frame);
        wire::response_json(Dialect::Kafka42, key, version, &response)
            .expect("a response that decodes")
            .1
    }

    /// A request of a classic (non-flexible) version: header v1 with client id "test".
    fn classic(&mut self, key: i16, version: i16, body: &[u8]) -> Vec<u8> {
        self.correlation += 1;
        let mut frame = Vec::new();
        frame.extend_from_slice(&key.to_be_bytes());
        frame.extend_from_slice(&version.to_be_bytes());
        frame.extend_from_slice(&self.correlation.to_be_bytes());
        frame.extend_from_slice(&4i16.to_be_bytes());
        frame.extend_from_slice(b"test");
        frame.extend_from_slice(body);
        self.exchange(&frame)[4..].to_vec()
    }

    /// `ApiVersions` v0: the APIs by key.
    fn api_versions(&mut self) -> Vec<(i16, i16, i16)> {
        let body = self.classic(18, 0, &[]);
        assert_eq!(&body[..2], &[0, 0], "no error");
        let n = i32::from_be_bytes([body[2], body[3], body[4], body[5]]) as usize;
        (0..n)
            .map(|i| {
                let at = 6 + i * 6;
                let r = |o: usize| i16::from_be_bytes([body[at + o], body[at + o + 1]]);
                (r(0), r(2), r(4))
            })
            .collect()
    }

    /// `FindCoordinator` v2 of a group: the error code and the port.
    fn find_coordinator(&mut self, group: &str) -> (i16, i32) {
        let mut body = Vec::new();
        body.extend_from_slice(&(group.len() as i16).to_be_bytes());
        body.extend_from_slice(group.as_bytes());
        body.push(0);
        let r = self.classic(10, 2, &body);
        let error = i16::from_be_bytes([r[4], r[5]]);
        let message = i16::from_be_bytes([r[6], r[7]]);
        let mut at = 8 + message.max(0) as usize + 4;
        let host = i16::from_be_bytes([r[at], r[at + 1]]) as usize;
        at += 2 + host;
        (
            error,
            i32::from_be_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]),
        )
    }

    /// `CreateTopics` v4 of one topic: its error code.
    fn create_topic(&mut self, name: &str, partitions: i32) -> i16 {
        let mut body = Vec::new();
        body.extend_from_slice(&1i32.to_be_bytes());
        body.extend_from_slice(&(name.len() as i16).to_be_bytes());
        body.extend_from_slice(name.as_bytes());
        body.extend_from_slice(&partitions.to_be_bytes());
        body.extend_from_slice(&(-1i16).to_be_bytes());
        body.extend_from_slice(&0i32.to_be_bytes());
        body.extend_from_slice(&0i32.to_be_bytes());
        body.extend_from_slice(&10_000i32.to_be_bytes());
        body.push(0);
        let r = self.classic(19, 4, &body);
        // throttle, one result: name, error code.
        let n = i16::from_be_bytes([r[8], r[9]]) as usize;
        i16::from_be_bytes([r[10 + n], r[11 + n]])
    }
}

/// Reads a classic string at `at`.
fn string_at(r: &[u8], at: &mut usize) -> String {
    let n = i16::from_be_bytes([r[*at], r[*at + 1]]).max(0) as usize;
    let s = String::from_utf8_lossy(&r[*at + 2..*at + 2 + n]).into_owned();
    *at += 2 + n;
    s
}

fn i32_at(r: &[u8], at: &mut usize) -> i32 {
    let v = i32::from_be_bytes([r[*at], r[*at + 1], r[*at + 2], r[*at + 3]]);
    *at += 4;
    v
}

impl Client {
    /// `Metadata` v1 of every topic: name and partition count.
    fn topics(&mut self) -> Vec<(String, usize)> {
        let r = self.classic(3, 1, &(-1i32).to_be_bytes());
        let mut at = 0;
        for _ in 0..i32_at(&r, &mut at) {
            at += 4;
            string_at(&r, &mut at);
            i32_at(&r, &mut at);
            string_at(&r, &mut at);
        }
        at += 4;
        let mut topics = Vec::new();
        for _ in 0..i32_at(&r, &mut at) {
            at += 2;
            let name = string_at(&r, &mut at);
            at += 1;
            let partitions = i32_at(&r, &mut at) as usize;
            for _ in 0..partitions {
                at += 2 + 4 + 4;
                let replicas = i32_at(&r, &mut at) as usize;
                at += 4 * replicas;
                let isr = i32_at(&r, &mut at) as usize;
                at += 4 * isr;
            }
            topics.push((name, partitions));
        }
        topics
    }

    /// `DeleteTopics` v1 of one topic: its error code.
    fn delete_topic(&mut self, name: &str) -> i16 {
        let mut body = Vec::new();
        body.extend_from_slice(&1i32.to_be_bytes());
        body.extend_from_slice(&(name.len() as i16).to_be_bytes());
        body.extend_from_slice(name.as_bytes());
        body.extend_from_slice(&10_000i32.to_be_bytes());
        let r = self.classic(20, 1, &body);
        let mut at = 8;
        string_at(&r, &mut at);
        i16::from_be_bytes([r[at], r[at + 1]])
    }
}

/// A heartbeat of a member of a one-subtopology application reading `in`.
fn heartbeat(group: &str, member: &str, epoch: i64) -> Value {
    let mut request = json!({
        "groupId": group, "memberId": member, "memberEpoch": epoch,
        "endpointInformationEpoch": -1, "processId": format!("p-{member}"),
        "rebalanceTimeoutMs": 300000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []
    });
    if epoch == 0 {
        request["topology"] = json!({"epoch": 0, "subtopologies": [{"subtopologyId": "0",
            "sourceTopics": ["in"], "sourceTopicRegex": [], "stateChangelogTopics": [],
            "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]});
    }
    json!({"type": "StreamsGroupHeartbeat", "request": request})
}

fn describe(c: &mut Client, group: &str) -> Value {
    let d = c.call(&json!({"type": "StreamsGroupDescribe",
        "request": {"groupIds": [group], "includeAuthorizedOperations": false}}));
    d["groups"][0].clone()
}

fn member_ids(group: &Value) -> Vec<String> {
    group["members"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|m| m["memberId"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_streams_group_joins_is_described_and_is_there_after_a_restart() {
    let dir = temp_dir("restart");
    let server = Server::start(&dir);
    let mut c = Client::connect(server.port);

    let apis = c.api_versions();
    for key in [0, 1, 3, 10, 18, 19, 88, 89] {
        assert!(
            apis.iter().any(|a| a.0 == key),
            "API {key} listed: {apis:?}"
        );
    }
    assert_eq!(c.find_coordinator("app"), (0, i32::from(server.port)));
    assert_eq!(c.create_topic("in", 4), 0);

    let r = c.call(&heartbeat("app", "m1", 0));
    assert_eq!(r["errorCode"], 0, "{r}");
    let epoch = r["memberEpoch"].as_i64().unwrap();
    assert!(epoch >= 1, "{r}");
    // Kafka 4.2 delays a new group's first assignment (3 s): the coordinator's timer fires at
    // its deadline and the next heartbeat gets the tasks.
    std::thread::sleep(Duration::from_millis(3300));
    let r = c.call(&heartbeat("app", "m1", epoch));
    assert_eq!(r["errorCode"], 0, "{r}");
    let epoch = r["memberEpoch"].as_i64().unwrap();
    let tasks = r["activeTasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 1, "{r}");
    assert_eq!(
        tasks[0]["partitions"].as_array().map(Vec::len),
        Some(4),
        "{r}"
    );

    let g = describe(&mut c, "app");
    assert_eq!(g["errorCode"], 0, "{g}");
    assert_eq!(member_ids(&g), ["m1"], "{g}");
    assert_eq!(g["groupState"], "Stable", "{g}");
    assert_eq!(g["members"][0]["clientHost"], "/127.0.0.1", "{g}");

    server.kill9();
    let server = Server::start(&dir);
    let mut c = Client::connect(server.port);
    let g = describe(&mut c, "app");
    assert_eq!(
        g["errorCode"],
        0,
        "{g}; stderr: {}",
        std::fs::read_to_string(&server.stderr).unwrap_or_default()
    );
    assert_eq!(member_ids(&g), ["m1"], "{g}");
    assert_eq!(g["groupEpoch"].as_i64(), Some(epoch), "{g}");
    // The member goes on heartbeating at its epoch.
    let r = c.call(&heartbeat("app", "m1", epoch));
    assert_eq!(r["errorCode"], 0, "{r}");
    assert_eq!(r["memberEpoch"].as_i64(), Some(epoch), "{r}");
    drop(server);
    cleanup(&dir);
}

fn kcat(args: &[&str], input: Option<&str>) -> Option<String> {
    let mut child = Command::new("kcat")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    if let Some(input) = input {
        stdin.write_all(input.as_bytes()).ok()?;
    }
    drop(stdin);
    let out = child.wait_with_output().ok()?;
    assert!(
        out.status.success(),
        "kcat {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn nisshi_produce_and_fetch_still_work_through_the_same_listener() {
    if Command::new("kcat").arg("-V").output().is_err() {
        eprintln!("kcat is not installed: skipped");
        return;
    }
    let dir = temp_dir("kcat");
    let server = Server::start(&dir);
    let broker = format!("127.0.0.1:{}", server.port);
    let mut c = Client::connect(server.port);
    assert_eq!(c.create_topic("events", 1), 0);
    kcat(
        &["-b", &broker, "-P", "-t", "events", "-K:"],
        Some("a:one\nb:two\nc:three\n"),
    );
    let read = kcat(
        &[
            "-b",
            &broker,
            "-C",
            "-t",
            "events",
            "-o",
            "beginning",
            "-e",
            "-f",
            "%k=%s\n",
        ],
        None,
    )
    .unwrap_or_default();
    assert_eq!(read, "a=one\nb=two\nc=three\n");
    let listing = kcat(&["-b", &broker, "-L"], None).unwrap_or_default();
    assert!(listing.contains("\"events\""), "{listing}");
    assert!(
        listing.contains(&format!("127.0.0.1:{}", server.port)),
        "{listing}"
    );
    drop(server);
    cleanup(&dir);
}

/// The newest version of `key` that `ApiVersions` lists.
fn newest(apis: &[(i16, i16, i16)], key: i16) -> i16 {
    apis.iter()
        .find(|a| a.0 == key)
        .map(|a| a.2)
        .unwrap_or_else(|| panic!("API {key} listed: {apis:?}"))
}

#[test]
fn the_shared_group_apis_go_by_group() {
    let dir = temp_dir("shared");
    let server = Server::start(&dir);
    let mut c = Client::connect(server.port);
    let apis = c.api_versions();
    // Shared APIs at the versions both sides read: the dialect's OffsetCommit starts at v2.
    let commit = apis.iter().find(|a| a.0 == 8).expect("OffsetCommit");
    assert!(commit.1 >= 2, "{apis:?}");
    let (commit_v, fetch_v, describe_v, list_v, delete_v) = (
        newest(&apis, 8),
        newest(&apis, 9),
        newest(&apis, 15),
        newest(&apis, 16),
        newest(&apis, 42),
    );
    assert!(fetch_v >= 8, "OffsetFetch of several groups: {apis:?}");
    assert_eq!(c.create_topic("in", 4), 0);
    let r = c.call(&heartbeat("app", "m1", 0));
    let epoch = r["memberEpoch"].as_i64().unwrap();

    // A streams group's commit is the coordinator's (it checks the member's epoch); a group
    // that is not a streams group here is Nisshi's.
    let commit = |g: &str, member: &str, epoch: i64, offset: i64| {
        json!({"type": "OffsetCommit", "request": {"groupId": g,
            "generationIdOrMemberEpoch": epoch, "memberId": member, "topics": [{"name": "in",
            "partitions": [{"partitionIndex": 0, "committedOffset": offset}]}]}})
    };
    let r = c.call_v(&commit("app", "m1", epoch + 5, 5), commit_v);
    assert_eq!(
        r["topics"][0]["partitions"][0]["errorCode"], 113,
        "STALE_MEMBER_EPOCH, the coordinator's check: {r}"
    );
    let r = c.call_v(&commit("app", "m1", epoch, 5), commit_v);
    assert_eq!(r["topics"][0]["partitions"][0]["errorCode"], 0, "{r}");
    let r = c.call_v(&commit("classic", "", -1, 7), commit_v);
    assert_eq!(r["topics"][0]["partitions"][0]["errorCode"], 0, "{r}");

    let fetch_both = json!({"type": "OffsetFetch", "request": {"groups": [
        {"groupId": "classic", "memberId": null, "memberEpoch": -1, "topics": null},
        {"groupId": "app", "memberId": null, "memberEpoch": -1, "topics": null}]}});
    let fetch = c.call_v(&fetch_both, fetch_v);
    let offsets: Vec<_> = fetch["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let p = g["topics"][0]["partitions"]
                .as_array()
                .and_then(|ps| ps.iter().find(|p| p["partitionIndex"] == 0).cloned())
                .unwrap_or_default();
            (g["groupId"].clone(), p["committedOffset"].clone())
        })
        .collect();
    assert_eq!(
        offsets,
        [(json!("classic"), json!(7)), (json!("app"), json!(5))],
        "{fetch}"
    );

    // A describe of both kinds: the streams group's entry is the coordinator's answer to it.
    let describe = |c: &mut Client, groups: &[&str]| {
        c.call_v(
            &json!({"type": "DescribeGroups", "request": {"groups": groups,
                "includeAuthorizedOperations": false}}),
            describe_v,
        )
    };
    let alone = describe(&mut c, &["app"]);
    let both = describe(&mut c, &["classic", "app"]);
    assert_eq!(both["groups"][0]["groupId"], "classic", "{both}");
    assert_eq!(both["groups"][1], alone["groups"][0], "{both}");

    let listed = c.call_v(&json!({"type": "ListGroups", "request": {}}), list_v);
    let names: Vec<_> = listed["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["groupId"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(names.contains(&"app".to_string()), "{listed}");

    // A streams group with a member is not deleted (NON_EMPTY_GROUP), as Kafka answers.
    let deleted = c.call_v(
        &json!({"type": "DeleteGroups", "groupIds": ["app"]}),
        delete_v,
    );
    assert_eq!(deleted["results"][0]["errorCode"], 68, "{deleted}");

    // The streams group's offsets are in the coordinators' log: there after a restart.
    server.kill9();
    let server = Server::start(&dir);
    let mut c = Client::connect(server.port);
    let again = c.call_v(&fetch_both, fetch_v);
    assert_eq!(again["groups"], fetch["groups"], "{again}");
    drop(server);
    cleanup(&dir);
}

#[test]
fn internal_topics_are_created_and_a_failed_append_is_coordinator_not_available() {
    let dir = temp_dir("internal");
    let server = Server::start(&dir);
    let mut c = Client::connect(server.port);
    assert_eq!(c.create_topic("in", 2), 0);
    let mut join = heartbeat("app", "m1", 0);
    join["request"]["topology"]["subtopologies"][0]["stateChangelogTopics"] = json!([{
        "name": "app-store-changelog", "partitions": 0, "replicationFactor": 0,
        "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}]}]);
    let r = c.call(&join);
    assert_eq!(r["errorCode"], 0, "{r}");
    let epoch = r["memberEpoch"].as_i64().unwrap();
    // The changelog topic the group asks for is created in Nisshi, partitioned like its source.
    let topics = c.topics();
    assert!(
        topics.contains(&("app-store-changelog".to_string(), 2)),
        "{topics:?}"
    );
    assert!(
        topics.contains(&("__sgc_streams_offsets".to_string(), 50)),
        "{topics:?}"
    );

    // The coordinators' log gone, a write fails: the request is answered
    // COORDINATOR_NOT_AVAILABLE, as Kafka's runtime answers a failed write.
    assert_eq!(c.delete_topic("__sgc_streams_offsets"), 0);
    let mut second = join.clone();
    second["request"]["memberId"] = json!("m2");
    second["request"]["processId"] = json!("p-m2");
    let r = c.call(&second);
    assert_eq!(r["errorCode"], 15, "{r}");
    let r = c.call(&heartbeat("app", "m1", epoch));
    assert_eq!(r["errorCode"], 15, "{r}");
    drop(server);
    cleanup(&dir);
}

/// A classic consumer group through Nisshi (librdkafka's confluent-kafka): produce, consume,
/// commit, and a second consumer of the group resumes from the commit; the admin client lists
/// the group. Beside a streams group of the coordinators'.
const CLASSIC_ROUND_TRIP: &str = r#"
import json, sys, time
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

b = sys.argv[1]
admin = AdminClient({"bootstrap.servers": b})
for f in admin.create_topics([NewTopic("orders", 1, 1)]).values():
    f.result(10)
p = Producer({"bootstrap.servers": b})

def produce(values):
    for v in values:
        p.produce("orders", key=v, value=v)
    p.flush(10)

def consume(n):
    c = Consumer({"bootstrap.servers": b, "group.id": "classic-g",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe(["orders"])
    got, deadline = [], time.time() + 30
    while len(got) < n and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value().decode())
    c.commit(asynchronous=False)
    committed = c.committed([TopicPartition("orders", 0)], timeout=10)[0].offset
    c.close()
    return got, committed

produce(["a", "b", "c"])
first = consume(3)
produce(["d", "e"])
second = consume(2)
groups = sorted(g.group_id for g in admin.list_consumer_groups().result(10).valid)
print(json.dumps({"first": first, "second": second, "groups": groups}))
"#;

#[test]
fn a_classic_consumer_group_goes_round_through_nisshi() {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python");
    let has_client = Command::new(&python)
        .args(["-c", "import confluent_kafka"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_client {
        eprintln!("no .venv with confluent_kafka (make setup): skipped");
        return;
    }
    let dir = temp_dir("classic");
    let server = Server::start(&dir);
    let mut c = Client::connect(server.port);
    assert_eq!(c.create_topic("in", 1), 0);
    assert_eq!(c.call(&heartbeat("app", "m1", 0))["errorCode"], 0);
    let out = Command::new(&python)
        .args([
            "-c",
            CLASSIC_ROUND_TRIP,
            &format!("127.0.0.1:{}", server.port),
        ])
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_str(stdout.trim()).expect("the script's answer");
    assert_eq!(r["first"], json!([["a", "b", "c"], 3]), "{r}");
    assert_eq!(r["second"], json!([["d", "e"], 5]), "{r}");
    assert!(
        r["groups"]
            .as_array()
            .is_some_and(|g| g.contains(&json!("classic-g"))),
        "{r}"
    );
    // The streams group is still the coordinators'.
    assert_eq!(describe(&mut c, "app")["errorCode"], 0);
    drop(server);
    cleanup(&dir);
}

#[test]
fn a_member_that_stops_heartbeating_is_fenced_by_its_timer() {
    let dir = temp_dir("timer");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.json");
    std::fs::write(
        &config,
        r#"{"group.streams.session.timeout.ms": 1000, "group.streams.heartbeat.interval.ms": 200,
            "offsets.topic.num.partitions": 8}"#,
    )
    .unwrap();
    let server = Server::start_with(&dir, &["--config", config.to_str().unwrap()]);
    let mut c = Client::connect(server.port);
    let topics = c.topics();
    assert!(
        topics.contains(&("__sgc_streams_offsets".to_string(), 8)),
        "{topics:?}"
    );
    assert_eq!(c.create_topic("in", 2), 0);
    let r = c.call(&heartbeat("app", "m1", 0));
    assert_eq!(r["heartbeatIntervalMs"], 200, "{r}");
    assert_eq!(member_ids(&describe(&mut c, "app")), ["m1"]);
    // No request comes for the group: the coordinator's own deadline fences the member.
    std::thread::sleep(Duration::from_millis(1600));
    let g = describe(&mut c, "app");
    assert_eq!(g["errorCode"], 0, "{g}");
    assert!(member_ids(&g).is_empty(), "{g}");
    // The fencing was written: it is still so after a restart. The log's partition count is
    // kept: a start with another is refused.
    server.kill9();
    let refused = Command::new(env!("CARGO_BIN_EXE_sgc-nisshi"))
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--partitions 8"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let server = Server::start_with(&dir, &["--config", config.to_str().unwrap()]);
    let mut c = Client::connect(server.port);
    assert!(member_ids(&describe(&mut c, "app")).is_empty());
    drop(server);
    cleanup(&dir);
}

#[test]
fn a_streams_frame_that_does_not_read_closes_only_its_connection() {
    let dir = temp_dir("bad");
    let server = Server::start(&dir);
    let closed = |frame: &[u8]| {
        let mut bad = Client::connect(server.port);
        bad.stream
            .write_all(&(frame.len() as i32).to_be_bytes())
            .unwrap();
        bad.stream.write_all(frame).unwrap();
        let mut byte = [0u8; 1];
        matches!(bad.stream.read(&mut byte), Ok(0) | Err(_))
    };
    // A StreamsGroupHeartbeat v0 header, then a body cut short.
    assert!(closed(&[0, 88, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5, b'g']));
    // A StreamsGroupDescribe version the dialect does not serve.
    assert!(closed(&[0, 89, 0, 7, 0, 0, 0, 1, 0, 0, 0]));
    // An OffsetCommit that does not read.
    assert!(closed(&[0, 8, 0, 9, 0, 0, 0, 1, 0, 0, 0, 9]));
    // Everyone else is served.
    let mut c = Client::connect(server.port);
    assert_eq!(c.create_topic("in", 1), 0);
    assert_eq!(c.call(&heartbeat("app", "m1", 0))["errorCode"], 0);
    drop(server);
    cleanup(&dir);
}

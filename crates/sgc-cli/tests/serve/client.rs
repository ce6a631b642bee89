//! A scripted Kafka client for the server tests: requests encoded with the project's generated
//! messages, one connection, correlation ids checked.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use sgc_server::messages::{create_topics_request as ctq, create_topics_response as cts};
use sgc_server::messages::{find_coordinator_request as fcq, find_coordinator_response as fcs};
use sgc_server::messages::{metadata_request as mdq, metadata_response as mds};
use streams_group_coordinator::api::Input;
use streams_group_coordinator::wire::codec::Reader;
use streams_group_coordinator::wire::messages::kafka::api_versions_request::ApiVersionsRequest;
use streams_group_coordinator::wire::messages::kafka::api_versions_response::ApiVersionsResponse;
use streams_group_coordinator::wire::messages::kafka::request_header::RequestHeader;
use streams_group_coordinator::wire::messages::kafka::response_header::ResponseHeader;
use streams_group_coordinator::{wire, Dialect};

/// The `sgc serve` process.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    /// The metrics port, with `--metrics-listen`.
    pub metrics_port: Option<u16>,
    stderr: std::path::PathBuf,
}

impl Server {
    /// Starts `sgc serve ARGS --listen 127.0.0.1:0` and waits for its port.
    pub fn start(args: &[String]) -> Server {
        let stderr = std::env::temp_dir().join(format!(
            "sgc-serve-stderr-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let mut child = Command::new(env!("CARGO_BIN_EXE_sgc"))
            .arg("serve")
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("sgc serve starts");
        let mut line = String::new();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        out.read_line(&mut line).unwrap();
        let metrics_port = if args.iter().any(|a| a == "--metrics-listen") {
            let mut m = String::new();
            out.read_line(&mut m).unwrap();
            m.trim().rsplit(':').next().and_then(|p| p.parse().ok())
        } else {
            None
        };
        let port = line
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "no port in {line:?}; stderr: {}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                )
            });
        Server {
            child: Some(child),
            port,
            metrics_port,
            stderr,
        }
    }

    /// The server's resident memory, in KiB.
    pub fn rss_kib(&self) -> u64 {
        let pid = self.child.as_ref().map_or(0, Child::id);
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// What the server has written to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// SIGKILL: no chance to flush or close anything.
    pub fn kill9(mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A heartbeat input of a member of a one-subtopology application reading `in`.
pub fn heartbeat(group: &str, member: &str, epoch: i64, active: &[Value]) -> Value {
    let mut request = json!({
        "groupId": group, "memberId": member, "memberEpoch": epoch,
        "endpointInformationEpoch": -1, "processId": format!("p-{member}"),
        "rebalanceTimeoutMs": 300000, "activeTasks": active, "standbyTasks": [], "warmupTasks": []
    });
    if epoch == 0 {
        request["topology"] = json!({"epoch": 0, "subtopologies": [{"subtopologyId": "0",
            "sourceTopics": ["in"], "sourceTopicRegex": [], "stateChangelogTopics": [],
            "repartitionSinkTopics": [], "repartitionSourceTopics": [], "copartitionGroups": []}]});
    }
    json!({"type": "StreamsGroupHeartbeat", "request": request})
}

/// What sending gave.
pub enum Sent {
    Closed,
    Open,
}

impl Sent {
    pub fn is_closed(&self) -> bool {
        matches!(self, Sent::Closed)
    }
}

pub struct Client {
    stream: TcpStream,
    correlation: i32,
}

impl Client {
    pub fn try_connect(port: u16) -> std::io::Result<Client> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        stream.set_nodelay(true)?;
        Ok(Client {
            stream,
            correlation: 0,
        })
    }

    pub fn connect(port: u16) -> Client {
        Client::try_connect(port).expect("the server accepts")
    }

    fn exchange(&mut self, frame: &[u8]) -> std::io::Result<Vec<u8>> {
        self.stream.write_all(&(frame.len() as i32).to_be_bytes())?;
        self.stream.write_all(frame)?;
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size)?;
        let mut response = vec![0u8; i32::from_be_bytes(size) as usize];
        self.stream.read_exact(&mut response)?;
        Ok(response)
    }

    /// Sends raw bytes and reports whether the server then closes the connection.
    pub fn send_raw(&mut self, bytes: &[u8]) -> Sent {
        let _ = self.stream.write_all(bytes);
        let mut buf = [0u8; 1];
        match self.stream.read(&mut buf) {
            Ok(0) | Err(_) => Sent::Closed,
            Ok(_) => Sent::Open,
        }
    }

    /// A coordinator input (JSON, as `sgc` reads it) sent as its request frame at `version`;
    /// the response body as Kafka's JSON.
    pub fn try_call(&mut self, input: &Value, version: i16) -> std::io::Result<Value> {
        let mut input = input.clone();
        input["nowMs"] = json!(0);
        let input = Input::parse(&input.to_string()).expect("a valid input");
        self.correlation += 1;
        let frame = wire::encode_request(Dialect::Kafka42, &input.kind, version, self.correlation)
            .expect("a request");
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let response = self.exchange(&frame)?;
        let (corr, json) = wire::response_json(Dialect::Kafka42, key, version, &response)
            .expect("a response that decodes");
        assert_eq!(corr, self.correlation);
        Ok(json)
    }

    pub fn call(&mut self, input: &Value, version: i16) -> Value {
        self.try_call(input, version).expect("an answer")
    }

    pub fn own(
        &mut self,
        key: i16,
        v: i16,
        flexible_from: i16,
        body: impl FnOnce(&mut Vec<u8>),
    ) -> Vec<u8> {
        self.correlation += 1;
        let mut frame = Vec::new();
        RequestHeader {
            request_api_key: key,
            request_api_version: v,
            correlation_id: self.correlation,
            client_id: Some("test".into()),
        }
        .write(&mut frame, if v >= flexible_from { 2 } else { 1 });
        body(&mut frame);
        let response = self.exchange(&frame).expect("an answer");
        let mut r = Reader::new(&response);
        let header =
            ResponseHeader::read(&mut r, i16::from(v >= flexible_from && key != 18)).unwrap();
        assert_eq!(header.correlation_id, self.correlation);
        response[r.position()..].to_vec()
    }

    pub fn api_versions(&mut self) -> BTreeMap<i16, (i16, i16)> {
        let request = ApiVersionsRequest {
            client_software_name: "sgc-test".into(),
            client_software_version: "1".into(),
            ..Default::default()
        };
        let body = self.own(18, 3, 3, |w| request.write(w, 3));
        let r = ApiVersionsResponse::read(&mut Reader::new(&body), 3).unwrap();
        assert_eq!(r.error_code, 0);
        r.api_keys
            .iter()
            .map(|a| (a.api_key, (a.min_version, a.max_version)))
            .collect()
    }

    pub fn find_coordinators(&mut self, groups: &[&str]) -> Vec<Value> {
        let request = fcq::FindCoordinatorRequest {
            coordinator_keys: groups.iter().map(|g| g.to_string()).collect(),
            ..Default::default()
        };
        let body = self.own(fcq::API_KEY, 4, fcq::FLEXIBLE_FROM, |w| request.write(w, 4));
        let r = fcs::FindCoordinatorResponse::read(&mut Reader::new(&body), 4).unwrap();
        r.coordinators
            .iter()
            .map(|c| serde_json::to_value(c).unwrap())
            .collect()
    }

    /// `Metadata` v12 of every topic.
    pub fn metadata(&mut self) -> mds::MetadataResponse {
        let request = mdq::MetadataRequest {
            topics: None,
            ..Default::default()
        };
        let body = self.own(mdq::API_KEY, 12, mdq::FLEXIBLE_FROM, |w| {
            request.write(w, 12)
        });
        mds::MetadataResponse::read(&mut Reader::new(&body), 12).unwrap()
    }

    /// Every topic's id, as Kafka prints it.
    pub fn topic_ids(&mut self) -> BTreeMap<String, String> {
        self.metadata()
            .topics
            .iter()
            .map(|t| {
                let id = streams_group_coordinator::records::Uuid(t.topic_id).to_text();
                (t.name.clone().unwrap_or_default(), id)
            })
            .collect()
    }

    pub fn metadata_topics(&mut self) -> BTreeMap<String, usize> {
        self.metadata()
            .topics
            .iter()
            .map(|t| (t.name.clone().unwrap_or_default(), t.partitions.len()))
            .collect()
    }

    pub fn create_topics(&mut self, topics: &[(&str, i32)]) -> Vec<(String, i16)> {
        self.create_topics_results(topics)
            .iter()
            .map(|t| (t.name.clone(), t.error_code))
            .collect()
    }

    /// `CreateTopics` v7's results as they came.
    pub fn create_topics_results(
        &mut self,
        topics: &[(&str, i32)],
    ) -> Vec<cts::CreatableTopicResult> {
        let request = ctq::CreateTopicsRequest {
            topics: topics
                .iter()
                .map(|(name, n)| ctq::CreatableTopic {
                    name: name.to_string(),
                    num_partitions: *n,
                    replication_factor: -1,
                    ..Default::default()
                })
                .collect(),
            timeout_ms: 1000,
            validate_only: false,
        };
        let body = self.own(ctq::API_KEY, 7, ctq::FLEXIBLE_FROM, |w| request.write(w, 7));
        cts::CreateTopicsResponse::read(&mut Reader::new(&body), 7)
            .unwrap()
            .topics
    }
}

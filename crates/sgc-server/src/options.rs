//! `sgc serve`'s flags.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::topics::{parse_id, Declared};
use streams_group_coordinator::wire::authz::Decisions;

/// When a partition's appended batches are forced to disk before their responses leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fsync {
    /// One `fsync` for every request that writes (Kafka's `flush.messages=1`).
    Batch,
    /// One `fsync` for all the requests a partition took from its queue at once (the default:
    /// a burst of writes costs one sync).
    Group,
    /// Written to the file, never synced: a crashed process loses nothing, a crashed machine
    /// may (Kafka's default, which counts on replication instead).
    Never,
}

/// What `sgc serve` was told.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where to listen (`--listen`, default 127.0.0.1:9092).
    pub listen: SocketAddr,
    /// The host and port clients are told to connect to (`--advertise`, default the listener's).
    pub advertise: Option<(String, u16)>,
    /// The log's folder (`--data-dir`, default `./sgc-data`).
    pub data_dir: PathBuf,
    /// The coordinator's settings (`--config`, a JSON file; the dialect defaults to kafka-4.2).
    pub config: serde_json::Value,
    /// `--fsync batch|group|never`.
    pub fsync: Fsync,
    /// This broker's id (`--node-id`, default 0).
    pub node_id: i32,
    /// Topics known from the start, each with the id it has on the cluster if given
    /// (`--topic NAME:PARTITIONS[:ID]`, `--topics FILE` of `{"name": partitions}` or
    /// `{"name": {"partitions": N, "id": "ID"}}`).
    pub topics: Vec<Declared>,
    /// Where to serve the Prometheus text (`--metrics-listen`), if anywhere.
    pub metrics_listen: Option<SocketAddr>,
    /// Kafka's `socket.request.max.bytes`: a larger frame closes its connection.
    pub socket_request_max_bytes: usize,
    /// Kafka's `connections.max.idle.ms`.
    pub connections_max_idle_ms: u64,
    /// Kafka's `max.connections`: connections over it are closed at once.
    pub max_connections: usize,
    /// Kafka's `offsets.topic.segment.bytes`: a segment is rolled past it.
    pub segment_bytes: u64,
    /// Kafka's `group.coordinator.threads`: the threads the partitions share (default: the
    /// machine's cores).
    pub coordinator_threads: usize,
    /// What every client may do (`--acl FILE`, the allow-list of `wire::authz::Decisions`);
    /// `None`: everything, as a broker without an authorizer.
    pub acl: Option<Decisions>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 9092)),
            advertise: None,
            data_dir: PathBuf::from("sgc-data"),
            config: serde_json::Value::Null,
            fsync: Fsync::Group,
            node_id: 0,
            topics: Vec::new(),
            metrics_listen: None,
            socket_request_max_bytes: 104_857_600,
            connections_max_idle_ms: 600_000,
            max_connections: 10_000,
            segment_bytes: 104_857_600,
            coordinator_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            acl: None,
        }
    }
}

pub const USAGE: &str = r#"usage: sgc serve [--listen HOST:PORT] [--data-dir DIR] [--config FILE]
                 [--fsync group|batch|never] [--advertise HOST:PORT] [--node-id N]
                 [--topic NAME:PARTITIONS[:ID]]... [--topics FILE] [--metrics-listen HOST:PORT]
                 [--socket-request-max-bytes N] [--connections-max-idle-ms N]
                 [--max-connections N] [--segment-bytes N] [--coordinator-threads N]
                 [--acl FILE]

Serves Kafka's protocol on --listen (default 127.0.0.1:9092): ApiVersions, Metadata,
FindCoordinator, CreateTopics and the coordinator's group APIs, one coordinator per
__consumer_offsets partition (offsets.topic.num.partitions of --config, default 50), each
partition's records appended to DIR/__consumer_offsets-N/ (default ./sgc-data) and replayed on
start. --fsync group (the default) syncs once per burst of writes, batch once per write.
A topic's ID is the id it has on the cluster (22 characters as Kafka prints it, or 8-4-4-4-12
hexadecimal): a coordinator for a cluster whose data is on other brokers declares every topic
its clients commit offsets for with its real id. --topics FILE holds {"NAME": PARTITIONS} or
{"NAME": {"partitions": PARTITIONS, "id": "ID"}}.
--acl FILE answers every client as Kafka's broker answers a principal allowed only what FILE
grants ({"allow": [{"operation": "READ", "resourceType": "GROUP", "name": "app",
"patternType": "LITERAL"}, ...]}, docs/authorization.md); without it everything is allowed."#;

fn number<T: std::str::FromStr>(flag: &str, v: Option<&String>) -> Result<T, String> {
    v.and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{flag} takes a number"))
}

fn host_port(flag: &str, v: Option<&String>) -> Result<(String, u16), String> {
    let v = v.ok_or_else(|| format!("{flag} takes HOST:PORT"))?;
    let (host, port) = v
        .rsplit_once(':')
        .ok_or_else(|| format!("{flag} takes HOST:PORT, not {v:?}"))?;
    let port = port
        .parse()
        .map_err(|_| format!("{flag}: {port:?} is not a port"))?;
    Ok((host.trim_matches(['[', ']']).to_string(), port))
}

fn address(flag: &str, v: Option<&String>) -> Result<SocketAddr, String> {
    let (host, port) = host_port(flag, v)?;
    let host = if host == "localhost" {
        "127.0.0.1".into()
    } else {
        host
    };
    format!("{host}:{port}")
        .parse()
        .or_else(|_| format!("[{host}]:{port}").parse())
        .map_err(|_| format!("{flag}: {host:?} is not an IP address"))
}

fn topic(spec: &str) -> Result<Declared, String> {
    let bad = || format!("--topic takes NAME:PARTITIONS[:ID], not {spec:?}");
    let mut parts = spec.splitn(3, ':');
    let (Some(name), Some(n)) = (parts.next(), parts.next()) else {
        return Err(bad());
    };
    let id = parts
        .next()
        .map(|id| parse_id(id).map_err(|e| format!("--topic {spec:?}: {e}")));
    match n.parse::<i32>() {
        Ok(n) if n >= 1 && !name.is_empty() => Ok(Declared {
            name: name.to_string(),
            partitions: n,
            id: id.transpose()?,
        }),
        Ok(_) if name.is_empty() => Err(bad()),
        _ => Err(format!("--topic {spec:?}: PARTITIONS must be at least 1")),
    }
}

/// The topics of a `--topics` file: `{"NAME": PARTITIONS}` or `{"NAME": {"partitions":
/// PARTITIONS, "id": "ID"}}`.
fn topics_file(path: &str, text: &str) -> Result<Vec<Declared>, String> {
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::with_capacity(map.len());
    for (name, v) in map {
        let (n, id) = match &v {
            serde_json::Value::Object(o) => {
                if let Some(k) = o
                    .keys()
                    .find(|k| !matches!(k.as_str(), "partitions" | "id"))
                {
                    return Err(format!("{path}: topic {name}: unknown field {k:?}"));
                }
                let id = match o.get("id") {
                    None | Some(serde_json::Value::Null) => None,
                    Some(serde_json::Value::String(id)) => Some(id.as_str()),
                    Some(other) => {
                        return Err(format!("{path}: topic {name}: id {other} is not a string"))
                    }
                };
                (o.get("partitions").cloned().unwrap_or_default(), id)
            }
            other => (other.clone(), None),
        };
        let spec = match id {
            Some(id) => format!("{name}:{n}:{id}"),
            None => format!("{name}:{n}"),
        };
        out.push(topic(&spec).map_err(|e| format!("{path}: {e}"))?);
    }
    Ok(out)
}

impl Options {
    /// Parses `sgc serve`'s arguments (after `serve`).
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options::default();
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = || it.clone().next();
            match flag.as_str() {
                "--listen" => o.listen = address(flag, value())?,
                "--advertise" => o.advertise = Some(host_port(flag, value())?),
                "--metrics-listen" => o.metrics_listen = Some(address(flag, value())?),
                "--data-dir" => {
                    o.data_dir = PathBuf::from(value().ok_or("--data-dir takes a folder")?)
                }
                "--config" => {
                    let path = value().ok_or("--config takes a FILE")?;
                    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                    o.config = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
                }
                "--fsync" => {
                    o.fsync = match value().map(String::as_str) {
                        Some("group") => Fsync::Group,
                        Some("batch") => Fsync::Batch,
                        Some("never") => Fsync::Never,
                        _ => return Err("--fsync takes group, batch or never".into()),
                    }
                }
                "--node-id" => o.node_id = number(flag, value())?,
                "--topic" => o
                    .topics
                    .push(topic(value().ok_or("--topic takes NAME:PARTITIONS[:ID]")?)?),
                "--topics" => {
                    let path = value().ok_or("--topics takes a FILE")?;
                    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                    o.topics.extend(topics_file(path, &text)?);
                }
                "--socket-request-max-bytes" => o.socket_request_max_bytes = number(flag, value())?,
                "--connections-max-idle-ms" => o.connections_max_idle_ms = number(flag, value())?,
                "--max-connections" => o.max_connections = number(flag, value())?,
                "--segment-bytes" => o.segment_bytes = number(flag, value())?,
                "--coordinator-threads" => o.coordinator_threads = number(flag, value())?,
                "--acl" => {
                    let path = value().ok_or("--acl takes a FILE")?;
                    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                    o.acl = Some(Decisions::from_json(&text).map_err(|e| format!("{path}: {e}"))?);
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
            it.next();
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn flags_parse_and_bad_ones_are_named() {
        let o = Options::parse(&args(
            "--listen 127.0.0.1:0 --fsync batch --topic in:4 --topic out:1 --node-id 3",
        ))
        .unwrap();
        assert_eq!(o.listen.port(), 0);
        assert_eq!(o.fsync, Fsync::Batch);
        let declared = |name: &str, partitions, id| Declared {
            name: name.into(),
            partitions,
            id,
        };
        assert_eq!(
            o.topics,
            vec![declared("in", 4, None), declared("out", 1, None)]
        );
        assert_eq!(o.node_id, 3);
        assert!(Options::parse(&args("--fsync sometimes"))
            .unwrap_err()
            .contains("--fsync"));
        assert!(Options::parse(&args("--topic in:0"))
            .unwrap_err()
            .contains("at least 1"));
        assert!(Options::parse(&args("--listen nowhere"))
            .unwrap_err()
            .contains("HOST:PORT"));
        let acl = std::env::temp_dir().join(format!("sgc-acl-{}.json", std::process::id()));
        std::fs::write(
            &acl,
            r#"{"allow": [{"operation": "READ", "resourceType": "GROUP", "name": "g"}]}"#,
        )
        .unwrap();
        let o = Options::parse(&[String::from("--acl"), acl.display().to_string()]).unwrap();
        assert_eq!(o.acl.map(|d| d.allow.len()), Some(1));
        std::fs::write(&acl, r#"{"allow": [{"operation": "READ"}]}"#).unwrap();
        let e = Options::parse(&[String::from("--acl"), acl.display().to_string()]).unwrap_err();
        assert!(e.contains("authorization decisions"), "{e}");
        let _ = std::fs::remove_file(&acl);
        assert!(Options::parse(&args("--bogus"))
            .unwrap_err()
            .contains("--bogus"));
        assert!(Options::parse(&args("--node-id")).is_err());
    }

    /// A topic can be declared with the id it has on the cluster, as Kafka prints it or in
    /// hexadecimal, on the command line and in a `--topics` file.
    #[test]
    fn topics_are_declared_with_their_ids() {
        let id: [u8; 16] = core::array::from_fn(|i| i as u8);
        let o = Options::parse(&args(
            "--topic in:4:AAECAwQFBgcICQoLDA0ODw --topic hex:2:00010203-0405-0607-0809-0a0b0c0d0e0f --topic plain:1",
        ))
        .unwrap();
        let ids: Vec<_> = o
            .topics
            .iter()
            .map(|t| (t.name.as_str(), t.partitions, t.id))
            .collect();
        assert_eq!(
            ids,
            [
                ("in", 4, Some(id)),
                ("hex", 2, Some(id)),
                ("plain", 1, None)
            ]
        );
        for bad in [
            "in:4:nope",
            "in:4:AAAAAAAAAAAAAAAAAAAAAA",
            "in",
            ":4",
            "in:x",
        ] {
            assert!(
                Options::parse(&args(&format!("--topic {bad}"))).is_err(),
                "{bad}"
            );
        }
        let file = topics_file(
            "t.json",
            r#"{"a": 3, "b": {"partitions": 2, "id": "AAECAwQFBgcICQoLDA0ODw"}, "c": {"partitions": 1}}"#,
        )
        .unwrap();
        let got: Vec<_> = file
            .iter()
            .map(|t| (t.name.as_str(), t.partitions, t.id))
            .collect();
        assert_eq!(got, [("a", 3, None), ("b", 2, Some(id)), ("c", 1, None)]);
        for bad in [
            r#"{"a": {"partitions": 2, "ID": "x"}}"#,
            r#"{"a": {"partitions": 2, "id": 7}}"#,
            r#"{"a": {"id": "AAECAwQFBgcICQoLDA0ODw"}}"#,
            r#"{"a": {"partitions": 1, "id": "nope"}}"#,
        ] {
            assert!(topics_file("t.json", bad).is_err(), "{bad}");
        }
    }
}

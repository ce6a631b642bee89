//! The topology-id recipe of `docs/topology-id.md`, recomputed by an independent implementation
//! (`tests/topology_id.py`, Python standard library only), must agree with `topology_id`.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use streams_group_coordinator::topology::{topology_id, Subtopology};

/// Ids computed by the Python script for a JSON list of topologies, in order.
fn python_ids(topologies: &[Value]) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/topology_id.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 must be installed to run this test");
    let input = serde_json::to_vec(&Value::Array(topologies.to_vec())).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "topology_id.py failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn rust_id(topology: &Value) -> String {
    let subtopologies: Vec<Subtopology> = serde_json::from_value(topology.clone()).unwrap();
    topology_id(&subtopologies)
}

fn assert_agree(topologies: &[Value]) {
    let python = python_ids(topologies);
    assert_eq!(python.len(), topologies.len());
    for (topology, python) in topologies.iter().zip(python) {
        assert_eq!(rust_id(topology), python, "topology {topology}");
    }
}

/// The sample topology of `docs/topology-id.md`.
fn documented_sample() -> Value {
    json!([
        {
            "subtopologyId": "1",
            "repartitionSourceTopics": [
                {"name": "app-repartition-b", "partitions": 4},
                {"name": "app-repartition-a"}
            ],
            "copartitionGroups": [{"repartitionSourceTopics": [0, 1]}]
        },
        {
            "subtopologyId": "0",
            "sourceTopics": ["orders", "customers"],
            "sourceTopicRegex": ["events-.*", "audit"],
            "repartitionSinkTopics": ["app-repartition-a", "app-repartition-b"],
            "stateChangelogTopics": [{
                "name": "app-store-changelog",
                "replicationFactor": 3,
                "topicConfigs": [
                    {"key": "min.insync.replicas", "value": "2"},
                    {"key": "cleanup.policy", "value": "compact"}
                ]
            }],
            "copartitionGroups": [{"sourceTopics": [1, 0], "sourceTopicRegex": [0]}]
        }
    ])
}

#[test]
fn documented_vectors() {
    let simple = json!([{
        "subtopologyId": "0",
        "sourceTopics": ["input"],
        "stateChangelogTopics": [{"name": "app-store-changelog"}]
    }]);
    let vectors = [
        (
            json!([]),
            "15f9c8b56a71d55e5666142f5c6d7b9f3d561d3cdfc941f35f5fd408ae2c4832",
        ),
        (
            simple,
            "45727567ced3db45bb3678833066551d1f5cee87b4eb18bc5b40f877524865ad",
        ),
        (
            documented_sample(),
            "77599f38cb29c2c101aedff8950e64030569fc36ec26b55156f57d43b81caf2f",
        ),
    ];
    let topologies: Vec<Value> = vectors.iter().map(|(t, _)| t.clone()).collect();
    let python = python_ids(&topologies);
    for ((topology, expected), python) in vectors.iter().zip(python) {
        assert_eq!(rust_id(topology), *expected, "rust, {topology}");
        assert_eq!(python, *expected, "python, {topology}");
    }
}

#[test]
fn python_agrees_on_hand_picked_topologies() {
    assert_agree(&[
        json!([]),
        documented_sample(),
        // Non-ASCII everywhere; U+FF5E and U+1F389 sort differently in UTF-16 than in UTF-8.
        json!([
            {
                "subtopologyId": "ü",
                "sourceTopics": ["\u{FF5E}", "🎉", "主题", "a"],
                "sourceTopicRegex": ["é.*", "[😀-🙏]+"],
                "stateChangelogTopics": [
                    {"name": "zustand-ß", "topicConfigs": [{"key": "ключ", "value": "значение"}]},
                    {"name": "zustand-a", "replicationFactor": -1}
                ],
                "copartitionGroups": [{"sourceTopics": [2, 1, 0], "sourceTopicRegex": [1]}]
            },
            {"subtopologyId": "\u{FF5E}", "sourceTopics": ["x"]},
            {"subtopologyId": "🎉", "sourceTopics": ["y"]}
        ]),
        // Copartition groups: duplicates, empty groups, out-of-range and negative indices,
        // a repartition topic named in sourceTopics.
        json!([
            {
                "subtopologyId": "0",
                "sourceTopics": ["r", "b", "a"],
                "sourceTopicRegex": ["a"],
                "repartitionSourceTopics": [{"name": "r", "partitions": 0, "replicationFactor": 2}],
                "copartitionGroups": [
                    {"sourceTopics": [0, 1]},
                    {"sourceTopics": [1], "repartitionSourceTopics": [0]},
                    {"sourceTopics": [1, 1, 1], "repartitionSourceTopics": [0, 0]},
                    {},
                    {"sourceTopics": [-1, 7], "sourceTopicRegex": [0, 3], "repartitionSourceTopics": [-32768]}
                ]
            }
        ]),
        // Duplicate subtopology ids and TopicInfos differing only after the name.
        json!([
            {"subtopologyId": "1", "sourceTopics": ["b"]},
            {"subtopologyId": "1", "sourceTopics": ["a"]},
            {
                "subtopologyId": "0",
                "repartitionSourceTopics": [
                    {"name": "r", "partitions": 3},
                    {"name": "r", "partitions": -3, "replicationFactor": -32768},
                    {"name": "r", "partitions": 3, "topicConfigs": [{"key": "k", "value": "v"}, {"key": "k", "value": ""}]},
                    {"name": "r", "partitions": 3, "topicConfigs": [{"key": "k", "value": ""}]}
                ]
            }
        ]),
        // Empty strings and long names.
        json!([{"subtopologyId": "", "sourceTopics": ["", "a".repeat(300)], "sourceTopicRegex": [""]}]),
    ]);
}

/// A small deterministic generator (no extra dependency): xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn name(&mut self) -> String {
        const NAMES: [&str; 8] = ["a", "b", "ab", "topic-1", "Ä", "ä", "日本", "🎉x"];
        NAMES[self.below(NAMES.len() as u64) as usize].to_owned()
    }
    fn names(&mut self) -> Vec<String> {
        (0..self.below(4)).map(|_| self.name()).collect()
    }
    fn info(&mut self) -> Value {
        let configs: Vec<Value> = (0..self.below(3))
            .map(|_| json!({"key": self.name(), "value": self.name()}))
            .collect();
        json!({
            "name": self.name(),
            "partitions": self.below(5) as i32 - 1,
            "replicationFactor": self.below(4) as i16 - 1,
            "topicConfigs": configs
        })
    }
    fn indices(&mut self) -> Vec<i16> {
        (0..self.below(4))
            .map(|_| self.below(6) as i16 - 1)
            .collect()
    }
}

#[test]
fn python_agrees_on_generated_topologies() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let topologies: Vec<Value> = (0..200)
        .map(|_| {
            let subtopologies: Vec<Value> = (0..rng.below(4))
                .map(|_| {
                    let changelogs: Vec<Value> = (0..rng.below(3)).map(|_| rng.info()).collect();
                    let repartition: Vec<Value> = (0..rng.below(3)).map(|_| rng.info()).collect();
                    let groups: Vec<Value> = (0..rng.below(3))
                        .map(|_| {
                            json!({
                                "sourceTopics": rng.indices(),
                                "sourceTopicRegex": rng.indices(),
                                "repartitionSourceTopics": rng.indices()
                            })
                        })
                        .collect();
                    json!({
                        "subtopologyId": rng.below(3).to_string(),
                        "sourceTopics": rng.names(),
                        "sourceTopicRegex": rng.names(),
                        "stateChangelogTopics": changelogs,
                        "repartitionSinkTopics": rng.names(),
                        "repartitionSourceTopics": repartition,
                        "copartitionGroups": groups
                    })
                })
                .collect();
            Value::Array(subtopologies)
        })
        .collect();
    assert_agree(&topologies);
}

#[test]
fn python_reads_initialize_requests_and_files() {
    let request = json!({"groupId": "g", "topologyId": "x", "topology": documented_sample()});
    let dir = std::env::temp_dir().join(format!("sgc-topology-id-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("request.json");
    std::fs::write(&file, serde_json::to_vec(&request).unwrap()).unwrap();
    let output = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/topology_id.py"))
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap().trim(),
        rust_id(&documented_sample())
    );
}

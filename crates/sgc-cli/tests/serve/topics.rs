//! Topics as Kafka's broker and controller treat them: offsets of topics and partitions that do
//! not exist refused at the front-end, a name given twice to `CreateTopics` answered once and
//! not created, topics declared with the ids they have on the cluster, and fresh ids random.

use serde_json::{json, Value};
use streams_group_coordinator::records::Uuid;

use super::client::Client;
use super::{start, temp};

/// The id `ck-a` is declared with: as Kafka prints it, and the same in hexadecimal.
const CK_A_ID: &str = "AAECAwQFBgcICQoLDA0ODw";
const CK_A_HEX: &str = "00010203-0405-0607-0809-0a0b0c0d0e0f";

/// `(topic name or id, [(partition, error code)])` of a commit-shaped answer, in its order.
fn answered(r: &Value) -> Vec<(String, Vec<(i64, i64)>)> {
    r["topics"]
        .as_array()
        .unwrap_or_else(|| panic!("no topics in {r}"))
        .iter()
        .map(|t| {
            let key = match t["name"].as_str() {
                Some(name) if !name.is_empty() => name.to_string(),
                _ => {
                    let bytes: Vec<u8> = t["topicId"]
                        .as_array()
                        .map(|a| a.iter().map(|b| b.as_u64().unwrap_or(0) as u8).collect())
                        .unwrap_or_default();
                    Uuid(bytes.try_into().unwrap_or_default()).to_text()
                }
            };
            let parts = t["partitions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["partitionIndex"].as_i64().unwrap(),
                        p["errorCode"].as_i64().unwrap(),
                    )
                })
                .collect();
            (key, parts)
        })
        .collect()
}

fn topic(name: &str, parts: &[(i64, i64)]) -> (String, Vec<(i64, i64)>) {
    (name.to_string(), parts.to_vec())
}

/// Every committed `topic/partition@offset` of group `g`, sorted (an all-topics fetch).
fn fetched(c: &mut Client, g: &str) -> Vec<String> {
    let r = c.call(
        &json!({"type": "OffsetFetch", "request": {"groups": [
            {"groupId": g, "memberId": null, "memberEpoch": -1, "topics": null}]}}),
        9,
    );
    let mut out: Vec<String> = r["groups"][0]["topics"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .flat_map(|t| {
            let name = t["name"].as_str().unwrap_or_default().to_string();
            t["partitions"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |p| format!("{name}/{}@{}", p["partitionIndex"], p["committedOffset"]))
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out
}

fn partitions(list: &[i64]) -> Value {
    Value::Array(
        list.iter()
            .map(|p| json!({"partitionIndex": p, "committedOffset": 5}))
            .collect(),
    )
}

/// Kafka's `KafkaApis.handleOffsetCommitRequest`: a topic that does not exist and a partition
/// past a topic's count are answered UNKNOWN_TOPIC_OR_PARTITION (3) and not stored, the valid
/// partition answered and stored, the answers in Kafka's order; `TxnOffsetCommit` and
/// `OffsetDelete` are checked alike.
#[test]
fn offsets_of_topics_or_partitions_that_do_not_exist_are_refused_and_not_stored() {
    let dir = temp("unknown-topics");
    let server = start(&dir, &["--topic", "ck-a:3"]);
    let mut c = Client::connect(server.port);
    let commit = c.call(
        &json!({"type": "OffsetCommit", "request": {"groupId": "ck", "generationIdOrMemberEpoch": -1,
            "memberId": "", "topics": [
                {"name": "no-such-topic", "partitions": partitions(&[0])},
                {"name": "ck-a", "partitions": partitions(&[99, 1])}]}}),
        8,
    );
    assert_eq!(
        answered(&commit),
        [
            topic("no-such-topic", &[(0, 3)]),
            topic("ck-a", &[(99, 3), (1, 0)])
        ],
        "{commit}"
    );
    assert_eq!(fetched(&mut c, "ck"), ["ck-a/1@5"]);

    // Nothing left for the coordinator: answered without it (this member is no one's).
    let txn = c.call(
        &json!({"type": "TxnOffsetCommit", "request": {"transactionalId": "t", "groupId": "ck",
            "producerId": 3, "producerEpoch": 0, "generationIdOrMemberEpoch": 4, "memberId": "nobody",
            "topics": [{"name": "ck-a", "partitions": partitions(&[3])},
                       {"name": "gone", "partitions": partitions(&[0])}]}}),
        3,
    );
    assert_eq!(
        answered(&txn),
        [topic("ck-a", &[(3, 3)]), topic("gone", &[(0, 3)])],
        "{txn}"
    );

    let delete = c.call(
        &json!({"type": "OffsetDelete", "request": {"groupId": "ck", "topics": [
            {"name": "ck-a", "partitions": [{"partitionIndex": 5}, {"partitionIndex": 1}]},
            {"name": "gone", "partitions": [{"partitionIndex": 0}]}]}}),
        0,
    );
    assert_eq!(delete["errorCode"], 0, "{delete}");
    assert_eq!(
        answered(&delete),
        [topic("ck-a", &[(5, 3), (1, 0)]), topic("gone", &[(0, 3)])],
        "{delete}"
    );
    assert!(fetched(&mut c, "ck").is_empty());
}

/// Kafka's controller (`ControllerApis.createTopics`): a name given twice is answered once,
/// INVALID_REQUEST (42) "Duplicate topic name.", after the other results, and not created.
#[test]
fn a_topic_name_given_twice_to_create_topics_is_answered_once_and_not_created() {
    let dir = temp("duplicate-create");
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    let results = c.create_topics_results(&[("dup", 2), ("fresh", 1), ("dup", 2)]);
    let got: Vec<_> = results
        .iter()
        .map(|r| (r.name.as_str(), r.error_code, r.error_message.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("fresh", 0, None),
            ("dup", 42, Some("Duplicate topic name."))
        ]
    );
    assert_eq!(results[1].topic_id, [0; 16]);
    let topics = c.metadata_topics();
    assert!(!topics.contains_key("dup"), "{topics:?}");
    assert_eq!(topics.get("fresh"), Some(&1));
}

/// A topic declared with the id it has on the cluster is known by it: Metadata answers it,
/// `OffsetCommit` and `OffsetFetch` v10 (Kafka 4.2's consumer names topics by id) find it, and
/// a restart keeps it; an id given in hexadecimal is the same id.
#[test]
fn a_topic_declared_with_its_id_is_known_by_it() {
    let dir = temp("declared-id");
    let server = start(&dir, &["--topic", &format!("ck-a:3:{CK_A_ID}")]);
    let mut c = Client::connect(server.port);
    assert_eq!(c.topic_ids().get("ck-a").map(String::as_str), Some(CK_A_ID));
    let commit = c.call(
        &json!({"type": "OffsetCommit", "request": {"groupId": "ck", "generationIdOrMemberEpoch": -1,
            "memberId": "", "topics": [
                {"name": "", "topicId": CK_A_ID, "partitions": partitions(&[2, 7])}]}}),
        10,
    );
    assert_eq!(
        answered(&commit),
        [topic(CK_A_ID, &[(7, 3), (2, 0)])],
        "{commit}"
    );
    let fetch = c.call(
        &json!({"type": "OffsetFetch", "request": {"groups": [{"groupId": "ck", "memberId": null,
            "memberEpoch": -1, "topics": [{"name": "", "topicId": CK_A_ID, "partitionIndexes": [2]}]}]}}),
        10,
    );
    assert_eq!(
        fetch["groups"][0]["topics"][0]["partitions"][0]["committedOffset"], 5,
        "{fetch}"
    );
    drop(c);
    drop(server);

    // Restarted: the table keeps the id; the same id in hexadecimal changes nothing.
    let server = start(&dir, &["--topic", &format!("ck-a:3:{CK_A_HEX}")]);
    let mut c = Client::connect(server.port);
    assert_eq!(c.topic_ids().get("ck-a").map(String::as_str), Some(CK_A_ID));
    assert_eq!(fetched(&mut c, "ck"), ["ck-a/2@5"]);
}

/// Kafka's cluster and topic ids are random UUIDs: two fresh servers share none, the cluster
/// id's first eight bytes are not zero, and a restarted server keeps its own;
/// `meta.properties` is written whole (no temporary file left).
#[test]
fn fresh_servers_have_random_cluster_and_topic_ids_that_a_restart_keeps() {
    let ids = |dir: &std::path::Path| {
        let server = start(dir, &[]);
        let mut c = Client::connect(server.port);
        let cluster = c.metadata().cluster_id.unwrap_or_default();
        let topics = c.topic_ids();
        (cluster, topics)
    };
    let (a, b) = (temp("fresh-a"), temp("fresh-b"));
    let (cluster_a, topics_a) = ids(&a);
    let (cluster_b, topics_b) = ids(&b);
    assert_ne!(cluster_a, cluster_b);
    for (name, id) in &topics_a {
        assert_ne!(Some(id), topics_b.get(name), "{name}");
    }
    for cluster in [&cluster_a, &cluster_b] {
        let bytes = Uuid::from_text(cluster).expect("a uuid").0;
        assert_ne!(bytes[..8], [0u8; 8], "{cluster}");
    }
    assert_eq!(ids(&a), (cluster_a.clone(), topics_a));
    let data = a.join("data");
    let meta = std::fs::read_to_string(data.join("meta.properties")).unwrap();
    assert!(
        meta.contains(&format!("cluster.id={cluster_a}\n")),
        "{meta}"
    );
    assert!(!data.join("meta.properties.tmp").exists());
}

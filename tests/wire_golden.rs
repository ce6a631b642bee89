//! Golden frames: for each dialect, every API and version it serves, a request frame and the
//! response frame it gets on a small group, as hex, committed in `tests/wire-golden/` and
//! compared byte for byte (`UPDATE_GOLDEN=1 cargo test --test wire_golden` rewrites them;
//! review the diff). A change of the codec, the generator or the answers shows as a diff here.

use std::fmt::Write as _;
use std::path::Path;

use streams_group_coordinator::wire::{encode_request, handle_frame, served, Peer};
use streams_group_coordinator::{Config, Coordinator, Dialect, Input};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A coordinator with topic `in` (4 partitions, with an id), an offset committed for group
/// `admin`, and group `g` joined by member `m1`; 4.4's with Kafka's in-memory topology
/// description plugin.
fn small_group(dialect: Dialect) -> Coordinator {
    let mut c = Coordinator::new(Config {
        dialect,
        topology_description_store: dialect == Dialect::Kafka44,
        ..Config::default()
    })
    .expect("a config");
    let topics = r#"{"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 4, "topicId": "AAECAwQFBgcICQoLDA0ODw"}]}"#;
    let _ = c
        .handle(Input::parse(topics).expect("topics"))
        .expect("topics");
    // An admin's commit: group `admin` has an offset to fetch.
    let commit = r#"{"nowMs": 1, "type": "OffsetCommit", "request": {"groupId": "admin", "topics": [{"name": "in", "partitions": [{"partitionIndex": 0, "committedOffset": 4, "committedLeaderEpoch": 2, "committedMetadata": "m"}]}]}}"#;
    let _ = c
        .handle(Input::parse(commit).expect("a commit"))
        .expect("committed");
    for line in setup(dialect) {
        let _ = c
            .handle(Input::parse(&line).expect("an input"))
            .expect("set up");
    }
    c
}

fn topology() -> &'static str {
    r#"[{"subtopologyId": "0", "sourceTopics": ["in"]}]"#
}

fn setup(dialect: Dialect) -> Vec<String> {
    if dialect.is_kafka() {
        vec![format!(
            r#"{{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": "m1", "memberEpoch": 0, "endpointInformationEpoch": 0, "rebalanceTimeoutMs": 30000, "processId": "p1", "topology": {{"epoch": 0, "subtopologies": {}}}, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}}}"#,
            topology()
        )]
    } else {
        vec![
            format!(
                r#"{{"nowMs": 1, "type": "StreamsGroupInitialize", "request": {{"groupId": "g", "topologyId": "t", "topology": {}}}}}"#,
                topology()
            ),
            r#"{"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "topologyId": "t", "rebalanceTimeoutMs": 30000, "processId": "p1", "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#.into(),
        ]
    }
}

/// One request per API, as JSON inputs (ApiVersions is built by hand: it is no input).
fn requests(dialect: Dialect) -> Vec<(i16, String)> {
    let heartbeat = if dialect.is_kafka() {
        r#"{"nowMs": 2, "type": "StreamsGroupHeartbeat", "client": {"clientId": "app"}, "request": {"groupId": "g", "memberId": "m1", "memberEpoch": 1, "endpointInformationEpoch": 0, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#
    } else {
        r#"{"nowMs": 2, "type": "StreamsGroupHeartbeat", "client": {"clientId": "app"}, "request": {"groupId": "g", "memberId": "m1", "memberEpoch": 1, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#
    };
    let mut out = vec![
        (88, heartbeat.to_string()),
        (
            89,
            r#"{"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g", "nope"]}}"#
                .into(),
        ),
        (
            42,
            r#"{"nowMs": 2, "type": "DeleteGroups", "groupIds": ["g", "nope"]}"#.into(),
        ),
    ];
    // An admin's commit (a member's is refused below version 9) with a topic the image does not
    // know by id (version 10 answers it UNKNOWN_TOPIC_ID), and an admin's fetch (a member is
    // not sent below 9); the topic's id for version 10.
    out.push((
        8,
        r#"{"nowMs": 2, "type": "OffsetCommit", "request": {"groupId": "admin", "retentionTimeMs": 60000, "topics": [{"name": "in", "topicId": "AAECAwQFBgcICQoLDA0ODw", "partitions": [{"partitionIndex": 0, "committedOffset": 5, "committedLeaderEpoch": 2, "committedMetadata": "m"}]}, {"name": "gone", "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": [{"partitionIndex": 1, "committedOffset": 6}]}]}}"#.into(),
    ));
    out.push((
        9,
        r#"{"nowMs": 2, "type": "OffsetFetch", "request": {"groups": [{"groupId": "admin", "topics": [{"name": "in", "topicId": "AAECAwQFBgcICQoLDA0ODw", "partitionIndexes": [0, 1]}]}], "requireStable": false}}"#.into(),
    ));
    out.push((
        16,
        r#"{"nowMs": 2, "type": "ListGroups", "request": {}}"#.into(),
    ));
    // The classic and consumer describes of the streams group, the simple group and no group.
    out.push((
        15,
        r#"{"nowMs": 2, "type": "DescribeGroups", "request": {"groups": ["g", "admin", "nope"]}}"#
            .into(),
    ));
    out.push((
        69,
        r#"{"nowMs": 2, "type": "ConsumerGroupDescribe", "request": {"groupIds": ["g", "", "admin", "nope"]}}"#
            .into(),
    ));
    // A transactional commit of the admin's group (version 6 names the topic by its id).
    out.push((
        28,
        r#"{"nowMs": 2, "type": "TxnOffsetCommit", "request": {"transactionalId": "tx", "groupId": "admin", "producerId": 7, "producerEpoch": 1, "topics": [{"name": "in", "topicId": "AAECAwQFBgcICQoLDA0ODw", "partitions": [{"partitionIndex": 0, "committedOffset": 6, "committedLeaderEpoch": 2, "committedMetadata": "m"}]}]}}"#.into(),
    ));
    // The admin's offset deleted and a partition without one.
    out.push((
        47,
        r#"{"nowMs": 2, "type": "OffsetDelete", "request": {"groupId": "admin", "topics": [{"name": "in", "partitions": [{"partitionIndex": 0}, {"partitionIndex": 3}]}]}}"#.into(),
    ));
    if dialect == Dialect::Kafka44 {
        out.push((
            93,
            r#"{"nowMs": 2, "type": "StreamsGroupTopologyDescriptionUpdate", "request": {"groupId": "g", "memberId": "m1", "topologyEpoch": 0, "topologyDescription": {"subtopologies": [{"subtopologyId": "0", "nodes": [{"name": "KSTREAM-SOURCE-0000000000", "nodeType": 1, "sourceTopics": ["in"], "successors": ["KSTREAM-SINK-0000000001"]}, {"name": "KSTREAM-SINK-0000000001", "nodeType": 3, "sinkTopic": "out"}]}], "globalStores": []}}}"#.into(),
        ));
    }
    if !dialect.is_kafka() {
        out[0].0 = 89;
        out[1].0 = 90;
        out.push((
            88,
            format!(
                r#"{{"nowMs": 2, "type": "StreamsGroupInitialize", "request": {{"groupId": "g", "topologyId": "t", "topology": {}}}}}"#,
                topology()
            ),
        ));
    }
    out
}

fn golden(dialect: Dialect) -> String {
    let mut text = String::new();
    let apis = served(dialect);
    for api in &apis {
        for v in api.min..=api.max {
            let mut c = small_group(dialect);
            let frame = if api.key == 18 {
                let mut f = vec![0, 18];
                f.extend_from_slice(&v.to_be_bytes());
                f.extend_from_slice(&[0, 0, 0, 7, 0, 1, b'c']);
                if v >= 3 {
                    f.extend_from_slice(&[0, 4, b'j', b'a', b'v', 2, b'4', 0, 0]);
                }
                f
            } else {
                let Some((_, line)) = requests(dialect).into_iter().find(|(k, _)| *k == api.key)
                else {
                    panic!("no request for API {}", api.key)
                };
                let input = Input::parse(&line).expect("an input");
                encode_request(dialect, &input.kind, v, 7).expect("a frame")
            };
            let out = handle_frame(&mut c, &frame, 2, &Peer::default()).expect("an answer");
            let _ = writeln!(text, "{} v{v} request  {}", api.name, hex(&frame));
            let _ = writeln!(text, "{} v{v} response {}", api.name, hex(&out.frame));
        }
    }
    text
}

#[test]
fn every_api_and_version_answers_its_golden_frames() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wire-golden");
    let mut changed = Vec::new();
    for dialect in [
        Dialect::Kip1071Draft,
        Dialect::Kafka42,
        Dialect::Kafka43,
        Dialect::Kafka44,
    ] {
        let path = dir.join(format!("{}.txt", dialect.name()));
        let text = golden(dialect);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(&dir).expect("a directory");
            std::fs::write(&path, &text).expect("written");
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != text {
            changed.push(format!("{}", path.display()));
        }
    }
    assert!(
        changed.is_empty(),
        "golden frames differ (UPDATE_GOLDEN=1 rewrites them): {changed:?}"
    );
}

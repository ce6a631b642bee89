//! `sgc encode-frames`, `sgc frames` and `sgc frame-json`: a scenario's requests encoded as a
//! client sends them and served as a stream of frames give the JSON face's records and
//! responses; a frame Kafka would close the connection on stops the stream with exit code 3.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

fn sgc(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sgc"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sgc runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("written");
    let out = child.wait_with_output().expect("sgc ends");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const INPUTS: &str = r#"{"nowMs": 5, "type": "StreamsGroupHeartbeat", "client": {"clientId": "app-1"}, "request": {"groupId": "g", "memberId": "m1", "memberEpoch": 0, "endpointInformationEpoch": 0, "rebalanceTimeoutMs": 30000, "processId": "p1", "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]}, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}
{"nowMs": 5, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g", "nope"]}}
{"nowMs": 5, "type": "DeleteGroups", "groupIds": ["nope"]}
"#;

#[test]
fn a_stream_of_frames_answers_as_the_json_face() {
    let (code, frames, err) = sgc(
        &["encode-frames", "--dialect", "kafka-4.2"],
        INPUTS.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    let (code, json, err) = sgc(&["frame-json", "--dialect", "kafka-4.2"], &frames);
    assert_eq!(code, 0, "{err}");
    let requests: Vec<Value> = String::from_utf8_lossy(&json)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0]["clientId"], "app-1");
    assert_eq!(requests[1]["body"]["groupIds"][1], "nope");
    let args = [
        "frames",
        "--dialect",
        "kafka-4.2",
        "--now-ms",
        "5",
        "--json",
    ];
    let (code, served, err) = sgc(&args, &frames);
    assert_eq!(code, 0, "{err}");
    let config = std::env::temp_dir().join(format!("sgc-frames-{}.json", std::process::id()));
    std::fs::write(&config, r#"{"dialect": "kafka-4.2"}"#).expect("a config");
    let (code, direct, err) = sgc(
        &["--config", config.to_str().expect("a path")],
        INPUTS.as_bytes(),
    );
    let _ = std::fs::remove_file(&config);
    assert_eq!(code, 0, "{err}");
    let lines = |b: &[u8]| -> Vec<Value> {
        String::from_utf8_lossy(b)
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    };
    let (served, direct) = (lines(&served), lines(&direct));
    assert_eq!(served.len(), direct.len());
    for (s, d) in served.iter().zip(&direct) {
        for key in ["records", "topicsToCreate", "explain", "nextDeadlineMs"] {
            assert_eq!(s[key], d[key], "{key}");
        }
        assert_eq!(
            s["response"]["body"]["errorCode"],
            d["response"]["errorCode"]
        );
    }
    assert_eq!(served[0]["response"]["body"]["memberEpoch"], 1);
    assert_eq!(served[1]["response"]["body"]["groups"][1]["errorCode"], 69);
    // The raw form: size-prefixed response frames, correlation ids echoed.
    let (code, raw, _) = sgc(&args[..5], &frames);
    assert_eq!(code, 0);
    let mut at = 0;
    let mut ids = Vec::new();
    while at < raw.len() {
        let size = i32::from_be_bytes(raw[at..at + 4].try_into().expect("4 bytes")) as usize;
        ids.push(i32::from_be_bytes(
            raw[at + 4..at + 8].try_into().expect("4 bytes"),
        ));
        at += 4 + size;
    }
    assert_eq!(ids, [0, 1, 2]);
}

#[test]
fn a_frame_kafka_closes_the_connection_on_ends_the_stream() {
    // An unknown API key, then a frame that is never read.
    let mut stream = vec![0, 0, 0, 8, 0, 77, 0, 0, 0, 0, 0, 1];
    stream.extend_from_slice(&[0, 0, 0, 8, 0, 18, 0, 0, 0, 0, 0, 2]);
    let (code, out, err) = sgc(&["frames", "--now-ms", "0"], &stream);
    assert_eq!(code, 3, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("INVALID_FRAME") && err.contains("header.RequestApiKey"),
        "{err}"
    );
    // A size running past the end is refused before any frame is served.
    let (code, _, err) = sgc(&["frames"], &[0, 0, 1, 0, 1]);
    assert_eq!(code, 1, "{err}");
}

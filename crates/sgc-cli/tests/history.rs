//! The `sgc history` command: a scenario's records written as `kafka-dump-log.sh` text and as a
//! raw segment are told from a file, from stdin and as JSON; malformed files are refused with a
//! clear message and exit code 1, never a panic. The reading itself is tested with the core
//! (`tests/history.rs`), whose log writers this test shares.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

// The core's test reads the fields this one does not.
#[allow(dead_code)]
#[path = "../../../tests/common/logs.rs"]
mod logs;
use logs::{dump_log, run, segment};

fn sgc(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sgc"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(b) = stdin {
        child.stdin.take().unwrap().write_all(b).unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sgc_history_tells_a_dump_log_and_rejects_malformed_files_with_a_clear_error() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("sgc-history-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k42-leave.dump.txt");
    fs::write(&file, dump_log(&run)).unwrap();
    let (code, out, err) = sgc(&["history", file.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("kafka-4.2 dialect"), "{out}");
    assert!(out.contains("left the group or was fenced"), "{out}");
    assert!(out.contains("  epoch 5\n"), "{out}");
    // JSON, from stdin, and the raw segment give the same history as the text.
    let (code, json_out, _) = sgc(&["history", "--json", "-"], Some(dump_log(&run).as_bytes()));
    assert_eq!(code, 0);
    let from_text: Value = serde_json::from_str(&json_out).unwrap();
    let seg = dir.join("00000000000000000000.log");
    fs::write(&seg, segment(&run)).unwrap();
    let (code, seg_out, err) = sgc(&["history", "--json", seg.to_str().unwrap()], None);
    assert_eq!(code, 0, "{err}");
    let from_seg: Value = serde_json::from_str(&seg_out).unwrap();
    let strip = |v: &Value| -> Vec<Value> {
        v["groups"][0]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let mut e = e.clone();
                e.as_object_mut().unwrap().remove("text");
                e
            })
            .collect()
    };
    assert_eq!(strip(&from_text), strip(&from_seg));
    // Malformed input: exit code 1 and a message naming the place; never a panic.
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("garbage.txt", b"{\"key\": 1}\nnot json at all {".to_vec()),
        ("bad-record.txt", b"| offset: 4 CreateTime: 1 keySize: 3 valueSize: 3 key: {\"type\":\"17\",\"data\":{\"groupId\":7}} payload: {\"version\":\"0\",\"data\":{}}\n".to_vec()),
        ("binary.bin", vec![0xff, 0x00, 0x13, 0x37]),
    ];
    for (name, bytes) in bad {
        let f = dir.join(name);
        fs::write(&f, bytes).unwrap();
        let (code, out, err) = sgc(&["history", f.to_str().unwrap()], None);
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(
            err.starts_with("sgc: ") && !err.contains("panicked"),
            "{name}: {err}"
        );
    }
    let (code, _, err) = sgc(&["history", dir.join("missing").to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, _) = sgc(&["history"], None);
    assert_eq!(code, 2);
    fs::remove_dir_all(&dir).ok();
}

/// A dump cut in a record line (here in the middle of its payload, as a copy that ran out of
/// room leaves it) is told up to the cut, with exit code 3 and the line on stderr; the JSON
/// form lists the damage.
#[test]
fn sgc_history_of_a_cut_dump_tells_up_to_the_cut_and_exits_3() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let text = dump_log(&run);
    // Cut in the payload of the record at offset 20 (the first leave's writes).
    let line = text
        .lines()
        .position(|l| l.starts_with("| offset: 20 "))
        .unwrap();
    let keep: Vec<&str> = text.lines().take(line + 1).collect();
    let mut cut = keep.join("\n");
    cut.truncate(cut.len() - 10);
    let dir = std::env::temp_dir().join(format!("sgc-history-cut-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cut.dump.txt");
    fs::write(&file, &cut).unwrap();
    let (code, out, err) = sgc(&["history", file.to_str().unwrap()], None);
    assert_eq!(code, 3, "{out}{err}");
    let n = line + 1;
    assert!(
        err.starts_with("sgc: ")
            && err.contains(&format!("line {n}: "))
            && err.contains("told up to it"),
        "{err}"
    );
    assert!(err.lines().count() == 1, "{err}");
    assert!(
        out.contains("  epoch 4\n") && !out.contains("  epoch 5\n"),
        "{out}"
    );
    assert!(out.contains(&format!("cut at line {n}: ")), "{out}");
    let (code, out, _) = sgc(&["history", "--json", "-"], Some(cut.as_bytes()));
    assert_eq!(code, 3);
    let told: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(told["damage"][0]["line"], n);
    assert_eq!(told["records"], 20);
    fs::remove_dir_all(&dir).ok();
}

/// A dump made without `--offsets-decoder` (offsets and sizes only) is refused with exit code
/// 1 and how to dump it again, not told as a log without streams group records.
#[test]
fn sgc_history_of_a_dump_without_the_offsets_decoder_says_how_to_redo_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let text = dump_log(&run);
    let bare: Vec<&str> = text
        .lines()
        .map(|l| l.split(" key: ").next().unwrap())
        .collect();
    let (code, out, err) = sgc(&["history", "-"], Some(bare.join("\n").as_bytes()));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("sgc: -: line 4: this dump was made without --offsets-decoder")
            && err.contains("kafka-dump-log.sh --offsets-decoder --files /var/lib/kafka/data/__consumer_offsets-12/00000000000000000000.log"),
        "{err}"
    );
}

/// `sgc history FILE | head`: a closed stdout ends the command with exit code 1 and no panic
/// message (the Rust runtime ignores SIGPIPE, so a write to a closed pipe is an error).
#[test]
fn sgc_history_into_a_closed_pipe_exits_without_a_panic() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("sgc-history-pipe-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k42-leave.dump.txt");
    fs::write(&file, dump_log(&run)).unwrap();
    for args in [
        vec!["history", file.to_str().unwrap()],
        vec!["history", "--json", file.to_str().unwrap()],
        vec!["partition-for", "g"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_sgc"))
            .args(&args)
            .stdin(std::process::Stdio::null())
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A raw segment is read as Kafka recovers one: a copy of the active segment cut in its last
/// batch, or a batch whose CRC-32C fails, is told up to that batch with exit code 3 and the
/// byte position on stderr.
#[test]
fn sgc_history_of_a_cut_or_corrupt_segment_tells_up_to_the_bad_batch_and_exits_3() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let seg = segment(&run);
    let (code, whole, _) = sgc(&["history", "--json", "-"], Some(&seg));
    assert_eq!(code, 0);
    let whole: Value = serde_json::from_str(&whole).unwrap();
    // The last batch's start: walk the batches by their lengths.
    let mut last = 0;
    let mut at = 0;
    while at < seg.len() {
        last = at;
        at += 12 + i32::from_be_bytes(seg[at + 8..at + 12].try_into().unwrap()) as usize;
    }
    let mut cut = seg.clone();
    cut.truncate(seg.len() - 7);
    let mut corrupt = seg.clone();
    corrupt[seg.len() - 3] ^= 0x40;
    for (name, bytes, why) in [
        ("cut", cut, "ends in the middle of a record batch"),
        ("corrupt", corrupt, "fails its CRC-32C check"),
    ] {
        let (code, out, err) = sgc(&["history", "--json", "-"], Some(&bytes));
        assert_eq!(code, 3, "{name}: {err}");
        assert!(
            err.starts_with(&format!("sgc: -: byte {last}: "))
                && err.contains(why)
                && err.contains("told up to it"),
            "{name}: {err}"
        );
        let told: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(told["damage"][0]["position"], last, "{name}");
        assert!(
            told["records"].as_u64() < whole["records"].as_u64()
                && told["records"].as_u64() > Some(0),
            "{name}: {}",
            told["records"]
        );
    }
}

/// A dump whose batch failed its CRC check (`isvalid: false` in its header line, as
/// DumpLogSegments prints it) is told up to that batch with exit code 3.
#[test]
fn sgc_history_of_a_dump_with_an_invalid_batch_tells_up_to_it_and_exits_3() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let text = dump_log(&run);
    let header = text
        .lines()
        .position(|l| l.starts_with("baseOffset: ") && !l.starts_with("baseOffset: 0 "))
        .unwrap();
    let bad: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == header {
                l.replace("isvalid: true", "isvalid: false")
            } else {
                l.to_string()
            }
        })
        .collect();
    let (code, out, err) = sgc(&["history", "--json", "-"], Some(bad.join("\n").as_bytes()));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains(&format!("line {}: ", header + 1)) && err.contains("isvalid: false"),
        "{err}"
    );
    let told: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(told["damage"][0]["line"], header + 1);
    assert!(told["records"].as_u64() > Some(0), "{}", told["records"]);
}

/// A dump of Kafka 4.4 (the group metadata's `storedDescriptionTopologyEpoch` tagged field,
/// written once a description is stored) is found to be 4.4's and told whole; read as 4.2
/// (`--dialect kafka-4.2`), the field is left out with a warning on stderr, in the text and in
/// the JSON, and the history is the same.
#[test]
fn sgc_history_of_a_newer_releases_dump_is_read_as_that_release_or_warned_of() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios/k42-leave.json");
    let run = run(&path).unwrap();
    let text = dump_log(&run);
    let (code, plain, _) = sgc(&["history", "-"], Some(text.as_bytes()));
    assert_eq!(code, 0);
    let newer = text.replace(
        r#""metadataHash":"#,
        r#""storedDescriptionTopologyEpoch":3,"metadataHash":"#,
    );
    assert_ne!(newer, text);
    let (code, out, err) = sgc(&["history", "-"], Some(newer.as_bytes()));
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        out.starts_with("36 streams group records (kafka-4.4 dialect)"),
        "{out}"
    );
    let (code, out, err) = sgc(
        &["history", "--dialect", "kafka-4.2", "-"],
        Some(newer.as_bytes()),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("sgc: -: warning: line ")
            && err.contains("data.storedDescriptionTopologyEpoch")
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(out.contains("\nnote: line "), "{out}");
    let without_notes: String = out
        .lines()
        .filter(|l| !l.starts_with("note: "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(without_notes, plain);
    let (code, out, _) = sgc(
        &["history", "--json", "--dialect", "kafka-4.2", "-"],
        Some(newer.as_bytes()),
    );
    assert_eq!(code, 0);
    let told: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        told["warnings"].as_array().unwrap().len(),
        1,
        "{}",
        told["warnings"]
    );
}

/// Every post-mortem case of `tests/history-cases/` (files in Kafka's forms: cut, damaged,
/// compressed, of newer releases), as its `cases.json` says: exit 0 when told, 3 when told up
/// to the damage (named on stderr with its line or byte), 1 when refused (and why); the dialect
/// found; a newer release's fields warned of; the JSON form's damage where the case says.
#[test]
fn sgc_history_of_every_case_file_is_as_cases_json_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/history-cases");
    let cases: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("cases.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
    for c in cases["cases"].as_array().unwrap() {
        let file = dir.join(c["file"].as_str().unwrap());
        let name = c["file"].as_str().unwrap();
        let (code, out, err) = sgc(&["history", file.to_str().unwrap()], None);
        let outcome = c["outcome"].as_str().unwrap();
        let want_code = match outcome {
            "told" => 0,
            "damaged" => 3,
            _ => 1,
        };
        let message = c["message"].as_str().unwrap_or("");
        let where_ = if let Some(line) = c["line"].as_u64() {
            format!("line {line}: ")
        } else if let Some(pos) = c["position"].as_u64() {
            format!("byte {pos}: ")
        } else {
            String::new()
        };
        let warnings = c["warnings"].as_array().map_or(0, |w| w.len());
        let ok = code == want_code
            && match outcome {
                "refused" => out.is_empty() && err.contains(message),
                "damaged" => {
                    err.starts_with(&format!("sgc: {}: {where_}", file.display()))
                        && err.contains(message)
                        && err.contains("told up to it")
                        && out.contains("The log is damaged")
                }
                _ => err.lines().filter(|l| l.contains(": warning: ")).count() == warnings,
            }
            && (outcome == "refused"
                || out.starts_with(&format!(
                    "{} streams group records ({} dialect)",
                    c["records"],
                    c["dialect"].as_str().unwrap()
                )));
        if !ok {
            failures.push(format!(
                "{name}: exit {code}\n{err}{}",
                out.lines().next().unwrap_or("")
            ));
            continue;
        }
        if outcome != "refused" {
            let (code, json_out, _) = sgc(&["history", "--json", file.to_str().unwrap()], None);
            let told: Value = serde_json::from_str(&json_out).unwrap();
            if code != want_code
                || told["dialect"] != c["dialect"]
                || told["warnings"].as_array().unwrap().len() != warnings
            {
                failures.push(format!(
                    "{name}: --json exit {code}, dialect {}",
                    told["dialect"]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

//! The post-mortem cases as files in Kafka's forms (`tests/history-cases/`): what an operator's
//! files hold besides a clean dump (lines and segments cut short, failed CRCs, `isvalid:
//! false`, `Found N invalid bytes`, decoder errors, `LogAppendTime`, a dump made without
//! `--offsets-decoder`, newer releases' fields, compressed batches, CRLF and a BOM, two files in
//! one dump, deleted groups, offset commits, transactional offset commits and their end
//! markers), each with what its history must say
//! (`cases.json`). The files are written here from scenario runs as `kafka-dump-log.sh` prints
//! them and as Kafka lays out a segment (`tests/common/logs.rs`, not the project's writer), then
//! cut, damaged or compressed as the case says; `SGC_WRITE_HISTORY_CASES=1` rewrites them,
//! otherwise the committed files must be what this writes. The same cases are read by the core
//! here, by `sgc history` (`crates/sgc-cli/tests/history.rs`), by the npm package's `history`
//! (`tests/js/history-cases.test.mjs`) and by the playground's Load log (`tests/browser`).
#![cfg(feature = "compressed-logs")]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use streams_group_coordinator::history::{parse_log, tell};

// The core's history test reads the fields this one does not.
#[allow(dead_code)]
#[path = "common/logs.rs"]
mod logs;
use logs::{crc32c, dump_log, run, segment, Run};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/history-cases")
}

fn scenario(name: &str) -> Run {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/scenarios/{name}.json"));
    run(&path).unwrap_or_else(|| panic!("{name}: a scenario whose records are its own"))
}

/// The record line of `offset` (its index among the lines).
fn record_line(lines: &[&str], offset: i64) -> usize {
    let prefix = format!("| offset: {offset} ");
    lines.iter().position(|l| l.starts_with(&prefix)).unwrap()
}

/// The lines up to and with line `i`, that line cut after `keep` of its bytes: a copy of a file
/// that was still being written, or a truncated paste.
fn cut_at(lines: &[&str], i: usize, keep: usize) -> Vec<u8> {
    let mut text = lines[..i].join("\n");
    text.push('\n');
    text.push_str(&lines[i][..keep]);
    text.into_bytes()
}

/// Where each batch of a segment starts.
fn batches(seg: &[u8]) -> Vec<usize> {
    let mut at = 0;
    let mut starts = Vec::new();
    while at < seg.len() {
        starts.push(at);
        at += 12 + i32::from_be_bytes(seg[at + 8..at + 12].try_into().unwrap()) as usize;
    }
    starts
}

/// The batch's CRC-32C again, over its attributes onwards (after a change to the batch).
fn reseal(batch: &mut [u8]) {
    let crc = crc32c(&batch[21..]);
    batch[17..21].copy_from_slice(&crc.to_be_bytes());
}

/// `records` compressed as Kafka's producers and brokers write each codec.
fn compress(codec: i16, records: &[u8]) -> Vec<u8> {
    match codec {
        1 => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(records).unwrap();
            gz.finish().unwrap()
        }
        2 => {
            // snappy-java's stream (Kafka's SnappyOutputStream): magic, version 1, compatible
            // version 1, then length-prefixed raw blocks of at most 32 KB.
            let mut out = b"\x82SNAPPY\0".to_vec();
            out.extend(1i32.to_be_bytes());
            out.extend(1i32.to_be_bytes());
            for block in records.chunks(32 * 1024) {
                let raw = snap::raw::Encoder::new().compress_vec(block).unwrap();
                out.extend((raw.len() as i32).to_be_bytes());
                out.extend(raw);
            }
            out
        }
        3 => {
            let mut lz4 = lz4_flex::frame::FrameEncoder::new(Vec::new());
            lz4.write_all(records).unwrap();
            lz4.finish().unwrap()
        }
        4 => {
            ruzstd::encoding::compress_to_vec(records, ruzstd::encoding::CompressionLevel::Fastest)
        }
        _ => unreachable!(),
    }
}

/// Every batch of `seg` rewritten by `f(batch)` (the batch from its base offset on), resealed.
fn rewrite(seg: &[u8], f: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
    let starts = batches(seg);
    let mut out = Vec::new();
    for (i, &at) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(seg.len());
        let mut batch = seg[at..end].to_vec();
        f(&mut batch);
        let len = (batch.len() - 12) as i32;
        batch[8..12].copy_from_slice(&len.to_be_bytes());
        reseal(&mut batch);
        out.extend(batch);
    }
    out
}

/// Every case file's name and bytes.
fn cases() -> Vec<(String, Vec<u8>)> {
    let leave = scenario("k42-leave");
    let dump = dump_log(&leave);
    let lines: Vec<&str> = dump.lines().collect();
    let seg = segment(&leave);
    let mut out: Vec<(String, Vec<u8>)> = vec![
        ("k42-dump.txt".into(), dump.clone().into_bytes()),
        ("k42-segment.log".into(), seg.clone()),
    ];
    // Windows line ends and a byte order mark, as an editor on the way may leave them.
    let crlf = format!("\u{feff}{}", dump.replace('\n', "\r\n"));
    out.push(("crlf-bom.txt".into(), crlf.into_bytes()));
    // Two segments dumped by one command: a second `Dumping` header in the middle.
    let second = record_line(&lines, 20) - 1;
    let mut two = lines[..second].join("\n");
    two.push_str(
        "\nDumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000020.log\nLog starting offset: 20\n",
    );
    two.push_str(&lines[second..].join("\n"));
    two.push('\n');
    out.push(("two-files.txt".into(), two.into_bytes()));

    // Cut short at the record of offset 20 (the first leave's writes): before its payload was
    // read, inside its key, before its key.
    let i = record_line(&lines, 20);
    let payload = lines[i].find(" payload: ").unwrap();
    let key = lines[i].find(" key: ").unwrap();
    out.push((
        "cut-before-payload.txt".into(),
        cut_at(&lines, i, payload + 5),
    ));
    out.push(("cut-in-key.txt".into(), cut_at(&lines, i, key + 20)));
    out.push(("cut-before-key.txt".into(), cut_at(&lines, i, key - 4)));

    // The second batch failed the dump tool's CRC check.
    let header = lines
        .iter()
        .position(|l| l.starts_with("baseOffset: ") && !l.starts_with("baseOffset: 0 "))
        .unwrap();
    let invalid: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(n, l)| {
            if n == header {
                l.replace("isvalid: true", "isvalid: false")
            } else {
                l.to_string()
            }
        })
        .collect();
    out.push((
        "isvalid-false.txt".into(),
        (invalid.join("\n") + "\n").into_bytes(),
    ));
    // The dump tool's own words for a segment that ends inside a batch.
    out.push((
        "found-invalid-bytes.txt".into(),
        format!("{dump}Found 77 invalid bytes at the end of 00000000000000000000.log\n")
            .into_bytes(),
    ));
    // A record the dump tool's decoder could not read.
    let j = record_line(&lines, 22);
    let head = &lines[j][..lines[j].find(" key: ").unwrap()];
    let mut undecodable: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    undecodable[j] = format!(
        "{head} key: Error at offset 22, skipping. Could not read record with version 0 from value's buffer due to: Error reading field 'activeTasks': java.nio.BufferUnderflowException"
    );
    out.push((
        "error-at-offset.txt".into(),
        (undecodable.join("\n") + "\n").into_bytes(),
    ));

    // A dump made without --offsets-decoder: offsets and sizes, no keys or payloads.
    let bare: Vec<&str> = lines
        .iter()
        .map(|l| l.split(" key: ").next().unwrap())
        .collect();
    out.push((
        "no-offsets-decoder.txt".into(),
        (bare.join("\n") + "\n").into_bytes(),
    ));

    // Only the group metadata (17), target metadata (20) and target member (21) records: types
    // the draft numbers differently, and the dialect must be found from them.
    let few: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            !l.starts_with("| ")
                || [
                    r#"key: {"type":"17""#,
                    r#"key: {"type":"20""#,
                    r#"key: {"type":"21""#,
                ]
                .iter()
                .any(|k| l.contains(k))
        })
        .collect();
    out.push((
        "types-17-20-21.txt".into(),
        (few.join("\n") + "\n").into_bytes(),
    ));

    // The topic's message.timestamp.type=LogAppendTime: the broker's time in every batch.
    out.push((
        "log-append-time.txt".into(),
        dump.replace("CreateTime: ", "LogAppendTime: ").into_bytes(),
    ));
    // In a segment: attribute bit 3, the append time as the batch's max timestamp, and record
    // timestamps (base and deltas) that are the producer's, here all 0.
    let appended = rewrite(&seg, |b| {
        b[22] |= 0x08;
        b[27..35].copy_from_slice(&0i64.to_be_bytes());
    });
    out.push(("log-append-time.log".into(), appended));

    // A newer release's fields: Kafka 4.3's assignment timestamp in the target metadata (tag
    // 0 of type 20's value), as its dump prints it.
    let newer = dump.replace(
        r#""data":{"assignmentEpoch":"#,
        r#""data":{"assignmentTimestamp":1700000000000,"assignmentEpoch":"#,
    );
    assert_ne!(newer, dump);
    out.push(("k43-fields.txt".into(), newer.into_bytes()));
    // Kafka 4.4's description epochs on the group metadata (tags 2 and 3, once the topology
    // description store has been used).
    let epochs = dump.replace(
        r#""metadataHash":"#,
        r#""storedDescriptionTopologyEpoch":0,"failedDescriptionTopologyEpoch":-1,"metadataHash":"#,
    );
    assert_ne!(epochs, dump);
    out.push(("k44-description-epochs.txt".into(), epochs.into_bytes()));
    // A release after 4.4: a value field no release here knows, left out with a warning.
    let future = dump.replacen(
        r#""data":{"epoch":"#,
        r#""data":{"rebalanceCause":"a field of a later release","epoch":"#,
        1,
    );
    assert_ne!(future, dump);
    out.push(("future-field.txt".into(), future.into_bytes()));
    // Kafka 4.4's own log: static members (which 4.2 and 4.3 refuse).
    let described = scenario("k44-static-membership");
    out.push(("k44-dump.txt".into(), dump_log(&described).into_bytes()));
    out.push(("k44-segment.log".into(), segment(&described)));

    // offsets.topic.compression.codec set: every batch compressed, by each codec.
    for (codec, name) in [(1, "gzip"), (2, "snappy"), (3, "lz4"), (4, "zstd")] {
        let compressed = rewrite(&seg, |b| {
            let records = compress(codec, &b[61..]);
            b.truncate(61);
            b.extend(records);
            b[22] |= codec as u8;
        });
        out.push((format!("{name}.log"), compressed));
    }

    // One byte of a record changed in the batch of offset 20 (a member epoch 3 becomes 7),
    // its CRC left as written.
    let starts = batches(&seg);
    let at = starts
        .iter()
        .copied()
        .find(|&s| i64::from_be_bytes(seg[s..s + 8].try_into().unwrap()) >= 20)
        .unwrap();
    let mut corrupt = seg.clone();
    corrupt[at + 75] ^= 0x04;
    out.push(("bad-crc.log".into(), corrupt));
    // A copy of the active segment, taken while its last batch was being written.
    out.push(("partial.log".into(), seg[..seg.len() - 7].to_vec()));

    // A deleted group, and offset commits by members at their epochs.
    out.push((
        "deleted-group.txt".into(),
        dump_log(&scenario("k42-delete-and-describe")).into_bytes(),
    ));
    out.push((
        "offset-commits.txt".into(),
        dump_log(&scenario("k42-offsets-commit")).into_bytes(),
    ));
    // Transactional offset commits: batches of their producer and the end markers.
    let txn = scenario("k44-txn-offset-commit");
    out.push(("transactions.txt".into(), dump_log(&txn).into_bytes()));
    out.push(("transactions.log".into(), segment(&txn)));
    out
}

#[test]
fn the_committed_case_files_are_what_this_writes() {
    let write = std::env::var_os("SGC_WRITE_HISTORY_CASES").is_some();
    let mut stale = Vec::new();
    for (name, bytes) in cases() {
        let path = dir().join(&name);
        if write {
            fs::write(&path, &bytes).unwrap();
        } else if fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale (SGC_WRITE_HISTORY_CASES=1 rewrites them): {stale:?}"
    );
}

/// What `cases.json` says of each file, checked against the core's `parse_log` and `tell`.
#[test]
fn every_case_is_told_as_cases_json_says() {
    let cases: Value =
        serde_json::from_str(&fs::read_to_string(dir().join("cases.json")).unwrap()).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    let files: Vec<String> = cases
        .iter()
        .map(|c| c["file"].as_str().unwrap().to_string())
        .collect();
    let mut written: Vec<String> = self::cases().into_iter().map(|(n, _)| n).collect();
    written.sort();
    let mut listed = files.clone();
    listed.sort();
    assert_eq!(listed, written, "cases.json lists every case file once");
    let told = |file: &str| -> Result<Value, String> {
        let bytes = fs::read(dir().join(file)).unwrap();
        parse_log(&bytes, None)
            .map(|log| tell(&log))
            .map_err(|e| e.message)
    };
    let mut failures = Vec::new();
    for case in cases {
        let file = case["file"].as_str().unwrap();
        if let Err(why) = check(case, told(file), &told) {
            failures.push(format!("{file}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The event codes of a history, with their groups, in order.
fn codes(h: &Value) -> Vec<String> {
    h["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["events"].as_array().unwrap())
        .map(|e| format!("{}:{}", e["groupId"], e["code"]))
        .collect()
}

fn check(
    case: &Value,
    got: Result<Value, String>,
    told: &dyn Fn(&str) -> Result<Value, String>,
) -> Result<(), String> {
    let outcome = case["outcome"].as_str().unwrap();
    let message = case["message"].as_str();
    let h = match (outcome, got) {
        ("refused", Err(m)) => {
            return match message {
                Some(want) if !m.contains(want) => Err(format!("refused with {m:?}, not {want:?}")),
                _ => Ok(()),
            };
        }
        (_, Err(m)) => return Err(format!("refused: {m}")),
        ("refused", Ok(_)) => return Err("told, not refused".into()),
        (_, Ok(h)) => h,
    };
    let damage = h["damage"].as_array().unwrap();
    match outcome {
        "told" if !damage.is_empty() => return Err(format!("damage {damage:?}")),
        "damaged" if damage.is_empty() => return Err("no damage reported".into()),
        _ => {}
    }
    if let Some(want) = message {
        let first = damage[0]["message"].as_str().unwrap();
        if !first.contains(want) {
            return Err(format!("damage {first:?}, not {want:?}"));
        }
    }
    for key in ["line", "position"] {
        if !case[key].is_null() && damage[0][key] != case[key] {
            return Err(format!(
                "damage {key} {}, not {}",
                damage[0][key], case[key]
            ));
        }
    }
    if h["dialect"] != case["dialect"] {
        return Err(format!("dialect {}, not {}", h["dialect"], case["dialect"]));
    }
    if !case["records"].is_null() && h["records"] != case["records"] {
        return Err(format!("{} records, not {}", h["records"], case["records"]));
    }
    let warnings = h["warnings"].as_array().unwrap();
    let want_warnings = case["warnings"].as_array().map_or(&[][..], |w| &w[..]);
    if warnings.len() != want_warnings.len()
        || !warnings
            .iter()
            .zip(want_warnings)
            .all(|(w, s)| w["message"].as_str().unwrap().contains(s.as_str().unwrap()))
    {
        return Err(format!("warnings {warnings:?}, not {want_warnings:?}"));
    }
    let got_codes = codes(&h);
    for want in case["events"].as_array().map_or(&[][..], |e| &e[..]) {
        let want = want.as_str().unwrap();
        if !got_codes
            .iter()
            .any(|c| c.ends_with(&format!(":\"{want}\"")))
        {
            return Err(format!("no {want} event"));
        }
    }
    let texts: Vec<&str> = h["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["events"].as_array().unwrap())
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    for want in case["textHas"].as_array().map_or(&[][..], |e| &e[..]) {
        if !texts.iter().any(|t| t.contains(want.as_str().unwrap())) {
            return Err(format!("no event saying {want}"));
        }
    }
    for unwanted in case["textLacks"].as_array().map_or(&[][..], |e| &e[..]) {
        if let Some(t) = texts
            .iter()
            .find(|t| t.contains(unwanted.as_str().unwrap()))
        {
            return Err(format!("an event says {t:?}"));
        }
    }
    if let Some(other) = case["sameAs"].as_str() {
        let them = told(other).map_err(|e| format!("{other}: {e}"))?;
        if got_codes != codes(&them) {
            return Err(format!("events differ from {other}'s"));
        }
        if case["sameTimes"] == true {
            let times = |h: &Value| -> Vec<Value> {
                h["groups"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|g| g["events"].as_array().unwrap())
                    .map(|e| e["timestampMs"].clone())
                    .collect()
            };
            if times(&h) != times(&them) {
                return Err(format!("event times differ from {other}'s"));
            }
        }
    }
    Ok(())
}

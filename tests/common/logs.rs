//! Logs written from scenario runs, shared by the history tests of the core
//! (`tests/history.rs`) and of the `sgc` command (`crates/sgc-cli/tests/history.rs`): a
//! scenario's outputs as the text `kafka-dump-log.sh --offsets-decoder` prints and as a raw log
//! segment. A `TxnOffsetCommit`'s records are a transactional batch of their producer and a
//! `TransactionCompleted` is its end marker (a control batch), as the host appends them.

use std::fs;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use streams_group_coordinator::{Coordinator, Dialect};

pub struct Run {
    pub name: String,
    pub dialect: Dialect,
    pub inputs: Vec<Value>,
    pub outputs: Vec<Value>,
}

/// Runs a scenario's inputs with `recordBytes` on (sizes and the raw segment need the bytes).
pub fn run(path: &Path) -> Option<Run> {
    let scenario: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let inputs: Vec<Value> = scenario["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["input"].clone())
        .collect();
    // Records that arrive by Replay are not written by this coordinator: not its log.
    if inputs.iter().any(|i| i["type"] == "Replay") {
        return None;
    }
    let mut config = scenario["config"].clone();
    if !config.is_object() {
        config = json!({});
    }
    config["recordBytes"] = json!(true);
    let mut c = Coordinator::from_json_config(&config).ok()?;
    let dialect = Dialect::from_name(config["dialect"].as_str().unwrap_or("kip1071-draft"))?;
    let outputs = inputs
        .iter()
        .map(|i| serde_json::from_str(&c.handle_json(&i.to_string())).unwrap())
        .collect();
    Some(Run {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        dialect,
        inputs,
        outputs,
    })
}

pub fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// The text `kafka-dump-log.sh --offsets-decoder --files 00000000000000000000.log` prints.
pub fn dump_log(run: &Run) -> String {
    let mut s = String::from(
        "Dumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000000.log\nLog starting offset: 0\n",
    );
    let mut offset = 0i64;
    let mut position = 0usize;
    for (input, out) in run.inputs.iter().zip(&run.outputs) {
        let t = input["nowMs"].as_i64().unwrap();
        if let Some((id, epoch, result)) = end_marker(input) {
            s += &format!(
                "baseOffset: {offset} lastOffset: {offset} count: 1 baseSequence: -1 lastSequence: -1 producerId: {id} producerEpoch: {epoch} partitionLeaderEpoch: 3 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: {position} CreateTime: {t} size: 78 magic: 2 compresscodec: none crc: 2874526517 isvalid: true\n\
                 | offset: {offset} CreateTime: {t} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: {result} coordinatorEpoch: 0\n"
            );
            position += 78;
            offset += 1;
            continue;
        }
        let Some(records) = out["records"].as_array().filter(|r| !r.is_empty()) else {
            continue;
        };
        let size: usize = 61 + records.len() * 24;
        let (id, epoch) = producer(records).unwrap_or((-1, -1));
        s += &format!(
            "baseOffset: {offset} lastOffset: {} count: {} baseSequence: -1 lastSequence: -1 producerId: {id} producerEpoch: {epoch} partitionLeaderEpoch: 3 isTransactional: {} isControl: false deleteHorizonMs: OptionalLong.empty position: {position} CreateTime: {t} size: {size} magic: 2 compresscodec: none crc: 2874526517 isvalid: true\n",
            offset + records.len() as i64 - 1,
            records.len(),
            id >= 0
        );
        position += size;
        for (i, r) in records.iter().enumerate() {
            let key_size = STANDARD
                .decode(r["keyBytes"].as_str().unwrap())
                .unwrap()
                .len();
            let value_size = r["valueBytes"]
                .as_str()
                .map_or(-1, |v| STANDARD.decode(v).unwrap().len() as i64);
            let key = json!({"type": r["key"]["type"].to_string(), "data": r["key"]["data"]});
            let payload = match &r["value"] {
                Value::Null => "<DELETE>".to_string(),
                v => compact(&json!({"version": v["version"].to_string(), "data": v["data"]})),
            };
            s += &format!(
                "| offset: {offset} CreateTime: {t} keySize: {key_size} valueSize: {value_size} sequence: {i} headerKeys: [] key: {} payload: {payload}\n",
                compact(&key)
            );
            offset += 1;
        }
    }
    s
}

/// The producer (id, epoch) of an output's records: a `TxnOffsetCommit`'s are its producer's.
fn producer(records: &[Value]) -> Option<(i64, i64)> {
    let r = records.first()?;
    Some((r["producerId"].as_i64()?, r["producerEpoch"].as_i64()?))
}

/// A `TransactionCompleted` input's end marker: producer id, epoch and result.
fn end_marker(input: &Value) -> Option<(i64, i64, &str)> {
    if input["type"] != "TransactionCompleted" {
        return None;
    }
    Some((
        input["producerId"].as_i64()?,
        input["producerEpoch"].as_i64()?,
        input["result"].as_str()?,
    ))
}

fn varint(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            break;
        }
        out.push(b | 0x80);
    }
}

/// CRC-32C (Castagnoli), bit by bit: a v2 record batch's checksum, from its attributes on.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// The same records as a raw log segment (record batch format v2, uncompressed).
pub fn segment(run: &Run) -> Vec<u8> {
    let mut seg = Vec::new();
    let mut offset = 0i64;
    for (input, out) in run.inputs.iter().zip(&run.outputs) {
        let t = input["nowMs"].as_i64().unwrap();
        // A control batch: one record, key version 0 and type (1 COMMIT, 0 ABORT), value
        // version 0 and the coordinator epoch.
        let marker = end_marker(input).map(|(id, epoch, result)| {
            let kind = u8::from(result == "COMMIT");
            (id, epoch, vec![(vec![0, 0, 0, kind], Some(vec![0u8; 6]))])
        });
        let (producer, records) = match marker {
            Some((id, epoch, records)) => (Some((id, epoch, true)), records),
            None => {
                let Some(records) = out["records"].as_array().filter(|r| !r.is_empty()) else {
                    continue;
                };
                let bytes = records
                    .iter()
                    .map(|r| {
                        (
                            STANDARD.decode(r["keyBytes"].as_str().unwrap()).unwrap(),
                            r["valueBytes"]
                                .as_str()
                                .map(|v| STANDARD.decode(v).unwrap()),
                        )
                    })
                    .collect();
                (producer(records).map(|(id, e)| (id, e, false)), bytes)
            }
        };
        let mut body = Vec::new();
        for (i, (key, value)) in records.iter().enumerate() {
            let mut rec = vec![0u8];
            varint(&mut rec, 0);
            varint(&mut rec, i as i64);
            varint(&mut rec, key.len() as i64);
            rec.extend(key);
            match value {
                Some(v) => {
                    varint(&mut rec, v.len() as i64);
                    rec.extend(v);
                }
                None => varint(&mut rec, -1),
            }
            varint(&mut rec, 0);
            varint(&mut body, rec.len() as i64);
            body.extend(rec);
        }
        let mut batch = Vec::new();
        batch.extend(3i32.to_be_bytes()); // partition leader epoch
        batch.push(2); // magic
        let crc_at = batch.len();
        batch.extend(0u32.to_be_bytes()); // crc, set below
                                          // Attributes: no compression, CreateTime; transactional (bit 4), control (bit 5).
        let attributes: i16 = match producer {
            Some((_, _, true)) => 0x30,
            Some(_) => 0x10,
            None => 0,
        };
        batch.extend(attributes.to_be_bytes());
        batch.extend((records.len() as i32 - 1).to_be_bytes());
        batch.extend(t.to_be_bytes());
        batch.extend(t.to_be_bytes());
        batch.extend(producer.map_or(-1, |p| p.0).to_be_bytes());
        batch.extend((producer.map_or(-1, |p| p.1) as i16).to_be_bytes());
        batch.extend((-1i32).to_be_bytes());
        batch.extend((records.len() as i32).to_be_bytes());
        batch.extend(body);
        let crc = crc32c(&batch[crc_at + 4..]);
        batch[crc_at..crc_at + 4].copy_from_slice(&crc.to_be_bytes());
        seg.extend(offset.to_be_bytes());
        seg.extend((batch.len() as i32).to_be_bytes());
        seg.extend(batch);
        offset += records.len() as i64;
    }
    seg
}

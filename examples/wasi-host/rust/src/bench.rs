//! Per-heartbeat cost of a 1,000-member stable group (owned task lists, one standby): the
//! reactor under wasmtime through ABI version 2 and version 1, and the same coordinator linked
//! natively, on the same inputs (the figures bench.py and bench.mjs print for their hosts).

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use streams_group_coordinator::Coordinator;

use crate::plugin::{split_frame_output, Abi, Compiled, Plugin, Result, STATUS_OK};

const CONFIG: &str = r#"{"group.streams.num.standby.replicas": 1}"#;

struct Member {
    id: String,
    epoch: Value,
    active: Value,
    standby: Value,
}

/// Builds the stable group through `call`, returning every input sent and the steady
/// heartbeats to time.
fn build(
    members: usize,
    rounds: usize,
    mut call: impl FnMut(&str) -> Result<Value>,
) -> Result<(Vec<String>, Vec<String>)> {
    let mut sent = Vec::new();
    let mut send = |input: Value, sent: &mut Vec<String>| -> Result<Value> {
        let line = input.to_string();
        let out = call(&line)?;
        sent.push(line);
        Ok(out)
    };
    send(
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [
            {"name": "events", "partitions": 1000}, {"name": "accounts", "partitions": 500},
            {"name": "bench-store-changelog", "partitions": 500}]}),
        &mut sent,
    )?;
    send(
        json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "bench",
            "topologyId": "t", "topology": [
            {"subtopologyId": "0", "sourceTopics": ["events"]},
            {"subtopologyId": "1", "sourceTopics": ["accounts"],
             "stateChangelogTopics": [{"name": "bench-store-changelog"}]}]}}),
        &mut sent,
    )?;
    let mut now = 1i64;
    let mut group = Vec::new();
    for i in 0..members {
        let id = format!("m{i:05}");
        let out = send(
            json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
                "groupId": "bench", "memberId": id, "memberEpoch": 0, "topologyId": "t",
                "processId": format!("p{}", i / 10), "rebalanceTimeoutMs": 600000,
                "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}),
            &mut sent,
        )?;
        let r = &out["response"];
        group.push(Member {
            id,
            epoch: r["memberEpoch"].clone(),
            active: r["activeTasks"].clone(),
            standby: r["standbyTasks"].clone(),
        });
        now += 1;
    }
    let heartbeat = |m: &Member, now: i64| {
        json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "bench", "memberId": m.id, "memberEpoch": m.epoch,
            "activeTasks": m.active, "standbyTasks": m.standby, "warmupTasks": []}})
    };
    let mut stable = false;
    for _ in 0..20 {
        for m in &mut group {
            let out = send(heartbeat(m, now), &mut sent)?;
            let r = &out["response"];
            m.epoch = r["memberEpoch"].clone();
            if !r["activeTasks"].is_null() {
                m.active = r["activeTasks"].clone();
                m.standby = r["standbyTasks"].clone();
            }
            now += 5;
        }
        let g = send(
            json!({"nowMs": now, "type": "StreamsGroupDescribe",
                   "request": {"groupIds": ["bench"]}}),
            &mut sent,
        )?;
        if g["response"]["groups"][0]["groupState"] == "Stable" {
            stable = true;
            break;
        }
    }
    if !stable {
        return Err("the bench group did not become stable".into());
    }
    let mut steady = Vec::new();
    for _ in 0..rounds {
        for m in &group {
            steady.push(heartbeat(m, now).to_string());
            now += 5;
        }
    }
    Ok((sent, steady))
}

fn per_call(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

pub fn run(compiled: &Compiled, members: usize, rounds: usize) -> Result<()> {
    let mut plugin = Plugin::new(compiled)?;
    let h = plugin.create(Some(CONFIG))?;
    let t0 = Instant::now();
    let (sent, steady) = build(members, rounds, |line| {
        let (status, out) = plugin.handle(h, line.as_bytes())?;
        if status != STATUS_OK {
            return Err(String::from_utf8_lossy(out).into_owned());
        }
        serde_json::from_slice(out).map_err(|e| e.to_string())
    })?;
    println!(
        "built a stable {members}-member group in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let config: Value = serde_json::from_str(CONFIG).map_err(|e| e.to_string())?;
    let mut native = Coordinator::from_json_config(&config).map_err(|e| e.message.clone())?;
    // The native coordinator gets the same inputs; determinism says the same state.
    for line in &sent {
        native.handle_json(line);
    }
    // The first steady heartbeat answers the same bytes on both.
    let first = steady.first().ok_or("no heartbeats")?;
    let expected = native.handle_json(first);
    let (_, got) = plugin.handle(h, first.as_bytes())?;
    if got != expected.as_bytes() {
        return Err("the reactor's answer differs from the native one".into());
    }

    // Steady heartbeats change nothing, so each face sees the same state on every run. Runs
    // alternate to share machine noise; the best of ten counts.
    let mut best = [Duration::MAX; 3];
    let mut sink = 0usize;
    for _ in 0..10 {
        let t = Instant::now();
        for line in &steady {
            sink = sink.wrapping_add(native.handle_json(line).len());
        }
        best[0] = best[0].min(t.elapsed());
        for (slot, abi) in [(1, Abi::V2), (2, Abi::V1)] {
            plugin.abi = abi;
            let t = Instant::now();
            for line in &steady {
                let (status, out) = plugin.handle(h, line.as_bytes())?;
                if status != STATUS_OK {
                    return Err(String::from_utf8_lossy(out).into_owned());
                }
                sink = sink.wrapping_add(out.len());
            }
            best[slot] = best[slot].min(t.elapsed());
        }
    }
    let n = steady.len();
    let native_us = per_call(best[0], n);
    println!("{n} steady heartbeats per run, best of 10 (checksum {sink})");
    for (name, d) in [
        ("native (handle_json, same crate, release)", best[0]),
        ("wasmtime crate, ABI v2 (sgc_call2, 1 export call)", best[1]),
        ("wasmtime crate, ABI v1 (5 export calls)", best[2]),
    ] {
        let us = per_call(d, n);
        println!(
            "{name:<52} {us:>8.1} us/heartbeat  {:>5.2}x native",
            us / native_us
        );
    }
    Ok(())
}

/// The Rust face of `make bench-faces`: the workload `cargo run --release --example faces --
/// DIR` wrote, through ABI version 2. Replays `setup.jsonl` untimed, then times `steady.jsonl`
/// five times on this thread's CPU time (`/proc/thread-self/schedstat`, else the wall clock),
/// checking the first pass against `expect.jsonl`; prints `{"face", "us", "heartbeats"}`.
pub fn faces(compiled: &Compiled, dir: &std::path::Path) -> Result<()> {
    let read = |name: &str| -> Result<String> {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let config = read("config.json")?;
    let (setup, steady, expect) = (
        read("setup.jsonl")?,
        read("steady.jsonl")?,
        read("expect.jsonl")?,
    );
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    };
    let (setup, steady, expect) = (lines(&setup), lines(&steady), lines(&expect));
    let mut plugin = Plugin::new(compiled)?;
    plugin.abi = Abi::V2;
    let h = plugin.create(Some(config.trim()))?;
    for line in &setup {
        plugin.handle(h, line.as_bytes())?;
    }
    let cpu = || -> Option<Duration> {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        Some(Duration::from_nanos(
            text.split_whitespace().next()?.parse().ok()?,
        ))
    };
    let mut best = Duration::MAX;
    for pass in 0..5 {
        let (t, c) = (Instant::now(), cpu());
        for (i, line) in steady.iter().enumerate() {
            let (status, out) = plugin.handle(h, line.as_bytes())?;
            if pass == 0
                && (status != STATUS_OK || Some(out) != expect.get(i).map(String::as_bytes))
            {
                return Err(format!("output {i} differs from native"));
            }
        }
        let spent = match (c, cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => t.elapsed(),
        };
        best = best.min(spent);
    }
    println!(
        "{}",
        json!({"face": "wasmtime crate (Rust), sgc_call2", "us": per_call(best, steady.len()),
               "heartbeats": steady.len()})
    );

    // The same heartbeats as Kafka's request frames, one `sgc_call_frame` each (ABI version
    // 3), on a fresh coordinator after the same setup.
    let bytes = |name: &str| -> Result<Vec<u8>> {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let split = |b: &[u8]| -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut at = 0;
        while at + 4 <= b.len() {
            let size = i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize;
            out.push(b[at + 4..(at + 4 + size).min(b.len())].to_vec());
            at += 4 + size;
        }
        out
    };
    let frames = split(&bytes("steady.frames")?);
    let expect_frames = split(&bytes("expect.frames")?);
    let now: i64 = read("frames-now.txt")?
        .trim()
        .parse()
        .map_err(|e| format!("frames-now.txt: {e}"))?;
    let h = plugin.create(Some(config.trim()))?;
    for line in &setup {
        plugin.handle(h, line.as_bytes())?;
    }
    let mut best = Duration::MAX;
    for pass in 0..5 {
        let (t, c) = (Instant::now(), cpu());
        for (i, frame) in frames.iter().enumerate() {
            let (status, out) = plugin.handle_frame(h, frame, now, "")?;
            if pass == 0 {
                let (response, _) = split_frame_output(out)?;
                if status != STATUS_OK
                    || Some(&response[4..]) != expect_frames.get(i).map(Vec::as_slice)
                {
                    return Err(format!("response frame {i} differs from native"));
                }
            }
        }
        let spent = match (c, cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => t.elapsed(),
        };
        best = best.min(spent);
    }
    println!(
        "{}",
        json!({"face": "wasmtime crate (Rust), sgc_call_frame", "us": per_call(best, frames.len()),
               "heartbeats": frames.len()})
    );
    Ok(())
}

//! The steady heartbeat every face of `make bench-faces` times, and its native figure.
//!
//!   cargo run --release --example faces -- DIR [--members 1000] [--rounds 100]
//!
//! Writes the workload into DIR and times it natively through `Coordinator::handle_json`:
//!
//! - `config.json`: the settings (one standby replica);
//! - `setup.jsonl`: every input that builds a stable group of `--members` members (10 per
//!   process) on a 1,000-partition and a 500-partition stateful topic, as a client would send them;
//! - `steady.jsonl`: `--rounds` rounds of every member's steady heartbeat (its epoch and owned
//!   task lists), 5 ms apart, which change nothing;
//! - `expect.jsonl`: the native outputs of `steady.jsonl` after `setup.jsonl`;
//! - `steady.frames`, `frames-now.txt`, `expect.frames`: the same heartbeats as Kafka's request
//!   frames (size-prefixed), the time they are all handled at, and the native response frames.
//!
//! Every face (scripts/bench-faces.sh) replays `setup.jsonl` untimed, then times `steady.jsonl`
//! five times (a steady heartbeat leaves the state as it was) and reports the best pass per
//! heartbeat, as a JSON line `{"face", "us", "heartbeats"}`; it checks its first pass against
//! `expect.jsonl`. Where the host can tell, the time is the measuring thread's time on a CPU
//! (here `/proc/thread-self/schedstat`), so that other work on a busy machine counts less. That
//! clock moves in ticks of 4 ms here: 100 rounds make a native pass about 120 ms long, so that a
//! tick is a thirtieth of it (with 20 rounds it was a sixth).

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use streams_group_coordinator::{wire, Coordinator, Input};

struct Member {
    id: String,
    epoch: Value,
    active: Value,
    standby: Value,
}

fn heartbeat(m: &Member, now: i64) -> String {
    json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "bench", "memberId": m.id, "memberEpoch": m.epoch,
        "activeTasks": m.active, "standbyTasks": m.standby, "warmupTasks": []}})
    .to_string()
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(
        args.first()
            .ok_or("usage: faces DIR [--members N] [--rounds R]")?,
    );
    let option = |name: &str, default: usize| -> Result<usize, String> {
        match args.iter().position(|a| a == name) {
            None => Ok(default),
            Some(i) => args
                .get(i + 1)
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} takes a number")),
        }
    };
    let (members, rounds) = (option("--members", 1000)?, option("--rounds", 100)?);

    let config = json!({"group.streams.num.standby.replicas": 1});
    let mut c = Coordinator::from_json_config(&config).map_err(|e| e.message)?;
    let mut setup = Vec::new();
    let mut send = |c: &mut Coordinator, line: String| -> Value {
        let out = c.handle_json(&line);
        setup.push(line);
        serde_json::from_str(&out).unwrap_or(Value::Null)
    };
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [
            {"name": "events", "partitions": 1000}, {"name": "accounts", "partitions": 500},
            {"name": "bench-store-changelog", "partitions": 500}]})
        .to_string(),
    );
    send(
        &mut c,
        json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "bench",
            "topologyId": "t", "topology": [
            {"subtopologyId": "0", "sourceTopics": ["events"]},
            {"subtopologyId": "1", "sourceTopics": ["accounts"],
             "stateChangelogTopics": [{"name": "bench-store-changelog"}]}]}})
        .to_string(),
    );
    let mut now = 1i64;
    let mut group = Vec::new();
    for i in 0..members {
        let id = format!("m{i:05}");
        let out = send(
            &mut c,
            json!({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
                "groupId": "bench", "memberId": id, "memberEpoch": 0, "topologyId": "t",
                "processId": format!("p{}", i / 10), "rebalanceTimeoutMs": 600000,
                "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
            .to_string(),
        );
        let r = &out["response"];
        group.push(Member {
            id,
            epoch: r["memberEpoch"].clone(),
            active: r["activeTasks"].clone(),
            standby: r["standbyTasks"].clone(),
        });
        now += 1;
    }
    let mut stable = false;
    for _ in 0..20 {
        for m in &mut group {
            let out = send(&mut c, heartbeat(m, now));
            let r = &out["response"];
            m.epoch = r["memberEpoch"].clone();
            if !r["activeTasks"].is_null() {
                m.active = r["activeTasks"].clone();
                m.standby = r["standbyTasks"].clone();
            }
            now += 5;
        }
        let describe = json!({"nowMs": now, "type": "StreamsGroupDescribe",
                              "request": {"groupIds": ["bench"]}});
        let g = send(&mut c, describe.to_string());
        if g["response"]["groups"][0]["groupState"] == "Stable" {
            stable = true;
            break;
        }
    }
    if !stable {
        return Err("the bench group did not become stable".into());
    }
    let mut steady = Vec::new();
    let steady_from = now;
    for _ in 0..rounds {
        for m in &group {
            steady.push(heartbeat(m, now));
            now += 5;
        }
    }
    let expect: Vec<String> = steady.iter().map(|l| c.handle_json(l)).collect();
    for out in &expect {
        let v: Value = serde_json::from_str(out).unwrap_or(Value::Null);
        if v["response"]["errorCode"] != 0 || v["records"] != json!([]) {
            return Err(format!("not a steady heartbeat: {out}"));
        }
    }
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |name: &str, lines: &[String]| -> Result<(), String> {
        let path = dir.join(name);
        fs::write(&path, lines.join("\n") + "\n").map_err(|e| format!("{}: {e}", path.display()))
    };
    write("config.json", &[config.to_string()])?;
    write("setup.jsonl", &setup)?;
    write("steady.jsonl", &steady)?;
    write("expect.jsonl", &expect)?;

    // The native figure: the same coordinator, after the same inputs, as the faces time it.
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = Clock::start();
        for line in &steady {
            std::hint::black_box(c.handle_json(line));
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    let us = best * 1e6 / steady.len() as f64;
    println!(
        "{}",
        json!({"face": "native (Rust, handle_json)", "us": us, "heartbeats": steady.len()})
    );

    // The same heartbeats as Kafka's request frames (size-prefixed, `steady.frames`), all at
    // one time (`frames-now.txt`: frames carry no clock), and the native response frames of a
    // pass (`expect.frames`), which every wire face checks its first pass against. Each face
    // rebuilds its coordinator from the set-up alone, so the frames are answered by one rebuilt
    // the same way, at the time the steady heartbeats start: a time after their 100 rounds
    // would let every member's session expire first.
    let mut c = Coordinator::from_json_config(&config).map_err(|e| e.message)?;
    for line in &setup {
        c.handle_json(line);
    }
    let now = steady_from;
    let dialect = c.config().dialect;
    let mut frames = Vec::new();
    for (i, line) in steady.iter().enumerate() {
        let input = Input::parse(line).map_err(|e| e.message)?;
        let frame = wire::encode_request(dialect, &input.kind, 0, i as i32)
            .ok_or("a heartbeat without a frame")?;
        frames.push(frame);
    }
    let peer = wire::Peer::default();
    let mut expected = Vec::new();
    let mut best = f64::MAX;
    for pass in 0..5 {
        let t0 = Clock::start();
        // One response buffer, as a host keeps one per connection.
        let mut out = Vec::with_capacity(256);
        let mut scratch = wire::FrameScratch::default();
        for frame in &frames {
            let fields = wire::handle_frame_with(&mut c, &mut scratch, frame, now, &peer, &mut out)
                .map_err(|e| e.message)?;
            if pass == 0 {
                expected.push(out.clone());
            }
            let _ = std::hint::black_box(fields);
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    let prefixed = |list: &[Vec<u8>]| -> Vec<u8> {
        let mut b = Vec::new();
        for f in list {
            b.extend_from_slice(&(f.len() as i32).to_be_bytes());
            b.extend_from_slice(f);
        }
        b
    };
    let put = |name: &str, bytes: Vec<u8>| -> Result<(), String> {
        let path = dir.join(name);
        fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    };
    put("steady.frames", prefixed(&frames))?;
    put("expect.frames", prefixed(&expected))?;
    put("frames-now.txt", format!("{now}\n").into_bytes())?;
    let us = best * 1e6 / frames.len() as f64;
    println!(
        "{}",
        json!({"face": "native (Rust, wire frames)", "us": us, "heartbeats": frames.len()})
    );
    Ok(())
}

/// This thread's time on a CPU where Linux tells it, else the wall clock.
struct Clock {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Clock {
    fn cpu() -> Option<Duration> {
        let text = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        let ns = text.split_whitespace().next()?.parse().ok()?;
        Some(Duration::from_nanos(ns))
    }

    fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: Clock::cpu(),
        }
    }

    fn elapsed(&self) -> Duration {
        match (self.cpu, Clock::cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.wall.elapsed(),
        }
    }
}

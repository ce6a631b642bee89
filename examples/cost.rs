//! The cost of the worst input per limit (bounded cost): for each limit, the most expensive
//! input we can build against the default settings, its time and the peak of live heap memory.
//! `cargo run --release --example cost` prints the table the hardening note quotes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{json, Value};
use streams_group_coordinator::Coordinator;

/// Counts live heap bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded to the system allocator with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn send(c: &mut Coordinator, input: &Value) -> Value {
    serde_json::from_str(&c.handle_json(&input.to_string())).unwrap_or(Value::Null)
}

/// Runs `input` against a coordinator prepared by `setup`: time and peak heap above the start.
fn measure(
    name: &str,
    config: Value,
    setup: &[Value],
    input: Value,
    answer: impl Fn(&Value) -> String,
) {
    let mut c = Coordinator::from_json_config(&config).unwrap_or_else(|e| panic!("{e}"));
    for s in setup {
        send(&mut c, s);
    }
    let text = input.to_string();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let start = Instant::now();
    let out = c.handle_json(&text);
    let elapsed = start.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    let out: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    println!(
        "| {name} | {} | {:.2} ms | {:.1} MB |",
        answer(&out),
        elapsed.as_secs_f64() * 1e3,
        peak as f64 / 1e6
    );
}

fn k42() -> Value {
    json!({"dialect": "kafka-4.2", "group.streams.initial.rebalance.delay.ms": 0})
}

fn topics(list: Value) -> Value {
    json!({"nowMs": 0, "type": "TopicMetadata", "topics": list})
}

fn join42(topology: Value) -> Value {
    json!({"nowMs": 1000, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": "m1", "memberEpoch": 0, "endpointInformationEpoch": -1,
        "processId": "p1", "rebalanceTimeoutMs": 60000, "topology": topology,
        "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
}

fn error_or_status(out: &Value) -> String {
    let r = &out["response"];
    if let Some(e) = out.get("error") {
        return format!("boundary error {}", e["code"]);
    }
    match r["errorCode"].as_i64() {
        Some(0) => match r["status"].get(0) {
            Some(s) => format!("status {}", s["statusCode"]),
            None => format!(
                "assigned {} records",
                out["records"].as_array().map_or(0, Vec::len)
            ),
        },
        Some(code) => format!("error {code}"),
        None => "?".into(),
    }
}

fn main() {
    let only = std::env::args().nth(1);
    let run = |i: usize| only.as_deref().is_none_or(|o| o == i.to_string());
    println!("| worst input (default limits) | answer | time | peak heap |");
    println!("|---|---|---:|---:|");
    let one =
        json!({"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]});
    if run(1) {
        measure(
            "4.2 join, host reports 2^31-1 partitions",
            k42(),
            &[topics(json!([{"name": "in", "partitions": i32::MAX}]))],
            join42(one.clone()),
            error_or_status,
        );
    }
    if run(2) {
        measure(
            "4.2 join, 32,768 partitions (the per-subtopology limit)",
            k42(),
            &[topics(json!([{"name": "in", "partitions": 32_768}]))],
            join42(one.clone()),
            error_or_status,
        );
    }
    let two: Vec<Value> = (0..2)
        .map(|i| json!({"name": format!("in{i}"), "partitions": 25_000}))
        .collect();
    let two_subs: Vec<Value> = (0..2)
        .map(|i| json!({"subtopologyId": i.to_string(), "sourceTopics": [format!("in{i}")]}))
        .collect();
    if run(9) {
        measure(
            "4.2 join, 2 x 25,000 partitions (the per-group limit)",
            k42(),
            &[topics(Value::Array(two))],
            join42(json!({"epoch": 0, "subtopologies": two_subs})),
            error_or_status,
        );
    }
    let four: Vec<Value> = (0..4)
        .map(|i| json!({"name": format!("in{i}"), "partitions": 32_768}))
        .collect();
    let four_subs: Vec<Value> = (0..4)
        .map(|i| json!({"subtopologyId": i.to_string(), "sourceTopics": [format!("in{i}")]}))
        .collect();
    if run(3) {
        measure(
            "4.2 join, 4 x 32,768 partitions (over the per-group limit)",
            k42(),
            &[topics(Value::Array(four))],
            join42(json!({"epoch": 0, "subtopologies": four_subs})),
            error_or_status,
        );
    }
    if run(4) {
        measure(
            "4.2 join declaring a repartition topic of 2^31-1 partitions",
            k42(),
            &[topics(json!([{"name": "in", "partitions": 4}]))],
            join42(json!({"epoch": 0, "subtopologies": [
                {"subtopologyId": "0", "sourceTopics": ["in"], "repartitionSinkTopics": ["r"]},
                {"subtopologyId": "1", "sourceTopics": ["r"],
                 "repartitionSourceTopics": [{"name": "r", "partitions": i32::MAX}]}]})),
            error_or_status,
        );
    }
    // Regexes: 10 hostile patterns (the most a topology may have, each near the compiled-size
    // limit) against 1,000 topics of 200 characters, first refresh and a later one.
    let hostile = "(?:a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z|0|1|2|3|4|5|6|7|8|9)*";
    let names: Vec<Value> = (0..1000)
        .map(|i| json!({"name": format!("{}{i:04}", "abcdefghij".repeat(19)), "partitions": 1}))
        .collect();
    let regexes: Vec<String> = (0..10)
        .map(|i| format!("{}{i}", hostile.repeat(3)))
        .collect();
    let init = |now: i64| {
        json!({"nowMs": now, "type": "StreamsGroupInitialize", "request": {"groupId": "g",
            "topologyId": "t", "topology": [{"subtopologyId": "0", "sourceTopicRegex": regexes}]}})
    };
    let join = json!({"nowMs": 0, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
        "rebalanceTimeoutMs": 60000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}});
    if run(5) {
        measure(
            "draft Initialize, 10 hostile regexes x 1,000 topics of 200 chars",
            json!({}),
            &[topics(Value::Array(names.clone())), join.clone()],
            init(10),
            error_or_status,
        );
    }
    // Within the budget: the same patterns against as many topics as it allows.
    let few: Vec<Value> = names.iter().take(15).cloned().collect();
    if run(6) {
        measure(
            "draft Initialize, 10 hostile regexes x 15 topics (within the match cost)",
            json!({}),
            &[topics(Value::Array(few.clone())), join.clone()],
            init(10),
            error_or_status,
        );
    }
    let one_more =
        topics(json!([{"name": format!("{}x", "abcdefghij".repeat(19)), "partitions": 1}]));
    let refresh = json!({"nowMs": 30, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": "m", "memberEpoch": 1}});
    if run(8) {
        measure(
            "then one topic more and the refresh it causes (matches remembered)",
            json!({}),
            &[topics(Value::Array(few)), join, init(10), one_more],
            refresh,
            error_or_status,
        );
    }
    let owned: Vec<i32> = (0..50_001).collect();
    if run(10) {
        measure(
            "heartbeat listing 50,001 owned tasks",
            json!({}),
            &[],
            json!({"nowMs": 0, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g",
                "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
                "rebalanceTimeoutMs": 60000, "activeTasks": [{"subtopologyId": "0", "partitions": owned}],
                "standbyTasks": [], "warmupTasks": []}}),
            error_or_status,
        );
    }
}

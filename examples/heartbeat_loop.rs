//! Steady heartbeats of a stable 1,000-member group in a loop, for profilers
//! (`perf record -g target/release/examples/heartbeat_loop`); prints the time per heartbeat.
//! `heartbeat_loop json` goes through `handle_json`; `heartbeat_loop owned` lists the member's
//! owned tasks (20 of them) in every heartbeat; `heartbeat_loop wire` answers request frames
//! (`wire::handle_frame_with`, one response buffer and one `FrameScratch` kept, as a host keeps
//! them).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use streams_group_coordinator::api::{ClientInfo, HeartbeatRequest, Input, InputKind, TaskIdsJson};
use streams_group_coordinator::{wire, Config, Coordinator};

#[path = "../tests/common/harness.rs"]
mod harness;

/// Counts allocations: a figure the shared machine's load does not disturb.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded to the system allocator with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "typed".into());
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let (mut c, members, now): (Coordinator, _, _) =
        harness::stable_group(Config::default(), 1000, 10_000);
    let owned = |c: &Coordinator, id: &str| -> Vec<TaskIdsJson> {
        c.group("g")
            .and_then(|g| g.members.get(id))
            .map(|m| {
                m.assigned
                    .to_task_ids()
                    .0
                    .iter()
                    .map(TaskIdsJson::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let lists: Vec<Vec<TaskIdsJson>> = members.iter().map(|(id, _)| owned(&c, id)).collect();
    let dialect = c.config().dialect;
    let frames = harness::steady_heartbeat_frames(dialect, &members);
    let peer = wire::Peer::default();
    let mut response = Vec::with_capacity(1024);
    let mut scratch = wire::FrameScratch::default();
    eprintln!("ready");
    let (allocs0, bytes0) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let start = Instant::now();
    let mut n = 0u64;
    let mut written = 0usize;
    let epoch = c.group("g").map_or(0, |g| g.group_epoch);
    for _ in 0..rounds {
        for (((id, epoch), list), frame) in members.iter().zip(&lists).zip(&frames) {
            if mode == "wire" {
                if let Ok(out) = std::hint::black_box(wire::handle_frame_with(
                    &mut c,
                    &mut scratch,
                    frame,
                    now,
                    &peer,
                    &mut response,
                )) {
                    written += out.records.len();
                }
            } else if mode == "json" {
                let text = format!(
                    r#"{{"nowMs": {now}, "type": "StreamsGroupHeartbeat", "request": {{"groupId": "g", "memberId": "{id}", "memberEpoch": {epoch}}}}}"#
                );
                std::hint::black_box(c.handle_json(&text));
            } else {
                let mut request = HeartbeatRequest {
                    group_id: "g".into(),
                    member_id: id.clone(),
                    member_epoch: *epoch,
                    rebalance_timeout_ms: -1,
                    ..Default::default()
                };
                if mode == "owned" {
                    request.active_tasks = Some(list.clone());
                    request.standby_tasks = Some(Vec::new());
                    request.warmup_tasks = Some(Vec::new());
                }
                let input = Input {
                    now_ms: now,
                    kind: InputKind::StreamsGroupHeartbeat {
                        client: ClientInfo::default(),
                        request: Box::new(request),
                    },
                };
                if let Ok(out) = std::hint::black_box(c.handle(input)) {
                    written += out.records.len();
                }
            }
            n += 1;
        }
    }
    let per = start.elapsed().as_secs_f64() * 1e6 / n as f64;
    let allocs = (ALLOCATIONS.load(Ordering::Relaxed) - allocs0) as f64 / n as f64;
    let bytes = (BYTES.load(Ordering::Relaxed) - bytes0) as f64 / n as f64;
    let after = c.group("g").map_or(0, |g| g.group_epoch);
    println!(
        "{mode}: {n} heartbeats, {per:.2} us each, {allocs:.1} allocations ({bytes:.0} bytes) each; \
         {written} records written, group epoch {epoch} -> {after}"
    );
}

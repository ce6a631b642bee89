//! Replays the log of a stable 10,000-member group (both dialects, bytes form, as `Replay`
//! inputs of 1,000 records) into fresh coordinators, for profilers
//! (`valgrind --tool=callgrind target/release/examples/replay_loop 1`): prints the time,
//! allocations and records per second of each pass, and the live heap of the rebuilt group in
//! bytes per member. `replay_loop N` runs N passes per dialect (default 5); `replay_loop N
//! kafka-4.2` only that dialect's; `replay_loop N all raw` hands the records' bytes to
//! `Coordinator::replay_bytes` in lists of 1,000 instead (no base64, no JSON).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::json;
use streams_group_coordinator::records::Dialect;
use streams_group_coordinator::Coordinator;

#[path = "../tests/common/replay_log.rs"]
mod replay_log;
use replay_log::{group_records, raw_records, replay_inputs, settle_allocator, CHUNK, MEMBERS};

/// Counts allocations and live bytes: figures the shared machine's load does not disturb.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded to the system allocator with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let passes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let only = std::env::args().nth(2).filter(|d| d != "all");
    let raw = std::env::args().nth(3).is_some_and(|a| a == "raw");
    for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
        if only.as_deref().is_some_and(|d| d != dialect.name()) {
            continue;
        }
        let records = group_records(dialect);
        let (inputs, bytes) = replay_inputs(dialect, &records);
        let owned = raw_records(dialect, &records);
        let borrowed: Vec<(&[u8], Option<&[u8]>)> = owned
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_deref()))
            .collect();
        for pass in 0..passes {
            let config = json!({"dialect": dialect.name()});
            let mut c = Coordinator::from_json_config(&config).expect("config");
            settle_allocator();
            let live_before = LIVE.load(Ordering::Relaxed);
            let allocations = ALLOCATIONS.load(Ordering::Relaxed);
            let start = Instant::now();
            if raw {
                for chunk in borrowed.chunks(CHUNK) {
                    let out = c.replay_bytes(chunk, 1000).expect("the log replays");
                    std::hint::black_box(&out);
                }
            } else {
                for input in &inputs {
                    let out = c.handle_json(input);
                    assert!(!out.starts_with("{\"error\""), "{out}");
                }
            }
            let secs = start.elapsed().as_secs_f64();
            let allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations;
            let live = LIVE.load(Ordering::Relaxed) - live_before;
            assert_eq!(
                c.group("streams-app").map(|g| g.members.len()),
                Some(MEMBERS)
            );
            println!(
                "{} pass {pass}: {} records ({bytes} bytes) in {:.1} ms: {:.0} records/s, {:.1} MB/s, {:.2} allocations a record; rebuilt state {} bytes a member",
                dialect.name(),
                records.len(),
                secs * 1e3,
                records.len() as f64 / secs,
                bytes as f64 / secs / 1e6,
                allocations as f64 / records.len() as f64,
                live / MEMBERS as isize,
            );
        }
    }
}

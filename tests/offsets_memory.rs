//! What a committed offset costs in memory: a counting allocator measures the coordinator's
//! growth while it replays offset commit records (empty metadata), per committed partition, for
//! one topic of many partitions and many topics of few. One test in this binary, so that no
//! other test allocates while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use streams_group_coordinator::records::{OffsetCommitValue, Record, RecordKey, RecordValue};
use streams_group_coordinator::{Config, Coordinator, Dialect};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CURRENT.fetch_add(layout.size(), Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most a committed offset with empty metadata may cost: 48 bytes with its partition and
/// its link in Kafka's order (offset, leader epoch, no metadata, both timestamps; the topic id
/// is kept once per topic), a 4-byte slot head at 0.75 to 1.5 slots per key, the arena's spare
/// room (it grows by an eighth) and each topic's share of its name and table.
const MAX_BYTES_PER_OFFSET: f64 = 64.0;

#[test]
fn a_committed_offset_costs_a_bounded_number_of_bytes() {
    let config = Config {
        dialect: Dialect::Kafka42,
        offsets_max_partitions_per_group: 1 << 24,
        ..Config::default()
    };
    for (topics, partitions) in [(1, 1000), (100, 100), (10, 10_000)] {
        let records: Vec<Record> = (0..topics)
            .flat_map(|t| {
                (0..partitions).map(move |p| {
                    Record::new(
                        RecordKey::OffsetCommit {
                            group_id: "g".into(),
                            topic: format!("topic-{t}").into(),
                            partition: p,
                        },
                        RecordValue::OffsetCommit(OffsetCommitValue {
                            offset: 42,
                            commit_timestamp: 1_000,
                            ..Default::default()
                        }),
                    )
                })
            })
            .collect();
        let mut c = Coordinator::new(config.clone()).unwrap();
        let before = CURRENT.load(Ordering::SeqCst);
        let out = c.replay(&records, 0).unwrap();
        drop(out);
        let grown = CURRENT.load(Ordering::SeqCst) - before;
        let per = grown as f64 / (topics * partitions as usize) as f64;
        println!("{topics} topics x {partitions} partitions: {per:.1} bytes per committed offset");
        assert!(
            per <= MAX_BYTES_PER_OFFSET,
            "{topics} x {partitions}: {per:.1} bytes per offset"
        );
        assert_eq!(
            c.offsets().group("g").map(|g| g.len()),
            Some(topics * partitions as usize)
        );
    }
}

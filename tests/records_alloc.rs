//! Decoding never allocates more than its input justifies: a counting allocator measures the
//! peak memory of decoding adversarial and random inputs. One test in this binary, so that no
//! other test allocates while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use streams_group_coordinator::records::{decode_key, decode_value, Dialect, RecordType};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(now, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes allocated while `f` runs, above what was allocated before.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - base
}

const TYPES: [RecordType; 7] = [
    RecordType::GroupMetadata,
    RecordType::PartitionMetadata,
    RecordType::MemberMetadata,
    RecordType::TargetAssignmentMetadata,
    RecordType::TargetAssignmentMember,
    RecordType::CurrentMemberAssignment,
    RecordType::Topology,
];

/// Linear in the input: each element a length prefix admits takes at least one input byte, and
/// no model struct is 64 times bigger than its smallest encoding, nested lists included.
fn budget(input: usize) -> usize {
    64 * input + 1024
}

#[test]
fn decoding_allocates_in_proportion_to_the_input() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    // Huge counts and lengths at every position of a short value, for every type.
    let huge: [&[u8]; 4] = [
        &[0xff, 0xff, 0xff, 0xff, 0x07],
        &[0xff, 0xff, 0xff, 0xff, 0x0f],
        &[0x80, 0x80, 0x80, 0x80, 0x08],
        &[0xff, 0xff, 0x01],
    ];
    for prefix_len in 0..24 {
        for h in huge {
            let mut v = vec![0u8, 0];
            v.extend(std::iter::repeat_n(0x02, prefix_len));
            v.extend(h);
            v.extend([0x02; 16]);
            inputs.push(v);
        }
    }
    // Many small elements: the worst ratio of model size to input size.
    for count in [1u8, 2, 50, 100, 127] {
        let mut v = vec![0u8, 0, 0x02, 0x74, count + 1];
        v.extend(std::iter::repeat_n(0x01, 8 * usize::from(count)));
        inputs.push(v);
        let mut v = vec![0u8, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, count + 1];
        v.extend(std::iter::repeat_n(0x01, 3 * usize::from(count)));
        inputs.push(v);
    }
    // Random bytes, with and without a valid version.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3000 {
        let len = (next() % 96) as usize;
        let mut v: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if next() % 2 == 0 && v.len() >= 2 {
            v[0] = 0;
            v[1] = 0;
        }
        inputs.push(v);
    }

    let mut worst = 0.0f64;
    for input in &inputs {
        for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
            let peak = peak_of(|| {
                let _ = decode_key(dialect, input);
            });
            assert!(
                peak <= budget(input.len()),
                "key {input:02x?}: {peak} bytes"
            );
            for t in TYPES {
                let peak = peak_of(|| {
                    let _ = decode_value(dialect, t, input);
                });
                assert!(
                    peak <= budget(input.len()),
                    "{dialect:?} {t:?} {input:02x?}: {peak} bytes"
                );
                if input.len() >= 32 {
                    worst = worst.max(peak as f64 / input.len() as f64);
                }
            }
        }
    }
    println!("worst ratio of peak allocation to input length (inputs of 32+ bytes): {worst:.1}");
}

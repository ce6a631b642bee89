//! Reading a frame never allocates more than the frame justifies: a counting allocator measures
//! the peak memory of decoding hostile and random request frames, which must stay within a
//! constant times the frame's length (the largest generated struct over its smallest encoding)
//! plus a constant. One test in this binary, so that no other test allocates while it measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use streams_group_coordinator::wire::{decode_request, request_json};
use streams_group_coordinator::Dialect;

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

/// Bytes a decoded frame may take per byte of frame, and beyond.
const PER_BYTE: usize = 256;
const BASE: usize = 64 << 10;

fn peak_of(f: impl FnOnce()) -> usize {
    let start = CURRENT.load(Ordering::SeqCst);
    PEAK.store(start, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - start
}

fn header(key: i16) -> Vec<u8> {
    let mut f = key.to_be_bytes().to_vec();
    f.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0, 0, 0]);
    f
}

/// A heartbeat whose topology claims `count` subtopologies, each with arrays claiming as many
/// elements as the bytes left allow.
fn claiming(count: u32, tail: usize) -> Vec<u8> {
    let mut f = header(88);
    f.extend_from_slice(&[
        2, b'g', 2, b'm', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
    ]);
    f.push(1); // Topology present
    f.extend_from_slice(&[0, 0, 0, 0]); // epoch
    let mut n = count + 1;
    while n >= 0x80 {
        f.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    f.push(n as u8);
    // Each subtopology: an id, then source topics claiming 0x7f strings.
    for _ in 0..tail {
        f.extend_from_slice(&[2, b'0', 0x7f]);
    }
    f
}

#[test]
fn decoding_frames_stays_within_what_they_justify() {
    let mut frames: Vec<Vec<u8>> = vec![
        claiming(u32::MAX - 2, 0),
        claiming(1 << 20, 4096),
        claiming(64, 64),
        claiming(1000, 10_000),
    ];
    // Random frames of every served key, from a fixed seed.
    let mut state = 0x2545_f491_u64;
    for len in [16usize, 64, 256, 4096, 65_536] {
        for key in [18i16, 42, 88, 89, 90] {
            let mut f = header(key);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                f.push(state as u8);
            }
            frames.push(f);
        }
    }
    let mut worst = 0.0f64;
    for frame in &frames {
        for dialect in [Dialect::Kafka42, Dialect::Kip1071Draft] {
            let peak = peak_of(|| {
                let _ = std::hint::black_box(decode_request(dialect, frame));
                let _ = std::hint::black_box(request_json(dialect, frame));
            });
            let bound = PER_BYTE * frame.len() + BASE;
            assert!(
                peak <= bound,
                "{} bytes decoded with {peak} bytes at the peak (bound {bound})",
                frame.len()
            );
            worst = worst.max(peak as f64 / frame.len() as f64);
        }
    }
    assert!(worst > 0.0);
}

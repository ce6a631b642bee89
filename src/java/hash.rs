//! Java's hash codes where Kafka's iteration orders depend on them.
//!
//! - `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over the UTF-16 code units, in
//!   wrapping 32-bit arithmetic ([`string_hash`]).
//! - `Integer.hashCode()`: the value itself ([`integer_hash`]).
//! - `Objects.hash(a, b, ..)` = `Arrays.hashCode`: `31 * h + hash(x)` from 1 ([`objects_hash`]).
//! - `java.util.HashMap` spreads a key's hash as `h ^ (h >>> 16)` before masking it with the
//!   table size ([`spread`], [`bucket`]).
//! - `HashMap(int)` sizes its table with `tableSizeFor` ([`table_size_for`]).

use std::cmp::Ordering;

/// Java's `String.hashCode()`.
#[must_use]
pub(crate) fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// Java's `Integer.hashCode()`.
#[must_use]
pub(crate) fn integer_hash(v: i32) -> i32 {
    v
}

/// Java's `Objects.hash(..)` over the elements' hash codes.
#[must_use]
pub(crate) fn objects_hash(hashes: &[i32]) -> i32 {
    hashes
        .iter()
        .fold(1i32, |h, &x| h.wrapping_mul(31).wrapping_add(x))
}

/// `HashMap.hash`: the key's hash with its high half folded into the low half.
#[must_use]
pub(crate) fn spread(h: i32) -> i32 {
    h ^ ((h as u32) >> 16) as i32
}

/// The bucket of a key of hash `h` in a table of `capacity` (a power of two) buckets.
#[must_use]
pub(crate) fn bucket(h: i32, capacity: usize) -> usize {
    (spread(h) as u32 as usize) & (capacity - 1)
}

/// The largest table `java.util.HashMap` allocates.
pub(crate) const MAXIMUM_CAPACITY: usize = 1 << 30;

/// `HashMap.tableSizeFor`: the smallest power of two at least `cap` (1 for 0 or less).
#[must_use]
pub(crate) fn table_size_for(cap: i64) -> usize {
    if cap <= 1 {
        return 1;
    }
    let cap = usize::try_from(cap).unwrap_or(MAXIMUM_CAPACITY);
    cap.checked_next_power_of_two()
        .unwrap_or(MAXIMUM_CAPACITY)
        .min(MAXIMUM_CAPACITY)
}

/// Java's `String.compareTo`: lexicographic over UTF-16 code units (which differs from Rust's
/// byte order for characters above U+FFFF against U+E000..U+FFFF).
#[must_use]
pub(crate) fn compare_strings(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn java_hashes() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("m1"), 3428);
        // "hello".hashCode() in Java.
        assert_eq!(string_hash("hello"), 99_162_322);
        // Wraps: "polygenelubricants".hashCode() == Integer.MIN_VALUE.
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
        // A supplementary character counts as two code units.
        assert_eq!(string_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
        assert_eq!(integer_hash(-7), -7);
        assert_eq!(objects_hash(&[]), 1);
        assert_eq!(objects_hash(&[string_hash("a"), 3]), (31 + 97) * 31 + 3);
        assert_eq!(spread(0x1234_5678), 0x1234_5678 ^ 0x1234);
        assert_eq!(spread(-1), -1 ^ 0xFFFF);
        assert_eq!(bucket(string_hash("m1"), 16), 4);
    }

    #[test]
    fn table_sizes_and_string_order() {
        assert_eq!(table_size_for(0), 1);
        assert_eq!(table_size_for(1), 1);
        assert_eq!(table_size_for(3), 4);
        assert_eq!(table_size_for(16), 16);
        assert_eq!(table_size_for(17), 32);
        assert_eq!(table_size_for(i64::from(i32::MAX)), MAXIMUM_CAPACITY);
        assert_eq!(compare_strings("a", "b"), Ordering::Less);
        assert_eq!(compare_strings("\u{FFFF}", "\u{10000}"), Ordering::Greater);
        assert_eq!("\u{FFFF}".cmp("\u{10000}"), Ordering::Less);
    }
}

//! Java's rules where Kafka's behaviour depends on them: string rules (here), hash codes
//! ([`hash`]), the iteration order of a `java.util.HashMap` ([`hash_map`]) and the heap order
//! of a `java.util.PriorityQueue` ([`priority_queue`]), and of Kafka's own `TimelineHashMap`
//! ([`timeline`]). Kafka's assignor emulation
//! (`assignor::kafka`) reproduces Java's tie-breaks with them.

// Each emulates its Java class whole (its tests pin it against Java), so parts of them have
// no caller outside the tests.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod hash;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod hash_map;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod priority_queue;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod timeline;

/// Java's `String.trim().isEmpty()` on a non-null string: blank means every character is at most
/// U+0020.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c <= '\u{20}')
}

/// Java's `String.length()`: the number of UTF-16 code units.
pub(crate) fn java_length(s: &str) -> i32 {
    i32::try_from(s.encode_utf16().count()).unwrap_or(i32::MAX)
}

pub(crate) use hash::string_hash;

/// `keys` in the order a `java.util.HashMap` (or `HashSet`) filled with them by `put`, in this
/// order, iterates them.
pub(crate) fn hash_map_keys<K>(keys: impl IntoIterator<Item = K>) -> Vec<K>
where
    K: hash_map::JavaHashCode + Eq + std::hash::Hash + Clone,
{
    let mut map = hash_map::JavaHashMap::new();
    for key in keys {
        map.put(key, ());
    }
    map.keys().cloned().collect()
}

/// `new HashSet<>(list)` of `keys`: each once, in the set's iteration order (its table
/// sized `max(n / .75 + 1, 16)` for a list of `n`).
pub(crate) fn hash_set_of_list<K>(keys: &[K]) -> Vec<K>
where
    K: hash_map::JavaHashCode + Eq + std::hash::Hash + Clone,
{
    let n = i32::try_from(keys.len()).unwrap_or(i32::MAX);
    let capacity = ((n as f32 / 0.75) as i32).saturating_add(1).max(16);
    let Some(mut set) = hash_map::JavaHashMap::with_capacity(capacity) else {
        return hash_map_keys(keys.iter().cloned());
    };
    for key in keys {
        set.put(key.clone(), ());
    }
    set.keys().cloned().collect()
}

/// `keys` in the order a Kafka `TimelineHashMap<String, _>` that grew to `size` entries
/// iterates them: by slot (the top bits of the key's hash times Knuth's 64-bit Fibonacci
/// constant, see [`timeline_grow`] for the slot count), then within a slot the reverse of
/// `keys`' order (`keys` in insertion order: Kafka's iterator pops each slot's array from its
/// end, the last added first).
pub(crate) fn timeline_keys<'a>(keys: &[&'a str], size: usize) -> Vec<&'a str> {
    let bits = timeline_grow(2, size).trailing_zeros();
    let mut out: Vec<&str> = keys.iter().rev().copied().collect();
    crate::ordered::sort_by(&mut out, |a, b| {
        timeline_slot(a, bits).cmp(&timeline_slot(b, bits))
    });
    out
}

/// The slot of `key` in a Kafka `TimelineHashMap` of `2^bits` slots.
pub(crate) fn timeline_slot(key: &str, bits: u32) -> u64 {
    let h = i64::from(string_hash(key)) as u64;
    h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits.clamp(1, 63))
}

/// A `TimelineHashMap`'s slot count after it grew to hold `size` entries from `slots`: it
/// doubles before an insertion that would leave it more than three quarters full.
pub(crate) fn timeline_grow(slots: usize, size: usize) -> usize {
    let mut slots = slots.max(2);
    while size * 3 > slots * 4 {
        slots *= 2;
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn blank_and_length_follow_java() {
        assert!(is_blank(" \t\n\u{1}"));
        assert!(!is_blank(" a "));
        assert!(!is_blank("\u{a0}"));
        assert_eq!(java_length("a\u{1F600}"), 3);
    }

    #[test]
    fn hash_map_order_follows_java() {
        assert_eq!(string_hash("hello"), 99_162_322);
        assert_eq!(string_hash(""), 0);
        // "10" hashes to 1567 (bucket 15 of 16), "11" to 1568 (bucket 0), "2" to 50 (bucket 2).
        assert_eq!(hash_map_keys(["10", "11", "2"]), vec!["11", "2", "10"]);
    }

    #[test]
    fn timeline_tables_grow_as_kafkas() {
        // Two entries fit in two slots; the third doubles the table, the sixth again.
        assert_eq!(timeline_grow(2, 2), 2);
        assert_eq!(timeline_grow(2, 3), 4);
        assert_eq!(timeline_grow(2, 5), 4);
        assert_eq!(timeline_grow(2, 6), 8);
        // The slot is the top bits of hash × 0x9e3779b97f4a7c15 (the hash sign-extended).
        let h = i64::from(string_hash("m1")) as u64;
        assert_eq!(
            timeline_slot("m1", 2),
            h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 62
        );
    }
}

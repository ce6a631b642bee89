//! Java's rules where Kafka's behaviour depends on them: string rules (here), hash codes
//! ([`hash`]), the iteration order of a `java.util.HashMap` ([`hash_map`]) and the heap order
//! of a `java.util.PriorityQueue` ([`priority_queue`]). Kafka's assignor emulation
//! (`assignor::kafka`) reproduces Java's tie-breaks with them.

// Each emulates its Java class whole (its tests pin it against Java), so parts of them have
// no caller outside the tests.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod hash;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod hash_map;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod priority_queue;

/// Java's `String.trim().isEmpty()` on a non-null string: blank means every character is at most
/// U+0020.
pub(crate) fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c <= '\u{20}')
}

/// Java's `String.length()`: the number of UTF-16 code units.
pub(crate) fn java_length(s: &str) -> i32 {
    i32::try_from(s.encode_utf16().count()).unwrap_or(i32::MAX)
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
}

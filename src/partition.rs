//! Which `__consumer_offsets` partition coordinates a group (PROTOCOL 5.8).

/// Java's `String.hashCode` over UTF-16 code units.
pub(crate) fn java_hash_code(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `Utils.abs(hashCode) % partitions`, with `abs(i32::MIN) == 0`; `partitions` must be >= 1.
pub fn partition_for(group_id: &str, partitions: i32) -> i32 {
    let h = java_hash_code(group_id);
    let abs = if h == i32::MIN { 0 } else { h.abs() };
    abs % partitions.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn protocol_table() {
        for (id, h, p) in [
            ("g", 103, 3),
            ("my-app", -1061206400, 0),
            ("wordcount", 893673541, 41),
            ("streams-app", 1643830855, 5),
            ("polygenelubricants", i32::MIN, 0),
        ] {
            assert_eq!(java_hash_code(id), h, "{id}");
            assert_eq!(partition_for(id, 50), p, "{id}");
        }
    }

    #[test]
    fn non_ascii_uses_utf16_code_units() {
        // 'é' is one code unit (0xE9); '😀' is a surrogate pair (0xD83D, 0xDE00).
        assert_eq!(java_hash_code("é"), 0xE9);
        assert_eq!(java_hash_code("😀"), 0xD83D * 31 + 0xDE00);
        assert_eq!(java_hash_code("grüße"), {
            let mut h: i32 = 0;
            for c in [0x67, 0x72, 0xFC, 0xDF, 0x65] {
                h = h.wrapping_mul(31).wrapping_add(c);
            }
            h
        });
        assert_eq!(partition_for("😀", 7), (0xD83D * 31 + 0xDE00) % 7);
    }
}

//! How Kafka Streams clients name their static members (PROTOCOL 6.7). The coordinator treats
//! instance ids as opaque strings; these helpers are for clients and test tools.

/// The KIP-345 proposal for Kafka Streams: `stream.instance.id + "-" + threadId + "-consumer"`,
/// and no static membership (`None`) when `stream.instance.id` is unset or blank.
pub fn kip345_instance_id(stream_instance_id: Option<&str>, thread_id: &str) -> Option<String> {
    let base = stream_instance_id.filter(|s| !s.trim().is_empty())?;
    Some(format!("{base}-{thread_id}-consumer"))
}

/// What Kafka Streams shipped: the configured `group.instance.id` plus `"-"` and the 1-based
/// stream-thread index (`my-app` -> `my-app-1`, `my-app-2`, ...); `None` without one.
pub fn streams_thread_instance_id(
    group_instance_id: Option<&str>,
    thread_index: u32,
) -> Option<String> {
    let base = group_instance_id.filter(|s| !s.trim().is_empty())?;
    Some(format!("{base}-{thread_index}"))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn kip_rule() {
        assert_eq!(
            kip345_instance_id(Some("pod-7"), "StreamThread-2").as_deref(),
            Some("pod-7-StreamThread-2-consumer")
        );
        assert_eq!(kip345_instance_id(None, "1"), None);
        assert_eq!(kip345_instance_id(Some("  "), "1"), None);
    }

    #[test]
    fn shipped_rule() {
        assert_eq!(
            streams_thread_instance_id(Some("my-app"), 1).as_deref(),
            Some("my-app-1")
        );
        assert_eq!(streams_thread_instance_id(None, 1), None);
    }
}

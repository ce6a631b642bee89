//! The server's figures as Prometheus text (`--metrics-listen`, `GET /metrics`): requests
//! and their latency per API, connections, and per partition its groups, members, states and
//! log size.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::shard::Stats;

/// Latency bucket bounds, in microseconds.
const BUCKETS_US: [u64; 8] = [100, 250, 500, 1_000, 2_000, 5_000, 10_000, 50_000];

/// The API keys counted one by one; others share the last slot.
const KEYS: usize = 100;

#[derive(Default)]
struct Api {
    count: AtomicU64,
    sum_us: AtomicU64,
    buckets: [AtomicU64; BUCKETS_US.len()],
}

/// Counters shared by every connection.
pub struct Metrics {
    apis: Vec<Api>,
    pub connections: AtomicU64,
    pub connections_total: AtomicU64,
    pub closed_bad_frames: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            apis: (0..KEYS).map(|_| Api::default()).collect(),
            connections: AtomicU64::new(0),
            connections_total: AtomicU64::new(0),
            closed_bad_frames: AtomicU64::new(0),
        }
    }
}

impl Metrics {
    /// Counts one answered request of `key` that took `us` microseconds.
    pub fn request(&self, key: i16, us: u64) {
        let i = usize::try_from(key).map_or(KEYS - 1, |k| k.min(KEYS - 1));
        let api = &self.apis[i];
        api.count.fetch_add(1, Relaxed);
        api.sum_us.fetch_add(us, Relaxed);
        for (b, bound) in api.buckets.iter().zip(BUCKETS_US) {
            if us <= bound {
                b.fetch_add(1, Relaxed);
            }
        }
    }

    /// The Prometheus text of the counters and the partitions' `stats`.
    pub fn render(&self, stats: &[Stats]) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# TYPE sgc_requests_total counter");
        let _ = writeln!(out, "# TYPE sgc_request_seconds histogram");
        for (key, api) in self.apis.iter().enumerate() {
            let count = api.count.load(Relaxed);
            if count == 0 {
                continue;
            }
            let _ = writeln!(out, "sgc_requests_total{{api_key=\"{key}\"}} {count}");
            for (b, bound) in api.buckets.iter().zip(BUCKETS_US) {
                let _ = writeln!(
                    out,
                    "sgc_request_seconds_bucket{{api_key=\"{key}\",le=\"{}\"}} {}",
                    bound as f64 / 1e6,
                    b.load(Relaxed)
                );
            }
            let _ = writeln!(
                out,
                "sgc_request_seconds_bucket{{api_key=\"{key}\",le=\"+Inf\"}} {count}"
            );
            let _ = writeln!(
                out,
                "sgc_request_seconds_sum{{api_key=\"{key}\"}} {}",
                api.sum_us.load(Relaxed) as f64 / 1e6
            );
            let _ = writeln!(
                out,
                "sgc_request_seconds_count{{api_key=\"{key}\"}} {count}"
            );
        }
        let _ = writeln!(
            out,
            "# TYPE sgc_connections gauge\nsgc_connections {}",
            self.connections.load(Relaxed)
        );
        let _ = writeln!(
            out,
            "# TYPE sgc_connections_total counter\nsgc_connections_total {}",
            self.connections_total.load(Relaxed)
        );
        let _ = writeln!(
            out,
            "# TYPE sgc_connections_closed_bad_frame_total counter\nsgc_connections_closed_bad_frame_total {}",
            self.closed_bad_frames.load(Relaxed)
        );
        let _ = writeln!(out, "# TYPE sgc_log_bytes gauge");
        let _ = writeln!(out, "# TYPE sgc_log_end_offset gauge");
        let _ = writeln!(out, "# TYPE sgc_partition_stopped gauge");
        let _ = writeln!(out, "# TYPE sgc_group_members gauge");
        for s in stats {
            let p = s.partition;
            let _ = writeln!(out, "sgc_log_bytes{{partition=\"{p}\"}} {}", s.log_bytes);
            let _ = writeln!(
                out,
                "sgc_log_end_offset{{partition=\"{p}\"}} {}",
                s.next_offset
            );
            let _ = writeln!(
                out,
                "sgc_partition_stopped{{partition=\"{p}\"}} {}",
                u8::from(s.stopped.is_some())
            );
            for (group, state, members) in &s.groups {
                let _ = writeln!(
                    out,
                    "sgc_group_members{{partition=\"{p}\",group=\"{}\",state=\"{state}\"}} {members}",
                    group.replace('\\', "\\\\").replace('"', "\\\"")
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_land_in_their_buckets() {
        let m = Metrics::default();
        m.request(88, 300);
        m.request(88, 3_000);
        let text = m.render(&[Stats {
            partition: 4,
            groups: vec![("g\"1".into(), "Stable".into(), 3)],
            log_bytes: 10,
            next_offset: 2,
            stopped: None,
        }]);
        assert!(
            text.contains("sgc_requests_total{api_key=\"88\"} 2"),
            "{text}"
        );
        assert!(text.contains("sgc_request_seconds_bucket{api_key=\"88\",le=\"0.0005\"} 1"));
        assert!(text.contains("sgc_request_seconds_bucket{api_key=\"88\",le=\"0.005\"} 2"));
        assert!(text.contains("group=\"g\\\"1\",state=\"Stable\"} 3"));
    }
}

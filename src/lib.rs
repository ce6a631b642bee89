//! A deterministic, sans-IO group coordinator for Kafka Streams groups (KIP-1071, the Streams
//! rebalance protocol) with static membership (KIP-345).
//!
//! Requests and time go in as inputs; responses and the records Kafka writes to
//! `__consumer_offsets` come out. The coordinator never reads a clock or a random source, so
//! the same inputs always give the same outputs, and state is rebuilt by replaying records.
//!
//! ```
//! use streams_group_coordinator::{Config, Coordinator};
//!
//! let mut coordinator = Coordinator::new(Config::default()).unwrap();
//! let out = coordinator.handle_json(r#"{"nowMs": 1000, "type": "StreamsGroupHeartbeat",
//!     "client": {"clientId": "app-1", "clientHost": "/127.0.0.1"},
//!     "request": {"groupId": "g", "memberId": "", "memberEpoch": 0, "topologyId": "t1",
//!                 "processId": "p1", "rebalanceTimeoutMs": 300000,
//!                 "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#);
//! let out: serde_json::Value = serde_json::from_str(&out).unwrap();
//! assert_eq!(out["response"]["memberEpoch"], 1);
//! assert_eq!(out["response"]["shouldInitializeTopology"], true);
//! assert_eq!(out["nextDeadlineMs"], 46000);
//! ```
//!
//! The `kafka-4.2` dialect speaks the protocol as Apache Kafka 4.2 released it: the topology
//! travels in the join, member ids are the client's, and the initial rebalance delay holds the
//! first assignment back (the member gets the placeholder epoch 1 and `ASSIGNMENT_DELAYED`):
//!
//! ```
//! use streams_group_coordinator::Coordinator;
//!
//! let mut coordinator =
//!     Coordinator::from_json_config(&serde_json::json!({"dialect": "kafka-4.2"})).unwrap();
//! coordinator.handle_json(r#"{"nowMs": 0, "type": "TopicMetadata",
//!     "topics": [{"name": "in", "partitions": 2}]}"#);
//! let out = coordinator.handle_json(r#"{"nowMs": 1000, "type": "StreamsGroupHeartbeat",
//!     "request": {"groupId": "g", "memberId": "m1", "memberEpoch": 0,
//!                 "endpointInformationEpoch": -1, "processId": "p1", "rebalanceTimeoutMs": 300000,
//!                 "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]},
//!                 "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}"#);
//! let out: serde_json::Value = serde_json::from_str(&out).unwrap();
//! assert_eq!(out["response"]["memberEpoch"], 1);
//! assert_eq!(out["response"]["status"][0]["statusCode"], 5);
//! assert_eq!(out["nextDeadlineMs"], 4000);
//! ```
// No `unsafe` on any target: the host surfaces (wasm-bindgen, the WASI ABI, the CLI) are crates
// of their own in `crates/`.
#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

// The public surface: the JSON contract, settings, records, topology ids, the assignor API,
// the group state a host may inspect, and post-mortems; everything else is private.
pub mod api;
pub mod assignor;
pub mod config;
pub mod group;
pub mod group_config;
pub mod history;
pub mod offsets;
pub mod records;
pub mod tasks;
pub mod timers;
pub mod topology;
pub mod wire;

mod coordinator;
mod descriptions;
mod error;
mod id_map;
mod java;
mod ordered;
mod partition;
mod reconcile;
mod topics;

pub use api::{Explain, Input, InputKind, Output, Response};
pub use config::Config;
pub use coordinator::{Coordinator, Snapshot, TopicImage};
pub use error::{BoundaryCode, BoundaryError, ErrorCode, ProtocolError};
pub use id_map::{IdMap, Iter as IdMapIter};
pub use partition::{kafka_batches, partition_for, GroupBatch};
pub use records::Dialect;
pub use topics::{duplicate_topic_names, in_java_hash_set_order};

/// The crate version.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

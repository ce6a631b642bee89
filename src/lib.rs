//! A deterministic, sans-IO group coordinator for Kafka Streams groups (KIP-1071).
#![forbid(unsafe_code)]

pub mod assignor;
pub mod error;
pub mod records;
pub mod tasks;
pub mod topology;

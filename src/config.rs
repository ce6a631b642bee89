//! Coordinator settings, named as Kafka names them (PROTOCOL 2.16).

use serde_json::{Map, Value};

use crate::error::{BoundaryCode, BoundaryError};
use crate::records::Dialect;

/// Which assignor computes targets (PROTOCOL 2.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AssignorKind {
    #[default]
    Sticky,
    Manual,
}

impl AssignorKind {
    pub fn name(self) -> &'static str {
        match self {
            AssignorKind::Sticky => "sticky",
            AssignorKind::Manual => "manual",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub dialect: Dialect,
    pub assignor: AssignorKind,
    pub session_timeout_ms: i32,
    pub heartbeat_interval_ms: i32,
    pub max_size: i32,
    pub num_standby_replicas: i32,
    pub acceptable_recovery_lag: i32,
    pub task_offset_interval_ms: i32,
    pub initial_rebalance_delay_ms: i32,
    pub offsets_retention_minutes: i32,
    pub offsets_topic_num_partitions: i32,
    pub record_bytes: bool,
    pub max_record_batch_bytes: i64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            dialect: Dialect::Kip1071Draft,
            assignor: AssignorKind::Sticky,
            session_timeout_ms: 45_000,
            heartbeat_interval_ms: 5_000,
            max_size: i32::MAX,
            num_standby_replicas: 0,
            acceptable_recovery_lag: 10_000,
            task_offset_interval_ms: 60_000,
            initial_rebalance_delay_ms: 3_000,
            offsets_retention_minutes: 10_080,
            offsets_topic_num_partitions: 50,
            record_bytes: false,
            max_record_batch_bytes: 1_048_576,
        }
    }
}

/// The settings a coordinator accepts; anything else is an `INVALID_CONFIG` boundary error.
pub const SETTINGS: &[&str] = &[
    "dialect",
    "assignor",
    "group.streams.session.timeout.ms",
    "group.streams.heartbeat.interval.ms",
    "group.streams.max.size",
    "group.streams.num.standby.replicas",
    "group.streams.acceptable.recovery.lag",
    "group.streams.task.offset.interval.ms",
    "group.streams.initial.rebalance.delay.ms",
    "offsets.retention.minutes",
    "offsets.topic.num.partitions",
    "recordBytes",
    "maxRecordBatchBytes",
];

impl Config {
    /// Parses a JSON settings object; `null` gives the defaults.
    pub fn from_json(value: &Value) -> Result<Config, BoundaryError> {
        let mut config = Config::default();
        let map = match value {
            Value::Null => return Ok(config),
            Value::Object(map) => map,
            _ => return Err(err("", "the configuration must be a JSON object")),
        };
        for key in map.keys() {
            if !SETTINGS.contains(&key.as_str()) {
                return Err(err(key, format!("unknown setting {key:?}")));
            }
        }
        if let Some(v) = map.get("dialect") {
            let name = v
                .as_str()
                .ok_or_else(|| err("dialect", "must be a string"))?;
            config.dialect = Dialect::from_name(name).ok_or_else(|| {
                err(
                    "dialect",
                    format!("unknown dialect {name:?}; use \"kip1071-draft\" or \"kafka-4.2\""),
                )
            })?;
        }
        if let Some(v) = map.get("assignor") {
            config.assignor = match v.as_str() {
                Some("sticky") => AssignorKind::Sticky,
                Some("manual") => AssignorKind::Manual,
                _ => return Err(err("assignor", "must be \"sticky\" or \"manual\"")),
            };
        }
        int(
            map,
            "group.streams.session.timeout.ms",
            1,
            i32::MAX,
            &mut config.session_timeout_ms,
        )?;
        int(
            map,
            "group.streams.heartbeat.interval.ms",
            1,
            i32::MAX,
            &mut config.heartbeat_interval_ms,
        )?;
        int(
            map,
            "group.streams.max.size",
            1,
            i32::MAX,
            &mut config.max_size,
        )?;
        int(
            map,
            "group.streams.num.standby.replicas",
            0,
            1000,
            &mut config.num_standby_replicas,
        )?;
        int(
            map,
            "group.streams.acceptable.recovery.lag",
            0,
            i32::MAX,
            &mut config.acceptable_recovery_lag,
        )?;
        int(
            map,
            "group.streams.task.offset.interval.ms",
            1,
            i32::MAX,
            &mut config.task_offset_interval_ms,
        )?;
        int(
            map,
            "group.streams.initial.rebalance.delay.ms",
            0,
            i32::MAX,
            &mut config.initial_rebalance_delay_ms,
        )?;
        int(
            map,
            "offsets.retention.minutes",
            1,
            i32::MAX,
            &mut config.offsets_retention_minutes,
        )?;
        int(
            map,
            "offsets.topic.num.partitions",
            1,
            i32::MAX,
            &mut config.offsets_topic_num_partitions,
        )?;
        if let Some(v) = map.get("recordBytes") {
            config.record_bytes = v
                .as_bool()
                .ok_or_else(|| err("recordBytes", "must be true or false"))?;
        }
        if let Some(v) = map.get("maxRecordBatchBytes") {
            config.max_record_batch_bytes = v
                .as_i64()
                .filter(|n| *n >= 1)
                .ok_or_else(|| err("maxRecordBatchBytes", "must be an integer of at least 1"))?;
        }
        Ok(config)
    }

    /// Retention period in milliseconds.
    pub fn retention_ms(&self) -> i64 {
        i64::from(self.offsets_retention_minutes) * 60_000
    }
}

fn err(path: &str, message: impl Into<String>) -> BoundaryError {
    BoundaryError::new(BoundaryCode::InvalidConfig, path, message)
}

fn int(
    map: &Map<String, Value>,
    key: &str,
    min: i32,
    max: i32,
    slot: &mut i32,
) -> Result<(), BoundaryError> {
    if let Some(v) = map.get(key) {
        *slot = v
            .as_i64()
            .filter(|n| *n >= i64::from(min) && *n <= i64::from(max))
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| err(key, format!("must be an integer from {min} to {max}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn defaults_are_kafkas() {
        let c = Config::from_json(&json!({})).unwrap();
        assert_eq!(c.session_timeout_ms, 45_000);
        assert_eq!(c.heartbeat_interval_ms, 5_000);
        assert_eq!(c.offsets_topic_num_partitions, 50);
        assert_eq!(c.retention_ms(), 10_080 * 60_000);
        assert_eq!(c.dialect, Dialect::Kip1071Draft);
    }

    #[test]
    fn unknown_and_out_of_range_settings_are_rejected() {
        let e = Config::from_json(&json!({"group.streams.sesion.timeout.ms": 1})).unwrap_err();
        assert_eq!(e.code, BoundaryCode::InvalidConfig);
        assert_eq!(e.path, "group.streams.sesion.timeout.ms");
        let e = Config::from_json(&json!({"group.streams.num.standby.replicas": -1})).unwrap_err();
        assert_eq!(e.path, "group.streams.num.standby.replicas");
        let e = Config::from_json(&json!({"dialect": "kafka-9"})).unwrap_err();
        assert_eq!(e.path, "dialect");
        assert!(Config::from_json(&json!([1])).is_err());
        let c = Config::from_json(
            &json!({"dialect": "kafka-4.2", "assignor": "manual", "recordBytes": true}),
        )
        .unwrap();
        assert_eq!(c.assignor, AssignorKind::Manual);
        assert!(c.record_bytes);
    }
}

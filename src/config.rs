//! Coordinator settings, named as Kafka names them (PROTOCOL 2.16).

use serde_json::Value;

use crate::error::{BoundaryCode, BoundaryError};
use crate::ordered::Ordered;
use crate::records::Dialect;
use crate::topology::Limits;

/// Which assignor computes targets (PROTOCOL 2.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AssignorKind {
    #[default]
    /// `sticky`: balanced, sticky, standby-aware (PROTOCOL 2.10).
    Sticky,
    /// `manual`: the host sets targets with `SetTargetAssignment`.
    Manual,
    /// `high-availability`: the project's balanced, standby-spreading assignor in any dialect
    /// (what `sticky` names in the draft; in a `kafka-*` dialect `sticky` is Kafka's own).
    HighAvailability,
}

impl AssignorKind {
    /// The setting's value (`sticky`, `manual`).
    pub fn name(self) -> &'static str {
        match self {
            AssignorKind::Sticky => "sticky",
            AssignorKind::Manual => "manual",
            AssignorKind::HighAvailability => "high-availability",
        }
    }
}

/// The coordinator's settings, with Kafka's names in [`Config::from_json`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// `dialect`: the protocol version spoken (PROTOCOL 1).
    pub dialect: Dialect,
    /// `assignor`: `sticky` or `manual`.
    pub assignor: AssignorKind,
    /// `group.streams.session.timeout.ms`.
    pub session_timeout_ms: i32,
    /// `group.streams.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: i32,
    /// `group.streams.max.size`.
    pub max_size: i32,
    /// `group.streams.num.standby.replicas`.
    pub num_standby_replicas: i32,
    /// `group.streams.acceptable.recovery.lag` (sent to members).
    pub acceptable_recovery_lag: i32,
    /// Warm-up tasks a group holds at once at most (KIP-441's `max.warmup.replicas`).
    pub num_warmup_replicas: i32,
    /// Client-tag keys over whose values standbys spread, beside the rack id (KIP-708's
    /// `rack.aware.assignment.tags`); at most [`MAX_RACK_AWARE_TAGS`], no duplicates.
    pub rack_aware_assignment_tags: Vec<String>,
    /// `group.streams.task.offset.interval.ms` (sent to members).
    pub task_offset_interval_ms: i32,
    /// `group.streams.initial.rebalance.delay.ms` (4.2 only, PROTOCOL 4.7).
    pub initial_rebalance_delay_ms: i32,
    /// Assignment batching (Kafka 4.3): after a target assignment is computed, the next one waits
    /// until this much time has passed; 0 computes at every group-epoch bump.
    pub assignment_interval_ms: i32,
    /// `offsets.retention.minutes`: how long a memberless group is kept.
    pub offsets_retention_minutes: i32,
    /// `offsets.topic.num.partitions`, for `partitionFor`.
    pub offsets_topic_num_partitions: i32,
    /// `offsets.retention.check.interval.ms`: how often a `kafka-*` coordinator's cleanup runs
    /// (from time 0), deleting the memberless groups, as Kafka's does.
    pub offsets_retention_check_interval_ms: i32,
    /// `offset.metadata.max.bytes` (Kafka's name and default, 4096): the longest committed
    /// metadata, in Java `String` length (UTF-16 units), as Kafka measures it.
    pub offset_metadata_max_bytes: i32,
    /// Bounded memory (the project's limit): the most committed partitions one group may hold.
    pub offsets_max_partitions_per_group: i32,
    /// Bounded cost: the most tasks one subtopology may have (its partition count, whether the
    /// host reports the topics or a client declares repartition topics).
    pub max_tasks_per_subtopology: i32,
    /// Bounded cost: the most tasks a group's topology may have in all, and so the most owned
    /// tasks and task offsets one heartbeat may list.
    pub max_tasks: i32,
    /// Bounded cost: the most `sourceTopicRegex` entries a topology may have.
    pub max_regex_patterns: i32,
    /// Bounded cost: the most bytes one compiled source-topic regex may take (regex-lite's size
    /// limit), which bounds the cost of matching it against a topic name.
    pub max_regex_compiled_bytes: i32,
    /// Bounded cost: the most a new topology's regexes may cost to match against the topic
    /// names (compiled bytes times name bytes).
    pub max_regex_match_cost: i64,
    /// `recordBytes`: whether output records also carry `keyBytes`/`valueBytes`.
    pub record_bytes: bool,
    /// The largest batch of records one input may write (`maxRecordBatchBytes`).
    pub max_record_batch_bytes: i64,
    /// `group.streams.topology.description.plugin.class` (Kafka 4.4, default null): whether
    /// topology descriptions are kept ([`IN_MEMORY_DESCRIPTION_PLUGIN`] keeps them as Kafka's
    /// built-in plugin does; null or another class: no plugin).
    pub topology_description_store: bool,
}

/// Kafka 4.4's built-in topology description plugin: one description per group, in memory.
pub const IN_MEMORY_DESCRIPTION_PLUGIN: &str =
    "org.apache.kafka.server.streams.InMemoryTopologyDescriptionPlugin";

const DESCRIPTION_PLUGIN: &str = "group.streams.topology.description.plugin.class";

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
            num_warmup_replicas: 2,
            rack_aware_assignment_tags: Vec::new(),
            task_offset_interval_ms: 60_000,
            initial_rebalance_delay_ms: 3_000,
            assignment_interval_ms: 0,
            offsets_retention_minutes: 10_080,
            offsets_topic_num_partitions: 50,
            offsets_retention_check_interval_ms: 600_000,
            offset_metadata_max_bytes: 4096,
            offsets_max_partitions_per_group: 100_000,
            max_tasks_per_subtopology: 32_768,
            max_tasks: 50_000,
            max_regex_patterns: 10,
            max_regex_compiled_bytes: 8 * 1024,
            max_regex_match_cost: 1 << 28,
            record_bytes: false,
            max_record_batch_bytes: 1_048_576,
            topology_description_store: false,
        }
    }
}

/// One integer setting: its Kafka-style name, its range and where it lives in [`Config`].
struct IntSetting {
    name: &'static str,
    min: i32,
    max: i32,
    slot: fn(&mut Config) -> &mut i32,
}

/// Every integer setting with its range: the one table that both [`Config::from_json`] and
/// [`Config::validate`] (every constructor) check against.
const INT_SETTINGS: &[IntSetting] = &[
    IntSetting {
        name: "group.streams.session.timeout.ms",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.session_timeout_ms,
    },
    IntSetting {
        name: "group.streams.heartbeat.interval.ms",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.heartbeat_interval_ms,
    },
    IntSetting {
        name: "group.streams.max.size",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.max_size,
    },
    IntSetting {
        name: "group.streams.num.standby.replicas",
        min: 0,
        max: 1000,
        slot: |c| &mut c.num_standby_replicas,
    },
    IntSetting {
        name: "group.streams.acceptable.recovery.lag",
        min: 0,
        max: i32::MAX,
        slot: |c| &mut c.acceptable_recovery_lag,
    },
    IntSetting {
        name: "group.streams.num.warmup.replicas",
        min: 0,
        max: 1_000_000,
        slot: |c| &mut c.num_warmup_replicas,
    },
    IntSetting {
        name: "group.streams.task.offset.interval.ms",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.task_offset_interval_ms,
    },
    IntSetting {
        name: "group.streams.initial.rebalance.delay.ms",
        min: 0,
        max: i32::MAX,
        slot: |c| &mut c.initial_rebalance_delay_ms,
    },
    IntSetting {
        name: "group.streams.assignment.interval.ms",
        min: 0,
        max: i32::MAX,
        slot: |c| &mut c.assignment_interval_ms,
    },
    IntSetting {
        name: "offsets.retention.minutes",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.offsets_retention_minutes,
    },
    IntSetting {
        name: "offsets.retention.check.interval.ms",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.offsets_retention_check_interval_ms,
    },
    IntSetting {
        name: "offsets.topic.num.partitions",
        min: 1,
        max: i32::MAX,
        slot: |c| &mut c.offsets_topic_num_partitions,
    },
    IntSetting {
        name: "offset.metadata.max.bytes",
        min: 0,
        max: i32::MAX,
        slot: |c| &mut c.offset_metadata_max_bytes,
    },
    IntSetting {
        name: "offsets.max.partitions.per.group",
        min: 1,
        max: 1 << 24,
        slot: |c| &mut c.offsets_max_partitions_per_group,
    },
    IntSetting {
        name: "group.streams.max.tasks.per.subtopology",
        min: 1,
        max: 1 << 24,
        slot: |c| &mut c.max_tasks_per_subtopology,
    },
    IntSetting {
        name: "group.streams.max.tasks",
        min: 1,
        max: 1 << 24,
        slot: |c| &mut c.max_tasks,
    },
    IntSetting {
        name: "group.streams.topology.max.regex.patterns",
        min: 0,
        max: 100_000,
        slot: |c| &mut c.max_regex_patterns,
    },
    IntSetting {
        name: "group.streams.topology.max.regex.compiled.bytes",
        min: 1,
        max: 1 << 20,
        slot: |c| &mut c.max_regex_compiled_bytes,
    },
];

/// The settings a coordinator accepts besides the integer ones; anything else is an
/// `INVALID_CONFIG` boundary error.
const OTHER_SETTINGS: &[&str] = &[
    "dialect",
    "assignor",
    "recordBytes",
    "maxRecordBatchBytes",
    "group.streams.topology.max.regex.match.cost",
    RACK_AWARE_TAGS,
    DESCRIPTION_PLUGIN,
];

const RACK_AWARE_TAGS: &str = "group.streams.rack.aware.assignment.tags";

/// Kafka Streams' limit on `rack.aware.assignment.tags` (and on client tags).
pub const MAX_RACK_AWARE_TAGS: usize = 5;

/// The range of an integer setting, by its name.
pub fn int_range(name: &str) -> Option<(i32, i32)> {
    INT_SETTINGS
        .iter()
        .find(|s| s.name == name)
        .map(|s| (s.min, s.max))
}

/// Every setting a coordinator accepts.
pub fn settings() -> impl Iterator<Item = &'static str> {
    OTHER_SETTINGS
        .iter()
        .copied()
        .chain(INT_SETTINGS.iter().map(|s| s.name))
}

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
            if !settings().any(|s| s == key) {
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
                    format!(
                        "unknown dialect {name:?}; use \"kip1071-draft\", \"kafka-4.2\", \"kafka-4.3\" \
                         or \"kafka-4.4\""
                    ),
                )
            })?;
            // Kafka 4.3 introduced the assignment interval with a default of one second.
            if matches!(config.dialect, Dialect::Kafka43 | Dialect::Kafka44) {
                config.assignment_interval_ms = 1000;
            }
        }
        if let Some(v) = map.get("assignor") {
            config.assignor = match v.as_str() {
                Some("sticky") => AssignorKind::Sticky,
                Some("high-availability") => AssignorKind::HighAvailability,
                Some("manual") => AssignorKind::Manual,
                _ => {
                    return Err(err(
                        "assignor",
                        "must be \"sticky\", \"high-availability\" or \"manual\"",
                    ))
                }
            };
        }
        for setting in INT_SETTINGS {
            if let Some(v) = map.get(setting.name) {
                *(setting.slot)(&mut config) = v
                    .as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .filter(|n| setting.contains(*n))
                    .ok_or_else(|| setting.out_of_range())?;
            }
        }
        if let Some(v) = map.get("recordBytes") {
            config.record_bytes = v
                .as_bool()
                .ok_or_else(|| err("recordBytes", "must be true or false"))?;
        }
        if let Some(v) = map.get("group.streams.topology.max.regex.match.cost") {
            config.max_regex_match_cost = v.as_i64().filter(|n| *n >= 0).ok_or_else(|| {
                err(
                    "group.streams.topology.max.regex.match.cost",
                    "must be an integer of at least 0",
                )
            })?;
        }
        if let Some(v) = map.get(DESCRIPTION_PLUGIN) {
            config.topology_description_store = match v {
                Value::Null => false,
                Value::String(class) => class == IN_MEMORY_DESCRIPTION_PLUGIN,
                _ => return Err(err(DESCRIPTION_PLUGIN, "must be a class name or null")),
            };
        }
        if let Some(v) = map.get(RACK_AWARE_TAGS) {
            let list = v
                .as_array()
                .ok_or_else(|| err(RACK_AWARE_TAGS, "must be a list of strings"))?;
            config.rack_aware_assignment_tags = list
                .iter()
                .map(|t| {
                    t.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| err(RACK_AWARE_TAGS, "must be a list of strings"))
                })
                .collect::<Result<_, _>>()?;
        }
        if let Some(v) = map.get("maxRecordBatchBytes") {
            config.max_record_batch_bytes = v
                .as_i64()
                .filter(|n| *n >= 1)
                .ok_or_else(|| err("maxRecordBatchBytes", "must be an integer of at least 1"))?;
        }
        config.validate()?;
        Ok(config)
    }

    /// Checks every setting against its range, as `from_json` does; a `Config` built in code
    /// goes through this in [`crate::Coordinator::new`].
    pub fn validate(&self) -> Result<(), BoundaryError> {
        let mut copy = self.clone();
        for setting in INT_SETTINGS {
            if !setting.contains(*(setting.slot)(&mut copy)) {
                return Err(setting.out_of_range());
            }
        }
        if self.max_regex_match_cost < 0 {
            return Err(err(
                "group.streams.topology.max.regex.match.cost",
                "must be an integer of at least 0",
            ));
        }
        let tags = &self.rack_aware_assignment_tags;
        let distinct: std::collections::BTreeSet<&String> = tags.iter().to_set();
        if tags.len() > MAX_RACK_AWARE_TAGS || distinct.len() != tags.len() {
            return Err(err(
                RACK_AWARE_TAGS,
                format!("must list at most {MAX_RACK_AWARE_TAGS} distinct tag keys"),
            ));
        }
        if self.max_record_batch_bytes < 1 {
            return Err(err(
                "maxRecordBatchBytes",
                "must be an integer of at least 1",
            ));
        }
        Ok(())
    }

    /// Retention period in milliseconds.
    pub fn retention_ms(&self) -> i64 {
        i64::from(self.offsets_retention_minutes) * 60_000
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::from(&Config::default())
    }
}

impl From<&Config> for Limits {
    fn from(c: &Config) -> Self {
        Limits {
            max_tasks_per_subtopology: c.max_tasks_per_subtopology,
            max_tasks: c.max_tasks,
            max_regex_patterns: c.max_regex_patterns,
            max_regex_compiled_bytes: c.max_regex_compiled_bytes,
            max_regex_match_cost: c.max_regex_match_cost,
        }
    }
}

impl IntSetting {
    fn contains(&self, n: i32) -> bool {
        (self.min..=self.max).contains(&n)
    }

    fn out_of_range(&self) -> BoundaryError {
        err(
            self.name,
            format!("must be an integer from {} to {}", self.min, self.max),
        )
    }
}

fn err(path: &str, message: impl Into<String>) -> BoundaryError {
    BoundaryError::new(BoundaryCode::InvalidConfig, path, message)
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

    #[test]
    fn a_config_built_in_code_meets_the_same_ranges() {
        assert!(Config::default().validate().is_ok());
        let c = Config {
            session_timeout_ms: 0,
            ..Config::default()
        };
        assert_eq!(
            c.validate().unwrap_err().path,
            "group.streams.session.timeout.ms"
        );
        let c = Config {
            max_tasks: -5,
            ..Config::default()
        };
        assert_eq!(c.validate().unwrap_err().path, "group.streams.max.tasks");
        // The coordinator refuses it too (its tests: `coordinator` imports `config`).
        let e =
            Config::from_json(&json!({"group.streams.max.tasks.per.subtopology": 0})).unwrap_err();
        assert_eq!(e.path, "group.streams.max.tasks.per.subtopology");
    }

    #[test]
    fn warmup_and_rack_aware_settings() {
        let c = Config::default();
        assert_eq!(c.num_warmup_replicas, 2);
        assert!(c.rack_aware_assignment_tags.is_empty());
        let c = Config::from_json(&json!({
            "group.streams.num.warmup.replicas": 0,
            "group.streams.rack.aware.assignment.tags": ["zone", "cluster"],
        }))
        .unwrap();
        assert_eq!(c.num_warmup_replicas, 0);
        assert_eq!(c.rack_aware_assignment_tags, vec!["zone", "cluster"]);
        for bad in [
            json!({"group.streams.rack.aware.assignment.tags": "zone"}),
            json!({"group.streams.rack.aware.assignment.tags": [1]}),
            json!({"group.streams.rack.aware.assignment.tags": ["a", "a"]}),
            json!({"group.streams.rack.aware.assignment.tags": ["a", "b", "c", "d", "e", "f"]}),
        ] {
            let e = Config::from_json(&bad).unwrap_err();
            assert_eq!(e.path, "group.streams.rack.aware.assignment.tags");
        }
        let e = Config::from_json(&json!({"group.streams.num.warmup.replicas": -1})).unwrap_err();
        assert_eq!(e.path, "group.streams.num.warmup.replicas");
    }
}

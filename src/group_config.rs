//! Group-level configuration (Kafka's `GroupConfig`): per-group overrides of the coordinator's
//! settings, set with `kafka-configs.sh --entity-type groups` (KIP-848's dynamic group
//! configs) and delivered to a Kafka coordinator through the metadata image, not through the
//! group's log. A host reports a group's whole set with a `GroupConfig` input (an empty set
//! removes the overrides). It is state beside the groups, as the topic image is: a restarted
//! host reports it again, as Kafka's metadata image does, and a `Replay` leaves it alone.
//!
//! Each release knows its names (4.3 adds `streams.assignment.interval.ms`, 4.4 the warm-up,
//! task-offset, recovery-lag and rack-tag settings); the other group types' names are accepted
//! and have no effect here. Kafka's controller validates the values against the broker's
//! bounds before they reach a coordinator; here each value is held to the range of the
//! coordinator setting it overrides.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::config::{self, Config, MAX_RACK_AWARE_TAGS};
use crate::error::BoundaryError;
use crate::records::Dialect;

/// The most groups with overrides one coordinator keeps (bounded memory: a host reports the
/// groups of its partition).
pub const MAX_CONFIGURED_GROUPS: usize = 100_000;

/// One group's overrides; `None`: the coordinator's setting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupConfig {
    /// `streams.session.timeout.ms`.
    pub session_timeout_ms: Option<i32>,
    /// `streams.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: Option<i32>,
    /// `streams.num.standby.replicas`.
    pub num_standby_replicas: Option<i32>,
    /// `streams.initial.rebalance.delay.ms`.
    pub initial_rebalance_delay_ms: Option<i32>,
    /// `streams.assignment.interval.ms` (Kafka 4.3+).
    pub assignment_interval_ms: Option<i32>,
    /// `streams.task.offset.interval.ms` (Kafka 4.4).
    pub task_offset_interval_ms: Option<i32>,
    /// `streams.acceptable.recovery.lag` (Kafka 4.4).
    pub acceptable_recovery_lag: Option<i32>,
    /// `streams.num.warmup.replicas` (Kafka 4.4).
    pub num_warmup_replicas: Option<i32>,
    /// `streams.rack.aware.assignment.tags` (Kafka 4.4).
    pub rack_aware_assignment_tags: Option<Vec<String>>,
}

/// Where a streams name's value goes.
#[derive(Clone, Copy)]
enum Slot {
    Int(&'static str, fn(&mut GroupConfig) -> &mut Option<i32>),
    Tags,
    /// Known to the release, no effect here.
    Ignored,
}

/// The group config names of 4.2, 4.3 and 4.4 for the other group types (and 4.4's dead
/// letter queue): accepted, without effect on a streams group.
const OTHER_42: &[&str] = &[
    "consumer.session.timeout.ms",
    "consumer.heartbeat.interval.ms",
    "share.session.timeout.ms",
    "share.heartbeat.interval.ms",
    "share.record.lock.duration.ms",
    "share.auto.offset.reset",
    "share.isolation.level",
];
const OTHER_43: &[&str] = &[
    "consumer.assignment.interval.ms",
    "consumer.assignor.offload.enable",
    "share.delivery.count.limit",
    "share.partition.max.record.locks",
    "share.renew.acknowledge.enable",
    "share.assignment.interval.ms",
    "share.assignor.offload.enable",
    "streams.assignor.offload.enable",
];
const OTHER_44: &[&str] = &[
    "streams.assignor.name",
    "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.copy.record.enable",
];

/// The slot of `name` in `dialect`'s release, or None when the release has no such name.
fn slot(dialect: Dialect, name: &str) -> Option<Slot> {
    let v43 = matches!(dialect, Dialect::Kafka43 | Dialect::Kafka44);
    let v44 = dialect == Dialect::Kafka44;
    let int = |setting, f| Some(Slot::Int(setting, f));
    match name {
        "streams.session.timeout.ms" => int("group.streams.session.timeout.ms", |c| {
            &mut c.session_timeout_ms
        }),
        "streams.heartbeat.interval.ms" => int("group.streams.heartbeat.interval.ms", |c| {
            &mut c.heartbeat_interval_ms
        }),
        "streams.num.standby.replicas" => int("group.streams.num.standby.replicas", |c| {
            &mut c.num_standby_replicas
        }),
        "streams.initial.rebalance.delay.ms" => {
            int("group.streams.initial.rebalance.delay.ms", |c| {
                &mut c.initial_rebalance_delay_ms
            })
        }
        "streams.assignment.interval.ms" if v43 => {
            int("group.streams.assignment.interval.ms", |c| {
                &mut c.assignment_interval_ms
            })
        }
        "streams.task.offset.interval.ms" if v44 => {
            int("group.streams.task.offset.interval.ms", |c| {
                &mut c.task_offset_interval_ms
            })
        }
        "streams.acceptable.recovery.lag" if v44 => {
            int("group.streams.acceptable.recovery.lag", |c| {
                &mut c.acceptable_recovery_lag
            })
        }
        "streams.num.warmup.replicas" if v44 => int("group.streams.num.warmup.replicas", |c| {
            &mut c.num_warmup_replicas
        }),
        "streams.rack.aware.assignment.tags" if v44 => Some(Slot::Tags),
        n if OTHER_42.contains(&n)
            || (v43 && OTHER_43.contains(&n))
            || (v44 && OTHER_44.contains(&n)) =>
        {
            Some(Slot::Ignored)
        }
        _ => None,
    }
}

fn err(name: &str, message: impl Into<String>) -> BoundaryError {
    let path = if name.is_empty() {
        "configs".to_string()
    } else {
        format!("configs.{name}")
    };
    BoundaryError::input(path, message)
}

/// A config value as Kafka's configs carry them (text) or as a JSON number: an int32.
fn int_value(name: &str, v: &Value) -> Result<i64, BoundaryError> {
    let n = match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    n.ok_or_else(|| err(name, "must be an integer (a number or its text)"))
}

/// Rack-aware assignment tags: a list of strings or Kafka's comma-separated text.
fn tags_value(name: &str, v: &Value) -> Result<Vec<String>, BoundaryError> {
    let tags: Vec<String> = match v {
        Value::String(s) if s.trim().is_empty() => Vec::new(),
        Value::String(s) => s.split(',').map(|t| t.trim().to_string()).collect(),
        Value::Array(items) => items
            .iter()
            .map(|t| t.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| err(name, "must be a list of strings or comma-separated text"))?,
        _ => {
            return Err(err(
                name,
                "must be a list of strings or comma-separated text",
            ))
        }
    };
    if tags.len() > MAX_RACK_AWARE_TAGS {
        return Err(err(
            name,
            format!("at most {MAX_RACK_AWARE_TAGS} tags (Kafka Streams' limit)"),
        ));
    }
    for (i, t) in tags.iter().enumerate() {
        if t.is_empty() || tags[..i].contains(t) {
            return Err(err(name, "tags must be non-empty and distinct"));
        }
    }
    Ok(tags)
}

/// A group's whole set of configs in the release of `coordinator`'s dialect, as JSON
/// (`{name: value}`), with Kafka's rule that the session timeout exceeds the heartbeat
/// interval (the coordinator's value standing in for the one not set).
pub fn parse(
    coordinator: &Config,
    configs: &Map<String, Value>,
) -> Result<GroupConfig, BoundaryError> {
    let dialect = coordinator.dialect;
    let mut out = GroupConfig::default();
    for (name, v) in configs {
        match slot(dialect, name) {
            None => {
                return Err(err(
                    name,
                    format!("Unknown group config name: {name} ({})", dialect.name()),
                ))
            }
            Some(Slot::Ignored) => {}
            Some(Slot::Tags) => out.rack_aware_assignment_tags = Some(tags_value(name, v)?),
            Some(Slot::Int(setting, f)) => {
                let n = int_value(name, v)?;
                let (min, max) = config::int_range(setting).unwrap_or((0, i32::MAX));
                let value = i32::try_from(n)
                    .ok()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| {
                        err(
                            name,
                            format!("must be in the range {min} to {max} inclusive (as {setting})"),
                        )
                    })?;
                *f(&mut out) = Some(value);
            }
        }
    }
    evaluate(coordinator, &mut out);
    if out.session_timeout_ms.is_some() || out.heartbeat_interval_ms.is_some() {
        let session = out
            .session_timeout_ms
            .unwrap_or(coordinator.session_timeout_ms);
        let heartbeat = out
            .heartbeat_interval_ms
            .unwrap_or(coordinator.heartbeat_interval_ms);
        if session <= heartbeat {
            return Err(err(
                "",
                "streams.session.timeout.ms must be greater than streams.heartbeat.interval.ms",
            ));
        }
    }
    Ok(out)
}

/// Kafka 4.3+'s `GroupConfig.evaluate`: a group config from the metadata image is capped to
/// the broker's bounds of its setting before it takes effect. The coordinator has no bound
/// settings of its own: the bounds are Kafka's defaults (`group.streams.min.session.timeout.ms`
/// 45000 and `max` 60000, heartbeat interval 5000 to 15000, at most 2 standby replicas,
/// assignment interval up to 15000; in 4.4 a task offset interval of at least 15000 and at most
/// 20 warm-up replicas) widened to hold the coordinator's own setting, as a broker's must.
/// Kafka 4.2 takes group configs as given.
fn evaluate(coordinator: &Config, c: &mut GroupConfig) {
    let dialect = coordinator.dialect;
    if !matches!(dialect, Dialect::Kafka43 | Dialect::Kafka44) {
        return;
    }
    let clamp = |v: &mut Option<i32>, min: i32, max: i32| {
        if let Some(x) = v.as_mut() {
            *x = (*x).clamp(min, max);
        }
    };
    let session = coordinator.session_timeout_ms;
    clamp(
        &mut c.session_timeout_ms,
        session.min(45_000),
        session.max(60_000),
    );
    let heartbeat = coordinator.heartbeat_interval_ms;
    clamp(
        &mut c.heartbeat_interval_ms,
        heartbeat.min(5_000),
        heartbeat.max(15_000),
    );
    let standby = coordinator.num_standby_replicas.max(2);
    clamp(&mut c.num_standby_replicas, i32::MIN, standby);
    let interval = coordinator.assignment_interval_ms.max(15_000);
    clamp(&mut c.assignment_interval_ms, 0, interval);
    if dialect == Dialect::Kafka44 {
        let offsets = coordinator.task_offset_interval_ms.min(15_000);
        clamp(&mut c.task_offset_interval_ms, offsets, i32::MAX);
        let warmups = coordinator.num_warmup_replicas.max(20);
        clamp(&mut c.num_warmup_replicas, i32::MIN, warmups);
    }
}

/// Every group's overrides, by group id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupConfigs {
    groups: BTreeMap<String, GroupConfig>,
}

impl GroupConfigs {
    /// The group's overrides, if any.
    pub fn get(&self, group_id: &str) -> Option<&GroupConfig> {
        self.groups.get(group_id)
    }

    /// Replaces a group's set (an empty one removes it unless `keep_empty`: Kafka 4.2 keeps
    /// a group's config once it had one, every key at its default); refused past
    /// [`MAX_CONFIGURED_GROUPS`].
    pub fn set(
        &mut self,
        group_id: &str,
        config: GroupConfig,
        keep_empty: bool,
    ) -> Result<(), BoundaryError> {
        if config == GroupConfig::default() && !keep_empty {
            self.groups.remove(group_id);
            return Ok(());
        }
        if !self.groups.contains_key(group_id) && self.groups.len() >= MAX_CONFIGURED_GROUPS {
            return Err(BoundaryError::input(
                "groupId",
                format!("at most {MAX_CONFIGURED_GROUPS} groups may have group configs"),
            ));
        }
        self.groups.insert(group_id.to_string(), config);
        Ok(())
    }

    /// Every group with overrides.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &GroupConfig)> {
        self.groups.iter().map(|(g, c)| (g.as_str(), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn cfg(dialect: Dialect) -> Config {
        Config {
            dialect,
            ..Config::default()
        }
    }

    #[test]
    fn group_config_names_are_the_releases() {
        let c = parse(
            &cfg(Dialect::Kafka42),
            &map(json!({"streams.session.timeout.ms": "50000", "streams.num.standby.replicas": 1, "consumer.session.timeout.ms": "45000"})),
        )
        .unwrap();
        assert_eq!(c.session_timeout_ms, Some(50_000));
        assert_eq!(c.num_standby_replicas, Some(1));
        assert_eq!(c.heartbeat_interval_ms, None);
        // 4.3's name is unknown to 4.2, known to 4.3.
        let v43 = map(json!({"streams.assignment.interval.ms": 2000}));
        let e = parse(&cfg(Dialect::Kafka42), &v43).unwrap_err();
        assert_eq!(e.path, "configs.streams.assignment.interval.ms");
        assert!(e
            .message
            .starts_with("Unknown group config name: streams.assignment.interval.ms"));
        assert_eq!(
            parse(&cfg(Dialect::Kafka43), &v43)
                .unwrap()
                .assignment_interval_ms,
            Some(2000)
        );
        // 4.4's tags, as Kafka's comma-separated text or a list.
        let tags = map(json!({"streams.rack.aware.assignment.tags": "zone, cluster"}));
        assert!(parse(&cfg(Dialect::Kafka43), &tags).is_err());
        assert_eq!(
            parse(&cfg(Dialect::Kafka44), &tags)
                .unwrap()
                .rack_aware_assignment_tags,
            Some(vec!["zone".to_string(), "cluster".to_string()])
        );
    }

    #[test]
    fn group_config_values_are_held_to_the_settings_ranges() {
        for (v, ok) in [
            (json!(0), false),
            (json!(-5), false),
            (json!("x"), false),
            (json!(true), false),
            (json!(3_000_000_000i64), false),
            (json!("1"), true),
            (json!(1), true),
        ] {
            let r = parse(
                &cfg(Dialect::Kafka42),
                &map(json!({"streams.heartbeat.interval.ms": v})),
            );
            assert_eq!(r.is_ok(), ok, "{v}");
        }
        let e = parse(
            &cfg(Dialect::Kafka42),
            &map(json!({"streams.num.standby.replicas": 1001})),
        )
        .unwrap_err();
        assert!(e.message.contains("0 to 1000"), "{}", e.message);
        let too_many = map(json!({"streams.rack.aware.assignment.tags": "a,b,c,d,e,f"}));
        assert!(parse(&cfg(Dialect::Kafka44), &too_many).is_err());
        // The session timeout exceeds the heartbeat interval, the coordinator's standing in.
        let e = parse(
            &cfg(Dialect::Kafka42),
            &map(json!({"streams.heartbeat.interval.ms": 45000})),
        )
        .unwrap_err();
        assert_eq!(e.path, "configs");
        let ok = map(
            json!({"streams.heartbeat.interval.ms": 45000, "streams.session.timeout.ms": 50000}),
        );
        assert!(parse(&cfg(Dialect::Kafka42), &ok).is_ok());
    }

    #[test]
    fn group_config_an_empty_set_removes_the_groups_overrides() {
        let mut all = GroupConfigs::default();
        let c = GroupConfig {
            heartbeat_interval_ms: Some(7),
            ..GroupConfig::default()
        };
        all.set("g", c.clone(), false).unwrap();
        assert_eq!(all.get("g"), Some(&c));
        all.set("g", GroupConfig::default(), false).unwrap();
        assert_eq!(all.get("g"), None);
    }
}

//! The `GroupConfig` input: a group's whole set of group-level configs, as Kafka's metadata
//! image delivers them, replacing the group's overrides of the settings; and the settings each
//! group runs with (its override, else the coordinator's), which every operation, service and
//! the dialects read through these accessors.

use serde_json::{Map, Value};

use super::Coordinator;
use crate::error::BoundaryError;
use crate::group_config::{self, GroupConfig, GroupConfigs};

/// Kafka 4.2's `GroupConfig` defaults of its streams keys (`GroupCoordinatorConfig`'s
/// `STREAMS_GROUP_*_DEFAULT`): session timeout, heartbeat interval, standby replicas, initial
/// rebalance delay.
const KAFKA_42_DEFAULTS: [i32; 4] = [45_000, 5_000, 0, 3_000];

/// Boundary checks before any timer fires: a group id, and configs the release knows.
pub(super) fn precheck(
    config: &crate::config::Config,
    group_id: &str,
    configs: &Map<String, Value>,
) -> Result<(), BoundaryError> {
    if group_id.is_empty() {
        return Err(BoundaryError::input(
            "groupId",
            "Group name can't be empty.",
        ));
    }
    group_config::parse(config, configs).map(|_| ())
}

impl Coordinator {
    /// The `GroupConfig` input: no records (the configs are not in the group's log) and no
    /// answer; the group's next heartbeat runs with them.
    pub(super) fn group_config(
        &mut self,
        group_id: &str,
        configs: &Map<String, Value>,
    ) -> Result<(), BoundaryError> {
        let config = group_config::parse(&self.config, configs)?;
        let kafka42 = self.config.dialect == crate::Dialect::Kafka42;
        self.group_configs.set(group_id, config, kafka42)
    }

    /// Every group's group-level configs (overrides of the settings), as the host reported them.
    pub fn group_configs(&self) -> &GroupConfigs {
        &self.group_configs
    }

    /// A group's override of a setting, or the setting.
    fn group_setting(
        &self,
        group_id: &str,
        pick: impl Fn(&GroupConfig) -> Option<i32>,
        setting: i32,
    ) -> i32 {
        self.group_configs
            .get(group_id)
            .and_then(pick)
            .unwrap_or(setting)
    }

    /// One of Kafka 4.2's four streams group configs: a group with a config of its own (any,
    /// even an emptied one) reads the keys it does not set at `GroupConfig`'s defaults, not the
    /// broker's settings (4.2's broker gives `GroupConfigManager` defaults of the consumer and
    /// share keys only); later releases default to the settings.
    fn group_setting_42(
        &self,
        group_id: &str,
        pick: impl Fn(&GroupConfig) -> Option<i32>,
        setting: i32,
        kafka_default: i32,
    ) -> i32 {
        match self.group_configs.get(group_id) {
            Some(c) if self.config.dialect == crate::Dialect::Kafka42 => {
                pick(c).unwrap_or(kafka_default)
            }
            _ => self.group_setting(group_id, pick, setting),
        }
    }

    /// `streams.session.timeout.ms` of a group, else `group.streams.session.timeout.ms`.
    pub(crate) fn session_timeout_ms(&self, group_id: &str) -> i32 {
        self.group_setting_42(
            group_id,
            |c| c.session_timeout_ms,
            self.config.session_timeout_ms,
            KAFKA_42_DEFAULTS[0],
        )
    }

    /// `streams.heartbeat.interval.ms` of a group, else the setting.
    pub(crate) fn heartbeat_interval_ms(&self, group_id: &str) -> i32 {
        self.group_setting_42(
            group_id,
            |c| c.heartbeat_interval_ms,
            self.config.heartbeat_interval_ms,
            KAFKA_42_DEFAULTS[1],
        )
    }

    /// `streams.num.standby.replicas` of a group, else the setting.
    pub(crate) fn num_standby_replicas(&self, group_id: &str) -> i32 {
        self.group_setting_42(
            group_id,
            |c| c.num_standby_replicas,
            self.config.num_standby_replicas,
            KAFKA_42_DEFAULTS[2],
        )
    }

    /// `streams.initial.rebalance.delay.ms` of a group, else the setting.
    pub(crate) fn initial_rebalance_delay_ms(&self, group_id: &str) -> i32 {
        self.group_setting_42(
            group_id,
            |c| c.initial_rebalance_delay_ms,
            self.config.initial_rebalance_delay_ms,
            KAFKA_42_DEFAULTS[3],
        )
    }

    /// `streams.assignment.interval.ms` of a group (Kafka 4.3+), else the setting.
    pub(crate) fn assignment_interval_ms(&self, group_id: &str) -> i32 {
        self.group_setting(
            group_id,
            |c| c.assignment_interval_ms,
            self.config.assignment_interval_ms,
        )
    }

    /// `streams.task.offset.interval.ms` of a group (Kafka 4.4), else the setting.
    pub(crate) fn task_offset_interval_ms(&self, group_id: &str) -> i32 {
        self.group_setting(
            group_id,
            |c| c.task_offset_interval_ms,
            self.config.task_offset_interval_ms,
        )
    }

    /// `streams.acceptable.recovery.lag` of a group (Kafka 4.4), else the setting.
    pub(crate) fn acceptable_recovery_lag(&self, group_id: &str) -> i32 {
        self.group_setting(
            group_id,
            |c| c.acceptable_recovery_lag,
            self.config.acceptable_recovery_lag,
        )
    }

    /// `streams.num.warmup.replicas` of a group (Kafka 4.4), else the setting.
    pub(crate) fn num_warmup_replicas(&self, group_id: &str) -> i32 {
        self.group_setting(
            group_id,
            |c| c.num_warmup_replicas,
            self.config.num_warmup_replicas,
        )
    }

    /// `streams.rack.aware.assignment.tags` of a group (Kafka 4.4), else the setting.
    pub(crate) fn rack_aware_assignment_tags(&self, group_id: &str) -> &[String] {
        self.group_configs
            .get(group_id)
            .and_then(|c| c.rack_aware_assignment_tags.as_deref())
            .unwrap_or(&self.config.rack_aware_assignment_tags)
    }
}

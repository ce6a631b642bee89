//! Topology descriptions (KIP-1331, Kafka 4.4): the store a broker's topology description plugin
//! is, and the back-off with which the coordinator asks members to push a description.
//!
//! Kafka keeps both outside its records: the plugin holds descriptions (its built-in one, in
//! memory, loses them on restart), and the back-off lives in the broker's memory. Only the
//! epochs of what the plugin holds are records (type 17, tags 2 and 3). So a rebuilt
//! coordinator, as a restarted broker with the in-memory plugin, has an empty store.

use std::collections::BTreeMap;

use crate::api::TopologyDescriptionJson;

/// `StoredDescriptionTopologyEpoch` when the store holds nothing for the group.
pub(crate) const STORED_NONE: i32 = -1;
/// `StoredDescriptionTopologyEpoch` while a store operation's outcome is not recorded.
pub(crate) const STORED_UNCERTAIN: i32 = -2;

/// Kafka's back-off of solicitations: 30 s, doubled per attempt at one topology epoch, at most
/// an hour. Kafka adds a random ±20 %; this coordinator is deterministic and adds none.
const INITIAL_DELAY_MS: i64 = 30_000;
const MAX_DELAY_MS: i64 = 3_600_000;

/// One group's back-off window.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Backoff {
    topology_epoch: i32,
    attempts: u32,
    next_attempt_ms: i64,
}

/// The description store and the solicitation back-off of a coordinator.
#[derive(Clone, Debug, Default)]
pub(crate) struct Descriptions {
    /// Whether a plugin is configured (`group.streams.topology.description.plugin.class`
    /// names Kafka's in-memory one); without one the store holds nothing.
    enabled: bool,
    /// Kafka's in-memory plugin: at most one description per group, with its topology epoch.
    store: BTreeMap<String, (i32, TopologyDescriptionJson)>,
    backoff: BTreeMap<String, Backoff>,
}

impl Descriptions {
    /// A store, kept only when `enabled` (a plugin is configured).
    pub(crate) fn new(enabled: bool) -> Self {
        Descriptions {
            enabled,
            ..Descriptions::default()
        }
    }

    /// Whether a plugin is configured.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Stores a group's description, replacing the one it had.
    pub(crate) fn set(
        &mut self,
        group_id: &str,
        topology_epoch: i32,
        description: TopologyDescriptionJson,
    ) {
        if self.enabled {
            self.store
                .insert(group_id.to_string(), (topology_epoch, description));
        }
    }

    /// The description stored for the group at `topology_epoch` (none for another epoch).
    pub(crate) fn get(
        &self,
        group_id: &str,
        topology_epoch: i32,
    ) -> Option<&TopologyDescriptionJson> {
        self.store
            .get(group_id)
            .filter(|(epoch, _)| *epoch == topology_epoch)
            .map(|(_, d)| d)
    }

    /// Forgets a group's description.
    pub(crate) fn delete(&mut self, group_id: &str) {
        self.store.remove(group_id);
    }

    /// Arms a back-off window for the group at `topology_epoch` unless one is in effect:
    /// whether it armed one (and so the heartbeat asks for a push). A window at the same epoch
    /// that ran out continues the chain (the delay doubles), as in Kafka.
    pub(crate) fn arm_if_not_active(
        &mut self,
        group_id: &str,
        topology_epoch: i32,
        now: i64,
    ) -> bool {
        let existing = self.backoff.get(group_id);
        if existing.is_some_and(|b| b.topology_epoch == topology_epoch && now < b.next_attempt_ms) {
            return false;
        }
        let next = next_window(existing, topology_epoch, now);
        self.backoff.insert(group_id.to_string(), next);
        true
    }

    /// Ends the group's window at `topology_epoch` (a push succeeded); a window at another
    /// epoch stays.
    pub(crate) fn clear(&mut self, group_id: &str, topology_epoch: i32) {
        if self
            .backoff
            .get(group_id)
            .is_some_and(|b| b.topology_epoch == topology_epoch)
        {
            self.backoff.remove(group_id);
        }
    }

    /// Ends the group's window whatever its epoch (the group is deleted).
    pub(crate) fn clear_group(&mut self, group_id: &str) {
        self.backoff.remove(group_id);
    }
}

/// The window after `existing`: the same epoch counts one more attempt, another starts over.
fn next_window(existing: Option<&Backoff>, topology_epoch: i32, now: i64) -> Backoff {
    let attempts = match existing {
        Some(b) if b.topology_epoch == topology_epoch => b.attempts.saturating_add(1),
        _ => 0,
    };
    Backoff {
        topology_epoch,
        attempts,
        next_attempt_ms: now.saturating_add(delay_ms(attempts)),
    }
}

/// Kafka's `ExponentialBackoff(30000, 2, 3600000)` without its jitter.
fn delay_ms(attempts: u32) -> i64 {
    // 2^7 * 30 s is past the hour: no need to raise further.
    let factor = 1i64 << attempts.min(7);
    (INITIAL_DELAY_MS * factor).min(MAX_DELAY_MS)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_delay_doubles_up_to_an_hour() {
        let delays: Vec<i64> = (0..9).map(delay_ms).collect();
        assert_eq!(
            delays,
            [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000]
        );
        assert_eq!(delay_ms(u32::MAX), MAX_DELAY_MS);
    }

    #[test]
    fn a_window_holds_until_it_runs_out_and_then_doubles() {
        let mut d = Descriptions::new(true);
        assert!(d.arm_if_not_active("g", 3, 0));
        assert!(!d.arm_if_not_active("g", 3, 29_999));
        assert!(d.arm_if_not_active("g", 3, 30_000));
        assert!(!d.arm_if_not_active("g", 3, 89_999));
        // Another epoch starts over.
        assert!(d.arm_if_not_active("g", 4, 30_001));
        d.clear("g", 3);
        assert!(!d.arm_if_not_active("g", 4, 60_000));
        d.clear("g", 4);
        assert!(d.arm_if_not_active("g", 4, 60_000));
    }

    #[test]
    fn the_store_answers_only_its_epoch_and_only_when_enabled() {
        let mut d = Descriptions::new(true);
        d.set("g", 2, TopologyDescriptionJson::default());
        assert!(d.get("g", 2).is_some());
        assert!(d.get("g", 1).is_none());
        d.delete("g");
        assert!(d.get("g", 2).is_none());
        let mut off = Descriptions::new(false);
        off.set("g", 2, TopologyDescriptionJson::default());
        assert!(off.get("g", 2).is_none());
    }
}

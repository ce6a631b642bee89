//! `Replay`: records applied atomically, then their soft effects (PROTOCOL 5.4).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::apply_record;
use super::Coordinator;
use crate::error::{BoundaryCode, BoundaryError};
use crate::group::{self, Group, MemberAfter};
use crate::offsets::Offsets;
use crate::ordered::Ordered;
#[cfg(feature = "replay-text")]
use crate::records::in_place::{MemberRecord, ReadRecord, TaskIdsRef};
use crate::records::{record_from_json_at, Record};
use crate::timers::{TimerData, TimerKey, TimerKind};

/// A record a `Replay` applies: decoded, or (a log read back in the bytes form) a target or
/// current assignment record read in place.
#[derive(Clone, Copy, Debug)]
pub(super) enum Replayed<'r> {
    Record(&'r Record),
    #[cfg(feature = "replay-text")]
    InPlace(&'r MemberRecord<'r>, &'r [TaskIdsRef<'r>]),
}

impl<'r> Replayed<'r> {
    fn group_id(self) -> &'r str {
        match self {
            Replayed::Record(r) => r.key.group_id(),
            #[cfg(feature = "replay-text")]
            Replayed::InPlace(r, _) => r.group_id,
        }
    }

    fn member_id(self) -> Option<&'r str> {
        match self {
            Replayed::Record(r) => r.key.member_id(),
            #[cfg(feature = "replay-text")]
            Replayed::InPlace(r, _) => Some(r.member_id),
        }
    }

    /// A record read in place is never a tombstone, and its key and value always agree.
    fn is_tombstone(self) -> bool {
        matches!(self, Replayed::Record(r) if r.value.is_none())
    }

    fn is_consistent(self) -> bool {
        match self {
            Replayed::Record(r) => r.is_consistent(),
            #[cfg(feature = "replay-text")]
            Replayed::InPlace(..) => true,
        }
    }
}

#[cfg(feature = "replay-text")]
impl<'r> Replayed<'r> {
    /// A record of a log read back, its task lists read from the log's `tasks`.
    pub(super) fn read(r: &'r ReadRecord<'r>, tasks: &'r [TaskIdsRef<'r>]) -> Self {
        match r {
            ReadRecord::Decoded(r) => Replayed::Record(r),
            ReadRecord::InPlace(r) => Replayed::InPlace(r, tasks),
        }
    }
}

impl Coordinator {
    /// Decodes a Replay input's records, each with its index in the input (records the dialect
    /// skips, PROTOCOL 5.4, are left out).
    pub(super) fn decode_records(
        &self,
        records: &[Value],
    ) -> Result<Vec<(usize, Record)>, BoundaryError> {
        let mut out = Vec::with_capacity(records.len());
        for (i, v) in records.iter().enumerate() {
            if let Some(r) = record_from_json_at(self.config.dialect, v, "records", i)? {
                out.push((i, r));
            }
        }
        Ok(out)
    }

    /// Applies records atomically and then their soft effects (PROTOCOL 5.4).
    pub(super) fn replay_records<'r>(
        &mut self,
        now: i64,
        records: impl Iterator<Item = (usize, Replayed<'r>)> + Clone,
    ) -> Result<(), BoundaryError> {
        // Keys borrowed from the records: a replay allocates nothing per record for them.
        let mut touched: BTreeSet<&'r str> = BTreeSet::new();
        let mut count = 0;
        let mut last: Option<&str> = None;
        for (_, r) in records.clone() {
            // A log names one group record after record: one insertion a run of them.
            if last != Some(r.group_id()) {
                touched.insert(r.group_id());
                last = Some(r.group_id());
            }
            count += 1;
        }
        // Collected as a list, then sorted and deduplicated once: a log names each member in
        // several records, and one sort costs less than a tree insertion per record.
        // Each with the record's position and the member as the record left it.
        let mut touched_members: Vec<(&'r str, &'r str, usize, MemberAfter, bool)> =
            Vec::with_capacity(count);
        let mut added_member: BTreeSet<&'r str> = BTreeSet::new();
        let limits = self.limits();
        let dialect = self.config.dialect;
        let mut apply_all = |groups: &mut BTreeMap<String, Group>,
                             offsets: &mut Offsets|
         -> Result<(), BoundaryError> {
            for (i, r) in records.clone() {
                let effect = match r {
                    Replayed::Record(r) => apply_record(groups, offsets, r, &limits, dialect),
                    #[cfg(feature = "replay-text")]
                    Replayed::InPlace(r, tasks) => {
                        Ok(group::apply_in_place(groups, r, tasks, dialect))
                    }
                }
                .map_err(|e| {
                    BoundaryError::new(
                        BoundaryCode::InvalidRecord,
                        format!("records[{i}]"),
                        e.to_string(),
                    )
                })?;
                if let Some(m) = r.member_id() {
                    let seq = touched_members.len();
                    touched_members.push((
                        r.group_id(),
                        m,
                        seq,
                        effect.member,
                        effect.member_added,
                    ));
                }
                if effect.member_added {
                    added_member.insert(r.group_id());
                }
            }
            Ok(())
        };
        // Only a tombstone can fail against the state; any other record fails only when its key
        // and value disagree. Without tombstones, that is checked first and the records apply in
        // place; with them, the touched groups are applied as copies and put back only if all
        // apply (the cost of a copy is paid only where a failure is possible).
        if records.clone().all(|(_, r)| !r.is_tombstone()) {
            if let Some((i, _)) = records.clone().find(|(_, r)| !r.is_consistent()) {
                return Err(BoundaryError::new(
                    BoundaryCode::InvalidRecord,
                    format!("records[{i}]"),
                    group::ApplyError::KeyValueMismatch.to_string(),
                ));
            }
            apply_all(&mut self.groups, &mut self.offsets)?;
        } else {
            let mut work: BTreeMap<String, Group> = touched
                .iter()
                .filter_map(|&g| self.groups.get(g).map(|x| (g.to_string(), x.clone())))
                .to_map();
            let mut offsets_work = self.offsets.subset(touched.iter().copied());
            apply_all(&mut work, &mut offsets_work)?;
            self.offsets.put_back(offsets_work, touched.iter().copied());
            for &g in &touched {
                match work.remove(g) {
                    Some(group) => {
                        self.groups.insert(g.to_string(), group);
                    }
                    None => {
                        self.groups.remove(g);
                        self.timers.cancel_group(g, None);
                    }
                }
            }
        }
        let retention = self.config.retention_ms();
        for &g in &touched {
            let Some(group) = self.groups.get_mut(g) else {
                continue;
            };
            group.soft.refresh_due = true;
            if added_member.contains(g) {
                self.timers
                    .cancel(&TimerKey::new(TimerKind::Retention, g, ""));
            }
            if group.members.is_empty() {
                group.soft.shutdown_requester = None;
            }
            if group.members.is_empty() && !self.config.dialect.is_kafka() {
                self.timers.schedule(
                    TimerKey::new(TimerKind::Retention, g, ""),
                    now.saturating_add(retention),
                    TimerData::None,
                );
            }
        }
        crate::ordered::sort_by(&mut touched_members, |a, b| {
            text_cmp(a.0, b.0)
                .then_with(|| text_cmp(a.1, b.1))
                .then(a.2.cmp(&b.2))
        });
        // In key order: the timers' maps are ordered so that a key after all the others is the
        // cheapest to place (`timers::Timers`).
        let mut i = 0;
        while let Some(&(g, m, ..)) = touched_members.get(i) {
            // The member's records in the input, in order: the last one that wrote to the
            // member says what it is now; only a member with nothing but target records is
            // looked up.
            let mut after = MemberAfter::Untouched;
            let mut added = false;
            while let Some(&(g2, m2, _, a, new)) = touched_members.get(i) {
                if (g2, m2) != (g, m) {
                    break;
                }
                if a != MemberAfter::Untouched {
                    after = a;
                }
                added |= new;
                i += 1;
            }
            if after == MemberAfter::Untouched {
                after = self
                    .groups
                    .get(g)
                    .and_then(|grp| grp.members.get(m))
                    .map_or(MemberAfter::Removed, MemberAfter::of);
            }
            match after {
                MemberAfter::Present {
                    revoking,
                    member_epoch: epoch,
                    rebalance_timeout_ms,
                } => {
                    let deadline = now.saturating_add(i64::from(self.session_timeout_ms(g)));
                    if added {
                        // A member new to this coordinator most likely has no timer yet.
                        self.timers.schedule_new_at(
                            TimerKind::SessionTimeout,
                            g,
                            m,
                            deadline,
                            TimerData::None,
                        );
                    } else {
                        self.schedule(TimerKind::SessionTimeout, g, m, deadline, TimerData::None);
                    }
                    if revoking {
                        self.schedule(
                            TimerKind::RebalanceTimeout,
                            g,
                            m,
                            now.saturating_add(i64::from(rebalance_timeout_ms)),
                            TimerData::MemberEpoch(epoch),
                        );
                    } else {
                        self.cancel(TimerKind::RebalanceTimeout, g, m);
                    }
                }
                _ => self.cancel_member_timers(g, m),
            }
        }
        Ok(())
    }
}

/// `a.cmp(b)`, without reading the text when both are the same borrow: a log read back in
/// place lends the same group id, and a member's id, to record after record.
fn text_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    if std::ptr::eq(a, b) {
        std::cmp::Ordering::Equal
    } else {
        a.cmp(b)
    }
}

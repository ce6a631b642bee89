//! L: lag-aware placement, and the warm-ups that let a balanced owner catch up first.

use super::group::Group;
use super::loads::Loads;
use super::NONE;
use crate::ordered;

impl Group<'_> {
    /// L: a stateful task whose balanced owner's process is not caught up goes to a caught-up
    /// member (its previous owner if caught up, else the least lag, then least loaded), and the
    /// balanced owner gets a warm-up of it while the group's warm-ups last. Tasks whose balanced
    /// owner already had the warm-up come first, then the others, each in partition order.
    pub(super) fn place_warmups(
        &self,
        owner: &mut [u32],
        loads: &mut Loads,
        stateful_count: &mut [u32],
    ) -> Vec<(u32, u32)> {
        let mut warmup = Vec::new();
        if self.lags.is_empty() {
            return warmup;
        }
        let mut budget = self.num_warmups;
        for had_it in [true, false] {
            for &t in &self.partition_order {
                let o = owner[t as usize];
                if !self.stateful(t) || o == NONE || self.lags_of(t).is_empty() {
                    continue;
                }
                if self.prev_warmup.binary_search(&(t, o)).is_ok() != had_it
                    || self.process_caught_up(self.member_process[o as usize], t)
                {
                    continue;
                }
                let prev = self.prev_active[t as usize];
                let chosen = if prev != NONE && self.caught_up(prev, t).is_some() {
                    Some(prev)
                } else {
                    self.lags_of(t)
                        .iter()
                        .filter(|&&(_, lag)| lag <= self.acceptable_lag)
                        .map(|&(m, lag)| (lag, m))
                        .reduce(|best, c| {
                            if c.0 < best.0 || (c.0 == best.0 && loads.less(c.1, best.1)) {
                                c
                            } else {
                                best
                            }
                        })
                        .map(|(_, m)| m)
                };
                let Some(c) = chosen else { continue };
                owner[t as usize] = c;
                stateful_count[o as usize] -= 1;
                stateful_count[c as usize] += 1;
                loads.remove_active(o);
                loads.add_active(c);
                if budget > 0 {
                    budget -= 1;
                    warmup.push((t, o));
                    loads.add(o);
                }
            }
        }
        ordered::sort_pairs(&mut warmup);
        warmup
    }
}

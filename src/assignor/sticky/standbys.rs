//! Standby tasks: S1 (sticky standbys) and S2 (fill), on processes that do not hold the task and
//! on distinct racks and tag values.

use std::collections::HashSet;

use super::group::Group;
use super::loads::{Loads, Quota};
use super::NONE;

/// Standby candidates looked at per replica, in least-loaded order, for one on a distinct rack
/// (and tag values) whose process is not paired with the active's.
pub(super) const SCAN_LIMIT: usize = 64;

/// Candidates without conflicts looked at for one whose process is not paired with the active's:
/// pairing is a preference between near-equals, and in a large group every process soon pairs
/// with many others (looking further would cost a scan per replica for nothing).
pub(super) const PAIR_CANDIDATES: usize = 2;

/// Hashes a pair of process numbers (membership tests only: no iteration order depends on it).
#[derive(Default)]
pub(super) struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 29;
    }
}

/// The pairs `(p, q)` where process `q` holds a standby of a task active on process `p`: a bit
/// per pair of processes when that is at most a few bytes a task (one load a test, where
/// hashing cost a tenth of a computation that reads every previous standby), a hash set of
/// `(p << 32) | q` otherwise.
pub(super) enum ProcessPairs {
    Bits { processes: usize, words: Vec<u64> },
    Hashed(HashSet<u64, std::hash::BuildHasherDefault<PairHasher>>),
}

impl ProcessPairs {
    pub(super) fn new(processes: usize, tasks: usize) -> Self {
        let bits = processes.saturating_mul(processes);
        if bits <= tasks.saturating_mul(16).max(1 << 16) {
            ProcessPairs::Bits {
                processes,
                words: vec![0; bits.div_ceil(64)],
            }
        } else {
            ProcessPairs::Hashed(HashSet::default())
        }
    }

    pub(super) fn insert(&mut self, p: usize, q: usize) {
        match self {
            ProcessPairs::Bits { processes, words } => {
                let bit = p * *processes + q;
                if let Some(w) = words.get_mut(bit / 64) {
                    *w |= 1 << (bit % 64);
                }
            }
            ProcessPairs::Hashed(set) => {
                set.insert(((p as u64) << 32) | q as u64);
            }
        }
    }

    pub(super) fn contains(&self, p: usize, q: usize) -> bool {
        match self {
            ProcessPairs::Bits { processes, words } => {
                let bit = p * processes + q;
                words
                    .get(bit / 64)
                    .is_some_and(|w| w & (1 << (bit % 64)) != 0)
            }
            ProcessPairs::Hashed(set) => set.contains(&(((p as u64) << 32) | q as u64)),
        }
    }
}

impl Group<'_> {
    pub(super) fn place_standbys(
        &self,
        owner: &[u32],
        warmup: &[(u32, u32)],
        loads: &mut Loads,
    ) -> Vec<(u32, u32)> {
        let num_tasks = self.num_tasks();
        let num_processes = self.capacity.len();
        let replicas = self.replicas;
        // At most `replicas` standbys a stateful task: room for all (up to four a task, beyond
        // which the list grows as it fills), so that the usual list never grows.
        let most = usize::try_from(self.num_stateful_tasks)
            .unwrap_or(usize::MAX)
            .saturating_mul(replicas as usize);
        let mut standby: Vec<(u32, u32)> =
            Vec::with_capacity(most.min(num_tasks.saturating_mul(4)));
        // `mark[p] == stamp`: process `p` holds the task being placed.
        let mut mark = vec![0u64; num_processes];
        let mut stamp = 0u64;
        // Standbys placed in S1 per task: the entries of `t` from `standby[s1_start[t]]` on (the
        // run ends at the first entry of another task, or at once for a task S1 gave none).
        let mut s1_start = vec![0u32; num_tasks];
        let s1_of =
            |standby: &[(u32, u32)], s1_start: &[u32], t: usize| -> std::ops::Range<usize> {
                let start = s1_start[t] as usize;
                let len = standby
                    .get(start..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|&&(task, _)| task as usize == t)
                    .count();
                start..start + len
            };
        let process_of = |m: u32| self.member_process[m as usize] as usize;
        let warmup_of = |t: u32| {
            warmup
                .binary_search_by(|&(w, _)| w.cmp(&t))
                .ok()
                .map(|i| warmup[i].1)
        };
        // The members holding the task being placed (active, warm-up, standbys).
        let mut holders: Vec<u32> = Vec::new();

        // S1: sticky standbys, in (partition, subtopology id) descending order.
        let total = (num_tasks as u64).saturating_add(
            self.num_standby_replicas
                .saturating_mul(self.num_stateful_tasks),
        );
        let mut qt = Quota::new(total, self.member_ids.len() as u64);
        // S1 never asks for the least-loaded member of the group: no heap upkeep until S2.
        loads.unheap();
        for &t in self.partition_order.iter().rev() {
            if !self.stateful(t) {
                continue;
            }
            stamp += 1;
            holders.clear();
            let active = owner[t as usize];
            for m in [Some(active), warmup_of(t)].into_iter().flatten() {
                if m != NONE {
                    mark[process_of(m)] = stamp;
                    holders.push(m);
                }
            }
            let start = standby.len();
            for _ in 0..replicas {
                let eligible = |m: u32| {
                    mark[process_of(m)] != stamp
                        && qt.below(loads.load[m as usize])
                        && self.conflicts(m, &holders) == 0
                };
                let prev = self.prev_active[t as usize];
                let chosen = if prev != NONE && eligible(prev) {
                    Some(prev)
                } else {
                    self.prev_standby_of(t)
                        .iter()
                        .copied()
                        .filter(|&c| eligible(c))
                        .reduce(|best, c| if loads.less(c, best) { c } else { best })
                };
                let Some(m) = chosen else { break };
                standby.push((t, m));
                loads.add(m);
                mark[process_of(m)] = stamp;
                holders.push(m);
                qt.on_assigned(loads.load[m as usize]);
            }
            s1_start[t as usize] = start as u32;
        }

        // S2: remaining replicas, in (subtopology id, partition) descending order. Only S2 reads
        // the pairs: they are S1's (active process, standby process), collected when S2 has work.
        let s2_tasks = (0..num_tasks).any(|t| {
            self.stateful(t as u32) && s1_of(&standby, &s1_start, t).len() < replicas as usize
        });
        if !s2_tasks {
            return standby;
        }
        let mut pairs = ProcessPairs::new(num_processes, num_tasks);
        for &(t, m) in &standby {
            let active = owner[t as usize];
            if active != NONE {
                pairs.insert(process_of(active), process_of(m));
            }
        }
        for t in (0..num_tasks).rev() {
            if !self.stateful(t as u32) {
                continue;
            }
            let s1 = s1_of(&standby, &s1_start, t);
            let placed = s1.len() as u32;
            if placed >= replicas {
                continue;
            }
            stamp += 1;
            holders.clear();
            let active = owner[t];
            for m in [Some(active), warmup_of(t as u32)].into_iter().flatten() {
                if m != NONE {
                    mark[process_of(m)] = stamp;
                    holders.push(m);
                }
            }
            for &(_, m) in &standby[s1] {
                mark[process_of(m)] = stamp;
                holders.push(m);
            }
            for _ in placed..replicas {
                if holders.len() >= num_processes {
                    break;
                }
                // The first candidate in least-loaded order on distinct racks and tag values
                // whose process is not paired with the active's; failing that within the scan
                // limit, the fewest conflicts, then unpaired, then least loaded.
                let mut best: Option<((usize, bool), u32)> = None;
                let mut seen = 0usize;
                let mut clean = 0usize;
                loads.scan(|_, p, m| {
                    if mark[p as usize] == stamp {
                        return false;
                    }
                    seen += 1;
                    let paired = active != NONE && {
                        let a = process_of(active);
                        pairs.contains(a, p as usize) || pairs.contains(p as usize, a)
                    };
                    let rank = (self.conflicts(m, &holders), paired);
                    if best.is_none_or(|(b, _)| rank < b) {
                        best = Some((rank, m));
                    }
                    clean += usize::from(rank.0 == 0);
                    rank == (0, false) || clean >= PAIR_CANDIDATES || seen >= SCAN_LIMIT
                });
                let Some((_, m)) = best else { break };
                standby.push((t as u32, m));
                loads.add(m);
                mark[process_of(m)] = stamp;
                holders.push(m);
                if active != NONE {
                    pairs.insert(process_of(active), process_of(m));
                }
            }
        }
        standby
    }
}

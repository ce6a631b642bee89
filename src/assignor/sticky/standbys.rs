//! Standby tasks: S1 (sticky standbys) and S2 (fill), on processes that do not hold the task and
//! on distinct racks and tag values.

use std::collections::HashMap;

use super::group::Group;
use super::loads::{Loads, Quota};
use super::NONE;

/// Standby candidates looked at per replica in S2, in least-loaded order, for one on a distinct
/// rack (and tag values) below its spread cap with the active's process.
pub(super) const SCAN_LIMIT: usize = 64;

/// Candidates without conflicts and below the cap looked at in S2 for one whose process the
/// active's process does not back up: mirrored pairs are a preference between near-equals (in a
/// large group every process soon backs up many others).
pub(super) const PAIR_CANDIDATES: usize = 2;

/// How much more loaded than the least-loaded candidate a candidate of S2 may be: the cap is a
/// preference among near-equals, never a reason to pile standbys on a light member.
pub(super) const LOAD_SLACK: u32 = 1;

/// Candidates without conflicts S2's walk looks at, below the cap or not: past them, the cap
/// gives way to the cost of the walk.
pub(super) const CLEAN_CANDIDATES: usize = 4;

/// Processes S2 tries in turn before it walks the least-loaded order.
pub(super) const TURN_TRIES: usize = 4;

/// Hashes a pair of process numbers (look-ups only: no iteration order depends on it).
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

/// `n(p, q)`: the standbys placed so far on process `q` of tasks active on process `p`. A byte
/// per pair of processes when that is at most 64 bytes a task (one load a look-up, and a table a
/// large group's cache holds: 1 MB for 1,000 processes, where counts of 4 bytes missed the cache
/// on most look-ups), widened to 4 bytes a pair the first time a count passes 255; a hash map
/// of `(p << 32) | q` otherwise (a group with many processes and few tasks).
pub(super) enum PairCounts {
    Bytes { processes: usize, counts: Vec<u8> },
    Wide { processes: usize, counts: Vec<u32> },
    Hashed(HashMap<u64, u32, std::hash::BuildHasherDefault<PairHasher>>),
}

impl PairCounts {
    pub(super) fn new(processes: usize, tasks: usize) -> Self {
        let pairs = processes.saturating_mul(processes);
        if pairs <= tasks.saturating_mul(64).max(1 << 16) {
            PairCounts::Bytes {
                processes,
                counts: vec![0; pairs],
            }
        } else {
            PairCounts::Hashed(HashMap::default())
        }
    }

    #[inline]
    pub(super) fn get(&self, p: usize, q: usize) -> u32 {
        match self {
            PairCounts::Bytes { processes, counts } => {
                counts.get(p * processes + q).map_or(0, |&n| u32::from(n))
            }
            PairCounts::Wide { processes, counts } => {
                counts.get(p * processes + q).copied().unwrap_or(0)
            }
            PairCounts::Hashed(map) => map
                .get(&(((p as u64) << 32) | q as u64))
                .copied()
                .unwrap_or(0),
        }
    }

    #[inline]
    pub(super) fn add(&mut self, p: usize, q: usize) {
        if let PairCounts::Bytes { processes, counts } = self {
            if let Some(n) = counts.get_mut(p * *processes + q) {
                if *n < u8::MAX {
                    *n += 1;
                    return;
                }
            }
        }
        self.add_rarely(p, q);
    }

    /// [`PairCounts::add`] past a byte's count, or in the other forms.
    #[cold]
    fn add_rarely(&mut self, p: usize, q: usize) {
        match self {
            PairCounts::Bytes { processes, counts } => {
                let at = p * *processes + q;
                if at < counts.len() {
                    let processes = *processes;
                    let mut wide: Vec<u32> = counts.iter().map(|&n| u32::from(n)).collect();
                    wide[at] += 1;
                    *self = PairCounts::Wide {
                        processes,
                        counts: wide,
                    };
                }
            }
            PairCounts::Wide { processes, counts } => {
                if let Some(n) = counts.get_mut(p * *processes + q) {
                    *n += 1;
                }
            }
            PairCounts::Hashed(map) => {
                *map.entry(((p as u64) << 32) | q as u64).or_default() += 1;
            }
        }
    }
}

/// S2's rank of a candidate at or past its cap `c` with `n` standbys of the active's process:
/// `1 + (n + 1) / c` in 16-bit fixed point, the share of the cap it would hold. Ranking by the
/// count alone sent a process's standbys to the candidate with the smallest cap whenever the
/// first candidates were all at theirs (a one-member process held 4 where its cap was 1).
pub(super) fn over_cap(n: u32, c: u32) -> u64 {
    1 + ((u64::from(n) + 1) << 16) / u64::from(c.max(1))
}

/// How far past its cap `c` S1 keeps a process's previous standbys on one other process:
/// `max(1, floor(c / 4))`.
pub(super) fn keep_slack(cap: u32) -> u32 {
    (cap / 4).max(1)
}

impl Group<'_> {
    pub(super) fn place_standbys(
        &self,
        owner: &[u32],
        warmup: &[(u32, u32)],
        loads: &mut Loads,
        stateful_count: &[u32],
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
        let mut pairs = PairCounts::new(num_processes, num_tasks);
        let cap = self.spread_caps(stateful_count, replicas);
        // S1 keeps a previous standby up to the cap and a little beyond: a cap that shrinks by
        // one (a process more, a few actives fewer) moves no standby that is near its place.
        // (A task with no active owner has no cap.)

        // S1: sticky standbys, in (partition, subtopology id) descending order.
        let total = (num_tasks as u64).saturating_add(
            self.num_standby_replicas
                .saturating_mul(self.num_stateful_tasks),
        );
        let mut qt = Quota::new(total, self.member_ids.len() as u64);
        // A member's fair total: S2 takes a candidate past the least-loaded one only up to it.
        let fair = total.div_ceil((self.member_ids.len() as u64).max(1));
        // S1 never asks for the least-loaded member of the group: no heap upkeep until S2.
        loads.unheap();
        for &t in self.partition_order.iter().rev() {
            if !self.stateful(t) {
                continue;
            }
            stamp += 1;
            holders.clear();
            let active = owner[t as usize];
            let pa = if active == NONE {
                NONE as usize
            } else {
                process_of(active)
            };
            for m in [Some(active), warmup_of(t)].into_iter().flatten() {
                if m != NONE {
                    mark[process_of(m)] = stamp;
                    holders.push(m);
                }
            }
            let start = standby.len();
            for _ in 0..replicas {
                let prev = self.prev_active[t as usize];
                let mut chosen = NONE;
                // The previous active owner first, else the least loaded previous standby.
                for (i, &c) in std::iter::once(&prev)
                    .chain(self.prev_standby_of(t))
                    .enumerate()
                {
                    if c == NONE || (i > 0 && chosen != NONE && !loads.less(c, chosen)) {
                        continue;
                    }
                    let q = process_of(c);
                    if mark[q] != stamp
                        && qt.below(loads.load[c as usize])
                        && (pa == NONE as usize || pairs.get(pa, q) < cap.keep(pa, q))
                        && self.conflicts(c, &holders) == 0
                    {
                        chosen = c;
                        if i == 0 {
                            break;
                        }
                    }
                }
                if chosen == NONE {
                    break;
                }
                let m = chosen;
                standby.push((t, m));
                loads.add(m);
                mark[process_of(m)] = stamp;
                holders.push(m);
                if pa != NONE as usize {
                    pairs.add(pa, process_of(m));
                }
                qt.on_assigned(loads.load[m as usize]);
            }
            s1_start[t as usize] = start as u32;
        }

        // S2: remaining replicas, in (subtopology id, partition) descending order.
        let s2_tasks = (0..num_tasks).any(|t| {
            self.stateful(t as u32) && s1_of(&standby, &s1_start, t).len() < replicas as usize
        });
        if !s2_tasks {
            return standby;
        }
        // Each process's turn: the offset of the next process its standbys go to.
        let mut turn = vec![1u32; num_processes];
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
                // The active's process's next processes in turn, while one of them fits at once.
                if let Some(m) = self.next_in_turn(&mut turn, active, loads, fair, |q, m| {
                    mark[q] != stamp
                        && self.conflicts(m, &holders) == 0
                        && pairs.get(process_of(active), q) < cap.cap(process_of(active), q)
                }) {
                    standby.push((t as u32, m));
                    loads.add(m);
                    mark[process_of(m)] = stamp;
                    holders.push(m);
                    pairs.add(process_of(active), process_of(m));
                    continue;
                }
                // Candidates in least-loaded order, while no more loaded than the first by
                // `LOAD_SLACK` and at most the fair total (the first always counts). The first
                // with no conflicts, below the cap and not backed up by the active's process
                // (no mirrored pairs) wins; failing that, by the second with no conflicts below
                // the cap or within the scan limit: the fewest conflicts, then below the cap
                // (else the fewest standbys of the active's process), then not backing up, then
                // the earliest.
                let mut best: Option<((usize, u64, bool), u32)> = None;
                let mut seen = 0usize;
                let mut fits = 0usize;
                let mut clean = 0usize;
                let mut lightest = None;
                loads.scan(|loads, q, m| {
                    if mark[q as usize] == stamp {
                        return false;
                    }
                    let load = loads.load[m as usize];
                    let first = *lightest.get_or_insert(load);
                    if best.is_some() && (load > first + LOAD_SLACK || u64::from(load) > fair) {
                        return true;
                    }
                    seen += 1;
                    let q = q as usize;
                    let (over, backing) = if active == NONE {
                        (0, false)
                    } else {
                        let p = process_of(active);
                        let (n, c) = (pairs.get(p, q), cap.cap(p, q));
                        let over = if n < c { 0 } else { over_cap(n, c) };
                        (over, pairs.get(q, p) > 0)
                    };
                    let rank = (self.conflicts(m, &holders), over, backing);
                    if best.is_none_or(|(b, _)| rank < b) {
                        best = Some((rank, m));
                    }
                    fits += usize::from(rank.0 == 0 && rank.1 == 0);
                    clean += usize::from(rank.0 == 0);
                    rank == (0, 0, false)
                        || fits >= PAIR_CANDIDATES
                        || clean >= CLEAN_CANDIDATES
                        || seen >= SCAN_LIMIT
                });
                let Some((_, m)) = best else { break };
                standby.push((t as u32, m));
                loads.add(m);
                mark[process_of(m)] = stamp;
                holders.push(m);
                if active != NONE {
                    pairs.add(process_of(active), process_of(m));
                }
            }
        }
        standby
    }

    /// S2's turn: up to `TURN_TRIES` processes after the active's process `p` in process order
    /// (`p + turn[p]`, cyclically, each try moving the turn on), the first whose least-loaded
    /// member is as little loaded as the group's least-loaded member, below `fair`, and `fits`. Taking the processes in turn spreads `p`'s standbys evenly at the
    /// cost of one look each, where the least-loaded order alone rotates in step with the
    /// actives' fill and keeps meeting the same few processes.
    fn next_in_turn(
        &self,
        turn: &mut [u32],
        active: u32,
        loads: &mut Loads,
        fair: u64,
        fits: impl Fn(usize, u32) -> bool,
    ) -> Option<u32> {
        let processes = self.capacity.len();
        if active == NONE || processes < 2 {
            return None;
        }
        let lightest = loads.least_loaded()?;
        let least = loads.load[lightest as usize];
        let p = self.member_process[active as usize] as usize;
        for _ in 0..TURN_TRIES {
            let offset = turn[p] as usize;
            turn[p] = (offset % (processes - 1) + 1) as u32;
            let q = (p + offset) % processes;
            let m = loads.best_of(q);
            let load = loads.load[m as usize];
            if load == least && u64::from(load) < fair && fits(q, m) {
                return Some(m);
            }
        }
        None
    }

    /// The spread caps of this placement (after L).
    fn spread_caps(&self, stateful_count: &[u32], replicas: u32) -> SpreadCaps<'_> {
        let mut wanted = vec![0u64; self.capacity.len()];
        for (m, &n) in stateful_count.iter().enumerate() {
            wanted[self.member_process[m] as usize] += u64::from(n) * u64::from(replicas);
        }
        let members = self.member_ids.len() as u64;
        let others = self
            .capacity
            .iter()
            .map(|&w| members.saturating_sub(u64::from(w)).max(1))
            .collect();
        SpreadCaps::new(&self.capacity, wanted, others)
    }
}

/// `c(p, q) = max(1, ceil(replicas × a(p) × w(q) / (members − w(p))))`: the standbys of process
/// `p`'s `a(p)` stateful actives that process `q`, with `w(q)` members, holds when they are
/// spread over the other processes in proportion to their members (as the loads place them).
pub(super) struct SpreadCaps<'g> {
    capacity: &'g [u32],
    /// `replicas × a(p)`.
    wanted: Vec<u64>,
    /// `members − w(p)`, at least 1.
    others: Vec<u64>,
    /// The caps and keep limits worked out once per process for each process size the group
    /// has, when it has a few: `table[p * sizes + size_of[q]]` (a load where a division cost a
    /// tenth of S1).
    size_of: Vec<u8>,
    sizes: usize,
    table: Vec<(u32, u32)>,
}

/// Process sizes (members per process) up to which the caps are tabled.
const TABLED_SIZES: usize = 8;

impl<'g> SpreadCaps<'g> {
    fn new(capacity: &'g [u32], wanted: Vec<u64>, others: Vec<u64>) -> Self {
        let mut distinct: Vec<u32> = Vec::new();
        let mut size_of = Vec::with_capacity(capacity.len());
        for &w in capacity {
            let at = match distinct.iter().position(|&d| d == w) {
                Some(at) => at,
                None if distinct.len() < TABLED_SIZES => {
                    distinct.push(w);
                    distinct.len() - 1
                }
                None => {
                    size_of.clear();
                    distinct.clear();
                    break;
                }
            };
            size_of.push(at as u8);
        }
        let mut caps = SpreadCaps {
            capacity,
            wanted,
            others,
            size_of,
            sizes: distinct.len(),
            table: Vec::new(),
        };
        if caps.sizes > 0 {
            let mut table = Vec::with_capacity(capacity.len() * caps.sizes);
            for p in 0..capacity.len() {
                table.extend(distinct.iter().map(|&w| {
                    let c = caps.computed(p, w);
                    (c, c.saturating_add(keep_slack(c)))
                }));
            }
            caps.table = table;
        }
        caps
    }

    fn computed(&self, p: usize, w: u32) -> u32 {
        let c = (self.wanted[p] * u64::from(w)).div_ceil(self.others[p]);
        u32::try_from(c.max(1)).unwrap_or(u32::MAX)
    }

    /// `c(p, q)`.
    #[inline(always)]
    pub(super) fn cap(&self, p: usize, q: usize) -> u32 {
        if self.sizes > 0 {
            self.table[p * self.sizes + self.size_of[q] as usize].0
        } else {
            self.computed(p, self.capacity[q])
        }
    }

    /// `k(c(p, q))`: S1's keep limit.
    #[inline(always)]
    pub(super) fn keep(&self, p: usize, q: usize) -> u32 {
        if self.sizes > 0 {
            self.table[p * self.sizes + self.size_of[q] as usize].1
        } else {
            let c = self.computed(p, self.capacity[q]);
            c.saturating_add(keep_slack(c))
        }
    }
}

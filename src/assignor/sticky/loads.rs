//! The placement core the phases share: member and process loads, the least-loaded order kept
//! in two levels of heaps, and the dynamic quotas.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The dynamic quota of 2.10: `ceil(remaining / members)`, and each member that reaches it
/// takes its share out.
pub(super) struct Quota {
    pub(super) remaining: u64,
    pub(super) members: u64,
    pub(super) quota: u64,
}

impl Quota {
    pub(super) fn new(total: u64, members: u64) -> Self {
        let mut q = Quota {
            remaining: total,
            members,
            quota: 0,
        };
        q.recompute();
        q
    }

    pub(super) fn recompute(&mut self) {
        self.quota = if self.members == 0 {
            0
        } else {
            self.remaining.div_ceil(self.members)
        };
    }

    pub(super) fn below(&self, count: u32) -> bool {
        u64::from(count) < self.quota
    }

    /// After an assignment that brought a member's count to `count`.
    pub(super) fn on_assigned(&mut self, count: u32) {
        if u64::from(count) == self.quota {
            self.remaining = self.remaining.saturating_sub(self.quota);
            self.members = self.members.saturating_sub(1);
            self.recompute();
        }
    }
}

/// Process loads as integers in the order of the fractions `load / capacity` (2.10's process
/// load), so that a member's place in the group order is one packed integer ([`Loads::key`]).
#[derive(Clone, Debug)]
pub(super) enum LoadScale {
    /// `load * factor[p]`, where `factor[p]` is the capacities' least common multiple over
    /// process `p`'s capacity: exact.
    Multiple(Vec<u64>),
    /// `load * c2 / capacity` rounded down, where `c2` is the largest capacity squared: two
    /// different fractions whose denominators are at most `c` differ by at least `1 / c²`, so
    /// scaled by `c²` they are at least 1 apart and rounding keeps their order; equal fractions
    /// stay equal. One division a key, for groups whose capacities have a large multiple.
    Rounded { c2: u64, capacity: Vec<u64> },
}

impl LoadScale {
    /// The scale for these capacities when loads up to `max_load` fit in 64 bits scaled.
    pub(super) fn new(capacity: &[u32], max_load: u64) -> Option<Self> {
        let largest = u64::from(capacity.iter().copied().max().unwrap_or(1).max(1));
        let c2 = largest * largest;
        let fits = |factor: u64| u128::from(max_load) * u128::from(factor) <= u128::from(u64::MAX);
        let mut multiple = 1u64;
        for &c in capacity {
            let c = u64::from(c.max(1));
            let (mut a, mut b) = (multiple, c);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            multiple = match (multiple / a).checked_mul(c) {
                Some(m) if m <= c2 => m,
                _ => {
                    multiple = 0;
                    break;
                }
            };
        }
        if multiple != 0 && fits(multiple) {
            let factors = capacity.iter().map(|&c| multiple / u64::from(c.max(1)));
            return Some(LoadScale::Multiple(factors.collect()));
        }
        let capacity = capacity.iter().map(|&c| u64::from(c.max(1))).collect();
        fits(c2).then_some(LoadScale::Rounded { c2, capacity })
    }

    /// Process `p`'s load, scaled.
    #[inline]
    pub(super) fn scaled(&self, p: usize, load: u64) -> u64 {
        match self {
            LoadScale::Multiple(factor) => load * factor[p],
            // `load * c2` fits: `new` checked it for the largest load.
            LoadScale::Rounded { c2, capacity } => load * c2 / capacity[p],
        }
    }
}

/// A member's place in the group's least-loaded order, packed so that keys compare as integers:
/// member load (high 32 bits), its process's scaled load (64 bits), member index (low 32 bits,
/// which makes every key distinct).
pub(super) type Key = u128;

/// Loads and the least-loaded index.
///
/// Two levels of binary min-heaps kept exact at all times: per process, its members by
/// (member load, member id), stored as one flat array of per-process segments; over the
/// processes, each process by its best member's key. A placement re-keys its member and its
/// process in place (a sift each), so the top of the process heap is always the least-loaded
/// member of the group, and the members in least-loaded order can be enumerated without
/// changing either heap.
pub(super) struct Loads<'g> {
    pub(super) member_process: &'g [u32],
    pub(super) capacity: &'g [u32],
    pub(super) scale: &'g LoadScale,
    /// Active + standby (+ warm-up) per member.
    pub(super) load: Vec<u32>,
    pub(super) active: Vec<u32>,
    /// Active + standby (+ warm-up) per process.
    pub(super) process_load: Vec<u64>,
    /// Process `p`'s members are the heap `member_heap[member_start[p]..member_start[p + 1]]`.
    pub(super) member_heap: Vec<u32>,
    pub(super) member_start: Vec<u32>,
    /// Position of each member in `member_heap`.
    pub(super) member_pos: Vec<u32>,
    /// Each process keyed by its best member.
    pub(super) process_heap: Vec<Key>,
    pub(super) process_pos: Vec<u32>,
    /// Scratch space of [`Loads::scan`].
    pub(super) frontier: BinaryHeap<Reverse<(Key, u32)>>,
    /// Whether both heaps are exact. Phases that never ask for the least-loaded member (A1, A2)
    /// let them go stale and only count; the next question rebuilds them in O(members).
    pub(super) heaped: bool,
}

impl<'g> Loads<'g> {
    pub(super) fn new(
        member_process: &'g [u32],
        capacity: &'g [u32],
        scale: &'g LoadScale,
    ) -> Self {
        let num_members = member_process.len();
        let mut member_start = Vec::with_capacity(capacity.len() + 1);
        let mut acc = 0u32;
        for &c in capacity {
            member_start.push(acc);
            acc += c;
        }
        member_start.push(acc);
        // Members in id order within each segment: with equal loads that is already a heap.
        let mut fill = member_start.clone();
        let mut member_heap = vec![0u32; num_members];
        let mut member_pos = vec![0u32; num_members];
        for (m, &p) in member_process.iter().enumerate() {
            let slot = &mut fill[p as usize];
            member_heap[*slot as usize] = m as u32;
            member_pos[m] = *slot;
            *slot += 1;
        }
        let mut loads = Loads {
            member_process,
            capacity,
            scale,
            load: vec![0; num_members],
            active: vec![0; num_members],
            process_load: vec![0; capacity.len()],
            member_heap,
            member_start,
            member_pos,
            process_heap: Vec::with_capacity(capacity.len()),
            process_pos: (0..capacity.len() as u32).collect(),
            frontier: BinaryHeap::new(),
            heaped: false,
        };
        loads.heapify();
        loads
    }

    /// Stops keeping the heaps until the next least-loaded question ([`Loads::heapify`]).
    pub(super) fn unheap(&mut self) {
        self.heaped = false;
    }

    /// Rebuilds both heaps from the loads (bottom-up, O(members + processes)), if stale.
    pub(super) fn heapify(&mut self) {
        if self.heaped {
            return;
        }
        for p in 0..self.capacity.len() {
            let len = (self.member_start[p + 1] - self.member_start[p]) as usize;
            for i in (0..len / 2).rev() {
                self.member_sift_down(p, i);
            }
        }
        self.process_heap.clear();
        for p in 0..self.capacity.len() as u32 {
            let key = self.process_key(p);
            self.process_heap.push(key);
        }
        for i in 0..self.process_heap.len() {
            let p = self.process_of(self.process_heap[i]);
            self.process_pos[p] = i as u32;
        }
        for i in (0..self.process_heap.len() / 2).rev() {
            self.process_sift_down(i);
        }
        self.heaped = true;
    }

    pub(super) fn add(&mut self, member: u32) {
        self.load[member as usize] += 1;
        self.process_load[self.member_process[member as usize] as usize] += 1;
        self.rekey(member, false);
    }

    pub(super) fn add_active(&mut self, member: u32) {
        self.active[member as usize] += 1;
        self.add(member);
    }

    pub(super) fn remove_active(&mut self, member: u32) {
        let m = member as usize;
        self.active[m] = self.active[m].saturating_sub(1);
        self.load[m] = self.load[m].saturating_sub(1);
        let p = self.member_process[m] as usize;
        self.process_load[p] = self.process_load[p].saturating_sub(1);
        self.rekey(member, true);
    }

    /// Whether member `a` is less loaded than member `b` (2.10's order).
    pub(super) fn less(&self, a: u32, b: u32) -> bool {
        self.key(a) < self.key(b)
    }

    /// Member `m`'s key: (member load, process load / capacity, member index), packed.
    #[inline]
    pub(super) fn key(&self, m: u32) -> Key {
        let p = self.member_process[m as usize] as usize;
        let process = self.scale.scaled(p, self.process_load[p]);
        (Key::from(self.load[m as usize]) << 96) | (Key::from(process) << 32) | Key::from(m)
    }

    /// The member whose key it is.
    #[inline]
    pub(super) fn member_of(key: Key) -> u32 {
        key as u32
    }

    /// The process of the member whose key it is.
    #[inline]
    pub(super) fn process_of(&self, key: Key) -> usize {
        self.member_process[Self::member_of(key) as usize] as usize
    }

    /// The key of process `p`: its best member's.
    pub(super) fn process_key(&self, p: u32) -> Key {
        self.key(self.member_heap[self.member_start[p as usize] as usize])
    }

    /// After `member`'s load changed: re-keys it in its process's heap and the process in the
    /// process heap. Inlined: most calls come while the heaps are not kept and do nothing.
    ///
    /// A load that fell (`fell`) lowers the member's key and its process's (both loads in them
    /// fell), so both only move up; a load that rose moves both only down (the process's best
    /// member is then the same or one after it in member order, at a higher process load).
    #[inline]
    pub(super) fn rekey(&mut self, member: u32, fell: bool) {
        if self.heaped {
            self.rekey_heaped(member, fell);
        }
    }

    pub(super) fn rekey_heaped(&mut self, member: u32, fell: bool) {
        let p = self.member_process[member as usize] as usize;
        let base = self.member_start[p] as usize;
        let local = self.member_pos[member as usize] as usize - base;
        let i = self.process_pos[p] as usize;
        if fell {
            self.member_sift_up(p, local);
            self.process_heap[i] = self.process_key(p as u32);
            self.process_sift_up(i);
        } else {
            self.member_sift_down(p, local);
            self.process_heap[i] = self.process_key(p as u32);
            self.process_sift_down(i);
        }
    }

    /// A member's key within its process: (member load, member index).
    #[inline]
    pub(super) fn member_key(&self, m: u32) -> u64 {
        (u64::from(self.load[m as usize]) << 32) | u64::from(m)
    }

    /// Sifts entry `i` of process `p`'s member heap up; its final position. Like the sifts
    /// below, it moves a hole rather than swapping: each level writes one entry and its
    /// position, and the moving entry is written once at the end.
    pub(super) fn member_sift_up(&mut self, p: usize, mut i: usize) -> usize {
        let base = self.member_start[p] as usize;
        let m = self.member_heap[base + i];
        let key = self.member_key(m);
        while i > 0 {
            let parent = (i - 1) / 2;
            let above = self.member_heap[base + parent];
            if key >= self.member_key(above) {
                break;
            }
            self.member_heap[base + i] = above;
            self.member_pos[above as usize] = (base + i) as u32;
            i = parent;
        }
        self.member_heap[base + i] = m;
        self.member_pos[m as usize] = (base + i) as u32;
        i
    }

    pub(super) fn member_sift_down(&mut self, p: usize, mut i: usize) {
        let base = self.member_start[p] as usize;
        let len = (self.member_start[p + 1] as usize) - base;
        let m = self.member_heap[base + i];
        let key = self.member_key(m);
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let mut child = left;
            let mut child_key = self.member_key(self.member_heap[base + left]);
            if left + 1 < len {
                let right_key = self.member_key(self.member_heap[base + left + 1]);
                if right_key < child_key {
                    child = left + 1;
                    child_key = right_key;
                }
            }
            if key <= child_key {
                break;
            }
            let below = self.member_heap[base + child];
            self.member_heap[base + i] = below;
            self.member_pos[below as usize] = (base + i) as u32;
            i = child;
        }
        self.member_heap[base + i] = m;
        self.member_pos[m as usize] = (base + i) as u32;
    }

    /// Sifts entry `i` of the process heap up; its final position.
    pub(super) fn process_sift_up(&mut self, mut i: usize) -> usize {
        let key = self.process_heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let above = self.process_heap[parent];
            if key >= above {
                break;
            }
            self.process_heap[i] = above;
            let q = self.process_of(above);
            self.process_pos[q] = i as u32;
            i = parent;
        }
        self.process_heap[i] = key;
        let q = self.process_of(key);
        self.process_pos[q] = i as u32;
        i
    }

    pub(super) fn process_sift_down(&mut self, mut i: usize) {
        let len = self.process_heap.len();
        let key = self.process_heap[i];
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let mut child = left;
            let mut below = self.process_heap[left];
            if left + 1 < len && self.process_heap[left + 1] < below {
                child = left + 1;
                below = self.process_heap[child];
            }
            if key <= below {
                break;
            }
            self.process_heap[i] = below;
            let q = self.process_of(below);
            self.process_pos[q] = i as u32;
            i = child;
        }
        self.process_heap[i] = key;
        let q = self.process_of(key);
        self.process_pos[q] = i as u32;
    }

    /// The least-loaded member of the group.
    pub(super) fn least_loaded(&mut self) -> Option<u32> {
        self.heapify();
        Some(Self::member_of(*self.process_heap.first()?))
    }

    /// Process `p`'s least-loaded member (the heaps must be kept: after [`Loads::least_loaded`]).
    pub(super) fn best_of(&self, p: usize) -> u32 {
        self.member_heap[self.member_start[p] as usize]
    }

    /// The processes' best members in least-loaded order, lazily: `visit` is called with each
    /// process and its best member until it returns `true` (the scan stops there) or every
    /// process was visited. Neither heap changes; the cost is O(k log k) for k visits.
    pub(super) fn scan(&mut self, mut visit: impl FnMut(&Self, u32, u32) -> bool) {
        self.heapify();
        let mut frontier = std::mem::take(&mut self.frontier);
        frontier.clear();
        if let Some(&key) = self.process_heap.first() {
            frontier.push(Reverse((key, 0)));
        }
        while let Some(Reverse((key, i))) = frontier.pop() {
            if visit(self, self.process_of(key) as u32, Self::member_of(key)) {
                break;
            }
            for child in [2 * i + 1, 2 * i + 2] {
                if let Some(&key) = self.process_heap.get(child as usize) {
                    frontier.push(Reverse((key, child)));
                }
            }
        }
        self.frontier = frontier;
    }
}

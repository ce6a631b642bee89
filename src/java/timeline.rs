//! Kafka's `TimelineHashMap` (server-common `BaseHashTable`), as far as its iteration order
//! goes: a power-of-two table of slots (2 at first), doubled before an insertion that would
//! leave it more than three quarters full and never shrunk; a key's slot is the top bits of its
//! `hashCode()` times Knuth's 64-bit Fibonacci constant; a slot holds its keys in an array,
//! a new key appended, a replaced one kept in place, a removed one taken out with the others
//! keeping their order; a rehash walks the old slots in order and appends each one's keys in
//! array order. The latest state iterates slot by slot, each slot's keys last first
//! (`SnapshottableHashTable.CurrentIterator` pops them from the end).
//!
//! The slots' arrays are kept as chains through one flat arena rather than an array per slot:
//! a slot's head is its last added key and each key links to the one added before it in the
//! slot, so that iteration (last first) follows the links. A committed offset is one arena
//! entry and a 4-byte head, where an array per slot cost a 24-byte header per slot.

use super::hash_map::JavaHashCode;

/// No entry: the end of a slot's chain, or an empty slot's head.
const NONE: u32 = u32::MAX;

#[derive(Clone)]
struct Entry<K, V> {
    key: K,
    value: V,
    /// The key added before this one to its slot (`NONE`: it is the slot's first).
    next: u32,
}

/// A map that iterates as a Kafka `TimelineHashMap` of the same history does.
#[derive(Clone)]
pub(crate) struct TimelineMap<K, V> {
    /// Every key, in no particular order (a removal moves the last into the hole).
    entries: Vec<Entry<K, V>>,
    /// Per slot, its last added key's index in `entries`.
    heads: Box<[u32]>,
}

impl<K, V> Default for TimelineMap<K, V> {
    fn default() -> Self {
        TimelineMap {
            entries: Vec::new(),
            heads: vec![NONE; 2].into_boxed_slice(),
        }
    }
}

/// Two maps are equal when Kafka's would be: as many slots, the same keys and values in the
/// same order (the slots' arrays follow from the order and the keys' hashes), wherever the
/// arena keeps them.
impl<K: PartialEq, V: PartialEq> PartialEq for TimelineMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.heads.len() == other.heads.len()
            && self.entries.len() == other.entries.len()
            && self.iter().eq(other.iter())
    }
}

impl<K: Eq, V: Eq> Eq for TimelineMap<K, V> {}

impl<K: std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for TimelineMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// `BaseHashTable.findSlot`: the top `log2(slots)` bits of `hash × -7046029254386353131`.
fn slot_of(hash: i32, slots: usize) -> usize {
    let bits = slots.trailing_zeros();
    ((i64::from(hash) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
}

impl<K, V> TimelineMap<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of slots (Kafka's table capacity).
    pub(crate) fn slots(&self) -> usize {
        self.heads.len()
    }

    /// In Kafka's iteration order: slot by slot, each slot's keys last first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.heads.iter().flat_map(move |&head| {
            std::iter::successors((head != NONE).then_some(head), move |&at| {
                let next = self.entries[at as usize].next;
                (next != NONE).then_some(next)
            })
            .map(move |at| {
                let e = &self.entries[at as usize];
                (&e.key, &e.value)
            })
        })
    }

    /// The indices of a slot's keys, last added first.
    fn chain(&self, slot: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.heads[slot];
        std::iter::from_fn(move || {
            let here = at;
            (here != NONE).then(|| {
                at = self.entries[here as usize].next;
                here as usize
            })
        })
    }

    /// Whatever links to entry `target` of `slot` (its head or the entry added after it in the
    /// slot) links to `to` instead.
    fn relink(&mut self, slot: usize, target: usize, to: u32) {
        if self.heads[slot] as usize == target {
            self.heads[slot] = to;
            return;
        }
        let mut at = self.heads[slot] as usize;
        loop {
            let next = self.entries[at].next;
            if next as usize == target {
                self.entries[at].next = to;
                return;
            }
            at = next as usize;
        }
    }
}

impl<K: JavaHashCode + Eq, V> TimelineMap<K, V> {
    fn slot(&self, key: &K) -> usize {
        slot_of(key.java_hash(), self.heads.len())
    }

    /// The arena index of a key, found by a borrowed form of it.
    fn find<Q>(&self, key: &Q) -> Option<usize>
    where
        K: std::borrow::Borrow<Q>,
        Q: JavaHashCode + Eq + ?Sized,
    {
        self.chain(slot_of(key.java_hash(), self.heads.len()))
            .find(|&at| self.entries[at].key.borrow() == key)
    }

    /// [`TimelineMap::get`] by a borrowed form of the key (a `&str` for a `String` key: no
    /// key is built to look one up). Its hash must be the key's, as `str`'s is `String`'s.
    pub(crate) fn get_by<Q>(&self, key: &Q) -> Option<&V>
    where
        K: std::borrow::Borrow<Q>,
        Q: JavaHashCode + Eq + ?Sized,
    {
        self.find(key).map(|at| &self.entries[at].value)
    }

    /// [`TimelineMap::entry_or_insert_with`] by a borrowed form of the key: the key is built
    /// (`owned`) only when it is absent.
    pub(crate) fn entry_by<Q>(
        &mut self,
        key: &Q,
        owned: impl FnOnce() -> K,
        make: impl FnOnce() -> V,
    ) -> &mut V
    where
        K: std::borrow::Borrow<Q>,
        Q: JavaHashCode + Eq + ?Sized,
    {
        let at = match self.find(key) {
            Some(at) => at,
            None => self.push_new(owned(), make()),
        };
        &mut self.entries[at].value
    }

    /// [`TimelineMap::get_mut`] by a borrowed form of the key.
    pub(crate) fn get_mut_by<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: std::borrow::Borrow<Q>,
        Q: JavaHashCode + Eq + ?Sized,
    {
        self.find(key).map(|at| &mut self.entries[at].value)
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.get_by(key)
    }

    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.get_mut_by(key)
    }

    /// `baseAddOrReplace`: a known key keeps its place; a new one may grow the table first.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        if let Some(v) = self.get_mut(&key) {
            return Some(std::mem::replace(v, value));
        }
        self.push_new(key, value);
        None
    }

    /// Adds a key known to be absent (growing the table first when Kafka's would: when
    /// `(size + 1) * 0.75 > capacity`), as its slot's last; answers its arena index.
    fn push_new(&mut self, key: K, value: V) -> usize {
        let len = self.entries.len();
        if (len + 1) * 3 > self.heads.len() * 4 && self.heads.len() < (1 << 30) {
            self.rehash(self.heads.len() * 2);
        }
        assert!(
            len < NONE as usize,
            "a TimelineMap holds fewer than 2^32 - 1 keys"
        );
        // Grown by an eighth, not doubled: a map of committed offsets is mostly arena, and
        // doubling would leave up to half of it spare.
        if len == self.entries.capacity() {
            self.entries.reserve_exact(len / 8 + 1);
        }
        let s = self.slot(&key);
        self.entries.push(Entry {
            key,
            value,
            next: self.heads[s],
        });
        self.heads[s] = len as u32;
        len
    }

    /// The value of `key`, made by `make` (and inserted) when absent.
    pub(crate) fn entry_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.find(&key) {
            Some(at) => at,
            None => self.push_new(key, make()),
        };
        &mut self.entries[at].value
    }

    /// `baseRemove`: the others of its slot keep their order.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let at = self.find(key)?;
        let next = self.entries[at].next;
        self.relink(self.slot(key), at, next);
        let last = self.entries.len() - 1;
        if at != last {
            // The last entry moves into the hole: whatever linked to it links to its new place.
            let s = self.slot(&self.entries[last].key);
            self.relink(s, last, at as u32);
        }
        Some(self.entries.swap_remove(at).value)
    }

    /// Kafka's rehash: the old slots in order, each one's keys in array order (the reverse of
    /// its chain), appended to their new slots.
    fn rehash(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.heads, vec![NONE; slots].into_boxed_slice());
        let mut keys = Vec::new();
        for head in old.iter() {
            keys.clear();
            let mut at = *head;
            while at != NONE {
                keys.push(at);
                at = self.entries[at as usize].next;
            }
            for &at in keys.iter().rev() {
                let s = self.slot(&self.entries[at as usize].key);
                self.entries[at as usize].next = self.heads[s];
                self.heads[s] = at;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn slots_are_the_top_bits_of_the_fibonacci_product() {
        // As `crate::java::timeline_slot`, which the member order uses.
        for key in ["bar-0", "bar-1", "foo", "m1", ""] {
            for bits in 1..6 {
                assert_eq!(
                    slot_of(super::super::string_hash(key), 1 << bits) as u64,
                    super::super::timeline_slot(key, bits)
                );
            }
        }
    }

    #[test]
    fn a_slot_iterates_last_first_and_growth_keeps_array_order() {
        // Kafka's OffsetMetadataManagerTest: topics bar-0 and bar-1 share slot 0 of a 2-slot
        // table and iterate bar-1, bar-0; partitions 0 and 1 iterate 0, 1.
        let mut topics: TimelineMap<String, ()> = TimelineMap::default();
        topics.insert("bar-0".into(), ());
        topics.insert("bar-1".into(), ());
        let order: Vec<&str> = topics.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(order, ["bar-1", "bar-0"]);
        let mut partitions: TimelineMap<i32, ()> = TimelineMap::default();
        partitions.insert(0, ());
        partitions.insert(1, ());
        assert_eq!(
            partitions.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [0, 1]
        );
        // A third key doubles the table (3 × 0.75 > 2), a sixth again.
        partitions.insert(2, ());
        assert_eq!(partitions.heads.len(), 4);
        for p in 3..6 {
            partitions.insert(p, ());
        }
        assert_eq!(partitions.heads.len(), 8);
        assert_eq!(partitions.len(), 6);
        // Replacing keeps the place; removing keeps the others' order; the table never shrinks.
        let before: Vec<i32> = partitions.iter().map(|(k, _)| *k).collect();
        partitions.insert(3, ());
        assert_eq!(
            partitions.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            before
        );
        partitions.remove(&3);
        let after: Vec<i32> = before.iter().copied().filter(|p| *p != 3).collect();
        assert_eq!(
            partitions.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            after
        );
        assert_eq!(partitions.heads.len(), 8);
    }

    /// The table as Kafka's `BaseHashTable` keeps it, an array per slot: what the arena and
    /// its chains must iterate as.
    struct Reference<K, V> {
        slots: Vec<Vec<(K, V)>>,
        len: usize,
    }

    impl<K: JavaHashCode + Eq + Clone, V: Clone> Reference<K, V> {
        fn new() -> Self {
            Reference {
                slots: vec![Vec::new(), Vec::new()],
                len: 0,
            }
        }

        fn slot(&self, key: &K) -> usize {
            slot_of(key.java_hash(), self.slots.len())
        }

        fn get(&self, key: &K) -> Option<&V> {
            let s = self.slot(key);
            self.slots[s].iter().find(|(k, _)| k == key).map(|(_, v)| v)
        }

        fn insert(&mut self, key: K, value: V) -> Option<V> {
            let s = self.slot(&key);
            if let Some((_, v)) = self.slots[s].iter_mut().find(|(k, _)| *k == key) {
                return Some(std::mem::replace(v, value));
            }
            if (self.len + 1) * 3 > self.slots.len() * 4 {
                let old = std::mem::take(&mut self.slots);
                self.slots = (0..old.len() * 2).map(|_| Vec::new()).collect();
                for (k, v) in old.into_iter().flatten() {
                    let s = self.slot(&k);
                    self.slots[s].push((k, v));
                }
            }
            let s = self.slot(&key);
            self.slots[s].push((key, value));
            self.len += 1;
            None
        }

        fn remove(&mut self, key: &K) -> Option<V> {
            let s = self.slot(key);
            let at = self.slots[s].iter().position(|(k, _)| k == key)?;
            self.len -= 1;
            Some(self.slots[s].remove(at).1)
        }

        fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
            self.slots
                .iter()
                .flat_map(|slot| slot.iter().rev().map(|(k, v)| (k, v)))
        }
    }

    /// A small xorshift generator: the same sequences on every run and target.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn agree<K, V>(map: &TimelineMap<K, V>, reference: &Reference<K, V>, keys: &[K])
    where
        K: JavaHashCode + Eq + Clone + std::fmt::Debug,
        V: Clone + PartialEq + std::fmt::Debug,
    {
        assert_eq!(map.len(), reference.len);
        assert_eq!(map.heads.len(), reference.slots.len());
        assert!(map.iter().eq(reference.iter()), "{map:?}");
        for k in keys {
            assert_eq!(map.get(k), reference.get(k));
        }
    }

    /// Random inserts, replacements and removals of keys drawn from `keys`, each step checked
    /// against the reference: the same iteration order, slot count and look-ups.
    fn against_reference<K>(keys: &[K], seed: u64, steps: usize)
    where
        K: JavaHashCode + Eq + Clone + std::fmt::Debug,
    {
        let mut rng = Rng(seed);
        let mut map: TimelineMap<K, u64> = TimelineMap::default();
        let mut reference = Reference::new();
        for step in 0..steps as u64 {
            let key = keys[rng.below(keys.len() as u64) as usize].clone();
            // Mostly inserts early on, so that the table grows; then as many removals.
            let remove_odds = if step < steps as u64 / 3 { 4 } else { 2 };
            match rng.below(8) {
                n if n < remove_odds - 1 => {
                    assert_eq!(map.remove(&key), reference.remove(&key));
                }
                n if n == remove_odds - 1 => {
                    let v = *map.entry_or_insert_with(key.clone(), || step);
                    let expected = match reference.get(&key) {
                        Some(v) => *v,
                        None => {
                            reference.insert(key.clone(), step);
                            step
                        }
                    };
                    assert_eq!(v, expected);
                    *map.entry_by(&key, || unreachable!(), || unreachable!()) += 1;
                    reference.insert(key, expected + 1);
                }
                _ => assert_eq!(map.insert(key.clone(), step), reference.insert(key, step)),
            }
            agree(&map, &reference, keys);
        }
        // Emptied, the map keeps its slots and fills again alike.
        for k in keys {
            assert_eq!(map.remove(k), reference.remove(k));
        }
        agree(&map, &reference, keys);
        for k in keys.iter().rev() {
            assert_eq!(map.insert(k.clone(), 0), reference.insert(k.clone(), 0));
        }
        agree(&map, &reference, keys);
    }

    #[test]
    fn the_arena_iterates_as_an_array_per_slot_would() {
        let partitions: Vec<i32> = (0..40).chain([-1, i32::MIN, i32::MAX, 1 << 20]).collect();
        let topics: Vec<String> = (0..60).map(|t| format!("topic-{t}")).collect();
        for seed in 1..=12u64 {
            against_reference(&partitions, seed * 0x9e37_79b9, 600);
            against_reference(&topics, seed * 0x2545_f491, 600);
        }
        // Many keys: several doublings, removals from long-grown tables.
        let many: Vec<i32> = (0..1000).collect();
        against_reference(&many, 7, 3000);
    }

    #[test]
    fn maps_are_equal_by_their_order_wherever_the_arena_keeps_their_keys() {
        let build = |keys: &[i32]| {
            let mut m: TimelineMap<i32, ()> = TimelineMap::default();
            for k in keys {
                m.insert(*k, ());
            }
            m.remove(&9);
            m
        };
        // The arenas hold 2, 1 and 1, 2; the maps iterate alike, as Kafka's would.
        let (a, b) = (build(&[9, 1, 2]), build(&[1, 2, 9]));
        assert_eq!(a.entries[0].key, 2);
        assert_eq!(b.entries[0].key, 1);
        assert!(a.iter().eq(b.iter()));
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_ne!(a, build(&[1, 9]), "as many keys, fewer slots");
        assert_ne!(a, build(&[1, 3, 9]));
    }
}

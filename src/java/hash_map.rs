//! The iteration order of a `java.util.HashMap` (and of a `HashSet`, which is one).
//!
//! A `HashMap` iterates its table bucket by bucket, `spread(hash) & (capacity - 1)`, and each
//! bucket's chain in order: `put` (and `putIfAbsent`) appends a new key to its chain, but
//! `computeIfAbsent` (like `compute` and `merge`) links it at the chain's head; a re-put keeps
//! a key's place, a removal unlinks only that key, and a resize splits every chain into two
//! keeping their relative order. So the order is: by bucket at the current capacity, then by
//! a position that grows with each appended key and shrinks with each key linked at a head.
//!
//! The capacity starts at 16 (`new HashMap<>()`) or `tableSizeFor(n)` (`new HashMap<>(n)`;
//! `HashMap(Map)`, `putAll` into an empty map and `HashSet(Collection)` size for
//! `size / 0.75 + 1`) and is allocated on the first insertion. `put` doubles it after an
//! insertion that makes the size exceed `0.75 * capacity`, `computeIfAbsent` before any call
//! that finds the size already above it; both also double it when a chain grows past 8
//! (`put`) or to 8 (`computeIfAbsent`) while the table is smaller than 64 (`treeifyBin`). It
//! never shrinks.
//!
//! Not reproduced: a chain longer than 8 in a table of 64 or more becomes a red-black tree,
//! whose iteration order differs; [`JavaHashMap::treeified`] says when that happened (the
//! order is then only approximate). With well-spread keys it takes nine keys in one bucket.

use std::collections::HashMap;
use std::hash::Hash;

use super::hash::{bucket, table_size_for, MAXIMUM_CAPACITY};

/// A key with Java's `hashCode()`.
pub(crate) trait JavaHashCode {
    /// The key's `hashCode()`.
    fn java_hash(&self) -> i32;
}

impl JavaHashCode for String {
    fn java_hash(&self) -> i32 {
        super::hash::string_hash(self)
    }
}

impl JavaHashCode for str {
    fn java_hash(&self) -> i32 {
        super::hash::string_hash(self)
    }
}

impl JavaHashCode for &str {
    fn java_hash(&self) -> i32 {
        super::hash::string_hash(self)
    }
}

impl JavaHashCode for &String {
    fn java_hash(&self) -> i32 {
        super::hash::string_hash(self)
    }
}

impl JavaHashCode for i32 {
    fn java_hash(&self) -> i32 {
        super::hash::integer_hash(*self)
    }
}

/// A map that iterates like a `java.util.HashMap` of the same history.
#[derive(Clone, Debug)]
pub(crate) struct JavaHashMap<K, V> {
    /// Every key ever inserted, in insertion order (`None` once removed), with its hash and its
    /// position within its chain.
    slots: Vec<Option<(K, V, i32, i64)>>,
    /// Key to slot.
    index: HashMap<K, usize>,
    /// Table size, 0 until the first put.
    capacity: usize,
    /// The size past which the table doubles (before the first put: the capacity to allocate).
    threshold: usize,
    /// Keys per bucket at the current capacity.
    chains: Vec<u32>,
    len: usize,
    treeified: bool,
    /// The next position at a chain's tail, and at a chain's head.
    tail: i64,
    head: i64,
}

const TREEIFY_THRESHOLD: u32 = 8;
const MIN_TREEIFY_CAPACITY: usize = 64;

impl<K: JavaHashCode + Eq + Hash + Clone, V> JavaHashMap<K, V> {
    /// `new HashMap<>()`.
    pub(crate) fn new() -> Self {
        Self::with_table(16)
    }

    /// `new HashMap<>(initialCapacity)`; `None` (Java's `IllegalArgumentException`) for a
    /// negative capacity.
    pub(crate) fn with_capacity(initial_capacity: i32) -> Option<Self> {
        if initial_capacity < 0 {
            return None;
        }
        Some(Self::with_table(table_size_for(i64::from(
            initial_capacity,
        ))))
    }

    /// The table a copy of a map of `size` entries allocates (`HashMap(Map)`, `putAll` into an
    /// empty map, `HashSet(Collection)`).
    pub(crate) fn for_copy_of(size: usize) -> Self {
        let wanted = (size as f64 / 0.75 + 1.0) as i64;
        Self::with_table(table_size_for(wanted))
    }

    fn with_table(first_capacity: usize) -> Self {
        JavaHashMap {
            slots: Vec::new(),
            index: HashMap::new(),
            capacity: 0,
            threshold: first_capacity,
            chains: Vec::new(),
            len: 0,
            treeified: false,
            tail: 0,
            head: -1,
        }
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The table size (0 before the first put).
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether a chain became a tree, so that the order is no longer exact.
    pub(crate) fn treeified(&self) -> bool {
        self.treeified
    }

    fn threshold_for(capacity: usize) -> usize {
        if capacity >= MAXIMUM_CAPACITY {
            usize::MAX
        } else {
            (capacity as f64 * 0.75) as usize
        }
    }

    fn resize(&mut self) {
        let new_capacity = if self.capacity == 0 {
            self.threshold.max(1)
        } else if self.capacity >= MAXIMUM_CAPACITY {
            self.threshold = usize::MAX;
            return;
        } else {
            self.capacity * 2
        };
        self.capacity = new_capacity;
        self.threshold = Self::threshold_for(new_capacity);
        self.chains = vec![0; new_capacity];
        for (_, _, h, _) in self.slots.iter().flatten() {
            self.chains[bucket(*h, new_capacity)] += 1;
        }
    }

    /// `get`.
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.index
            .get(key)
            .and_then(|&i| self.slots[i].as_ref())
            .map(|(_, v, _, _)| v)
    }

    /// `get` for update.
    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let i = *self.index.get(key)?;
        self.slots[i].as_mut().map(|(_, v, _, _)| v)
    }

    /// Whether the key is present.
    pub(crate) fn contains_key(&self, key: &K) -> bool {
        self.index.contains_key(key)
    }

    /// `put`: the previous value of the key, which keeps its place.
    pub(crate) fn put(&mut self, key: K, value: V) -> Option<V> {
        if let Some(&i) = self.index.get(&key) {
            let slot = self.slots[i].as_mut()?;
            return Some(std::mem::replace(&mut slot.1, value));
        }
        if self.capacity == 0 {
            self.resize();
        }
        let chain = self.link(key, value, false);
        if chain >= TREEIFY_THRESHOLD {
            self.treeify_bin();
        }
        self.len += 1;
        if self.len > self.threshold {
            self.resize();
        }
        None
    }

    /// `putIfAbsent` of a key not present: as `put`. The value now under the key.
    pub(crate) fn put_if_absent_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        if !self.index.contains_key(&key) {
            self.put(key.clone(), make());
        }
        self.value_mut(&key)
    }

    /// `computeIfAbsent`: a new key is linked at the head of its chain. The value now under
    /// the key.
    pub(crate) fn compute_if_absent(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        if self.capacity == 0 || self.len > self.threshold {
            self.resize();
        }
        if !self.index.contains_key(&key) {
            let chain = self.link(key.clone(), make(), true);
            if chain >= TREEIFY_THRESHOLD - 1 {
                self.treeify_bin();
            }
            self.len += 1;
        }
        self.value_mut(&key)
    }

    fn value_mut(&mut self, key: &K) -> &mut V {
        let i = self.index[key];
        match self.slots[i].as_mut() {
            Some((_, v, _, _)) => v,
            None => unreachable!("an indexed slot is live"),
        }
    }

    /// Links a new key into its chain: the chain's length before.
    fn link(&mut self, key: K, value: V, at_head: bool) -> u32 {
        let h = key.java_hash();
        let b = bucket(h, self.capacity);
        let chain = self.chains[b];
        let position = if at_head {
            self.head -= 1;
            self.head + 1
        } else {
            self.tail += 1;
            self.tail - 1
        };
        self.index.insert(key.clone(), self.slots.len());
        self.slots.push(Some((key, value, h, position)));
        self.chains[b] += 1;
        chain
    }

    fn treeify_bin(&mut self) {
        if self.capacity < MIN_TREEIFY_CAPACITY {
            self.resize();
        } else {
            self.treeified = true;
        }
    }

    /// `remove`: the value of the key; the others keep their order.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let i = self.index.remove(key)?;
        let (_, v, h, _) = self.slots[i].take()?;
        self.chains[bucket(h, self.capacity)] -= 1;
        self.len -= 1;
        Some(v)
    }

    /// The entries in the map's iteration order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        let mut order: Vec<(usize, i64, usize)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.as_ref()
                    .map(|(_, _, h, at)| (bucket(*h, self.capacity), *at, i))
            })
            .collect();
        order.sort_unstable();
        order
            .into_iter()
            .filter_map(move |(_, _, i)| self.slots[i].as_ref().map(|(k, v, _, _)| (k, v)))
    }

    /// The keys in the map's iteration order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn keys_of<V>(map: &JavaHashMap<String, V>) -> Vec<&str> {
        map.keys().map(String::as_str).collect()
    }

    #[test]
    fn iterates_by_bucket_then_insertion() {
        // "Aa" and "BB" share a hash (2112): insertion order decides.
        let mut map = JavaHashMap::new();
        for k in ["BB", "m3", "Aa", "m1"] {
            map.put(k.to_string(), ());
        }
        // 2112 & 15 = 0; "m1" 3428 & 15 = 4; "m3" 3430 & 15 = 6.
        assert_eq!(keys_of(&map), ["BB", "Aa", "m1", "m3"]);
        // A re-put keeps its place; a removal keeps the others'.
        map.put("BB".to_string(), ());
        assert_eq!(keys_of(&map), ["BB", "Aa", "m1", "m3"]);
        assert!(map.contains_key(&"Aa".to_string()));
        assert_eq!(map.get(&"m1".to_string()), Some(&()));
        assert!(map.get_mut(&"m2".to_string()).is_none());
        assert_eq!(map.remove(&"BB".to_string()), Some(()));
        assert!(map.remove(&"BB".to_string()).is_none());
        assert_eq!(map.len(), 3);
        map.put("BB".to_string(), ());
        assert_eq!(keys_of(&map), ["Aa", "BB", "m1", "m3"]);
    }

    #[test]
    fn capacity_grows_as_java_does() {
        let mut map = JavaHashMap::new();
        assert!(map.is_empty());
        for i in 0..12 {
            map.put(i, ());
        }
        assert_eq!(map.capacity(), 16);
        map.put(12, ());
        assert_eq!(map.capacity(), 32);
        // 16 and 0 share bucket 0 at 16 buckets; at 32 they part.
        let order: Vec<i32> = map.keys().copied().collect();
        assert_eq!(order, (0..13).collect::<Vec<_>>());
        let mut small = JavaHashMap::with_capacity(3).unwrap();
        small.put("p2".to_string(), ());
        small.put("p1".to_string(), ());
        assert_eq!(small.capacity(), 4);
        assert_eq!(keys_of(&small), ["p1", "p2"]);
        small.put("p3".to_string(), ());
        assert_eq!(small.capacity(), 4);
        small.put("p4".to_string(), ());
        assert_eq!(small.capacity(), 8);
        assert!(JavaHashMap::<i32, ()>::with_capacity(-1).is_none());
        let mut zero = JavaHashMap::with_capacity(0).unwrap();
        zero.put(5, ());
        assert_eq!(zero.capacity(), 2);
        assert_eq!(JavaHashMap::<i32, ()>::for_copy_of(12).threshold, 32);
    }

    #[test]
    fn compute_if_absent_links_at_the_head_and_resizes_late() {
        // Measured on Java 17: both land in bucket 3 of 4.
        let mut map = JavaHashMap::with_capacity(3).unwrap();
        for k in ["ledryGvK3IExLhhUmTJDiQ", "CbGpQQzu5UazkYO9wnSWLg", "Bbp"] {
            map.compute_if_absent(k.to_string(), || ());
        }
        assert_eq!(map.capacity(), 4);
        assert_eq!(
            keys_of(&map),
            ["Bbp", "CbGpQQzu5UazkYO9wnSWLg", "ledryGvK3IExLhhUmTJDiQ"]
        );
        let mut map = JavaHashMap::with_capacity(3).unwrap();
        for k in ["ledryGvK3IExLhhUmTJDiQ", "CbGpQQzu5UazkYO9wnSWLg", "Bbp"] {
            map.put_if_absent_with(k.to_string(), || ());
        }
        assert_eq!(
            keys_of(&map),
            ["Bbp", "ledryGvK3IExLhhUmTJDiQ", "CbGpQQzu5UazkYO9wnSWLg"]
        );
        // Four keys in a table of 4: put doubles after the fourth, computeIfAbsent only when
        // called again.
        let mut put = JavaHashMap::with_capacity(4).unwrap();
        let mut compute = JavaHashMap::with_capacity(4).unwrap();
        for k in 0..4 {
            put.put(k, ());
            compute.compute_if_absent(k, || ());
        }
        assert_eq!((put.capacity(), compute.capacity()), (8, 4));
        compute.compute_if_absent(0, || ());
        assert_eq!(compute.capacity(), 8);
    }

    #[test]
    fn long_chains_in_small_tables_resize() {
        // Multiples of 64 all land in bucket 0 of a table of 64 or less.
        let mut map = JavaHashMap::new();
        for i in 0..9 {
            map.put(i * 64, ());
        }
        // The ninth key in one chain doubles the 16-table, then the 32-table is still small:
        // only one doubling per put.
        assert_eq!(map.capacity(), 32);
        map.put(9 * 64, ());
        assert_eq!(map.capacity(), 64);
        assert!(!map.treeified());
        map.put(10 * 64, ());
        assert!(map.treeified());
        assert_eq!(map.len(), 11);
    }
}

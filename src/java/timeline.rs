//! Kafka's `TimelineHashMap` (server-common `BaseHashTable`), as far as its iteration order
//! goes: a power-of-two table of slots (2 at first), doubled before an insertion that would
//! leave it more than three quarters full and never shrunk; a key's slot is the top bits of its
//! `hashCode()` times Knuth's 64-bit Fibonacci constant; a slot holds its keys in an array,
//! a new key appended, a replaced one kept in place, a removed one taken out with the others
//! keeping their order; a rehash walks the old slots in order and appends each one's keys in
//! array order. The latest state iterates slot by slot, each slot's keys last first
//! (`SnapshottableHashTable.CurrentIterator` pops them from the end).

use super::hash_map::JavaHashCode;

/// A map that iterates as a Kafka `TimelineHashMap` of the same history does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TimelineMap<K, V> {
    slots: Vec<Vec<(K, V)>>,
    len: usize,
}

impl<K, V> Default for TimelineMap<K, V> {
    fn default() -> Self {
        TimelineMap {
            slots: (0..2).map(|_| Vec::new()).collect(),
            len: 0,
        }
    }
}

/// Appends to a slot's array with room for exactly its keys: a slot holds one or two keys
/// (the table is at most three quarters full), where `Vec`'s first growth would make room for
/// four, which tripled a committed offset's memory.
fn push_exact<T>(slot: &mut Vec<T>, item: T) {
    slot.reserve_exact(1);
    slot.push(item);
}

/// `BaseHashTable.findSlot`: the top `log2(slots)` bits of `hash × -7046029254386353131`.
fn slot_of(hash: i32, slots: usize) -> usize {
    let bits = slots.trailing_zeros();
    ((i64::from(hash) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
}

impl<K: JavaHashCode + Eq, V> TimelineMap<K, V> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, key: &K) -> usize {
        slot_of(key.java_hash(), self.slots.len())
    }

    /// [`TimelineMap::get`] by a borrowed form of the key (a `&str` for a `String` key: no
    /// key is built to look one up). Its hash must be the key's, as `str`'s is `String`'s.
    pub(crate) fn get_by<Q>(&self, key: &Q) -> Option<&V>
    where
        K: std::borrow::Borrow<Q>,
        Q: JavaHashCode + Eq + ?Sized,
    {
        self.slots[slot_of(key.java_hash(), self.slots.len())]
            .iter()
            .find(|(k, _)| k.borrow() == key)
            .map(|(_, v)| v)
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
        let s = slot_of(key.java_hash(), self.slots.len());
        let (s, at) = match self.slots[s].iter().position(|(k, _)| k.borrow() == key) {
            Some(at) => (s, at),
            None => {
                let s = self.push_new(owned(), make());
                (s, self.slots[s].len() - 1)
            }
        };
        &mut self.slots[s][at].1
    }

    /// [`TimelineMap::get_mut`] by a borrowed form of the key.
    pub(crate) fn get_mut_by<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: std::borrow::Borrow<Q>,
        Q: JavaHashCode + Eq + ?Sized,
    {
        let s = slot_of(key.java_hash(), self.slots.len());
        self.slots[s]
            .iter_mut()
            .find(|(k, _)| k.borrow() == key)
            .map(|(_, v)| v)
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
    /// `(size + 1) * 0.75 > capacity`); answers its slot, where it is now the last.
    fn push_new(&mut self, key: K, value: V) -> usize {
        if (self.len + 1) * 3 > self.slots.len() * 4 && self.slots.len() < (1 << 30) {
            self.rehash(self.slots.len() * 2);
        }
        let s = self.slot(&key);
        push_exact(&mut self.slots[s], (key, value));
        self.len += 1;
        s
    }

    /// The value of `key`, made by `make` (and inserted) when absent.
    pub(crate) fn entry_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let s = self.slot(&key);
        let at = self.slots[s].iter().position(|(k, _)| *k == key);
        let (s, at) = match at {
            Some(at) => (s, at),
            None => {
                let s = self.push_new(key, make());
                (s, self.slots[s].len() - 1)
            }
        };
        &mut self.slots[s][at].1
    }

    /// `baseRemove`: the others of its slot keep their order.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let s = self.slot(key);
        let at = self.slots[s].iter().position(|(k, _)| k == key)?;
        self.len -= 1;
        Some(self.slots[s].remove(at).1)
    }

    fn rehash(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, (0..slots).map(|_| Vec::new()).collect());
        for (k, v) in old.into_iter().flatten() {
            let s = slot_of(k.java_hash(), slots);
            push_exact(&mut self.slots[s], (k, v));
        }
    }

    /// In Kafka's iteration order: slot by slot, each slot's keys last first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.slots
            .iter()
            .flat_map(|slot| slot.iter().rev().map(|(k, v)| (k, v)))
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
        assert_eq!(partitions.slots.len(), 4);
        for p in 3..6 {
            partitions.insert(p, ());
        }
        assert_eq!(partitions.slots.len(), 8);
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
        assert_eq!(partitions.slots.len(), 8);
    }
}

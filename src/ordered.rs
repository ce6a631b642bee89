//! Building ordered collections by insertion.
//!
//! `collect()` into a `BTreeMap` or `BTreeSet` (std's `FromIterator`) first gathers the items
//! into a `Vec` and sorts it with the stable sort, whose code is monomorphised for every call
//! site's iterator type: some 4 KB of wasm each (docs/performance.md, "Size of the web
//! module"). `Extend` inserts one item at a time and sorts nothing, so the maps and sets of the
//! crate are collected through [`Ordered`]. The result is the same collection: the keys are
//! ordered by `Ord` either way, and a later value for an equal key replaces an earlier one.
//! Insertion costs O(log n) per item; the inputs here are small or already in key order.

use std::collections::{BTreeMap, BTreeSet};

/// `collect()` into a `BTreeMap` or `BTreeSet` by insertion (see the module's doc).
pub(crate) trait Ordered: Iterator + Sized {
    /// The items as a map; a later value for an equal key replaces an earlier one.
    fn to_map<K: Ord, V>(self) -> BTreeMap<K, V>
    where
        Self: Iterator<Item = (K, V)>,
    {
        let mut map = BTreeMap::new();
        map.extend(self);
        map
    }

    /// The items as a set.
    fn to_set(self) -> BTreeSet<Self::Item>
    where
        Self::Item: Ord,
    {
        let mut set = BTreeSet::new();
        set.extend(self);
        set
    }
}

impl<I: Iterator> Ordered for I {}

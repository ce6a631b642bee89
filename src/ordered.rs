//! Ordered collections and sorting with little monomorphised code.
//!
//! std's sorts are generic over the element type and the comparison, so every `sort` call site
//! brings its own copy of driftsort or ipnsort: some 4 KB of wasm each (docs/performance.md,
//! "Size of the web module"). `collect()` into a `BTreeMap` or `BTreeSet` is one of them: std's
//! `FromIterator` gathers the items into a `Vec` and sorts it, one copy per iterator type.
//!
//! - Maps and sets are collected by insertion ([`Ordered`]): `Extend` sorts nothing. The result
//!   is the same collection: the keys are ordered by `Ord` either way, and a later value for an
//!   equal key replaces an earlier one. Insertion costs O(log n) per item; the inputs here are
//!   small or already in key order.
//! - Other sorts go through [`sort_by`] (and [`sort`]), which sort indices with the one
//!   instance of the stable sort in [`sort_indices`] and then move the items into that order.
//!   A stable sort orders equal items as they came; where a call site used an unstable sort,
//!   its equal items are indistinguishable (or the result is refused), so nothing changes.

use std::cmp::Ordering;
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

/// A text key of a map stored from the last key to the first ([`Desc`] keys, looked up as
/// [`DescLookup`]). A B-tree node is searched from its first key, so that a key greater than
/// every key of the map passes every key of each node on its way down: the costliest place to
/// insert or find, and the commonest where keys mostly arrive in ascending order (a log read
/// back in id order, members joining by name, a session deadline that is the latest of all).
/// Stored the other way round, such a key is placed or found after one comparison a level.
pub(crate) trait DescText {
    fn text(&self) -> &str;
}

/// A text looked up in a map of [`DescText`] keys (`&DescLookup(id) as &dyn DescText`),
/// without building a key.
pub(crate) struct DescLookup<'a>(pub(crate) &'a str);

impl DescText for DescLookup<'_> {
    fn text(&self) -> &str {
        self.0
    }
}

impl PartialEq for dyn DescText + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl Eq for dyn DescText + '_ {}

impl Ord for dyn DescText + '_ {
    fn cmp(&self, other: &Self) -> Ordering {
        other.text().cmp(self.text())
    }
}

impl PartialOrd for dyn DescText + '_ {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// An owned text key in [`DescText`]'s order: from the last text to the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Desc(pub(crate) String);

impl DescText for Desc {
    fn text(&self) -> &str {
        &self.0
    }
}

impl<'a> std::borrow::Borrow<dyn DescText + 'a> for Desc {
    fn borrow(&self) -> &(dyn DescText + 'a) {
        self
    }
}

impl Ord for Desc {
    /// The looked-up form's order, which `Borrow` requires to be the same.
    fn cmp(&self, other: &Self) -> Ordering {
        (self as &dyn DescText).cmp(other as &dyn DescText)
    }
}

impl PartialOrd for Desc {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Walks `rest`, entries of a map in key order, up to `key` and takes its entry if it is there:
/// a merge walk beside another list in the same order, one comparison per entry passed.
pub(crate) fn seek<'m, T>(
    rest: &mut std::iter::Peekable<impl Iterator<Item = (&'m String, &'m T)>>,
    key: &str,
) -> Option<(&'m String, &'m T)> {
    while let Some(&(id, _)) = rest.peek() {
        match id.as_str().cmp(key) {
            Ordering::Less => {
                rest.next();
            }
            Ordering::Equal => return rest.next(),
            Ordering::Greater => return None,
        }
    }
    None
}

/// Sorts `order`, indices of some items, by `cmp` of the items they stand for; stable. The one
/// instance of std's sort behind [`sort_by`].
pub(crate) fn sort_indices(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
}

/// `items.sort_by(cmp)`: the same stable order, through [`sort_indices`]. A list already in
/// order (a log read back names its members in id order) costs one comparison an item.
pub(crate) fn sort_by<T>(items: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    if items.is_sorted_by(|a, b| cmp(a, b) != Ordering::Greater) {
        return;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    let all: &[T] = items;
    sort_indices(&mut order, &|a, b| match (all.get(a), all.get(b)) {
        (Some(x), Some(y)) => cmp(x, y),
        _ => Ordering::Equal,
    });
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// `items.sort()`: [`sort_by`] of `Ord`.
pub(crate) fn sort<T: Ord>(items: &mut Vec<T>) {
    sort_by(items, T::cmp);
}

/// Pairs of small numbers (task and member numbers) in ascending order: two stable counting
/// sorts, by the second number and then by the first, linear in the pairs and their largest
/// numbers; the same order as a sort, without one.
pub(crate) fn sort_pairs(pairs: &mut Vec<(u32, u32)>) {
    let by_second = counting_sort(pairs, |p| p.1);
    *pairs = counting_sort(&by_second, |p| p.0);
}

/// `pairs` stably ordered by `key`.
fn counting_sort(pairs: &[(u32, u32)], key: fn(&(u32, u32)) -> u32) -> Vec<(u32, u32)> {
    let bound = pairs.iter().map(key).max().map_or(0, |k| k as usize + 1);
    // start[k]: first the count of key k - 1, then the position of the first pair with key k.
    let mut start = vec![0usize; bound + 1];
    for p in pairs {
        if let Some(c) = start.get_mut(key(p) as usize + 1) {
            *c += 1;
        }
    }
    let mut acc = 0;
    for c in &mut start {
        acc += *c;
        *c = acc;
    }
    let mut out = vec![(0, 0); pairs.len()];
    for p in pairs {
        if let Some(s) = start.get_mut(key(p) as usize) {
            if let Some(slot) = out.get_mut(*s) {
                *slot = *p;
            }
            *s += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn sort_by_is_std_stable_sort() {
        let items: Vec<(u8, usize)> = (0..200).map(|i| ((i * 37 % 11) as u8, i)).collect();
        let mut ours = items.clone();
        sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
        let mut std = items;
        std.sort_by_key(|a| a.0);
        assert_eq!(ours, std);
        // Already in order, equal keys included: left as it is.
        let mut again = std.clone();
        sort_by(&mut again, |a, b| a.0.cmp(&b.0));
        assert_eq!(again, std);
        let mut none: Vec<u8> = Vec::new();
        sort(&mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn pairs_sort_as_tuples() {
        let mut pairs: Vec<(u32, u32)> = (0..300u32)
            .map(|i| (i * 7 % 5, 1000 - i * 13 % 9))
            .collect();
        pairs.extend([(0, 0), (4, 1000), (0, 0)]);
        let mut std = pairs.clone();
        std.sort_unstable();
        sort_pairs(&mut pairs);
        assert_eq!(pairs, std);
    }

    #[test]
    fn maps_and_sets_equal_collected_ones() {
        let items = [(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd')];
        assert_eq!(
            items.iter().copied().to_map(),
            items.iter().copied().collect::<BTreeMap<_, _>>()
        );
        assert_eq!(
            items.iter().map(|p| p.0).to_set(),
            items.iter().map(|p| p.0).collect::<BTreeSet<_>>()
        );
    }
}

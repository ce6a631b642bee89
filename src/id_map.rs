//! A map by id (member ids), read in ascending id order but stored from the last id to the
//! first ([`Desc`]): members join, and a log is read back, mostly in ascending id order, and a
//! new last id is the costliest key of an ascending B-tree to place (see [`DescText`]). The
//! group's members and its target assignment are kept in one.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound::{Excluded, Unbounded};

use crate::ordered::{Desc, DescLookup, DescText};

/// Values by id; every iterator yields them in ascending id order. The values are boxed: a new
/// last id lands at the front of its node, and the node then shifts pointers, not values.
#[derive(Clone, PartialEq, Eq)]
pub struct IdMap<V>(BTreeMap<Desc, Box<V>>);

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap(BTreeMap::new())
    }
}

impl<V> IdMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many ids.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `id`.
    pub fn get(&self, id: &str) -> Option<&V> {
        self.0.get(&DescLookup(id) as &dyn DescText).map(|v| &**v)
    }

    /// The value of `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut V> {
        self.0
            .get_mut(&DescLookup(id) as &dyn DescText)
            .map(|v| &mut **v)
    }

    /// Whether `id` is there.
    pub fn contains_key(&self, id: &str) -> bool {
        self.0.contains_key(&DescLookup(id) as &dyn DescText)
    }

    /// Stores `value` as `id`, returning the value it replaces.
    pub fn insert(&mut self, id: String, value: V) -> Option<V> {
        self.0.insert(Desc(id), Box::new(value)).map(|v| *v)
    }

    /// Removes `id`.
    pub fn remove(&mut self, id: &str) -> Option<V> {
        self.0.remove(&DescLookup(id) as &dyn DescText).map(|v| *v)
    }

    /// Runs `f` on the value of `id`, made by `make` if it is not there, and tells it whether it
    /// was made. The greatest id (stored first) is tried first: one comparison where a log read
    /// back has just put it, and an id after it (the next member of such a log) is new without
    /// a search.
    pub fn with<R>(
        &mut self,
        id: &str,
        make: impl FnOnce(&str) -> V,
        f: impl FnOnce(&mut V, bool) -> R,
    ) -> R {
        let after_all = match self.0.first_entry() {
            Some(first) if first.key().0 == id => return f(first.into_mut(), false),
            Some(first) => first.key().0.as_str() < id,
            None => true,
        };
        if !after_all {
            if let Some(value) = self.get_mut(id) {
                return f(value, false);
            }
        }
        f(
            self.0
                .entry(Desc(id.to_string()))
                .or_insert_with(|| Box::new(make(id))),
            true,
        )
    }

    /// The ids and values in ascending id order.
    pub fn iter(&self) -> Iter<'_, V> {
        Iter(self.0.iter().rev())
    }

    /// The ids in ascending order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + '_ {
        self.0.keys().rev().map(|k| &k.0)
    }

    /// The values in ascending id order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.0.values().rev().map(|v| &**v)
    }

    /// The entries with ids below `id`, ascending: one search, not a comparison per entry.
    pub fn before<'a>(
        &'a self,
        id: &'a str,
    ) -> impl DoubleEndedIterator<Item = (&'a String, &'a V)> + 'a {
        self.0
            .range::<dyn DescText, _>((Excluded(&DescLookup(id) as &dyn DescText), Unbounded))
            .rev()
            .map(|(k, v)| (&k.0, &**v))
    }

    /// The entries with ids above `id`, ascending.
    pub fn after<'a>(
        &'a self,
        id: &'a str,
    ) -> impl DoubleEndedIterator<Item = (&'a String, &'a V)> + 'a {
        self.0
            .range::<dyn DescText, _>((Unbounded, Excluded(&DescLookup(id) as &dyn DescText)))
            .rev()
            .map(|(k, v)| (&k.0, &**v))
    }
}

/// The entries of an [`IdMap`] in ascending id order.
pub struct Iter<'a, V>(std::iter::Rev<std::collections::btree_map::Iter<'a, Desc, Box<V>>>);

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (&'a String, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&k.0, &**v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<V> DoubleEndedIterator for Iter<'_, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (&k.0, &**v))
    }
}

impl<V> ExactSizeIterator for Iter<'_, V> {}

impl<V> Clone for Iter<'_, V> {
    fn clone(&self) -> Self {
        Iter(self.0.clone())
    }
}

impl<'a, V> IntoIterator for &'a IdMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = Iter<'a, V>;

    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

impl<V: fmt::Debug> fmt::Debug for IdMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V> std::ops::Index<&str> for IdMap<V> {
    type Output = V;

    /// The value of `id`; panics if there is none, as a map's index does (tests only).
    fn index(&self, id: &str) -> &V {
        match self.get(id) {
            Some(v) => v,
            None => panic!("no entry {id}"),
        }
    }
}

impl<V> FromIterator<(String, V)> for IdMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        IdMap(
            iter.into_iter()
                .map(|(k, v)| (Desc(k), Box::new(v)))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map of each id to itself.
    fn map(ids: &[&str]) -> IdMap<String> {
        ids.iter()
            .map(|id| (id.to_string(), id.to_string()))
            .collect()
    }

    #[test]
    fn iterates_in_ascending_order_whatever_the_insertion_order() {
        let m = map(&["b", "d", "a", "c"]);
        let ids: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        let ids: Vec<&str> = m.values().map(String::as_str).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        assert_eq!(format!("{m:?}").find("\"a\""), Some(1));
    }

    #[test]
    fn before_and_after_exclude_the_id_and_ascend() {
        let m = map(&["a", "b", "c", "d"]);
        let before: Vec<&str> = m.before("c").map(|(k, _)| k.as_str()).collect();
        let after: Vec<&str> = m.after("b").map(|(k, _)| k.as_str()).collect();
        assert_eq!(before, ["a", "b"]);
        assert_eq!(after, ["c", "d"]);
        let absent: Vec<&str> = m.after("bb").map(|(k, _)| k.as_str()).collect();
        assert_eq!(absent, ["c", "d"]);
    }

    #[test]
    fn with_tells_whether_it_made_the_value() {
        let mut m = map(&["a", "c"]);
        assert!(
            !m.with("c", str::to_string, |_, added| added),
            "the greatest"
        );
        assert!(
            !m.with("a", str::to_string, |_, added| added),
            "a known one"
        );
        let (id, added) = m.with("b", str::to_string, |v, added| (v.clone(), added));
        assert!(added);
        assert_eq!(id, "b");
        assert_eq!(m.len(), 3);
        assert!(m.contains_key("b"));
        assert_eq!(m.remove("b"), Some("b".to_string()));
        assert!(m.get("b").is_none());
        // After every id: made without a search, and the greatest from then on.
        assert!(m.with("d", str::to_string, |_, added| added));
        assert!(!m.with("d", str::to_string, |_, added| added));
        let ids: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(ids, ["a", "c", "d"]);
    }

    // proptest is a dev-dependency of native targets only.
    #[cfg(not(target_arch = "wasm32"))]
    mod model {
        use super::*;
        use proptest::prelude::*;

        /// Ids that share prefixes, so that the reversed order is tested where it differs
        /// from a plain reversal of lengths.
        const IDS: [&str; 8] = ["", "a", "aa", "ab", "b", "m1", "m10", "m2"];

        #[derive(Clone, Debug)]
        enum Op {
            Insert(usize, i32),
            With(usize, i32),
            Remove(usize),
        }

        fn op() -> impl Strategy<Value = Op> {
            let id = 0..IDS.len();
            prop_oneof![
                (id.clone(), any::<i32>()).prop_map(|(i, e)| Op::Insert(i, e)),
                (id.clone(), any::<i32>()).prop_map(|(i, e)| Op::With(i, e)),
                id.prop_map(Op::Remove),
            ]
        }

        proptest! {
            #[test]
            fn holds_and_orders_what_an_ascending_map_does(
                ops in proptest::collection::vec(op(), 0..60)
            ) {
                let mut m: IdMap<i32> = IdMap::new();
                let mut model: BTreeMap<String, i32> = BTreeMap::new();
                for op in ops {
                    match op {
                        Op::Insert(i, e) => {
                            let old = m.insert(IDS[i].to_string(), e);
                            prop_assert_eq!(old, model.insert(IDS[i].to_string(), e));
                        }
                        Op::With(i, e) => {
                            let added = m.with(IDS[i], |_| 0, |v, added| {
                                *v = e;
                                added
                            });
                            prop_assert_eq!(added, model.insert(IDS[i].to_string(), e).is_none());
                        }
                        Op::Remove(i) => {
                            prop_assert_eq!(m.remove(IDS[i]), model.remove(IDS[i]));
                        }
                    }
                    let listed: Vec<(&String, &i32)> = m.iter().collect();
                    let expected: Vec<(&String, &i32)> = model.iter().collect();
                    prop_assert_eq!(&listed, &expected);
                    prop_assert_eq!(m.len(), model.len());
                    for id in IDS {
                        prop_assert_eq!(m.get(id), model.get(id));
                        let before: Vec<&String> = m.before(id).map(|(k, _)| k).collect();
                        let after: Vec<&String> = m.after(id).map(|(k, _)| k).collect();
                        let model_before: Vec<&String> = model
                            .range::<str, _>((Unbounded, Excluded(id)))
                            .map(|(k, _)| k)
                            .collect();
                        let model_after: Vec<&String> = model
                            .range::<str, _>((Excluded(id), Unbounded))
                            .map(|(k, _)| k)
                            .collect();
                        prop_assert_eq!(before, model_before);
                        prop_assert_eq!(after, model_after);
                    }
                }
            }
        }
    }
}

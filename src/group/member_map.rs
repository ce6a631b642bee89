//! The members of a group by id, read in ascending id order but stored from the last id to the
//! first ([`Desc`]): members join, and a log is read back, mostly in ascending id order, and a
//! new last id is the costliest key of an ascending B-tree to place (see [`DescText`]).

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound::{Excluded, Unbounded};

use crate::group::Member;
use crate::ordered::{Desc, DescLookup, DescText};

/// Members by id; every iterator yields them in ascending id order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct MemberMap(BTreeMap<Desc, Box<Member>>);

impl MemberMap {
    /// An empty map.
    pub fn new() -> Self {
        MemberMap(BTreeMap::new())
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The member `id`.
    pub fn get(&self, id: &str) -> Option<&Member> {
        self.0.get(&DescLookup(id) as &dyn DescText).map(|m| &**m)
    }

    /// The member `id`, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Member> {
        self.0
            .get_mut(&DescLookup(id) as &dyn DescText)
            .map(|m| &mut **m)
    }

    /// Whether `id` is a member.
    pub fn contains_key(&self, id: &str) -> bool {
        self.0.contains_key(&DescLookup(id) as &dyn DescText)
    }

    /// Stores `member` as `id`, returning the member it replaces.
    pub fn insert(&mut self, id: String, member: Member) -> Option<Member> {
        self.0.insert(Desc(id), Box::new(member)).map(|m| *m)
    }

    /// Removes the member `id`.
    pub fn remove(&mut self, id: &str) -> Option<Member> {
        self.0.remove(&DescLookup(id) as &dyn DescText).map(|m| *m)
    }

    /// Runs `f` on the member `id`, made (by [`Member::new`]) if it is not there, and tells it
    /// whether it was made. The greatest id (stored first) is tried first: one comparison where
    /// a log read back has just put it.
    pub fn with<R>(&mut self, id: &str, f: impl FnOnce(&mut Member, bool) -> R) -> R {
        if let Some(first) = self.0.first_entry().filter(|e| e.key().0 == id) {
            return f(first.into_mut(), false);
        }
        if let Some(member) = self.get_mut(id) {
            return f(member, false);
        }
        f(
            self.0
                .entry(Desc(id.to_string()))
                .or_insert_with(|| Box::new(Member::new(id))),
            true,
        )
    }

    /// The members in ascending id order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &Member)> + '_ {
        self.0.iter().rev().map(|(k, m)| (&k.0, &**m))
    }

    /// The member ids in ascending order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + '_ {
        self.0.keys().rev().map(|k| &k.0)
    }

    /// The members in ascending id order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Member> + '_ {
        self.0.values().rev().map(|m| &**m)
    }

    /// The members with ids below `id`, ascending: one search, not a comparison per member.
    pub fn before<'a>(
        &'a self,
        id: &'a str,
    ) -> impl DoubleEndedIterator<Item = (&'a String, &'a Member)> + 'a {
        self.0
            .range::<dyn DescText, _>((Excluded(&DescLookup(id) as &dyn DescText), Unbounded))
            .rev()
            .map(|(k, m)| (&k.0, &**m))
    }

    /// The members with ids above `id`, ascending.
    pub fn after<'a>(
        &'a self,
        id: &'a str,
    ) -> impl DoubleEndedIterator<Item = (&'a String, &'a Member)> + 'a {
        self.0
            .range::<dyn DescText, _>((Unbounded, Excluded(&DescLookup(id) as &dyn DescText)))
            .rev()
            .map(|(k, m)| (&k.0, &**m))
    }
}

impl fmt::Debug for MemberMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for MemberMap {
    type Output = Member;

    /// The member `id`; panics if there is none, as a map's index does (tests only).
    fn index(&self, id: &str) -> &Member {
        match self.get(id) {
            Some(m) => m,
            None => panic!("no member {id}"),
        }
    }
}

impl FromIterator<(String, Member)> for MemberMap {
    fn from_iter<I: IntoIterator<Item = (String, Member)>>(iter: I) -> Self {
        MemberMap(
            iter.into_iter()
                .map(|(k, m)| (Desc(k), Box::new(m)))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(ids: &[&str]) -> MemberMap {
        ids.iter()
            .map(|id| (id.to_string(), Member::new(id)))
            .collect()
    }

    #[test]
    fn iterates_in_ascending_order_whatever_the_insertion_order() {
        let m = map(&["b", "d", "a", "c"]);
        let ids: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        let ids: Vec<&str> = m.values().map(|m| m.member_id.as_str()).collect();
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
    fn with_tells_whether_it_made_the_member() {
        let mut m = map(&["a", "c"]);
        assert!(!m.with("c", |_, added| added), "the greatest");
        assert!(!m.with("a", |_, added| added), "a known one");
        let (id, added) = m.with("b", |m, added| (m.member_id.clone(), added));
        assert!(added);
        assert_eq!(id, "b");
        assert_eq!(m.len(), 3);
        assert!(m.contains_key("b"));
        assert_eq!(m.remove("b").map(|m| m.member_id), Some("b".to_string()));
        assert!(m.get("b").is_none());
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
                let mut m = MemberMap::new();
                let mut model: BTreeMap<String, i32> = BTreeMap::new();
                for op in ops {
                    match op {
                        Op::Insert(i, e) => {
                            let mut member = Member::new(IDS[i]);
                            member.member_epoch = e;
                            let old = m.insert(IDS[i].to_string(), member).map(|m| m.member_epoch);
                            prop_assert_eq!(old, model.insert(IDS[i].to_string(), e));
                        }
                        Op::With(i, e) => {
                            let added = m.with(IDS[i], |member, added| {
                                member.member_epoch = e;
                                added
                            });
                            prop_assert_eq!(added, model.insert(IDS[i].to_string(), e).is_none());
                        }
                        Op::Remove(i) => {
                            let got = m.remove(IDS[i]).map(|m| m.member_epoch);
                            prop_assert_eq!(got, model.remove(IDS[i]));
                        }
                    }
                    let listed: Vec<(String, i32)> =
                        m.iter().map(|(k, v)| (k.clone(), v.member_epoch)).collect();
                    let expected: Vec<(String, i32)> =
                        model.iter().map(|(k, &e)| (k.clone(), e)).collect();
                    prop_assert_eq!(&listed, &expected);
                    prop_assert_eq!(m.len(), model.len());
                    for id in IDS {
                        prop_assert_eq!(m.get(id).map(|v| v.member_epoch), model.get(id).copied());
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

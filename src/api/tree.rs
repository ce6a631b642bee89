//! JSON trees within the input limits: from text ([`json_tree`], up to
//! [`MAX_TREE_INPUT_BYTES`]) and from a host's own value, such as a JS object ([`tree_from`],
//! checked as it is built). Either way no input can build a tree that exhausts a wasm module's
//! memory before a limit answers: that would end the module's instance.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use super::{deep_error, list_error, string_error};
use super::{MAX_DEPTH, MAX_LIST_LEN, MAX_STRING_BYTES, MAX_TREE_INPUT_BYTES};
use crate::error::{BoundaryCode, BoundaryError, JsonPath};

/// The most values (scalars, lists and objects, counted as they are read) a tree built from a
/// host's value may hold: as many as a text of [`MAX_TREE_INPUT_BYTES`] can (`0,` is two bytes).
pub const MAX_TREE_VALUES: usize = MAX_TREE_INPUT_BYTES / 2;

/// `text` as a JSON tree, when it is within [`MAX_TREE_INPUT_BYTES`]; errors are at `path`.
pub fn json_tree(text: &str, path: &str) -> Result<Value, BoundaryError> {
    if text.len() > MAX_TREE_INPUT_BYTES {
        return Err(BoundaryError::new(
            BoundaryCode::TooLarge,
            path,
            format!(
                "a text of {} bytes; at most {MAX_TREE_INPUT_BYTES} are accepted (a Replay's \
                 records in the bytes form, read without a tree, may take more)",
                text.len()
            ),
        ));
    }
    serde_json::from_str(text)
        .map_err(|e| BoundaryError::input(path, format!("malformed JSON: {e}")))
}

/// The JSON tree of what `deserializer` holds (a host's value: `serde_wasm_bindgen` reads a JS
/// object), the tree serde_json's `Value` would build, checked as it is built: the first list
/// over [`MAX_LIST_LEN`], string over [`MAX_STRING_BYTES`] or nesting deeper than
/// [`MAX_DEPTH`] answers the shape check's error (its code, path and message), and more than
/// [`MAX_TREE_VALUES`] values in all answer `TOO_LARGE`: a JS list of a billion holes, or one
/// list named a million times, stops there. Other errors are the deserializer's, at `path`.
pub fn tree_from<'de, D: Deserializer<'de>>(
    deserializer: D,
    path: &str,
) -> Result<Value, BoundaryError> {
    tree_within(deserializer, path, MAX_TREE_VALUES)
}

fn tree_within<'de, D: Deserializer<'de>>(
    deserializer: D,
    path: &str,
    max_values: usize,
) -> Result<Value, BoundaryError> {
    let mut state = State {
        values: 0,
        max_values,
        limit: None,
    };
    let root = JsonPath::Root(path);
    let node = Node {
        state: &mut state,
        path: &root,
        depth: 0,
    };
    node.deserialize(deserializer).map_err(|e| {
        state.limit.take().unwrap_or_else(|| {
            BoundaryError::input(path, format!("not a JSON-compatible value: {e}"))
        })
    })
}

/// What the walk has counted, and the limit's error once one is passed (the deserializer's
/// error then only unwinds the walk).
struct State {
    values: usize,
    max_values: usize,
    limit: Option<BoundaryError>,
}

/// One value of the tree, at `path` and `depth` (the shape check's: the top is 0).
struct Node<'s, 'p> {
    state: &'s mut State,
    path: &'p JsonPath<'p>,
    depth: usize,
}

impl Node<'_, '_> {
    /// Counts this value; `Err` past the values' limit or at `limit` (the shape check's error).
    fn check<E: de::Error>(&mut self, limit: Option<BoundaryError>) -> Result<(), E> {
        self.state.values += 1;
        match limit {
            Some(e) => Err(self.stop(e)),
            None if self.state.values > self.state.max_values => {
                let max = self.state.max_values;
                let e = BoundaryError::new(
                    BoundaryCode::TooLarge,
                    self.path.render(),
                    format!("more than {max} values in all; at most {max} are accepted"),
                );
                Err(self.stop(e))
            }
            None => Ok(()),
        }
    }

    /// Keeps `limit` for the caller; the deserializer's error only unwinds the walk.
    fn stop<E: de::Error>(&mut self, limit: BoundaryError) -> E {
        self.state.limit = Some(limit);
        E::custom("a limit of the input")
    }

    /// A string or container deeper than the limit (the shape check looks at the depth of
    /// every value that is not a number, a boolean or null).
    fn deep(&self) -> Option<BoundaryError> {
        (self.depth > MAX_DEPTH).then(|| deep_error(self.path))
    }

    fn child<'c>(&'c mut self, path: &'c JsonPath<'c>) -> Node<'c, 'c> {
        Node {
            state: &mut *self.state,
            path,
            depth: self.depth + 1,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// serde_json's own `Value` visitor, value for value, with the checks.
impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(mut self, v: bool) -> Result<Value, E> {
        self.check(None)?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(mut self, v: i64) -> Result<Value, E> {
        self.check(None)?;
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(mut self, v: i128) -> Result<Value, E> {
        self.check(None)?;
        Number::deserialize(de::value::I128Deserializer::<E>::new(v)).map(Value::Number)
    }

    fn visit_u64<E: de::Error>(mut self, v: u64) -> Result<Value, E> {
        self.check(None)?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u128<E: de::Error>(mut self, v: u128) -> Result<Value, E> {
        self.check(None)?;
        Number::deserialize(de::value::U128Deserializer::<E>::new(v)).map(Value::Number)
    }

    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<Value, E> {
        self.check(None)?;
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.visit_string(v.to_owned())
    }

    fn visit_string<E: de::Error>(mut self, v: String) -> Result<Value, E> {
        let limit = self
            .deep()
            .or_else(|| (v.len() > MAX_STRING_BYTES).then(|| string_error(self.path, v.len())));
        self.check(limit)?;
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(mut self) -> Result<Value, E> {
        self.check(None)?;
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        let limit = self.deep().or_else(|| {
            seq.size_hint()
                .filter(|&n| n > MAX_LIST_LEN)
                .map(|n| list_error(self.path, n))
        });
        self.check(limit)?;
        let mut items = Vec::new();
        loop {
            if items.len() == MAX_LIST_LEN {
                // A list without a length up front: the shape check's error once it is longer.
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(self.stop(list_error(self.path, MAX_LIST_LEN + 1)));
                }
                return Ok(Value::Array(items));
            }
            let path = self.path.index(items.len());
            match seq.next_element_seed(self.child(&path))? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        let limit = self.deep();
        self.check(limit)?;
        let mut values = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = self.path.field(&key);
            let value = map.next_value_seed(self.child(&path))?;
            values.insert(key, value);
        }
        Ok(Value::Object(values))
    }
}

#[cfg(test)]
mod tests {
    use serde::de::value::{Error as ValueError, SeqDeserializer};

    use super::super::check_shape;
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// What the text path answers: serde_json's tree, then the shape check.
    fn by_text(text: &str) -> Result<Value, BoundaryError> {
        let value = json_tree(text, "records")?;
        check_shape(&value, &JsonPath::Root("records"), 0).map(|()| value)
    }

    fn built(text: &str) -> Result<Value, BoundaryError> {
        tree_from(&mut serde_json::Deserializer::from_str(text), "records")
    }

    #[test]
    fn builds_the_tree_serde_json_builds() {
        for text in [
            "null",
            "[]",
            "{}",
            r#"{"b":1,"a":[true,false,null,-1,18446744073709551615,1.5,"x\u00e9"],"c":{"d":[]}}"#,
            r#"[{"z":1,"y":2},[[["deep"]]],""]"#,
        ] {
            let (ours, theirs) = (built(text), by_text(text));
            assert_eq!(ours, theirs, "{text}");
            // The same key order too (maps compare as maps).
            assert_eq!(ours.map(|v| v.to_string()), theirs.map(|v| v.to_string()));
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| Value::Number(n.into())),
            any::<u64>().prop_map(|n| Value::Number(n.into())),
            (-1e6f64..1e6).prop_map(|f| serde_json::json!(f)),
            "[a-z\u{e9}\\\"]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-c]{0,2}", inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Any JSON value's text builds the tree serde_json builds, key order included.
        #[test]
        fn any_value_builds_as_serde_json_builds(value in any_json()) {
            let text = value.to_string();
            let ours = built(&text).map(|v| v.to_string());
            proptest::prop_assert_eq!(ours, by_text(&text).map(|v| v.to_string()));
        }
    }

    #[test]
    fn answers_the_shape_checks_errors_as_it_builds() {
        let nested = |levels: usize, inner: &str| {
            format!("{}{inner}{}", "[".repeat(levels), "]".repeat(levels))
        };
        let long = format!("[1, {{\"a\": \"{}\"}}]", "x".repeat(MAX_STRING_BYTES + 1));
        let zeros = format!("[{}0]", "0,".repeat(MAX_LIST_LEN));
        for text in [
            nested(MAX_DEPTH, "\"s\""),
            nested(MAX_DEPTH + 1, "\"s\""),
            nested(MAX_DEPTH + 1, "1"),
            nested(MAX_DEPTH + 2, "{}"),
            format!("{{\"a\": {}}}", nested(MAX_DEPTH, "{\"b\": 1}")),
            long,
            zeros,
        ] {
            let theirs = by_text(&text);
            if text.len() < 200 {
                assert_eq!(built(&text), theirs, "{text}");
            } else {
                assert!(theirs.is_err(), "the case is over a limit");
                assert_eq!(built(&text), theirs);
            }
        }
    }

    #[test]
    fn a_list_with_its_length_up_front_is_refused_before_it_is_read() {
        let list =
            SeqDeserializer::<_, ValueError>::new(std::iter::repeat_n(0u8, MAX_LIST_LEN + 1));
        let e = tree_from(list, "records").expect_err("over the list limit");
        assert_eq!(e, list_error(&JsonPath::Root("records"), MAX_LIST_LEN + 1));
    }

    #[test]
    fn stops_past_the_values_limit() {
        let text = "[[1,2],[3,4]]";
        let within = |max| tree_within(&mut serde_json::Deserializer::from_str(text), "", max);
        assert_eq!(within(7), by_text(text));
        let e = within(6).expect_err("seven values");
        assert_eq!(
            (e.code, e.path.as_str()),
            (BoundaryCode::TooLarge, "[1][1]")
        );
        assert_eq!(
            e.message,
            "more than 6 values in all; at most 6 are accepted"
        );
        // Other errors are the deserializer's.
        let e = built("[1,").expect_err("malformed");
        assert_eq!(
            (e.code, e.path.as_str()),
            (BoundaryCode::InvalidInput, "records")
        );
    }
}

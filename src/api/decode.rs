//! Typed decoding of a JSON value with the JSON path of the first error (boundary errors name
//! it): serde_json's `&Value` deserializer, with the lists and objects walked here so that each
//! element and field knows its path. It gives the same values, errors and paths that
//! `serde_path_to_error` over `&Value` gave, without a wrapper around every visitor: a decoder
//! per type, as plain `&Value` decoding has, and a path rendered only for an error.
//!
//! Paths are written as `serde_path_to_error` writes them (`a.b[2].c`, `.` for the value
//! itself). Scalars, and anything that fails before it is visited, go to serde_json as they
//! are; an enum's content would too (without a path inside it), and no decoded type has one.

use std::cell::Cell;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::Deserialize;
use serde_json::{Error, Map, Value};

/// Decodes `value` as a `T`; an error comes with its path (as `serde_path_to_error` writes it).
pub fn decode_value<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T, (String, Error)> {
    let track = Track(Cell::new(None));
    T::deserialize(De {
        value,
        path: &Path::Root,
        track: &track,
    })
    .map_err(|e| (track.0.take().unwrap_or_else(|| ".".to_owned()), e))
}

/// Where the decoder is: the value's segments from the root.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// The path as `serde_path_to_error` displays it: keys joined by `.`, indices as `[i]`, and
    /// `.` for the root.
    fn render(&self) -> String {
        fn push(path: &Path<'_>, out: &mut String) {
            match path {
                Path::Root => {}
                Path::Key(parent, key) => {
                    push(parent, out);
                    if !matches!(parent, Path::Root) {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Path::Index(parent, i) => {
                    push(parent, out);
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        if matches!(self, Path::Root) {
            return ".".to_owned();
        }
        let mut out = String::new();
        push(self, &mut out);
        out
    }
}

/// The path of the first (innermost) error.
struct Track(Cell<Option<String>>);

impl Track {
    fn fail(&self, path: &Path<'_>, e: Error) -> Error {
        let first = self.0.take().unwrap_or_else(|| path.render());
        self.0.set(Some(first));
        e
    }
}

struct De<'de, 'p> {
    value: &'de Value,
    path: &'p Path<'p>,
    track: &'p Track,
}

impl<'de, 'p> De<'de, 'p> {
    fn fail(&self, e: Error) -> Error {
        self.track.fail(self.path, e)
    }

    fn seq<V: Visitor<'de>>(&self, items: &'de [Value], visitor: V) -> Result<V::Value, Error> {
        let mut access = Seq {
            items: items.iter(),
            index: 0,
            path: self.path,
            track: self.track,
        };
        let out = visitor.visit_seq(&mut access)?;
        if access.items.len() == 0 {
            Ok(out)
        } else {
            Err(de::Error::invalid_length(
                items.len(),
                &"fewer elements in array",
            ))
        }
    }

    fn map<V: Visitor<'de>>(
        &self,
        map: &'de Map<String, Value>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = Fields {
            iter: map.iter(),
            value: None,
            path: self.path,
            track: self.track,
        };
        let out = visitor.visit_map(&mut access)?;
        if access.iter.len() == 0 {
            Ok(out)
        } else {
            Err(de::Error::invalid_length(
                map.len(),
                &"fewer elements in map",
            ))
        }
    }
}

/// serde_json's error for a value of the wrong type (not generic: one copy for all visitors).
#[cold]
fn invalid_type(value: &Value, expected: &dyn de::Expected) -> Error {
    let unexpected = match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    };
    de::Error::invalid_type(unexpected, expected)
}

/// Methods that only ever see a scalar (or fail on anything else) go to serde_json as they are.
macro_rules! scalar {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                self.value.$method(visitor).map_err(|e| self.fail(e))
            }
        )*
    };
}

impl<'de> Deserializer<'de> for De<'de, '_> {
    type Error = Error;

    scalar! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_unit deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => self.seq(items, visitor),
            Value::Object(map) => self.map(map, visitor),
        }
        .map_err(|e| self.fail(e))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (path, track) = (self.path, self.track);
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| track.fail(path, e))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (path, track) = (self.path, self.track);
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| track.fail(path, e))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.seq(items, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            other => Err(invalid_type(other, &visitor)),
        }
        .map_err(|e| self.fail(e))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.seq(items, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
        .map_err(|e| self.fail(e))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(map) => self.map(map, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
        .map_err(|e| self.fail(e))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.seq(items, visitor),
            Value::Object(map) => self.map(map, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
        .map_err(|e| self.fail(e))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.value
            .deserialize_enum(name, variants, visitor)
            .map_err(|e| self.fail(e))
    }
}

/// A list's elements, each at its index.
struct Seq<'de, 'p> {
    items: std::slice::Iter<'de, Value>,
    index: usize,
    path: &'p Path<'p>,
    track: &'p Track,
}

impl<'de> SeqAccess<'de> for Seq<'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(value) = self.items.next() else {
            return Ok(None);
        };
        let path = Path::Index(self.path, self.index);
        self.index += 1;
        let track = self.track;
        seed.deserialize(De {
            value,
            path: &path,
            track,
        })
        .map(Some)
        .map_err(|e| track.fail(&path, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's fields, each value at its key.
struct Fields<'de, 'p> {
    iter: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
    path: &'p Path<'p>,
    track: &'p Track,
}

impl<'de> MapAccess<'de> for Fields<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        seed.deserialize(BorrowedStrDeserializer::<Error>::new(key))
            .map(Some)
            .map_err(|e| self.track.fail(&Path::Key(self.path, key), e))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        let path = Path::Key(self.path, key);
        let track = self.track;
        seed.deserialize(De {
            value,
            path: &path,
            track,
        })
        .map_err(|e| track.fail(&path, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::collections::BTreeMap;
    use std::fmt::Debug;

    use serde::de::DeserializeOwned;
    use serde_json::{json, Value};

    use super::decode_value;
    use crate::api::{
        AssignmentJson, ClientInfo, DescribeRequest, HeartbeatRequest, InitializeRequest, TopicSpec,
    };
    use crate::topology::Subtopology;

    /// Every value that `value` holds, with a way to replace it: `(path of keys and indices)`.
    fn paths(value: &Value, at: Vec<Value>, out: &mut Vec<Vec<Value>>) {
        out.push(at.clone());
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = at.clone();
                    p.push(json!(i));
                    paths(item, p, out);
                }
            }
            Value::Object(map) => {
                for (k, v) in map {
                    let mut p = at.clone();
                    p.push(json!(k));
                    paths(v, p, out);
                }
            }
            _ => {}
        }
    }

    fn at<'a>(value: &'a mut Value, path: &[Value]) -> &'a mut Value {
        path.iter().fold(value, |v, seg| match seg {
            Value::Number(n) => &mut v[n.as_u64().unwrap() as usize],
            Value::String(k) => &mut v[k.as_str()],
            _ => unreachable!(),
        })
    }

    /// The same result as `serde_path_to_error` over `&Value`, for `base` and every value in it
    /// replaced by each of a few wrong ones, removed, or given an unknown neighbour.
    fn same_as_path_to_error<T: DeserializeOwned + PartialEq + Debug>(base: Value) {
        let replacements = [
            json!(null),
            json!(true),
            json!(-1),
            json!(99999999999u64),
            json!(-99999999999i64),
            json!(18446744073709551615u64),
            json!(1.5),
            json!("x"),
            json!(""),
            json!([]),
            json!([1, "a"]),
            json!([[]]),
            json!({}),
            json!({"bogus": 1}),
            json!({"": {}}),
            json!({"subtopologyId": "0", "partitions": [1, 2]}),
        ];
        let mut all = Vec::new();
        paths(&base, Vec::new(), &mut all);
        let mut cases = vec![base.clone()];
        for path in &all {
            for r in &replacements {
                let mut v = base.clone();
                *at(&mut v, path) = r.clone();
                cases.push(v);
            }
            let mut v = base.clone();
            match at(&mut v, path) {
                Value::Object(map) => {
                    map.insert("unknownField".into(), json!(1));
                    let keys: Vec<String> = map.keys().cloned().collect();
                    cases.push(v);
                    for k in keys {
                        let mut w = base.clone();
                        if let Value::Object(m) = at(&mut w, path) {
                            m.shift_remove(&k);
                        }
                        cases.push(w);
                    }
                }
                Value::Array(items) => {
                    items.push(json!(null));
                    cases.push(v);
                }
                _ => {}
            }
        }
        for case in &cases {
            let ours = decode_value::<T>(case).map_err(|(p, e)| (p, e.to_string()));
            let theirs = serde_path_to_error::deserialize::<_, T>(case)
                .map_err(|e| (e.path().to_string(), e.into_inner().to_string()));
            assert_eq!(ours, theirs, "{case}");
        }
    }

    #[test]
    fn paths_and_errors_are_serde_path_to_errors() {
        let tasks = json!([{"subtopologyId": "0", "partitions": [0, 1]}]);
        let offsets = json!([{"subtopologyId": "0", "partition": 1, "offset": 5}]);
        let topology = json!([{
            "subtopologyId": "0",
            "sourceTopics": ["a"],
            "sourceTopicRegex": ["b.*"],
            "stateChangelogTopics": [{"name": "c", "partitions": 2, "replicationFactor": 1,
                "topicConfigs": [{"key": "k", "value": "v"}]}],
            "repartitionSinkTopics": ["d"],
            "repartitionSourceTopics": [{"name": "d"}],
            "copartitionGroups": [{"sourceTopics": [0], "sourceTopicRegex": [0],
                "repartitionSourceTopics": [0]}]
        }]);
        same_as_path_to_error::<HeartbeatRequest>(json!({
            "groupId": "g", "memberId": "m", "memberEpoch": 1, "endpointInformationEpoch": 2,
            "instanceId": "i", "rackId": null, "rebalanceTimeoutMs": 100, "topologyId": "t",
            "topology": {"epoch": 1, "subtopologies": topology},
            "activeTasks": tasks, "standbyTasks": [], "warmupTasks": null, "processId": "p",
            "userEndpoint": {"host": "h", "port": 9092},
            "clientTags": [{"key": "k", "value": "v"}],
            "taskOffsets": offsets, "taskEndOffsets": offsets, "shutdownApplication": false
        }));
        same_as_path_to_error::<InitializeRequest>(
            json!({"groupId": "g", "topologyId": "t", "topology": topology}),
        );
        same_as_path_to_error::<Vec<Subtopology>>(topology);
        same_as_path_to_error::<DescribeRequest>(
            json!({"groupIds": ["a", "b"], "includeAuthorizedOperations": true}),
        );
        same_as_path_to_error::<ClientInfo>(json!({"clientId": "c", "clientHost": "/h"}));
        same_as_path_to_error::<Vec<TopicSpec>>(json!([
            {"name": "a", "partitions": 2, "topicId": "AAAAAAAAAAAAAAAAAAAAAA",
             "racks": [["r1"], []]}
        ]));
        same_as_path_to_error::<Vec<String>>(json!(["a", "b"]));
        same_as_path_to_error::<BTreeMap<String, AssignmentJson>>(json!({
            "m1": {"activeTasks": tasks, "standbyTasks": [], "warmupTasks": tasks},
            "": {}
        }));
    }
}

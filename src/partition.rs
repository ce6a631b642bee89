//! Which `__consumer_offsets` partition coordinates a group (PROTOCOL 5.8).

/// Java's `String.hashCode` over UTF-16 code units.
pub(crate) fn java_hash_code(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `Utils.abs(hashCode) % partitions`, with `abs(i32::MIN) == 0`; `partitions` must be >= 1.
pub fn partition_for(group_id: &str, partitions: i32) -> i32 {
    let h = java_hash_code(group_id);
    let abs = if h == i32::MIN { 0 } else { h.abs() };
    abs % partitions.max(1)
}

/// One batch of a request naming several groups, as Kafka's group coordinator service runs
/// it: the groups of one `__consumer_offsets` partition, or one empty id answered on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupBatch {
    /// The partition whose coordinator answers the batch; `None` for an empty id the service
    /// answers itself (`INVALID_GROUP_ID`).
    pub partition: Option<i32>,
    /// Positions in the request's group ids, in request order.
    pub indices: Vec<usize>,
}

/// `TopicPartition("__consumer_offsets", p)` as a `HashMap` key: its `hashCode` decides the
/// order in which Kafka's service merges the partitions' answers.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct OffsetsPartition(i32);

impl crate::java::hash_map::JavaHashCode for OffsetsPartition {
    fn java_hash(&self) -> i32 {
        let topic = crate::java::hash::string_hash("__consumer_offsets");
        31i32
            .wrapping_add(self.0)
            .wrapping_mul(31)
            .wrapping_add(topic)
    }
}

/// Splits a multi-group request as Kafka's `GroupCoordinatorService` does, in the order it
/// merges the answers: with `empty_alone` (the streams, consumer and share describes) every
/// empty id first, each alone, then one batch per partition in the iteration order of a Java
/// `HashMap<TopicPartition, List<String>>` filled in request order. `DeleteGroups`,
/// `DescribeGroups` and the offsets APIs route an empty id like any other (`empty_alone`
/// false). A host routing requests to the coordinators of its partitions answers in this
/// order to answer as Kafka does.
pub fn kafka_batches<S: AsRef<str>>(
    group_ids: &[S],
    partitions: i32,
    empty_alone: bool,
) -> Vec<GroupBatch> {
    let mut out = Vec::new();
    let mut by_partition = crate::java::hash_map::JavaHashMap::new();
    for (i, id) in group_ids.iter().enumerate() {
        let id = id.as_ref();
        if empty_alone && id.is_empty() {
            out.push(GroupBatch {
                partition: None,
                indices: vec![i],
            });
        } else {
            let p = OffsetsPartition(partition_for(id, partitions));
            by_partition.compute_if_absent(p, Vec::new).push(i);
        }
    }
    out.extend(by_partition.iter().map(|(p, indices)| GroupBatch {
        partition: Some(p.0),
        indices: indices.clone(),
    }));
    out
}

/// The ids of a request naming several groups in the order Kafka answers them, as its
/// `GroupCoordinatorService` merges the partitions' answers ([`kafka_batches`]).
pub(crate) fn kafka_order(ids: &[String], partitions: i32, empty_alone: bool) -> Vec<&String> {
    kafka_batches(ids, partitions, empty_alone)
        .into_iter()
        .flat_map(|b| b.indices)
        .map(|i| &ids[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn protocol_table() {
        for (id, h, p) in [
            ("g", 103, 3),
            ("my-app", -1061206400, 0),
            ("wordcount", 893673541, 41),
            ("streams-app", 1643830855, 5),
            ("polygenelubricants", i32::MIN, 0),
        ] {
            assert_eq!(java_hash_code(id), h, "{id}");
            assert_eq!(partition_for(id, 50), p, "{id}");
        }
    }

    #[test]
    fn non_ascii_uses_utf16_code_units() {
        // 'é' is one code unit (0xE9); '😀' is a surrogate pair (0xD83D, 0xDE00).
        assert_eq!(java_hash_code("é"), 0xE9);
        assert_eq!(java_hash_code("😀"), 0xD83D * 31 + 0xDE00);
        assert_eq!(java_hash_code("grüße"), {
            let mut h: i32 = 0;
            for c in [0x67, 0x72, 0xFC, 0xDF, 0x65] {
                h = h.wrapping_mul(31).wrapping_add(c);
            }
            h
        });
        assert_eq!(partition_for("😀", 7), (0xD83D * 31 + 0xDE00) % 7);
    }

    fn order(ids: &[&str], partitions: i32, empty_alone: bool) -> Vec<&'static str> {
        let names: Vec<&'static str> = ids
            .iter()
            .map(|s| &*Box::leak(s.to_string().into_boxed_str()))
            .collect();
        kafka_batches(ids, partitions, empty_alone)
            .into_iter()
            .flat_map(|b| b.indices.into_iter().map(|i| names[i]).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn multi_group_answers_follow_kafkas_service() {
        // Empty ids first in the describes; "" is in partition 0, which a HashMap of
        // TopicPartition lists before partition 3 ("g") and 41 ("wordcount").
        assert_eq!(order(&["g", ""], 50, true), ["", "g"]);
        assert_eq!(order(&["nope", ""], 50, false), ["", "nope"]);
        // As Java prints a HashMap<TopicPartition, List<String>> filled with these ids:
        // {__consumer_offsets-0=[my-app], __consumer_offsets-41=[wordcount],
        // __consumer_offsets-3=[g, g]}.
        assert_eq!(
            order(&["wordcount", "g", "my-app", "g"], 50, false),
            ["my-app", "wordcount", "g", "g"]
        );
        let batches = kafka_batches(&["g", "", "g"], 50, true);
        assert_eq!(
            batches[0],
            GroupBatch {
                partition: None,
                indices: vec![1]
            }
        );
        assert_eq!(
            batches[1],
            GroupBatch {
                partition: Some(3),
                indices: vec![0, 2]
            }
        );
    }
}

//! The topic image: the topics as the host reported them (`TopicMetadata`), the views the
//! dialects take of it (partition counts, the draft's partition metadata) and the 4.2 metadata
//! hash over it (PROTOCOL 2.12, 4.5, 5.2); and Kafka's controller's rule on a `CreateTopics`
//! request's duplicate names, for a host that answers it.

use std::collections::BTreeMap;

use xxhash_rust::xxh3::Xxh3Default;

use crate::java::java_length;
use crate::ordered::Ordered;
use crate::records::{PartitionMetadataValue, PartitionRacks, TopicMetadata, Uuid};
use crate::topology::{self, Subtopology};

/// Kafka's controller on the names of a `CreateTopics` request (`ControllerApis.createTopics`),
/// for a host that answers it: the names listed more than once, in the order Kafka's answer
/// lists them (a Java `HashSet`'s). Nothing is created for such a name; it gets one result,
/// `INVALID_REQUEST` "Duplicate topic name.", after the results of the other topics.
pub fn duplicate_topic_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut once = std::collections::HashSet::new();
    let mut twice: Vec<String> = Vec::new();
    for name in names {
        if !once.insert(name) && !twice.iter().any(|d| d == name) {
            twice.push(name.to_string());
        }
    }
    crate::java::hash_map_keys(twice)
}

/// Topic names in the order a Java `HashSet` of them iterates: the order in which Kafka's
/// controller answers the topics of a `CreateTopics` it refuses after the others.
pub fn in_java_hash_set_order(names: Vec<String>) -> Vec<String> {
    crate::java::hash_map_keys(names)
}

/// Every reported topic by name.
pub(crate) type Topics = BTreeMap<String, TopicImage>;

/// One topic as the host reported it.
#[derive(Clone, Debug)]
pub struct TopicImage {
    /// The partition count.
    pub partitions: i32,
    /// Kafka's topic id (zero when the host gave none).
    pub topic_id: Uuid,
    /// `racks[p]`: sorted, distinct rack ids of partition `p`.
    pub racks: Vec<Vec<String>>,
    /// The 4.2 topic hash, computed once per report: it walks every partition, so a refresh
    /// must not pay it again (bounded cost).
    hash: std::sync::OnceLock<i64>,
}

impl TopicImage {
    /// A topic of `partitions` partitions, id `topic_id`, racks per partition.
    pub fn new(partitions: i32, topic_id: Uuid, racks: Vec<Vec<String>>) -> Self {
        TopicImage {
            partitions,
            topic_id,
            racks,
            hash: std::sync::OnceLock::new(),
        }
    }

    /// Kafka's topic hash of this image under `name` (PROTOCOL 4.5), remembered. A topic with
    /// more partitions than `walk_limit` (`group.streams.max.tasks.per.subtopology`: no group
    /// that reads it can be assigned) is hashed without its partitions, so that a host
    /// reporting 2^31 of them costs nothing.
    pub fn hash(&self, name: &str, walk_limit: i32) -> i64 {
        *self.hash.get_or_init(|| {
            if self.partitions > walk_limit {
                topic_header_hash(name, self)
            } else {
                topic_hash(name, self)
            }
        })
    }
}

impl PartialEq for TopicImage {
    fn eq(&self, other: &Self) -> bool {
        (self.partitions, &self.topic_id, &self.racks)
            == (other.partitions, &other.topic_id, &other.racks)
    }
}
impl Eq for TopicImage {}

/// Topic name -> partition count of the whole topic image.
pub(crate) fn partition_counts(topics: &Topics) -> BTreeMap<String, i32> {
    topics
        .iter()
        .map(|(k, t)| (k.clone(), t.partitions))
        .to_map()
}

/// The draft partition metadata of the required topics of `subtopologies`, from the topic
/// image (PROTOCOL 2.12, 5.2).
pub(crate) fn partition_metadata(
    topics: &Topics,
    subtopologies: Option<&[Subtopology]>,
    patterns: &topology::SourcePatterns,
) -> PartitionMetadataValue {
    let Some(subs) = subtopologies else {
        return PartitionMetadataValue::default();
    };
    let required =
        topology::required_topics_with(subs, patterns, topics.keys().map(String::as_str));
    let topics = required
        .iter()
        .filter_map(|name| {
            let t = topics.get(name)?;
            Some(TopicMetadata {
                topic_id: t.topic_id,
                topic_name: name.clone(),
                num_partitions: t.partitions,
                partition_metadata: t
                    .racks
                    .iter()
                    .enumerate()
                    .filter(|(_, racks)| !racks.is_empty())
                    .map(|(p, racks)| PartitionRacks {
                        partition: p as i32,
                        racks: racks.clone(),
                    })
                    .collect(),
            })
        })
        .collect();
    PartitionMetadataValue { topics }
}

// -------------------------------------------------------------------------------------------
// The metadata hash (PROTOCOL 4.5)

/// The input of one XXH3-64 hash, encoded as Kafka encodes it: Kafka 4.2 feeds its values to
/// hash4j's `HashStream` (`Hashing.xxh3_64().hashStream()`), whose encoding this reproduces, so
/// that the hash is XXH3-64 (seed 0, default secret) of these bytes:
///
/// - a byte as itself;
/// - an `int` as 4 bytes and a `long` as 8 bytes, little-endian two's complement;
/// - a string as its UTF-16 code units, each 2 bytes little-endian, followed by the number of
///   code units as an `int` (hash4j's `putString`).
struct HashInput {
    /// Bytes not yet fed to the hasher (bounded, so that a topic with very many partitions
    /// hashes in constant memory).
    pending: Vec<u8>,
    hasher: Xxh3Default,
}

impl Default for HashInput {
    fn default() -> Self {
        HashInput {
            pending: Vec::with_capacity(HashInput::CHUNK),
            hasher: Xxh3Default::new(),
        }
    }
}

impl HashInput {
    const CHUNK: usize = 4096;

    fn put(&mut self, bytes: &[u8]) -> &mut Self {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= HashInput::CHUNK {
            self.hasher.update(&self.pending);
            self.pending.clear();
        }
        self
    }

    fn byte(&mut self, b: u8) -> &mut Self {
        self.put(&[b])
    }

    fn int(&mut self, v: i32) -> &mut Self {
        self.put(&v.to_le_bytes())
    }

    fn long(&mut self, v: i64) -> &mut Self {
        self.put(&v.to_le_bytes())
    }

    fn string(&mut self, s: &str) -> &mut Self {
        let mut units = 0i32;
        for u in s.encode_utf16() {
            self.put(&u.to_le_bytes());
            units = units.saturating_add(1);
        }
        self.int(units)
    }

    fn hash(&mut self) -> i64 {
        self.hasher.update(&self.pending);
        self.pending.clear();
        self.hasher.digest() as i64
    }
}

/// The number of UTF-16 code units of `s` (Java's `String.length()`).
/// A topic's hash (Kafka's `computeTopicHash`): XXH3-64 over the magic byte 0, the topic id's
/// most and least significant 64 bits, the name, the partition count, then for each partition
/// `i` in order: `i` and, for each of its racks in sorted order, the rack's length and the rack.
/// Encoding: [`HashInput`]. Any change of the topic's id, name, partition count or racks changes
/// the input bytes, so (barring an XXH3 collision) the hash.
pub(crate) fn topic_hash(name: &str, topic: &TopicImage) -> i64 {
    let mut input = topic_header(name, topic);
    for i in 0..topic.partitions {
        input.int(i);
        let racks = usize::try_from(i)
            .ok()
            .and_then(|p| topic.racks.get(p))
            .map_or(&[][..], Vec::as_slice);
        for rack in racks {
            input.int(java_length(rack)).string(rack);
        }
    }
    input.hash()
}

/// The topic hash without the partitions' part, for topics over the task limits.
pub(crate) fn topic_header_hash(name: &str, topic: &TopicImage) -> i64 {
    topic_header(name, topic).hash()
}

fn topic_header(name: &str, topic: &TopicImage) -> HashInput {
    let id = topic.topic_id.0;
    let (mut msb, mut lsb) = ([0u8; 8], [0u8; 8]);
    msb.copy_from_slice(id.get(..8).unwrap_or(&[0; 8]));
    lsb.copy_from_slice(id.get(8..).unwrap_or(&[0; 8]));
    let mut input = HashInput::default();
    input
        .byte(0)
        .long(i64::from_be_bytes(msb))
        .long(i64::from_be_bytes(lsb))
        .string(name)
        .int(topic.partitions);
    input
}

/// The group's metadata hash (Kafka's `computeGroupHash`): 0 when `topics` (the existing
/// required topics) is empty, else XXH3-64 over their hashes as `long`s in name order.
#[cfg(test)]
fn metadata_hash<'a>(topics: impl Iterator<Item = (&'a str, &'a TopicImage)>) -> i64 {
    metadata_hash_within(topics, i32::MAX)
}

/// [`metadata_hash`], walking the partitions of topics up to `walk_limit` only.
pub(crate) fn metadata_hash_within<'a>(
    topics: impl Iterator<Item = (&'a str, &'a TopicImage)>,
    walk_limit: i32,
) -> i64 {
    let sorted: BTreeMap<&str, &TopicImage> = topics.to_map();
    if sorted.is_empty() {
        return 0;
    }
    let mut input = HashInput::default();
    for (name, topic) in sorted {
        input.long(topic.hash(name, walk_limit));
    }
    input.hash()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn image(partitions: i32, racks: Vec<Vec<&str>>) -> TopicImage {
        TopicImage::new(
            partitions,
            Uuid([7; 16]),
            racks
                .into_iter()
                .map(|r| r.into_iter().map(String::from).collect())
                .collect(),
        )
    }
    #[test]
    fn the_hash_input_is_hash4j_encoding() {
        let mut input = HashInput::default();
        input.byte(0).int(1).long(-2).string("ab");
        let bytes = [
            0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, b'a', 0, b'b', 0, 2, 0,
            0, 0,
        ];
        assert_eq!(input.pending, bytes);
        assert_eq!(input.hash(), xxhash_rust::xxh3::xxh3_64(&bytes) as i64);
        // XXH3-64 of the empty input (seed 0), the reference value of the algorithm.
        assert_eq!(HashInput::default().hash() as u64, 0x2d06_8005_38d3_94c2);
        // Streaming in chunks gives the one-shot hash of the whole input.
        let mut long = HashInput::default();
        let mut all = Vec::new();
        for i in 0..10_000 {
            long.int(i);
            all.extend_from_slice(&i.to_le_bytes());
        }
        assert_eq!(long.hash(), xxhash_rust::xxh3::xxh3_64(&all) as i64);
    }

    #[test]
    fn the_hash_changes_with_every_topic_property() {
        let base = image(2, vec![vec!["r1"], vec!["r1", "r2"]]);
        let h = topic_hash("in", &base);
        let mut other = base.clone();
        other.partitions = 3;
        assert_ne!(topic_hash("in", &other), h);
        let mut other = base.clone();
        other.topic_id = Uuid([8; 16]);
        assert_ne!(topic_hash("in", &other), h);
        let other = image(2, vec![vec!["r1"], vec!["r2"]]);
        assert_ne!(topic_hash("in", &other), h);
        assert_ne!(topic_hash("in2", &base), h);
        // Rack lists are length-prefixed: ["a", "b"] and ["ab"] differ.
        assert_ne!(
            topic_hash("t", &image(1, vec![vec!["a", "b"]])),
            topic_hash("t", &image(1, vec![vec!["ab"]]))
        );
        assert_eq!(metadata_hash(std::iter::empty()), 0);
        let one = metadata_hash([("in", &base)].into_iter());
        assert_ne!(one, 0);
        let two = metadata_hash([("in", &base), ("x", &other)].into_iter());
        assert_ne!(one, two);
        // Name order, not iteration order.
        assert_eq!(
            two,
            metadata_hash([("x", &other), ("in", &base)].into_iter())
        );
    }
}

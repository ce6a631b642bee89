//! The topics the server knows: from flags (`--topic`, `--topics`, each with the id it was given,
//! if any), from `CreateTopics`, and the internal topics the coordinators ask for. Kept in
//! `DIR/topics.json` (written whole, synced, then renamed), so a restarted server knows what it
//! created and each topic keeps its id. A topic made here gets a random id (a version 4 UUID,
//! as Kafka's `Uuid.randomUuid`), `__consumer_offsets` included.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use streams_group_coordinator::api::TopicSpec;
use streams_group_coordinator::records::Uuid;
use streams_group_coordinator::wire::MetadataCache;

/// Kafka's name of the coordinators' topic.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";
/// Kafka's name of its own metadata topic, which `CreateTopics` may not create.
pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// A topic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topic {
    pub name: String,
    pub id: [u8; 16],
    pub partitions: i32,
    #[serde(default)]
    pub internal: bool,
}

/// A topic as `--topic NAME:PARTITIONS[:ID]` or `--topics FILE` declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    pub name: String,
    pub partitions: i32,
    /// The id the topic has on the cluster (`None`: the table's, or a fresh one).
    pub id: Option<[u8; 16]>,
}

/// The topic table.
pub struct Topics {
    file: PathBuf,
    by_name: BTreeMap<String, Topic>,
}

/// Kafka's rule for topic names (`Topic.validate`).
pub fn valid_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return Err("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > 249 {
        return Err(format!(
            "Topic name is illegal, it can't be longer than 249 characters, topic name: {name}"
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// Sixteen bytes from the operating system's random source (`/dev/urandom`); where there is
/// none, from the standard library's per-process random hash keys (seeded by the system too).
pub fn random_bytes() -> [u8; 16] {
    use std::io::Read;
    let mut out = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut out));
    if read.is_err() {
        use std::hash::{BuildHasher, Hasher};
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for (i, half) in out.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(nanos);
            h.write_usize(i);
            half.copy_from_slice(&h.finish().to_be_bytes());
        }
    }
    out
}

/// A fresh id as Kafka's `Uuid.randomUuid` makes one: a random version 4 UUID, never the zero
/// id or the metadata topic's (1), nor one whose text starts with `-` (Kafka's command-line
/// tools would read it as a flag).
pub fn random_id() -> [u8; 16] {
    loop {
        let mut id = random_bytes();
        id[6] = (id[6] & 0x0f) | 0x40;
        id[8] = (id[8] & 0x3f) | 0x80;
        if !reserved(id) && !id_text(id).starts_with('-') {
            return id;
        }
    }
}

/// Kafka's reserved ids: zero (none) and one (the metadata topic's).
fn reserved(id: [u8; 16]) -> bool {
    u128::from_be_bytes(id) <= 1
}

/// Kafka's 22-character URL-safe base64 form of a topic id.
pub fn id_text(id: [u8; 16]) -> String {
    Uuid(id).to_text()
}

/// A topic id as Kafka prints it (22 characters of URL-safe base64), or in the canonical
/// 8-4-4-4-12 hexadecimal form of a UUID.
pub fn parse_id(text: &str) -> Result<[u8; 16], String> {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    let id = if text.len() == 36 && hex.len() == 32 {
        let dashes: Vec<usize> = text.match_indices('-').map(|(i, _)| i).collect();
        let bytes = (dashes == [8, 13, 18, 23])
            .then(|| u128::from_str_radix(&hex, 16).ok())
            .flatten();
        bytes.map(u128::to_be_bytes)
    } else {
        Uuid::from_text(text).map(|u| u.0)
    };
    match id {
        Some(id) if reserved(id) => Err(format!(
            "topic id {text:?} is reserved by Kafka (zero, or the metadata topic's)"
        )),
        Some(id) => Ok(id),
        None => Err(format!(
            "{text:?} is not a topic id (22 characters of URL-safe base64, as Kafka prints it, or 8-4-4-4-12 hexadecimal)"
        )),
    }
}

impl Topic {
    /// The topic as a `TopicMetadata` input names it.
    pub fn spec(&self) -> TopicSpec {
        TopicSpec {
            name: self.name.clone(),
            partitions: self.partitions,
            topic_id: Some(id_text(self.id)),
            racks: None,
        }
    }
}

impl Topics {
    /// The table kept in `file`, with the offsets topic of `offsets_partitions`; and whether
    /// loading changed it (the offsets topic given its first id, or a new partition count),
    /// which then wants saving.
    pub fn load(file: PathBuf, offsets_partitions: i32) -> Result<(Topics, bool), String> {
        let mut by_name: BTreeMap<String, Topic> = match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice::<Vec<Topic>>(&bytes)
                .map_err(|e| format!("{}: {e}", file.display()))?
                .into_iter()
                .map(|t| (t.name.clone(), t))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        let offsets = Topic {
            name: OFFSETS_TOPIC.into(),
            id: by_name.get(OFFSETS_TOPIC).map_or_else(random_id, |t| t.id),
            partitions: offsets_partitions,
            internal: true,
        };
        let changed = by_name.get(OFFSETS_TOPIC) != Some(&offsets);
        by_name.insert(OFFSETS_TOPIC.into(), offsets);
        let topics = Topics { file, by_name };
        topics.check_ids()?;
        Ok((topics, changed))
    }

    /// Two topics of one id are a table no cluster has.
    fn check_ids(&self) -> Result<(), String> {
        let mut seen: HashMap<[u8; 16], &str> = HashMap::new();
        for t in self.by_name.values() {
            if let Some(other) = seen.insert(t.id, &t.name) {
                return Err(format!(
                    "{}: topics {other} and {} have the same id {}",
                    self.file.display(),
                    t.name,
                    id_text(t.id)
                ));
            }
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&Topic> {
        self.by_name.get(name)
    }

    pub fn by_id(&self, id: [u8; 16]) -> Option<&Topic> {
        self.by_name.values().find(|t| t.id == id)
    }

    pub fn all(&self) -> impl Iterator<Item = &Topic> {
        self.by_name.values()
    }

    /// Every topic but the internal one, as the coordinators learn them.
    pub fn specs(&self) -> Vec<TopicSpec> {
        self.by_name
            .values()
            .filter(|t| !t.internal)
            .map(Topic::spec)
            .collect()
    }

    /// A fresh id no topic of the table has.
    fn fresh_id(&self) -> [u8; 16] {
        loop {
            let id = random_id();
            if self.by_id(id).is_none() {
                return id;
            }
        }
    }

    /// Adds a topic with a fresh id (an existing one is refused).
    pub fn create(&mut self, name: &str, partitions: i32) -> Result<Topic, String> {
        valid_name(name)?;
        if self.by_name.contains_key(name) {
            return Err(format!("Topic '{name}' already exists."));
        }
        let t = Topic {
            name: name.into(),
            id: self.fresh_id(),
            partitions,
            internal: false,
        };
        self.by_name.insert(name.into(), t.clone());
        Ok(t)
    }

    /// A topic declared by a flag: added, or, when the table has it otherwise, made as the
    /// flag says (the flags describe the cluster: its id, its partition count). What changed,
    /// for the log (`None`: nothing); an id another topic has, or the offsets topic, is refused.
    pub fn declare(&mut self, d: &Declared) -> Result<Option<String>, String> {
        valid_name(&d.name).map_err(|e| format!("--topic {}: {e}", d.name))?;
        if d.name == OFFSETS_TOPIC {
            return Err(format!(
                "--topic {OFFSETS_TOPIC}: the offsets topic is the server's own (its partitions are offsets.topic.num.partitions)"
            ));
        }
        if let Some(id) = d.id {
            if let Some(other) = self.by_id(id).filter(|t| t.name != d.name) {
                return Err(format!(
                    "--topic {}: id {} is topic {}'s",
                    d.name,
                    id_text(id),
                    other.name
                ));
            }
        }
        let fresh = d.id.unwrap_or_else(|| self.fresh_id());
        match self.by_name.get_mut(&d.name) {
            None => {
                let t = Topic {
                    name: d.name.clone(),
                    id: fresh,
                    partitions: d.partitions,
                    internal: false,
                };
                self.by_name.insert(d.name.clone(), t);
                Ok(Some(format!(
                    "topic {} of {} partitions, id {}",
                    d.name,
                    d.partitions,
                    id_text(fresh)
                )))
            }
            Some(t) => {
                let mut changes = Vec::new();
                if let Some(id) = d.id.filter(|id| *id != t.id) {
                    changes.push(format!("id {} (was {})", id_text(id), id_text(t.id)));
                    t.id = id;
                }
                if d.partitions != t.partitions {
                    changes.push(format!(
                        "{} partitions (was {})",
                        d.partitions, t.partitions
                    ));
                    t.partitions = d.partitions;
                }
                Ok((!changes.is_empty())
                    .then(|| format!("topic {} now has {}", d.name, changes.join(" and "))))
            }
        }
    }

    /// Writes the table (to a temporary file, synced, then renamed over the old one, and the
    /// folder synced).
    pub fn save(&self) -> Result<(), String> {
        let topics: Vec<&Topic> = self.by_name.values().collect();
        let text = serde_json::to_vec_pretty(&topics).map_err(|e| e.to_string())?;
        write_durably(&self.file, &text)
    }
}

/// Writes `bytes` to `file` so that a crash leaves the old file or the new one whole: to a
/// temporary file beside it, synced, renamed over it, and the folder synced.
pub fn write_durably(file: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, file)?;
        if let Some(dir) = file.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    };
    write().map_err(|e| format!("{}: {e}", file.display()))
}

/// What a coordinator thread knows of the topics, for Kafka's front-end checks of the offset
/// APIs (`wire::handle_frame_checked`): every topic of the table, the offsets topic included,
/// as Kafka's metadata cache has them.
#[derive(Debug, Default)]
pub struct Catalog {
    by_name: HashMap<String, ([u8; 16], i32)>,
    by_id: HashMap<[u8; 16], String>,
}

impl Catalog {
    /// Learns topics (a topic learnt again takes its new id and partition count).
    pub fn learn(&mut self, topics: &[Topic]) {
        for t in topics {
            if let Some((old, _)) = self.by_name.insert(t.name.clone(), (t.id, t.partitions)) {
                if old != t.id && self.by_id.get(&old) == Some(&t.name) {
                    self.by_id.remove(&old);
                }
            }
            self.by_id.insert(t.id, t.name.clone());
        }
    }
}

impl MetadataCache for Catalog {
    fn topic_name(&self, id: Uuid) -> Option<String> {
        self.by_id.get(&id.0).cloned()
    }

    fn partition_count(&self, name: &str) -> Option<i32> {
        self.by_name.get(name).map(|(_, n)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sgc-topics-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("topics.json")
    }

    #[test]
    fn names_ids_and_the_table_round_trip() {
        assert!(valid_name("orders-v1.x_y").is_ok());
        for bad in ["", ".", "a b", "ü", &"x".repeat(250)] {
            assert!(valid_name(bad).is_err(), "{bad}");
        }
        assert_eq!(id_text([0; 16]), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(id_text([0xff; 16]).len(), 22);
        let file = temp("round-trip");
        let (mut t, changed) = Topics::load(file.clone(), 3).unwrap();
        assert!(changed, "a fresh table gives the offsets topic its id");
        let made = t.create("in", 4).unwrap();
        assert!(t.create("in", 4).is_err());
        t.save().unwrap();
        let (again, changed) = Topics::load(file.clone(), 3).unwrap();
        assert!(!changed);
        assert_eq!(again.get("in"), Some(&made));
        assert_eq!(
            again.get(OFFSETS_TOPIC).map(|o| o.id),
            t.get(OFFSETS_TOPIC).map(|o| o.id),
            "the offsets topic keeps its id"
        );
        assert_eq!(again.get(OFFSETS_TOPIC).map(|t| t.internal), Some(true));
        assert!(Topics::load(file, 5).unwrap().1, "a new partition count");
    }

    /// Kafka's ids are random UUIDs: two fresh tables, or two topics of one name on two fresh
    /// servers, do not share an id, and no id is reserved or reads as a flag.
    #[test]
    fn fresh_ids_are_random_version_4_uuids() {
        let (mut a, _) = Topics::load(temp("fresh-a"), 1).unwrap();
        let (mut b, _) = Topics::load(temp("fresh-b"), 1).unwrap();
        let (x, y) = (a.create("in", 1).unwrap(), b.create("in", 1).unwrap());
        assert_ne!(x.id, y.id);
        assert_ne!(
            a.get(OFFSETS_TOPIC).unwrap().id,
            b.get(OFFSETS_TOPIC).unwrap().id
        );
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2000 {
            let id = random_id();
            assert_eq!(id[6] >> 4, 4, "version 4");
            assert_eq!(id[8] >> 6, 2, "the IETF variant");
            assert!(!reserved(id) && !id_text(id).starts_with('-'));
            assert!(seen.insert(id));
        }
        // Not a clock value: the first eight bytes are not always zero.
        assert!((0..4).any(|_| random_bytes()[..8] != [0u8; 8]));
    }

    #[test]
    fn ids_parse_as_kafka_prints_them_and_in_hexadecimal() {
        let id = parse_id("AAECAwQFBgcICQoLDA0ODw").unwrap();
        assert_eq!(id, core::array::from_fn(|i| i as u8));
        assert_eq!(parse_id("00010203-0405-0607-0809-0a0b0c0d0e0f"), Ok(id));
        for bad in [
            "AAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAQ",
            "short",
            "00010203-0405-0607-0809-0a0b0c0d0e0g",
            "0001020304-05-0607-0809-0a0b0c0d0e0f",
        ] {
            assert!(parse_id(bad).is_err(), "{bad}");
        }
    }

    /// A declared topic is added with its id; declared again with another id or partition
    /// count it takes them; an id another topic has is refused.
    #[test]
    fn declared_topics_keep_the_ids_they_were_given() {
        let file = temp("declared");
        let (mut t, _) = Topics::load(file.clone(), 2).unwrap();
        let id = parse_id("AAECAwQFBgcICQoLDA0ODw").unwrap();
        let d = |name: &str, partitions, id| Declared {
            name: name.into(),
            partitions,
            id,
        };
        assert!(t.declare(&d("in", 3, Some(id))).unwrap().is_some());
        assert_eq!(t.get("in").map(|t| t.id), Some(id));
        assert_eq!(t.declare(&d("in", 3, Some(id))).unwrap(), None);
        assert_eq!(
            t.declare(&d("in", 3, None)).unwrap(),
            None,
            "the table's id kept"
        );
        assert!(t.declare(&d("other", 1, Some(id))).is_err());
        assert!(t.declare(&d(OFFSETS_TOPIC, 1, None)).is_err());
        let other = random_id();
        let said = t.declare(&d("in", 5, Some(other))).unwrap().unwrap();
        assert!(
            said.contains("5 partitions") && said.contains(&id_text(other)),
            "{said}"
        );
        t.save().unwrap();
        let (again, _) = Topics::load(file, 2).unwrap();
        assert_eq!(
            again.get("in").map(|t| (t.id, t.partitions)),
            Some((other, 5))
        );

        let mut c = Catalog::default();
        c.learn(&again.all().cloned().collect::<Vec<_>>());
        assert_eq!(c.topic_name(Uuid(other)).as_deref(), Some("in"));
        assert_eq!(c.partition_count(OFFSETS_TOPIC), Some(2));
        c.learn(&[Topic {
            name: "in".into(),
            id,
            partitions: 6,
            internal: false,
        }]);
        assert_eq!(c.topic_name(Uuid(other)), None);
        assert_eq!(c.topic_name(Uuid(id)).as_deref(), Some("in"));
        assert_eq!(c.partition_count("in"), Some(6));
    }
}

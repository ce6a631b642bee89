//! The topics the server knows: from flags, from `CreateTopics`, and the internal topics the
//! coordinators ask for. Kept in `DIR/topics.json` (written whole, then renamed), so a
//! restarted server knows what it created.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use streams_group_coordinator::api::TopicSpec;

/// Kafka's name of the coordinators' topic.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A topic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topic {
    pub name: String,
    pub id: [u8; 16],
    pub partitions: i32,
    #[serde(default)]
    pub internal: bool,
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

/// A topic id derived from its name (a version 4 UUID's layout): the same on every run.
fn topic_id(name: &str) -> [u8; 16] {
    let mut id = [0u8; 16];
    for (half, salt) in [(0usize, 0x5347_4331u64), (8, 0x5347_4332)] {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        name.hash(&mut h);
        id[half..half + 8].copy_from_slice(&h.finish().to_be_bytes());
    }
    id[6] = (id[6] & 0x0f) | 0x40;
    id[8] = (id[8] & 0x3f) | 0x80;
    id
}

/// Kafka's 22-character URL-safe base64 form of a topic id.
pub fn id_text(id: [u8; 16]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(22);
    let mut bits = 0u32;
    let mut n = 0;
    for b in id {
        bits = (bits << 8) | u32::from(b);
        n += 8;
        while n >= 6 {
            n -= 6;
            out.push(A[((bits >> n) & 63) as usize] as char);
        }
    }
    if n > 0 {
        out.push(A[((bits << (6 - n)) & 63) as usize] as char);
    }
    out
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
    /// The table kept in `file`, with the offsets topic of `offsets_partitions`.
    pub fn load(file: PathBuf, offsets_partitions: i32) -> Result<Topics, String> {
        let mut by_name: BTreeMap<String, Topic> = match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice::<Vec<Topic>>(&bytes)
                .map_err(|e| format!("{}: {e}", file.display()))?
                .into_iter()
                .map(|t| (t.name.clone(), t))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        by_name.insert(
            OFFSETS_TOPIC.into(),
            Topic {
                name: OFFSETS_TOPIC.into(),
                id: topic_id(OFFSETS_TOPIC),
                partitions: offsets_partitions,
                internal: true,
            },
        );
        Ok(Topics { file, by_name })
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

    /// Adds a topic (an existing one is refused).
    pub fn create(&mut self, name: &str, partitions: i32) -> Result<TopicSpec, String> {
        valid_name(name)?;
        if self.by_name.contains_key(name) {
            return Err(format!("Topic '{name}' already exists."));
        }
        let t = Topic {
            name: name.into(),
            id: topic_id(name),
            partitions,
            internal: false,
        };
        let spec = t.spec();
        self.by_name.insert(name.into(), t);
        Ok(spec)
    }

    /// Writes the table (to a temporary file, synced, then renamed over the old one).
    pub fn save(&self) -> Result<(), String> {
        let topics: Vec<&Topic> = self.by_name.values().filter(|t| !t.internal).collect();
        let text = serde_json::to_vec_pretty(&topics).map_err(|e| e.to_string())?;
        let tmp = self.file.with_extension("json.tmp");
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&text)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.file)?;
            if let Some(dir) = self.file.parent() {
                std::fs::File::open(dir)?.sync_all()?;
            }
            Ok(())
        };
        write().map_err(|e| format!("{}: {e}", self.file.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ids_and_the_table_round_trip() {
        assert!(valid_name("orders-v1.x_y").is_ok());
        for bad in ["", ".", "a b", "ü", &"x".repeat(250)] {
            assert!(valid_name(bad).is_err(), "{bad}");
        }
        let id = topic_id("orders");
        assert_eq!(id, topic_id("orders"));
        assert_ne!(id, topic_id("order"));
        assert_eq!(id_text([0; 16]), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(id_text([0xff; 16]).len(), 22);
        let dir = std::env::temp_dir().join(format!("sgc-topics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("topics.json");
        let _ = std::fs::remove_file(&file);
        let mut t = Topics::load(file.clone(), 3).unwrap();
        t.create("in", 4).unwrap();
        assert!(t.create("in", 4).is_err());
        t.save().unwrap();
        let again = Topics::load(file, 3).unwrap();
        assert_eq!(again.get("in").map(|t| t.partitions), Some(4));
        assert_eq!(again.get(OFFSETS_TOPIC).map(|t| t.internal), Some(true));
        assert_eq!(again.specs().len(), 1);
    }
}

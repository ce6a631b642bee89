//! `TopicMetadata`: the host reports topics; groups that use a changed topic become
//! refresh-due (PROTOCOL 2.12).

use std::collections::BTreeSet;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::{Batch, Coordinator};
use crate::api::{Output, TopicSpec};
use crate::error::BoundaryError;
use crate::ordered::Ordered;
use crate::records::Uuid;
use crate::topics::TopicImage;
use crate::topology;

/// Boundary checks of a `TopicMetadata` input, made before any timer fires.
pub(super) fn check(topics: &[TopicSpec], deleted_topics: &[String]) -> Result<(), BoundaryError> {
    let deleted: BTreeSet<&str> = deleted_topics.iter().map(String::as_str).to_set();
    for (i, t) in topics.iter().enumerate() {
        if deleted.contains(t.name.as_str()) {
            return Err(BoundaryError::input(
                format!("topics[{i}].name"),
                format!("topic {:?} is both in topics and in deletedTopics", t.name),
            ));
        }
        topic_image(t, &format!("topics[{i}]"))?;
    }
    Ok(())
}

impl Coordinator {
    /// Upserts and removes topics; groups that use a changed topic become refresh-due (2.12).
    /// The offsets of a deleted topic are tombstoned, as Kafka's coordinator does when its
    /// metadata image loses the topic.
    pub(super) fn topic_metadata(
        &mut self,
        topics: &[TopicSpec],
        deleted: &[String],
        out: &mut Output,
    ) -> Result<(), BoundaryError> {
        let mut changed: BTreeSet<String> = BTreeSet::new();
        for (i, t) in topics.iter().enumerate() {
            let image = topic_image(t, &format!("topics[{i}]"))?;
            if self.topics.get(&t.name) != Some(&image) {
                changed.insert(t.name.clone());
                self.topics.insert(t.name.clone(), image);
            }
        }
        let mut gone: Vec<(&str, TopicImage)> = Vec::new();
        for name in deleted {
            if let Some(image) = self.topics.remove(name) {
                changed.insert(name.clone());
                gone.push((name, image));
            }
        }
        if !gone.is_empty() {
            let batch = Batch {
                records: self.deleted_topic_tombstones(&gone),
                ..Batch::default()
            };
            // Tombstones of offsets the coordinator holds apply by construction.
            if self.commit(&batch).is_ok() {
                out.push_records(batch.records);
            }
        }
        if changed.is_empty() {
            return Ok(());
        }
        let topics = &self.topics;
        for group in self.groups.values_mut() {
            let Some(t) = &group.topology else { continue };
            // Matches of deleted topics are forgotten, so that memory follows the image.
            group
                .soft
                .patterns
                .retain_topics(|name| topics.contains_key(name));
            if changed
                .iter()
                .any(|c| topology::concerns_topic_with(&t.subtopologies, &group.soft.patterns, c))
            {
                group.soft.refresh_due = true;
            }
        }
        Ok(())
    }
}

impl Coordinator {
    /// The tombstones of the committed and pending offsets of deleted topics (`gone`, with the
    /// image each had), group by group. Kafka 4.2 (and the draft) deletes the topic's
    /// partitions `0..count` in that order, where it has an offset; from 4.3 each deleted topic
    /// in turn, its partitions in the map's order, where the offset's topic id is the deleted
    /// topic's or zero. The pending transactional offsets follow (`onPartitionsDeleted`,
    /// `onTopicsDeleted`).
    fn deleted_topic_tombstones(&self, gone: &[(&str, TopicImage)]) -> Vec<crate::records::Record> {
        use crate::records::{Record, RecordKey};
        let by_id = self
            .rules
            .release()
            .is_some_and(|r| r.deletes_offsets_by_topic_id());
        let mut out = Vec::new();
        let tombstone = |gid: &str, topic: &str, partition: i32| {
            Record::tombstone(RecordKey::OffsetCommit {
                group_id: gid.to_string().into(),
                topic: topic.to_string().into(),
                partition,
            })
        };
        let matches = |id: Uuid, image: &TopicImage| id == Uuid::default() || id == image.topic_id;
        for (gid, g) in self.offsets.groups() {
            if by_id {
                for (name, image) in gone {
                    let Some((_, parts)) = g.topics().find(|(t, _)| t == name) else {
                        continue;
                    };
                    for (p, c) in parts.iter() {
                        if matches(c.topic_id, image) {
                            out.push(tombstone(gid, name, p));
                        }
                    }
                }
            } else {
                for (topic, _) in g.topics() {
                    let Some((_, image)) = gone.iter().find(|(n, _)| *n == topic) else {
                        continue;
                    };
                    for p in 0..image.partitions {
                        if g.get(topic, p).is_some() {
                            out.push(tombstone(gid, topic, p));
                        }
                    }
                }
            }
        }
        // Then the pending transactional offsets, producer by producer.
        for (gid, g) in self.offsets.groups() {
            for producer in g.pending_producers() {
                for (name, image) in gone {
                    for p in 0..image.partitions {
                        let pending = g.pending_offset(producer, name, p);
                        if pending.is_some_and(|c| !by_id || matches(c.topic_id, image)) {
                            out.push(tombstone(gid, name, p));
                        }
                    }
                }
            }
        }
        out
    }
}

/// A `TopicMetadata` topic as the image stores it.
fn topic_image(t: &TopicSpec, path: &str) -> Result<TopicImage, BoundaryError> {
    if t.partitions < 1 {
        return Err(BoundaryError::input(
            format!("{path}.partitions"),
            "must be at least 1",
        ));
    }
    let topic_id = match &t.topic_id {
        None => Uuid::default(),
        Some(text) => {
            let bytes = URL_SAFE_NO_PAD
                .decode(text)
                .ok()
                .filter(|b| b.len() == 16)
                .ok_or_else(|| {
                    BoundaryError::input(
                        format!("{path}.topicId"),
                        "must be a 22-character URL-safe base64 UUID",
                    )
                })?;
            let mut id = [0u8; 16];
            id.copy_from_slice(&bytes);
            Uuid(id)
        }
    };
    let racks = match &t.racks {
        None => Vec::new(),
        Some(r) => {
            if r.len() > t.partitions as usize {
                return Err(BoundaryError::input(
                    format!("{path}.racks"),
                    "lists more partitions than the topic has",
                ));
            }
            r.iter()
                .map(|racks| {
                    let set: BTreeSet<String> = racks.iter().cloned().to_set();
                    set.into_iter().collect()
                })
                .collect()
        }
    };
    Ok(TopicImage::new(t.partitions, topic_id, racks))
}

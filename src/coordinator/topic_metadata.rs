//! `TopicMetadata`: the host reports topics; groups that use a changed topic become
//! refresh-due (PROTOCOL 2.12).

use std::collections::BTreeSet;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::Coordinator;
use crate::api::TopicSpec;
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
    pub(super) fn topic_metadata(
        &mut self,
        topics: &[TopicSpec],
        deleted: &[String],
    ) -> Result<(), BoundaryError> {
        let mut changed: BTreeSet<String> = BTreeSet::new();
        for (i, t) in topics.iter().enumerate() {
            let image = topic_image(t, &format!("topics[{i}]"))?;
            if self.topics.get(&t.name) != Some(&image) {
                changed.insert(t.name.clone());
                self.topics.insert(t.name.clone(), image);
            }
        }
        for name in deleted {
            if self.topics.remove(name).is_some() {
                changed.insert(name.clone());
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

//! A request for several groups split into one request per `__consumer_offsets` partition,
//! and the partitions' answers merged into one response, as Kafka's `GroupCoordinatorService`
//! runs them ([`kafka_batches`]: an empty id of a describe answered alone and first, then
//! partition by partition in the order of a Java `HashMap` of partitions); `OffsetFetch` v8+
//! in the request's order, as `KafkaApis` joins its per-group answers, and the draft's
//! describe too. `ListGroups` is asked of every partition: the groups of their answers
//! together, the first error kept.

use serde_json::{json, Value};

use super::super::{frame_error, read_header, request_json, response_json, Header};
use super::frames::{self, group_id};
use crate::records::Dialect;
use crate::{kafka_batches, partition_for, BoundaryError};

/// A request for several groups or partitions, split: the sub-requests to send, and what
/// merging their answers needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    dialect: Dialect,
    header: Header,
    merge: Merge,
    /// The sub-requests, in the order their answers are merged. A host may move them out:
    /// [`Split::merge`] needs only the answers.
    pub parts: Vec<Part>,
}

/// One sub-request of a [`Split`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The `__consumer_offsets` partition whose coordinator answers it.
    pub partition: i32,
    /// The request frame (header and body, without the 4-byte size).
    pub frame: Vec<u8>,
}

/// How the answers are merged.
#[derive(Clone, Debug, PartialEq)]
enum Merge {
    /// One part, the frame as it came: its answer as it is.
    AsIs,
    /// The answers' entries of `field` together; `indices[i]`: the request's positions of part
    /// `i`'s groups, by which `request_order` sorts them.
    Entries {
        field: &'static str,
        indices: Vec<Vec<usize>>,
        request_order: bool,
    },
    /// `ListGroups` of `partitions` partitions.
    ListGroups { partitions: usize },
}

impl Split {
    /// The request for several groups in `frame`, its groups listed in the request field
    /// `field`, split by partition (one part, the frame as it came, when its groups share one).
    pub(super) fn groups(
        dialect: Dialect,
        frame: &[u8],
        partitions: i32,
        field: &'static str,
    ) -> Result<Split, BoundaryError> {
        let (header, request) = request_json(dialect, frame)?;
        let Some(entries) = request.get(field).and_then(Value::as_array) else {
            return Err(frame_error("body", "a request without its group list"));
        };
        let groups: Vec<&str> = entries.iter().map(group_id).collect();
        // The describes that answer an empty id themselves (`INVALID_GROUP_ID`).
        let empty_alone = matches!(header.api_key, 69 | 89);
        let batches = kafka_batches(&groups, partitions, empty_alone);
        let partition_of = |indices: &[usize]| {
            indices
                .first()
                .map_or(0, |&i| partition_for(groups[i], partitions))
        };
        if batches.len() <= 1 {
            let partition = batches.first().map_or(0, |b| partition_of(&b.indices));
            return Ok(Split {
                dialect,
                header,
                merge: Merge::AsIs,
                parts: vec![Part {
                    partition,
                    frame: frame.to_vec(),
                }],
            });
        }
        let mut parts = Vec::with_capacity(batches.len());
        let mut indices = Vec::with_capacity(batches.len());
        for batch in batches {
            let mine: Vec<Value> = batch.indices.iter().map(|&i| entries[i].clone()).collect();
            let mut sub = request.clone();
            sub[field] = Value::Array(mine);
            let Some(sub_frame) = frames::request(dialect, &header, &sub) else {
                return Err(frame_error("body", "a request that cannot be split"));
            };
            parts.push(Part {
                partition: partition_of(&batch.indices),
                frame: sub_frame,
            });
            indices.push(batch.indices);
        }
        let request_order = header.api_key == 9 || dialect == Dialect::Kip1071Draft;
        Ok(Split {
            dialect,
            merge: Merge::Entries {
                field: answers_field(header.api_key),
                indices,
                request_order,
            },
            header,
            parts,
        })
    }

    /// `ListGroups`: the frame as it came, to each of `partitions` partitions (each reads the
    /// body, and refuses it when it cannot).
    pub(super) fn every_partition(
        dialect: Dialect,
        frame: &[u8],
        partitions: i32,
    ) -> Result<Split, BoundaryError> {
        let (header, _) = read_header(frame)?;
        let parts = (0..partitions)
            .map(|partition| Part {
                partition,
                frame: frame.to_vec(),
            })
            .collect();
        Ok(Split {
            dialect,
            header,
            merge: Merge::ListGroups {
                partitions: usize::try_from(partitions).unwrap_or(0),
            },
            parts,
        })
    }

    /// The request's header (every part carries its correlation and client ids).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// How many answers [`Split::merge`] takes: one per part.
    pub fn len(&self) -> usize {
        match &self.merge {
            Merge::AsIs => 1,
            Merge::Entries { indices, .. } => indices.len(),
            Merge::ListGroups { partitions } => *partitions,
        }
    }

    /// Whether no answer is awaited (never: a split has at least one part).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The response frame to the request: the parts' answers (response frames, without the
    /// size, in the order of the parts) merged in Kafka's order. An error is an answer that
    /// does not read, or a count of answers that is not one per part.
    pub fn merge<A: AsRef<[u8]>>(&self, answers: &[A]) -> Result<Vec<u8>, BoundaryError> {
        if answers.len() != self.len() {
            return Err(BoundaryError::input(
                "answers",
                format!("{} answers for {} parts", answers.len(), self.len()),
            ));
        }
        let (key, v) = (self.header.api_key, self.header.api_version);
        let read = |i: usize, answer: &[u8]| {
            response_json(self.dialect, key, v, answer)
                .map(|(_, json)| json)
                .map_err(|e| {
                    let path = format!("answers[{i}].{}", e.path);
                    BoundaryError::new(e.code, path.trim_end_matches('.'), e.message)
                })
        };
        let merged = match &self.merge {
            Merge::AsIs => return Ok(answers[0].as_ref().to_vec()),
            Merge::Entries {
                field,
                indices,
                request_order,
            } => {
                let mut entries: Vec<(usize, Value)> = Vec::new();
                let mut first: Option<Value> = None;
                for (i, (answer, mine)) in answers.iter().zip(indices).enumerate() {
                    let mut json = read(i, answer.as_ref())?;
                    if let Some(Value::Array(a)) = json.get_mut(*field).map(Value::take) {
                        // A partition answers its groups in the order it was asked.
                        entries.extend(mine.iter().copied().zip(a));
                    }
                    first.get_or_insert(json);
                }
                if *request_order {
                    entries.sort_by_key(|(i, _)| *i);
                }
                let mut merged = first.unwrap_or_else(|| json!({}));
                merged[*field] = Value::Array(entries.into_iter().map(|(_, a)| a).collect());
                merged
            }
            Merge::ListGroups { .. } => {
                let mut merged: Option<Value> = None;
                for (i, answer) in answers.iter().enumerate() {
                    let json = read(i, answer.as_ref())?;
                    match merged.as_mut() {
                        None => merged = Some(json),
                        Some(m) => {
                            if m["errorCode"] == 0 && json["errorCode"] != 0 {
                                m["errorCode"] = json["errorCode"].clone();
                            }
                            if let (Some(all), Some(more)) =
                                (m["groups"].as_array_mut(), json["groups"].as_array())
                            {
                                all.extend(more.iter().cloned());
                            }
                        }
                    }
                }
                merged.unwrap_or_else(|| json!({}))
            }
        };
        frames::response(self.dialect, &self.header, merged)
            .ok_or_else(|| frame_error("", "a merged answer that cannot be written"))
    }
}

/// The response field that lists the answers per group.
fn answers_field(key: i16) -> &'static str {
    if key == 42 {
        "results"
    } else {
        "groups"
    }
}

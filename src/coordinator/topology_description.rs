//! `StreamsGroupTopologyDescriptionUpdate` (Kafka 4.4, API key 93): a member's description of
//! its topology, kept by the description store, as Kafka's `GroupCoordinatorService` runs it
//! with its in-memory plugin: the request checks, the group's checks
//! (`validateStreamsGroupTopologyDescriptionUpdate`), the conversion, then the uncertain mark,
//! the store and the stored epoch, two type-17 records.

use super::{Batch, Coordinator};
use crate::api::{
    DescriptionGlobalStoreJson, DescriptionNodeJson, DescriptionSubtopologyJson, Output, Response,
    TopologyDescriptionJson, TopologyDescriptionUpdateRequest, TopologyDescriptionUpdateResponse,
};
use crate::descriptions::STORED_UNCERTAIN;
use crate::error::{ErrorCode, ProtocolError};
use crate::group::Group;
use crate::records::build::{self, GroupMetadataFields};

const SOURCE: i8 = 1;
const PROCESSOR: i8 = 2;
const SINK: i8 = 3;

fn invalid(message: impl Into<String>) -> ProtocolError {
    ProtocolError::new(ErrorCode::InvalidRequest, message)
}

/// Java's `trim().isEmpty()`: nothing above U+0020.
fn trims_to_empty(s: &str) -> bool {
    s.chars().all(|c| c <= ' ')
}

impl Coordinator {
    /// Handles a push; a refusal is the response's error, as Kafka answers it.
    pub(super) fn topology_description_update(
        &mut self,
        req: &TopologyDescriptionUpdateRequest,
        out: &mut Output,
    ) {
        let result = self.description_push(req).and_then(|(batch, description)| {
            self.commit_group(&req.group_id, batch, out)?;
            self.descriptions
                .set(&req.group_id, req.topology_epoch, description);
            self.descriptions.clear(&req.group_id, req.topology_epoch);
            Ok(())
        });
        let response = match result {
            Ok(()) => TopologyDescriptionUpdateResponse::default(),
            Err(e) => TopologyDescriptionUpdateResponse {
                throttle_time_ms: 0,
                error_code: e.code.code(),
                error_message: Some(e.message),
            },
        };
        out.response = Some(Response::TopologyDescriptionUpdate(response));
    }

    /// The checks in Kafka's order, then the records of a push the plugin accepted and the
    /// description as the plugin keeps it.
    fn description_push(
        &self,
        req: &TopologyDescriptionUpdateRequest,
    ) -> Result<(Batch, TopologyDescriptionJson), ProtocolError> {
        if !self.descriptions.enabled() {
            return Err(ProtocolError::new(
                ErrorCode::UnsupportedVersion,
                "The broker has no streams group topology description plugin configured.",
            ));
        }
        if trims_to_empty(&req.member_id) {
            return Err(invalid("MemberId can't be empty."));
        }
        if trims_to_empty(&req.group_id) {
            return Err(invalid("GroupId can't be empty."));
        }
        let Some(pushed) = &req.topology_description else {
            return Err(invalid("TopologyDescription can't be null."));
        };
        let gid = &req.group_id;
        let group = match self.groups.get(gid) {
            Some(g) => g,
            None if self.offsets.is_simple_group(gid) => {
                return Err(ProtocolError::new(
                    ErrorCode::GroupIdNotFound,
                    format!("Group {gid} is not a streams group."),
                ))
            }
            None => {
                return Err(ProtocolError::new(
                    ErrorCode::GroupIdNotFound,
                    format!("Group {gid} not found."),
                ))
            }
        };
        if !group.members.contains_key(&req.member_id) {
            return Err(ProtocolError::new(
                ErrorCode::UnknownMemberId,
                format!("Member {} is not a member of group {gid}.", req.member_id),
            ));
        }
        let current = group.topology.as_ref().map_or(-1, |t| t.epoch);
        if req.topology_epoch != current {
            return Err(invalid(format!(
                "Topology epoch {} does not match the group's current topology epoch {current}.",
                req.topology_epoch
            )));
        }
        let description = converted(pushed)?;
        Ok((push_records(group, req.topology_epoch), description))
    }
}

/// The uncertain mark (unless the group is already uncertain), then the stored epoch: never
/// lower than what the group holds (`setStoredDescriptionTopologyEpoch`).
fn push_records(group: &Group, pushed: i32) -> Batch {
    let fields = group.metadata_fields();
    let mut batch = Batch::default();
    let record = |stored: i32| {
        build::group_metadata(
            &group.group_id,
            group.group_epoch,
            GroupMetadataFields {
                stored_description_topology_epoch: stored,
                ..fields.clone()
            },
        )
    };
    if fields.stored_description_topology_epoch != STORED_UNCERTAIN {
        batch.push(record(STORED_UNCERTAIN));
    }
    // After the mark the group is uncertain: the pushed epoch unless it is lower.
    let stored = STORED_UNCERTAIN.max(pushed);
    batch.push(record(stored));
    batch
}

/// The description as Kafka's converter turns it into the plugin's (and describe reads it back):
/// a node keeps the fields of its type, each list without repeats in first-seen order; an
/// unknown node type, or a global store not made of a source and a processor, is refused.
fn converted(d: &TopologyDescriptionJson) -> Result<TopologyDescriptionJson, ProtocolError> {
    let subtopologies = d
        .subtopologies
        .iter()
        .map(|s| {
            Ok(DescriptionSubtopologyJson {
                subtopology_id: s.subtopology_id.clone(),
                nodes: s.nodes.iter().map(node).collect::<Result<_, _>>()?,
            })
        })
        .collect::<Result<_, ProtocolError>>()?;
    let global_stores = d
        .global_stores
        .iter()
        .map(|g| {
            let (source, processor) = (node(&g.source)?, node(&g.processor)?);
            if source.node_type != SOURCE || processor.node_type != PROCESSOR {
                return Err(invalid(
                    "Global store must be composed of a source and a processor node.",
                ));
            }
            Ok(DescriptionGlobalStoreJson { source, processor })
        })
        .collect::<Result<_, _>>()?;
    Ok(TopologyDescriptionJson {
        subtopologies,
        global_stores,
    })
}

/// A list as a Java `LinkedHashSet` keeps it.
fn distinct(list: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for s in list {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

fn node(n: &DescriptionNodeJson) -> Result<DescriptionNodeJson, ProtocolError> {
    let kept = DescriptionNodeJson {
        name: n.name.clone(),
        node_type: n.node_type,
        successors: distinct(&n.successors),
        ..DescriptionNodeJson::default()
    };
    Ok(match n.node_type {
        SOURCE => DescriptionNodeJson {
            source_topics: distinct(&n.source_topics),
            ..kept
        },
        PROCESSOR => DescriptionNodeJson {
            stores: distinct(&n.stores),
            ..kept
        },
        SINK => DescriptionNodeJson {
            sink_topic: n.sink_topic.clone(),
            ..kept
        },
        other => return Err(invalid(format!("Unknown topology node type: {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn n(node_type: i8, name: &str) -> DescriptionNodeJson {
        DescriptionNodeJson {
            name: name.into(),
            node_type,
            source_topics: vec!["a".into(), "b".into(), "a".into()],
            sink_topic: Some("out".into()),
            stores: vec!["s".into(), "s".into()],
            successors: vec!["x".into(), "x".into(), "y".into()],
        }
    }

    #[test]
    fn a_node_keeps_its_types_fields_without_repeats() {
        let d = TopologyDescriptionJson {
            subtopologies: vec![DescriptionSubtopologyJson {
                subtopology_id: "0".into(),
                nodes: vec![n(SOURCE, "src"), n(PROCESSOR, "p"), n(SINK, "sink")],
            }],
            global_stores: vec![],
        };
        let c = converted(&d).expect("valid");
        let [src, p, sink] = &c.subtopologies[0].nodes[..] else {
            panic!("three nodes")
        };
        assert_eq!(src.source_topics, ["a", "b"]);
        assert_eq!((src.sink_topic.as_deref(), src.stores.len()), (None, 0));
        assert_eq!(p.stores, ["s"]);
        assert!(p.source_topics.is_empty());
        assert_eq!(sink.sink_topic.as_deref(), Some("out"));
        assert_eq!(sink.successors, ["x", "y"]);
    }

    #[test]
    fn unknown_types_and_odd_global_stores_are_refused() {
        let bad = TopologyDescriptionJson {
            subtopologies: vec![DescriptionSubtopologyJson {
                subtopology_id: "0".into(),
                nodes: vec![n(4, "what")],
            }],
            global_stores: vec![],
        };
        assert_eq!(
            converted(&bad).unwrap_err().message,
            "Unknown topology node type: 4"
        );
        let swapped = TopologyDescriptionJson {
            subtopologies: vec![],
            global_stores: vec![DescriptionGlobalStoreJson {
                source: n(PROCESSOR, "p"),
                processor: n(SOURCE, "s"),
            }],
        };
        assert_eq!(
            converted(&swapped).unwrap_err().code,
            ErrorCode::InvalidRequest
        );
        assert!(trims_to_empty(" \t"));
        assert!(!trims_to_empty(" m"));
    }
}

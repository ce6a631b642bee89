//! `StreamsGroupInitialize` (PROTOCOL 3.13).

use super::fence::bump;
use super::views::statuses::mismatch_message;
use super::{Batch, Coordinator};
use crate::api::{InitializeRequest, InitializeResponse, Output, Response};
use crate::error::{ErrorCode, ProtocolError};
use crate::group::{view_of, Group};
use crate::java::is_blank;
use crate::records::{build, TopologyValue};
use crate::timers::{TimerData, TimerKey, TimerKind};
use crate::topics;
use crate::topology::{self, Configuration};

fn respond(out: &mut Output, code: i16, message: Option<String>) {
    out.response = Some(Response::Initialize(InitializeResponse {
        throttle_time_ms: 0,
        error_code: code,
        error_message: message,
    }));
}

/// A `kafka-4.2` coordinator has no `StreamsGroupInitialize` (PROTOCOL 3.16, rule).
pub(super) fn unsupported(out: &mut Output) {
    respond(
        out,
        ErrorCode::UnsupportedVersion.code(),
        Some("StreamsGroupInitialize is not supported by the kafka-4.2 dialect.".into()),
    );
}

impl Coordinator {
    pub(super) fn initialize(&mut self, now: i64, req: &InitializeRequest, out: &mut Output) {
        match self.try_initialize(now, req, out) {
            Ok(()) => respond(out, 0, None),
            Err(e) => {
                if matches!(
                    e.code,
                    ErrorCode::StreamsInvalidTopology
                        | ErrorCode::StreamsMissingSourceTopics
                        | ErrorCode::StreamsInconsistentInternalTopics
                ) {
                    self.rearm_initialization(now, req);
                }
                respond(out, e.code.code(), Some(e.message));
            }
        }
    }

    /// A failed Initialize re-arms a pending initialization timer for its topology id (3.8).
    fn rearm_initialization(&mut self, now: i64, req: &InitializeRequest) {
        let key = TimerKey::new(
            TimerKind::TopologyInitialization,
            &req.group_id,
            &req.topology_id,
        );
        let Some(timer) = self.timers.get(&key) else {
            return;
        };
        let TimerData::AskedMember(asked) = timer.data.clone() else {
            return;
        };
        let timeout = self
            .groups
            .get(&req.group_id)
            .and_then(|g| g.members.get(&asked))
            .map_or(0, |m| m.metadata.rebalance_timeout_ms);
        self.timers.schedule(
            key,
            now.saturating_add(i64::from(timeout)),
            TimerData::AskedMember(asked),
        );
    }

    fn try_initialize(
        &mut self,
        now: i64,
        req: &InitializeRequest,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let gid = req.group_id.as_str();
        if is_blank(gid) {
            return Err(ProtocolError::invalid_request("GroupId can't be empty."));
        }
        if is_blank(&req.topology_id) {
            return Err(ProtocolError::invalid_request("TopologyId can't be empty."));
        }
        if req.topology.is_empty() {
            return Err(ProtocolError::invalid_request(
                "There must be at least one subtopology.",
            ));
        }
        topology::validate(&req.topology)
            .and_then(|()| self.limits().check(&req.topology))
            .and_then(|()| {
                self.limits()
                    .check_regex_cost(&req.topology, self.topics.keys().map(String::as_str))
            })
            .map_err(|m| ProtocolError::new(ErrorCode::StreamsInvalidTopology, m))?;
        let configuration = self.limits().bound(topology::configure(
            &req.topology,
            &topics::partition_counts(&self.topics),
        ));
        // Only a successful Initialize asks the host to create topics: a failed one stored nothing.
        let mut topics_to_create = Vec::new();
        match &configuration {
            Configuration::MissingSourceTopics(list) => {
                return Err(ProtocolError::new(
                    ErrorCode::StreamsMissingSourceTopics,
                    format!("Missing source topics: {}", list.join(", ")),
                ))
            }
            Configuration::Invalid(m) => {
                return Err(ProtocolError::new(
                    ErrorCode::StreamsInvalidTopology,
                    m.clone(),
                ))
            }
            Configuration::SourceTopicsIncorrectlyPartitioned(m)
            | Configuration::InternalTopicsIncorrectlyPartitioned(m) => {
                return Err(ProtocolError::new(
                    ErrorCode::StreamsInconsistentInternalTopics,
                    m.clone(),
                ))
            }
            Configuration::InternalTopicsMismatch(list) => {
                return Err(ProtocolError::new(
                    ErrorCode::StreamsInconsistentInternalTopics,
                    mismatch_message(list),
                ))
            }
            Configuration::MissingInternalTopics(topics) => topics_to_create = topics.clone(),
            Configuration::Ready(_) => {}
        }
        let fresh;
        let group: &Group = match self.groups.get(gid) {
            Some(g) => g,
            None => {
                fresh = Group::new(gid, self.config.dialect);
                &fresh
            }
        };
        let is_new_group = !self.groups.contains_key(gid);
        let unchanged = group
            .topology
            .as_ref()
            .is_some_and(|t| t.topology_id == req.topology_id && t.subtopologies == req.topology);
        if unchanged {
            self.timers
                .cancel_group(gid, Some(TimerKind::TopologyInitialization));
            out.topics_to_create = topics_to_create;
            return Ok(());
        }
        let mut batch = Batch::default();
        batch.push(build::topology(
            gid,
            TopologyValue {
                topology_id: req.topology_id.clone(),
                epoch: 0,
                subtopologies: req.topology.clone(),
            },
        ));
        let patterns = topology::SourcePatterns::compile(&req.topology);
        let pm = topics::partition_metadata(&self.topics, Some(&req.topology), &patterns);
        let configured = self.limits().bound(topology::configure_with(
            &req.topology,
            &patterns,
            &view_of(&pm),
        ));
        if group.draft().map(|d| &d.partition_metadata) != Some(&pm) {
            batch.push(build::partition_metadata(gid, pm));
        }
        let epoch = group.group_epoch.saturating_add(1);
        let reason = if group.topology.is_none() {
            "TOPOLOGY_INITIALIZED"
        } else {
            "TOPOLOGY_CHANGED"
        };
        bump(group, epoch, vec![reason], &mut batch);
        let members = super::assignment::Members::of(group, None, None);
        self.compute_targets(
            gid,
            &members,
            &group.targets,
            Some(&configured),
            epoch,
            Default::default(),
            &mut batch,
        )?;
        self.commit_group(gid, batch, out)?;
        out.topics_to_create = topics_to_create;
        self.timers
            .cancel_group(gid, Some(TimerKind::TopologyInitialization));
        let retention = self.config.retention_ms();
        if let Some(g) = self.groups.get_mut(gid) {
            g.soft.refresh_due = false;
            if is_new_group && g.members.is_empty() {
                self.timers.schedule(
                    TimerKey::new(TimerKind::Retention, gid, ""),
                    now.saturating_add(retention),
                    TimerData::None,
                );
            }
        }
        Ok(())
    }
}

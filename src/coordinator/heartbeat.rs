//! `StreamsGroupHeartbeat` of a member that is not leaving (PROTOCOL 3.6 R1-R14; 4.4 for the
//! 4.2 dialect), as named steps on one path. The dialect answers its parts through
//! [`DialectRules`](super::dialect::DialectRules): validation, the member-id policy, the
//! topology step, the topic view, statuses and the response.

use std::borrow::Cow;

use super::dialect::{Committed, MemberChange};
use super::{Batch, Coordinator};
use crate::api::{ClientInfo, Explain, HeartbeatRequest, Output};
use crate::error::{bug, ErrorCode, ProtocolError};
use crate::group::member_id::{generate, MemberIdSeed};
use crate::group::{Group, Member, MemberState, TaskOffset};
use crate::ordered;
use crate::reconcile::{reconcile_owned, Roles};
use crate::records::build;
use crate::records::{KeyValue, MemberMetadataValue};
use crate::tasks::{is_subset, task_map, Assignment, TargetMap};
use crate::timers::{TimerData, TimerKind};
use crate::topology::{self, Configuration};

/// The owned lists of a request, or `None` when any of the three is null.
fn owned(req: &HeartbeatRequest) -> Option<Assignment> {
    match (&req.active_tasks, &req.standby_tasks, &req.warmup_tasks) {
        (Some(a), Some(s), Some(w)) => Some(Assignment {
            active: task_map(&crate::api::task_ids(a)),
            standby: task_map(&crate::api::task_ids(s)),
            warmup: task_map(&crate::api::task_ids(w)),
        }),
        _ => None,
    }
}

/// Everything of a regular heartbeat that is decided before records are applied.
struct Plan<'q> {
    /// The request's own id unless the draft generated one (no copy per heartbeat).
    member_id: Cow<'q, str>,
    batch: Batch,
    /// Whether a current assignment record was written for it.
    current_written: bool,
    /// Whether the member's tasks differ from what it held before (for a replacement: from
    /// what the replaced member held; a new member's always do).
    tasks_changed: bool,
    /// Whether the member's endpoint changed (Kafka 4.4 moves the endpoint epoch on it).
    endpoint_changed: bool,
    replaced: Option<String>,
    topics_to_create: Vec<topology::TopicToCreate>,
    /// The configuration this heartbeat computed, for dialects that keep it in memory.
    refreshed: Option<Configuration>,
    /// This heartbeat found the group memberless and arms the initial rebalance delay (4.7).
    arm_delay: bool,
    /// Assignment batching: the bump's assignment waits until then.
    batched_until: Option<i64>,
    /// Kafka 4.3+: the assignment waits for the interval (a status says so).
    interval_delayed: bool,
    /// The response fails: nothing is written.
    response_failure: Option<super::dialect::ResponseFailure>,
}

/// R4: the member a heartbeat is for, and the static member it replaces.
struct Found<'g> {
    /// Borrowed from the group unless this heartbeat makes a new member (no clone of a member
    /// that may not change).
    member: Cow<'g, Member>,
    replaced: Option<&'g Member>,
}

/// R9: the target this heartbeat reconciles towards.
struct Target<'g> {
    /// Borrowed from the group's targets unless computed now.
    target: Cow<'g, Assignment>,
    assignment_epoch: i32,
    batched_until: Option<i64>,
    arm_delay: bool,
    /// Kafka 4.3+: the assignment waits for `group.streams.assignment.interval.ms`.
    interval_delayed: bool,
}

impl Coordinator {
    /// Bounded cost: one heartbeat lists at most `group.streams.max.tasks` owned tasks, task
    /// offsets and task end offsets, as many as a group may have tasks.
    pub(super) fn check_request_size(&self, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
        let max = self.config.max_tasks.max(0) as usize;
        let owned: usize = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks]
            .into_iter()
            .flatten()
            .flatten()
            .map(|t| t.partitions.len())
            .sum();
        let lists = [
            ("owned tasks", owned),
            (
                "task offsets",
                req.task_offsets.as_ref().map_or(0, Vec::len),
            ),
            (
                "task end offsets",
                req.task_end_offsets.as_ref().map_or(0, Vec::len),
            ),
        ];
        match lists.iter().find(|(_, n)| *n > max) {
            Some((what, n)) => Err(ProtocolError::invalid_request(format!(
                "The heartbeat lists {n} {what}, more than the {max} tasks that \
                 group.streams.max.tasks allows."
            ))),
            None => Ok(()),
        }
    }

    /// PROTOCOL 3.6, R1-R15 (4.4 in the 4.2 dialect): plan, commit, then soft state and the
    /// response.
    pub(super) fn regular_heartbeat(
        &mut self,
        now: i64,
        raw_now: i64,
        client: &ClientInfo,
        req: &HeartbeatRequest,
        out: &mut Output,
    ) -> Result<(), ProtocolError> {
        let plan = self.plan_heartbeat(now, raw_now, client, req)?;
        if let Some(failure) = plan.response_failure {
            // Kafka fails while building the response, after it armed the initial rebalance
            // delay, scheduled (or cancelled) the member's rebalance timeout as it reconciled
            // and scheduled its session timeout: timers stay (and find no member). The group's
            // endpoint-information epoch, a plain field it moved, stays too.
            let gid = req.group_id.as_str();
            let member = req.member_id.as_str();
            if plan.arm_delay {
                let until = now.saturating_add(i64::from(self.initial_rebalance_delay_ms(gid)));
                let kind = TimerKind::InitialRebalanceDelay;
                self.schedule(kind, gid, "", until, TimerData::None);
            }
            if plan.current_written {
                self.keep_reconciliation_timer(now, gid, member, &plan.batch);
            }
            self.keep_refresh_deadline(gid, &plan.batch);
            let session = now.saturating_add(i64::from(self.session_timeout_ms(gid)));
            let kind = TimerKind::SessionTimeout;
            self.schedule(kind, gid, member, session, TimerData::None);
            if let Some(group) = self.groups.get_mut(gid) {
                if let Some(epoch) = failure.endpoint_epoch {
                    group.soft.endpoint_epoch = epoch;
                }
                if req.shutdown_application && group.soft.shutdown_requester.is_none() {
                    group.soft.shutdown_requester = Some(member.to_string());
                }
            }
            return Err(failure.error);
        }
        let gid = req.group_id.as_str();
        let before = self.groups.get(gid).map(|g| g.soft.java_member_slots);
        let created = before.is_none();
        let member_id: &str = &plan.member_id;
        if plan.batch.records.is_empty() && plan.refreshed.is_some() {
            self.note_unsnapshotted(gid);
        }
        self.commit_group(gid, plan.batch, out)?;
        out.topics_to_create = plan.topics_to_create;
        self.heartbeat_timers(
            now,
            gid,
            member_id,
            plan.current_written,
            plan.replaced.as_deref(),
            req,
        );
        self.heartbeat_soft_state(gid, member_id, plan.refreshed, created, req);
        if let Some(until) = plan.batched_until {
            self.batch_assignment(gid, until, out);
        }
        if plan.arm_delay {
            self.arm_initial_delay(now, gid, out);
        }
        let done = Committed {
            now,
            group_id: gid,
            member_id,
            tasks_changed: plan.tasks_changed,
            endpoint_changed: plan.endpoint_changed,
            member_slots_before: before.unwrap_or(2),
            interval_delayed: plan.interval_delayed,
            created,
            request: req,
        };
        let rules = self.rules;
        out.response = Some(rules.respond(self, done, out));
        Ok(())
    }

    /// R11: the member's session and rebalance timers; a join cancels the group's retention.
    fn heartbeat_timers(
        &mut self,
        now: i64,
        gid: &str,
        member_id: &str,
        current_written: bool,
        replaced: Option<&str>,
        req: &HeartbeatRequest,
    ) {
        // Kafka removes a replaced static member without cancelling its timers (they find no
        // member when they fire); the draft cancels them.
        if let Some(old) = replaced.filter(|_| !self.config.dialect.is_kafka()) {
            self.cancel_member_timers(gid, old);
        }
        if req.member_epoch == 0 {
            self.cancel(TimerKind::Retention, gid, "");
        }
        if current_written {
            // The committed heartbeat left its member in place.
            let Some(member) = self.groups.get(gid).and_then(|g| g.members.get(member_id)) else {
                bug("the member of a committed heartbeat is gone");
            };
            if member.member_state() == MemberState::UnrevokedTasks {
                let deadline = now.saturating_add(i64::from(member.metadata.rebalance_timeout_ms));
                let epoch = member.member_epoch;
                self.schedule(
                    TimerKind::RebalanceTimeout,
                    gid,
                    member_id,
                    deadline,
                    TimerData::MemberEpoch(epoch),
                );
            } else {
                self.cancel(TimerKind::RebalanceTimeout, gid, member_id);
            }
        }
        let session = now.saturating_add(i64::from(self.session_timeout_ms(gid)));
        self.schedule(
            TimerKind::SessionTimeout,
            gid,
            member_id,
            session,
            TimerData::None,
        );
    }

    /// R12: soft state: the refresh flag, a kept configuration, the shutdown requester and the
    /// reported offsets.
    fn heartbeat_soft_state(
        &mut self,
        gid: &str,
        member_id: &str,
        refreshed: Option<Configuration>,
        created: bool,
        req: &HeartbeatRequest,
    ) {
        let rules = self.rules;
        // Kafka configures a group it creates on an object it does not keep: the next
        // heartbeat configures the stored group again, and a shutdown it asks is forgotten.
        let keep = !(created && rules.keeps_configuration());
        // The committed heartbeat left its group and member in place.
        let Some(group) = self.groups.get_mut(gid) else {
            bug("the group of a committed heartbeat is gone");
        };
        group.soft.refresh_due = false;
        if let Some(configured) = refreshed {
            rules.keep_configuration(group, configured, !keep);
        }
        if keep && req.shutdown_application && group.soft.shutdown_requester.is_none() {
            group.soft.shutdown_requester = Some(member_id.to_string());
        }
        // Most heartbeats report no offsets: no look-up of the member for them.
        if req.task_offsets.is_none() && req.task_end_offsets.is_none() {
            return;
        }
        if let Some(stored) = group.members.get_mut(member_id) {
            if req.task_offsets.is_some() {
                stored.soft.task_offsets = req.task_offsets.as_ref().map(|l| offsets(l));
            }
            if req.task_end_offsets.is_some() {
                stored.soft.task_end_offsets = req.task_end_offsets.as_ref().map(|l| offsets(l));
            }
        }
    }

    /// R1-R10: decides every record of a regular heartbeat without changing state.
    fn plan_heartbeat<'q>(
        &self,
        now: i64,
        raw_now: i64,
        client: &ClientInfo,
        req: &'q HeartbeatRequest,
    ) -> Result<Plan<'q>, ProtocolError> {
        let gid = req.group_id.as_str();
        let join = req.member_epoch == 0;
        let group = self.find_group(req)?; // R1
        let group: &Group = &group;
        self.check_group_size(group, req)?; // R2
        let member_id = self.member_id_of(group, client, req, raw_now); // R3
        let mut batch = Batch::default();
        if join && self.offsets.is_simple_group(gid) && !self.groups.contains_key(gid) {
            // Kafka's `getOrCreateStreamsGroup`: the empty classic group of the id (the simple
            // group of an admin's commit) is deleted first, by its tombstone; its offsets stay.
            batch.push(build::classic_group_tombstone(gid));
        }
        let Found {
            member: found,
            replaced,
        } = self.find_member(group, &member_id, req, &mut batch)?; // R4

        // `find_member` borrows a member the group has and builds one it has not (or a copy,
        // with `replaced`), so no second look-up tells a new member.
        let is_new = replaced.is_none() && matches!(found, Cow::Owned(_));
        debug_assert_eq!(
            is_new,
            replaced.is_none() && !group.members.contains_key(&member_id)
        );
        if !join {
            validate_epoch(&found, req)?; // R5
            check_topology_id(&found, req)?; // R6
        }
        // R7: a heartbeat that changes nothing clones no member.
        let carries_topology = self.rules.join_carries_topology();
        let member: Cow<'_, Member> =
            if is_new || may_change(carries_topology, &found.metadata, client, req) {
                let mut m = found.as_ref().clone();
                merge(carries_topology, &mut m.metadata, client, req);
                Cow::Owned(m)
            } else {
                Cow::Borrowed(found.as_ref())
            };
        let same_member = std::ptr::eq(member.as_ref(), found.as_ref());
        if is_new || !same_member && member.metadata != found.metadata {
            batch.push(build::member_metadata(gid, &*member));
        }
        let mut reasons = metadata_reasons(is_new, &member, &found, req);
        if !is_new
            && self.warmup_caught_up(
                gid,
                &member_id,
                req.task_offsets.as_deref(),
                req.task_end_offsets.as_deref(),
            )
        {
            reasons.push("WARMUP_CAUGHT_UP");
        }
        // 4.4 step 4 (4.2): the topology arrives in the join.
        let new_topology = self.rules.topology_step(self, group, req)?;
        if let Some(t) = &new_topology {
            batch.push(build::topology(gid, t.clone()));
            reasons.push("TOPOLOGY_INITIALIZED");
        }
        let topology = new_topology.as_ref().or(group.topology.as_ref());
        // R8 (4.4 steps 5-6): the topic view.
        let view = self.rules.topic_view(
            self,
            group,
            topology,
            new_topology.is_some(),
            !reasons.is_empty(),
        )?;
        let configured = view.refreshed.as_ref().or(self.rules.configured(group));
        // Bounded soft state: owned tasks must exist (4.4 step 5).
        check_owned_tasks(configured, req)?;
        batch.records.extend(view.records);
        reasons.extend(view.reasons);
        let mut group_epoch = group.group_epoch;
        if !reasons.is_empty() {
            group_epoch = self.rules.next_group_epoch(group.group_epoch);
            batch.push(build::group_metadata(gid, group_epoch, view.fields));
            batch.explain.push(Explain::GroupEpochBumped {
                group_id: gid.to_string(),
                from: group.group_epoch,
                to: group_epoch,
                reasons,
            });
        }
        // R9
        let moved = !is_new && member.metadata.process_id != found.metadata.process_id;
        let target = self.target_of(
            now,
            group,
            &member_id,
            &member,
            replaced,
            moved,
            group_epoch,
            configured,
            req,
            &mut batch,
        )?;
        // R10 (a reconciled member stays as it is: nothing to build, nothing to compare)
        let reconciled: Cow<'_, Member> = if member.is_reconciled_to(target.assignment_epoch) {
            member
        } else {
            Cow::Owned(reconcile_owned(
                member.into_owned(),
                target.assignment_epoch,
                &target.target,
                owned(req).as_ref(),
                &group.owners,
                self.rules.release().map_or(Roles::Revoked, |r| r.roles()),
            )?)
        };
        let unchanged = std::ptr::eq(reconciled.as_ref(), found.as_ref());
        let current_written = is_new || !(unchanged || same_assignment(&reconciled, &found));
        if current_written {
            batch.push(build::current_assignment(
                gid,
                &*reconciled,
                self.rules.writes_assignment_epochs(),
            ));
        }
        let topics_to_create = match configured {
            Some(Configuration::MissingInternalTopics(t)) => t.clone(),
            _ => Vec::new(),
        };
        let tasks_changed = match replaced {
            Some(h) => h.assigned != reconciled.assigned,
            None if is_new => true,
            None => !unchanged && found.assigned != reconciled.assigned,
        };
        let endpoint_changed = reconciled.metadata.user_endpoint != found.metadata.user_endpoint;
        let response_failure = self.rules.check_response(
            group,
            !self.groups.contains_key(gid),
            &reconciled,
            MemberChange {
                join,
                tasks: tasks_changed,
                endpoint: endpoint_changed,
            },
            configured,
            req,
            &self.topics,
        );
        Ok(Plan {
            member_id,
            batch,
            current_written,
            tasks_changed,
            endpoint_changed,
            replaced: replaced.map(|h| h.member_id.clone()),
            topics_to_create,
            refreshed: view.refreshed,
            arm_delay: target.arm_delay,
            batched_until: target.batched_until,
            interval_delayed: target.interval_delayed,
            response_failure,
        })
    }

    /// R1: the group; a join to an unknown group makes a new one.
    fn find_group(&self, req: &HeartbeatRequest) -> Result<Cow<'_, Group>, ProtocolError> {
        let gid = req.group_id.as_str();
        match self.groups.get(gid) {
            Some(g) => Ok(Cow::Borrowed(g)),
            None if req.member_epoch == 0 => Ok(Cow::Owned(Group::new(gid, self.config.dialect))),
            // Kafka's `castToStreamsGroup` of the simple classic group of an admin's commit.
            None if self.offsets.is_simple_group(gid) => Err(ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {gid} is not a streams group."),
            )),
            None => Err(ProtocolError::new(
                ErrorCode::GroupIdNotFound,
                format!("Streams group {gid} not found."),
            )),
        }
    }

    /// R2: a join of a new member to a full group is refused (Kafka 4.2 and 4.3: any join,
    /// a member's own rejoin included).
    fn check_group_size(&self, group: &Group, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
        let every_join = self
            .rules
            .release()
            .is_some_and(|r| r.full_group_refuses_every_join());
        if req.member_epoch == 0
            && group.members.len() as i64 >= i64::from(self.config.max_size)
            && (every_join
                || !group.members.contains_key(&req.member_id)
                    && !req
                        .instance_id
                        .as_ref()
                        .is_some_and(|i| group.static_index.contains_key(i)))
        {
            return Err(ProtocolError::new(
                ErrorCode::GroupMaxSizeReached,
                format!(
                    "The streams group has reached its maximum capacity of {} members.",
                    self.config.max_size
                ),
            ));
        }
        Ok(())
    }

    /// R3: the member id; the draft generates one for a join with a blank id (4.2 never: its
    /// member ids are never blank, 4.3 #4).
    fn member_id_of<'q>(
        &self,
        group: &Group,
        client: &ClientInfo,
        req: &'q HeartbeatRequest,
        raw_now: i64,
    ) -> Cow<'q, str> {
        if self.rules.generates_member_ids() && req.member_epoch == 0 && req.member_id.is_empty() {
            Cow::Owned(generate(
                &MemberIdSeed {
                    group_id: &group.group_id,
                    group_epoch: group.group_epoch,
                    now_ms: raw_now,
                    client_id: &client.client_id,
                    client_host: &client.client_host,
                    instance_id: req.instance_id.as_deref(),
                },
                Some(group),
            ))
        } else {
            Cow::Borrowed(&req.member_id)
        }
    }

    /// R4: the member, by member id or by instance id (static membership, 2.6). A join that
    /// takes over a temporarily left static member's instance id replaces it: the records of
    /// the replacement go into `batch`.
    fn find_member<'g>(
        &self,
        group: &'g Group,
        member_id: &str,
        req: &HeartbeatRequest,
        batch: &mut Batch,
    ) -> Result<Found<'g>, ProtocolError> {
        let gid = group.group_id.as_str();
        let join = req.member_epoch == 0;
        let new_or = |m: Option<&'g Member>| {
            m.map_or_else(|| Cow::Owned(Member::new(member_id)), Cow::Borrowed)
        };
        let Some(instance) = &req.instance_id else {
            return match group.members.get(member_id) {
                Some(m) => Ok(Found {
                    member: Cow::Borrowed(m),
                    replaced: None,
                }),
                None if join => Ok(Found {
                    member: Cow::Owned(Member::new(member_id)),
                    replaced: None,
                }),
                None => Err(ProtocolError::unknown_member(gid, member_id)),
            };
        };
        let same_id_replaces = self
            .rules
            .release()
            .is_some_and(|r| r.replaces_same_id_static_member());
        let member = match (join, group.static_index.get(instance)) {
            (true, None) => new_or(group.members.get(member_id)),
            (true, Some(h)) if *h == member_id && !same_id_replaces => new_or(group.members.get(h)),
            (true, Some(h)) => {
                let holder = group
                    .members
                    .get(h)
                    .ok_or_else(|| ProtocolError::unknown_member(gid, h))?;
                if holder.member_epoch != -2 {
                    return Err(ProtocolError::new(
                        ErrorCode::UnreleasedInstanceId,
                        format!(
                            "Static member {member_id} with instance id {instance} cannot join the group because the instance id is owned by {h} member."
                        ),
                    ));
                }
                if h != member_id && group.members.contains_key(member_id) {
                    return Err(ProtocolError::invalid_request(format!(
                        "Member {member_id} cannot take over instance id {instance} because it is already a member of the group."
                    )));
                }
                let mut copy = holder.clone();
                copy.member_id = member_id.to_string();
                copy.member_epoch = 0;
                copy.previous_member_epoch = 0;
                copy.pending = Assignment::default();
                copy.soft = Default::default();
                // Kafka copies the member's tasks with their epochs as it holds them (0 after
                // its -2 leave; a record without epochs read at its member epoch, -2).
                if !self.config.dialect.is_kafka() {
                    copy.active_epochs.set_all(0);
                }
                batch.records.extend(build::member_tombstones(gid, h));
                batch.push(build::member_metadata(gid, &copy));
                let target = group.targets.get(h).cloned().unwrap_or_default();
                batch.push(build::target_member(gid, member_id, &target));
                batch.push(build::current_assignment(
                    gid,
                    &copy,
                    self.rules.writes_assignment_epochs(),
                ));
                batch.explain.push(Explain::StaticMemberReplaced {
                    group_id: gid.to_string(),
                    instance_id: instance.clone(),
                    old_member_id: h.clone(),
                    new_member_id: member_id.to_string(),
                });
                return Ok(Found {
                    member: Cow::Owned(copy),
                    replaced: Some(holder),
                });
            }
            (false, None) => return Err(ProtocolError::unknown_instance(instance)),
            (false, Some(h)) if *h != member_id => {
                return Err(ProtocolError::fenced_instance(member_id, instance, h))
            }
            (false, Some(h)) => group
                .members
                .get(h)
                .map(Cow::Borrowed)
                .ok_or_else(|| ProtocolError::unknown_member(gid, h))?,
        };
        Ok(Found {
            member,
            replaced: None,
        })
    }

    /// R9: the target: the placeholder while the 4.2 initial rebalance delay is pending (4.7),
    /// a new computation when the group epoch moved past the assignment epoch (unless assignment
    /// batching holds it back), else the member's last target.
    #[allow(clippy::too_many_arguments)]
    fn target_of<'g>(
        &self,
        now: i64,
        group: &'g Group,
        member_id: &str,
        member: &Member,
        replaced: Option<&Member>,
        moved: bool,
        group_epoch: i32,
        configured: Option<&Configuration>,
        req: &HeartbeatRequest,
        batch: &mut Batch,
    ) -> Result<Target<'g>, ProtocolError> {
        let gid = group.group_id.as_str();
        let delay_pending = self.initial_delay_pending(gid);
        let arm_delay = self.rules.has_initial_rebalance_delay()
            && self.initial_rebalance_delay_ms(gid) > 0
            && group.members.is_empty()
            && !delay_pending;
        let mut previous: Cow<'g, TargetMap> = Cow::Borrowed(&group.targets);
        if let Some(h) = replaced {
            let targets = previous.to_mut();
            let t = targets.remove(&h.member_id).unwrap_or_default();
            targets.insert(member_id.to_string(), t);
        }
        // Assignment batching: within the interval of the last computation, the bump waits;
        // except for a member that moved to another process, whose old target could put two
        // copies of a task on one process.
        let interval = i64::from(self.assignment_interval_ms(gid));
        // From Kafka 4.3 the interval counts from the stored assignment timestamp, and the
        // next heartbeat after it computes (no timer, no exception for a moved member).
        let kafka_interval = self
            .rules
            .release()
            .is_some_and(|r| r.has_assignment_interval());
        let interval_delayed = self.within_assignment_interval(group, now)
            && group_epoch > group.assignment_epoch
            && !(arm_delay || delay_pending);
        let batched_until = group
            .soft
            .last_assignment_ms
            .map(|last| last.saturating_add(interval))
            .filter(|until| {
                !kafka_interval
                    && interval > 0
                    && !moved
                    && now < *until
                    && group_epoch > group.assignment_epoch
            });
        let (target, assignment_epoch) = if arm_delay || delay_pending {
            // The placeholder: an empty assignment at epoch max(1, assignmentEpoch) (4.7; from
            // 4.3 the group's own).
            let epoch = match self.rules.release() {
                Some(release) => release.delayed_assignment_epoch(group.assignment_epoch),
                None => group.assignment_epoch.max(1),
            };
            (Cow::Owned(Assignment::default()), epoch)
        } else if group_epoch > group.assignment_epoch
            && batched_until.is_none()
            && !interval_delayed
        {
            let members = super::assignment::Members::of(
                group,
                replaced.map(|h| h.member_id.as_str()),
                Some((member_id, &member.metadata)),
            );
            let mut targets = self.compute_targets(
                gid,
                &members,
                &previous,
                configured,
                group_epoch,
                super::assignment::Reported {
                    member_id,
                    task_offsets: req.task_offsets.as_deref(),
                    task_end_offsets: req.task_end_offsets.as_deref(),
                },
                batch,
            )?;
            // A target not written is the previous one.
            let target = targets
                .remove(member_id)
                .or_else(|| previous.get(member_id).cloned())
                .unwrap_or_default();
            (Cow::Owned(target), group_epoch)
        } else {
            let target = match previous {
                Cow::Borrowed(targets) => targets.get(member_id).map(Cow::Borrowed),
                Cow::Owned(mut targets) => targets.remove(member_id).map(Cow::Owned),
            };
            (
                target.unwrap_or_else(|| Cow::Owned(Assignment::default())),
                group.assignment_epoch,
            )
        };
        Ok(Target {
            target,
            assignment_epoch,
            batched_until,
            arm_delay,
            interval_delayed,
        })
    }
}

/// R7's bump reasons: a new member joined, or its metadata changed (for a static member, only
/// the fields that matter to the assignment).
fn metadata_reasons(
    is_new: bool,
    member: &Member,
    found: &Member,
    req: &HeartbeatRequest,
) -> Vec<&'static str> {
    let is_static = req.instance_id.is_some() || found.metadata.instance_id.is_some();
    let (a, b) = (&member.metadata, &found.metadata);
    let changed = if is_new {
        return vec!["MEMBER_JOINED"];
    } else if std::ptr::eq(member, found) {
        // Not merged: nothing can have changed.
        false
    } else if is_static {
        // Topology identity is the id in the draft and the epoch in 4.2; the other one never
        // changes, so comparing both is dialect-neutral.
        a.topology_id != b.topology_id
            || a.topology_epoch != b.topology_epoch
            || a.rack_id != b.rack_id
            || a.client_tags != b.client_tags
            || a.process_id != b.process_id
    } else {
        a != b
    };
    if changed {
        vec!["MEMBER_METADATA_CHANGED"]
    } else {
        Vec::new()
    }
}

/// Whether [`merge`] could change `md`: conservative (a `true` only costs the merge and a
/// comparison), so that a heartbeat that repeats nothing of its metadata clones nothing.
fn may_change(
    join_carries_topology: bool,
    md: &MemberMetadataValue,
    client: &ClientInfo,
    req: &HeartbeatRequest,
) -> bool {
    let differs = |v: &Option<String>, stored: &Option<String>| {
        v.as_ref().is_some_and(|v| stored.as_ref() != Some(v))
    };
    (join_carries_topology && req.topology.is_some())
        || differs(&req.instance_id, &md.instance_id)
        || differs(&req.rack_id, &md.rack_id)
        || req
            .topology_id
            .as_ref()
            .is_some_and(|v| *v != md.topology_id)
        || req.process_id.as_ref().is_some_and(|v| *v != md.process_id)
        || req.user_endpoint.as_ref().is_some_and(|e| {
            md.user_endpoint
                .as_ref()
                .is_none_or(|s| s.host != e.host || s.port != e.port)
        })
        || (req.rebalance_timeout_ms != -1 && req.rebalance_timeout_ms != md.rebalance_timeout_ms)
        || req.client_tags.is_some()
        || client.client_id != md.client_id
        || client.client_host != md.client_host
}

/// R6: the topology id can change only with a (re-)join.
fn check_topology_id(found: &Member, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
    match &req.topology_id {
        Some(t) if *t != found.metadata.topology_id => Err(ProtocolError::invalid_request(
            "TopologyId can only be changed when (re-)joining.",
        )),
        _ => Ok(()),
    }
}

/// PROTOCOL 4.4 step 5: with a ready topology, the owned task lists must name existing tasks.
fn check_owned_tasks(
    configured: Option<&Configuration>,
    req: &HeartbeatRequest,
) -> Result<(), ProtocolError> {
    let Some(Configuration::Ready(subs)) = configured else {
        return Ok(());
    };
    let lists = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks];
    for t in lists.into_iter().flatten().flatten() {
        let Some(sub) = subs.iter().find(|s| s.subtopology_id == t.subtopology_id) else {
            return Err(ProtocolError::invalid_request(format!(
                "Subtopology {} does not exist in the topology.",
                t.subtopology_id
            )));
        };
        if let Some(p) = t
            .partitions
            .iter()
            .find(|p| **p < 0 || **p >= sub.num_tasks)
        {
            return Err(ProtocolError::invalid_request(format!(
                "Task {p} for subtopology {} is invalid. Number of tasks for this subtopology: {}",
                t.subtopology_id, sub.num_tasks
            )));
        }
    }
    Ok(())
}

/// The persisted fields of a current assignment record.
fn same_assignment(a: &Member, b: &Member) -> bool {
    a.member_epoch == b.member_epoch
        && a.previous_member_epoch == b.previous_member_epoch
        && a.state == b.state
        && a.assigned == b.assigned
        && a.pending == b.pending
}

/// PROTOCOL 2.4.
fn validate_epoch(member: &Member, req: &HeartbeatRequest) -> Result<(), ProtocolError> {
    let (r, e, p) = (
        req.member_epoch,
        member.member_epoch,
        member.previous_member_epoch,
    );
    if r == e {
        return Ok(());
    }
    if r > e {
        return Err(ProtocolError::new(
            ErrorCode::FencedMemberEpoch,
            format!("The streams group member has a greater member epoch ({r}) than the one known by the group coordinator ({e}). The member must abandon all its partitions and rejoin."),
        ));
    }
    if r == p {
        if let Some(o) = owned(req) {
            let a = &member.assigned;
            if is_subset(&o.active, &a.active)
                && is_subset(&o.standby, &a.standby)
                && is_subset(&o.warmup, &a.warmup)
            {
                return Ok(());
            }
        }
    }
    Err(ProtocolError::new(
        ErrorCode::FencedMemberEpoch,
        format!("The streams group member has a smaller member epoch ({r}) than the one known by the group coordinator ({e}). The member must abandon all its partitions and rejoin."),
    ))
}

/// R7: applies the request to the member's persisted metadata. 4.2 (4.4 step 3): a join's
/// `topology.epoch` becomes the member's topology epoch and its `userEndpoint` is set, null
/// included; the draft ignores a topology, and a draft join's endpoint only replaces.
fn merge(
    join_carries_topology: bool,
    md: &mut MemberMetadataValue,
    client: &ClientInfo,
    req: &HeartbeatRequest,
) {
    if let (true, Some(t)) = (join_carries_topology, &req.topology) {
        md.topology_epoch = t.epoch;
        md.user_endpoint = None;
    }
    if let Some(v) = &req.instance_id {
        md.instance_id = Some(v.clone());
    }
    if let Some(v) = &req.rack_id {
        md.rack_id = Some(v.clone());
    }
    if let Some(v) = &req.topology_id {
        md.topology_id = v.clone();
    }
    if let Some(v) = &req.process_id {
        md.process_id = v.clone();
    }
    if let Some(v) = &req.user_endpoint {
        md.user_endpoint = Some(v.into());
    }
    if req.rebalance_timeout_ms != -1 {
        md.rebalance_timeout_ms = req.rebalance_timeout_ms;
    }
    if let Some(tags) = &req.client_tags {
        let mut tags: Vec<KeyValue> = tags
            .iter()
            .map(|t| KeyValue {
                key: t.key.clone(),
                value: t.value.clone(),
            })
            .collect();
        ordered::sort(&mut tags);
        md.client_tags = tags;
    }
    md.client_id = client.client_id.clone();
    md.client_host = client.client_host.clone();
}

fn offsets(list: &[crate::api::TaskOffsetJson]) -> Vec<TaskOffset> {
    list.iter()
        .map(|o| TaskOffset {
            subtopology_id: o.subtopology_id.clone(),
            partition: o.partition,
            offset: o.offset,
        })
        .collect()
}

impl Coordinator {
    /// Gives a heartbeat response back once the host is done with it (its frame written): the
    /// next heartbeat's response is built in its box and member id buffer, so a host that
    /// recycles allocates nothing for a steady heartbeat's answer. Other responses are dropped.
    pub fn recycle(&mut self, response: crate::api::Response) {
        self.recycled.keep(response);
    }
}

//! Moving a member from its current assignment towards its target (PROTOCOL 2.6). Pure: the
//! member, its target and the owner index in, the next member (or an error) out.

use crate::error::{ErrorCode, ProtocolError};
use crate::group::{Member, MemberState, OwnerIndex};
use crate::tasks::{difference, intersect, overlaps, union, Assignment, TaskEpochs, TaskMap};

/// Reconciles `member` to the assignment epoch `target_epoch` and its `target`.
///
/// `owned` is what the member reported holding, or `None` when any of its three lists was null.
/// Returns the member as it should be stored; a member that stays as it is is returned without
/// a copy (the common heartbeat).
pub(crate) fn reconcile_owned(
    member: Member,
    target_epoch: i32,
    target: &Assignment,
    owned: Option<&Assignment>,
    owners: &OwnerIndex,
) -> Result<Member, ProtocolError> {
    if member.is_reconciled_to(target_epoch) {
        return Ok(member);
    }
    let member = &member;
    let epoch = member.member_epoch;
    match member.member_state() {
        MemberState::Stable => Ok(next(member, epoch, target_epoch, target, owned, owners)),
        MemberState::UnrevokedTasks => {
            let still_held = match owned {
                None => true,
                Some(o) => {
                    overlaps(&o.active, &member.pending.active)
                        || overlaps(&o.standby, &member.pending.standby)
                        || overlaps(&o.warmup, &member.pending.warmup)
                }
            };
            if still_held {
                Ok(member.clone())
            } else {
                Ok(next(
                    member,
                    epoch.saturating_add(1),
                    target_epoch,
                    target,
                    owned,
                    owners,
                ))
            }
        }
        MemberState::UnreleasedTasks => {
            Ok(next(member, epoch, target_epoch, target, owned, owners))
        }
        MemberState::Unknown => {
            if owned.is_none_or(|o| !o.is_empty()) {
                Err(ProtocolError::new(
                    ErrorCode::FencedMemberEpoch,
                    "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.",
                ))
            } else {
                Ok(next(
                    member,
                    target_epoch,
                    target_epoch,
                    target,
                    owned,
                    owners,
                ))
            }
        }
    }
}

/// Kafka's `computeNextAssignment`.
fn next(
    member: &Member,
    c: i32,
    target_epoch: i32,
    target: &Assignment,
    owned: Option<&Assignment>,
    owners: &OwnerIndex,
) -> Member {
    let process = member.process_id();
    let a = &member.assigned;
    let keep = Assignment {
        active: intersect(&a.active, &target.active),
        standby: intersect(&a.standby, &target.standby),
        warmup: intersect(&a.warmup, &target.warmup),
    };
    let revoke = Assignment {
        active: difference(&a.active, &keep.active),
        standby: difference(&a.standby, &keep.standby),
        warmup: difference(&a.warmup, &keep.warmup),
    };
    let wanted = Assignment {
        active: difference(&target.active, &keep.active),
        standby: difference(&target.standby, &keep.standby),
        warmup: difference(&target.warmup, &keep.warmup),
    };
    let (add_active, held_active) = split(&wanted.active, |s, p| {
        owners.active_owner(s, p).is_some() || owners.holds_replica(process, s, p)
    });
    let replica_blocked = |s: &str, p: i32| {
        owners.active_owner(s, p) == Some(process) || owners.holds_replica(process, s, p)
    };
    let (add_standby, held_standby) = split(&wanted.standby, replica_blocked);
    let (add_warmup, held_warmup) = split(&wanted.warmup, replica_blocked);
    let add = Assignment {
        active: add_active,
        standby: add_standby,
        warmup: add_warmup,
    };
    let unreleased = !(held_active.is_empty() && held_standby.is_empty() && held_warmup.is_empty());

    let mut out = member.clone();
    out.previous_member_epoch = member.member_epoch;
    out.pending = Assignment::default();
    let must_revoke = !revoke.is_empty()
        && owned.is_none_or(|o| {
            overlaps(&o.active, &revoke.active)
                || overlaps(&o.standby, &revoke.standby)
                || overlaps(&o.warmup, &revoke.warmup)
        });
    if must_revoke {
        out.state = MemberState::UnrevokedTasks.code();
        out.member_epoch = c;
        out.assigned = keep;
        out.pending = revoke;
    } else if !add.is_empty() {
        out.state = if unreleased {
            MemberState::UnreleasedTasks.code()
        } else {
            MemberState::Stable.code()
        };
        out.member_epoch = target_epoch;
        out.assigned = Assignment {
            active: union(&keep.active, &add.active),
            standby: union(&keep.standby, &add.standby),
            warmup: union(&keep.warmup, &add.warmup),
        };
    } else {
        out.state = if unreleased {
            MemberState::UnreleasedTasks.code()
        } else {
            MemberState::Stable.code()
        };
        out.member_epoch = target_epoch;
        out.assigned = keep;
    }
    // Tasks pending revocation were assigned before and keep their epochs.
    out.active_epochs = TaskEpochs::merged(
        active_epochs(member, &out.assigned.active, target_epoch),
        active_epochs(member, &out.pending.active, target_epoch),
    );
    out
}

/// Splits `wanted` into (free to add, withheld) by the `blocked` predicate.
fn split(wanted: &TaskMap, blocked: impl Fn(&str, i32) -> bool) -> (TaskMap, TaskMap) {
    let mut free = TaskMap::builder();
    let mut held = TaskMap::builder();
    for (s, ps) in wanted.iter_shared() {
        for &p in ps {
            let side = if blocked(s, p) { &mut held } else { &mut free };
            side.push_shared(s, p);
        }
    }
    (free.finish(), held.finish())
}

/// Kept active tasks keep their per-task epoch; newly granted ones get the target epoch.
fn active_epochs(member: &Member, active: &TaskMap, target_epoch: i32) -> TaskEpochs {
    TaskEpochs::of(active, |s, p| {
        member.active_epochs.get(s, p).unwrap_or(target_epoch)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests hold a member and keep it: reconcile a copy.
    fn reconcile(
        member: &Member,
        target_epoch: i32,
        target: &Assignment,
        owned: Option<&Assignment>,
        owners: &OwnerIndex,
    ) -> Result<Member, ProtocolError> {
        reconcile_owned(member.clone(), target_epoch, target, owned, owners)
    }
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn tasks(entries: &[(&str, &[i32])]) -> TaskMap {
        entries
            .iter()
            .map(|(s, p)| (s.to_string(), p.iter().copied()))
            .collect()
    }

    fn active(entries: &[(&str, &[i32])]) -> Assignment {
        Assignment {
            active: tasks(entries),
            ..Default::default()
        }
    }

    fn member(id: &str, process: &str, epoch: i32, assigned: Assignment) -> Member {
        let mut m = Member::new(id);
        m.metadata.process_id = process.to_string();
        m.member_epoch = epoch;
        m.assigned = assigned;
        m
    }

    #[test]
    fn worked_example_revocation_then_release() {
        // PROTOCOL 3.11 steps 4-7.
        let a = member("A", "p1", 2, active(&[("0", &[0, 1])]));
        let b = member("B", "p2", 0, Assignment::default());
        let mut owners = OwnerIndex::default();
        owners.add("p1", &a.assigned, &a.pending);
        // B joins at epoch 3: partition 1 is still held by p1.
        let b1 = reconcile(
            &b,
            3,
            &active(&[("0", &[1])]),
            Some(&Assignment::default()),
            &owners,
        )
        .unwrap();
        assert_eq!(b1.member_state(), MemberState::UnreleasedTasks);
        assert_eq!((b1.member_epoch, b1.previous_member_epoch), (3, 0));
        assert!(b1.assigned.is_empty());
        // A heartbeats without owned lists: must revoke 0:[1].
        let a1 = reconcile(&a, 3, &active(&[("0", &[0])]), None, &owners).unwrap();
        assert_eq!(a1.member_state(), MemberState::UnrevokedTasks);
        assert_eq!((a1.member_epoch, a1.previous_member_epoch), (2, 2));
        assert_eq!(a1.assigned, active(&[("0", &[0])]));
        assert_eq!(a1.pending, active(&[("0", &[1])]));
        // Unknown owned lists keep A waiting.
        assert_eq!(
            reconcile(&a1, 3, &active(&[("0", &[0])]), None, &owners).unwrap(),
            a1
        );
        // A reports the task gone.
        let a2 = reconcile(
            &a1,
            3,
            &active(&[("0", &[0])]),
            Some(&active(&[("0", &[0])])),
            &owners,
        )
        .unwrap();
        assert_eq!(a2.member_state(), MemberState::Stable);
        assert_eq!((a2.member_epoch, a2.previous_member_epoch), (3, 2));
        assert!(a2.pending.is_empty());
        let mut owners = OwnerIndex::default();
        owners.add("p1", &a2.assigned, &a2.pending);
        let b2 = reconcile(&b1, 3, &active(&[("0", &[1])]), None, &owners).unwrap();
        assert_eq!(b2.member_state(), MemberState::Stable);
        assert_eq!(b2.assigned, active(&[("0", &[1])]));
        assert_eq!((b2.member_epoch, b2.previous_member_epoch), (3, 3));
    }

    #[test]
    fn standby_is_not_blocked_by_another_process_active_but_by_its_own() {
        let mut owners = OwnerIndex::default();
        owners.add("p1", &active(&[("0", &[0])]), &Assignment::default());
        let m = member("B", "p2", 1, Assignment::default());
        let target = Assignment {
            standby: tasks(&[("0", &[0])]),
            ..Default::default()
        };
        let out = reconcile(&m, 2, &target, Some(&Assignment::default()), &owners).unwrap();
        assert_eq!(out.assigned.standby, tasks(&[("0", &[0])]));
        assert_eq!(out.member_state(), MemberState::Stable);
        let same_process = member("C", "p1", 1, Assignment::default());
        let out = reconcile(
            &same_process,
            2,
            &target,
            Some(&Assignment::default()),
            &owners,
        )
        .unwrap();
        assert_eq!(out.member_state(), MemberState::UnreleasedTasks);
        assert!(out.assigned.is_empty());
    }

    #[test]
    fn unknown_state_must_rejoin_empty() {
        let mut m = member("A", "p", 1, Assignment::default());
        m.state = 127;
        let owners = OwnerIndex::default();
        let err = reconcile(&m, 2, &Assignment::default(), None, &owners).unwrap_err();
        assert_eq!(err.code, ErrorCode::FencedMemberEpoch);
        let ok = reconcile(
            &m,
            2,
            &active(&[("0", &[0])]),
            Some(&Assignment::default()),
            &owners,
        )
        .unwrap();
        assert_eq!(ok.member_epoch, 2);
        assert_eq!(ok.assigned, active(&[("0", &[0])]));
    }

    #[test]
    fn reconciled_member_is_unchanged() {
        let m = member("A", "p", 2, active(&[("0", &[0])]));
        let owners = OwnerIndex::default();
        assert_eq!(
            reconcile(&m, 2, &Assignment::default(), None, &owners).unwrap(),
            m
        );
    }
}

//! Moving a member from its current assignment towards its target (PROTOCOL 2.6). Pure: the
//! member, its target and the owner index in, the next member (or an error) out.

use crate::error::{ErrorCode, ProtocolError};
use crate::group::{Member, MemberState, OwnerIndex};
use crate::tasks::{difference, intersect, overlaps, union, Assignment, TaskEpochs, TaskMap};

/// How a member's task changes its role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Roles {
    /// Through revocation: a task given up in one role is granted in another only after the
    /// member released it (Kafka 4.2, 4.3, the draft).
    Revoked,
    /// Kafka 4.4's in-place role changes (`CurrentAssignmentBuilder`, KAFKA-9501): an active
    /// task demoted to a standby is granted as one at once (the active half still revoked), a
    /// standby and a warm-up turn into each other with no revocation, and a standby or
    /// warm-up promoted to active is kept until the active task is granted, then dropped with
    /// no revocation; the member's own task in another role does not block its grant.
    InPlace,
}

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
    roles: Roles,
) -> Result<Member, ProtocolError> {
    if member.is_reconciled_to(target_epoch) {
        return Ok(member);
    }
    let member = &member;
    let epoch = member.member_epoch;
    match member.member_state() {
        MemberState::Stable => Ok(next(
            member,
            epoch,
            target_epoch,
            target,
            owned,
            owners,
            roles,
        )),
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
                    roles,
                ))
            }
        }
        MemberState::UnreleasedTasks => Ok(next(
            member,
            epoch,
            target_epoch,
            target,
            owned,
            owners,
            roles,
        )),
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
                    roles,
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
    roles: Roles,
) -> Member {
    let process = member.process_id();
    let a = &member.assigned;
    let mut keep = Assignment {
        active: intersect(&a.active, &target.active),
        standby: intersect(&a.standby, &target.standby),
        warmup: intersect(&a.warmup, &target.warmup),
    };
    let mut revoke = Assignment {
        active: difference(&a.active, &keep.active),
        standby: difference(&a.standby, &keep.standby),
        warmup: difference(&a.warmup, &keep.warmup),
    };
    let wanted = Assignment {
        active: difference(&target.active, &keep.active),
        standby: difference(&target.standby, &keep.standby),
        warmup: difference(&target.warmup, &keep.warmup),
    };
    let in_place = roles == Roles::InPlace;
    // A copy of the task on this process blocks a grant, except (in place) the member's own.
    let standby_here = |s: &str, p: i32| {
        owners.holds_standby(process, s, p) && !(in_place && a.standby.contains(s, p))
    };
    let warmup_here = |s: &str, p: i32| {
        owners.holds_warmup(process, s, p) && !(in_place && a.warmup.contains(s, p))
    };
    let active_here = |s: &str, p: i32| {
        owners.active_owner(s, p) == Some(process) && !(in_place && a.active.contains(s, p))
    };
    let (add_active, held_active) = split(&wanted.active, |s, p| {
        owners.active_owner(s, p).is_some() || standby_here(s, p) || warmup_here(s, p)
    });
    let (add_standby, held_standby) = split(&wanted.standby, |s, p| {
        active_here(s, p) || owners.holds_standby(process, s, p) || warmup_here(s, p)
    });
    let (add_warmup, held_warmup) = split(&wanted.warmup, |s, p| {
        owners.active_owner(s, p) == Some(process)
            || standby_here(s, p)
            || owners.holds_warmup(process, s, p)
    });
    let mut add = Assignment {
        active: add_active,
        standby: add_standby,
        warmup: add_warmup,
    };
    let unreleased = !(held_active.is_empty() && held_standby.is_empty() && held_warmup.is_empty());
    let released = |revoke: &Assignment| {
        owned.is_some_and(|o| {
            !(overlaps(&o.active, &revoke.active)
                || overlaps(&o.standby, &revoke.standby)
                || overlaps(&o.warmup, &revoke.warmup))
        })
    };
    if in_place {
        change_roles(a, target, &mut keep, &mut revoke, &mut add, released);
    }
    let must_revoke = !revoke.is_empty() && !released(&revoke);

    let mut out = member.clone();
    out.previous_member_epoch = member.member_epoch;
    out.pending = Assignment::default();
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

/// Kafka 4.4's in-place role changes ([`Roles::InPlace`]) on the member's next assignment:
/// `keep` (assigned), `revoke` (pending revocation) and `add` (granted now), from its current
/// tasks `a` and its `target`.
fn change_roles(
    a: &Assignment,
    target: &Assignment,
    keep: &mut Assignment,
    revoke: &mut Assignment,
    add: &mut Assignment,
    released: impl Fn(&Assignment) -> bool,
) {
    // An active task demoted to a standby: the standby granted now.
    let (rest, demoted) = split(&add.standby, |s, p| a.active.contains(s, p));
    add.standby = rest;
    keep.standby = union(&keep.standby, &demoted);
    // A standby turned into a warm-up, and back: granted now, nothing to revoke.
    let (rest, converted) = split(&add.warmup, |s, p| a.standby.contains(s, p));
    add.warmup = rest;
    keep.warmup = union(&keep.warmup, &converted);
    revoke.standby = difference(&revoke.standby, &converted);
    let (rest, converted) = split(&add.standby, |s, p| a.warmup.contains(s, p));
    add.standby = rest;
    keep.standby = union(&keep.standby, &converted);
    revoke.warmup = difference(&revoke.warmup, &converted);
    // A standby or warm-up promoted to active is never revoked: it stays until the active task
    // is granted (in this step only when nothing is left to revoke).
    let promoted = |m: &TaskMap| split(m, |s, p| target.active.contains(s, p)).1;
    let (standby_up, warmup_up) = (promoted(&a.standby), promoted(&a.warmup));
    revoke.standby = difference(&revoke.standby, &standby_up);
    revoke.warmup = difference(&revoke.warmup, &warmup_up);
    let revoking = !revoke.is_empty() && !released(revoke);
    let waiting = |m: &TaskMap| split(m, |s, p| revoking || !add.active.contains(s, p)).1;
    keep.standby = union(&keep.standby, &waiting(&standby_up));
    keep.warmup = union(&keep.warmup, &waiting(&warmup_up));
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
        reconcile_owned(
            member.clone(),
            target_epoch,
            target,
            owned,
            owners,
            Roles::Revoked,
        )
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

    fn roles(
        active: &[(&str, &[i32])],
        standby: &[(&str, &[i32])],
        warmup: &[(&str, &[i32])],
    ) -> Assignment {
        Assignment {
            active: tasks(active),
            standby: tasks(standby),
            warmup: tasks(warmup),
        }
    }

    fn in_place(
        m: &Member,
        epoch: i32,
        target: &Assignment,
        owned: Option<&Assignment>,
        owners: &OwnerIndex,
    ) -> Member {
        reconcile_owned(m.clone(), epoch, target, owned, owners, Roles::InPlace).unwrap()
    }

    #[test]
    fn kafka_4_4_demotes_an_active_task_to_a_standby_in_place() {
        // A holds 0_0 active; the target makes it a standby (its active moves elsewhere).
        let a = member("A", "p1", 2, roles(&[("0", &[0, 1])], &[], &[]));
        let mut owners = OwnerIndex::default();
        owners.add("p1", &a.assigned, &a.pending);
        let target = roles(&[("0", &[1])], &[("0", &[0])], &[]);
        let owned = a.assigned.clone();
        let next = in_place(&a, 3, &target, Some(&owned), &owners);
        // The standby is granted at once; the active half waits for its revocation.
        assert_eq!(next.member_state(), MemberState::UnrevokedTasks);
        assert_eq!(next.assigned, roles(&[("0", &[1])], &[("0", &[0])], &[]));
        assert_eq!(next.pending, active(&[("0", &[0])]));
        // Through revocation (4.2), the standby is not granted while p1 runs the active task.
        let old = reconcile(&a, 3, &target, Some(&owned), &owners).unwrap();
        assert_eq!(old.assigned, active(&[("0", &[1])]));
    }

    #[test]
    fn kafka_4_4_turns_standbys_and_warmups_into_each_other_without_revocation() {
        let a = member("A", "p1", 2, roles(&[], &[("0", &[0])], &[("0", &[1])]));
        let mut owners = OwnerIndex::default();
        owners.add("p1", &a.assigned, &a.pending);
        let target = roles(&[], &[("0", &[1])], &[("0", &[0])]);
        let next = in_place(&a, 3, &target, None, &owners);
        assert_eq!(next.member_state(), MemberState::Stable);
        assert_eq!(next.member_epoch, 3);
        assert_eq!(next.assigned, target);
        assert!(next.pending.is_empty());
    }

    #[test]
    fn kafka_4_4_keeps_a_promoted_standby_until_its_active_task_is_granted() {
        // B holds 0_0 as a standby; the target makes it B's active task, still run by A.
        let a = member("A", "p1", 3, roles(&[("0", &[0])], &[], &[]));
        let b = member("B", "p2", 2, roles(&[], &[("0", &[0])], &[]));
        let mut owners = OwnerIndex::default();
        owners.add("p1", &a.assigned, &a.pending);
        owners.add("p2", &b.assigned, &b.pending);
        let target = active(&[("0", &[0])]);
        let waiting = in_place(&b, 3, &target, Some(&b.assigned), &owners);
        assert_eq!(waiting.member_state(), MemberState::UnreleasedTasks);
        assert_eq!(waiting.assigned, roles(&[], &[("0", &[0])], &[]));
        assert!(
            waiting.pending.is_empty(),
            "a promoted standby is never revoked"
        );
        // A released it: the active task is granted and the standby goes with no revocation.
        let mut owners = OwnerIndex::default();
        owners.add("p2", &waiting.assigned, &waiting.pending);
        let granted = in_place(&waiting, 3, &target, Some(&waiting.assigned), &owners);
        assert_eq!(granted.member_state(), MemberState::Stable);
        assert_eq!(granted.assigned, target);
        assert_eq!(granted.active_epochs.get("0", 0), Some(3));
    }
}

// What a cluster checks besides the coordinator's own invariants (which its `GroupView` keeps
// from the records): that no two running clients process one active task, and whether a group
// has converged (`unstableReasons`, what `runUntilStable` waits for).

import { taskKeys } from './simulation.mjs';

/**
 * Which running simulated members process which active task, kept incrementally: a check
 * looks only at the members that changed (owned tasks, status or certainty) since the last
 * one, so it costs what changed, not the group's size. A member that has not heard from the
 * coordinator since a lost or delayed heartbeat (`unsure`) is left out: it may rightly still
 * hold tasks the coordinator moved.
 */
export class ClientOwnership {
  /** Active task (`group\0sub:partition`) -> names of running clients that process it. */
  #owners = new Map();
  /** Tasks with two or more such clients. */
  #conflicts = new Set();
  /** Members whose owned tasks, status or certainty changed since the last check. */
  #dirty = new Set();

  /** Called (through the cluster) by a member whose owned tasks, status or certainty changed. */
  changed(member) {
    this.#dirty.add(member);
  }

  /** Brings the owners up to date and returns a line for each task two clients process. */
  violations() {
    for (const m of this.#dirty) {
      const owned = m.running && !m.unsure ? m.owned : null;
      if (owned === m.checkedOwned) continue;
      for (const key of m.checkedKeys) {
        const names = this.#owners.get(key);
        names.delete(m.name);
        if (names.size === 0) this.#owners.delete(key);
        if (names.size < 2) this.#conflicts.delete(key);
      }
      m.checkedOwned = owned;
      m.checkedKeys = owned === null ? [] : taskKeys(owned.activeTasks).map((k) => `${m.groupId}\u0000${k}`);
      for (const key of m.checkedKeys) {
        let names = this.#owners.get(key);
        if (names === undefined) this.#owners.set(key, (names = new Set()));
        names.add(m.name);
        if (names.size > 1) this.#conflicts.add(key);
      }
    }
    this.#dirty.clear();
    const violations = [];
    for (const key of this.#conflicts) {
      const [a, b] = [...this.#owners.get(key)];
      violations.push(`clients ${a} and ${b} both process active task ${key.split('\u0000')[1]}`);
    }
    return violations;
  }
}

/**
 * Why group `groupId` has not converged (empty when it has), from the groups as the records
 * say (`view`) and the simulated `members`: the group is STABLE, its members are exactly the
 * running (and restarting) simulated members of the group, and each of those is at the
 * assignment epoch, agrees with the coordinator on its epoch and owns its assignment.
 */
export function unstableReasons(view, members, groupId) {
  const reasons = [];
  const g = view.group(groupId);
  const sims = [];
  for (const m of members) {
    if (m.groupId === groupId && (m.running || m.status === 'restarting')) sims.push(m);
  }
  if (g === null) {
    if (sims.length > 0) reasons.push(`group ${groupId} does not exist`);
    return reasons;
  }
  const state = view.state(groupId);
  if (state !== 'STABLE') reasons.push(`group state ${state}`);
  const simIds = new Set();
  for (const s of sims) {
    if (!s.running) {
      reasons.push(`${s.name} is restarting`);
      continue;
    }
    simIds.add(s.memberId);
    const m = g.members.get(s.memberId);
    if (m === undefined) {
      reasons.push(`${s.name} is not in the group`);
      continue;
    }
    if (m.memberEpoch !== g.assignmentEpoch) {
      reasons.push(`${s.name} at epoch ${m.memberEpoch}, assignment epoch ${g.assignmentEpoch}`);
    }
    if (s.memberEpoch !== m.memberEpoch) {
      reasons.push(`${s.name} thinks it is at epoch ${s.memberEpoch}, the coordinator says ${m.memberEpoch}`);
    }
    if (s.ownedText() !== m.assignmentText) reasons.push(`${s.name} does not own its assignment yet`);
  }
  if (simIds.size !== g.members.size) {
    for (const id of g.members.keys()) {
      if (!simIds.has(id)) reasons.push(`member ${id} has no running client`);
    }
  }
  return reasons;
}

// The pure part of the testing tools: task keys, the invariants of a coordinator's state and a
// view of every group rebuilt from the records alone. No Node APIs, so the playground uses the
// same code in the browser.

import { ErrorCodesByDialect, RecordTypesByDialect, StatusCodesByDialect } from '../api.mjs';

/** `"sub:partition"` keys of a task list. */
export function taskKeys(list) {
  const keys = [];
  for (const t of list ?? []) for (const p of t.partitions) keys.push(`${t.subtopologyId}:${p}`);
  return keys;
}

/** A failed invariant or expectation of the testing tools. */
export class InvariantError extends Error {
  constructor(message, violations = []) {
    super(message);
    this.name = 'InvariantError';
    this.violations = violations;
  }
}

/**
 * Checks a snapshot: at most one active owner per task across members' current assignments
 * (assigned and pending revocation), no process with two copies of a task in its targets,
 * assignment epoch <= group epoch, and a stable group with every member at the assignment
 * epoch. With `previous` (a map kept between calls), also that epochs never go backwards.
 * Returns the violations (empty when all hold).
 */
export function checkSnapshot(snapshot, previous = null) {
  const violations = [];
  const seenGroups = new Set();
  for (const g of snapshot.groups) {
    const gid = g.groupId;
    seenGroups.add(gid);
    const owners = new Map();
    const copies = new Map();
    for (const m of g.members) {
      for (const list of [m.assignment.activeTasks, m.pendingRevocation.activeTasks]) {
        for (const key of taskKeys(list)) {
          const other = owners.get(key);
          if (other !== undefined && other !== m.memberId) {
            violations.push(`group ${gid}: task ${key} has two active owners, ${other} and ${m.memberId}`);
          }
          owners.set(key, m.memberId);
        }
      }
      const t = m.targetAssignment;
      for (const key of [...taskKeys(t.activeTasks), ...taskKeys(t.standbyTasks)]) {
        const k = `${m.processId}\u0000${key}`;
        copies.set(k, (copies.get(k) ?? 0) + 1);
        if (copies.get(k) === 2) {
          violations.push(`group ${gid}: process ${m.processId} is targeted two copies of task ${key}`);
        }
      }
    }
    if (g.assignmentEpoch > g.groupEpoch) {
      violations.push(`group ${gid}: assignment epoch ${g.assignmentEpoch} > group epoch ${g.groupEpoch}`);
    }
    if (g.state === 'STABLE') {
      for (const m of g.members) {
        if (m.memberEpoch !== g.assignmentEpoch) {
          violations.push(
            `group ${gid}: STABLE but member ${m.memberId} is at epoch ${m.memberEpoch}, not ${g.assignmentEpoch}`,
          );
        }
      }
    }
    if (previous !== null) {
      const before = previous.get(gid);
      if (before !== undefined) {
        if (g.groupEpoch < before.groupEpoch) {
          violations.push(`group ${gid}: group epoch went back from ${before.groupEpoch} to ${g.groupEpoch}`);
        }
        if (g.assignmentEpoch < before.assignmentEpoch) {
          violations.push(
            `group ${gid}: assignment epoch went back from ${before.assignmentEpoch} to ${g.assignmentEpoch}`,
          );
        }
        for (const m of g.members) {
          const e = before.members.get(m.memberId);
          if (e !== undefined && e >= 0 && m.memberEpoch >= 0 && m.memberEpoch < e) {
            violations.push(`group ${gid}: member ${m.memberId} epoch went back from ${e} to ${m.memberEpoch}`);
          }
        }
      }
      const members = new Map();
      for (const m of g.members) {
        // A temporary leave (-2) keeps the last real epoch for the comparison.
        const last = before?.members.get(m.memberId);
        members.set(m.memberId, m.memberEpoch < 0 && last !== undefined ? last : m.memberEpoch);
      }
      previous.set(gid, { groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, members });
    }
  }
  if (previous !== null) {
    for (const gid of [...previous.keys()]) if (!seenGroups.has(gid)) previous.delete(gid);
  }
  return violations;
}

// ---------------------------------------------------------------------------------------------
// The client's side: what a correct Streams client does with a heartbeat response. The testing
// tools' simulated members and the playground's clients both follow these rules.

/** The numbering of codes a dialect uses: every released Kafka's is 4.2's (PROTOCOL 4.11). */
function numbering(dialect) {
  if (ErrorCodesByDialect[dialect]) return dialect;
  return String(dialect).startsWith('kafka-') ? 'kafka-4.2' : 'kip1071-draft';
}

/**
 * What a Streams client does after a heartbeat error (PROTOCOL 4.11, the Java client):
 * `'rejoin'` (drop every task and join again with epoch 0) after FENCED_MEMBER_EPOCH and
 * UNKNOWN_MEMBER_ID, and after GROUP_ID_NOT_FOUND (the group was deleted under it; joining
 * creates it again); `'retry'` (heartbeat again at the next interval) after errors of the
 * coordinator's host (not available, not the coordinator, loading) and UNKNOWN_SERVER_ERROR;
 * `'fatal'` (the client stops) after everything else: INVALID_REQUEST, GROUP_MAX_SIZE_REACHED,
 * FENCED_INSTANCE_ID, UNRELEASED_INSTANCE_ID, UNSUPPORTED_VERSION, authorization failures and
 * the dialect's topology errors.
 */
export function clientReaction(errorCode, dialect = 'kip1071-draft') {
  const e = ErrorCodesByDialect[numbering(dialect)];
  switch (errorCode) {
    case e.FENCED_MEMBER_EPOCH:
    case e.UNKNOWN_MEMBER_ID:
    case e.GROUP_ID_NOT_FOUND:
      return 'rejoin';
    case e.UNKNOWN_SERVER_ERROR:
    case 14: // COORDINATOR_LOAD_IN_PROGRESS
    case 15: // COORDINATOR_NOT_AVAILABLE
    case 16: // NOT_COORDINATOR
      return 'retry';
    default:
      return 'fatal';
  }
}

/** Whether a status list asks the application to shut down (PROTOCOL 2.14, 3.10, 4.5). */
export function shutdownRequested(status, dialect = 'kip1071-draft') {
  const code = StatusCodesByDialect[numbering(dialect)].SHUTDOWN_APPLICATION;
  return (status ?? []).some((s) => s.statusCode === code);
}

function listKeys(list) {
  const keys = new Set();
  for (const t of list ?? []) for (const p of t.partitions) keys.add(`${t.subtopologyId}\u0000${p}`);
  return keys;
}

function fromKeys(keys) {
  const by = new Map();
  for (const k of keys) {
    const i = k.indexOf('\u0000');
    const sub = k.slice(0, i);
    if (!by.has(sub)) by.set(sub, []);
    by.get(sub).push(Number(k.slice(i + 1)));
  }
  return [...by.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((subtopologyId) => ({ subtopologyId, partitions: by.get(subtopologyId).sort((a, b) => a - b) }));
}

/**
 * What a client owns after a response that carries task lists (`assigned`, the response's
 * three lists): it takes new tasks at once and keeps the tasks no longer assigned (`toRevoke`)
 * until it has closed them, reporting them as owned meanwhile; once closed it owns exactly
 * `assigned`. All lists are `TaskIds` lists, sorted as responses sort them.
 */
export function nextOwned(owned, assigned) {
  const next = {};
  const toRevoke = {};
  let revoking = false;
  for (const r of ROLES) {
    const have = listKeys(owned?.[r]);
    const want = listKeys(assigned[r]);
    const gone = [...have].filter((k) => !want.has(k));
    revoking ||= gone.length > 0;
    toRevoke[r] = fromKeys(gone);
    next[r] = gone.length === 0 ? assigned[r] : fromKeys([...want, ...gone]);
  }
  return { owned: next, toRevoke, revoking };
}

// ---------------------------------------------------------------------------------------------
// Groups from records

const ROLES = ['activeTasks', 'standbyTasks', 'warmupTasks'];
const PENDING = {
  activeTasks: 'activeTasksPendingRevocation',
  standbyTasks: 'standbyTasksPendingRevocation',
  warmupTasks: 'warmupTasksPendingRevocation',
};
const EMPTY = Object.freeze({ activeTasks: Object.freeze([]), standbyTasks: Object.freeze([]), warmupTasks: Object.freeze([]) });

/** Task lists without 4.2's per-task assignment epochs (as describe and heartbeats show them). */
function plainTasks(data, names = ROLES) {
  const out = {};
  names.forEach((name, i) => {
    out[ROLES[i]] = (data?.[name] ?? []).map((t) => ({ subtopologyId: t.subtopologyId, partitions: t.partitions }));
  });
  return out;
}

/**
 * A text of three task lists, equal for equal lists. Responses and records list tasks sorted
 * (by subtopology id, partitions ascending; PROTOCOL 3.4), so equal sets give equal texts.
 */
export function tasksText(tasks) {
  let text = '';
  for (const r of ROLES) {
    for (const t of tasks?.[r] ?? []) text += `${t.subtopologyId}:${t.partitions.join(',')};`;
    text += '|';
  }
  return text;
}

/**
 * A group as its first record finds it: from Kafka 4.3 a new group starts at group and
 * assignment epoch 1 (an empty assignment no record writes, KAFKA-20268).
 */
function newGroup(groupId, dialect) {
  const initial = dialect === 'kafka-4.3' || dialect === 'kafka-4.4' ? 1 : 0;
  return {
    groupId,
    groupEpoch: initial,
    assignmentEpoch: initial,
    hasTopology: false,
    topologyEpoch: 0,
    validatedTopologyEpoch: -1,
    members: new Map(),
    targets: new Map(),
    /** active task key -> member ids holding it (assigned or pending revocation). */
    owners: new Map(),
    /** `${processId}\0${task}` -> number of copies in targets (active and standby). */
    copies: new Map(),
    /** Members not reconciled to the assignment epoch; kept when either side changes. */
    unreconciled: 0,
    /** Keys of `owners` with more than one member, and of `copies` above one. */
    ownerConflicts: new Set(),
    copyConflicts: new Set(),
  };
}

function newMember(memberId) {
  return {
    memberId,
    processId: null,
    instanceId: null,
    rackId: null,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    /** PROTOCOL 2.6 member state code (1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS). */
    state: 1,
    assignment: EMPTY,
    pendingRevocation: EMPTY,
    /** `tasksText(assignment)`, for cheap comparisons with what a client owns. */
    assignmentText: tasksText(EMPTY),
    /** The highest epoch >= 0 it had: member epochs never go back (a -2 leave aside). */
    lastEpoch: -1,
  };
}

/**
 * Every group of a coordinator as its records say (hard state, PROTOCOL 5.4), kept up to date
 * one output at a time, with the invariants checked incrementally: no task with two active
 * owners (assigned or pending revocation), no process targeted two copies of a task,
 * assignment epoch <= group epoch, and group, assignment and member epochs never going back
 * (a temporary leave's -2 and a replacement's new member id aside). Each check touches only
 * what the records changed, so a 1,000-member group costs no more per input than a small one.
 *
 * `dialect` picks the record type ids (PROTOCOL 5.1).
 */
export class GroupView {
  constructor({ dialect = 'kip1071-draft' } = {}) {
    this.dialect = dialect;
    this.types = RecordTypesByDialect[numbering(dialect)];
    this.typeIds = new Set(Object.values(this.types));
    // Offset commits (key `{group, topic, partition}`) and the simple classic group's tombstone
    // (key `{group}`) change nothing a view draws.
    this.typeIds.delete(this.types.OFFSET_COMMIT);
    this.typeIds.delete(this.types.CLASSIC_GROUP_METADATA);
    this.groups = new Map();
  }

  /** The group `groupId`, or null. */
  group(groupId) {
    return this.groups.get(groupId) ?? null;
  }

  /** The group's state, derived as the coordinator derives it (PROTOCOL 2.2), or null. */
  state(groupId) {
    const g = this.groups.get(groupId);
    if (g === undefined) return null;
    if (String(this.dialect).startsWith('kafka-')) {
      if (g.members.size === 0) return 'EMPTY';
      if (!g.hasTopology || g.topologyEpoch !== g.validatedTopologyEpoch) return 'NOT_READY';
    } else {
      if (!g.hasTopology) return 'INITIALIZING';
      if (g.members.size === 0) return 'EMPTY';
    }
    if (g.groupEpoch > g.assignmentEpoch) return 'ASSIGNING';
    return g.unreconciled > 0 ? 'RECONCILING' : 'STABLE';
  }

  /**
   * Applies the records of one output (in order) and returns what they did that no state may
   * show afterwards: an epoch that went back. Records of other kinds are skipped, as `Replay`
   * skips them.
   */
  apply(records) {
    const violations = [];
    for (const r of records) this.#applyRecord(r, violations);
    return violations;
  }

  /**
   * The invariants the current state violates (empty when all hold): a task with two active
   * owners, a process targeted two copies of a task, an assignment epoch above the group
   * epoch. Kept as records are applied, so this costs only the violations themselves.
   */
  violations() {
    const out = [];
    for (const [gid, g] of this.groups) {
      for (const key of g.ownerConflicts) {
        out.push(`group ${gid}: task ${key} has two active owners, ${[...g.owners.get(key)].sort().join(' and ')}`);
      }
      for (const k of g.copyConflicts) {
        const [pid, key] = k.split('\u0000');
        out.push(`group ${gid}: process ${pid} is targeted two copies of task ${key}`);
      }
      if (g.assignmentEpoch > g.groupEpoch) {
        out.push(`group ${gid}: assignment epoch ${g.assignmentEpoch} > group epoch ${g.groupEpoch}`);
      }
    }
    return out;
  }

  /**
   * Rebuilds the view from a snapshot (`Coordinator.snapshot()`), for states the records in
   * hand cannot tell (a `Replay` of records given only as bytes).
   */
  load(snapshot) {
    this.groups = new Map();
    for (const s of snapshot.groups) {
      const g = newGroup(s.groupId);
      g.groupEpoch = s.groupEpoch;
      g.assignmentEpoch = s.assignmentEpoch;
      g.hasTopology = s.topology !== null && s.topology !== undefined;
      g.topologyEpoch = 0;
      g.validatedTopologyEpoch = s.state === 'NOT_READY' ? -1 : 0;
      this.groups.set(g.groupId, g);
      for (const sm of s.members) {
        const m = this.#member(g, sm.memberId);
        m.processId = sm.processId;
        m.instanceId = sm.instanceId;
        m.rackId = sm.rackId;
        this.#setCurrent(g, m, {
          memberEpoch: sm.memberEpoch,
          previousMemberEpoch: sm.previousMemberEpoch,
          state: { STABLE: 1, UNREVOKED_TASKS: 2, UNRELEASED_TASKS: 3 }[sm.memberState] ?? 127,
          assignment: plainTasks(sm.assignment),
          pendingRevocation: plainTasks(sm.pendingRevocation),
        }, []);
        this.#setTarget(g, sm.memberId, plainTasks(sm.targetAssignment));
      }
    }
    return this;
  }

  #member(g, memberId) {
    let m = g.members.get(memberId);
    if (m === undefined) {
      m = newMember(memberId);
      g.members.set(memberId, m);
      g.unreconciled += 1; // epoch 0, not yet reconciled
      this.#recount(g, m, null);
      this.#contribute(g, memberId, +1);
    }
    return m;
  }

  #reconciled(g, m) {
    return m.state === 1 && m.memberEpoch === g.assignmentEpoch;
  }

  /** Keeps `unreconciled` right across a change of `m` (`before`: its reconciled flag, or null for a new member). */
  #recount(g, m, before) {
    const now = this.#reconciled(g, m);
    if (before === null) {
      if (now) g.unreconciled -= 1;
    } else if (before !== now) {
      g.unreconciled += now ? -1 : 1;
    }
  }

  #owners(g, m, add) {
    for (const list of [m.assignment.activeTasks, m.pendingRevocation.activeTasks]) {
      for (const key of taskKeys(list)) {
        let ids = g.owners.get(key);
        if (add) {
          if (ids === undefined) g.owners.set(key, (ids = new Set()));
          ids.add(m.memberId);
          if (ids.size > 1) g.ownerConflicts.add(key);
        } else if (ids !== undefined) {
          ids.delete(m.memberId);
          if (ids.size === 0) g.owners.delete(key);
          if (ids.size < 2) g.ownerConflicts.delete(key);
        }
      }
    }
  }

  #copies(g, processId, target, delta) {
    if (target === undefined) return;
    for (const key of [...taskKeys(target.activeTasks), ...taskKeys(target.standbyTasks)]) {
      const k = `${processId}\u0000${key}`;
      const n = (g.copies.get(k) ?? 0) + delta;
      if (n === 0) g.copies.delete(k);
      else g.copies.set(k, n);
      if (n > 1) g.copyConflicts.add(k);
      else g.copyConflicts.delete(k);
    }
  }

  /** Adds (`delta` 1) or removes (-1) the copies a member's target puts on its process. */
  #contribute(g, memberId, delta) {
    const m = g.members.get(memberId);
    const target = g.targets.get(memberId);
    if (m !== undefined && target !== undefined) this.#copies(g, m.processId, target, delta);
  }

  #setTarget(g, memberId, target) {
    this.#contribute(g, memberId, -1);
    if (target === null) g.targets.delete(memberId);
    else g.targets.set(memberId, target);
    this.#contribute(g, memberId, +1);
  }

  #setCurrent(g, m, c, violations) {
    const before = this.#reconciled(g, m);
    if (c.memberEpoch >= 0 && m.lastEpoch >= 0 && c.memberEpoch < m.lastEpoch) {
      violations.push(`group ${g.groupId}: member ${m.memberId} epoch went back from ${m.lastEpoch} to ${c.memberEpoch}`);
    }
    if (c.memberEpoch >= 0) m.lastEpoch = Math.max(m.lastEpoch, c.memberEpoch);
    this.#owners(g, m, false);
    m.memberEpoch = c.memberEpoch;
    m.previousMemberEpoch = c.previousMemberEpoch;
    m.state = c.state;
    m.assignment = c.assignment;
    m.pendingRevocation = c.pendingRevocation;
    m.assignmentText = tasksText(c.assignment);
    this.#owners(g, m, true);
    this.#recount(g, m, before);
  }

  #removeMember(g, m) {
    if (!this.#reconciled(g, m)) g.unreconciled -= 1;
    this.#owners(g, m, false);
    this.#contribute(g, m.memberId, -1);
    g.members.delete(m.memberId);
  }

  #applyRecord(r, violations) {
    const key = r.key;
    if (key === undefined || key === null) return;
    const t = this.types;
    const gid = key.data.groupId;
    const v = r.value === null || r.value === undefined ? null : r.value.data;
    let g = this.groups.get(gid);
    if (v === null && g === undefined) return;
    if (!this.typeIds.has(key.type)) return;
    if (v !== null && g === undefined) {
      g = newGroup(gid, this.dialect);
      this.groups.set(gid, g);
    }
    switch (key.type) {
      case t.GROUP_METADATA: {
        if (v === null) {
          this.groups.delete(gid);
          return;
        }
        const epoch = Number(v.epoch);
        if (epoch < g.groupEpoch) violations.push(`group ${gid}: group epoch went back from ${g.groupEpoch} to ${epoch}`);
        g.groupEpoch = epoch;
        // kafka-4.2: the record leaves the field out at its default, -1 (not validated).
        if (String(this.dialect).startsWith('kafka-')) g.validatedTopologyEpoch = Number(v.validatedTopologyEpoch ?? -1);
        return;
      }
      case t.TARGET_ASSIGNMENT_METADATA: {
        const epoch = v === null ? -1 : Number(v.assignmentEpoch);
        if (v !== null && epoch < g.assignmentEpoch) {
          violations.push(`group ${gid}: assignment epoch went back from ${g.assignmentEpoch} to ${epoch}`);
        }
        const before = new Map([...g.members.values()].map((m) => [m, this.#reconciled(g, m)]));
        g.assignmentEpoch = epoch;
        for (const [m, was] of before) this.#recount(g, m, was);
        return;
      }
      case t.TOPOLOGY:
        g.hasTopology = v !== null;
        if (v !== null && v.epoch !== undefined) g.topologyEpoch = Number(v.epoch);
        return;
      case t.MEMBER_METADATA: {
        const m = g.members.get(key.data.memberId);
        if (v === null) {
          if (m !== undefined) this.#removeMember(g, m);
          return;
        }
        const member = m ?? this.#member(g, key.data.memberId);
        if (member.processId !== v.processId) {
          this.#contribute(g, member.memberId, -1);
          member.processId = v.processId;
          this.#contribute(g, member.memberId, +1);
        }
        member.instanceId = v.instanceId;
        member.rackId = v.rackId;
        return;
      }
      case t.TARGET_ASSIGNMENT_MEMBER:
        this.#setTarget(g, key.data.memberId, v === null ? null : plainTasks(v));
        return;
      case t.CURRENT_MEMBER_ASSIGNMENT: {
        const m = g.members.get(key.data.memberId);
        if (v === null) {
          if (m !== undefined) {
            this.#setCurrent(g, m, { memberEpoch: -1, previousMemberEpoch: -1, state: m.state, assignment: EMPTY, pendingRevocation: EMPTY }, violations);
          }
          return;
        }
        this.#setCurrent(g, m ?? this.#member(g, key.data.memberId), {
          memberEpoch: v.memberEpoch,
          previousMemberEpoch: v.previousMemberEpoch,
          state: v.state,
          assignment: plainTasks(v),
          pendingRevocation: plainTasks(v, [PENDING.activeTasks, PENDING.standbyTasks, PENDING.warmupTasks]),
        }, violations);
        return;
      }
      default:
    }
  }

  /**
   * Where this view and a snapshot of the same coordinator differ (empty when they agree):
   * groups, epochs, state, members, their epochs, states, processes and task lists.
   */
  differences(snapshot) {
    const out = [];
    const names = { 1: 'STABLE', 2: 'UNREVOKED_TASKS', 3: 'UNRELEASED_TASKS' };
    const seen = new Set();
    for (const s of snapshot.groups) {
      seen.add(s.groupId);
      const g = this.groups.get(s.groupId);
      if (g === undefined) {
        out.push(`group ${s.groupId} is missing from the records`);
        continue;
      }
      const mine = { groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, state: this.state(s.groupId) };
      for (const [k, v] of Object.entries(mine)) {
        if (s[k] !== v) out.push(`group ${s.groupId}: ${k} ${v} from the records, ${s[k]} in the snapshot`);
      }
      if (s.members.length !== g.members.size) {
        out.push(`group ${s.groupId}: ${g.members.size} members from the records, ${s.members.length} in the snapshot`);
      }
      for (const sm of s.members) {
        const m = g.members.get(sm.memberId);
        if (m === undefined) {
          out.push(`group ${s.groupId}: member ${sm.memberId} is missing from the records`);
          continue;
        }
        const mineM = {
          memberEpoch: m.memberEpoch,
          previousMemberEpoch: m.previousMemberEpoch,
          memberState: names[m.state] ?? 'UNKNOWN',
          processId: m.processId,
          assignment: m.assignmentText,
          pendingRevocation: tasksText(m.pendingRevocation),
          targetAssignment: tasksText(g.targets.get(m.memberId) ?? EMPTY),
        };
        const theirs = {
          ...sm,
          assignment: tasksText(sm.assignment),
          pendingRevocation: tasksText(sm.pendingRevocation),
          targetAssignment: tasksText(sm.targetAssignment),
        };
        for (const [k, v] of Object.entries(mineM)) {
          if (theirs[k] !== v) out.push(`group ${s.groupId}: member ${sm.memberId} ${k} ${v} from the records, ${theirs[k]} in the snapshot`);
        }
      }
    }
    for (const gid of this.groups.keys()) if (!seen.has(gid)) out.push(`group ${gid} is in the records, not in the snapshot`);
    return out;
  }
}

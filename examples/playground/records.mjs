// What the records of a timeline say, read without a coordinator: per-group counts for the
// chart, the members before a step (what `explainStep` compares) and kafka-4.2's per-task
// assignment epochs. `types` is the dialect's record type ids by name (`RecordTypesByDialect`).

import { taskKey } from './tasks.mjs';

const EMPTY = () => ({ activeTasks: [], standbyTasks: [], warmupTasks: [] });

/**
 * Per group, kept from records as they come: the group epoch, the assignment epoch and each
 * member's epoch and state; cheap enough for every step of a big group.
 */
export class GroupCounts {
  #groups = new Map();

  /** Takes a step's records. */
  apply(records, types) {
    const { GROUP_METADATA: gm, TARGET_ASSIGNMENT_METADATA: tm, CURRENT_MEMBER_ASSIGNMENT: ca, MEMBER_METADATA: mm } = types;
    for (const r of records) {
      const key = r.key;
      // Offset records name their group `group`: they change no count of the chart.
      if (!key || key.data.groupId === undefined) continue;
      const gid = key.data.groupId;
      if (!this.#groups.has(gid)) this.#groups.set(gid, { epoch: 0, assignmentEpoch: 0, members: new Map() });
      const g = this.#groups.get(gid);
      const v = r.value?.data;
      if (key.type === gm) {
        if (v) g.epoch = Number(v.epoch);
        else this.#groups.delete(gid);
      } else if (key.type === tm && v) {
        g.assignmentEpoch = Number(v.assignmentEpoch);
      } else if (key.type === ca && v) {
        g.members.set(key.data.memberId, { epoch: Number(v.memberEpoch), state: Number(v.state) });
      } else if (key.type === mm && !v) {
        g.members.delete(key.data.memberId);
      } else if (key.type === mm && v && !g.members.has(key.data.memberId)) {
        g.members.set(key.data.memberId, { epoch: 0, state: 1 });
      }
    }
  }

  /**
   * Per group id: `{epoch, stable, busy, moved}`, members reconciled (stable at the assignment
   * epoch) or not, and the tasks a step's `explain` says were moved or reassigned (null: no
   * new target assignment in that step).
   */
  summary(explain = []) {
    const moved = new Map();
    for (const e of explain) {
      if (e.code === 'TARGET_ASSIGNMENT_COMPUTED') moved.set(e.groupId, (moved.get(e.groupId) ?? 0) + Number(e.tasksMoved) + Number(e.tasksReassigned ?? 0));
    }
    const sum = {};
    for (const [gid, g] of this.#groups) {
      let stable = 0;
      let busy = 0;
      for (const m of g.members.values()) {
        if (m.state === 1 && m.epoch === g.assignmentEpoch) stable += 1;
        else busy += 1;
      }
      sum[gid] = { epoch: g.epoch, stable, busy, moved: moved.get(gid) ?? null };
    }
    return sum;
  }
}

/**
 * The members of `groupId` after `steps` (each a list of records): the last target and
 * current-assignment record of each, by member id.
 */
export function membersFromRecords(steps, types, groupId) {
  const { TARGET_ASSIGNMENT_MEMBER: ta, CURRENT_MEMBER_ASSIGNMENT: ca, MEMBER_METADATA: mm, GROUP_METADATA: gm } = types;
  const out = new Map();
  const get = (id) => {
    if (!out.has(id)) out.set(id, { memberId: id, targetAssignment: EMPTY(), assignment: EMPTY(), pendingRevocation: EMPTY() });
    return out.get(id);
  };
  for (const records of steps) {
    for (const r of records) {
      if (r.key?.data?.groupId !== groupId) continue;
      const id = r.key.data.memberId;
      const v = r.value?.data;
      if (r.key.type === gm && !v) out.clear();
      else if (r.key.type === mm && !v) out.delete(id);
      else if (r.key.type === mm) get(id);
      else if (r.key.type === ta && v) get(id).targetAssignment = { activeTasks: v.activeTasks, standbyTasks: v.standbyTasks, warmupTasks: v.warmupTasks };
      else if (r.key.type === ca && v) {
        const m = get(id);
        m.assignment = { activeTasks: v.activeTasks, standbyTasks: v.standbyTasks, warmupTasks: v.warmupTasks };
        m.pendingRevocation = { activeTasks: v.activeTasksPendingRevocation, standbyTasks: v.standbyTasksPendingRevocation, warmupTasks: v.warmupTasksPendingRevocation };
      }
    }
  }
  return out;
}

/**
 * kafka-4.2: the per-task assignment epochs of each member's active tasks (assigned and
 * pending revocation) of `groupId`, from its latest current-assignment record in `steps`
 * (each a list of records): member id -> task key -> epoch.
 */
export function taskEpochsFromRecords(steps, types, groupId) {
  const out = new Map();
  for (const records of steps) {
    for (const r of records) {
      if (r.key.type !== types.CURRENT_MEMBER_ASSIGNMENT || r.key.data.groupId !== groupId) continue;
      const m = r.key.data.memberId;
      if (r.value === null) {
        out.delete(m);
        continue;
      }
      const epochs = new Map();
      for (const list of [r.value.data.activeTasks, r.value.data.activeTasksPendingRevocation]) {
        for (const t of list ?? []) {
          t.partitions.forEach((p, j) => epochs.set(taskKey(t.subtopologyId, p), t.assignmentEpochs?.[j] ?? null));
        }
      }
      out.set(m, epochs);
    }
  }
  return out;
}

/**
 * The committed offsets of `groupId` after `steps` (each `{records, input}`: a step's records and
 * the input that wrote them), folded as the log is: the last offset record of each partition, a
 * tombstone (a deleted group, expired offsets) removing it. Who committed comes from the input:
 * `memberId` and `memberEpoch` of the OffsetCommit that wrote the record (null for records read
 * from a log). Returns "topic:partition" -> `{topic, partition, offset, leaderEpoch, metadata,
 * commitTimestamp, step, memberId, memberEpoch}` (`step`: the index of the step).
 */
export function offsetsFromRecords(steps, types, groupId) {
  const out = new Map();
  steps.forEach(({ records, input }, step) => {
    const req = input?.type === 'OffsetCommit' ? input.request : null;
    for (const r of records) {
      if (r.key?.type !== types.OFFSET_COMMIT || r.key.data.group !== groupId) continue;
      const { topic, partition } = r.key.data;
      const k = `${topic}:${partition}`;
      const v = r.value?.data;
      if (!v) {
        out.delete(k);
        continue;
      }
      out.set(k, {
        topic,
        partition,
        offset: v.offset,
        leaderEpoch: v.leaderEpoch,
        metadata: v.metadata,
        commitTimestamp: v.commitTimestamp,
        step,
        memberId: req ? req.memberId ?? null : null,
        memberEpoch: req ? req.generationIdOrMemberEpoch ?? null : null,
      });
    }
  });
  return out;
}

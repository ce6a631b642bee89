// Who took over what when members failed: the failed members' active tasks, and for each
// surviving process the ones it now runs, split into those it already held as a standby (its
// state is on the process's disk: promoted) and those it got fresh (state to restore). Read
// from two snapshots of the group, before the failure and after the group settled.

import { sortKeys, tasksOf } from './tasks.mjs';

/**
 * `before` and `after`: the group (a snapshot's group) before the failure and after it settled;
 * `failedIds`: the member ids of the failed members. The unit is the process: its stream
 * threads share a state directory, so a task one of its members held as a standby (or warm-up)
 * is ready for any of them.
 *
 * Returns `{failed, lost, survivors, unheld, shuffled}`: `failed` the failed processes (each
 * `{processId, memberIds}`), `lost` their active tasks, `survivors` every surviving process
 * (`{processId, memberIds, promoted, fresh}`, in the order of their process ids), `unheld` the
 * lost tasks no survivor runs yet, `shuffled` other tasks that changed owner between survivors.
 */
export function failover(before, after, failedIds) {
  const failedSet = new Set(failedIds);
  const held = new Map(); // processId -> tasks it held as standby or warm-up before
  const ownerBefore = new Map(); // task -> processId of its active owner before
  const failedProcs = new Map();
  const lost = [];
  for (const m of before?.members ?? []) {
    const t = tasksOf(m.assignment);
    if (!held.has(m.processId)) held.set(m.processId, new Set());
    for (const k of [...t.standby, ...t.warmup]) held.get(m.processId).add(k);
    for (const k of t.active) ownerBefore.set(k, m.processId);
    if (failedSet.has(m.memberId)) {
      if (!failedProcs.has(m.processId)) failedProcs.set(m.processId, []);
      failedProcs.get(m.processId).push(m.memberId);
      lost.push(...t.active);
    }
  }
  const lostSet = new Set(lost);
  const procs = new Map();
  const running = new Set();
  let shuffled = 0;
  for (const m of after?.members ?? []) {
    if (failedSet.has(m.memberId)) continue;
    if (!procs.has(m.processId)) procs.set(m.processId, { processId: m.processId, memberIds: [], promoted: [], fresh: [] });
    const p = procs.get(m.processId);
    p.memberIds.push(m.memberId);
    for (const k of tasksOf(m.assignment).active) {
      running.add(k);
      if (!lostSet.has(k)) {
        if (ownerBefore.has(k) && ownerBefore.get(k) !== m.processId) shuffled += 1;
        continue;
      }
      (held.get(m.processId)?.has(k) ? p.promoted : p.fresh).push(k);
    }
  }
  const survivors = [...procs.values()].sort((a, b) => compareIds(a.processId, b.processId));
  for (const p of survivors) {
    p.promoted = sortKeys(p.promoted);
    p.fresh = sortKeys(p.fresh);
  }
  const failed = [...failedProcs].map(([processId, memberIds]) => ({ processId, memberIds })).sort((a, b) => compareIds(a.processId, b.processId));
  return { failed, lost: sortKeys(lost), survivors, unheld: sortKeys(lost.filter((k) => !running.has(k))), shuffled };
}

/** Process ids in natural order: process-2 before process-10. */
function compareIds(a, b) {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** Members' labels, sorted. */
function names(ids, name) {
  return ids.map(name).sort(compareIds).join(', ');
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The failover in words, one line: the failed processes and their tasks, then each survivor
 * that took over some, `process (members): N promoted from standby [tasks], M fresh [tasks]`,
 * and the totals. `name(memberId)` gives a member's label.
 */
export function failoverText(report, name = (id) => id) {
  const who = (p) => `${p.processId} (${names(p.memberIds, name)})`;
  const list = (keys) => (keys.length ? ` [${keys.join(', ')}]` : '');
  const took = report.survivors.filter((p) => p.promoted.length + p.fresh.length > 0);
  const idle = report.survivors.filter((p) => p.promoted.length + p.fresh.length === 0);
  const promoted = took.reduce((n, p) => n + p.promoted.length, 0);
  const fresh = took.reduce((n, p) => n + p.fresh.length, 0);
  const parts = [`Failover: ${report.failed.map(who).join(' and ')} ran ${plural(report.lost.length, 'active task')}${list(report.lost)}.`];
  if (took.length) parts.push(`Taken over by ${took.map((p) => `${who(p)}: ${p.promoted.length} promoted from standby${list(p.promoted)}, ${p.fresh.length} fresh${list(p.fresh)}`).join('; ')}.`);
  parts.push(`In all ${promoted} promoted from standby (state ready), ${fresh} fresh (state to restore), over ${plural(took.length, 'process', 'processes')} of ${report.survivors.length}${idle.length ? `; ${idle.map((p) => p.processId).join(', ')} took over nothing` : ''}.`);
  if (report.unheld.length) parts.push(`Not running yet: ${report.unheld.join(', ')}.`);
  if (report.shuffled) parts.push(`Besides, ${plural(report.shuffled, 'task')} moved between survivors.`);
  return parts.join(' ');
}

/**
 * Where the copies of a process's active tasks sit in `group`: `{processId, memberIds, tasks,
 * copies}`, `copies` per holding process (in the order of process ids) the tasks it holds a
 * standby (or warm-up) of.
 */
export function copiesOf(group, processId) {
  const members = (group?.members ?? []).filter((m) => m.processId === processId);
  const tasks = new Set(members.flatMap((m) => tasksOf(m.assignment).active));
  const copies = new Map();
  for (const m of group?.members ?? []) {
    if (m.processId === processId) continue;
    const t = tasksOf(m.assignment);
    for (const k of [...t.standby, ...t.warmup]) {
      if (!tasks.has(k)) continue;
      if (!copies.has(m.processId)) copies.set(m.processId, []);
      copies.get(m.processId).push(k);
    }
  }
  return {
    processId,
    memberIds: members.map((m) => m.memberId),
    tasks: sortKeys([...tasks]),
    copies: [...copies].map(([p, keys]) => ({ processId: p, tasks: sortKeys(keys) })).sort((a, b) => compareIds(a.processId, b.processId)),
  };
}

/** `copiesOf` in words: `process-3 (E, F) runs 4 active tasks; their standbys sit on ...`. */
export function copiesText(c, name = (id) => id) {
  const on = c.copies.map((q) => `${q.processId} (${q.tasks.join(', ')})`).join(', ');
  return `${c.processId} (${names(c.memberIds, name)}) runs ${plural(c.tasks.length, 'active task')} (${c.tasks.join(', ')}); their standbys sit on ${plural(c.copies.length, 'other process', 'other processes')}: ${on || 'none'}.`;
}

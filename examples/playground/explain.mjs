// Explanations: what happened in a step, and why, in words.

import { Clients } from './clients.mjs';
import { toJson } from './json.mjs';
import { errorName, statusName } from './names.mjs';
import { fmtTime, short, stepTitle } from './steps.mjs';
import { LIST, ROLES, keysOf, minus, sortKeys, subtopologiesOf, taskOfPartition, tasksOf } from './tasks.mjs';

const REASONS = {
  MEMBER_JOINED: 'a new member joined',
  MEMBER_LEFT: 'a member left the group',
  MEMBER_FENCED: 'a member was fenced',
  MEMBER_METADATA_CHANGED: "a member's metadata changed",
  TOPOLOGY_INITIALIZED: 'the topology was initialized',
  TOPOLOGY_CHANGED: 'the topology changed',
  TOPIC_METADATA_CHANGED: "the group's topics changed (partition metadata)",
  ASSIGNMENT_CONFIG_CHANGED: 'the assignment configuration changed',
  MANUAL_ASSIGNMENT: 'a manual target assignment was set',
};

const CAUSES = {
  LEAVE: 'it left the group (epoch -1)',
  SESSION_TIMEOUT: 'no heartbeat arrived within the session timeout',
  REBALANCE_TIMEOUT: 'it did not revoke its tasks within its rebalance timeout',
  INITIALIZATION_TIMEOUT: 'it was asked to initialize the topology and did not do so within its rebalance timeout',
};

const STATE_WHY = {
  UNREVOKED_TASKS: 'it must first give up tasks that now belong to others',
  UNRELEASED_TASKS: 'some of its new tasks are still held by their previous owners',
  STABLE: 'it holds everything its target gives it',
};

export function reasonText(r) {
  return REASONS[r] ?? r;
}

function memberMap(snap, groupId) {
  const g = snap?.groups.find((x) => x.groupId === groupId);
  return new Map((g?.members ?? []).map((m) => [m.memberId, m]));
}

function ownersOf(members, pick) {
  const own = new Map();
  for (const m of members.values()) {
    const t = tasksOf(pick(m));
    for (const r of ROLES) for (const k of t[r]) own.set(`${r}:${k}`, [...(own.get(`${r}:${k}`) ?? []), m.memberId]);
  }
  return own;
}

/**
 * A list of `{kind, text}` for step `i`: what the input did and why, from the output's
 * `explain`, its response, and the difference of the snapshots before and after.
 */
export function explainStep(session, i) {
  const step = session.steps[i];
  const out = session.outputs[i];
  const clientsBefore = i > 0 ? session.clientsAt[i - 1] : new Clients();
  const clientsAfter = session.clientsAt[i];
  const name = (id) => clientsAfter?.labelOf(id) ?? clientsBefore.labelOf(id) ?? short(id);
  const items = [];
  if (step.note) items.push({ kind: 'note', text: step.note });
  if (step.event === 'crash') {
    items.push({ kind: 'client', text: `${step.actor} stops heartbeating without a word: its process died, or stalls (a long GC pause) or is cut off from the coordinator while it still runs its tasks. The coordinator still counts it as a member until its session timeout fires.` });
    return items;
  }
  if (step.event === 'topology') {
    items.push({ kind: 'client', text: `The application now runs a topology with id ${short(session.deps.topologyId(step.topology))}. Members that join from now on send this id; the group keeps its stored topology until an Initialize replaces it.` });
    return items;
  }
  if (!out) return items;
  if (out.error) {
    items.push({ kind: 'error', text: `Rejected at the boundary: ${out.error.code} at ${out.error.path || '(input)'}: ${out.error.message}` });
    return items;
  }
  const res = out.response;
  const input = step.input;
  if (res && typeof res.errorCode === 'number' && res.errorCode !== 0) {
    const c = errorName(res.errorCode, session.dialect);
    let then = '';
    if ([25, 69, 110].includes(res.errorCode)) then = ' The client drops all its tasks and rejoins with epoch 0 at its next heartbeat.';
    if ([82, 111].includes(res.errorCode) || (session.isKafka && [130, 131, 132].includes(res.errorCode))) then = ' The Java client treats this as fatal: the instance stops.';
    if (input.type === 'SetTargetAssignment') then = ' The coordinator rejected the target as a whole: nothing was written and the targets stay as they were.';
    items.push({ kind: 'error', text: `${c} (${res.errorCode}): ${res.errorMessage ?? ''}${then}` });
  }
  const groupId = input.request?.groupId ?? input.groupId ?? session.app.groupId;
  if (input.type === 'DeleteGroups') {
    for (const r of res?.results ?? []) {
      items.push(r.errorCode === 0
        ? { kind: 'fence', text: `DeleteGroups ${r.groupId}: deleted.` }
        : { kind: 'error', text: `DeleteGroups ${r.groupId}: ${errorName(r.errorCode, session.dialect)} (${r.errorCode})${r.errorCode === 68 ? ': the group still has members; Kafka deletes only empty groups.' : r.errorCode === 69 ? ': there is no such group.' : '.'}` });
    }
  }
  if (input.type === 'OffsetCommit' && res?.topics) items.push(...commitItems(session, i, name));
  if (input.type === 'SetTargetAssignment' && res?.errorCode === 0) {
    items.push({ kind: 'assign', text: 'SetTargetAssignment accepted: the targets are the ones given, and members reconcile towards them.' });
  }
  for (const e of out.explain ?? []) {
    switch (e.code) {
      case 'GROUP_EPOCH_BUMPED':
        items.push({ kind: 'bump', text: `Group epoch ${e.from} → ${e.to}: ${e.reasons.map(reasonText).join('; ')}.` });
        break;
      case 'MEMBER_FENCED':
        items.push({ kind: 'fence', text: `${name(e.memberId)} was removed from the group: ${CAUSES[e.cause] ?? e.cause}.` });
        break;
      case 'STATIC_MEMBER_REPLACED':
        items.push({ kind: 'static', text: `Static member ${e.instanceId} came back under a new member id (${short(e.oldMemberId)} → ${short(e.newMemberId)}): it takes over its old tasks and target. No rebalance, no task moves.` });
        break;
      case 'STATIC_MEMBER_LEFT_TEMPORARILY':
        items.push({ kind: 'static', text: `Static member ${e.instanceId} left temporarily (-2): it keeps its tasks, nobody else gets them, and no rebalance starts. It is fenced at ${fmtTime(e.expiresAtMs)} (its session timeout) unless it comes back.` });
        break;
      case 'STATIC_MEMBER_EXPIRED':
        items.push({ kind: 'fence', text: `Static member ${e.instanceId} did not come back within the session timeout.` });
        break;
      case 'TARGET_ASSIGNMENT_COMPUTED':
        items.push({ kind: 'assign', text: targetText(e) });
        break;
      case 'MEMBER_STATE_CHANGED':
        items.push({ kind: 'member', text: `${name(e.memberId)}: ${e.from} → ${e.to} at epoch ${e.memberEpoch}${STATE_WHY[e.to] ? ` (${STATE_WHY[e.to]})` : ''}.` });
        break;
      case 'GROUP_STATE_CHANGED':
        items.push({ kind: 'state', text: `Group ${e.from} → ${e.to}.` });
        break;
      case 'GROUP_DELETED':
        items.push({ kind: 'fence', text: `Group ${e.groupId} deleted (${e.cause}).` });
        break;
      case 'TOPOLOGY_INITIALIZATION_REQUESTED':
        items.push({ kind: 'member', text: `The group has no topology yet: ${name(e.memberId)} is asked to send it (StreamsGroupInitialize) within its rebalance timeout.` });
        break;
      case 'ASSIGNMENT_DELAYED':
        items.push({ kind: 'state', text: `The initial rebalance delay holds the first target assignment back until ${fmtTime(e.untilMs)}, so that members starting together get their tasks at once; until then every member reconciles towards an empty assignment.` });
        break;
      case 'TIMER_DROPPED':
        items.push({ kind: 'error', text: `Timer ${e.timer} dropped: ${e.message}` });
        break;
      case 'SERVER_ERROR':
        items.push({ kind: 'error', text: `The request failed with UNKNOWN_SERVER_ERROR (Kafka sends no message): ${e.message}` });
        break;
      case 'OFFSETS_REFUSED':
        items.push({ kind: 'fence', text: `${e.request} refused with ${e.error}: ${e.message} (the coordinator's words: Kafka's response carries only the code).` });
        break;
      case 'OFFSETS_EXPIRED':
        items.push({ kind: 'state', text: `The periodic cleanup expired ${e.partitions} committed offset(s) of group ${e.groupId} (offsets.retention.minutes after their commit; a topic the group still reads keeps its offsets while the group has members).` });
        break;
      default:
        items.push({ kind: 'other', text: `${e.code}: ${toJson(e)}` });
    }
  }
  // Task movements, from the snapshots before and after.
  const after = memberMap(session.snapshotAt(i), groupId);
  // Before the step: a kept snapshot, or the members as the records up to the step left them
  // (the same fields; a big group's earlier snapshot is not worth rebuilding for this).
  const kept = i > 0 ? session.snapshots[i - 1] : session.emptySnapshot;
  const before = kept ? memberMap(kept, groupId) : session.membersBefore(i, groupId);
  const tb = ownersOf(before, (m) => m.targetAssignment);
  const ta = ownersOf(after, (m) => m.targetAssignment);
  const moves = [];
  for (const key of sortKeys([...new Set([...tb.keys(), ...ta.keys()])].map((k) => k.split(':')[1]))) {
    for (const r of ROLES) {
      const k = `${r}:${key}`;
      const from = (tb.get(k) ?? []).map(name).join('+');
      const to = (ta.get(k) ?? []).map(name).join('+');
      if (from !== to) moves.push(`${key}${r === 'active' ? '' : ` (${r})`} ${from || '∅'} → ${to || '∅'}`);
    }
  }
  if (moves.length) items.push({ kind: 'moves', text: `Target changes: ${moves.join(', ')}.` });
  for (const [id, m] of after) {
    const p = before.get(id);
    const now = tasksOf(m.assignment);
    const was = tasksOf(p?.assignment);
    const pendNow = tasksOf(m.pendingRevocation);
    const pendWas = tasksOf(p?.pendingRevocation);
    const parts = [];
    for (const r of ROLES) {
      const suffix = r === 'active' ? '' : ` ${r}`;
      const got = minus(now[r], was[r]);
      const gone = minus(was[r], now[r]).filter((k) => !pendNow[r].includes(k));
      const revoking = minus(pendNow[r], pendWas[r]);
      const released = minus(pendWas[r], pendNow[r]).filter((k) => !now[r].includes(k));
      if (got.length) parts.push(`receives${suffix} ${got.join(', ')}`);
      if (revoking.length) parts.push(`must revoke${suffix} ${revoking.join(', ')}`);
      if (released.length) parts.push(`released${suffix} ${released.join(', ')}`);
      if (gone.length) parts.push(`drops${suffix} ${gone.join(', ')}`);
    }
    if (parts.length) items.push({ kind: 'tasks', text: `${name(id)} ${parts.join('; ')}.` });
  }
  // What the client was told.
  if (input.type === 'StreamsGroupHeartbeat' && res && res.errorCode === 0) {
    const who = step.actor ?? name(res.memberId);
    if (res.memberEpoch >= 0) {
      const m = after.get(res.memberId);
      let t = `${who} is at member epoch ${res.memberEpoch}${m ? ` (${m.memberState})` : ''}`;
      if (res.activeTasks) t += `; its assignment: ${describeLists(res)}`;
      items.push({ kind: 'response', text: `${t}.` });
    }
    for (const s of res.status ?? []) items.push({ kind: 'status', text: `Status ${statusName(s.statusCode, session.dialect)}: ${s.statusDetail}` });
  }
  if (input.type === 'StreamsGroupInitialize' && res?.errorCode === 0 && !(out.explain ?? []).length) {
    items.push({ kind: 'state', text: 'The group already has this topology: nothing to write.' });
  }
  if (out.topicsToCreate?.length) {
    items.push({ kind: 'topics', text: `The coordinator asks the host to create ${out.topicsToCreate.map((t) => `${t.name} (${t.numPartitions})`).join(', ')}.` });
  }
  if (!items.length || (items.length === 1 && items[0].kind === 'note')) {
    items.push({ kind: 'none', text: out.records.length ? `${out.records.length} records written.` : 'Nothing changed: no records written.' });
  }
  return items;
}

/**
 * An offset commit of step `i`, partition by partition: who sent it at which epoch and why (a
 * zombie, a late commit), what was written, what was refused with which error and, for a member
 * the group no longer has, when it was removed and who holds its tasks now.
 */
function commitItems(session, i, name) {
  const step = session.steps[i];
  const out = session.outputs[i];
  const req = step.input.request ?? {};
  const epoch = req.generationIdOrMemberEpoch;
  const who = step.actor ?? (!req.memberId && epoch < 0 ? 'An admin tool' : name(req.memberId));
  const items = [];
  const before = i > 0 ? session.clientsAt[i - 1]?.get(step.actor) : null;
  const offsets = new Map();
  for (const t of req.topics ?? []) for (const p of t.partitions ?? []) offsets.set(`${t.name}:${p.partitionIndex}`, p.committedOffset);
  const parts = out.response.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode, offset: offsets.get(`${t.name}:${p.partitionIndex}`) })));
  if (step.action === 'zombie-commit') {
    items.push({ kind: 'client', text: `${who} stopped heartbeating, but its process runs on: it still runs the tasks it held (${(before?.zombie?.active ?? []).join(', ')}) and commits them with the member id and epoch it last had (${short(req.memberId)}, epoch ${epoch}).` });
  } else if (step.action === 'stale-commit') {
    // The draft writes no per-task epochs, so a task's epoch is its member's (as a rebuilt group's is).
    const perTask = session.isKafka
      ? 'Kafka takes an older epoch only for the tasks the member held at that epoch (each task\'s assignment epoch, the @ on its chip).'
      : 'Kafka takes an older epoch only for the tasks the member held at that epoch; the draft\'s records carry no per-task epochs, so each task counts as granted at the member\'s current epoch and any older one is refused.';
    items.push({ kind: 'client', text: `${who} is at epoch ${before?.epoch ?? '?'}, but this commit carries epoch ${epoch}, as one sent before its last epoch bump and delivered late would. ${perTask}` });
  }
  const ok = parts.filter((p) => p.errorCode === 0);
  const bad = parts.filter((p) => p.errorCode !== 0);
  const at = epoch < 0 ? `with epoch ${epoch}` : `at epoch ${epoch}`;
  if (ok.length) {
    const n = out.records.length;
    items.push({ kind: 'commit', text: `${who} committed ${at}: ${ok.map((p) => `${p.topic}-${p.partition} → ${p.offset}`).join(', ')} (${n} offset record${n === 1 ? '' : 's'} written).` });
  }
  if (bad.length) {
    items.push({ kind: 'error', text: `${who}'s commit ${at} refused: ${bad.map((p) => `${p.topic}-${p.partition} ${errorName(p.errorCode, session.dialect)} (${p.errorCode})`).join(', ')}. Nothing is written for ${bad.length === 1 ? 'it' : 'them'}: the committed offsets stay as they were.` });
  }
  if (bad.some((p) => p.errorCode === 25) && req.memberId) {
    // A member the group had: say when it was removed and whose tasks these partitions are now.
    let gone = null;
    for (let k = i - 1; k >= 0 && !gone; k--) {
      const e = (session.outputs[k]?.explain ?? []).find((x) => x.code === 'MEMBER_FENCED' && x.memberId === req.memberId && x.groupId === req.groupId);
      if (e) gone = `at step ${k + 1} (${CAUSES[e.cause] ?? e.cause})`;
    }
    if (gone) {
      const g = session.snapshotAt(i)?.groups.find((x) => x.groupId === req.groupId);
      const owner = new Map();
      for (const m of g?.members ?? []) for (const k of [...tasksOf(m.assignment).active, ...tasksOf(m.pendingRevocation).active]) owner.set(k, name(m.memberId));
      const topology = subtopologiesOf(g?.topology).length ? g.topology : session.appAt[i]?.topology ?? session.app.topology;
      const now = [...new Set(bad.map((p) => taskOfPartition(topology, p.topic, p.partition)).filter(Boolean))].map((k) => `${k} ${owner.has(k) ? `is ${owner.get(k)}'s` : 'has no owner'}`);
      items.push({ kind: 'fence', text: `The group has no member ${short(req.memberId)}: it was removed ${gone}. Its tasks are no longer its own${now.length ? ` (${now.join(', ')})` : ''}, and a zombie's commit must not overwrite their new owners' progress.` });
    }
  }
  return items;
}

/** The words for `TARGET_ASSIGNMENT_COMPUTED`: tasks moved, and orphaned tasks reassigned. */
export function targetText(e) {
  const n = (k, what) => `${k} task${Number(k) === 1 ? '' : 's'} ${what}`;
  let t = `New target assignment for epoch ${e.assignmentEpoch} (${e.assignor} assignor): ${n(e.tasksMoved, 'moved')}`;
  if (Number(e.tasksReassigned ?? 0) > 0) t += ` between members, ${n(e.tasksReassigned, 'of departed members reassigned')}`;
  return `${t}.`;
}

function describeLists(res) {
  const parts = [];
  for (const r of ROLES) {
    const k = keysOf(res[LIST[r]]);
    if (k.length || r === 'active') parts.push(`${r} [${k.join(', ')}]`);
  }
  return parts.join(', ');
}

/** Every epoch bump up to the cursor: the group's rebalance history. */
export function rebalanceHistory(session) {
  const h = [];
  for (let i = 0; i < session.cursor; i++) {
    for (const e of session.outputs[i]?.explain ?? []) {
      if (e.code === 'GROUP_EPOCH_BUMPED') h.push({ step: i, groupId: e.groupId, from: e.from, to: e.to, reasons: e.reasons, title: stepTitle(session.steps[i]) });
    }
  }
  return h;
}

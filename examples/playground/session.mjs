// The session: a timeline (timeline.mjs) and the actions that build its steps, each from the
// simulated clients' point of view (the requests they send, the events only they see).

import { Clients } from './clients.mjs';
import { DEFAULT_APP, DEFAULT_CONFIG } from './config.mjs';
import { ROLES, keysOf, taskIdsOf, taskPartitions } from './tasks.mjs';
import { Timeline } from './timeline.mjs';

/**
 * The timeline and its actions: each action appends one or more steps at the cursor (dropping
 * the steps after it) and applies them; the presets and the page build stories with them.
 *
 * `deps`: `{Coordinator, topologyId}` from the package (web or node build).
 */
export class Session extends Timeline {
  now(tick = this.app.tickMs) {
    return this.clockMs() + tick;
  }

  client(label) {
    const c = this.clients.get(label);
    if (!c) throw new Error(`no client ${label}`);
    return c;
  }

  clientInfo(c) {
    return { clientId: c.clientId, clientHost: c.clientHost };
  }

  /** Released Kafka's clients make their own member ids (22 characters, as UUIDs in Kafka's base64). */
  newMemberId(c) {
    let h = 2166136261;
    for (const ch of `${c.label}/${this.steps.length}/${this.clockMs()}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let id = '';
    for (let i = 0; i < 22; i++) {
      h = Math.imul(h ^ (h >>> 15), 2246822519) >>> 0;
      id += abc[h & 63];
    }
    return id;
  }

  joinRequest(c, { newMemberId = false } = {}) {
    if (this.isKafka) return this.joinRequest42(c, { newMemberId });
    const req = {
      groupId: c.groupId ?? this.app.groupId,
      memberId: newMemberId ? '' : c.memberId,
      memberEpoch: 0,
    };
    if (c.instanceId) req.instanceId = c.instanceId;
    if (c.rackId) req.rackId = c.rackId;
    Object.assign(req, {
      rebalanceTimeoutMs: c.rebalanceTimeoutMs,
      topologyId: newMemberId || !c.topologyId ? this.topologyId() : c.topologyId,
      processId: c.processId,
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
    return req;
  }

  /** A released Kafka's join: the member's own id, the topology itself, the endpoint epoch. */
  joinRequest42(c, { newMemberId = false } = {}) {
    const req = {
      groupId: c.groupId ?? this.app.groupId,
      memberId: newMemberId || !c.memberId ? this.newMemberId(c) : c.memberId,
      memberEpoch: 0,
    };
    if (c.instanceId) req.instanceId = c.instanceId;
    if (c.rackId) req.rackId = c.rackId;
    Object.assign(req, {
      endpointInformationEpoch: -1,
      rebalanceTimeoutMs: c.rebalanceTimeoutMs,
      topology: { epoch: this.appNow.topologyEpoch ?? 0, subtopologies: this.appNow.topology },
      processId: c.processId,
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
    return req;
  }

  heartbeatRequest(c, { revoke = false, shutdown = false } = {}) {
    const owned = revoke ? { active: [], standby: [], warmup: [] } : c.owned;
    if (revoke) for (const r of ROLES) owned[r] = c.owned[r].filter((t) => c.assigned[r].includes(t));
    const req = { groupId: c.groupId ?? this.app.groupId, memberId: c.memberId, memberEpoch: c.epoch };
    if (c.instanceId) req.instanceId = c.instanceId;
    if (this.isKafka) req.endpointInformationEpoch = c.endpointEpoch ?? -1;
    req.activeTasks = taskIdsOf(owned.active);
    req.standbyTasks = taskIdsOf(owned.standby);
    req.warmupTasks = taskIdsOf(owned.warmup);
    if (shutdown) req.shutdownApplication = true;
    return req;
  }

  hbInput(c, request) {
    return { nowMs: this.now(), type: 'StreamsGroupHeartbeat', client: this.clientInfo(c), request };
  }

  /** A new simulated member joins: dynamic, or static with an instance id; on a rack if given. */
  addMember({ instanceId = null, processId = null, label = null, rackId = null, note } = {}) {
    const pid = processId || this.clients.nextProcessId();
    const lbl = label ?? (instanceId || this.clients.nextDynamicLabel());
    if (this.clients.get(lbl)) throw new Error(`a client named ${lbl} exists`);
    // The client exists from the step on; create it on a scratch copy to build the request.
    const scratch = this.clients.clone();
    const c = scratch.create({ label: lbl, instanceId: instanceId || null, processId: pid, groupId: this.app.groupId, rackId: rackId || null });
    c.rebalanceTimeoutMs = this.app.rebalanceTimeoutMs;
    const req = this.joinRequest(c, { newMemberId: true });
    req.rebalanceTimeoutMs = this.app.rebalanceTimeoutMs;
    return this.push(withNote({ input: this.hbInput(c, req), actor: lbl, action: 'join' }, note));
  }

  heartbeat(label, note) {
    const c = this.client(label);
    if (c.phase === 'rejoin') return this.push(withNote({ input: this.hbInput(c, this.joinRequest(c)), actor: label, action: 'rejoin' }, note));
    return this.push(withNote({ input: this.hbInput(c, this.heartbeatRequest(c)), actor: label, action: 'heartbeat' }, note));
  }

  revoke(label, note) {
    const c = this.client(label);
    return this.push(withNote({ input: this.hbInput(c, this.heartbeatRequest(c, { revoke: true })), actor: label, action: 'revoke' }, note));
  }

  leave(label, note) {
    const c = this.client(label);
    const req = { groupId: c.groupId ?? this.app.groupId, memberId: c.memberId, memberEpoch: -1 };
    if (c.instanceId) req.instanceId = c.instanceId;
    return this.push(withNote({ input: this.hbInput(c, req), actor: label, action: 'leave' }, note));
  }

  staticLeave(label, note) {
    const c = this.client(label);
    const req = { groupId: c.groupId ?? this.app.groupId, memberId: c.memberId, memberEpoch: -2, instanceId: c.instanceId };
    return this.push(withNote({ input: this.hbInput(c, req), actor: label, action: 'static-leave' }, note));
  }

  crash(label, note) {
    this.client(label);
    return this.push(withNote({ event: 'crash', actor: label }, note));
  }

  /**
   * Every live member on `rackId` crashes (the rack or zone goes away): one crash step each.
   * Returns their labels.
   */
  crashRack(rackId, note) {
    return this.crashAll((c) => c.rackId === rackId, `no live member on rack ${rackId}`, note);
  }

  /**
   * Every live member of process `processId` crashes (the host or its JVM dies, with all its
   * stream threads): one crash step each. Returns their labels.
   */
  crashProcess(processId, note) {
    return this.crashAll((c) => c.processId === processId, `no live member on process ${processId}`, note);
  }

  /** Every live member that `pick` picks crashes (`none`: the error when there is none). */
  crashAll(pick, none, note) {
    const labels = this.clients.list.filter((c) => pick(c) && Clients.live(c)).map((c) => c.label);
    if (!labels.length) throw new Error(none);
    labels.forEach((l, i) => this.crash(l, i === 0 ? note : undefined));
    return labels;
  }

  /** The process starts again: a join with a new member id, same process and instance id. */
  restart(label, note) {
    const c = this.client(label);
    return this.push(withNote({ input: this.hbInput(c, this.joinRequest(c, { newMemberId: true })), actor: label, action: 'restart' }, note));
  }

  shutdown(label, note) {
    const c = this.client(label);
    return this.push(withNote({ input: this.hbInput(c, this.heartbeatRequest(c, { shutdown: true })), actor: label, action: 'shutdown' }, note));
  }

  /**
   * The `OffsetCommit` a Streams client sends for its active tasks `tasks` (keys) at `memberId`
   * and `epoch`: every partition the tasks read in the application's topology, each at the
   * clock in ms as its position (it only grows, so every commit moves the offsets on).
   */
  commitInput(c, { memberId, epoch, tasks }) {
    const nowMs = this.now();
    const byTopic = new Map();
    for (const k of tasks) {
      for (const { topic, partition } of taskPartitions(this.appNow.topology, k)) {
        if (!byTopic.has(topic)) byTopic.set(topic, new Set());
        byTopic.get(topic).add(partition);
      }
    }
    if (!byTopic.size) throw new Error(`${c.label}'s tasks read no topic by name: nothing to commit.`);
    const topics = [...byTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, ps]) => ({
      name,
      partitions: [...ps].sort((a, b) => a - b).map((p) => ({ partitionIndex: p, committedOffset: nowMs, committedLeaderEpoch: -1, committedMetadata: '' })),
    }));
    return { nowMs, type: 'OffsetCommit', request: { groupId: c.groupId ?? this.app.groupId, generationIdOrMemberEpoch: epoch, memberId, topics } };
  }

  /** The member commits the offsets of its active tasks (also those it is revoking) at its epoch. */
  commit(label, note) {
    const c = this.client(label);
    if (c.phase !== 'member') throw new Error(`${label} is not running in the group: it has no tasks to commit.`);
    if (!c.owned.active.length) throw new Error(`${label} owns no active task: nothing to commit.`);
    return this.push(withNote({ input: this.commitInput(c, { memberId: c.memberId, epoch: c.epoch, tasks: c.owned.active }), actor: label, action: 'commit' }, note));
  }

  /**
   * The member's commit at the epoch before its current one, as one sent before its last epoch
   * bump and delivered late: Kafka takes an older epoch only for tasks held at that epoch.
   */
  staleCommit(label, note) {
    const c = this.client(label);
    if (c.phase !== 'member') throw new Error(`${label} is not running in the group: it has no tasks to commit.`);
    if (c.prevEpoch === null || c.prevEpoch === undefined) throw new Error(`${label} has had one epoch only: there is no older one to commit at.`);
    if (!c.owned.active.length) throw new Error(`${label} owns no active task: nothing to commit.`);
    return this.push(withNote({ input: this.commitInput(c, { memberId: c.memberId, epoch: c.prevEpoch, tasks: c.owned.active }), actor: label, action: 'stale-commit' }, note));
  }

  /**
   * A crashed member as a zombie: its heartbeats stopped but its process runs on (a long GC
   * pause, cut off from the coordinator), and it commits the tasks it last held with the member
   * id and epoch it last had.
   */
  zombieCommit(label, note) {
    const c = this.client(label);
    if (c.phase !== 'crashed' || !c.zombie) throw new Error(`${label} is no zombie: only a member that stopped heartbeating while it held tasks commits as one.`);
    const z = c.zombie;
    return this.push(withNote({ input: this.commitInput(c, { memberId: z.memberId, epoch: z.epoch, tasks: z.active }), actor: label, action: 'zombie-commit' }, note));
  }

  /** The asked member (or any live member, or a tool) sends the application's topology. */
  initialize(label = null, note) {
    if (this.isKafka) throw new Error(`${this.dialect} has no StreamsGroupInitialize: the topology travels in the joining heartbeat.`);
    let c = label ? this.client(label) : this.clients.list.find((x) => x.asked && Clients.live(x));
    if (!c) c = this.clients.list.find((x) => Clients.live(x)) ?? null;
    const topology = this.appNow.topology;
    const input = {
      nowMs: this.now(),
      type: 'StreamsGroupInitialize',
      client: c ? this.clientInfo(c) : { clientId: 'admin', clientHost: '/127.0.0.1' },
      request: { groupId: this.app.groupId, topologyId: this.topologyId(topology), topology },
    };
    return this.push(withNote({ input, actor: c?.label, action: 'initialize' }, note));
  }

  /** The application's code changes: members that (re)join from now on send the new id. */
  setTopology(topology, note) {
    this.deps.topologyId(topology); // throws on a malformed topology
    const step = { event: 'topology', topology: structuredClone(topology) };
    // Released Kafka identifies a topology by its epoch: a new topology is the next epoch.
    if (this.isKafka) step.topologyEpoch = (this.appNow.topologyEpoch ?? 0) + 1;
    return this.push(withNote(step, note));
  }

  /** `DeleteGroups` for one group (Kafka answers NON_EMPTY_GROUP while it has members). */
  deleteGroup(groupId = this.app.groupId, note) {
    return this.push(withNote({ input: { nowMs: this.now(), type: 'DeleteGroups', groupIds: [groupId] }, action: 'delete-group' }, note));
  }

  /** The picked group's targets by member id, as `SetTargetAssignment` takes them. */
  currentTargets() {
    const g = this.group();
    const out = {};
    for (const m of g?.members ?? []) {
      out[m.memberId] = {
        activeTasks: structuredClone(m.targetAssignment.activeTasks),
        standbyTasks: structuredClone(m.targetAssignment.standbyTasks),
        warmupTasks: structuredClone(m.targetAssignment.warmupTasks),
      };
    }
    return out;
  }

  setTargets(assignment, note, action = 'set-target') {
    const input = { nowMs: this.now(), type: 'SetTargetAssignment', groupId: this.app.groupId, assignment };
    return this.push(withNote({ input, action }, note));
  }

  /** Manual assignor: `memberId`'s active target becomes `keys`; the others' stay as they are. */
  setMemberTarget(memberId, keys, note) {
    const a = this.currentTargets();
    a[memberId] = { ...(a[memberId] ?? { standbyTasks: [], warmupTasks: [] }), activeTasks: taskIdsOf(keys) };
    return this.setTargets(a, note);
  }

  /** Manual assignor: the active task `key` moves to `memberId` (off whoever has it now). */
  moveTask(key, memberId, note) {
    const a = this.currentTargets();
    for (const [id, t] of Object.entries(a)) {
      const keys = keysOf(t.activeTasks).filter((k) => k !== key);
      if (id === memberId) keys.push(key);
      t.activeTasks = taskIdsOf(keys);
    }
    return this.setTargets(a, note, 'move-task');
  }

  topics(topics, deletedTopics = [], note, action = 'topics') {
    return this.push(withNote({ input: { nowMs: this.now(), type: 'TopicMetadata', topics, deletedTopics }, action }, note));
  }

  createTopic(name, partitions, note) {
    return this.topics([{ name, partitions }], [], note, 'create-topic');
  }

  addPartitions(name, extra, note) {
    const t = this.snapshot().topics.find((x) => x.name === name);
    if (!t) throw new Error(`no topic ${name}`);
    return this.topics([{ name, partitions: t.partitions + extra }], [], note, 'add-partitions');
  }

  deleteTopic(name, note) {
    return this.topics([], [name], note, 'delete-topic');
  }

  createRequestedTopics(note) {
    const ts = this.requestedTopics().map((t) => ({ name: t.name, partitions: t.numPartitions }));
    if (!ts.length) return null;
    return this.topics(ts, [], note, 'create-internal');
  }

  advance(ms, note) {
    return this.push(withNote({ input: { nowMs: this.clockMs() + ms, type: 'AdvanceTime' }, action: 'clock' }, note));
  }

  advanceTo(nowMs, note) {
    return this.push(withNote({ input: { nowMs, type: 'AdvanceTime' }, action: 'clock' }, note));
  }

  nextTimer(note) {
    const t = this.nextDeadline();
    if (!t) return null;
    const at = Math.max(Number(t.deadlineMs), this.clockMs());
    return this.push(withNote({ input: { nowMs: at, type: 'AdvanceTime' }, action: 'next-timer' }, note));
  }

  liveLabels() {
    return this.clients.list.filter((c) => Clients.live(c)).map((c) => c.label);
  }

  /** Every live member heartbeats once (revoking first when `revoke`). */
  heartbeatAll({ revoke = false } = {}) {
    for (const l of this.liveLabels()) {
      const c = this.clients.get(l);
      if (!Clients.live(c)) continue;
      if (revoke && c.phase === 'member' && Clients.hasToRevoke(c)) this.revoke(l);
      else this.heartbeat(l);
    }
  }

  /** Rounds of heartbeats, revoking when told, until a round writes no records (at most 10). */
  settle(maxRounds = 10) {
    for (let round = 0; round < maxRounds; round++) {
      const before = this.steps.length;
      this.heartbeatAll({ revoke: true });
      let wrote = 0;
      for (let i = before; i < this.steps.length; i++) wrote += this.outputs[i]?.records?.length ?? 0;
      const changed = this.steps.slice(before).some((_, j) => this.outputs[before + j]?.response?.activeTasks);
      if (this.steps.length === before || (wrote === 0 && !changed)) break;
      // Every member reconciled and none holds a task it must give up: a further round changes nothing.
      const g = this.group();
      if (g?.state === 'STABLE' && this.liveLabels().every((l) => !Clients.hasToRevoke(this.clients.get(l)))) break;
    }
  }

  /**
   * A new timeline from a log (`readLog`'s answer): one `Replay` of its records, in the log's
   * dialect, at the time of its last record; `told` is the log's history (`history`).
   */
  loadLog(read, told, name = 'Loaded log') {
    const records = read.records.map((r) => r.record);
    const last = read.records.reduce((t, r) => Math.max(t, Number(r.timestampMs ?? 0)), 0);
    const groupId = told?.groups?.[0]?.groupId ?? DEFAULT_APP.groupId;
    this.reset({
      name,
      description: `${records.length} records read from ${name} (${read.form}, ${read.dialect}) and replayed.`,
      config: { ...DEFAULT_CONFIG, dialect: read.dialect },
      app: { ...DEFAULT_APP, groupId },
    });
    this.logHistory = told ?? null;
    return this.push({ input: { nowMs: last, type: 'Replay', records }, action: 'replay-log', note: `The records of ${name}, replayed: the coordinator rebuilds every group from the log alone.` });
  }
}

function withNote(step, note) {
  if (note) step.note = note;
  return step;
}

// The timeline: steps, the live coordinator at the cursor, and the actions that build steps.

import { RecordTypesByDialect } from './api.mjs';
import { Clients } from './clients.mjs';
import { checkSnapshot } from './testing/simulation.mjs';
import { DEFAULT_APP, DEFAULT_CONFIG, DEFAULT_TOPOLOGY } from './config.mjs';
import { explainStep } from './explain.mjs';
import { hardState, normalizeScenario } from './formats.mjs';
import { parseJson, toJson } from './json.mjs';
import { ROLES, keysOf, taskIdsOf, taskKey } from './tasks.mjs';

/**
 * The timeline: the steps, the cursor (how many are applied), the live coordinator at the
 * cursor, and for every step the coordinator's output, a snapshot and the clients afterwards.
 *
 * `deps`: `{Coordinator, topologyId}` from the package (web or node build).
 */
export class Session {
  constructor(deps) {
    this.deps = deps;
    this.reset();
  }

  reset(scenario = {}) {
    this.name = scenario.name ?? 'Untitled';
    this.description = scenario.description ?? '';
    this.config = { ...(scenario.config ?? DEFAULT_CONFIG) };
    this.app = { ...DEFAULT_APP, ...(scenario.app ?? {}) };
    this.app.topology = structuredClone(this.app.topology ?? DEFAULT_TOPOLOGY);
    this.steps = [];
    this.outputs = [];
    this.texts = [];
    this.snapshots = [];
    this.summaries = [];
    this.kept = [];
    this.clientsAt = [];
    this.appAt = [];
    this.cursor = 0;
    this.logHistory = null;
    this.extraGroups = [];
    this.version = (this.version ?? 0) + 1;
    this.fresh();
  }

  fresh() {
    const c = new this.deps.Coordinator(this.config);
    if (typeof this.coord?.free === 'function') this.coord.free();
    this.coord = c;
    /** How many steps the live coordinator has applied (it may lag behind the cursor). */
    this.coordAt = 0;
    this.clients = new Clients();
    this.appNow = structuredClone(this.app);
    this.rebuilds = (this.rebuilds ?? 0) + 1;
    this.pool = new Map();
    this.replayMemo = null;
    if (!this.emptySnapshot) this.emptySnapshot = c.snapshot();
  }

  /** Loads a scenario (any supported format) and applies all of its steps. */
  load(scenario) {
    const s = normalizeScenario(scenario);
    this.reset(s);
    this.steps = s.steps;
    this.version += 1;
    this.goTo(this.steps.length);
    if (Number.isInteger(s.cursor)) this.goTo(Math.max(0, Math.min(s.cursor, this.steps.length)));
  }

  /**
   * A snapshot whose member objects are shared with earlier snapshots where they are equal:
   * a step changes a few members, so a big group's timeline holds each member state once.
   */
  intern(snap) {
    for (const g of snap.groups) {
      g.members = g.members.map((m) => {
        const k = toJson(m);
        const hit = this.pool.get(k);
        if (hit) return hit;
        this.pool.set(k, m);
        return m;
      });
    }
    return snap;
  }

  /** Brings the live coordinator to the cursor, re-running inputs (no views) as needed. */
  sync() {
    if (this.coordAt === this.cursor) return;
    if (this.coordAt > this.cursor) this.freshCoord();
    this.advanceCoord(this.cursor);
  }

  /** Re-runs inputs on the live coordinator up to step `k` (it must be at or before `k`). */
  advanceCoord(k) {
    for (let i = this.coordAt; i < k; i++) {
      if (this.steps[i].input) this.coord.handle(toJson(this.steps[i].input));
    }
    this.coordAt = k;
  }

  /** The snapshot after step `i` (-1: before any), taken now if it was not kept. */
  snapshotAt(i) {
    if (i < 0) return this.emptySnapshot;
    if (i >= this.outputs.length) return null;
    if (this.snapshots[i]) return this.snapshots[i];
    if (this.coordAt > i + 1) {
      // Rebuild; take the step before too, which the explanation of step i compares with.
      this.freshCoord();
      if (i > 0) {
        this.advanceCoord(i);
        this.keepSnapshot(i - 1, this.coord.snapshot());
      }
    }
    this.advanceCoord(i + 1);
    return this.keepSnapshot(i, this.coord.snapshot());
  }

  freshCoord() {
    const c = new this.deps.Coordinator(this.config);
    if (typeof this.coord?.free === 'function') this.coord.free();
    this.coord = c;
    this.coordAt = 0;
  }

  /** Keeps a snapshot (interned); a big timeline keeps the most recently used few hundred. */
  keepSnapshot(i, snap) {
    if (this.snapshots[i]) return this.snapshots[i];
    this.snapshots[i] = this.intern(snap);
    this.kept = (this.kept ?? []).filter((k) => k !== i);
    this.kept.push(i);
    const members = snap.groups.reduce((n, g) => n + g.members.length, 0);
    const cap = members > 50 ? 120 : 2000;
    while (this.kept.length > cap) this.snapshots[this.kept.shift()] = undefined;
    return this.snapshots[i];
  }

  /**
   * Per-group counts after step `i` for the chart (epoch, members reconciled or not, tasks
   * moved), from the records alone: cheap enough for every step of a big group.
   */
  summarize(i, out) {
    if (!this.track || this.trackAt !== i) {
      this.track = new Map();
      for (let k = 0; k < i; k++) this.trackRecords(this.stepRecords(k));
    }
    this.trackRecords(this.stepRecords(i, out));
    this.trackAt = i + 1;
    const moved = new Map();
    for (const e of out?.explain ?? []) {
      if (e.code === 'TARGET_ASSIGNMENT_COMPUTED') moved.set(e.groupId, (moved.get(e.groupId) ?? 0) + Number(e.tasksMoved) + Number(e.tasksReassigned ?? 0));
    }
    const sum = {};
    for (const [gid, g] of this.track) {
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

  /**
   * The members of `groupId` before step `i` from the records alone: the last target and
   * current-assignment record of each (what `explainStep` compares).
   */
  membersBefore(i, groupId) {
    const { TARGET_ASSIGNMENT_MEMBER: ta, CURRENT_MEMBER_ASSIGNMENT: ca, MEMBER_METADATA: mm, GROUP_METADATA: gm } = this.recordTypes;
    const out = new Map();
    const get = (id) => {
      if (!out.has(id)) out.set(id, { memberId: id, targetAssignment: { activeTasks: [], standbyTasks: [], warmupTasks: [] }, assignment: { activeTasks: [], standbyTasks: [], warmupTasks: [] }, pendingRevocation: { activeTasks: [], standbyTasks: [], warmupTasks: [] } });
      return out.get(id);
    };
    for (let k = 0; k < i; k++) {
      for (const r of this.stepRecords(k)) {
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

  stepRecords(i, out = this.outputs[i]) {
    const step = this.steps[i];
    const recs = [];
    if (step?.input?.type === 'Replay' && !out?.error) recs.push(...(step.input.records ?? []));
    recs.push(...(out?.records ?? []));
    return recs;
  }

  trackRecords(records) {
    const { GROUP_METADATA: gm, TARGET_ASSIGNMENT_METADATA: tm, CURRENT_MEMBER_ASSIGNMENT: ca, MEMBER_METADATA: mm } = this.recordTypes;
    for (const r of records) {
      const key = r.key;
      if (!key) continue;
      const gid = key.data.groupId;
      if (!this.track.has(gid)) this.track.set(gid, { epoch: 0, assignmentEpoch: 0, members: new Map() });
      const g = this.track.get(gid);
      const v = r.value?.data;
      if (key.type === gm) {
        if (v) g.epoch = Number(v.epoch);
        else this.track.delete(gid);
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

  /** Applies step `i` (== cursor) to the live coordinator and clients. */
  runStep(i) {
    this.sync();
    const step = this.steps[i];
    let out = null;
    let text = null;
    if (step.input) {
      text = this.coord.handle(toJson(step.input));
      out = parseJson(text);
    } else if (step.event === 'topology') {
      this.appNow.topology = structuredClone(step.topology);
      if (step.topologyEpoch !== undefined) this.appNow.topologyEpoch = step.topologyEpoch;
    }
    this.coordAt = i + 1;
    this.clients.apply(step, out, this.dialect);
    this.outputs[i] = out;
    this.texts[i] = text;
    // Snapshots are taken when a view asks for one (snapshotAt): a big group's snapshot costs.
    this.snapshots[i] = undefined;
    this.summaries[i] = this.summarize(i, out);
    this.clientsAt[i] = this.clients.clone();
    this.appAt[i] = structuredClone(this.appNow);
    this.cursor = i + 1;
    this.replayMemo = null;
  }

  /**
   * Moves the cursor. Every applied step keeps its output, snapshot and clients, so moving
   * back only picks them; the live coordinator catches up (re-running the inputs, which is
   * exact: the coordinator is deterministic) when a new step is added there.
   */
  goTo(k) {
    k = Math.max(0, Math.min(k, this.steps.length));
    if (k <= this.outputs.length) {
      this.cursor = k;
      this.clients = k > 0 ? this.clientsAt[k - 1].clone() : new Clients();
      this.appNow = structuredClone(k > 0 ? this.appAt[k - 1] : this.app);
      this.replayMemo = null;
      return;
    }
    if (this.cursor < this.outputs.length) this.goTo(this.outputs.length);
    while (this.cursor < k) this.runStep(this.cursor);
  }

  /** Appends a step at the cursor (dropping the steps after it) and applies it. */
  push(step) {
    if (this.cursor < this.steps.length) {
      this.steps.length = this.cursor;
      for (const a of [this.outputs, this.texts, this.snapshots, this.summaries, this.clientsAt, this.appAt]) a.length = Math.min(a.length, this.cursor);
      this.kept = this.kept.filter((k) => k < this.cursor);
      this.track = null;
    }
    this.steps.push(step);
    this.version = (this.version ?? 0) + 1;
    this.runStep(this.steps.length - 1);
    return this.outputs[this.steps.length - 1];
  }

  // -- what the view needs ------------------------------------------------------------------

  get dialect() {
    return this.config.dialect ?? 'kip1071-draft';
  }

  /** The dialect's record type ids by name. */
  get recordTypes() {
    return RecordTypesByDialect[this.dialect] ?? RecordTypesByDialect['kip1071-draft'];
  }

  get is42() {
    return this.dialect === 'kafka-4.2';
  }

  get manual() {
    return this.config.assignor === 'manual';
  }

  /** Every group id the timeline knows: the coordinator's groups, the clients', the picked one. */
  groupIds() {
    const ids = new Set(this.snapshot().groups.map((g) => g.groupId));
    for (const c of this.clients.list) if (c.groupId) ids.add(c.groupId);
    for (const g of this.extraGroups ?? []) ids.add(g);
    ids.add(this.app.groupId);
    return [...ids].sort();
  }

  /** Picks the group the page shows and new members join (no step: a view choice). */
  selectGroup(groupId) {
    const gid = String(groupId ?? '').trim();
    if (!gid) throw new Error('A group id must not be empty.');
    this.extraGroups = [...new Set([...(this.extraGroups ?? []), gid])];
    this.app.groupId = gid;
  }

  /** Whether step `i` concerns group `groupId` (or no group in particular). */
  stepConcerns(i, groupId) {
    const step = this.steps[i];
    if (step.event) {
      const c = step.actor ? this.clientsAt[i]?.get(step.actor) : null;
      return !c || !c.groupId || c.groupId === groupId;
    }
    const input = step.input;
    const own = input.request?.groupId ?? input.groupId;
    const ids = input.request?.groupIds ?? input.groupIds;
    if (own) return own === groupId || (this.outputs[i]?.explain ?? []).some((e) => e.groupId === groupId);
    if (ids) return ids.includes(groupId);
    return true;
  }

  snapshot() {
    return this.snapshotAt(this.cursor - 1);
  }

  group() {
    const snap = this.snapshot();
    return snap.groups.find((g) => g.groupId === this.app.groupId) ?? null;
  }

  /** Clients of the picked group. */
  groupClients() {
    return this.clients.list.filter((c) => (c.groupId ?? this.app.groupId) === this.app.groupId);
  }

  /**
   * kafka-4.2: the per-task assignment epochs of each member's active tasks (assigned and
   * pending revocation), from its latest current-assignment record up to the cursor.
   */
  taskEpochs(groupId = this.app.groupId) {
    const out = new Map();
    if (!this.is42) return out;
    for (let i = 0; i < this.cursor; i++) {
      for (const r of this.outputs[i]?.records ?? []) {
        if (r.key.type !== this.recordTypes.CURRENT_MEMBER_ASSIGNMENT || r.key.data.groupId !== groupId) continue;
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

  clockMs() {
    let t = 0;
    for (let i = 0; i < this.cursor; i++) {
      const n = this.steps[i].input?.nowMs;
      if (typeof n === 'number' && n > t) t = n;
    }
    return t;
  }

  nextDeadline() {
    const timers = this.snapshot().timers;
    if (!timers.length) return null;
    return timers.reduce((a, t) => (Number(t.deadlineMs) < Number(a.deadlineMs) ? t : a));
  }

  topologyId(topology = this.appNow.topology) {
    return this.deps.topologyId(topology);
  }

  /** Internal topics the coordinator asked for that the topic image still lacks. */
  requestedTopics() {
    const wanted = new Map();
    for (let i = 0; i < this.cursor; i++) {
      for (const t of this.outputs[i]?.topicsToCreate ?? []) wanted.set(t.name, t);
    }
    const have = new Set(this.snapshot().topics.map((t) => t.name));
    return [...wanted.values()].filter((t) => !have.has(t.name));
  }

  /** All records written up to the cursor. */
  records(upTo = this.cursor) {
    const out = [];
    for (let i = 0; i < upTo; i++) {
      // A Replay's records are in the log too (a loaded log), though it writes none itself.
      if (this.steps[i].input?.type === 'Replay' && !this.outputs[i]?.error) for (const r of this.steps[i].input.records ?? []) out.push(r);
      for (const r of this.outputs[i]?.records ?? []) out.push(r);
    }
    return out;
  }

  /**
   * The coordinator's invariants at the cursor, checked as the testing tools check them (one
   * active owner per task, no process targeted two copies of a task, assignment epoch <= group
   * epoch, a STABLE group's members at the assignment epoch): the violations, empty when all hold.
   */
  invariants() {
    return checkSnapshot(this.snapshot());
  }

  /**
   * Rebuilds the groups from the records alone (a fresh coordinator replaying the log) and
   * compares their hard state with the live coordinator's.
   */
  replayCheck() {
    if (this.replayMemo?.cursor === this.cursor) return this.replayMemo.result;
    const result = this.replayCheckNow();
    this.replayMemo = { cursor: this.cursor, result };
    return result;
  }

  replayCheckNow() {
    const records = this.records();
    const c = new this.deps.Coordinator(this.config);
    let a;
    try {
      if (records.length) c.replay(toJson(records), this.clockMs());
      a = hardState(c.snapshot());
    } catch (e) {
      return { records: records.length, equal: false, error: e.message };
    } finally {
      if (typeof c.free === 'function') c.free();
    }
    const b = hardState(this.snapshot());
    return { records: records.length, equal: toJson(a) === toJson(b) };
  }

  // -- actions: each builds one or more steps from the clients' point of view -----------------

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

  /** kafka-4.2 clients make their own member ids (22 characters, as UUIDs in Kafka's base64). */
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
    if (this.is42) return this.joinRequest42(c, { newMemberId });
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

  /** The kafka-4.2 join: the member's own id, the topology itself, the endpoint epoch. */
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
    if (this.is42) req.endpointInformationEpoch = c.endpointEpoch ?? -1;
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

  /** Every live member on `rackId` crashes (the rack or zone goes away): one crash step each. */
  crashRack(rackId, note) {
    const labels = this.clients.list.filter((c) => c.rackId === rackId && Clients.live(c)).map((c) => c.label);
    if (!labels.length) throw new Error(`no live member on rack ${rackId}`);
    labels.forEach((l, i) => this.crash(l, i === 0 ? note : undefined));
  }

  /** The racks of the picked group's clients, sorted. */
  racks() {
    return [...new Set(this.groupClients().map((c) => c.rackId).filter(Boolean))].sort();
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

  /** The asked member (or any live member, or a tool) sends the application's topology. */
  initialize(label = null, note) {
    if (this.is42) throw new Error('kafka-4.2 has no StreamsGroupInitialize: the topology travels in the joining heartbeat.');
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
    // kafka-4.2 identifies a topology by its epoch: a new topology is the next epoch.
    if (this.is42) step.topologyEpoch = (this.appNow.topologyEpoch ?? 0) + 1;
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

  // -- formats ----------------------------------------------------------------------------

  /** The playground's own format: everything needed to rebuild this session. */
  toScenario({ withCursor = true } = {}) {
    const s = {
      format: 'sgc-playground',
      version: 1,
      name: this.name,
      description: this.description,
      config: this.config,
      app: this.app,
      steps: this.steps,
    };
    if (withCursor && this.cursor !== this.steps.length) s.cursor = this.cursor;
    return s;
  }

  /**
   * The `tests/scenarios` format: config, inputs and, as `expect`, what the coordinator
   * answered here (all of each output but `explain`, whose codes may grow). Client-only
   * events are not inputs and are left out.
   */
  toTestScenario() {
    const cursor = this.cursor;
    this.goTo(this.steps.length);
    const steps = [];
    this.steps.forEach((step, i) => {
      if (!step.input) return;
      const out = this.outputs[i];
      const expect = out.error ? { error: out.error } : {
        response: out.response,
        records: out.records,
        topicsToCreate: out.topicsToCreate,
        nextDeadlineMs: out.nextDeadlineMs,
      };
      steps.push({ input: step.input, expect });
    });
    this.goTo(cursor);
    const notes = this.steps.filter((s) => s.note).map((s) => s.note);
    const events = this.steps.filter((s) => s.event === 'crash').map((s) => `${s.actor} crashed`);
    let description = this.description || 'Exported from the protocol playground.';
    if (events.length) description += ` Client-side events (no input): ${events.join('; ')}.`;
    if (notes.length && !this.description) description += ` ${notes.join(' ')}`;
    return { name: this.name, description, config: this.config, steps };
  }
}

function withNote(step, note) {
  if (note) step.note = note;
  return step;
}

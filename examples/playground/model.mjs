// The playground's model: simulated Streams clients, the timeline of inputs and the scenario
// formats. No DOM here, so that the same code runs in Node.
//
// The coordinator is the real one (the web build); this file only decides what the simulated
// clients send and remembers what they were told. Everything shown at a point of the timeline is
// a function of the steps up to that point: a step is either an input for the coordinator (with
// the label of the simulated client that sent it) or a client-side event the coordinator never
// sees (a crash, a new topology in the application's code).

export const ROLES = ['active', 'standby', 'warmup'];
const LIST = { active: 'activeTasks', standby: 'standbyTasks', warmup: 'warmupTasks' };

export const DEFAULT_CONFIG = {
  dialect: 'kip1071-draft',
  'group.streams.session.timeout.ms': 45000,
  'group.streams.heartbeat.interval.ms': 5000,
  'group.streams.num.standby.replicas': 0,
};

export const DEFAULT_TOPOLOGY = [
  {
    subtopologyId: '0',
    sourceTopics: ['orders'],
    sourceTopicRegex: [],
    stateChangelogTopics: [
      { name: 'orders-app-counts-changelog', partitions: 0, replicationFactor: -1, topicConfigs: [] },
    ],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
    copartitionGroups: [],
  },
];

export const DEFAULT_APP = { groupId: 'orders-app', topology: DEFAULT_TOPOLOGY, tickMs: 100, rebalanceTimeoutMs: 60000 };

export const ERROR_NAMES = {
  '-1': 'UNKNOWN_SERVER_ERROR', 24: 'INVALID_GROUP_ID', 25: 'UNKNOWN_MEMBER_ID', 35: 'UNSUPPORTED_VERSION',
  42: 'INVALID_REQUEST', 68: 'NON_EMPTY_GROUP', 69: 'GROUP_ID_NOT_FOUND', 81: 'GROUP_MAX_SIZE_REACHED',
  82: 'FENCED_INSTANCE_ID', 110: 'FENCED_MEMBER_EPOCH', 111: 'UNRELEASED_INSTANCE_ID',
  129: 'STREAMS_INVALID_TOPOLOGY', 130: 'STREAMS_INCONSISTENT_TOPOLOGY', 131: 'STREAMS_MISSING_SOURCE_TOPICS',
  132: 'STREAMS_GROUP_UNINITIALIZED', 133: 'STREAMS_SHUTDOWN_APPLICATION', 134: 'STREAMS_INCONSISTENT_INTERNAL_TOPICS',
};
export const STATUS_NAMES = ['UNINITIALIZED_TOPOLOGY', 'INCONSISTENT_TOPOLOGY', 'MISSING_SOURCE_TOPICS', 'MISSING_INTERNAL_TOPICS', 'SHUTDOWN_APPLICATION'];
export const RECORD_NAMES = {
  15: 'GroupMetadata', 16: 'PartitionMetadata', 17: 'MemberMetadata', 18: 'TargetAssignmentMetadata',
  19: 'TargetAssignmentMember', 20: 'CurrentMemberAssignment', 21: 'Topology',
};

export function errorName(code) {
  return ERROR_NAMES[code] ?? `error ${code}`;
}

// ---------------------------------------------------------------------------------------------
// Tasks. A task is kept as the key "subtopologyId_partition" (Kafka Streams' TaskId form).

export function taskKey(subtopologyId, partition) {
  return `${subtopologyId}_${partition}`;
}

export function parseTaskKey(key) {
  const i = key.lastIndexOf('_');
  return [key.slice(0, i), Number(key.slice(i + 1))];
}

function compareKeys(a, b) {
  const [sa, pa] = parseTaskKey(a);
  const [sb, pb] = parseTaskKey(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  return pa - pb;
}

export function sortKeys(keys) {
  return [...new Set(keys)].sort(compareKeys);
}

/** `[TaskIds]` -> sorted task keys. */
export function keysOf(taskIds) {
  const out = [];
  for (const t of taskIds ?? []) for (const p of t.partitions) out.push(taskKey(t.subtopologyId, p));
  return sortKeys(out);
}

/** Sorted task keys -> `[TaskIds]` (one entry per subtopology, partitions ascending). */
export function taskIdsOf(keys) {
  const by = new Map();
  for (const k of sortKeys(keys)) {
    const [s, p] = parseTaskKey(k);
    if (!by.has(s)) by.set(s, []);
    by.get(s).push(p);
  }
  return [...by].map(([subtopologyId, partitions]) => ({ subtopologyId, partitions }));
}

export function emptyTasks() {
  return { active: [], standby: [], warmup: [] };
}

/** A describe-style `{activeTasks, standbyTasks, warmupTasks}` as role -> keys. */
export function tasksOf(assignment) {
  const t = emptyTasks();
  for (const r of ROLES) t[r] = keysOf(assignment?.[LIST[r]]);
  return t;
}

function minus(a, b) {
  const s = new Set(b);
  return a.filter((x) => !s.has(x));
}

function sameKeys(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// ---------------------------------------------------------------------------------------------
// Simulated clients.

function letterLabel(n) {
  let s = '';
  n += 1;
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/**
 * The clients' side: one entry per simulated Kafka Streams member (a stream thread's heartbeat
 * loop). Phases: `member` (in the group, heartbeating), `rejoin` (fenced or unknown: dropped its
 * tasks and rejoins with epoch 0 at its next heartbeat), `left` (-1), `stopped` (-2, a static
 * member's process is down), `crashed` (stopped heartbeating without a word), `failed` (a fatal
 * error: 82 or 111).
 */
export class Clients {
  constructor() {
    this.list = [];
    this.processes = 0;
    this.dynamic = 0;
  }

  clone() {
    const c = new Clients();
    c.list = structuredClone(this.list);
    c.processes = this.processes;
    c.dynamic = this.dynamic;
    return c;
  }

  get(label) {
    return this.list.find((c) => c.label === label) ?? null;
  }

  byMemberId(id) {
    return id ? this.list.find((c) => c.memberId === id) ?? null : null;
  }

  /** The client's label for a member id it has now or had before (a restart takes a new id). */
  labelOf(memberId) {
    if (!memberId) return null;
    return (this.byMemberId(memberId) ?? this.list.find((c) => c.pastMemberIds.includes(memberId)))?.label ?? null;
  }

  processIds() {
    return [...new Set(this.list.map((c) => c.processId))];
  }

  nextProcessId() {
    let id;
    do {
      this.processes += 1;
      id = `process-${this.processes}`;
    } while (this.list.some((c) => c.processId === id));
    return id;
  }

  nextDynamicLabel() {
    let l;
    do {
      l = letterLabel(this.dynamic);
      this.dynamic += 1;
    } while (this.get(l));
    return l;
  }

  /** A new client (not yet joined). */
  create({ label, instanceId = null, processId, clientHost }) {
    const hostIndex = this.processIds().indexOf(processId);
    const c = {
      label,
      instanceId,
      processId,
      clientId: `${label}-StreamThread`,
      clientHost: clientHost ?? `/10.0.0.${(hostIndex < 0 ? this.processIds().length : hostIndex) + 1}`,
      memberId: '',
      pastMemberIds: [],
      epoch: 0,
      phase: 'new',
      owned: emptyTasks(),
      assigned: emptyTasks(),
      asked: false,
      status: null,
      groupTopologyId: null,
      topologyId: null,
      rebalanceTimeoutMs: 60000,
      lastError: null,
      shutdownRequested: false,
    };
    this.list.push(c);
    return c;
  }

  /** Tasks the client still holds although its last assignment no longer lists them. */
  static toRevoke(c) {
    const t = emptyTasks();
    for (const r of ROLES) t[r] = minus(c.owned[r], c.assigned[r]);
    return t;
  }

  static hasToRevoke(c) {
    const t = Clients.toRevoke(c);
    return ROLES.some((r) => t[r].length > 0);
  }

  static live(c) {
    return c.phase === 'member' || c.phase === 'rejoin';
  }

  /** Finds (or creates) the client that sent a heartbeat loaded without an actor label. */
  infer(request, client) {
    const byId = this.byMemberId(request.memberId);
    if (byId) return byId;
    if (request.instanceId) {
      const byInstance = this.list.find((c) => c.instanceId === request.instanceId);
      if (byInstance) return byInstance;
    }
    const label = request.instanceId ?? (request.memberId || this.nextDynamicLabel());
    return this.create({
      label: this.get(label) ? this.nextDynamicLabel() : label,
      instanceId: request.instanceId ?? null,
      processId: request.processId ?? this.nextProcessId(),
      clientHost: client?.clientHost,
    });
  }

  /** Updates the clients from one step and the coordinator's output for it. */
  apply(step, out) {
    if (step.event) return this.applyEvent(step);
    const input = step.input;
    if (input.type === 'StreamsGroupInitialize') {
      if (out?.response && out.response.errorCode === 0) for (const c of this.list) c.asked = false;
      return;
    }
    if (input.type !== 'StreamsGroupHeartbeat') return;
    const req = input.request ?? {};
    let c = step.actor ? this.get(step.actor) : null;
    if (!c) {
      c = step.actor
        ? this.create({ label: step.actor, instanceId: req.instanceId ?? null, processId: req.processId ?? this.nextProcessId(), clientHost: input.client?.clientHost })
        : this.infer(req, input.client);
    }
    if (input.client) {
      c.clientId = input.client.clientId ?? c.clientId;
      c.clientHost = input.client.clientHost ?? c.clientHost;
    }
    // What the client reported is what it holds from now on.
    if (req.memberEpoch === 0) {
      c.owned = emptyTasks();
      c.assigned = emptyTasks();
      if (req.topologyId) c.topologyId = req.topologyId;
      if (req.processId) c.processId = req.processId;
      if (req.instanceId) c.instanceId = req.instanceId;
      if (req.rebalanceTimeoutMs > 0) c.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    } else if (req.memberEpoch > 0 && req.activeTasks && req.standbyTasks && req.warmupTasks) {
      for (const r of ROLES) c.owned[r] = keysOf(req[LIST[r]]);
    }
    if (!out || out.error) {
      c.lastError = { code: out?.error?.code ?? 'INVALID_INPUT', message: out?.error?.message ?? '' };
      return;
    }
    const res = out.response;
    if (res.errorCode !== 0) {
      c.lastError = { code: res.errorCode, message: res.errorMessage };
      if ([25, 69, 110].includes(res.errorCode)) {
        // A correct client drops all its tasks and rejoins with epoch 0.
        c.phase = 'rejoin';
        c.epoch = 0;
        c.owned = emptyTasks();
        c.assigned = emptyTasks();
      } else if ([82, 111].includes(res.errorCode)) {
        // Fatal for the Java client: the instance stops.
        c.phase = 'failed';
        c.owned = emptyTasks();
        c.assigned = emptyTasks();
        c.asked = false;
      }
      return;
    }
    c.lastError = null;
    if (req.memberEpoch === -1 || req.memberEpoch === -2) {
      c.phase = req.memberEpoch === -1 ? 'left' : 'stopped';
      c.epoch = req.memberEpoch;
      c.owned = emptyTasks();
      c.assigned = emptyTasks();
      c.asked = false;
      c.status = null;
      if (req.shutdownApplication) c.shutdownRequested = true;
      return;
    }
    c.phase = 'member';
    if (c.memberId && c.memberId !== res.memberId && !c.pastMemberIds.includes(c.memberId)) c.pastMemberIds.push(c.memberId);
    c.memberId = res.memberId;
    c.epoch = res.memberEpoch;
    if (res.activeTasks) {
      for (const r of ROLES) {
        c.assigned[r] = keysOf(res[LIST[r]]);
        // New tasks are taken at once; tasks no longer listed are kept until revoked.
        c.owned[r] = sortKeys([...c.owned[r], ...c.assigned[r]]);
      }
    }
    if (res.shouldInitializeTopology) c.asked = true;
    if (res.status) c.status = res.status;
    if (res.groupTopologyId !== null && res.groupTopologyId !== undefined) c.groupTopologyId = res.groupTopologyId;
    if (req.shutdownApplication) c.shutdownRequested = true;
  }

  applyEvent(step) {
    const c = this.get(step.actor);
    if (step.event === 'crash' && c) {
      c.phase = 'crashed';
      c.owned = emptyTasks();
      c.assigned = emptyTasks();
      c.asked = false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The timeline.

/** A short title for a step, for the timeline. */
export function stepTitle(step) {
  if (step.event === 'crash') return `${step.actor} crashes (stops heartbeating)`;
  if (step.event === 'topology') return 'New topology in the application code';
  if (step.event === 'note') return step.note;
  const i = step.input;
  const who = step.actor ?? '';
  switch (i.type) {
    case 'StreamsGroupHeartbeat': {
      const r = i.request ?? {};
      const what = {
        join: 'joins',
        rejoin: 'rejoins (epoch 0)',
        restart: 'restarts and joins',
        heartbeat: `heartbeats (epoch ${r.memberEpoch})`,
        revoke: `revokes, heartbeats (epoch ${r.memberEpoch})`,
        leave: 'leaves (-1)',
        'static-leave': 'leaves temporarily (-2)',
        shutdown: 'requests shutdown',
      }[step.action];
      if (what) return `${who} ${what}`;
      if (r.memberEpoch === 0) return `${who || r.memberId || 'member'} joins`;
      if (r.memberEpoch === -1) return `${who || r.memberId} leaves (-1)`;
      if (r.memberEpoch === -2) return `${who || r.memberId} leaves temporarily (-2)`;
      return `${who || r.memberId} heartbeats (epoch ${r.memberEpoch})`;
    }
    case 'StreamsGroupInitialize':
      return `Initialize topology${who ? ` (by ${who})` : ''}`;
    case 'TopicMetadata': {
      const parts = [];
      for (const t of i.topics ?? []) parts.push(`${t.name}=${t.partitions}`);
      for (const t of i.deletedTopics ?? []) parts.push(`−${t}`);
      return `Topics: ${parts.join(', ') || '(none)'}`;
    }
    case 'AdvanceTime':
      return step.action === 'next-timer' ? `Clock → next timer (${fmtTime(i.nowMs)})` : `Clock → ${fmtTime(i.nowMs)}`;
    case 'StreamsGroupDescribe':
      return 'Describe';
    case 'DeleteGroups':
      return `Delete groups ${(i.groupIds ?? []).join(', ')}`;
    case 'Replay':
      return `Replay ${(i.records ?? []).length} records`;
    case 'SetTargetAssignment':
      return 'Set target assignment';
    default:
      return i.type;
  }
}

export function fmtTime(ms) {
  if (ms === null || ms === undefined) return '–';
  const n = Number(ms);
  if (n < 60000) return `${(n / 1000).toFixed(1)} s`;
  if (n < 3600000) return `${Math.floor(n / 60000)} min ${((n % 60000) / 1000).toFixed(1)} s`;
  if (n < 86400000) return `${Math.floor(n / 3600000)} h ${Math.floor((n % 3600000) / 60000)} min`;
  return `${Math.floor(n / 86400000)} d ${Math.floor((n % 86400000) / 3600000)} h`;
}

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
    this.clientsAt = [];
    this.appAt = [];
    this.cursor = 0;
    this.fresh();
  }

  fresh() {
    const c = new this.deps.Coordinator(this.config);
    if (typeof this.coord?.free === 'function') this.coord.free();
    this.coord = c;
    this.clients = new Clients();
    this.appNow = structuredClone(this.app);
    this.rebuilds = (this.rebuilds ?? 0) + 1;
  }

  /** Loads a scenario (any supported format) and applies all of its steps. */
  load(scenario) {
    const s = normalizeScenario(scenario);
    this.reset(s);
    this.steps = s.steps;
    this.goTo(this.steps.length);
    if (Number.isInteger(s.cursor)) this.goTo(Math.max(0, Math.min(s.cursor, this.steps.length)));
  }

  /** Applies step `i` (== cursor) to the live coordinator and clients. */
  runStep(i) {
    const step = this.steps[i];
    let out = null;
    let text = null;
    if (step.input) {
      text = this.coord.handle(JSON.stringify(step.input));
      out = JSON.parse(text);
    } else if (step.event === 'topology') {
      this.appNow.topology = structuredClone(step.topology);
    }
    this.clients.apply(step, out);
    this.outputs[i] = out;
    this.texts[i] = text;
    this.snapshots[i] = this.coord.snapshot();
    this.clientsAt[i] = this.clients.clone();
    this.appAt[i] = structuredClone(this.appNow);
    this.cursor = i + 1;
  }

  /**
   * Moves the cursor. Going back builds a fresh coordinator and re-runs the inputs up to the
   * point (the coordinator is deterministic, so the state is exactly what it was).
   */
  goTo(k) {
    k = Math.max(0, Math.min(k, this.steps.length));
    if (k < this.cursor) {
      this.fresh();
      this.cursor = 0;
    }
    while (this.cursor < k) this.runStep(this.cursor);
  }

  /** Appends a step at the cursor (dropping the steps after it) and applies it. */
  push(step) {
    if (this.cursor < this.steps.length) {
      this.steps.length = this.cursor;
      for (const a of [this.outputs, this.texts, this.snapshots, this.clientsAt, this.appAt]) a.length = this.cursor;
    }
    this.steps.push(step);
    this.runStep(this.steps.length - 1);
    return this.outputs[this.steps.length - 1];
  }

  // -- what the view needs ------------------------------------------------------------------

  snapshot() {
    return this.cursor > 0 ? this.snapshots[this.cursor - 1] : this.coord.snapshot();
  }

  group() {
    const snap = this.snapshot();
    return snap.groups.find((g) => g.groupId === this.app.groupId) ?? snap.groups[0] ?? null;
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
    for (let i = 0; i < upTo; i++) out.push(...(this.outputs[i]?.records ?? []));
    return out;
  }

  /**
   * Rebuilds the groups from the records alone (a fresh coordinator replaying the log) and
   * compares their hard state with the live coordinator's.
   */
  replayCheck() {
    const records = this.records();
    const c = new this.deps.Coordinator(this.config);
    let a;
    try {
      if (records.length) c.replay(records, this.clockMs());
      a = hardState(c.snapshot());
    } catch (e) {
      return { records: records.length, equal: false, error: e.message };
    } finally {
      if (typeof c.free === 'function') c.free();
    }
    const b = hardState(this.snapshot());
    return { records: records.length, equal: JSON.stringify(a) === JSON.stringify(b) };
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

  joinRequest(c, { newMemberId = false } = {}) {
    const req = {
      groupId: this.app.groupId,
      memberId: newMemberId ? '' : c.memberId,
      memberEpoch: 0,
    };
    if (c.instanceId) req.instanceId = c.instanceId;
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

  heartbeatRequest(c, { revoke = false, shutdown = false } = {}) {
    const owned = revoke ? { active: [], standby: [], warmup: [] } : c.owned;
    if (revoke) for (const r of ROLES) owned[r] = c.owned[r].filter((t) => c.assigned[r].includes(t));
    const req = { groupId: this.app.groupId, memberId: c.memberId, memberEpoch: c.epoch };
    if (c.instanceId) req.instanceId = c.instanceId;
    req.activeTasks = taskIdsOf(owned.active);
    req.standbyTasks = taskIdsOf(owned.standby);
    req.warmupTasks = taskIdsOf(owned.warmup);
    if (shutdown) req.shutdownApplication = true;
    return req;
  }

  hbInput(c, request) {
    return { nowMs: this.now(), type: 'StreamsGroupHeartbeat', client: this.clientInfo(c), request };
  }

  /** A new simulated member joins: dynamic, or static with an instance id. */
  addMember({ instanceId = null, processId = null, label = null, note } = {}) {
    const pid = processId || this.clients.nextProcessId();
    const lbl = label ?? (instanceId || this.clients.nextDynamicLabel());
    if (this.clients.get(lbl)) throw new Error(`a client named ${lbl} exists`);
    // The client exists from the step on; create it on a scratch copy to build the request.
    const scratch = this.clients.clone();
    const c = scratch.create({ label: lbl, instanceId: instanceId || null, processId: pid });
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
    const req = { groupId: this.app.groupId, memberId: c.memberId, memberEpoch: -1 };
    if (c.instanceId) req.instanceId = c.instanceId;
    return this.push(withNote({ input: this.hbInput(c, req), actor: label, action: 'leave' }, note));
  }

  staticLeave(label, note) {
    const c = this.client(label);
    const req = { groupId: this.app.groupId, memberId: c.memberId, memberEpoch: -2, instanceId: c.instanceId };
    return this.push(withNote({ input: this.hbInput(c, req), actor: label, action: 'static-leave' }, note));
  }

  crash(label, note) {
    this.client(label);
    return this.push(withNote({ event: 'crash', actor: label }, note));
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
    return this.push(withNote({ event: 'topology', topology: structuredClone(topology) }, note));
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
    }
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

/** The replayable part of a snapshot (PROTOCOL 2.1 hard and derived state). */
export function hardState(snapshot) {
  return snapshot.groups.map((g) => ({
    groupId: g.groupId,
    state: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    topologyId: g.topologyId,
    topology: g.topology,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      memberState: m.memberState,
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      topologyId: m.topologyId,
      processId: m.processId,
      clientTags: m.clientTags,
      userEndpoint: m.userEndpoint,
      assignment: m.assignment,
      targetAssignment: m.targetAssignment,
      pendingRevocation: m.pendingRevocation,
    })),
  }));
}

/**
 * Accepts the playground format, the `tests/scenarios` format (steps with `input`), a list of
 * inputs, or JSON lines of inputs (as in examples/demo/*.jsonl).
 */
export function normalizeScenario(data) {
  if (typeof data === 'string') {
    const text = data.trim();
    try {
      data = JSON.parse(text);
    } catch (e) {
      const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('//'));
      data = lines.map((l, i) => {
        try {
          return JSON.parse(l);
        } catch {
          throw new Error(`line ${i + 1} is not JSON: ${e.message}`);
        }
      });
    }
  }
  if (Array.isArray(data)) data = { name: 'Loaded inputs', steps: data.map((input) => ({ input })) };
  if (!data || typeof data !== 'object' || !Array.isArray(data.steps)) {
    throw new Error('not a scenario: expected an object with a "steps" list, a list of inputs, or JSON lines');
  }
  const steps = data.steps.map((s, i) => {
    if (s && typeof s === 'object' && (s.input || s.event)) {
      const step = {};
      if (s.input) step.input = s.input;
      if (s.event) step.event = s.event;
      for (const k of ['actor', 'action', 'note', 'topology']) if (s[k] !== undefined) step[k] = s[k];
      return step;
    }
    throw new Error(`step ${i} has neither "input" nor "event"`);
  });
  const app = { ...DEFAULT_APP, ...(data.app ?? {}) };
  if (!data.app) {
    // A scenario from elsewhere: take the group id and topology from its inputs.
    const first = steps.find((s) => s.input?.request?.groupId);
    if (first) app.groupId = first.input.request.groupId;
    const init = steps.find((s) => s.input?.type === 'StreamsGroupInitialize');
    if (init) app.topology = init.input.request.topology;
  }
  return {
    name: data.name ?? 'Loaded scenario',
    description: data.description ?? '',
    config: data.config ?? { ...DEFAULT_CONFIG },
    app,
    steps,
    cursor: data.cursor,
  };
}

// ---------------------------------------------------------------------------------------------
// Share links: the playground format, deflated and base64url-encoded, in the URL fragment.

function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

async function pipe(bytes, stream) {
  const s = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(s).arrayBuffer());
}

export async function encodeFragment(scenario) {
  const bytes = new TextEncoder().encode(JSON.stringify(scenario));
  if (typeof CompressionStream === 'function') {
    return `z=${toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')))}`;
  }
  return `s=${toBase64Url(bytes)}`;
}

/** The scenario in a fragment (`#z=...` deflated, `#s=...` plain), or null. */
export async function decodeFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  let bytes;
  if (params.get('z')) bytes = await pipe(fromBase64Url(params.get('z')), new DecompressionStream('deflate-raw'));
  else if (params.get('s')) bytes = fromBase64Url(params.get('s'));
  else return null;
  return JSON.parse(new TextDecoder().decode(bytes));
}

// ---------------------------------------------------------------------------------------------
// Explanations: what happened in a step, and why, in words.

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
    items.push({ kind: 'client', text: `${step.actor}'s process dies without a word. The coordinator still counts it as a member until its session timeout fires.` });
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
    const c = errorName(res.errorCode);
    let then = '';
    if ([25, 69, 110].includes(res.errorCode)) then = ' The client drops all its tasks and rejoins with epoch 0 at its next heartbeat.';
    if ([82, 111].includes(res.errorCode)) then = ' The Java client treats this as fatal: the instance stops.';
    items.push({ kind: 'error', text: `${c} (${res.errorCode}): ${res.errorMessage ?? ''}${then}` });
  }
  const groupId = input.request?.groupId ?? session.app.groupId;
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
        items.push({ kind: 'assign', text: `New target assignment for epoch ${e.assignmentEpoch} (${e.assignor} assignor): ${e.tasksMoved} task${e.tasksMoved === 1 ? '' : 's'} moved.` });
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
      case 'TIMER_DROPPED':
        items.push({ kind: 'error', text: `Timer ${e.timer} dropped: ${e.message}` });
        break;
      default:
        items.push({ kind: 'other', text: `${e.code}: ${JSON.stringify(e)}` });
    }
  }
  // Task movements, from the snapshots before and after.
  const before = memberMap(i > 0 ? session.snapshots[i - 1] : null, groupId);
  const after = memberMap(session.snapshots[i], groupId);
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
    for (const s of res.status ?? []) items.push({ kind: 'status', text: `Status ${STATUS_NAMES[s.statusCode] ?? s.statusCode}: ${s.statusDetail}` });
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

function describeLists(res) {
  const parts = [];
  for (const r of ROLES) {
    const k = keysOf(res[LIST[r]]);
    if (k.length || r === 'active') parts.push(`${r} [${k.join(', ')}]`);
  }
  return parts.join(', ');
}

export function short(id) {
  if (!id) return '∅';
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}

/** Every epoch bump up to the cursor: the group's rebalance history. */
export function rebalanceHistory(session) {
  const h = [];
  for (let i = 0; i < session.cursor; i++) {
    for (const e of session.outputs[i]?.explain ?? []) {
      if (e.code === 'GROUP_EPOCH_BUMPED') h.push({ step: i, from: e.from, to: e.to, reasons: e.reasons, title: stepTitle(session.steps[i]) });
    }
  }
  return h;
}

export { sameKeys };

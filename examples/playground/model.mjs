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

export const DIALECTS = ['kip1071-draft', 'kafka-4.2'];

export const DEFAULT_CONFIG = {
  dialect: 'kip1071-draft',
  recordBytes: true,
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

export const DEFAULT_APP = { groupId: 'orders-app', topology: DEFAULT_TOPOLOGY, topologyEpoch: 0, tickMs: 100, rebalanceTimeoutMs: 60000 };

export const ERROR_NAMES = {
  '-1': 'UNKNOWN_SERVER_ERROR', 24: 'INVALID_GROUP_ID', 25: 'UNKNOWN_MEMBER_ID', 35: 'UNSUPPORTED_VERSION',
  42: 'INVALID_REQUEST', 68: 'NON_EMPTY_GROUP', 69: 'GROUP_ID_NOT_FOUND', 81: 'GROUP_MAX_SIZE_REACHED',
  82: 'FENCED_INSTANCE_ID', 110: 'FENCED_MEMBER_EPOCH', 111: 'UNRELEASED_INSTANCE_ID',
  129: 'STREAMS_INVALID_TOPOLOGY', 130: 'STREAMS_INCONSISTENT_TOPOLOGY', 131: 'STREAMS_MISSING_SOURCE_TOPICS',
  132: 'STREAMS_GROUP_UNINITIALIZED', 133: 'STREAMS_SHUTDOWN_APPLICATION', 134: 'STREAMS_INCONSISTENT_INTERNAL_TOPICS',
};
/** kafka-4.2 numbers errors 129-134 as released Kafka does (PROTOCOL 4.11). */
const ERROR_NAMES_42 = {
  ...ERROR_NAMES, 129: 'REBOOTSTRAP_REQUIRED', 130: 'STREAMS_INVALID_TOPOLOGY', 131: 'STREAMS_INVALID_TOPOLOGY_EPOCH',
  132: 'STREAMS_TOPOLOGY_FENCED', 133: 'error 133', 134: 'error 134',
};
export const STATUS_NAMES = ['UNINITIALIZED_TOPOLOGY', 'INCONSISTENT_TOPOLOGY', 'MISSING_SOURCE_TOPICS', 'MISSING_INTERNAL_TOPICS', 'SHUTDOWN_APPLICATION'];
/** kafka-4.2 status codes (PROTOCOL 4.5). */
export const STATUS_NAMES_42 = ['STALE_TOPOLOGY', 'MISSING_SOURCE_TOPICS', 'INCORRECTLY_PARTITIONED_TOPICS', 'MISSING_INTERNAL_TOPICS', 'SHUTDOWN_APPLICATION', 'ASSIGNMENT_DELAYED'];
export const RECORD_NAMES = {
  15: 'GroupMetadata', 16: 'PartitionMetadata', 17: 'MemberMetadata', 18: 'TargetAssignmentMetadata',
  19: 'TargetAssignmentMember', 20: 'CurrentMemberAssignment', 21: 'Topology',
};
export const RECORD_NAMES_42 = {
  17: 'GroupMetadata', 19: 'MemberMetadata', 20: 'TargetAssignmentMetadata',
  21: 'TargetAssignmentMember', 22: 'CurrentMemberAssignment', 23: 'Topology',
};

export function errorName(code, dialect = 'kip1071-draft') {
  return (dialect === 'kafka-4.2' ? ERROR_NAMES_42 : ERROR_NAMES)[code] ?? `error ${code}`;
}

export function statusName(code, dialect = 'kip1071-draft') {
  return (dialect === 'kafka-4.2' ? STATUS_NAMES_42 : STATUS_NAMES)[code] ?? `status ${code}`;
}

export function recordName(type, dialect = 'kip1071-draft') {
  return (dialect === 'kafka-4.2' ? RECORD_NAMES_42 : RECORD_NAMES)[type] ?? '';
}

/** Base64 (as `keyBytes` / `valueBytes` carry it) as spaced hex bytes. */
export function hexOf(base64) {
  if (typeof base64 !== 'string') return '';
  const b = atob(base64);
  const out = [];
  for (let i = 0; i < b.length; i++) out.push(b.charCodeAt(i).toString(16).padStart(2, '0'));
  return out.join(' ');
}

// ---------------------------------------------------------------------------------------------
// JSON with 64-bit integers. Outputs carry integers beyond 2^53 (kafka-4.2's metadata hash);
// `parseJson` keeps them as BigInt and `toJson` writes them back digit for digit, so records
// survive the round trip into `Replay` and exported files.

const BIG = '@sgc-int64:';

export function parseJson(text) {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  // Integer literals outside strings: after `:`, `[` or `,`, before `,`, `]` or `}`.
  const marked = text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, (m, pre, digits) => (Number.isSafeInteger(Number(digits)) ? m : `${pre}"${BIG}${digits}"`));
  return JSON.parse(marked, (k, v) => (typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v));
}

export function toJson(value, space) {
  let big = false;
  const text = JSON.stringify(value, (k, v) => {
    if (typeof v === 'bigint') {
      big = true;
      return `${BIG}${v}`;
    }
    return v;
  }, space);
  return big ? text.replace(/"@sgc-int64:(-?\d+)"/g, '$1') : text;
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
  create({ label, instanceId = null, processId, clientHost, groupId = null }) {
    const hostIndex = this.processIds().indexOf(processId);
    const c = {
      label,
      groupId,
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
      endpointEpoch: -1,
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
      groupId: request.groupId ?? null,
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
        ? this.create({ label: step.actor, instanceId: req.instanceId ?? null, processId: req.processId ?? this.nextProcessId(), clientHost: input.client?.clientHost, groupId: req.groupId ?? null })
        : this.infer(req, input.client);
    }
    if (req.groupId) c.groupId = req.groupId;
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
      } else if ([82, 111, 130, 131, 132].includes(res.errorCode)) {
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
    if (typeof res.endpointInformationEpoch === 'number') c.endpointEpoch = res.endpointInformationEpoch;
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
    const ta = this.is42 ? 21 : 19;
    const ca = this.is42 ? 22 : 20;
    const mm = this.is42 ? 19 : 17;
    const gm = this.is42 ? 17 : 15;
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
    const gm = this.is42 ? 17 : 15;
    const tm = this.is42 ? 20 : 18;
    const ca = this.is42 ? 22 : 20;
    const mm = this.is42 ? 19 : 17;
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
    this.clients.apply(step, out);
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
        if (r.key.type !== 22 || r.key.data.groupId !== groupId) continue;
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

  /** A new simulated member joins: dynamic, or static with an instance id. */
  addMember({ instanceId = null, processId = null, label = null, note } = {}) {
    const pid = processId || this.clients.nextProcessId();
    const lbl = label ?? (instanceId || this.clients.nextDynamicLabel());
    if (this.clients.get(lbl)) throw new Error(`a client named ${lbl} exists`);
    // The client exists from the step on; create it on a scratch copy to build the request.
    const scratch = this.clients.clone();
    const c = scratch.create({ label: lbl, instanceId: instanceId || null, processId: pid, groupId: this.app.groupId });
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

/** The replayable part of a snapshot (PROTOCOL 2.1 hard and derived state). */
export function hardState(snapshot) {
  return snapshot.groups.map((g) => ({
    groupId: g.groupId,
    state: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    topologyId: g.topologyId,
    // kafka-4.2 describes the configured subtopologies (partition counts resolved) once a
    // refresh has run, which a rebuilt group does at its next operation: compare the stored part.
    topology: g.topology && !Array.isArray(g.topology)
      ? { epoch: g.topology.epoch, subtopologies: (g.topology.subtopologies ?? []).map((st) => st.subtopologyId) }
      : g.topology,
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
      data = parseJson(text);
    } catch (e) {
      const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('//'));
      data = lines.map((l, i) => {
        try {
          return parseJson(l);
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
      for (const k of ['actor', 'action', 'note', 'topology', 'topologyEpoch']) if (s[k] !== undefined) step[k] = s[k];
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
    const join42 = steps.find((s) => s.input?.request?.topology?.subtopologies);
    if (join42) {
      app.topology = join42.input.request.topology.subtopologies;
      app.topologyEpoch = join42.input.request.topology.epoch ?? 0;
    }
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
  const bytes = new TextEncoder().encode(toJson(scenario));
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
  return parseJson(new TextDecoder().decode(bytes));
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
    const c = errorName(res.errorCode, session.dialect);
    let then = '';
    if ([25, 69, 110].includes(res.errorCode)) then = ' The client drops all its tasks and rejoins with epoch 0 at its next heartbeat.';
    if ([82, 111].includes(res.errorCode) || (session.is42 && [130, 131, 132].includes(res.errorCode))) then = ' The Java client treats this as fatal: the instance stops.';
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

export function short(id) {
  if (!id) return '∅';
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
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

export { sameKeys };

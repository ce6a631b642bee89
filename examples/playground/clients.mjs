// The simulated Streams clients of the playground: one per member, driven step by step.

import { clientReaction, nextOwned } from './testing/simulation.mjs';
import { LIST, ROLES, emptyTasks, keysOf, minus, taskIdsOf } from './tasks.mjs';

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
 * The clients' side, following the rules of the package's simulation module (the testing tools'
 * members follow them too): one entry per simulated Kafka Streams member (a stream thread's heartbeat
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
  create({ label, instanceId = null, processId, clientHost, groupId = null, rackId = null }) {
    const hostIndex = this.processIds().indexOf(processId);
    const c = {
      label,
      groupId,
      instanceId,
      processId,
      rackId: rackId ?? this.list.find((x) => x.processId === processId)?.rackId ?? null,
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
      // The epoch it had before its current one (null until its epoch has moved once).
      prevEpoch: null,
      // Its last offset commit: `{action, memberId, memberEpoch, atMs, partitions: [{topic,
      // partition, offset, errorCode}], error}` (`error`: a refusal at the boundary).
      lastCommit: null,
      // After a crash: the member id, epoch and active tasks it last had, with which a zombie
      // (heartbeats stopped, process alive) still commits.
      zombie: null,
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
  apply(step, out, dialect = 'kip1071-draft') {
    if (step.event) return this.applyEvent(step);
    const input = step.input;
    if (input.type === 'OffsetCommit') return this.applyCommit(step, out);
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
      c.prevEpoch = null;
      // A join starts a new incarnation: the old one, zombie or not, is gone.
      c.zombie = null;
      if (req.topologyId) c.topologyId = req.topologyId;
      if (req.processId) c.processId = req.processId;
      if (req.instanceId) c.instanceId = req.instanceId;
      if (req.rackId) c.rackId = req.rackId;
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
      const reaction = clientReaction(res.errorCode, dialect);
      if (reaction === 'rejoin') {
        // A correct client drops all its tasks and rejoins with epoch 0.
        c.phase = 'rejoin';
        c.epoch = 0;
        c.owned = emptyTasks();
        c.assigned = emptyTasks();
      } else if (reaction === 'fatal') {
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
    if (c.epoch > 0 && res.memberEpoch !== c.epoch) c.prevEpoch = c.epoch;
    c.epoch = res.memberEpoch;
    if (res.activeTasks) {
      // New tasks are taken at once; tasks no longer listed are kept until revoked (the
      // client's *Revoke*), as the testing tools' members do (nextOwned).
      const owned = {};
      for (const r of ROLES) owned[LIST[r]] = taskIdsOf(c.owned[r]);
      const next = nextOwned(owned, { activeTasks: res.activeTasks, standbyTasks: res.standbyTasks, warmupTasks: res.warmupTasks });
      for (const r of ROLES) {
        c.assigned[r] = keysOf(res[LIST[r]]);
        c.owned[r] = keysOf(next.owned[LIST[r]]);
      }
    }
    if (res.shouldInitializeTopology) c.asked = true;
    if (typeof res.endpointInformationEpoch === 'number') c.endpointEpoch = res.endpointInformationEpoch;
    if (res.status) c.status = res.status;
    if (res.groupTopologyId !== null && res.groupTopologyId !== undefined) c.groupTopologyId = res.groupTopologyId;
    if (req.shutdownApplication) c.shutdownRequested = true;
  }

  /**
   * An offset commit's answer, kept as the client's last commit (by its actor, or for a loaded
   * scenario the client that has or had the member id). Like the testing tools' members, a
   * client only records a refusal: its heartbeats decide what it does next.
   */
  applyCommit(step, out) {
    const req = step.input.request ?? {};
    const c = step.actor ? this.get(step.actor) : req.memberId ? this.get(this.labelOf(req.memberId)) : null;
    if (!c) return;
    const offsets = new Map();
    for (const t of req.topics ?? []) for (const p of t.partitions ?? []) offsets.set(`${t.name}:${p.partitionIndex}`, p.committedOffset);
    const partitions = [];
    for (const t of out?.response?.topics ?? []) {
      for (const p of t.partitions) partitions.push({ topic: t.name, partition: p.partitionIndex, offset: offsets.get(`${t.name}:${p.partitionIndex}`) ?? null, errorCode: p.errorCode });
    }
    c.lastCommit = {
      action: step.action ?? 'commit',
      memberId: req.memberId ?? '',
      memberEpoch: req.generationIdOrMemberEpoch ?? -1,
      atMs: step.input.nowMs,
      partitions,
      error: out?.error ? { code: out.error.code, message: out.error.message ?? '' } : null,
    };
  }

  applyEvent(step) {
    const c = this.get(step.actor);
    if (step.event === 'crash' && c) {
      if (c.phase === 'member' && c.owned.active.length) c.zombie = { memberId: c.memberId, epoch: c.epoch, active: [...c.owned.active] };
      c.phase = 'crashed';
      c.owned = emptyTasks();
      c.assigned = emptyTasks();
      c.asked = false;
    }
  }
}

// Test tooling for Kafka Streams clients and brokers, without a broker (Node).
//
// A `Cluster` owns one coordinator, a virtual clock, a topic image and simulated members that
// behave like a correct Streams client of the kip1071-draft protocol. Faults can be injected;
// invariants are checked after every input (by default); every input and output is traced and
// can be saved as a scenario file in the tests/scenarios format.

import { readFileSync, writeFileSync } from 'node:fs';
import { Coordinator, ErrorCodes, topologyId as computeTopologyId } from '../node.mjs';
import { mismatch, runScenario, stringify } from '../scenario.mjs';
import { GroupView, InvariantError, checkSnapshot, clientReaction, nextOwned, shutdownRequested, taskKeys, tasksText } from './simulation.mjs';

export { mismatch, runScenario, stringify };
export { GroupView, InvariantError, checkSnapshot, taskKeys };

const { UNRELEASED_INSTANCE_ID, STREAMS_MISSING_SOURCE_TOPICS } = ErrorCodes;

/** A one-subtopology stateless topology reading `input`. */
export const DEFAULT_TOPOLOGY = Object.freeze([
  Object.freeze({ subtopologyId: '0', sourceTopics: Object.freeze(['input']) }),
]);

const EMPTY_OWNED = () => ({ activeTasks: [], standbyTasks: [], warmupTasks: [] });

function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

// ---------------------------------------------------------------------------------------------
// Simulated members

/**
 * A simulated Streams group member (one stream thread's consumer): it joins with epoch 0,
 * heartbeats on the interval the coordinator gives, initializes the topology when asked,
 * reports the tasks it owns when they changed, takes new tasks at once, closes revoked ones
 * (at once, or after `revocationMs`, owning them until then) and acknowledges at once, and
 * reacts to errors as `clientReaction` says (rejoin with epoch 0 after FENCED_MEMBER_EPOCH or
 * UNKNOWN_MEMBER_ID; stop on fatal errors). The playground's clients follow the same rules.
 */
export class SimulatedMember {
  constructor(cluster, options) {
    this.cluster = cluster;
    this.seq = options.seq;
    this.name = options.name;
    this.groupId = options.groupId;
    this.processId = options.processId;
    this.instanceId = options.instanceId ?? null;
    this.rackId = options.rackId ?? null;
    this.clientId = options.clientId ?? `${options.groupId}-${options.name}-consumer`;
    this.clientHost = options.clientHost ?? '/127.0.0.1';
    this.topology = options.topology;
    this.topologyId = options.topologyId ?? computeTopologyId(options.topology);
    this.rebalanceTimeoutMs = options.rebalanceTimeoutMs ?? 300000;
    this.userEndpoint = options.userEndpoint ?? null;
    this.clientTags = options.clientTags ?? null;
    /** `'retry'` keeps rejoining after UNRELEASED_INSTANCE_ID; `'fail'` (Java) stops. */
    this.onUnreleasedInstanceId = options.onUnreleasedInstanceId ?? 'fail';
    this.ackImmediately = options.ackImmediately ?? true;
    /**
     * How long closing revoked tasks takes (default 0: done before the next heartbeat). Until
     * then the member still owns and reports them; then it acknowledges at once.
     */
    this.revocationMs = options.revocationMs ?? 0;
    /** While revoking: the assigned lists and when closing the rest is done. */
    this.revoking = null;
    /** The member id: `""` until the coordinator gives one (unless chosen). */
    this.memberId = options.memberId ?? '';
    this.memberEpoch = 0;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5000;
    /** How often it reports task offsets (the coordinator's `taskOffsetIntervalMs`). */
    this.taskOffsetIntervalMs = 60000;
    /** When it last reported task offsets (null: at its next heartbeat). */
    this.offsetsReportedAt = null;
    /** What it owns: exactly what the last response with task lists assigned. */
    this.owned = EMPTY_OWNED();
    this.revoking = null;
    /**
     * `'running'` (joined or joining), `'restarting'` (down, will rejoin), `'crashed'`,
     * `'left'`, `'stopped'` (after a shutdown request) or `'failed'` (a fatal error).
     */
    this.status = 'running';
    /** When the member acts next (null when it does not). */
    this.dueAt = null;
    this.#due(cluster.now);
    this.inFlight = null;
    this.needsInitialize = false;
    this.shutdownRequested = false;
    this.lastResponse = null;
    this.lastStatus = [];
    this.lastError = null;
    this.errors = [];
    this.restarts = 0;
    this.immediateAcks = 0;
    /** The cluster's input count at the last successful heartbeat response. */
    this.lastOkInput = -1;
    /** Heartbeats sent while a fault was active and not yet followed by a response. */
    this.unsure = false;
    this.faults = { dropCount: 0, dropUntil: -1, delayMs: 0, delayCount: 0 };
    /** What the cluster's last invariant check saw it process (see `Cluster.checkInvariants`). */
    this.checkedOwned = null;
    this.checkedKeys = [];
    /** The owned tasks the coordinator last acknowledged, and those of the heartbeat in flight. */
    this.ackedOwned = null;
    this.sendingOwned = null;
    cluster.changed(this);
    this.ownedTextOf = null;
    this.ownedTextValue = '';
  }

  /** `tasksText(owned)`, kept until `owned` is replaced. */
  ownedText() {
    if (this.ownedTextOf !== this.owned) {
      this.ownedTextOf = this.owned;
      this.ownedTextValue = tasksText(this.owned);
    }
    return this.ownedTextValue;
  }

  // Plain fields, changed only through these helpers, so that the cluster hears of it (its
  // agenda of due members and its check of what clients process).
  #due(t) {
    this.dueAt = t;
    if (t !== null) this.cluster.schedule(this, t);
  }

  #own(tasks) {
    this.owned = tasks;
    this.cluster.changed(this);
  }

  #become(status) {
    this.status = status;
    this.cluster.changed(this);
  }

  #doubt(unsure) {
    if (unsure !== this.unsure) this.cluster.changed(this);
    this.unsure = unsure;
  }

  /** Whether the member heartbeats (joined or joining). */
  get running() {
    return this.status === 'running';
  }

  /** Whether the member is a static member. */
  get isStatic() {
    return this.instanceId !== null;
  }

  /** The owned tasks as `"sub:partition"` keys, by role. */
  ownedKeys() {
    return {
      active: taskKeys(this.owned.activeTasks),
      standby: taskKeys(this.owned.standbyTasks),
      warmup: taskKeys(this.owned.warmupTasks),
    };
  }

  // --- fault injection -----------------------------------------------------------------------

  /**
   * Loses heartbeats: the next `count` (default: all) or, with `{forMs}`, those sent in the
   * next `forMs` ms. The member does not notice and heartbeats on its interval.
   */
  dropHeartbeats(countOrOptions = Infinity) {
    if (typeof countOrOptions === 'number') {
      this.faults.dropCount = countOrOptions;
    } else {
      if (countOrOptions.count !== undefined) this.faults.dropCount = countOrOptions.count;
      if (countOrOptions.forMs !== undefined) {
        this.faults.dropUntil = this.cluster.now + countOrOptions.forMs;
      }
    }
    return this;
  }

  /** Delays heartbeats by `ms` on the way to the coordinator (the next `count`, default all). */
  delayHeartbeats(ms, { count = Infinity } = {}) {
    this.faults.delayMs = ms;
    this.faults.delayCount = count;
    return this;
  }

  /** Removes every injected fault. */
  clearFaults() {
    this.faults = { dropCount: 0, dropUntil: -1, delayMs: 0, delayCount: 0 };
    return this;
  }

  /** Stops heartbeating at once, without leaving (`kill -9`). It owns nothing afterwards. */
  crash() {
    this.cluster.log(`${this.name} crashes`);
    this.#become('crashed');
    this.#due(null);
    this.inFlight = null;
    this.#own(EMPTY_OWNED());
    this.revoking = null;
    return this;
  }

  /** Leaves the group with epoch -1 and stops. */
  leave() {
    this.#sendLeave(-1);
    this.#become('left');
    this.#due(null);
    return this;
  }

  /** Asks every member of the application to shut down, on the next heartbeat. */
  requestShutdown() {
    this.shutdownRequested = true;
    return this;
  }

  /**
   * Restarts the member. A running static member leaves with -2 (Kafka Streams' default on
   * close), a running dynamic one with -1; a crashed member sends nothing. After
   * `downtimeMs` it rejoins with epoch 0, under a new member id (`""`, generated by the
   * coordinator) unless `newMemberId` is false (keep the old id) or a string (that id).
   */
  restart({ downtimeMs = 0, newMemberId = true, processId } = {}) {
    if (this.status === 'running') {
      this.#sendLeave(this.isStatic ? -2 : -1);
    }
    this.cluster.log(`${this.name} restarts (down ${downtimeMs} ms)`);
    this.restarts += 1;
    this.#become('restarting');
    this.inFlight = null;
    this.#own(EMPTY_OWNED());
    this.revoking = null;
    this.needsInitialize = false;
    this.pendingRestart = { newMemberId, processId };
    this.#due(this.cluster.now + downtimeMs);
    return this;
  }

  /** Starts a crashed, left or failed member again (same options as `restart`). */
  start(options = {}) {
    if (this.status === 'running' || this.status === 'restarting') return this;
    this.#become('restarting');
    this.pendingRestart = { newMemberId: options.newMemberId ?? true, processId: options.processId };
    this.#due(this.cluster.now + (options.downtimeMs ?? 0));
    return this;
  }

  // --- protocol ------------------------------------------------------------------------------

  #input(request) {
    return {
      nowMs: this.cluster.now,
      type: 'StreamsGroupHeartbeat',
      client: { clientId: this.clientId, clientHost: this.clientHost },
      request,
    };
  }

  #joinRequest() {
    const r = {
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: 0,
    };
    if (this.instanceId !== null) r.instanceId = this.instanceId;
    if (this.rackId !== null) r.rackId = this.rackId;
    r.rebalanceTimeoutMs = this.rebalanceTimeoutMs;
    r.topologyId = this.topologyId;
    r.activeTasks = [];
    r.standbyTasks = [];
    r.warmupTasks = [];
    r.processId = this.processId;
    if (this.userEndpoint !== null) r.userEndpoint = this.userEndpoint;
    if (this.clientTags !== null) r.clientTags = this.clientTags;
    this.#addOffsets(r, true);
    return r;
  }

  #heartbeatRequest() {
    if (this.memberEpoch === 0) {
      this.sendingOwned = null;
      return this.#joinRequest();
    }
    const r = { groupId: this.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch };
    // Owned tasks go out when they changed since the coordinator last heard them, as the Java
    // client sends them; otherwise null ("unchanged", PROTOCOL 3.3).
    this.sendingOwned = this.owned;
    if (this.owned !== this.ackedOwned) {
      r.activeTasks = this.owned.activeTasks;
      r.standbyTasks = this.owned.standbyTasks;
      r.warmupTasks = this.owned.warmupTasks;
    }
    this.#addOffsets(r, false);
    if (this.shutdownRequested) r.shutdownApplication = true;
    return r;
  }

  /**
   * With the cluster's `reportLag`, the changelog offsets of the stateful tasks whose state
   * its process holds (`taskOffsets`) and the end offsets of those tasks (`taskEndOffsets`),
   * as a Kafka Streams client reports them: on a join and then every `taskOffsetIntervalMs`.
   */
  #addOffsets(r, joining) {
    if (!this.cluster.reportLag) return;
    const now = this.cluster.now;
    if (!joining && this.offsetsReportedAt !== null && now - this.offsetsReportedAt < this.taskOffsetIntervalMs) return;
    this.offsetsReportedAt = now;
    const { taskOffsets, taskEndOffsets } = this.cluster.taskOffsetsOf(this);
    r.taskOffsets = taskOffsets;
    r.taskEndOffsets = taskEndOffsets;
  }

  #sendLeave(epoch) {
    if (this.memberId === '' || (this.memberEpoch === 0 && this.lastResponse === null)) {
      return null;
    }
    const r = { groupId: this.groupId, memberId: this.memberId, memberEpoch: epoch };
    if (this.instanceId !== null) r.instanceId = this.instanceId;
    this.cluster.log(`${this.name} leaves with epoch ${epoch}`);
    const out = this.cluster.send(this.#input(r));
    this.#own(EMPTY_OWNED());
    this.revoking = null;
    this.inFlight = null;
    if (out.response && out.response.errorCode === 0) this.memberEpoch = out.response.memberEpoch;
    return out;
  }

  /** Called by the cluster when `dueAt` has come. */
  act() {
    const now = this.cluster.now;
    if (this.status === 'restarting') {
      const { newMemberId, processId } = this.pendingRestart ?? {};
      if (newMemberId === true) this.memberId = '';
      else if (typeof newMemberId === 'string') this.memberId = newMemberId;
      if (processId !== undefined) this.processId = processId;
      this.pendingRestart = null;
      this.memberEpoch = 0;
      this.#own(EMPTY_OWNED());
      this.revoking = null;
      this.lastResponse = null;
      this.offsetsReportedAt = null;
      this.#become('running');
    }
    if (this.status !== 'running') {
      this.#due(null);
      return;
    }
    if (this.revoking !== null && now >= this.revoking.doneAt) {
      // The revoked tasks are closed: it owns what it was assigned.
      this.#own(this.revoking.assigned);
      this.revoking = null;
    }
    if (this.inFlight !== null) {
      // A delayed heartbeat arrives now.
      const input = this.inFlight;
      this.inFlight = null;
      input.nowMs = now;
      this.#deliver(input);
      return;
    }
    const input = this.#input(this.#heartbeatRequest());
    const f = this.faults;
    if (f.dropCount > 0 || now < f.dropUntil) {
      if (f.dropCount > 0) f.dropCount -= 1;
      this.#doubt(true);
      this.ackedOwned = null;
      this.cluster.log(`${this.name}: heartbeat (epoch ${this.memberEpoch}) lost`);
      this.#due(now + this.heartbeatIntervalMs);
      return;
    }
    if (f.delayMs > 0 && f.delayCount > 0) {
      f.delayCount -= 1;
      this.#doubt(true);
      this.inFlight = input;
      this.#due(now + f.delayMs);
      return;
    }
    this.#deliver(input);
  }

  #deliver(input) {
    const now = this.cluster.now;
    const out = this.cluster.send(input);
    if (out.error) {
      throw new InvariantError(
        `${this.name}: the coordinator could not understand a simulated heartbeat: ` +
          `${out.error.code} at ${out.error.path}: ${out.error.message}`,
      );
    }
    this.absorb(out.response);
    if (this.status === 'running' && this.needsInitialize) this.#initialize();
    if (this.status === 'running' && this.dueAt === null) {
      this.#due(now + this.heartbeatIntervalMs);
    }
  }

  #initialize() {
    const out = this.cluster.send({
      nowMs: this.cluster.now,
      type: 'StreamsGroupInitialize',
      client: { clientId: this.clientId, clientHost: this.clientHost },
      request: { groupId: this.groupId, topologyId: this.topologyId, topology: clone(this.topology) },
    });
    const code = out.response?.errorCode;
    if (code === 0) {
      this.needsInitialize = false;
    } else if (code !== STREAMS_MISSING_SOURCE_TOPICS) {
      // Retried after the next heartbeat only while source topics are missing.
      this.needsInitialize = false;
      this.#error(code, out.response?.errorMessage ?? out.error?.message, 'initialize');
    }
  }

  #error(code, message, during) {
    this.lastError = { code, message, during, atMs: this.cluster.now };
    this.errors.push(this.lastError);
    this.cluster.log(`${this.name}: error ${code} (${during}): ${message}`);
  }

  /** What a correct client does with a heartbeat response. */
  absorb(r) {
    const now = this.cluster.now;
    this.#due(null);
    this.lastResponse = r;
    if (r.errorCode === 0) {
      this.#doubt(false);
      this.ackedOwned = this.sendingOwned;
      this.lastOkInput = this.cluster.inputCount;
      if (r.memberId !== null) this.memberId = r.memberId;
      this.memberEpoch = r.memberEpoch;
      if (r.heartbeatIntervalMs > 0) this.heartbeatIntervalMs = r.heartbeatIntervalMs;
      if (r.taskOffsetIntervalMs > 0) this.taskOffsetIntervalMs = r.taskOffsetIntervalMs;
      if (r.status !== null) this.lastStatus = r.status;
      if (r.shouldInitializeTopology) this.needsInitialize = true;
      let changed = false;
      if (r.activeTasks !== null) {
        const assigned = { activeTasks: r.activeTasks, standbyTasks: r.standbyTasks, warmupTasks: r.warmupTasks };
        const before = this.ownedText();
        const next = nextOwned(this.owned, assigned);
        if (next.revoking && this.revocationMs > 0) {
          this.#own(next.owned);
          this.revoking = { assigned, doneAt: now + this.revocationMs };
        } else {
          this.#own(assigned);
          this.revoking = null;
        }
        changed = this.ownedText() !== before;
      }
      if (shutdownRequested(this.lastStatus)) {
        this.cluster.log(`${this.name}: the application shuts down`);
        this.#sendLeave(-1);
        this.#become('stopped');
        return;
      }
      // A client acknowledges a finished reconciliation at once (bounded, to avoid storms).
      if (changed && this.ackImmediately && this.immediateAcks < 3) {
        this.immediateAcks += 1;
        this.#due(this.revoking === null ? now : Math.min(this.revoking.doneAt, now + this.heartbeatIntervalMs));
      } else {
        this.immediateAcks = 0;
        this.#due(now + this.heartbeatIntervalMs);
      }
      return;
    }
    this.#error(r.errorCode, r.errorMessage, 'heartbeat');
    this.ackedOwned = null;
    const reaction = r.errorCode === UNRELEASED_INSTANCE_ID && this.onUnreleasedInstanceId === 'retry'
      ? 'retry-join'
      : clientReaction(r.errorCode);
    switch (reaction) {
      case 'rejoin':
        // Drop every task and rejoin with the same member id at once.
        this.#own(EMPTY_OWNED());
        this.revoking = null;
        this.memberEpoch = 0;
        this.needsInitialize = false;
        this.#due(now);
        return;
      case 'retry-join':
        this.memberEpoch = 0;
        this.#due(now + this.heartbeatIntervalMs);
        return;
      case 'retry':
        this.#due(now + this.heartbeatIntervalMs);
        return;
      default:
        // FENCED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED, INVALID_REQUEST, ...: fatal.
        this.#fail();
    }
  }

  #fail() {
    this.#become('failed');
    this.#own(EMPTY_OWNED());
    this.revoking = null;
    this.#due(null);
  }
}

// ---------------------------------------------------------------------------------------------
// The cluster

/** JSON text of an input: JSON.stringify's, or `stringify`'s where it holds BigInts. */
function toText(input) {
  try {
    return JSON.stringify(input);
  } catch (e) {
    if (e instanceof TypeError) return stringify(input);
    throw e;
  }
}

/** Whether agenda entry `a` comes before `b`: by time, then start order. */
function earlier(a, b) {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}

/** A binary min-heap of `{t, seq, member}` by time, then start order. */
class Agenda {
  #heap = [];

  push(t, seq, member) {
    const h = this.#heap;
    h.push({ t, seq, member });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!earlier(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  peek() {
    return this.#heap[0];
  }

  pop() {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && earlier(h[l], h[m])) m = l;
        if (r < h.length && earlier(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}

/**
 * One coordinator with a virtual clock, a topic image and simulated members.
 *
 * Options: `config` (coordinator settings), `groupId` (default `'app'`), `topology` (default
 * for members; `DEFAULT_TOPOLOGY`), `topics` (`{name: partitions}` created at the start),
 * `startMs` (0), `autoCreateTopics` (create `topicsToCreate` at once, like a broker; true),
 * `checkInvariants` (after every input; true), `trace` (keep every input and output; true),
 * `name` / `description` (for `toScenario`), `log` (a function receiving event lines).
 */
export class Cluster {
  constructor(options = {}) {
    this.config = options.config ?? {};
    this.groupId = options.groupId ?? 'app';
    this.topology = options.topology ?? DEFAULT_TOPOLOGY;
    this.now = options.startMs ?? 0;
    this.autoCreateTopics = options.autoCreateTopics ?? true;
    this.checkEveryInput = options.checkInvariants ?? true;
    this.tracing = options.trace ?? true;
    this.name = options.name ?? 'simulated cluster';
    this.description = options.description ?? 'Recorded by streams-group-coordinator/testing.';
    this.logger = options.log ?? null;
    this.coordinator = new Coordinator(this.config);
    /** Every input sent and its output text, in order. */
    this.trace = [];
    /** Event lines (joins, faults, errors), with their times. */
    this.events = [];
    /** Every explain entry, with the time of its output. */
    this.explanations = [];
    this.topics = new Map();
    this.members = new Map();
    this.nextDeadlineMs = null;
    this.inputCount = 0;
    /** Every group as the records say, with the coordinator's invariants kept incrementally. */
    this.view = new GroupView({ dialect: this.config.dialect });
    /** Epochs that went back since the last check (events; the state cannot show them). */
    this.pendingViolations = [];
    /** Active task -> names of running clients that process it (see `checkInvariants`). */
    this.clientOwners = new Map();
    this.clientConflicts = new Set();
    /** Members report task offsets and end offsets (`reportLag`); see `taskOffsetsOf`. */
    this.reportLag = options.reportLag ?? false;
    /** Offsets per second a standby or warm-up copy restores (default: caught up at once). */
    this.restoreRate = options.restoreRate ?? Infinity;
    /** Changelog end offset per stateful task (`"sub:partition"`); 0 when not set. */
    this.endOffsets = new Map();
    /** Per process id: task -> `{offset, atMs}`, the state its local store holds. */
    this.localState = new Map();
    /** The input count after the last input that makes groups look at topics again. */
    this.lastRefreshInput = 0;
    /** `'never'`, `'stable'` or `'input'`: when to compare `view` with a snapshot. */
    this.verifyView = options.verifyView ?? 'never';
    /** Members whose owned tasks, status or certainty changed since the last check. */
    this.dirty = new Set();
    /** When members are due: a heap of `{t, seq, member}`. */
    this.agenda = new Agenda();
    this.seq = 0;
    const topics = options.topics ?? {};
    const specs = Object.entries(topics).map(([name, partitions]) => ({ name, partitions }));
    if (specs.length > 0) {
      for (const s of specs) this.topics.set(s.name, s.partitions);
      this.send({ nowMs: this.now, type: 'TopicMetadata', topics: specs, deletedTopics: [] });
    }
  }

  log(line) {
    const entry = { atMs: this.now, line };
    this.events.push(entry);
    if (this.logger) this.logger(`[${this.now}] ${line}`);
  }

  /**
   * Sends one input (its `nowMs` is set to the clock when absent) and returns the parsed
   * output. Internal topics the output asks for are created at once when `autoCreateTopics`.
   * Invariants are checked afterwards when `checkInvariants`.
   */
  send(input) {
    let full = input;
    if (input.nowMs === undefined) {
      const { nowMs: _ignored, ...rest } = input;
      full = { nowMs: this.now, ...rest };
    }
    const inputText = toText(full);
    const text = this.coordinator.handle(inputText);
    this.inputCount += 1;
    // A copy of the input (parsed from the text sent), so that later changes to the caller's
    // object do not rewrite the trace.
    if (this.tracing) this.trace.push({ input: JSON.parse(inputText), output: text });
    const out = JSON.parse(text);
    if (!out.error) {
      // What every member learns only at its next heartbeat: topic changes (statuses, new
      // tasks), a Replay's records, a shutdown request.
      if (full.type === 'TopicMetadata' || full.type === 'Replay' || full.request?.shutdownApplication) {
        this.lastRefreshInput = this.inputCount;
      }
      if (full.type === 'Replay') this.view.load(this.coordinator.snapshot());
      else if (out.records.length > 0) for (const v of this.view.apply(out.records)) this.pendingViolations.push(v);
      this.nextDeadlineMs = out.nextDeadlineMs;
      for (const e of out.explain) {
        const timed = { atMs: this.now };
        for (const k in e) timed[k] = e[k];
        this.explanations.push(timed);
      }
      if (this.autoCreateTopics && out.topicsToCreate.length > 0) {
        const specs = out.topicsToCreate.filter((t) => !this.topics.has(t.name))
          .map((t) => ({ name: t.name, partitions: t.numPartitions }));
        if (specs.length > 0) {
          for (const s of specs) this.topics.set(s.name, s.partitions);
          this.log(`creates internal topics ${specs.map((s) => s.name).join(', ')}`);
          this.send({ nowMs: this.now, type: 'TopicMetadata', topics: specs, deletedTopics: [] });
        }
      }
    }
    if (this.checkEveryInput) this.assertInvariants(`after input ${this.inputCount} (${full.type})`);
    if (this.verifyView === 'input') this.assertViewMatchesSnapshot();
    return out;
  }

  // --- topics --------------------------------------------------------------------------------

  /** Creates (or re-reports) a topic. `options`: `topicId`, `racks`. */
  createTopic(name, partitions, options = {}) {
    this.topics.set(name, partitions);
    this.log(`topic ${name} with ${partitions} partitions`);
    return this.send({
      nowMs: this.now,
      type: 'TopicMetadata',
      topics: [{ name, partitions, ...options }],
      deletedTopics: [],
    });
  }

  /** Adds `count` partitions to a topic. */
  addPartitions(name, count) {
    const current = this.topics.get(name);
    if (current === undefined) throw new Error(`no topic ${name}`);
    return this.createTopic(name, current + count);
  }

  /** Deletes a topic. */
  deleteTopic(name) {
    this.topics.delete(name);
    this.log(`topic ${name} deleted`);
    return this.send({ nowMs: this.now, type: 'TopicMetadata', topics: [], deletedTopics: [name] });
  }

  // --- members -------------------------------------------------------------------------------

  /**
   * Adds a simulated member; it joins at the current time (on the next `advance`). Options:
   * `name`, `processId`, `instanceId` (static), `memberId` (chosen id), `groupId`, `topology`,
   * `topologyId`, `rackId`, `clientId`, `clientHost`, `rebalanceTimeoutMs`, `userEndpoint`,
   * `clientTags`, `onUnreleasedInstanceId` (`'fail'` or `'retry'`), `ackImmediately`.
   */
  addMember(options = {}) {
    const seq = this.seq++;
    const name = options.name ?? `member-${seq}`;
    if (this.members.has(name)) throw new Error(`a member named ${name} exists`);
    const member = new SimulatedMember(this, {
      groupId: this.groupId,
      processId: options.processId ?? `process-${seq}`,
      topology: this.topology,
      heartbeatIntervalMs: this.config['group.streams.heartbeat.interval.ms'],
      ...options,
      name,
      seq,
    });
    this.members.set(name, member);
    this.log(`${name} starts (process ${member.processId}${member.isStatic ? `, instance ${member.instanceId}` : ''})`);
    return member;
  }

  /**
   * Adds a Kafka Streams process with `threads` members sharing one process id. Static
   * processes give each thread the instance id `${instanceId}-${n}` (1-based, as Kafka
   * Streams does). Returns the members.
   */
  addProcess({ processId, threads = 1, instanceId = null, ...rest } = {}) {
    const pid = processId ?? `process-${this.seq}`;
    const members = [];
    for (let n = 1; n <= threads; n++) {
      members.push(this.addMember({
        ...rest,
        name: `${pid}-StreamThread-${n}`,
        clientId: `${this.groupId}-${pid}-StreamThread-${n}-consumer`,
        processId: pid,
        instanceId: instanceId === null ? null : `${instanceId}-${n}`,
      }));
    }
    return members;
  }

  /** The member named `name`. */
  member(name) {
    const m = this.members.get(name);
    if (m === undefined) throw new Error(`no member named ${name}`);
    return m;
  }

  /** Members of a process. */
  process(processId) {
    return [...this.members.values()].filter((m) => m.processId === processId);
  }

  /** Restarts every member of a process (see `SimulatedMember.restart`). */
  restartProcess(processId, options = {}) {
    for (const m of this.process(processId)) m.restart(options);
  }

  /** Crashes every member of a process. */
  crashProcess(processId) {
    for (const m of this.process(processId)) m.crash();
  }

  /** Members whose `rackId` is `rackId`. */
  rack(rackId) {
    return [...this.members.values()].filter((m) => m.rackId === rackId);
  }

  /** Crashes every member of a rack (a zone or data centre goes away). */
  crashRack(rackId) {
    this.log(`rack ${rackId} fails`);
    for (const m of this.rack(rackId)) if (m.running) m.crash();
  }

  /** Starts every member of a rack again (see `SimulatedMember.start`). */
  startRack(rackId, options = {}) {
    for (const m of this.rack(rackId)) m.start(options);
  }

  // --- lag -----------------------------------------------------------------------------------

  /** Stateful tasks (`"sub:partition"`) of the cluster's topology over its topic image. */
  statefulTasks() {
    const keys = [];
    for (const st of this.topology) {
      if ((st.stateChangelogTopics ?? []).length === 0) continue;
      let n = 0;
      for (const t of [...(st.sourceTopics ?? []), ...(st.repartitionSourceTopics ?? []).map((r) => r.name)]) {
        n = Math.max(n, this.topics.get(t) ?? 0);
      }
      for (let p = 0; p < n; p++) keys.push(`${st.subtopologyId}:${p}`);
    }
    return keys;
  }

  /**
   * Sets changelog end offsets: `{"sub:partition": offset}` for some tasks, or a number for
   * every stateful task. Members report them (with `reportLag`) at their next report.
   */
  setEndOffsets(offsets) {
    if (typeof offsets === 'number') for (const k of this.statefulTasks()) this.endOffsets.set(k, offsets);
    else for (const [k, v] of Object.entries(offsets)) this.endOffsets.set(k, v);
    return this;
  }

  /** Adds `delta` to every stateful task's end offset (records written to the changelogs). */
  addEndOffsets(delta) {
    for (const k of this.statefulTasks()) this.endOffsets.set(k, (this.endOffsets.get(k) ?? 0) + delta);
    return this;
  }

  /**
   * What `member` reports (PROTOCOL 3.3 `taskOffsets`, `taskEndOffsets`): for each stateful
   * task it holds, the offset its process's store has restored (an active task is caught up;
   * a standby or warm-up copy restores `restoreRate` offsets per second) and the end offset;
   * the process's first running thread also reports the stores of tasks no thread holds
   * (state kept on disk, e.g. across a restart).
   */
  taskOffsetsOf(member) {
    const now = this.now;
    const stateful = new Set(this.statefulTasks());
    let store = this.localState.get(member.processId);
    if (store === undefined) this.localState.set(member.processId, (store = new Map()));
    const held = new Set();
    const roles = [['active', member.owned.activeTasks], ['copy', member.owned.standbyTasks], ['copy', member.owned.warmupTasks]];
    for (const [role, list] of roles) {
      for (const key of taskKeys(list)) {
        if (!stateful.has(key)) continue;
        held.add(key);
        const end = this.endOffsets.get(key) ?? 0;
        const s = store.get(key) ?? { offset: 0, atMs: now };
        const offset = role === 'active' ? end : Math.min(end, s.offset + (this.restoreRate * (now - s.atMs)) / 1000);
        store.set(key, { offset: Math.floor(offset), atMs: now });
      }
    }
    const threads = this.process(member.processId).filter((m) => m.running);
    if (threads[0] === member) {
      const heldByProcess = new Set(threads.flatMap((m) => [...taskKeys(m.owned.activeTasks), ...taskKeys(m.owned.standbyTasks), ...taskKeys(m.owned.warmupTasks)]));
      for (const key of store.keys()) if (!heldByProcess.has(key)) held.add(key);
    }
    const sorted = [...held].sort((a, b) => {
      const [sa, pa] = a.split(':');
      const [sb, pb] = b.split(':');
      return sa === sb ? Number(pa) - Number(pb) : (sa < sb ? -1 : 1);
    });
    const entry = (key, offset) => {
      const i = key.lastIndexOf(':');
      return { subtopologyId: key.slice(0, i), partition: Number(key.slice(i + 1)), offset };
    };
    return {
      taskOffsets: sorted.map((k) => entry(k, store.get(k).offset)),
      taskEndOffsets: sorted.map((k) => entry(k, this.endOffsets.get(k) ?? 0)),
    };
  }

  /** Members that heartbeat. */
  runningMembers() {
    return [...this.members.values()].filter((m) => m.running);
  }

  // --- time ----------------------------------------------------------------------------------

  /** Called by a member whose `dueAt` became `t`. */
  schedule(member, t) {
    this.agenda.push(t, member.seq, member);
  }

  /** Called by a member whose owned tasks, status or certainty changed. */
  changed(member) {
    this.dirty.add(member);
  }

  /** The earliest time a member is due, or null (entries a member rescheduled are dropped). */
  #nextMemberAt() {
    for (;;) {
      const top = this.agenda.peek();
      if (top === undefined) return null;
      if (top.member.dueAt === top.t) return top.t;
      this.agenda.pop();
    }
  }

  #nextEventAt() {
    const t = this.#nextMemberAt();
    if (this.nextDeadlineMs !== null && (t === null || this.nextDeadlineMs < t)) return this.nextDeadlineMs;
    return t;
  }

  /** Members due at or before the clock, in start order (each once). */
  #dueMembers() {
    const due = new Set();
    for (;;) {
      const top = this.agenda.peek();
      if (top === undefined || top.t > this.now) break;
      this.agenda.pop();
      if (top.member.dueAt === top.t) due.add(top.member);
    }
    // In start order (a plain insertion sort: the list is short).
    const out = [];
    for (const m of due) {
      let i = out.length;
      while (i > 0 && out[i - 1].seq > m.seq) i -= 1;
      out.splice(i, 0, m);
    }
    return out;
  }

  /** Runs every event due at the earliest pending time if it is at or before `limit`. */
  #step(limit) {
    const t = this.#nextEventAt();
    if (t === null || t > limit) return false;
    this.now = Math.max(this.now, t);
    // Members act in start order; one acting may make another (or itself) due again now.
    let round = 0;
    for (;;) {
      const due = this.#dueMembers();
      if (due.length === 0) break;
      if (++round > 1000) {
        throw new InvariantError(`members keep acting at ${this.now} ms: ${due.map((m) => m.name).join(', ')}`);
      }
      for (const m of due) if (m.dueAt !== null && m.dueAt <= this.now) m.act();
    }
    // Timers that no member's input fired: tell the coordinator the time.
    if (this.nextDeadlineMs !== null && this.nextDeadlineMs <= this.now) {
      this.send({ nowMs: this.now, type: 'AdvanceTime' });
      if (this.nextDeadlineMs !== null && this.nextDeadlineMs <= this.now) {
        throw new InvariantError(`the coordinator still reports a deadline at ${this.nextDeadlineMs} after AdvanceTime at ${this.now}`);
      }
    }
    return true;
  }

  /**
   * Moves the virtual clock forward by `ms`, running every member heartbeat and coordinator
   * timer that falls due on the way, in time order.
   */
  advance(ms) {
    const until = this.now + ms;
    while (this.#step(until)) { /* next event */ }
    this.now = until;
    return this;
  }

  /** Runs until the virtual clock reaches `timeMs`. */
  advanceTo(timeMs) {
    return this.advance(Math.max(0, timeMs - this.now));
  }

  /** Advances event by event until `predicate(cluster)` holds; throws after `maxMs`. */
  runUntil(predicate, { maxMs = 600000, what = 'the condition' } = {}) {
    const deadline = this.now + maxMs;
    const start = this.now;
    while (!predicate(this)) {
      if (!this.#step(deadline)) {
        this.now = deadline;
        if (predicate(this)) break;
        throw new InvariantError(`${what} did not hold within ${maxMs} ms`);
      }
    }
    return { atMs: this.now, elapsedMs: this.now - start };
  }

  /**
   * Runs until the group has converged: every running member has heartbeated successfully
   * since the last input whose effect members learn only from their next heartbeat (a topic
   * change, a `Replay`, a shutdown request), the coordinator says `STABLE` with
   * every member at the assignment epoch, its members are exactly the running (and
   * restarting) simulated members, and each of those is at the coordinator's epoch and owns
   * exactly what the coordinator assigned it. Throws (with the reasons) after `maxMs`.
   */
  runUntilStable({ maxMs = 600000, groupId = this.groupId } = {}) {
    // Groups look at topic changes (and a Replay's records) at a member's next heartbeat, and
    // members learn the outcome (and a shutdown request) at theirs: each must have heartbeated
    // since. Anything else that is not settled shows in the state or in a member's epoch and
    // tasks, so a converged group needs no further round of heartbeats.
    const heardSinceRefresh = () => {
      for (const m of this.members.values()) {
        if (m.groupId === groupId && m.running && m.lastOkInput <= this.lastRefreshInput) return false;
      }
      return true;
    };
    const ready = () =>
      this.view.state(groupId) === 'STABLE' && this.unstableReasons(groupId).length === 0 && heardSinceRefresh();
    let result;
    try {
      result = this.runUntil(ready, { maxMs, what: `group ${groupId} stable` });
    } catch (e) {
      if (e instanceof InvariantError) {
        const reasons = this.unstableReasons(groupId);
        throw new InvariantError(`${e.message}: ${reasons.slice(0, 10).join('; ') || 'members have not heartbeated'}`, reasons);
      }
      throw e;
    }
    if (this.verifyView === 'stable') this.assertViewMatchesSnapshot();
    return result;
  }

  /**
   * Why the group has not converged (empty when it has); see `runUntilStable`. Read from the
   * records (`view`), which `runUntilStable` checks against the coordinator's snapshot once
   * the group has converged.
   */
  unstableReasons(groupId = this.groupId) {
    const reasons = [];
    const g = this.view.group(groupId);
    const sims = [];
    for (const m of this.members.values()) {
      if (m.groupId === groupId && (m.running || m.status === 'restarting')) sims.push(m);
    }
    if (g === null) {
      if (sims.length > 0) reasons.push(`group ${groupId} does not exist`);
      return reasons;
    }
    const state = this.view.state(groupId);
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

  // --- views and checks ----------------------------------------------------------------------

  /** The coordinator's snapshot. */
  snapshot() {
    return this.coordinator.snapshot();
  }

  /** A group of the snapshot, or null. */
  group(groupId = this.groupId) {
    return this.snapshot().groups.find((g) => g.groupId === groupId) ?? null;
  }

  /** Sends a `StreamsGroupDescribe` and returns the group's description. */
  describe(groupId = this.groupId) {
    return this.send({ nowMs: this.now, type: 'StreamsGroupDescribe', request: { groupIds: [groupId] } })
      .response.groups[0];
  }

  /**
   * Throws unless the groups as the records say (`view`) are the coordinator's groups as its
   * snapshot shows them (epochs, states, members, their epochs, states, processes and tasks).
   */
  assertViewMatchesSnapshot() {
    const diff = this.view.differences(this.snapshot());
    if (diff.length > 0) {
      throw new InvariantError(`the records and the coordinator's snapshot disagree at ${this.now} ms: ${diff.slice(0, 10).join('; ')}`, diff);
    }
  }

  /**
   * The violated invariants (empty when all hold): no task with two active owners (assigned
   * or pending revocation), no process targeted two copies of a task, assignment epoch <=
   * group epoch, no group, assignment or member epoch gone back since the last check (all
   * kept from the records as they come, so a check costs what changed, not the group's size),
   * plus no active task owned by two running simulated members that have heard from the
   * coordinator since their last lost or delayed heartbeat.
   */
  checkInvariants() {
    const violations = this.pendingViolations.splice(0);
    violations.push(...this.view.violations());
    for (const m of this.dirty) {
      const owned = m.running && !m.unsure ? m.owned : null;
      if (owned === m.checkedOwned) continue;
      for (const key of m.checkedKeys) {
        const names = this.clientOwners.get(key);
        names.delete(m.name);
        if (names.size === 0) this.clientOwners.delete(key);
        if (names.size < 2) this.clientConflicts.delete(key);
      }
      m.checkedOwned = owned;
      m.checkedKeys = owned === null ? [] : taskKeys(owned.activeTasks).map((k) => `${m.groupId}\u0000${k}`);
      for (const key of m.checkedKeys) {
        let names = this.clientOwners.get(key);
        if (names === undefined) this.clientOwners.set(key, (names = new Set()));
        names.add(m.name);
        if (names.size > 1) this.clientConflicts.add(key);
      }
    }
    this.dirty.clear();
    for (const key of this.clientConflicts) {
      const [a, b] = [...this.clientOwners.get(key)];
      violations.push(`clients ${a} and ${b} both process active task ${key.split('\u0000')[1]}`);
    }
    return violations;
  }

  /** Throws an `InvariantError` listing every violated invariant. */
  assertInvariants(context = '') {
    const violations = this.checkInvariants();
    if (violations.length > 0) {
      throw new InvariantError(
        `invariants violated${context ? ` ${context}` : ''} at ${this.now} ms: ${violations.join('; ')}`,
        violations,
      );
    }
  }

  /** Throws unless the group has converged (see `runUntilStable`). */
  assertStable(groupId = this.groupId) {
    const reasons = this.unstableReasons(groupId);
    if (reasons.length > 0) {
      throw new InvariantError(`group ${groupId} is not stable at ${this.now} ms: ${reasons.slice(0, 10).join('; ')}`, reasons);
    }
  }

  // --- scenarios -----------------------------------------------------------------------------

  /**
   * The trace as a scenario (`{name, description, config, steps}`). `expect`: `'full'` (the
   * whole output, the default), `'response'` (the response only), `'none'`, or a function
   * `(output, input, index) => expect | undefined`.
   */
  toScenario({ name = this.name, description = this.description, expect = 'full' } = {}) {
    const steps = this.trace.map(({ input, output }, i) => {
      const step = { input: clone(input) };
      const parsed = JSON.parse(output);
      let e;
      if (typeof expect === 'function') e = expect(parsed, input, i);
      else if (expect === 'full') e = parsed;
      else if (expect === 'response') e = parsed.error ? parsed : { response: parsed.response };
      if (e !== undefined) step.expect = e;
      return step;
    });
    return { name, description, config: clone(this.config), steps };
  }

  /** Writes `toScenario(options)` to `path` as JSON. */
  saveScenario(path, options = {}) {
    writeFileSync(path, `${JSON.stringify(this.toScenario(options), null, 1)}\n`);
    return path;
  }

  /** Frees the coordinator. */
  close() {
    this.coordinator.free();
  }
}

/** Reads a scenario file. */
export function loadScenario(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Runs a scenario file (or object) through a fresh coordinator of this package. */
export function runScenarioFile(pathOrScenario) {
  const scenario = typeof pathOrScenario === 'string' ? loadScenario(pathOrScenario) : pathOrScenario;
  return runScenario(scenario, Coordinator);
}

/** A new cluster (see `Cluster`). */
export function createCluster(options) {
  return new Cluster(options);
}

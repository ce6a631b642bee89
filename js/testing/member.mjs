// A simulated Kafka Streams member (one stream thread's consumer), driven by a `Cluster`
// (cluster.mjs): what it sends in the cluster's dialect (the kip1071-draft protocol, or a
// released Kafka's), and what a correct client does with each response. Its heartbeats can be
// lost or delayed (faults.mjs). It commits offsets as a Streams client does (`commit`).

import { ErrorCodesByDialect, topologyId as computeTopologyId } from '../node.mjs';
import { HeartbeatFaults } from './faults.mjs';
import { clone } from './json.mjs';
import { InvariantError, clientReaction, nextOwned, shutdownRequested, taskKeys, tasksText } from './simulation.mjs';

const { UNRELEASED_INSTANCE_ID, STREAMS_MISSING_SOURCE_TOPICS } = ErrorCodesByDialect['kip1071-draft'];
/** Released Kafkas that refuse task offsets in a heartbeat (the differences file, 4.2 and 4.3). */
const NO_TASK_OFFSETS = new Set(['kafka-4.2', 'kafka-4.3']);

const EMPTY_OWNED = () => ({ activeTasks: [], standbyTasks: [], warmupTasks: [] });

/**
 * A simulated Streams group member (one stream thread's consumer): it joins with epoch 0,
 * heartbeats on the interval the coordinator gives, initializes the topology when asked,
 * reports the tasks it owns when they changed, takes new tasks at once, closes revoked ones
 * (at once, or after `revocationMs`, owning them until then) and acknowledges at once, and
 * reacts to errors as `clientReaction` says (rejoin with epoch 0 after FENCED_MEMBER_EPOCH or
 * UNKNOWN_MEMBER_ID; stop on fatal errors). The playground's clients follow the same rules.
 *
 * In a released Kafka's dialect (`kafka-*`) it speaks that release's heartbeat: it chooses its
 * own member id (Kafka refuses an empty one), sends its topology with each join (there is no
 * `StreamsGroupInitialize`), echoes the endpoint information epoch, and sends task offsets
 * only where the release accepts them (4.4).
 */
export class SimulatedMember {
  constructor(cluster, options) {
    this.cluster = cluster;
    this.dialect = cluster.config.dialect ?? 'kip1071-draft';
    this.kafka = String(this.dialect).startsWith('kafka-');
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
    /** How many member ids it has chosen (a released Kafka's client chooses its own). */
    this.incarnation = 0;
    this.memberEpoch = 0;
    /** The endpoint information epoch of the last response (released Kafka's dialects). */
    this.endpointInformationEpoch = -1;
    /**
     * Commits every `commitIntervalMs` (at its first successful heartbeat after each interval,
     * as Streams' `commit.interval.ms`); null: only when `commit` is called.
     */
    this.commitIntervalMs = options.commitIntervalMs ?? null;
    this.committedAt = null;
    /** Every commit it sent: `{atMs, memberEpoch, offsets: {"topic:partition": offset}, errors}`. */
    this.commits = [];
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
    /** Faults injected into its heartbeats (`dropHeartbeats`, `delayHeartbeats`). */
    this.faults = new HeartbeatFaults();
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
    this.faults.drop(countOrOptions, this.cluster.now);
    return this;
  }

  /** Delays heartbeats by `ms` on the way to the coordinator (the next `count`, default all). */
  delayHeartbeats(ms, { count = Infinity } = {}) {
    this.faults.delay(ms, count);
    return this;
  }

  /** Removes every injected fault. */
  clearFaults() {
    this.faults = new HeartbeatFaults();
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
   * The partitions its owned active tasks read (the task's partition of each source topic of
   * its subtopology; topics named by pattern left out): `{topic: [partitions]}`.
   */
  committablePartitions() {
    const topics = new Map();
    for (const t of this.owned.activeTasks) {
      const sub = this.topology.find((s) => s.subtopologyId === t.subtopologyId);
      for (const topic of sub?.sourceTopics ?? []) {
        let partitions = topics.get(topic);
        if (partitions === undefined) topics.set(topic, (partitions = new Set()));
        for (const p of t.partitions) partitions.add(p);
      }
    }
    const out = {};
    for (const [topic, partitions] of [...topics].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      out[topic] = [...partitions].sort((a, b) => a - b);
    }
    return out;
  }

  /**
   * Commits offsets as a Streams client does: for every partition its owned active tasks read
   * (`committablePartitions`), with the member id and epoch it has (`OffsetCommit`, which the
   * coordinator validates against the group: a zombie whose heartbeats are lost commits at an
   * epoch the group has moved past and is refused). `offsets`: one offset for every partition
   * (default: the clock, a position that only grows) or `(topic, partition) => offset`.
   * `apiVersion`: the request's version (default the coordinator's default for the input). Returns the output, or
   * null when it owns nothing to commit; refused partitions are recorded as errors (`during:
   * 'commit'`) and in `commits`.
   */
  commit(offsets = this.cluster.now, { apiVersion, metadata = '' } = {}) {
    const partitions = this.committablePartitions();
    const topics = Object.keys(partitions);
    if (topics.length === 0) return null;
    const offsetOf = typeof offsets === 'function' ? offsets : () => offsets;
    const committed = {};
    const request = {
      groupId: this.groupId,
      generationIdOrMemberEpoch: this.memberEpoch,
      memberId: this.memberId,
      topics: topics.map((name) => ({
        name,
        partitions: partitions[name].map((p) => {
          const offset = offsetOf(name, p);
          committed[`${name}:${p}`] = offset;
          return { partitionIndex: p, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: metadata };
        }),
      })),
    };
    const input = { nowMs: this.cluster.now, type: 'OffsetCommit', request };
    if (apiVersion !== undefined) input.apiVersion = apiVersion;
    const out = this.cluster.send(input);
    const entry = { atMs: this.cluster.now, memberEpoch: this.memberEpoch, offsets: committed, errors: [] };
    this.commits.push(entry);
    if (out.error) {
      this.#error(out.error.code, out.error.message, 'commit');
      entry.errors.push({ code: out.error.code, message: out.error.message });
      return out;
    }
    for (const t of out.response.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) entry.errors.push({ topic: t.name, partition: p.partitionIndex, code: p.errorCode });
      }
    }
    if (entry.errors.length > 0) {
      const codes = [...new Set(entry.errors.map((e) => e.code))].join(', ');
      this.#error(entry.errors[0].code, `commit at epoch ${this.memberEpoch} refused for ${entry.errors.length} partitions (codes ${codes})`, 'commit');
    }
    return out;
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
    if (this.kafka && this.memberId === '') {
      // A released Kafka's client chooses its member id (a UUID in Java; one the trace can
      // tell apart and that a rerun repeats here).
      this.incarnation += 1;
      this.memberId = `${this.name}-${this.incarnation}`;
    }
    const r = {
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: 0,
    };
    if (this.kafka) r.endpointInformationEpoch = -1;
    if (this.instanceId !== null) r.instanceId = this.instanceId;
    if (this.rackId !== null) r.rackId = this.rackId;
    r.rebalanceTimeoutMs = this.rebalanceTimeoutMs;
    if (this.kafka) r.topology = { epoch: 0, subtopologies: clone(this.topology) };
    else r.topologyId = this.topologyId;
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
    if (this.kafka) r.endpointInformationEpoch = this.endpointInformationEpoch;
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
    if (!this.cluster.reportLag || NO_TASK_OFFSETS.has(this.dialect)) return;
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
    if (this.kafka) r.endpointInformationEpoch = this.endpointInformationEpoch;
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
      this.endpointInformationEpoch = -1;
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
    const fate = this.faults.fate(now);
    if (fate === 'lost') {
      this.#doubt(true);
      this.ackedOwned = null;
      this.cluster.log(`${this.name}: heartbeat (epoch ${this.memberEpoch}) lost`);
      this.#due(now + this.heartbeatIntervalMs);
      return;
    }
    if (fate === 'delayed') {
      this.#doubt(true);
      this.inFlight = input;
      this.#due(now + this.faults.delayMs);
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
    if (this.status === 'running' && this.commitIntervalMs !== null && out.response.errorCode === 0 &&
        this.memberEpoch > 0 && (this.committedAt === null || now - this.committedAt >= this.commitIntervalMs)) {
      this.committedAt = now;
      this.commit();
    }
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
      if (typeof r.endpointInformationEpoch === 'number') this.endpointInformationEpoch = r.endpointInformationEpoch;
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
      if (shutdownRequested(this.lastStatus, this.dialect)) {
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
      : clientReaction(r.errorCode, this.dialect);
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

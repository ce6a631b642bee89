// The cluster: one coordinator with a virtual clock, a topic image and simulated members
// (member.mjs), which it runs in time order (agenda.mjs). It traces every input and output,
// checks invariants after each (checks.mjs), simulates lag (lag.mjs) and writes its trace as a
// scenario (scenario-files.mjs). With an `endpoint` its members talk to a live coordinator over
// TCP instead (remote.mjs), on a clock that keeps pace with the wall's.

import { Coordinator } from '../node.mjs';
import { Agenda } from './agenda.mjs';
import { ClientOwnership, unstableReasons } from './checks.mjs';
import { toText } from './json.mjs';
import { restoredOffsets, statefulTasks } from './lag.mjs';
import { SimulatedMember } from './member.mjs';
import { DescribedView, RemoteCoordinator } from './remote.mjs';
import { saveScenario, traceToScenario } from './scenario-files.mjs';
import { GroupView, InvariantError } from './simulation.mjs';

/** A one-subtopology stateless topology reading `input`. */
export const DEFAULT_TOPOLOGY = Object.freeze([
  Object.freeze({ subtopologyId: '0', sourceTopics: Object.freeze(['input']) }),
]);

/**
 * One coordinator with a virtual clock, a topic image and simulated members.
 *
 * Options: `config` (coordinator settings), `groupId` (default `'app'`), `topology` (default
 * for members; `DEFAULT_TOPOLOGY`), `topics` (`{name: partitions}` created at the start),
 * `startMs` (0), `autoCreateTopics` (create `topicsToCreate` at once, like a broker; true),
 * `checkInvariants` (after every input; true), `trace` (keep every input and output; true),
 * `name` / `description` (for `toScenario`), `log` (a function receiving event lines).
 *
 * `endpoint` (`'host:port'`): the members talk to a live coordinator instead (`sgc serve`, or
 * the broker that coordinates the group), with Kafka's requests over TCP in `config.dialect`
 * (default `kafka-4.2`; `config` is otherwise the endpoint's business). The endpoint keeps its
 * own clock, so the virtual clock keeps pace with the wall's: `advance(ms)` takes `ms`. No
 * records come back: `view` is the groups as `StreamsGroupDescribe` shows them, the invariants
 * are checked on those descriptions, there is no `snapshot`, and the topics are the endpoint's
 * (`topics` says what exists there; `createTopic` and the like refuse). `timeoutMs` bounds the
 * wait for an answer (10,000).
 */
export class Cluster {
  constructor(options = {}) {
    /** The live coordinator's `'host:port'`, or null for a coordinator of our own. */
    this.endpoint = options.endpoint ?? null;
    this.config = this.endpoint === null ? options.config ?? {} : { dialect: 'kafka-4.2', ...options.config };
    this.groupId = options.groupId ?? 'app';
    this.topology = options.topology ?? DEFAULT_TOPOLOGY;
    this.now = options.startMs ?? 0;
    this.autoCreateTopics = options.autoCreateTopics ?? true;
    this.checkEveryInput = options.checkInvariants ?? true;
    this.tracing = options.trace ?? true;
    this.name = options.name ?? 'simulated cluster';
    this.description = options.description ?? 'Recorded by streams-group-coordinator/testing.';
    this.logger = options.log ?? null;
    this.coordinator = this.endpoint === null
      ? new Coordinator(this.config)
      : new RemoteCoordinator(this.endpoint, { dialect: this.config.dialect, timeoutMs: options.timeoutMs });
    /** With an endpoint: the wall time (ms) at which the virtual clock read `startMs`. */
    this.wallStart = Date.now();
    this.clockStart = this.now;
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
    this.view = this.endpoint === null ? new GroupView({ dialect: this.config.dialect }) : new DescribedView(this);
    /** Epochs that went back since the last check (events; the state cannot show them). */
    this.pendingViolations = [];
    /** Which running clients process which active task (see `checkInvariants`). */
    this.ownership = new ClientOwnership();
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
    if (this.endpoint !== null && this.verifyView !== 'never') {
      throw new RangeError('verifyView compares the records with a snapshot: a live endpoint gives neither');
    }
    /** When members are due: a heap of `{t, seq, member}`. */
    this.agenda = new Agenda();
    this.seq = 0;
    const topics = options.topics ?? {};
    const specs = Object.entries(topics).map(([name, partitions]) => ({ name, partitions }));
    for (const s of specs) this.topics.set(s.name, s.partitions);
    if (specs.length > 0 && this.endpoint === null) {
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
    if (this.endpoint !== null && (input.type === 'TopicMetadata' || input.type === 'Replay')) {
      throw new RangeError(`a live endpoint takes Kafka's requests, not ${input.type}: its topics and log are its own`);
    }
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
    return statefulTasks(this.topology, this.topics);
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
   * What `member` reports (PROTOCOL 3.3 `taskOffsets`, `taskEndOffsets`): its stateful tasks'
   * restored offsets from its process's store, and their end offsets (see `restoredOffsets`).
   */
  taskOffsetsOf(member) {
    let store = this.localState.get(member.processId);
    if (store === undefined) this.localState.set(member.processId, (store = new Map()));
    return restoredOffsets(member, {
      store,
      threads: this.process(member.processId).filter((m) => m.running),
      stateful: new Set(this.statefulTasks()),
      endOffsets: this.endOffsets,
      restoreRate: this.restoreRate,
      now: this.now,
    });
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
    this.ownership.changed(member);
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
    this.#clockTo(Math.max(this.now, t));
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
    this.#clockTo(until);
    return this;
  }

  /** Sets the virtual clock; with an endpoint, first waits until the wall clock is there too. */
  #clockTo(t) {
    if (this.endpoint !== null) {
      const wait = this.wallStart + (t - this.clockStart) - Date.now();
      if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    }
    this.now = t;
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
        this.#clockTo(deadline);
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
    return unstableReasons(this.view, this.members.values(), groupId);
  }

  // --- views and checks ----------------------------------------------------------------------

  /** The coordinator's snapshot (none from a live endpoint: see `describe` and `view`). */
  snapshot() {
    if (this.endpoint !== null) throw new RangeError('a live endpoint has no snapshot: use describe() or view');
    return this.coordinator.snapshot();
  }

  /** A group of the snapshot, or null (with an endpoint: as `view` last described it). */
  group(groupId = this.groupId) {
    if (this.endpoint !== null) return this.view.group(groupId);
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
    violations.push(...this.ownership.violations());
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
    return traceToScenario(this.trace, { name, description, config: this.config, expect });
  }

  /** Writes `toScenario(options)` to `path` as JSON. */
  saveScenario(path, options = {}) {
    return saveScenario(path, this.toScenario(options));
  }

  /** Frees the coordinator (with an endpoint: closes the connection). */
  close() {
    this.coordinator.free();
  }
}

/** A new cluster (see `Cluster`). */
export function createCluster(options) {
  return new Cluster(options);
}

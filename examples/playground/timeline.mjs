// The timeline: the steps, the cursor, the live coordinator at the cursor, and what every
// applied step left (output, snapshot, clients); what the view asks of it; its formats. The
// actions that build steps are the `Session`'s (session.mjs).

import { RecordTypesByDialect } from './api.mjs';
import { Clients } from './clients.mjs';
import { checkSnapshot } from './testing/simulation.mjs';
import { DEFAULT_APP, DEFAULT_CONFIG, DEFAULT_TOPOLOGY } from './config.mjs';
import { hardState, normalizeScenario } from './formats.mjs';
import { parseJson, toJson } from './json.mjs';
import { GroupCounts, membersFromRecords, offsetsFromRecords, taskEpochsFromRecords } from './records.mjs';

/**
 * The timeline: the steps, the cursor (how many are applied), the live coordinator at the
 * cursor, and for every step the coordinator's output, a snapshot and the clients afterwards.
 *
 * `deps`: `{Coordinator, topologyId}` from the package (web or node build).
 */
export class Timeline {
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
      this.track = new GroupCounts();
      for (let k = 0; k < i; k++) this.track.apply(this.stepRecords(k), this.recordTypes);
    }
    this.track.apply(this.stepRecords(i, out), this.recordTypes);
    this.trackAt = i + 1;
    return this.track.summary(out?.explain ?? []);
  }

  /**
   * The members of `groupId` before step `i` from the records alone: the last target and
   * current-assignment record of each (what `explainStep` compares).
   */
  membersBefore(i, groupId) {
    const steps = [];
    for (let k = 0; k < i; k++) steps.push(this.stepRecords(k));
    return membersFromRecords(steps, this.recordTypes, groupId);
  }

  /** The records of step `i`: a Replay's own records, then those its output wrote. */
  stepRecords(i, out = this.outputs[i]) {
    const step = this.steps[i];
    const recs = [];
    if (step?.input?.type === 'Replay' && !out?.error) recs.push(...(step.input.records ?? []));
    recs.push(...(out?.records ?? []));
    return recs;
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

  /** A released Kafka's dialect (4.2, 4.3, 4.4): its clients join with the topology. */
  get isKafka() {
    return String(this.dialect).startsWith('kafka-');
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

  /** The racks of the picked group's clients, sorted. */
  racks() {
    return [...new Set(this.groupClients().map((c) => c.rackId).filter(Boolean))].sort();
  }

  /**
   * kafka-4.2: the per-task assignment epochs of each member's active tasks (assigned and
   * pending revocation), from its latest current-assignment record up to the cursor.
   */
  taskEpochs(groupId = this.app.groupId) {
    if (!this.isKafka) return new Map();
    const steps = [];
    for (let i = 0; i < this.cursor; i++) steps.push(this.outputs[i]?.records ?? []);
    return taskEpochsFromRecords(steps, this.recordTypes, groupId);
  }

  /**
   * The committed offsets of `groupId` at the cursor, from the records (`offsetsFromRecords`):
   * "topic:partition" -> the last offset, and who committed it at which epoch.
   */
  committedOffsets(groupId = this.app.groupId) {
    // The task map and the offsets panel both ask at every redraw: fold once per point.
    const memo = `${this.version}|${this.cursor}|${groupId}`;
    if (this.offsetsMemo?.key === memo) return this.offsetsMemo.offsets;
    const steps = [];
    for (let i = 0; i < this.cursor; i++) steps.push({ records: this.stepRecords(i), input: this.steps[i].input });
    const offsets = offsetsFromRecords(steps, this.recordTypes, groupId);
    this.offsetsMemo = { key: memo, offsets };
    return offsets;
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

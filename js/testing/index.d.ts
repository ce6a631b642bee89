// Types of streams-group-coordinator/testing: a virtual-clock cluster with simulated Streams
// members, fault injection, invariant checks and scenario traces, against a coordinator of its
// own or a live endpoint over TCP (Node only).

import type {
  Coordinator,
  Dialect,
  Endpoint,
  Explain,
  Input,
  KeyValue,
  HandleResult,
  Output,
  ErrorOutput,
  Settings,
  Snapshot,
  SnapshotGroup,
  Status,
  StreamsGroupDescribeResponse,
  StreamsGroupHeartbeatResponse,
  TaskIds,
  TaskOffset,
  Topology,
} from '../index.js';
import type { Scenario, ScenarioRun } from '../scenario.js';
import type { GroupView, ViewState } from './simulation.js';

export { mismatch, runScenario, stringify } from '../scenario.js';

/** A one-subtopology stateless topology reading the topic `input`. */
export declare const DEFAULT_TOPOLOGY: Topology;

export { GroupView, InvariantError, checkSnapshot, taskKeys } from './simulation.js';

/** What a member owns: exactly the lists of the last response that carried task lists. */
export interface OwnedTasks {
  activeTasks: TaskIds[];
  standbyTasks: TaskIds[];
  warmupTasks: TaskIds[];
}

export type MemberStatus = 'running' | 'restarting' | 'crashed' | 'left' | 'stopped' | 'failed';

export interface MemberError {
  code: number | string;
  message: string | null;
  during: 'heartbeat' | 'initialize' | 'commit';
  atMs: number;
}

/** One `commit` a member sent. */
export interface MemberCommit {
  atMs: number;
  /** The epoch it committed at. */
  memberEpoch: number;
  /** `"topic:partition"` -> offset. */
  offsets: { [partition: string]: number };
  /** Refused partitions (or the boundary error of the whole input). */
  errors: { topic?: string; partition?: number; code: number | string; message?: string }[];
}

export interface MemberOptions {
  /** Unique in the cluster; default `member-<n>`. */
  name?: string;
  /** Default `process-<n>`. Members of one Kafka Streams process share it. */
  processId?: string;
  /** Makes the member static. */
  instanceId?: string | null;
  /**
   * A member id chosen by the client; default `""`: the coordinator generates one (draft), or
   * the member chooses `${name}-${n}` at its n-th start (a released Kafka's dialect).
   */
  memberId?: string;
  groupId?: string;
  /** Default: the cluster's topology. */
  topology?: Topology;
  /** Default: `topologyId(topology)`. */
  topologyId?: string;
  /** The rack it runs in (`rackId` in its joins); `addProcess` gives it to every thread. */
  rackId?: string | null;
  clientId?: string;
  /** Default `/127.0.0.1`. */
  clientHost?: string;
  /** Default 300000 (Kafka Streams' `max.poll.interval.ms`). */
  rebalanceTimeoutMs?: number;
  userEndpoint?: Endpoint | null;
  clientTags?: KeyValue[] | null;
  /** What to do on UNRELEASED_INSTANCE_ID (111): `'fail'` like the Java client (default) or `'retry'`. */
  onUnreleasedInstanceId?: 'fail' | 'retry';
  /**
   * How long closing revoked tasks takes (default 0: before the next heartbeat). Until then
   * the member owns and reports them; then it acknowledges at once.
   */
  revocationMs?: number;
  /** Heartbeat at once after a response changed the owned tasks, as Kafka clients do (default true). */
  ackImmediately?: boolean;
  /** Interval before the first response says otherwise. */
  heartbeatIntervalMs?: number;
  /** Commit every this many ms, at the first successful heartbeat after each (default null: only `commit()`). */
  commitIntervalMs?: number | null;
}

export interface ProcessOptions extends Omit<MemberOptions, 'name' | 'processId' | 'instanceId' | 'clientId'> {
  processId?: string;
  /** Stream threads, one member each (default 1). */
  threads?: number;
  /** Static process: thread `n` gets the instance id `${instanceId}-${n}` (1-based). */
  instanceId?: string | null;
}

export interface RestartOptions {
  /** How long the member is down before it rejoins (default 0). */
  downtimeMs?: number;
  /** true: `""`, so the coordinator generates a new id (default); false: keep the old id; a string: that id. */
  newMemberId?: boolean | string;
  /** A new process id (an instance without persistent state gets a new one at every start). */
  processId?: string;
}

/**
 * A simulated Streams member: joins with epoch 0, heartbeats on the coordinator's interval,
 * initializes the topology when asked, reports owned tasks when they changed, takes new tasks
 * at once, closes revoked ones (at once or after `revocationMs`, owning them until then),
 * reacts to errors as `clientReaction` says (rejoin after FENCED_MEMBER_EPOCH /
 * UNKNOWN_MEMBER_ID, stop on fatal errors).
 */
export declare class SimulatedMember {
  readonly cluster: Cluster;
  /** The cluster's dialect, which its requests speak. */
  readonly dialect: Dialect;
  readonly name: string;
  readonly groupId: string;
  processId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly topology: Topology;
  readonly topologyId: string;
  readonly rebalanceTimeoutMs: number;
  memberId: string;
  memberEpoch: number;
  /** The endpoint information epoch of the last response (released Kafka's dialects; -1 before). */
  endpointInformationEpoch: number;
  heartbeatIntervalMs: number;
  commitIntervalMs: number | null;
  /** Every commit it sent. */
  commits: MemberCommit[];
  readonly revocationMs: number;
  /** While it closes revoked tasks: what it was assigned, and when it is done. */
  revoking: { assigned: OwnedTasks; doneAt: number } | null;
  /** How often it reports task offsets (from the coordinator's responses). */
  taskOffsetIntervalMs: number;
  /** When it last reported task offsets (null: at its next heartbeat). */
  offsetsReportedAt: number | null;
  owned: OwnedTasks;
  status: MemberStatus;
  /** When the member acts next (null when it does not). */
  dueAt: number | null;
  lastResponse: StreamsGroupHeartbeatResponse | null;
  /** The last status list the coordinator sent. */
  lastStatus: Status[];
  lastError: MemberError | null;
  errors: MemberError[];
  restarts: number;
  /** True while a lost or delayed heartbeat has not been followed by a response. */
  unsure: boolean;
  readonly running: boolean;
  readonly isStatic: boolean;
  /** `tasksText(owned)`: equal for equal owned lists. */
  ownedText(): string;
  /** Owned tasks as `"sub:partition"` keys. */
  ownedKeys(): { active: string[]; standby: string[]; warmup: string[] };
  /** Loses the next `count` heartbeats (default all), or those sent in the next `forMs` ms. */
  dropHeartbeats(countOrOptions?: number | { count?: number; forMs?: number }): this;
  /** Delays heartbeats by `ms` on their way (the next `count`, default all). */
  delayHeartbeats(ms: number, options?: { count?: number }): this;
  clearFaults(): this;
  /** Stops at once without leaving. */
  crash(): this;
  /** Leaves with epoch -1 and stops. */
  leave(): this;
  /** Sets `shutdownApplication` on the next heartbeat. */
  requestShutdown(): this;
  /** The partitions its owned active tasks read: `{topic: [partitions]}`. */
  committablePartitions(): { [topic: string]: number[] };
  /**
   * Commits `offsets` (one for every partition, default the clock, or `(topic, partition) =>
   * offset`) for `committablePartitions()` at its member id and epoch, as Streams does; null
   * when it owns nothing. A crashed or fenced member commits with what it last had (a zombie).
   */
  commit(
    offsets?: number | ((topic: string, partition: number) => number),
    options?: { apiVersion?: number; metadata?: string | null },
  ): HandleResult | null;
  /** Static: leave -2, dynamic: leave -1; then rejoin with epoch 0 after `downtimeMs`. */
  restart(options?: RestartOptions): this;
  /** Starts a crashed, left, stopped or failed member again. */
  start(options?: RestartOptions): this;
  /** What the member does with a heartbeat response (called by the cluster). */
  absorb(response: StreamsGroupHeartbeatResponse): void;
  /** Called by the cluster when `dueAt` has come. */
  act(): void;
}

export interface ClusterOptions {
  /** Coordinator settings. */
  config?: Settings;
  /** Default `'app'`. */
  groupId?: string;
  /** Default topology of members; `DEFAULT_TOPOLOGY` by default. */
  topology?: Topology;
  /** Topics created at the start: `{name: partitions}`. */
  topics?: { [name: string]: number };
  /** Default 0. */
  startMs?: number;
  /** Create `topicsToCreate` at once, as a broker would (default true). */
  autoCreateTopics?: boolean;
  /**
   * Members report `taskOffsets` and `taskEndOffsets` in heartbeats (on a join, then every
   * `taskOffsetIntervalMs`), from `Cluster.endOffsets` and their processes' stores (default false).
   */
  reportLag?: boolean;
  /** Offsets per second a standby or warm-up copy restores (default Infinity: caught up at once). */
  restoreRate?: number;
  /** Check the invariants after every input (default true); they are kept from the records. */
  checkInvariants?: boolean;
  /**
   * When to compare the groups as the records say (`view`) with the coordinator's snapshot:
   * `'never'` (default), `'stable'` (whenever `runUntilStable` converges) or `'input'` (after
   * every input; a snapshot costs tens of milliseconds for hundreds of members).
   */
  verifyView?: 'never' | 'stable' | 'input';
  /** Keep every input and output (default true). */
  trace?: boolean;
  /** For `toScenario`. */
  name?: string;
  description?: string;
  /** Receives event lines (`[time] line`). */
  log?: (line: string) => void;
  /**
   * A live coordinator (`'host:port'`: `sgc serve`, or the broker coordinating the group) the
   * members talk to over TCP in `config.dialect` (default `kafka-4.2`), on a clock that keeps
   * pace with the wall's; `view` is then a `DescribedView`, and there is no snapshot.
   */
  endpoint?: string | null;
  /** With an endpoint: how long to wait for an answer (default 10000 ms). */
  timeoutMs?: number;
}

/** An input whose `nowMs` may be left out (the cluster's clock is used). */
export type InputWithoutTime = Input extends infer I ? (I extends Input ? Omit<I, 'nowMs'> & { nowMs?: number } : never) : never;

export interface TraceEntry {
  input: Input;
  /** The output text, as the coordinator wrote it. */
  output: string;
}

export type TimedExplain = Explain & { atMs: number };

export interface ScenarioOptions {
  name?: string;
  description?: string;
  /** `'full'` (default), `'response'`, `'none'`, or a function giving each step's expect. */
  expect?: 'full' | 'response' | 'none' | ((output: Output | ErrorOutput, input: Input, index: number) => unknown);
}

export interface RunResult {
  atMs: number;
  elapsedMs: number;
}

/** One coordinator with a virtual clock, a topic image and simulated members. */
export declare class Cluster {
  constructor(options?: ClusterOptions);
  /** A local coordinator, or with an `endpoint` the connection to it. */
  readonly coordinator: Coordinator | RemoteCoordinator;
  readonly endpoint: string | null;
  readonly config: Settings;
  readonly groupId: string;
  readonly topology: Topology;
  /** The virtual clock, in ms. */
  now: number;
  readonly trace: TraceEntry[];
  readonly events: { atMs: number; line: string }[];
  readonly explanations: TimedExplain[];
  /** The topic image as sent: name -> partitions. */
  readonly topics: Map<string, number>;
  readonly members: Map<string, SimulatedMember>;
  readonly reportLag: boolean;
  readonly restoreRate: number;
  /** Changelog end offset per stateful task (`"sub:partition"`); 0 when not set. */
  readonly endOffsets: Map<string, number>;
  /** Per process id: task -> the offset its local store has restored, and when. */
  readonly localState: Map<string, Map<string, { offset: number; atMs: number }>>;
  readonly nextDeadlineMs: number | null;
  readonly inputCount: number;
  /** Every group as the records say (with an endpoint: as its describe shows them). */
  readonly view: GroupView | DescribedView;

  /** Sends one input (`nowMs` defaults to the clock) and returns the parsed output. */
  send(input: Input | InputWithoutTime): HandleResult;
  log(line: string): void;

  createTopic(name: string, partitions: number, options?: { topicId?: string; racks?: string[][] }): HandleResult<null>;
  /** Adds `count` partitions. */
  addPartitions(name: string, count: number): HandleResult<null>;
  deleteTopic(name: string): HandleResult<null>;

  addMember(options?: MemberOptions): SimulatedMember;
  addProcess(options?: ProcessOptions): SimulatedMember[];
  member(name: string): SimulatedMember;
  process(processId: string): SimulatedMember[];
  restartProcess(processId: string, options?: RestartOptions): void;
  crashProcess(processId: string): void;
  runningMembers(): SimulatedMember[];
  /** Members whose `rackId` is `rackId`. */
  rack(rackId: string): SimulatedMember[];
  /** Crashes every running member of a rack. */
  crashRack(rackId: string): void;
  /** Starts every member of a rack again. */
  startRack(rackId: string, options?: RestartOptions): void;
  /** Stateful tasks (`"sub:partition"`) of the topology over the topic image. */
  statefulTasks(): string[];
  /** End offsets of some tasks (`{"sub:partition": n}`), or of every stateful task (a number). */
  setEndOffsets(offsets: { [task: string]: number } | number): this;
  /** Adds `delta` to every stateful task's end offset. */
  addEndOffsets(delta: number): this;
  /** What a member reports: its stateful tasks' restored offsets and end offsets. */
  taskOffsetsOf(member: SimulatedMember): { taskOffsets: TaskOffset[]; taskEndOffsets: TaskOffset[] };
  /** Called by a member whose `dueAt` became `t` (members use it; tests need not). */
  schedule(member: SimulatedMember, t: number): void;
  /** Called by a member whose owned tasks, status or certainty changed. */
  changed(member: SimulatedMember): void;

  /** Moves the clock forward, running due heartbeats and timers in time order. */
  advance(ms: number): this;
  advanceTo(timeMs: number): this;
  runUntil(predicate: (cluster: Cluster) => boolean, options?: { maxMs?: number; what?: string }): RunResult;
  /**
   * Runs until the group has converged: `STABLE`, its members exactly the running simulated
   * members, each at the coordinator's epoch owning what it was assigned, and each having
   * heartbeated since the last topic change, `Replay` or shutdown request.
   */
  runUntilStable(options?: { maxMs?: number; groupId?: string }): RunResult;
  unstableReasons(groupId?: string): string[];

  /** Throws with an endpoint (no snapshot over the wire). */
  snapshot(): Snapshot;
  /** With an endpoint: the group as `view` last described it. */
  group(groupId?: string): SnapshotGroup | DescribedGroup | null;
  describe(groupId?: string): StreamsGroupDescribeResponse['groups'][number];
  checkInvariants(): string[];
  assertInvariants(context?: string): void;
  /** Throws unless `view` agrees with the coordinator's snapshot. */
  assertViewMatchesSnapshot(): void;
  assertStable(groupId?: string): void;

  toScenario(options?: ScenarioOptions): Scenario;
  saveScenario(path: string, options?: ScenarioOptions): string;
  close(): void;
}

export declare function loadScenario(path: string): Scenario;
export declare function runScenarioFile(pathOrScenario: string | Scenario): ScenarioRun;
export declare function createCluster(options?: ClusterOptions): Cluster;

/** An error of the connection to a live endpoint (refused, closed, no answer in time). */
export declare class RemoteError extends Error {}

/** `'host:port'` (an IPv6 host in brackets) as `{host, port}`; throws a `RangeError` otherwise. */
export declare function parseEndpoint(endpoint: string): { host: string; port: number };

/**
 * A coordinator at a live endpoint: `handle` sends an input that is a request as Kafka's frame
 * (at `apiVersion`, or the newest the dialect serves) over TCP and answers its response as JSON
 * text with no records; other inputs change nothing. Synchronous (a worker thread holds the
 * socket).
 */
export declare class RemoteCoordinator {
  constructor(endpoint: string, options?: { dialect?: Dialect; timeoutMs?: number });
  readonly endpoint: string;
  readonly dialect: Dialect;
  /** Requests sent and answered. */
  readonly sent: number;
  handle(input: Input | InputWithoutTime | string): string;
  /** One request frame (without its size) out, the response frame back. */
  call(frame: Uint8Array): Uint8Array;
  /** Closes the connection and frees the codec. */
  free(): void;
}

/** A member of a group as `StreamsGroupDescribe` shows it. */
export interface DescribedMember {
  memberId: string;
  memberEpoch: number;
  processId: string;
  instanceId: string | null;
  assignment: OwnedTasks;
  assignmentText: string;
}

/** A group as `StreamsGroupDescribe` shows it. */
export interface DescribedGroup {
  groupId: string;
  state: ViewState;
  groupEpoch: number;
  assignmentEpoch: number;
  members: Map<string, DescribedMember>;
}

/** The groups of a live endpoint as its describe shows them (a `Cluster` with an `endpoint`). */
export declare class DescribedView {
  constructor(cluster: Cluster);
  group(groupId: string): DescribedGroup | null;
  state(groupId: string): ViewState | null;
  apply(records: readonly unknown[]): string[];
  /** Assignment epoch above the group epoch, epochs gone back, an active task assigned twice. */
  violations(): string[];
}

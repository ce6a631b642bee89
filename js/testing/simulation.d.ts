// Types of streams-group-coordinator/simulation: task keys, the invariants of a coordinator's
// state and a view of every group rebuilt from its records (no Node APIs; browser too).

import type { CoordinatorRecord, Dialect, Kafka42Record, Snapshot, TaskIds } from '../index.js';

/** `"subtopologyId:partition"` keys of a task list. */
export declare function taskKeys(list: TaskIds[] | null | undefined): string[];

/** Three task lists, as responses, records and snapshots carry them. */
export interface TaskLists {
  activeTasks: TaskIds[];
  standbyTasks: TaskIds[];
  warmupTasks: TaskIds[];
}

/** A text of three task lists, equal for equal (sorted) lists. */
export declare function tasksText(tasks: TaskLists | null | undefined): string;

/** A failed invariant or expectation; `violations` lists every reason. */
export declare class InvariantError extends Error {
  constructor(message: string, violations?: string[]);
  violations: string[];
}

/** Invariants of one snapshot; with `previous`, also that epochs never go backwards. */
export declare function checkSnapshot(
  snapshot: Snapshot | Snapshot<'kafka-4.2'>,
  previous?: Map<string, { groupEpoch: number; assignmentEpoch: number; members: Map<string, number> }> | null,
): string[];

/** A member as its records say. */
export interface ViewMember {
  memberId: string;
  processId: string | null;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  previousMemberEpoch: number;
  /** PROTOCOL 2.6 state code: 1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS, 127 UNKNOWN. */
  state: number;
  assignment: TaskLists;
  pendingRevocation: TaskLists;
  /** `tasksText(assignment)`. */
  assignmentText: string;
}

/** A group as its records say. */
export interface ViewGroup {
  groupId: string;
  groupEpoch: number;
  assignmentEpoch: number;
  hasTopology: boolean;
  members: Map<string, ViewMember>;
  /** Target assignments by member id. */
  targets: Map<string, TaskLists>;
  /** Members not reconciled to the assignment epoch. */
  unreconciled: number;
}

/** Group states as `GroupView.state` derives them (PROTOCOL 2.2), in the snapshot's spelling. */
export type ViewState = 'INITIALIZING' | 'NOT_READY' | 'EMPTY' | 'ASSIGNING' | 'RECONCILING' | 'STABLE';

/**
 * Every group of a coordinator as its records say, kept one output at a time, with the
 * invariants kept incrementally (two active owners, two copies on a process, assignment epoch
 * above the group epoch, epochs going back).
 */
export declare class GroupView {
  constructor(options?: { dialect?: Dialect });
  readonly dialect: Dialect;
  readonly groups: Map<string, ViewGroup>;
  group(groupId: string): ViewGroup | null;
  state(groupId: string): ViewState | null;
  /** Applies one output's records; returns the epochs they sent back (violations). */
  apply(records: readonly (CoordinatorRecord | Kafka42Record)[]): string[];
  /** The invariants the current state violates. */
  violations(): string[];
  /** Rebuilds the view from a snapshot. */
  load(snapshot: Snapshot | Snapshot<'kafka-4.2'>): this;
  /** Where this view and a snapshot of the same coordinator differ. */
  differences(snapshot: Snapshot | Snapshot<'kafka-4.2'>): string[];
}

/** What a Streams client does after a heartbeat error (PROTOCOL 4.11). */
export declare function clientReaction(errorCode: number, dialect?: Dialect): 'rejoin' | 'retry' | 'fatal';

/** Whether a status list asks the application to shut down. */
export declare function shutdownRequested(status: readonly { statusCode: number }[] | null | undefined, dialect?: Dialect): boolean;

/**
 * What a client owns after a response with task lists: new tasks at once, tasks no longer
 * assigned kept (and reported) until closed (`toRevoke`).
 */
export declare function nextOwned(owned: TaskLists | null | undefined, assigned: TaskLists): { owned: TaskLists; toRevoke: TaskLists; revoking: boolean };

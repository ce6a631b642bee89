// Types of the streams-group-coordinator package: every input, output, response, record and
// explanation of the JSON boundary, in both dialects (kip1071-draft and kafka-4.2: a coordinator
// built with `{dialect: 'kafka-4.2'}` is a `Coordinator<'kafka-4.2'>` and its outputs have the
// 4.2 shapes). Hand-written; they follow src/api/*.rs and src/records/json.rs field for field,
// and tests/js/types.test.mjs type-checks the real outputs of every scenario file against them.

// ---------------------------------------------------------------------------------------------
// Scalars

/**
 * A 64-bit integer. Outputs of `handle(object)`, `snapshot()` and the like carry a `bigint`
 * only where the value lies beyond `Number.MAX_SAFE_INTEGER`; inputs accept either.
 */
export type Int64 = number | bigint;

// ---------------------------------------------------------------------------------------------
// Settings

/** Constructor settings, named as Kafka names them (PROTOCOL 2.16). Every key is optional. */
export interface Settings {
  /** Wire dialect. Default `'kip1071-draft'`; `'kafka-4.2'` speaks the protocol as Kafka 4.2 released it (responses, records and snapshots then have the `...42` shapes). */
  dialect?: Dialect;
  /** Which assignor computes targets. Default `'sticky'`; `'manual'` takes `SetTargetAssignment`. */
  assignor?: 'sticky' | 'high-availability' | 'manual';
  /** Default 45000. */
  'group.streams.session.timeout.ms'?: number;
  /** Default 5000. */
  'group.streams.heartbeat.interval.ms'?: number;
  /** Default 2147483647 (no limit). */
  'group.streams.max.size'?: number;
  /** Default 0 (at most 1000). */
  'group.streams.num.standby.replicas'?: number;
  /** Default 10000. */
  'group.streams.acceptable.recovery.lag'?: number;
  /** Default 60000. */
  'group.streams.task.offset.interval.ms'?: number;
  /** Default 3000; `kafka-4.2` only. */
  'group.streams.initial.rebalance.delay.ms'?: number;
  /** Default 0 (1000 in kafka-4.3 and kafka-4.4): a target assignment at every group-epoch bump; above 0, at most one per interval (assignment batching). */
  'group.streams.assignment.interval.ms'?: number;
  /** Warm-up tasks a group holds at once at most (docs/assignor.md). Default 2. */
  'group.streams.num.warmup.replicas'?: number;
  /** Client-tag keys over whose values standbys spread, beside the rack id (at most 5). Default []. */
  'group.streams.rack.aware.assignment.tags'?: string[];
  /** kafka-4.4: `'org.apache.kafka.server.streams.InMemoryTopologyDescriptionPlugin'` keeps topology descriptions as Kafka's built-in plugin; null (the default) or another class: no plugin. */
  'group.streams.topology.description.plugin.class'?: string | null;
  /** Bounded cost: tasks of one subtopology. Default 32768. */
  'group.streams.max.tasks.per.subtopology'?: number;
  /** Bounded cost: tasks of a topology, and owned tasks / task offsets per heartbeat. Default 50000. */
  'group.streams.max.tasks'?: number;
  /** Bounded cost: `sourceTopicRegex` entries per topology. Default 10. */
  'group.streams.topology.max.regex.patterns'?: number;
  /** Bounded cost: the compiled size of one source-topic regex, in bytes. Default 8192. */
  'group.streams.topology.max.regex.compiled.bytes'?: number;
  /** Bounded cost: compiled regex bytes times topic-name bytes a new topology may cost. Default 268435456. */
  'group.streams.topology.max.regex.match.cost'?: number;
  /** Default 10080 (one week): how long a memberless group is kept. */
  'offsets.retention.minutes'?: number;
  /** Default 50. */
  'offsets.topic.num.partitions'?: number;
  /** `kafka-*` dialects: how often the cleanup expires committed offsets and deletes memberless groups, from the first input. Default 600000. */
  'offsets.retention.check.interval.ms'?: number;
  /** The longest committed metadata, in Java `String` length (UTF-16 units); longer fails that partition with `OFFSET_METADATA_TOO_LARGE` (12). Default 4096. */
  'offset.metadata.max.bytes'?: number;
  /** Bounded memory: the most committed partitions one group may hold (at most 16777216); a commit beyond fails with `UNKNOWN_SERVER_ERROR` and a `SERVER_ERROR` explanation. Default 100000. */
  'offsets.max.partitions.per.group'?: number;
  /** Add `keyBytes` / `valueBytes` (base64 of Kafka's binary encoding) to every record. Default false. */
  recordBytes?: boolean;
  /** The largest record batch one operation may write. Default 1048576. */
  maxRecordBatchBytes?: number;
}

export type Dialect = 'kip1071-draft' | KafkaDialect;

/** The released Kafkas' dialects: one record layout and response shape (the `...42` types). */
export type KafkaDialect = 'kafka-4.2' | 'kafka-4.3' | 'kafka-4.4';

// ---------------------------------------------------------------------------------------------
// Shared structs

/** `client` of an input; both default to `""`. */
export interface ClientInfo {
  clientId?: string;
  clientHost?: string;
}

/** Tasks of one subtopology: `{subtopologyId, partitions}`. */
export interface TaskIds {
  subtopologyId: string;
  partitions: number[];
}

export interface Endpoint {
  host: string;
  /** uint16 */
  port: number;
}

export interface KeyValue {
  key: string;
  value: string;
}

export interface TaskOffset {
  subtopologyId: string;
  partition: number;
  offset: Int64;
}

/** `{activeTasks, standbyTasks, warmupTasks}`: assignments in describe, snapshots and manual targets. */
export interface Assignment {
  activeTasks: TaskIds[];
  standbyTasks: TaskIds[];
  warmupTasks: TaskIds[];
}

/** A topic-level configuration entry (the schema spells its fields in lower case). */
export interface TopicConfig {
  key: string;
  value: string;
}

/** An internal topic (changelog or repartition) the application needs. */
export interface TopicInfo {
  name: string;
  /** 0 = decided by the coordinator; always 0 for changelogs. Default 0. */
  partitions?: number;
  /** 0 or -1 = broker default. Default 0. */
  replicationFactor?: number;
  topicConfigs?: TopicConfig[];
}

/** Inputs of one subtopology that must be copartitioned, as indices into its lists. */
export interface CopartitionGroup {
  sourceTopics?: number[];
  sourceTopicRegex?: number[];
  repartitionSourceTopics?: number[];
}

/** One connected part of a Streams topology, as `StreamsGroupInitialize` sends it. */
export interface Subtopology {
  subtopologyId: string;
  sourceTopics?: string[];
  sourceTopicRegex?: string[];
  stateChangelogTopics?: TopicInfo[];
  repartitionSinkTopics?: string[];
  repartitionSourceTopics?: TopicInfo[];
  copartitionGroups?: CopartitionGroup[];
}

/** A topology: its subtopologies. */
export type Topology = Subtopology[];

// ---------------------------------------------------------------------------------------------
// Requests

/** `StreamsGroupHeartbeat` request (PROTOCOL 3.3). `null` or absent means "not sent". */
export interface StreamsGroupHeartbeatRequest {
  groupId: string;
  /** `""` on a first join (the coordinator generates one), else the member's id. */
  memberId: string;
  /** 0 join or rejoin; > 0 heartbeat; -1 leave; -2 static temporary leave. */
  memberEpoch: number;
  instanceId?: string | null;
  rackId?: string | null;
  /** Default -1 (unchanged); required on a join. */
  rebalanceTimeoutMs?: number;
  /** Required (non-blank) on a join; later null or unchanged. Draft only. */
  topologyId?: string | null;
  /** Owned tasks; `[]` on a join. */
  activeTasks?: TaskIds[] | null;
  standbyTasks?: TaskIds[] | null;
  warmupTasks?: TaskIds[] | null;
  /** Required on a join. */
  processId?: string | null;
  userEndpoint?: Endpoint | null;
  /** A list replaces the whole map. */
  clientTags?: KeyValue[] | null;
  taskOffsets?: TaskOffset[] | null;
  taskEndOffsets?: TaskOffset[] | null;
  shutdownApplication?: boolean;
  /** `kafka-4.2` only (a draft coordinator rejects it). */
  endpointInformationEpoch?: number | null;
  /** `kafka-4.2` only: the topology in the joining heartbeat. */
  topology?: { epoch: number; subtopologies?: Subtopology[] } | null;
}

/** `StreamsGroupInitialize` request (PROTOCOL 3.13, draft only). */
export interface StreamsGroupInitializeRequest {
  groupId: string;
  topologyId: string;
  topology: Subtopology[];
}

/** `StreamsGroupDescribe` request (PROTOCOL 3.14). */
export interface StreamsGroupDescribeRequest {
  groupIds: string[];
  includeAuthorizedOperations?: boolean;
  /** Version 1 (kafka-4.4): the description the store holds for each group. */
  includeTopologyDescription?: boolean;
}

/** One topic of a `TopicMetadata` input. */
export interface TopicSpec {
  name: string;
  /** At least 1. */
  partitions: number;
  /** Kafka's 22-character URL-safe base64 form; the zero UUID when absent. */
  topicId?: string | null;
  /** `racks[p]`: the rack ids of partition `p`'s replicas. */
  racks?: string[][] | null;
}

/** One partition of an `OffsetCommit` request. */
export interface OffsetCommitRequestPartition {
  partitionIndex: number;
  committedOffset: Int64;
  /** Default -1. */
  committedLeaderEpoch?: number;
  /** Default `""` (null too). */
  committedMetadata?: string | null;
}

/** One topic of an `OffsetCommit` request. */
export interface OffsetCommitRequestTopic {
  name: string;
  /** Version 10: Kafka's 22-character form; the zero UUID when absent. */
  topicId?: string | null;
  partitions: OffsetCommitRequestPartition[];
}

/** `OffsetCommitRequest` (Kafka's API key 8), Kafka's field names. */
export interface OffsetCommitRequest {
  groupId: string;
  /** The member epoch (streams groups); -1 (the default) for an admin's commit. */
  generationIdOrMemberEpoch?: number;
  /** Default `""`. */
  memberId?: string;
  groupInstanceId?: string | null;
  /** Versions 2-4 only; -1 (the default): the broker's retention. */
  retentionTimeMs?: Int64;
  topics: OffsetCommitRequestTopic[];
}

/** One group of an `OffsetFetch` request. */
export interface OffsetFetchRequestGroup {
  groupId: string;
  /** Version 9+; null (the default): the admin's way. */
  memberId?: string | null;
  /** Default -1. */
  memberEpoch?: number;
  /** Null (or absent): every committed offset of the group. `topicId`: version 10's id. */
  topics?: { name: string; topicId?: string | null; partitionIndexes: number[] }[] | null;
}

/** `OffsetFetchRequest` (Kafka's API key 9) in its version 8+ shape, Kafka's field names. */
export interface OffsetFetchRequest {
  groups: OffsetFetchRequestGroup[];
  /** Version 7+. Default false. */
  requireStable?: boolean;
}

/** `OffsetDeleteRequest` (Kafka's API key 47, version 0), Kafka's field names. */
export interface OffsetDeleteRequest {
  groupId: string;
  topics: { name: string; partitions: { partitionIndex: number }[] }[];
}

/** `DescribeGroupsRequest` (Kafka's API key 15, the classic groups' describe), Kafka's field names. */
export interface DescribeGroupsRequest {
  groups: string[];
  /** Version 3+. Default false; the broker's authorizer answers it. */
  includeAuthorizedOperations?: boolean;
}

/** `ConsumerGroupDescribeRequest` (Kafka's API key 69), Kafka's field names. */
export interface ConsumerGroupDescribeRequest {
  groupIds: string[];
  /** Default false; the broker's authorizer answers it. */
  includeAuthorizedOperations?: boolean;
}

/** `TxnOffsetCommitRequest` (Kafka's API key 28), Kafka's field names; topics as `OffsetCommit`'s (`topicId`: version 6). */
export interface TxnOffsetCommitRequest {
  transactionalId: string;
  groupId: string;
  /** 0 or more. */
  producerId: Int64;
  /** 0 or more. */
  producerEpoch: number;
  /** Version 3+ (`generationId` in 4.2/4.3's schema, accepted too); -1 (the default): no member. */
  generationIdOrMemberEpoch?: number;
  /** Version 3+. Default `""`. */
  memberId?: string;
  /** Version 3+. */
  groupInstanceId?: string | null;
  topics: OffsetCommitRequestTopic[];
}

/** `ListGroupsRequest` (Kafka's API key 16), Kafka's field names; no filter lists every group. */
export interface ListGroupsRequest {
  /** Matched as Kafka matches them: case-insensitively, trimmed, against lower-case state names (`not_ready`). */
  statesFilter?: string[];
  /** `streams`, `classic`, ... case-insensitively; an unknown type matches no group. */
  typesFilter?: string[];
}

// ---------------------------------------------------------------------------------------------
// Inputs

interface InputBase {
  /** Milliseconds; the coordinator's only clock. A value lower than one seen counts as the latest. */
  nowMs: number;
}

/** `apiVersion`: the version the request came at (0-1 in kafka-4.4, else 0; default 0). */
export interface StreamsGroupHeartbeatInput extends InputBase {
  type: 'StreamsGroupHeartbeat';
  apiVersion?: number;
  client?: ClientInfo | null;
  request: StreamsGroupHeartbeatRequest;
}

export interface StreamsGroupInitializeInput extends InputBase {
  type: 'StreamsGroupInitialize';
  client?: ClientInfo | null;
  request: StreamsGroupInitializeRequest;
}

/** `apiVersion`: the version the request came at (0-1 in kafka-4.4, else 0; default 0). */
export interface StreamsGroupDescribeInput extends InputBase {
  type: 'StreamsGroupDescribe';
  apiVersion?: number;
  request: StreamsGroupDescribeRequest;
}

/** Topics the host has (upserted) and has deleted; a name in both lists is a boundary error. */
export interface TopicMetadataInput extends InputBase {
  type: 'TopicMetadata';
  topics?: TopicSpec[] | null;
  deletedTopics?: string[] | null;
}

/** A group config value: Kafka's text form, or a number (tags: comma-separated text or a list). */
export type GroupConfigValue = string | number | string[];

/**
 * A group's whole set of group-level configs (Kafka's `GroupConfig`, delivered by the metadata
 * image; `{}` removes the overrides): they override the coordinator's settings for that group
 * from its next heartbeat. Names are the release's: `streams.session.timeout.ms`,
 * `streams.heartbeat.interval.ms`, `streams.num.standby.replicas`,
 * `streams.initial.rebalance.delay.ms`; from 4.3 `streams.assignment.interval.ms`; in 4.4
 * `streams.task.offset.interval.ms`, `streams.acceptable.recovery.lag`,
 * `streams.num.warmup.replicas`, `streams.rack.aware.assignment.tags` (other group types' names
 * are accepted and change nothing). Not in the log: report them again after a restart.
 */
export interface GroupConfigInput extends InputBase {
  type: 'GroupConfig';
  groupId: string;
  configs: { [name: string]: GroupConfigValue };
}

/** Only time: fires due timers. */
export interface AdvanceTimeInput extends InputBase {
  type: 'AdvanceTime';
}

export interface DeleteGroupsInput extends InputBase {
  type: 'DeleteGroups';
  groupIds: string[];
}

/** Rebuilds state from records (e.g. read from a `__consumer_offsets` partition). */
export interface ReplayInput extends InputBase {
  type: 'Replay';
  records: ReplayRecord[];
}

/** The manual assignor's targets, by member id (PROTOCOL 2.10). */
export interface SetTargetAssignmentInput extends InputBase {
  type: 'SetTargetAssignment';
  groupId: string;
  assignment: { [memberId: string]: Partial<Assignment> };
}

/** Commits offsets; `apiVersion` is the version the request came at (2-10; default 10). */
export interface OffsetCommitInput extends InputBase {
  type: 'OffsetCommit';
  apiVersion?: number;
  request: OffsetCommitRequest;
}

/** Fetches committed offsets; `apiVersion` is the version the request came at (1-10; default 10). */
export interface OffsetFetchInput extends InputBase {
  type: 'OffsetFetch';
  apiVersion?: number;
  request: OffsetFetchRequest;
}

/** Lists the coordinator's groups (streams groups and the simple groups of admin commits). */
export interface ListGroupsInput extends InputBase {
  type: 'ListGroups';
  request?: ListGroupsRequest | null;
}

/** Deletes committed offsets of a group (not those of a topic it reads while it has members). */
export interface OffsetDeleteInput extends InputBase {
  type: 'OffsetDelete';
  request: OffsetDeleteRequest;
}

/** The classic groups' describe of the coordinator's groups; `apiVersion`: the version the request came at (0-6; default 6). */
export interface DescribeGroupsInput extends InputBase {
  type: 'DescribeGroups';
  apiVersion?: number;
  request: DescribeGroupsRequest;
}

/** The consumer groups' describe of the coordinator's groups (none is a consumer group). */
export interface ConsumerGroupDescribeInput extends InputBase {
  type: 'ConsumerGroupDescribe';
  request: ConsumerGroupDescribeRequest;
}

/** Commits offsets in a transaction; `apiVersion`: the version the request came at (0-5, 6 in kafka-4.4; default 5). */
export interface TxnOffsetCommitInput extends InputBase {
  type: 'TxnOffsetCommit';
  apiVersion?: number;
  request: TxnOffsetCommitRequest;
}

/**
 * A transaction's end marker in the partition (docs/transactions.md): the producer's pending
 * offsets become committed (`COMMIT`) or go (`ABORT`). Answers nothing (`response` null).
 */
export interface TransactionCompletedInput extends InputBase {
  type: 'TransactionCompleted';
  producerId: Int64;
  producerEpoch: number;
  result: 'COMMIT' | 'ABORT';
}

/** kafka-4.4 (API key 93): a member pushes its topology's description for the description store. */
export interface StreamsGroupTopologyDescriptionUpdateInput extends InputBase {
  type: 'StreamsGroupTopologyDescriptionUpdate';
  request: {
    groupId: string;
    memberId: string;
    /** Must be the group's topology epoch. */
    topologyEpoch: number;
    /** Required (a null is refused with INVALID_REQUEST, as Kafka refuses it). */
    topologyDescription: TopologyDescription | null;
  };
}

/** Any input `Coordinator.handle` accepts. */
export type Input =
  | StreamsGroupHeartbeatInput
  | StreamsGroupInitializeInput
  | StreamsGroupDescribeInput
  | TopicMetadataInput
  | AdvanceTimeInput
  | DeleteGroupsInput
  | ReplayInput
  | SetTargetAssignmentInput
  | OffsetCommitInput
  | OffsetFetchInput
  | ListGroupsInput
  | StreamsGroupTopologyDescriptionUpdateInput
  | OffsetDeleteInput
  | DescribeGroupsInput
  | ConsumerGroupDescribeInput
  | TxnOffsetCommitInput
  | TransactionCompletedInput
  | GroupConfigInput;

export type InputType = Input['type'];

// ---------------------------------------------------------------------------------------------
// Responses

/** Heartbeat status codes (PROTOCOL 3.10). */
export type StatusCode =
  | 0 // UNINITIALIZED_TOPOLOGY
  | 1 // INCONSISTENT_TOPOLOGY
  | 2 // MISSING_SOURCE_TOPICS
  | 3 // MISSING_INTERNAL_TOPICS
  | 4; // SHUTDOWN_APPLICATION

export interface Status {
  statusCode: StatusCode;
  statusDetail: string;
}

/** kafka-4.2 heartbeat status codes (PROTOCOL 4.5), and the later releases' additions. */
export type StatusCode42 =
  | 0 // STALE_TOPOLOGY
  | 1 // MISSING_SOURCE_TOPICS
  | 2 // INCORRECTLY_PARTITIONED_TOPICS
  | 3 // MISSING_INTERNAL_TOPICS
  | 4 // SHUTDOWN_APPLICATION
  | 5 // ASSIGNMENT_DELAYED (4.3+)
  | 6; // MISSING_CLIENT_TAGS (4.4, heartbeat v1 only)

export interface Status42 {
  statusCode: StatusCode42;
  statusDetail: string;
}

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

export interface EndpointToPartitions {
  userEndpoint: Endpoint;
  partitions: TopicPartitions[];
}

/**
 * Kafka error codes the coordinator answers with (PROTOCOL 2.17, 3.16): 0 NONE,
 * -1 UNKNOWN_SERVER_ERROR, 12 OFFSET_METADATA_TOO_LARGE, 22 ILLEGAL_GENERATION,
 * 24 INVALID_GROUP_ID, 25 UNKNOWN_MEMBER_ID, 35 UNSUPPORTED_VERSION, 42 INVALID_REQUEST,
 * 68 NON_EMPTY_GROUP, 69 GROUP_ID_NOT_FOUND, 81 GROUP_MAX_SIZE_REACHED, 82 FENCED_INSTANCE_ID,
 * 86 GROUP_SUBSCRIBED_TO_TOPIC, 88 UNSTABLE_OFFSET_COMMIT, 110 FENCED_MEMBER_EPOCH,
 * 111 UNRELEASED_INSTANCE_ID, 113 STALE_MEMBER_EPOCH,
 * 129-134 as the dialect numbers them (`ErrorCodesByDialect`).
 */
export type ErrorCode = number;

interface CommonErrorCodes {
  readonly NONE: 0;
  readonly UNKNOWN_SERVER_ERROR: -1;
  readonly OFFSET_METADATA_TOO_LARGE: 12;
  readonly ILLEGAL_GENERATION: 22;
  readonly INVALID_GROUP_ID: 24;
  readonly UNKNOWN_MEMBER_ID: 25;
  readonly GROUP_AUTHORIZATION_FAILED: 30;
  readonly UNSUPPORTED_VERSION: 35;
  readonly INVALID_REQUEST: 42;
  readonly NON_EMPTY_GROUP: 68;
  readonly GROUP_ID_NOT_FOUND: 69;
  readonly GROUP_MAX_SIZE_REACHED: 81;
  readonly UNSTABLE_OFFSET_COMMIT: 88;
  readonly FENCED_INSTANCE_ID: 82;
  readonly FENCED_MEMBER_EPOCH: 110;
  readonly UNRELEASED_INSTANCE_ID: 111;
  readonly STALE_MEMBER_EPOCH: 113;
  readonly GROUP_SUBSCRIBED_TO_TOPIC: 86;
}

/** The draft's error codes by name (PROTOCOL 2.17, 3.16). */
export interface DraftErrorCodes extends CommonErrorCodes {
  readonly STREAMS_INVALID_TOPOLOGY: 129;
  readonly STREAMS_INCONSISTENT_TOPOLOGY: 130;
  readonly STREAMS_MISSING_SOURCE_TOPICS: 131;
  readonly STREAMS_GROUP_UNINITIALIZED: 132;
  readonly STREAMS_SHUTDOWN_APPLICATION: 133;
  readonly STREAMS_INCONSISTENT_INTERNAL_TOPICS: 134;
}

/** kafka-4.2's error codes by name (PROTOCOL 2.17, 4.11): 129-134 mean other things than in the draft. */
export interface Kafka42ErrorCodes extends CommonErrorCodes {
  readonly REBOOTSTRAP_REQUIRED: 129;
  readonly STREAMS_INVALID_TOPOLOGY: 130;
  readonly STREAMS_INVALID_TOPOLOGY_EPOCH: 131;
  readonly STREAMS_TOPOLOGY_FENCED: 132;
}

/** The Kafka error codes by name (draft numbering). */
export declare const ErrorCodes: DraftErrorCodes;

/** The Kafka error codes by name, per dialect. */
export declare const ErrorCodesByDialect: {
  readonly 'kip1071-draft': DraftErrorCodes;
  readonly 'kafka-4.2': Kafka42ErrorCodes;
  readonly 'kafka-4.3': Kafka42ErrorCodes;
  readonly 'kafka-4.4': Kafka42ErrorCodes;
};

/** Released Kafka's heartbeat status codes (4.2 and 4.3; 4.4 adds one). */
export interface KafkaStatusCodes {
  readonly STALE_TOPOLOGY: 0;
  readonly MISSING_SOURCE_TOPICS: 1;
  readonly INCORRECTLY_PARTITIONED_TOPICS: 2;
  readonly MISSING_INTERNAL_TOPICS: 3;
  readonly SHUTDOWN_APPLICATION: 4;
  readonly ASSIGNMENT_DELAYED: 5;
}

/** Heartbeat status codes by name, per dialect (PROTOCOL 3.10, 4.5). */
export declare const StatusCodesByDialect: {
  readonly 'kip1071-draft': {
    readonly UNINITIALIZED_TOPOLOGY: 0;
    readonly INCONSISTENT_TOPOLOGY: 1;
    readonly MISSING_SOURCE_TOPICS: 2;
    readonly MISSING_INTERNAL_TOPICS: 3;
    readonly SHUTDOWN_APPLICATION: 4;
  };
  readonly 'kafka-4.2': KafkaStatusCodes;
  readonly 'kafka-4.3': KafkaStatusCodes;
  /** 4.4 adds `MISSING_CLIENT_TAGS`, sent to v1 heartbeats only. */
  readonly 'kafka-4.4': KafkaStatusCodes & { readonly MISSING_CLIENT_TAGS: 6 };
};

/** The name of `code` in one of the code tables (`ErrorCodes`, `RecordTypesByDialect['kafka-4.2']`, ...). */
export declare function codeName(table: object, code: number): string | undefined;

/** `StreamsGroupHeartbeat` response, draft (PROTOCOL 3.4), fields in schema order. */
export interface StreamsGroupHeartbeatResponse {
  throttleTimeMs: number;
  errorCode: ErrorCode;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  acceptableRecoveryLag: number;
  taskOffsetIntervalMs: number;
  shouldInitializeTopology: boolean;
  groupTopologyId: string | null;
  /** The full list when it changed (and on every join), else null. */
  status: Status[] | null;
  /** Assigned tasks; the three lists are all null (unchanged) or all non-null. */
  activeTasks: TaskIds[] | null;
  standbyTasks: TaskIds[] | null;
  warmupTasks: TaskIds[] | null;
  partitionsByUserEndpoint: EndpointToPartitions[] | null;
}

/** A 4.2 endpoint's partitions (PROTOCOL 4.9). */
export interface EndpointToPartitions42 {
  userEndpoint: Endpoint;
  activePartitions: TopicPartitions[];
  standbyPartitions: TopicPartitions[];
}

/** `StreamsGroupHeartbeat` response, kafka-4.2 (PROTOCOL 4.2), fields in schema order. */
export interface StreamsGroupHeartbeatResponse42 {
  throttleTimeMs: number;
  errorCode: ErrorCode;
  errorMessage: string | null;
  /** The member's own id (the client makes it); `""` in an error answer. */
  memberId: string;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** Version 0's int32 field (always 0), version 1's int64 one (kafka-4.4: the setting; -1 in an error or leave answer). */
  acceptableRecoveryLag: number;
  taskOffsetIntervalMs: number;
  status: Status42[] | null;
  activeTasks: TaskIds[] | null;
  standbyTasks: TaskIds[] | null;
  warmupTasks: TaskIds[] | null;
  /** Version 1 only: push the topology description (`StreamsGroupTopologyDescriptionUpdate`). */
  topologyDescriptionRequired?: boolean;
  endpointInformationEpoch: number;
  partitionsByUserEndpoint: EndpointToPartitions42[] | null;
}

/** `StreamsGroupInitialize` response (PROTOCOL 3.13). */
export interface StreamsGroupInitializeResponse {
  throttleTimeMs: number;
  errorCode: ErrorCode;
  errorMessage: string | null;
}

/** Describe's group states; `""` on error. */
export type DescribedGroupState =
  | 'Initializing'
  | 'NotReady'
  | 'Empty'
  | 'Assigning'
  | 'Reconciling'
  | 'Stable'
  | 'Dead'
  | '';

/** A subtopology as describe shows it (no copartition groups), in schema order. */
export interface DescribedSubtopology {
  subtopologyId: string;
  sourceTopics: string[];
  repartitionSinkTopics: string[];
  sourceTopicRegex: string[];
  stateChangelogTopics: Required<TopicInfo>[];
  repartitionSourceTopics: Required<TopicInfo>[];
}

export interface DescribedMember {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  topologyId: string;
  processId: string;
  clientTags: KeyValue[];
  taskOffsets: TaskOffset[];
  taskEndOffsets: TaskOffset[];
  /** Assigned tasks (not those pending revocation). */
  assignment: Assignment;
  targetAssignment: Assignment;
}

export interface DescribedGroup {
  /** 0, 24 (blank id) or 69 (unknown group). */
  errorCode: ErrorCode;
  errorMessage: string | null;
  groupId: string;
  groupState: DescribedGroupState;
  groupEpoch: number;
  assignmentEpoch: number;
  /** Null while initializing and on error. */
  topology: DescribedSubtopology[] | null;
  /** Sorted by member id. */
  members: DescribedMember[];
  /** Always -2147483648. */
  authorizedOperations: number;
}

/** A 4.2 subtopology as describe shows it (PROTOCOL 4.10). */
export interface DescribedSubtopology42 {
  subtopologyId: string;
  sourceTopics: string[];
  repartitionSinkTopics: string[];
  stateChangelogTopics: Required<TopicInfo>[];
  repartitionSourceTopics: Required<TopicInfo>[];
}

export interface DescribedMember42 {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  topologyEpoch: number;
  processId: string;
  userEndpoint: Endpoint | null;
  clientTags: KeyValue[];
  taskOffsets: TaskOffset[];
  taskEndOffsets: TaskOffset[];
  assignment: Assignment;
  targetAssignment: Assignment;
  isClassic: boolean;
}

export interface DescribedGroup42 {
  errorCode: ErrorCode;
  errorMessage: string | null;
  groupId: string;
  groupState: DescribedGroupState;
  groupEpoch: number;
  assignmentEpoch: number;
  /** `{epoch, subtopologies}`: the configured subtopologies once ready, else the stored ones; null on error. */
  topology: { epoch: number; subtopologies: DescribedSubtopology42[] | null } | null;
  members: DescribedMember42[];
  authorizedOperations: number;
  /** Version 1 only: the stored description when asked for and `topologyDescriptionStatus` is 3. */
  topologyDescription?: TopologyDescription | null;
  /** Version 1 only: 0 not requested, 1 not stored, 2 error, 3 available. */
  topologyDescriptionStatus?: 0 | 1 | 2 | 3;
  /** Version 1 only: the assignor of the next computation; null on error. */
  assignorName?: string | null;
}

/** A topology's description (KIP-1331), as a client pushes it and describe answers it. */
export interface TopologyDescription {
  subtopologies: { subtopologyId: string; nodes: TopologyDescriptionNode[] }[];
  globalStores: { source: TopologyDescriptionNode; processor: TopologyDescriptionNode }[];
}

/** `nodeType` 1 source (`sourceTopics`), 2 processor (`stores`), 3 sink (`sinkTopic`). */
export interface TopologyDescriptionNode {
  name: string;
  nodeType: number;
  sourceTopics?: string[];
  sinkTopic?: string | null;
  stores?: string[];
  successors?: string[];
}

/** `StreamsGroupDescribe` response, kafka-4.2. */
export interface StreamsGroupDescribeResponse42 {
  throttleTimeMs: number;
  groups: DescribedGroup42[];
}

/** `StreamsGroupDescribe` response (PROTOCOL 3.14). */
export interface StreamsGroupDescribeResponse {
  throttleTimeMs: number;
  /** One per requested id, in request order. */
  groups: DescribedGroup[];
}

/** `DeleteGroups` response: one result per requested id (0, 24, 68 or 69; -1 over the batch limit). */
export interface DeleteGroupsResponse {
  results: { groupId: string; errorCode: ErrorCode }[];
}

/** `SetTargetAssignment` response (0, 69, 42 or -1). */
export interface SetTargetAssignmentResponse {
  errorCode: ErrorCode;
  errorMessage: string | null;
}

/** `OffsetCommitResponse`: topics and partitions in request order, each partition with its error. */
export interface OffsetCommitResponse {
  throttleTimeMs: number;
  topics: {
    name: string;
    /** Version 10 only (the request's, or the zero UUID). */
    topicId?: string;
    partitions: { partitionIndex: number; errorCode: ErrorCode }[];
  }[];
}

/** A partition's committed offset in an `OffsetFetch` answer (-1, -1, `""` when none). */
export interface OffsetFetchResponsePartition {
  partitionIndex: number;
  committedOffset: Int64;
  committedLeaderEpoch: number;
  metadata: string;
  errorCode: ErrorCode;
}

/** `OffsetFetchResponse` in its version 8+ shape: one entry per requested group, in request order; a refused group has its error and no topics. */
export interface OffsetFetchResponse {
  throttleTimeMs: number;
  groups: {
    groupId: string;
    topics: {
      name: string;
      /** Version 10 only: the request's, or for all offsets the topic image's (zero UUID: none). */
      topicId?: string;
      partitions: OffsetFetchResponsePartition[];
    }[];
    errorCode: ErrorCode;
  }[];
}

/**
 * `OffsetDeleteResponse`: a group-level error (69 unknown group, 24 empty id) with no topics, or
 * every topic and partition of the request in its order, each partition 0 or 86
 * (`GROUP_SUBSCRIBED_TO_TOPIC`).
 */
export interface OffsetDeleteResponse {
  errorCode: ErrorCode;
  throttleTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: ErrorCode }[] }[];
}

/**
 * `DescribeGroupsResponse`: one entry per requested group, in request order. A streams group or
 * an unknown id is `Dead`, with 69 and Kafka's message from version 6 on (0 and null before);
 * the simple group of an admin's commit is `Empty`.
 */
export interface DescribeGroupsResponse {
  throttleTimeMs: number;
  groups: {
    errorCode: ErrorCode;
    errorMessage: string | null;
    groupId: string;
    groupState: string;
    protocolType: string;
    protocolData: string;
    /** Always empty: the coordinator holds no classic group with members. */
    members: never[];
    /** Kafka's default, -2147483648 (the broker's authorizer fills it). */
    authorizedOperations: number;
  }[];
}

/**
 * `ConsumerGroupDescribeResponse`: no group here is a consumer group, so every entry is an error
 * (24 for an empty id, first; 69 "Group g is not a consumer group." or "Group g not found.").
 */
export interface ConsumerGroupDescribeResponse {
  throttleTimeMs: number;
  groups: {
    errorCode: ErrorCode;
    errorMessage: string | null;
    groupId: string;
    groupState: string;
    groupEpoch: number;
    assignmentEpoch: number;
    assignorName: string;
    members: never[];
    authorizedOperations: number;
  }[];
}

/** `StreamsGroupTopologyDescriptionUpdate` response (kafka-4.4): 0, or why the push was refused
 * (35 no plugin, 42 invalid, 25 unknown member, 69 unknown group). */
export interface StreamsGroupTopologyDescriptionUpdateResponse {
  throttleTimeMs: number;
  errorCode: ErrorCode;
  errorMessage: string | null;
}

/** `ListGroupsResponse`, in the order of Kafka's group map. */
export interface ListGroupsResponse {
  throttleTimeMs: number;
  errorCode: ErrorCode;
  groups: {
    groupId: string;
    /** `streams`, or `""` for the simple group of an admin's commit. */
    protocolType: string;
    /** `Stable`, `NotReady`, `Empty`, ... (a simple group: `Empty`). */
    groupState: string;
    /** `streams` or `classic`. */
    groupType: string;
  }[];
}

/** The response each input type answers with. */
export interface ResponseOf {
  StreamsGroupHeartbeat: StreamsGroupHeartbeatResponse;
  StreamsGroupInitialize: StreamsGroupInitializeResponse;
  StreamsGroupDescribe: StreamsGroupDescribeResponse;
  TopicMetadata: null;
  AdvanceTime: null;
  DeleteGroups: DeleteGroupsResponse;
  Replay: null;
  SetTargetAssignment: SetTargetAssignmentResponse;
  OffsetCommit: OffsetCommitResponse;
  OffsetFetch: OffsetFetchResponse;
  ListGroups: ListGroupsResponse;
  StreamsGroupTopologyDescriptionUpdate: StreamsGroupTopologyDescriptionUpdateResponse;
  OffsetDelete: OffsetDeleteResponse;
  DescribeGroups: DescribeGroupsResponse;
  ConsumerGroupDescribe: ConsumerGroupDescribeResponse;
  /** The shape of `OffsetCommit`'s (`topicId` at version 6). */
  TxnOffsetCommit: OffsetCommitResponse;
  TransactionCompleted: null;
  GroupConfig: null;
}

/** Any response. */
export type CoordinatorResponse = ResponseOf[InputType];

/** The response each input type answers with in the kafka-4.2 dialect. */
export interface ResponseOf42 {
  StreamsGroupHeartbeat: StreamsGroupHeartbeatResponse42;
  /** Always `UNSUPPORTED_VERSION` (35): 4.2 has no initialize RPC. */
  StreamsGroupInitialize: StreamsGroupInitializeResponse;
  StreamsGroupDescribe: StreamsGroupDescribeResponse42;
  TopicMetadata: null;
  AdvanceTime: null;
  DeleteGroups: DeleteGroupsResponse;
  Replay: null;
  SetTargetAssignment: SetTargetAssignmentResponse;
  OffsetCommit: OffsetCommitResponse;
  OffsetFetch: OffsetFetchResponse;
  ListGroups: ListGroupsResponse;
  /** kafka-4.4 only; an earlier release refuses the input. */
  StreamsGroupTopologyDescriptionUpdate: StreamsGroupTopologyDescriptionUpdateResponse;
  OffsetDelete: OffsetDeleteResponse;
  DescribeGroups: DescribeGroupsResponse;
  ConsumerGroupDescribe: ConsumerGroupDescribeResponse;
  /** The shape of `OffsetCommit`'s (`topicId` at version 6). */
  TxnOffsetCommit: OffsetCommitResponse;
  TransactionCompleted: null;
  GroupConfig: null;
}

/** What changes with the dialect: responses, records and snapshot groups. */
export interface DialectTypes {
  'kip1071-draft': { responses: ResponseOf; record: CoordinatorRecord; snapshotGroup: SnapshotGroup };
  'kafka-4.2': { responses: ResponseOf42; record: Kafka42Record; snapshotGroup: SnapshotGroup42 };
  'kafka-4.3': DialectTypes['kafka-4.2'];
  'kafka-4.4': DialectTypes['kafka-4.2'];
}

/** The output `handle` gives an input of type `T` in dialect `D`. */
export type OutputOf<T extends InputType, D extends Dialect = 'kip1071-draft'> = HandleResult<DialectTypes[D]['responses'][T], DialectTypes[D]['record']>;

// ---------------------------------------------------------------------------------------------
// Records (PROTOCOL 5.2, 5.7): the shape `kafka-dump-log.sh --offsets-decoder` prints

export interface GroupKey {
  groupId: string;
}

export interface MemberKey {
  groupId: string;
  memberId: string;
}

/** `StreamsGroupMetadataValue`. */
export interface GroupMetadataValue {
  epoch: number;
  /** kafka-4.2 only. */
  metadataHash?: Int64;
  /** kafka-4.2 only (tagged; written when not -1). */
  validatedTopologyEpoch?: number;
  /** kafka-4.2 only (tagged, nullable). */
  lastAssignmentConfigs?: KeyValue[];
  /** kafka-4.4 only (tagged; written when not -1): the topology epoch whose description the store holds (-2: being stored). */
  storedDescriptionTopologyEpoch?: number;
  /** kafka-4.4 only (tagged; written when not -1): the topology epoch whose description failed to store. */
  failedDescriptionTopologyEpoch?: number;
}

export interface PartitionRacks {
  partition: number;
  racks: string[];
}

export interface PartitionMetadataTopic {
  /** 22-character URL-safe base64 UUID. */
  topicId: string;
  topicName: string;
  numPartitions: number;
  partitionMetadata: PartitionRacks[];
}

/** `StreamsGroupPartitionMetadataValue` (draft only). */
export interface PartitionMetadataValue {
  topics: PartitionMetadataTopic[];
}

/** `StreamsGroupMemberMetadataValue`. */
export interface MemberMetadataValue {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  /** Draft only. */
  topologyId?: string;
  /** kafka-4.2 only, in place of `topologyId`. */
  topologyEpoch?: number;
  processId: string;
  userEndpoint: Endpoint | null;
  clientTags: KeyValue[];
}

export interface TargetAssignmentMetadataValue {
  assignmentEpoch: number;
  /** kafka-4.3 and later: when the assignment was computed (absent when 0). */
  assignmentTimestamp?: number;
}

export type TargetAssignmentMemberValue = Assignment;

/** Task ids in a current-assignment record; kafka-4.2 adds per-partition assignment epochs. */
export interface RecordTaskIds extends TaskIds {
  /** kafka-4.2 only (tagged, nullable). */
  assignmentEpochs?: number[];
}

/** Member states as stored: 1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS, 127 UNKNOWN. */
export type MemberStateCode = 1 | 2 | 3 | 127;

/** `StreamsGroupCurrentMemberAssignmentValue`. */
export interface CurrentMemberAssignmentValue {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberStateCode;
  activeTasks: RecordTaskIds[];
  standbyTasks: RecordTaskIds[];
  warmupTasks: RecordTaskIds[];
  activeTasksPendingRevocation: RecordTaskIds[];
  standbyTasksPendingRevocation: RecordTaskIds[];
  warmupTasksPendingRevocation: RecordTaskIds[];
}

/** A subtopology as the topology record stores it (every list present). */
export interface RecordSubtopology {
  subtopologyId: string;
  sourceTopics: string[];
  sourceTopicRegex: string[];
  stateChangelogTopics: Required<TopicInfo>[];
  repartitionSinkTopics: string[];
  repartitionSourceTopics: Required<TopicInfo>[];
  copartitionGroups: Required<CopartitionGroup>[];
}

/** `StreamsGroupTopologyValue`, draft form. */
export interface TopologyValue {
  topologyId: string;
  topology: RecordSubtopology[];
}

/** `StreamsGroupTopologyValue`, kafka-4.2 form. */
export interface TopologyValue42 {
  epoch: number;
  subtopologies: RecordSubtopology[];
}

/**
 * One record. `T` is the record type id, `K` the key data, `V` the value data. A tombstone's
 * `value` is null. With the `recordBytes` setting, `keyBytes`/`valueBytes` (standard base64 of
 * Kafka's binary encoding; `valueBytes` null for a tombstone) are present too.
 */
export interface RecordOf<T extends number, K, V> {
  key: { type: T; data: K };
  value: { version: 0; data: V } | null;
  keyBytes?: string;
  valueBytes?: string | null;
}

/** The draft dialect's records (type ids 15-21; offset commits are type 1 in both dialects). */
export type GroupMetadataRecord = RecordOf<15, GroupKey, GroupMetadataValue>;
export type PartitionMetadataRecord = RecordOf<16, GroupKey, PartitionMetadataValue>;
export type MemberMetadataRecord = RecordOf<17, MemberKey, MemberMetadataValue>;
export type TargetAssignmentMetadataRecord = RecordOf<18, GroupKey, TargetAssignmentMetadataValue>;
export type TargetAssignmentMemberRecord = RecordOf<19, MemberKey, TargetAssignmentMemberValue>;
export type CurrentMemberAssignmentRecord = RecordOf<20, MemberKey, CurrentMemberAssignmentValue>;
export type TopologyRecord = RecordOf<21, GroupKey, TopologyValue>;

/** `OffsetCommitKey` (type 1 in every dialect), in Kafka's field names. */
export interface OffsetCommitKey {
  group: string;
  topic: string;
  partition: number;
}

/** `OffsetCommitValue` version 4, as a commit without a retention time writes it. */
export interface OffsetCommitValue4 {
  offset: Int64;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: Int64;
  /** Tagged: the committed topic's id (version 10 commits), absent when the zero UUID. */
  topicId?: string;
}

/** `OffsetCommitValue` version 1, as a commit with a retention time (versions 2-4) writes it. */
export interface OffsetCommitValue1 {
  offset: Int64;
  metadata: string;
  commitTimestamp: Int64;
  expireTimestamp: Int64;
}

/**
 * A committed offset (type 1 in both dialects; key `{group, topic, partition}`), its value at
 * version 4, or 1 with a retention time; a tombstone when the offset expired or was deleted.
 */
export interface OffsetCommitRecord {
  key: { type: 1; data: OffsetCommitKey };
  value: { version: 4; data: OffsetCommitValue4 } | { version: 1; data: OffsetCommitValue1 } | null;
  keyBytes?: string;
  valueBytes?: string | null;
  /** A `TxnOffsetCommit`'s record: its transactional batch's producer (pending until `TransactionCompleted`). */
  producerId?: Int64;
  producerEpoch?: number;
}

/**
 * Kafka's classic group record (`GroupMetadataKey`, type 2 in every dialect; key `{group}`),
 * written only as a tombstone: the simple classic group of an admin's commit is deleted
 * (`DeleteGroups`, the cleanup, or a streams group taking the id, whose records follow). A
 * `Replay` record of type 2 with a value (a classic group) is skipped.
 */
export interface ClassicGroupMetadataRecord {
  key: { type: 2; data: { group: string } };
  value: null;
  keyBytes?: string;
  valueBytes?: null;
}

/** An offset commit record at any value version Kafka reads (0-4), as `Replay` accepts it. */
export interface OffsetCommitReplayRecord {
  key: { type: 1; data: OffsetCommitKey };
  value:
    | { version: 0 | 2; data: { offset: Int64; metadata: string; commitTimestamp: Int64 } }
    | { version: 1; data: OffsetCommitValue1 }
    | { version: 3; data: Omit<OffsetCommitValue4, 'topicId'> }
    | { version: 4; data: OffsetCommitValue4 }
    | null;
  keyBytes?: string;
  valueBytes?: string | null;
  /** A record of a transactional batch: both or neither, 0 or more. */
  producerId?: Int64;
  producerEpoch?: number;
}

/** A record of the draft dialect, discriminated by `key.type`. */
export type CoordinatorRecord =
  | OffsetCommitRecord
  | ClassicGroupMetadataRecord
  | GroupMetadataRecord
  | PartitionMetadataRecord
  | MemberMetadataRecord
  | TargetAssignmentMetadataRecord
  | TargetAssignmentMemberRecord
  | CurrentMemberAssignmentRecord
  | TopologyRecord;

/** A draft record type id. */
export type RecordType = CoordinatorRecord['key']['type'];

/** The record of a type id, e.g. `RecordWithType<20>` is a `CurrentMemberAssignmentRecord`. */
export type RecordWithType<T extends RecordType> = Extract<CoordinatorRecord, { key: { type: T } }>;

/** The draft record type ids by name. */
export declare const RecordTypes: DraftRecordTypes;

export interface DraftRecordTypes {
  readonly OFFSET_COMMIT: 1;
  readonly CLASSIC_GROUP_METADATA: 2;
  readonly GROUP_METADATA: 15;
  readonly PARTITION_METADATA: 16;
  readonly MEMBER_METADATA: 17;
  readonly TARGET_ASSIGNMENT_METADATA: 18;
  readonly TARGET_ASSIGNMENT_MEMBER: 19;
  readonly CURRENT_MEMBER_ASSIGNMENT: 20;
  readonly TOPOLOGY: 21;
}

/** Released Kafka's record type ids (the same in 4.2, 4.3 and 4.4). */
export interface KafkaRecordTypes {
  readonly OFFSET_COMMIT: 1;
  readonly CLASSIC_GROUP_METADATA: 2;
  readonly GROUP_METADATA: 17;
  readonly MEMBER_METADATA: 19;
  readonly TARGET_ASSIGNMENT_METADATA: 20;
  readonly TARGET_ASSIGNMENT_MEMBER: 21;
  readonly CURRENT_MEMBER_ASSIGNMENT: 22;
  readonly TOPOLOGY: 23;
}

/** Record type ids by name, per dialect (PROTOCOL 5.1). */
export declare const RecordTypesByDialect: {
  readonly 'kip1071-draft': DraftRecordTypes;
  readonly 'kafka-4.2': KafkaRecordTypes;
  readonly 'kafka-4.3': KafkaRecordTypes;
  readonly 'kafka-4.4': KafkaRecordTypes;
};

/**
 * Narrows a record by its type id (TypeScript cannot narrow on the nested `key.type`):
 * `if (isRecordType(r, RecordTypes.CURRENT_MEMBER_ASSIGNMENT)) r.value?.data.memberEpoch`.
 */
export declare function isRecordType<T extends RecordType>(record: CoordinatorRecord, type: T): record is RecordWithType<T>;

/** The kafka-4.2 dialect's records (type ids 1, 2, 17, 19-23). */
export type Kafka42Record =
  | OffsetCommitRecord
  | ClassicGroupMetadataRecord
  | RecordOf<17, GroupKey, GroupMetadataValue>
  | RecordOf<19, MemberKey, MemberMetadataValue>
  | RecordOf<20, GroupKey, TargetAssignmentMetadataValue>
  | RecordOf<21, MemberKey, TargetAssignmentMemberValue>
  | RecordOf<22, MemberKey, CurrentMemberAssignmentValue>
  | RecordOf<23, GroupKey, TopologyValue42>;

/** A record read from a log in binary form only (`producerId`/`producerEpoch`: a transactional batch's). */
export interface RecordBytes {
  keyBytes: string;
  valueBytes: string | null;
  producerId?: Int64;
  producerEpoch?: number;
}

/**
 * What `Replay` accepts: records in JSON form (records of other kinds, e.g. other group types,
 * are skipped), in bytes form, or both (which must agree).
 */
export type ReplayRecord =
  | CoordinatorRecord
  | Kafka42Record
  | OffsetCommitReplayRecord
  | ClassicGroupReplayRecord
  | RecordOf<number, { groupId: string; [field: string]: unknown }, unknown>
  | RecordBytes;

/**
 * A classic group's record (type 2) as a log holds it: its tombstone deletes the simple group
 * of an admin's commit; a value (a classic group, any version) is skipped.
 */
export interface ClassicGroupReplayRecord {
  key: { type: 2; data: { group: string } };
  value: null | { version: number; data: { [field: string]: unknown } };
  keyBytes?: string;
  valueBytes?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Explanations (DESIGN 3 `explain`); new codes may be added, these keep their meaning

export type GroupState =
  | 'INITIALIZING'
  | 'NOT_READY'
  | 'EMPTY'
  | 'ASSIGNING'
  | 'RECONCILING'
  | 'STABLE'
  | 'DEAD';

export type MemberState = 'STABLE' | 'UNREVOKED_TASKS' | 'UNRELEASED_TASKS' | 'UNKNOWN';

export type EpochBumpReason =
  | 'MEMBER_JOINED'
  | 'MEMBER_LEFT'
  | 'MEMBER_FENCED'
  | 'MEMBER_METADATA_CHANGED'
  | 'TOPOLOGY_INITIALIZED'
  | 'TOPOLOGY_CHANGED'
  | 'TOPIC_METADATA_CHANGED'
  | 'ASSIGNMENT_CONFIG_CHANGED'
  | 'MANUAL_ASSIGNMENT'
  /** kafka-4.2: the topology became ready (validated) or stopped being ready. */
  | 'TOPOLOGY_READINESS_CHANGED'
  /** A warm-up task caught up (its reported lag is within the acceptable recovery lag). */
  | 'WARMUP_CAUGHT_UP';

export type FenceCause = 'LEAVE' | 'SESSION_TIMEOUT' | 'REBALANCE_TIMEOUT' | 'INITIALIZATION_TIMEOUT';

export type TimerKind =
  | 'session-timeout'
  | 'rebalance-timeout'
  | 'topology-initialization'
  | 'initial-rebalance-delay'
  | 'retention'
  | 'assignment-interval';

export interface GroupEpochBumped {
  code: 'GROUP_EPOCH_BUMPED';
  groupId: string;
  from: number;
  to: number;
  reasons: EpochBumpReason[];
}

export interface MemberFenced {
  code: 'MEMBER_FENCED';
  groupId: string;
  memberId: string;
  cause: FenceCause;
  /** Present for static members. */
  instanceId?: string;
}

export interface StaticMemberReplaced {
  code: 'STATIC_MEMBER_REPLACED';
  groupId: string;
  instanceId: string;
  oldMemberId: string;
  newMemberId: string;
}

export interface StaticMemberLeftTemporarily {
  code: 'STATIC_MEMBER_LEFT_TEMPORARILY';
  groupId: string;
  memberId: string;
  instanceId: string;
  /** When the session timeout fences the member unless it comes back. */
  expiresAtMs: Int64;
}

export interface StaticMemberExpired {
  code: 'STATIC_MEMBER_EXPIRED';
  groupId: string;
  memberId: string;
  instanceId: string;
}

export interface TargetAssignmentComputed {
  code: 'TARGET_ASSIGNMENT_COMPUTED';
  groupId: string;
  assignmentEpoch: number;
  /** Active tasks whose owner changed between members that are in the group. */
  tasksMoved: Int64;
  /** Active tasks of members that left or were fenced since the previous target, now given to others. */
  tasksReassigned: Int64;
  assignor: 'sticky' | 'high-availability' | 'manual';
}

export interface MemberStateChanged {
  code: 'MEMBER_STATE_CHANGED';
  groupId: string;
  memberId: string;
  from: MemberState;
  to: MemberState;
  memberEpoch: number;
}

export interface GroupStateChanged {
  code: 'GROUP_STATE_CHANGED';
  groupId: string;
  from: GroupState;
  to: GroupState;
}

export interface GroupDeleted {
  code: 'GROUP_DELETED';
  groupId: string;
  cause: 'DELETE_GROUPS' | 'RETENTION_EXPIRED';
}

export interface TopologyInitializationRequested {
  code: 'TOPOLOGY_INITIALIZATION_REQUESTED';
  groupId: string;
  memberId: string;
  topologyId: string;
}

/** kafka-4.2: the initial rebalance delay holds the first target back until `untilMs`. */
/**
 * No target is computed before `untilMs`: the 4.2 initial rebalance delay (no `cause`), or
 * assignment batching (`cause: 'ASSIGNMENT_INTERVAL'`, `group.streams.assignment.interval.ms`).
 */
export interface AssignmentDelayed {
  code: 'ASSIGNMENT_DELAYED';
  groupId: string;
  untilMs: Int64;
  cause?: 'ASSIGNMENT_INTERVAL';
}

/** A task stays active on a caught-up member while `memberId`, its balanced owner, warms it up. */
export interface WarmupAssigned {
  code: 'WARMUP_ASSIGNED';
  groupId: string;
  memberId: string;
  subtopologyId: string;
  partition: number;
  activeMemberId: string;
  /** The member's reported lag on the task; null when unknown. */
  lag: Int64 | null;
  acceptableRecoveryLag: number;
}

export interface TimerDropped {
  code: 'TIMER_DROPPED';
  groupId: string;
  timer: TimerKind;
  message: string;
}

/** A request failed with UNKNOWN_SERVER_ERROR (-1), which the `kafka-*` dialects answer without a message, as Kafka does: the cause. */
export interface ServerError {
  code: 'SERVER_ERROR';
  groupId: string;
  message: string;
}

/** The periodic cleanup (`kafka-*` dialects) expired `partitions` committed offsets of a group. */
export interface OffsetsExpired {
  code: 'OFFSETS_EXPIRED';
  groupId: string;
  partitions: number;
}

/**
 * An offsets request (`request`) was refused as a whole with Kafka error `error` (e.g.
 * `'STALE_MEMBER_EPOCH'`): Kafka's exception message, which its responses do not carry.
 */
export interface OffsetsRefused {
  code: 'OFFSETS_REFUSED';
  groupId: string;
  request: 'OffsetCommit' | 'OffsetFetch' | 'OffsetDelete' | 'TxnOffsetCommit';
  /** The error code's name, e.g. `'UNKNOWN_MEMBER_ID'`, `'ILLEGAL_GENERATION'`, `'UNSUPPORTED_VERSION'`. */
  error: string;
  message: string;
}

/**
 * A transaction with pending offsets in the group completed (`TransactionCompleted`): of its
 * `partitions` pending offsets, `committed` became the committed ones (0 on `ABORT`; a commit
 * keeps a newer committed offset of a partition).
 */
export interface TransactionCompleted {
  code: 'TRANSACTION_COMPLETED';
  groupId: string;
  producerId: Int64;
  result: 'COMMIT' | 'ABORT';
  partitions: number;
  committed: number;
}

/** One entry of `explain`: why something happened, discriminated by `code`. */
export type Explain =
  | GroupEpochBumped
  | MemberFenced
  | StaticMemberReplaced
  | StaticMemberLeftTemporarily
  | StaticMemberExpired
  | TargetAssignmentComputed
  | MemberStateChanged
  | GroupStateChanged
  | GroupDeleted
  | TopologyInitializationRequested
  | AssignmentDelayed
  | WarmupAssigned
  | TimerDropped
  | ServerError
  | OffsetsExpired
  | OffsetsRefused
  | TransactionCompleted;

export type ExplainCode = Explain['code'];

// ---------------------------------------------------------------------------------------------
// Outputs

/** A configuration entry of a topic to create. */
export interface TopicConfigEntry {
  name: string;
  value: string;
}

/** A topic the host must create (internal topics of an initialized topology). */
export interface TopicToCreate {
  name: string;
  numPartitions: number;
  /** -1 = broker default. */
  replicationFactor: number;
  configs: TopicConfigEntry[];
}

/** What `handle` answers to an input it understood. Every field is present. */
export interface Output<R = CoordinatorResponse, Rec = CoordinatorRecord> {
  /** Null for inputs that answer nothing (`TopicMetadata`, `AdvanceTime`, `Replay`). */
  response: R;
  /** Every record written, timer firings first, in order (the dialect's records). */
  records: Rec[];
  topicsToCreate: TopicToCreate[];
  explain: Explain[];
  /** The earliest pending timer deadline: when to send `AdvanceTime`. */
  nextDeadlineMs: Int64 | null;
}

export type BoundaryErrorCode = 'INVALID_INPUT' | 'INVALID_CONFIG' | 'INVALID_RECORD' | 'TOO_LARGE' | 'INVALID_FRAME';

export interface BoundaryError {
  code: BoundaryErrorCode;
  message: string;
  /** JSON path of the offending value, e.g. `request.memberEpoch` or `records[2]`; `""` for the whole input. */
  path: string;
}

/** The whole output for input that cannot be understood; nothing changed. */
export interface ErrorOutput {
  error: BoundaryError;
}

/** What `handle(object)` returns. Narrow with `'error' in out` or `isError(out)`. */
export type HandleResult<R = CoordinatorResponse, Rec = CoordinatorRecord> = Output<R, Rec> | ErrorOutput;

/**
 * What `handleRequest` answers to a request frame it took: the response frame (header and body,
 * without Kafka's 4-byte size) and the same other fields as `handle` (empty for `ApiVersions`,
 * which the wire face answers itself).
 */
export interface FrameOutput<Rec = CoordinatorRecord> {
  /** The response frame to send (after its int32 size). */
  response: Uint8Array;
  records: Rec[];
  topicsToCreate: TopicToCreate[];
  explain: Explain[];
  nextDeadlineMs: Int64 | null;
}

/**
 * What `handleRequest` returns: narrow with `'error' in out` or `isError(out)`. `INVALID_FRAME`
 * is a frame Kafka closes the connection on (an API key or version the dialect does not serve,
 * a header or body that does not read); nothing changed.
 */
export type FrameResult<Rec = CoordinatorRecord> = FrameOutput<Rec> | ErrorOutput;

/** Kafka's ACL operations, by name, as `options.authorize` is asked them (never `'ALL'`). */
export type AclOperationName =
  | 'READ'
  | 'WRITE'
  | 'CREATE'
  | 'DELETE'
  | 'ALTER'
  | 'DESCRIBE'
  | 'CLUSTER_ACTION'
  | 'DESCRIBE_CONFIGS'
  | 'ALTER_CONFIGS'
  | 'IDEMPOTENT_WRITE'
  | 'CREATE_TOKENS'
  | 'DESCRIBE_TOKENS'
  | 'TWO_PHASE_COMMIT';

/** Kafka's resource types, by name. The cluster resource is named `'kafka-cluster'`. */
export type ResourceTypeName = 'TOPIC' | 'GROUP' | 'CLUSTER' | 'TRANSACTIONAL_ID' | 'DELEGATION_TOKEN' | 'USER';

/**
 * One allowed operation of `AuthorizationDecisions`: on the resource `name` (`LITERAL`, the
 * default; `'*'`: every resource of the type) or on every resource whose name starts with
 * `name` (`PREFIXED`). `'ALL'` allows every operation; `READ`, `WRITE`, `DELETE` and `ALTER`
 * imply `DESCRIBE`, `ALTER_CONFIGS` implies `DESCRIBE_CONFIGS`.
 */
export interface AuthorizationGrant {
  operation: AclOperationName | 'ALL';
  resourceType: ResourceTypeName;
  name: string;
  patternType?: 'LITERAL' | 'PREFIXED';
}

/** The operations one principal is allowed (docs/authorization.md); everything else is denied. */
export interface AuthorizationDecisions {
  /** Allowed everything (Kafka's `super.users`). */
  superUser?: boolean;
  allow?: AuthorizationGrant[];
}

/**
 * The host's authorizer for the request's principal: only `true` allows (anything else, or a
 * throw, denies). Asked concrete operations only; implied operations are its business (an
 * authorizer that allows `READ` on a group should allow `DESCRIBE` on it, as Kafka's does).
 */
export type AuthorizeCallback = (operation: AclOperationName, resourceType: ResourceTypeName, name: string) => boolean;

/** The options of `handleRequest`. */
export interface HandleRequestOptions {
  /**
   * Kafka's authorization of the request's principal: a callback, or the allow-list (an object
   * or its JSON text). Left out: nothing is checked. Decisions that do not read answer
   * `{error}` with code `INVALID_INPUT` at path `options.authorize`.
   */
  authorize?: AuthorizeCallback | AuthorizationDecisions | string | null;
}

/** A response frame read back by `decodeResponse`. */
export interface DecodedResponse {
  correlationId: number;
  /** Kafka's JSON form of the response message: the schema's field names, first letter lower case. */
  response: { [field: string]: unknown };
}

/** An API a coordinator serves on the wire, as its `ApiVersions` answer lists it. */
export interface ServedApi {
  apiKey: number;
  /** The schema's name, e.g. `'StreamsGroupHeartbeat'`. */
  name: string;
  minVersion: number;
  maxVersion: number;
}

/** The inputs `encodeRequest` can write as a request frame (`nowMs` may be left out). */
export type RequestInput =
  | Omit<StreamsGroupHeartbeatInput, 'nowMs'>
  | Omit<StreamsGroupInitializeInput, 'nowMs'>
  | Omit<StreamsGroupDescribeInput, 'nowMs'>
  | Omit<DeleteGroupsInput, 'nowMs'>
  | Omit<StreamsGroupTopologyDescriptionUpdateInput, 'nowMs'>
  | (StreamsGroupHeartbeatInput | StreamsGroupInitializeInput | StreamsGroupDescribeInput | DeleteGroupsInput | StreamsGroupTopologyDescriptionUpdateInput);

/**
 * An `Error` thrown by the constructor, `replay`, `topologyId`, `partitionFor`, `encodeRequest`,
 * `decodeResponse` and the host kit (`routeRequest`, `mergeResponses`, `errorResponse`,
 * `isMine`, `answerApiVersions`). `NOT_IN_WEB_BUILD`: the browser build (`web.mjs`, built for
 * size) leaves out `handleRequest`, `decodeResponse` and the host kit, which are a broker's and
 * a Node test client's; they are in the Node build.
 */
export interface CoordinatorError extends Error {
  code: BoundaryErrorCode | 'NOT_IN_WEB_BUILD';
  path: string;
}

// ---------------------------------------------------------------------------------------------
// Snapshot (`Coordinator.snapshot()`)

export interface SnapshotMember extends DescribedMember {
  previousMemberEpoch: number;
  memberState: MemberState;
  /** Tasks the member still has to revoke. */
  pendingRevocation: Assignment;
  userEndpoint: Endpoint | null;
}

export interface SnapshotGroup extends Omit<DescribedGroup, 'members'> {
  members: SnapshotMember[];
  /** The state code, e.g. `'STABLE'`. */
  state: GroupState;
  /** The stored topology's id; null while initializing. */
  topologyId: string | null;
  /** The member that asked the application to shut down, if any. */
  shutdownRequestedBy: string | null;
  /** Why the group has (or has no) tasks: the topology's configuration against the topics. */
  configuration: SnapshotConfiguration;
}

export interface SnapshotMember42 extends DescribedMember42 {
  previousMemberEpoch: number;
  memberState: MemberState;
  pendingRevocation: Assignment;
  userEndpoint: Endpoint | null;
}

/** A kafka-4.2 group in a snapshot: the 4.2 describe shape plus the same extras. */
export interface SnapshotGroup42 extends Omit<DescribedGroup42, 'members'> {
  members: SnapshotMember42[];
  state: GroupState;
  shutdownRequestedBy: string | null;
  configuration: SnapshotConfiguration;
}

/** The configuration result of PROTOCOL 2.11; `subtopologies` only when `READY`. */
export interface SnapshotConfiguration {
  status:
    | 'NO_TOPOLOGY'
    | 'READY'
    | 'MISSING_SOURCE_TOPICS'
    | 'INVALID'
    | 'SOURCE_TOPICS_INCORRECTLY_PARTITIONED'
    | 'INTERNAL_TOPICS_INCORRECTLY_PARTITIONED'
    | 'INTERNAL_TOPICS_MISMATCH'
    | 'MISSING_INTERNAL_TOPICS';
  /** Missing names, a message, or `{name, expected, found}` entries, by status. */
  detail: string | string[] | { name: string; expected: number; found: number }[] | null;
  subtopologies: { subtopologyId: string; numTasks: number; stateful: boolean }[];
}

export interface SnapshotTimer {
  kind: TimerKind;
  groupId: string;
  /** Member id, topology id, or `""` for group-level timers. */
  subject: string;
  deadlineMs: Int64;
}

/** Every group as describe shows it, plus pending timers and the topic image. */
export interface Snapshot<D extends Dialect = 'kip1071-draft'> {
  nowMs: Int64;
  groups: DialectTypes[D]['snapshotGroup'][];
  timers: SnapshotTimer[];
  topics: { name: string; partitions: number }[];
}

// ---------------------------------------------------------------------------------------------
// The coordinator

/**
 * A deterministic, sans-IO streams group coordinator. `D` is its dialect: settings with
 * `dialect: 'kafka-4.2'` make a `Coordinator<'kafka-4.2'>`, any other settings a
 * `Coordinator<'kip1071-draft'>`.
 */
export interface Coordinator<D extends Dialect = 'kip1071-draft'> {
  /** Handles one input; answers an object for an object. */
  handle(input: StreamsGroupHeartbeatInput): OutputOf<'StreamsGroupHeartbeat', D>;
  handle(input: StreamsGroupInitializeInput): OutputOf<'StreamsGroupInitialize', D>;
  handle(input: StreamsGroupDescribeInput): OutputOf<'StreamsGroupDescribe', D>;
  handle(input: TopicMetadataInput): OutputOf<'TopicMetadata', D>;
  handle(input: GroupConfigInput): OutputOf<'GroupConfig', D>;
  handle(input: AdvanceTimeInput): OutputOf<'AdvanceTime', D>;
  handle(input: DeleteGroupsInput): OutputOf<'DeleteGroups', D>;
  handle(input: ReplayInput): OutputOf<'Replay', D>;
  handle(input: SetTargetAssignmentInput): OutputOf<'SetTargetAssignment', D>;
  handle(input: OffsetCommitInput): OutputOf<'OffsetCommit', D>;
  handle(input: OffsetFetchInput): OutputOf<'OffsetFetch', D>;
  handle(input: Input): HandleResult<DialectTypes[D]['responses'][InputType], DialectTypes[D]['record']>;
  /** Handles one input as JSON text; answers JSON text (the same bytes as the `sgc` command). */
  handle(input: string): string;

  /**
   * Applies records (JSON form or bytes form, or JSON text of such a list) at `nowMs` (default:
   * the latest time seen), as a `Replay` input: due timers fire first and the output carries
   * their records. Throws a `CoordinatorError` when one cannot be applied, and then nothing
   * changed.
   */
  replay(records: ReplayRecord[] | string, nowMs?: number | null): Output<null, DialectTypes[D]['record']>;

  /** Every group, the pending timers and the topic image. */
  snapshot(): Snapshot<D>;

  /**
   * Kafka's wire face: handles one request frame (header and body, without the 4-byte size the
   * connection carries) at `nowMs` from the client at `clientHost` (Kafka's form, `'/10.0.0.1'`;
   * default `''`). Answers the response frame and the same other fields as `handle`, or
   * `{error}` (never a throw) for a frame it cannot take, and then nothing changed. Node build
   * only: the browser build (`web.mjs`, built for size) throws a `CoordinatorError` with code
   * `NOT_IN_WEB_BUILD`. With `options.authorize`, the frame is handled behind Kafka's
   * authorization as the dialect's release applies it: a client that is not allowed is answered
   * as Kafka answers it (`GROUP_AUTHORIZATION_FAILED`, `TOPIC_AUTHORIZATION_FAILED`, ...).
   */
  handleRequest(
    frame: Uint8Array,
    nowMs: Int64,
    clientHost?: string | null,
    options?: HandleRequestOptions | null,
  ): FrameResult<DialectTypes[D]['record']>;

  /**
   * The request frame (without the 4-byte size) a client sends for `input` in this
   * coordinator's dialect, at `apiVersion` with `correlationId`; `null` for an input that is no
   * request the dialect serves at that version (e.g. `AdvanceTime`). Throws a
   * `CoordinatorError` for an input it cannot understand.
   */
  encodeRequest(input: RequestInput | Input | string, apiVersion: number, correlationId: number): Uint8Array | null;

  /**
   * A response frame (without the 4-byte size) of API `apiKey` at `apiVersion` read back.
   * Throws a `CoordinatorError` (`INVALID_FRAME`) for bytes that do not read. Node build only:
   * the browser build throws `NOT_IN_WEB_BUILD`.
   */
  decodeResponse(apiKey: number, apiVersion: number, frame: Uint8Array): DecodedResponse;

  /** The APIs this coordinator serves on the wire, with their versions (its `ApiVersions` answer). */
  servedApis(): ServedApi[];

  /** Frees the wasm memory of this coordinator; it cannot be used afterwards. */
  free(): void;
  [Symbol.dispose](): void;
}

/** The `Coordinator` class: its constructors (one per dialect) and static helpers. */
export interface CoordinatorClass {
  /** Settings as an object or JSON text; throws a `CoordinatorError` (`INVALID_CONFIG`). */
  new <D extends KafkaDialect>(config: Settings & { dialect: D }): Coordinator<D>;
  new (config?: Settings | string | null): Coordinator<'kip1071-draft'>;
  readonly prototype: Coordinator<Dialect>;
  topologyId(topology: Topology | string): string;
  partitionFor(groupId: string, partitions?: number | null): number;
  version(): string;
}

export declare const Coordinator: CoordinatorClass;

/**
 * The topology id (PROTOCOL 7): lowercase hex SHA-256 of the topology's canonical form. Throws
 * a `CoordinatorError` for a malformed topology.
 */
export declare function topologyId(topology: Topology | string): string;

/** The `__consumer_offsets` partition of a group (Java's `String.hashCode` rule; default 50 partitions). */
export declare function partitionFor(groupId: string, partitions?: number | null): number;

/** The package version. */
export declare function version(): string;

// ---------------------------------------------------------------------------------------------
// The host kit: a broker's request frames routed to the coordinators of its partitions
// (docs/host-kit.md). Frames are without Kafka's 4-byte size; a frame Kafka closes the
// connection on throws a `CoordinatorError` (`INVALID_FRAME`). Node build only: in the browser
// build (`web.mjs`, built for size) each throws `NOT_IN_WEB_BUILD`.

/** What every route names: the request's API. */
export interface RouteBase {
  apiKey: number;
  apiVersion: number;
}

/** One sub-request of a request split by partition. */
export interface RoutePart {
  /** The `__consumer_offsets` partition whose coordinator answers it. */
  partition: number;
  /** Its request frame. */
  frame: Uint8Array;
}

/**
 * Where a request frame goes: `'apiVersions'` (answer it with `answerApiVersions`), `'group'`
 * (the frame as it came to the coordinator of `partition`), `'groups'` (a request for several
 * groups) or `'everyPartition'` (`ListGroups`): each part to its partition's coordinator, the
 * answers in the order of the parts to `mergeResponses`; `'host'`: an API of the host's own.
 */
export type Route = RouteBase &
  (
    | { route: 'apiVersions' }
    | { route: 'group'; groupId: string; partition: number }
    | { route: 'groups' | 'everyPartition'; parts: RoutePart[] }
    | { route: 'host' }
  );

/** An API a host serves, for `answerApiVersions` (`ServedApi` without its name will do). */
export interface HostApi {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

/** Routes a request frame among `partitions` `__consumer_offsets` partitions (default 50). */
export declare function routeRequest(dialect: Dialect, frame: Uint8Array, partitions?: number | null): Route;

/**
 * The response frame to a request `routeRequest` split: the parts' responses, in the order of
 * the parts, merged in Kafka's order (`OffsetFetch` v8+ and the draft's describe in the
 * request's order, the others partition by partition; `ListGroups`' groups together, the first
 * error kept).
 */
export declare function mergeResponses(dialect: Dialect, frame: Uint8Array, partitions: number | null | undefined, responses: Uint8Array[]): Uint8Array;

/**
 * The response frame answering `frame` with `errorCode` for every group it names (every
 * partition of a commit): Kafka's answer for a partition whose coordinator is not available
 * (`COORDINATOR_NOT_AVAILABLE`, 15) or not here (`NOT_COORDINATOR`, 16). Throws where Kafka
 * closes the connection instead.
 */
export declare function errorResponse(dialect: Dialect, frame: Uint8Array, errorCode: number): Uint8Array;

/** Whether a group's `__consumer_offsets` partition (of `partitions`, default 50) is one the host owns. */
export declare function isMine(groupId: string, partitions: number | null | undefined, owned: number[] | Set<number> | ((partition: number) => boolean)): boolean;

/**
 * The `ApiVersions` response frame to `frame`: the dialect's APIs and the host's, an API both
 * list at the versions both serve (left out when they share none).
 */
export declare function answerApiVersions(dialect: Dialect, frame: Uint8Array, hostApis?: HostApi[] | null): Uint8Array;

/**
 * KIP-345's naming rule for Kafka Streams static members: `streamInstanceId + "-" + threadId +
 * "-consumer"`, or `undefined` (no static membership) when `streamInstanceId` is unset or blank.
 */
export declare function kip345InstanceId(streamInstanceId: string | null | undefined, threadId: string): string | undefined;

/**
 * What Kafka Streams ships: `groupInstanceId + "-" + threadIndex` (1-based), or `undefined`
 * without a `group.instance.id`.
 */
export declare function streamsThreadInstanceId(groupInstanceId: string | null | undefined, threadIndex: number): string | undefined;

/**
 * What the browser build can load the wasm module from: a URL (string or `URL`), a `Response`
 * or a promise of one, the bytes, or a compiled `WebAssembly.Module`. (Typed structurally so
 * that the declarations need no DOM library.)
 */
export type WasmSource = string | ArrayBuffer | ArrayBufferView | object | PromiseLike<unknown>;

/**
 * Resolves once the wasm module is loaded. In Node it always is. In the browser it fetches the
 * `.wasm` beside the module, or loads `moduleOrPath`.
 */
export declare function ready(moduleOrPath?: WasmSource): Promise<void>;

/**
 * Loads the wasm module synchronously from its bytes or a compiled `WebAssembly.Module`
 * (browser build); a no-op in Node, where the module is always loaded.
 */
export declare function initSync(options: { module: ArrayBuffer | ArrayBufferView | object }): void;

/** `new Coordinator(config)`. */
export declare function createCoordinator<D extends KafkaDialect>(config: Settings & { dialect: D }): Coordinator<D>;
export declare function createCoordinator(config?: Settings | string | null): Coordinator<'kip1071-draft'>;

/** A log `readLog` read: its records in log order, with where each came from. */
export interface ReadLog {
  dialect: Dialect;
  /** `dump-log` (kafka-dump-log.sh text), `segment` (raw bytes), `json` (records) or `outputs` (coordinator outputs). */
  form: 'dump-log' | 'segment' | 'json' | 'outputs';
  /** Records of other kinds (other group types, unknown types). */
  skipped: number;
  /** Each record with where it is; `producerId` for a record of a transactional batch. */
  records: { offset: number | null; timestampMs: Int64 | null; record: CoordinatorRecord | Kafka42Record; producerId?: Int64 }[];
  /** The end markers of transactions (control records), `before` counting the records ahead of each. */
  markers: { before: number; offset: number | null; timestampMs: Int64 | null; producerId: Int64; result: 'COMMIT' | 'ABORT' }[];
  /** A dump's damaged lines (cut short, a record the dump tool could not decode, a batch it found invalid) or a segment's first bad batch (cut short, or failing its CRC): the records stop before the first. */
  damage: LogDamage[];
  /** What was read leniently: a newer release's value fields (tagged fields the dialect has not) left out, one per field, where it first shows. */
  warnings: LogDamage[];
}

/** A damaged line of a log (or one read leniently): where it is and what is wrong with it. */
export interface LogDamage {
  line: number | null;
  position: number | null;
  message: string;
}

/** One event of a told history, in `explain`'s style, with where in the log it shows. */
export interface HistoryEvent {
  code:
    | 'MEMBER_JOINED'
    | 'MEMBER_REMOVED'
    | 'STATIC_MEMBER_REPLACED'
    | 'STATIC_MEMBER_LEFT_TEMPORARILY'
    | 'TOPOLOGY_STORED'
    | 'GROUP_EPOCH_BUMPED'
    | 'TARGET_ASSIGNMENT_COMPUTED'
    | 'MEMBER_STATE_CHANGED'
    | 'MEMBER_RECONCILED'
    | 'GROUP_STATE_CHANGED'
    | 'GROUP_DELETED'
    /** Offsets committed at one time (a run of offset commit records): `partitions` `[{topic, partition, offset, taskHolder?, memberEpoch?}]`, `commitTimestampMs`. A transaction's commit, told at its end marker: also `producerId`, `transactional: true`, and `superseded` (`[{topic, partition, offset}]`, offsets not applied: a committed offset written after them was kept). */
    | 'OFFSETS_COMMITTED'
    /** Offsets removed (tombstones: expired, deleted with the group, or by OffsetDelete): `partitions` `[{topic, partition}]`. */
    | 'OFFSETS_REMOVED'
    /** Offset commits of a transactional batch (`TxnOffsetCommit`), pending until the producer's end marker: `producerId`, `producerEpoch`, `partitions` as `OFFSETS_COMMITTED`'s, `commitTimestampMs`. */
    | 'TRANSACTIONAL_OFFSETS_WRITTEN'
    /** A producer's end marker `ABORT`: its pending offsets are dropped: `producerId`, `partitions`. */
    | 'TRANSACTIONAL_OFFSETS_ABORTED'
    /** Pending offsets with no end marker by the log's end (told there, `offset` null): `producerId`, `partitions`. */
    | 'TRANSACTIONAL_OFFSETS_PENDING'
    | 'RECORD_NOT_APPLIED';
  groupId: string;
  /** Index of the record (in the read log) that shows it; for an end marker's events, how many records come before the marker (the log's record count at its end). */
  index: number;
  offset: number | null;
  timestampMs: Int64 | null;
  /** The event in words. */
  text: string;
  /** The code's fields, as in `explain` (`from`, `to`, `reasons`, `memberId`, `cause`, `tasksMoved`, `tookMs`, ...); `cause` and reasons are `UNKNOWN` where only the requests would tell. */
  [field: string]: unknown;
}

/** The history of a log, group by group. */
export interface History {
  dialect: Dialect;
  records: number;
  skipped: number;
  /** As `ReadLog.damage`: the history is told up to the first. */
  damage: LogDamage[];
  /** As `ReadLog.warnings`. */
  warnings: LogDamage[];
  groups: {
    groupId: string;
    summary: {
      state: GroupState;
      groupEpoch: number | null;
      assignmentEpoch: number | null;
      members: number;
      epochBumps: number;
      reconciliations: number;
      slowestReconcileMs: Int64 | null;
      deleted: boolean;
      /** Transactional offsets with no end marker of their producer by the log's end. */
      pendingTransactionalOffsets: number;
    };
    events: HistoryEvent[];
  }[];
}

/**
 * Reads a log: the text `kafka-dump-log.sh --offsets-decoder` prints (Kafka's form, string
 * `type`/`version`, `<DELETE>` tombstones, or this package's JSON records), a raw
 * `__consumer_offsets` segment (`Uint8Array`), JSON records or coordinator outputs. The dialect
 * is guessed from the record types unless given. Throws a `CoordinatorError` naming the line or
 * byte for a log it cannot read.
 */
export declare function readLog(log: string | Uint8Array, dialect?: Dialect | null): ReadLog;

/** Tells each group's history from a log's records alone (what `sgc history --json` prints). */
export declare function history(log: string | Uint8Array, dialect?: Dialect | null): History;

/** Whether `handle` or `handleRequest` answered a boundary error. */
export declare function isError(output: HandleResult<unknown, unknown> | FrameResult<unknown>): output is ErrorOutput;

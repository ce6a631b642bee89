// Compiled with `tsc --noEmit` (strict) by types.test.mjs: uses the package's public API the
// way a TypeScript user would, so the hand-written declarations must describe it.
import {
  Coordinator,
  ErrorCodes,
  ErrorCodesByDialect,
  RecordTypesByDialect,
  StatusCodesByDialect,
  codeName,
  createCoordinator,
  isError,
  isRecordType,
  partitionFor,
  RecordTypes,
  ready,
  topologyId,
  version,
  type CoordinatorRecord,
  type Explain,
  type HandleResult,
  type Input,
  type RecordWithType,
  type Settings,
  type Snapshot,
  type StreamsGroupHeartbeatResponse,
  type Topology,
  type StatusCode42,
  type Kafka42Record,
  type History,
  type ReadLog,
  type OutputOf,
  type FrameResult,
  type FrameOutput,
  type DecodedResponse,
  type ServedApi,
  type OffsetCommitRecord,
  type AuthorizationDecisions,
  type AuthorizeCallback,
  type HandleRequestOptions,
  history,
  readLog,
  routeRequest,
  mergeResponses,
  errorResponse,
  isMine,
  answerApiVersions,
  type Route,
  type HostApi,
} from 'streams-group-coordinator';
import { Cluster, DescribedView, InvariantError, RemoteError, checkSnapshot, parseEndpoint, taskKeys, type MemberCommit, type SimulatedMember } from 'streams-group-coordinator/testing';
import { GroupView, tasksText, type ViewState } from 'streams-group-coordinator/simulation';
import { mismatch, runScenario, stringify, type Scenario } from 'streams-group-coordinator/scenario';

async function main(): Promise<void> {
  await ready();
  const settings: Settings = {
    'group.streams.session.timeout.ms': 30000,
    'group.streams.num.standby.replicas': 1,
    assignor: 'sticky',
    recordBytes: true,
  };
  const c = new Coordinator(settings);
  const d = createCoordinator('{"dialect": "kip1071-draft"}');
  d.free();

  const topology: Topology = [
    { subtopologyId: '0', sourceTopics: ['in'], stateChangelogTopics: [{ name: 'app-store-changelog' }] },
  ];
  const id: string = topologyId(topology);
  const p: number = partitionFor('my-app', 50) + Coordinator.partitionFor('g');
  const v: string = version() + Coordinator.version() + Coordinator.topologyId(topology);

  c.handle({ nowMs: 0, type: 'TopicMetadata', topics: [{ name: 'in', partitions: 4, racks: [['r1']] }] });
  const join = c.handle({
    nowMs: 1000,
    type: 'StreamsGroupHeartbeat',
    client: { clientId: 'app-1', clientHost: '/127.0.0.1' },
    request: {
      groupId: 'my-app', memberId: '', memberEpoch: 0, topologyId: id, processId: 'p1',
      rebalanceTimeoutMs: 300000, activeTasks: [], standbyTasks: [], warmupTasks: [],
      userEndpoint: { host: 'localhost', port: 8080 }, clientTags: [{ key: 'az', value: 'a' }],
      taskOffsets: [{ subtopologyId: '0', partition: 0, offset: 10n }],
    },
  });
  if (isError(join)) throw new Error(join.error.message + join.error.path + join.error.code);
  const hb: StreamsGroupHeartbeatResponse = join.response;
  const memberId: string | null = hb.memberId;
  const tasks: number = hb.activeTasks?.length ?? 0;
  if (hb.shouldInitializeTopology) {
    const init = c.handle({ nowMs: 1001, type: 'StreamsGroupInitialize', request: { groupId: 'my-app', topologyId: id, topology } });
    if (!('error' in init)) {
      const code: number = init.response.errorCode;
      for (const t of init.topicsToCreate) console.log(t.name, t.numPartitions, t.replicationFactor, code);
    }
  }
  for (const r of join.records) describeRecord(r);
  for (const e of join.explain) explain(e);
  const next: number | bigint | null = join.nextDeadlineMs;

  const described = c.handle({ nowMs: 2000, type: 'StreamsGroupDescribe', request: { groupIds: ['my-app'] } });
  if (!isError(described)) {
    for (const g of described.response.groups) {
      const state: string = g.groupState;
      for (const m of g.members) console.log(state, m.memberId, m.assignment.activeTasks, m.targetAssignment.standbyTasks);
    }
  }
  const deleted = c.handle({ nowMs: 2000, type: 'DeleteGroups', groupIds: ['x'] });
  if (!isError(deleted)) console.log(deleted.response.results[0]?.errorCode === ErrorCodes.GROUP_ID_NOT_FOUND);
  const manual = c.handle({ nowMs: 2000, type: 'SetTargetAssignment', groupId: 'my-app', assignment: { [memberId ?? '']: { activeTasks: [] } } });
  if (!isError(manual)) console.log(manual.response.errorMessage);
  // Offsets: Kafka's requests at the version they came at; type-1 records in either dialect.
  const committed = c.handle({
    nowMs: 2000,
    type: 'OffsetCommit',
    apiVersion: 9,
    request: { groupId: 'my-app', generationIdOrMemberEpoch: 1, memberId: memberId ?? '', topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 42n, committedMetadata: null }] }] },
  });
  if (!isError(committed)) {
    const code: number | undefined = committed.response.topics[0]?.partitions[0]?.errorCode;
    const rec: CoordinatorRecord | undefined = committed.records[0];
    if (rec !== undefined && isRecordType(rec, RecordTypes.OFFSET_COMMIT)) {
      const oc: OffsetCommitRecord = rec;
      const v = oc.value;
      console.log(oc.key.data.topic, oc.key.data.partition, v?.data.offset, v?.version === 4 ? v.data.leaderEpoch : v?.data.expireTimestamp);
    }
    for (const e of committed.explain) if (e.code === 'OFFSETS_REFUSED') console.log(e.request, e.error, e.message, code);
  }
  const fetched = c.handle({ nowMs: 2000, type: 'OffsetFetch', request: { groups: [{ groupId: 'my-app', memberId: null, topics: null }] } });
  if (!isError(fetched)) for (const g of fetched.response.groups) console.log(g.errorCode, g.topics[0]?.partitions[0]?.committedOffset);
  const tooLarge: 12 = ErrorCodes.OFFSET_METADATA_TOO_LARGE;
  const stale: 113 = ErrorCodesByDialect['kafka-4.2'].STALE_MEMBER_EPOCH;
  console.log(tooLarge, stale);
  const advanced: HandleResult<null> = c.handle({ nowMs: 3000, type: 'AdvanceTime' });
  console.log(advanced);
  const text: string = c.handle('{"nowMs": 3000, "type": "AdvanceTime"}');
  const anyInput: Input = { nowMs: 1, type: 'Replay', records: [{ keyBytes: 'AA==', valueBytes: null }] };
  const out = c.handle(anyInput);
  if (isError(out)) console.log(out.error.code === 'INVALID_RECORD');

  try {
    c.replay([{ key: { type: 15, data: { groupId: 'g' } }, value: { version: 0, data: { epoch: 1 } } }], 5000);
    c.replay('[]');
  } catch (e) {
    const err = e as import('streams-group-coordinator').CoordinatorError;
    console.log(err.code, err.path);
  }

  const snap: Snapshot = c.snapshot();
  for (const g of snap.groups) {
    console.log(g.state, g.topologyId, g.shutdownRequestedBy);
    for (const m of g.members) console.log(m.memberState, m.pendingRevocation.activeTasks, m.previousMemberEpoch, m.userEndpoint?.port);
  }
  for (const t of snap.timers) console.log(t.kind, t.subject, t.deadlineMs);
  c[Symbol.dispose]();

  // The kafka-4.2 dialect: its own response, record, snapshot and status types.
  const k = new Coordinator({ dialect: 'kafka-4.2' });
  const hb42 = k.handle({ nowMs: 0, type: 'StreamsGroupHeartbeat', request: { groupId: 'g', memberId: 'm1', memberEpoch: 0 } });
  if (!isError(hb42)) {
    const epoch: number = hb42.response.endpointInformationEpoch;
    const code: StatusCode42 | undefined = hb42.response.status?.[0]?.statusCode;
    const rec: Kafka42Record | undefined = hb42.records[0];
    // @ts-expect-error: 4.2 responses have no shouldInitializeTopology
    console.log(hb42.response.shouldInitializeTopology);
    console.log(epoch, code, rec?.key.type, rec?.value?.data);
  }
  const snap42: Snapshot<'kafka-4.2'> = k.snapshot();
  for (const g of snap42.groups) console.log(g.topology?.epoch, g.members[0]?.topologyEpoch, g.configuration.status);
  const told: History = history('| offset: 0 key: {"type":"17","data":{"groupId":"g"}} payload: <DELETE>', 'kafka-4.2');
  for (const g of told.groups) for (const e of g.events) console.log(e.code, e.text, e.offset, g.summary.epochBumps);
  const read: ReadLog = readLog(new Uint8Array(0));
  console.log(read.form, read.records[0]?.record.key.type, read.records[0]?.timestampMs);
  const draftOut: OutputOf<'StreamsGroupHeartbeat'> = c.handle({ nowMs: 0, type: 'StreamsGroupHeartbeat', request: { groupId: 'g', memberId: '', memberEpoch: 0 } });
  if (!isError(draftOut)) console.log(draftOut.response.shouldInitializeTopology);
  // Kafka's wire face.
  const apis: ServedApi[] = k.servedApis();
  const hbApi = apis.find((a) => a.name === 'StreamsGroupHeartbeat');
  const frame: Uint8Array | null = k.encodeRequest(
    { type: 'StreamsGroupHeartbeat', client: { clientId: 'c' }, request: { groupId: 'g', memberId: 'm1', memberEpoch: 0 } },
    hbApi?.maxVersion ?? 0,
    1,
  );
  const encodedText: Uint8Array | null = c.encodeRequest('{"type": "DeleteGroups", "groupIds": ["g"]}', 0, 2);
  const noFrame: Uint8Array | null = c.encodeRequest({ nowMs: 0, type: 'AdvanceTime' }, 0, 3);
  if (frame !== null) {
    const wired: FrameResult<Kafka42Record> = k.handleRequest(frame, 1000, '/10.0.0.1');
    const bigNow = k.handleRequest(frame, 1000n);
    if (isError(wired)) {
      const code: 'INVALID_FRAME' | string = wired.error.code;
      console.log(code, wired.error.path);
    } else {
      const bytes: Uint8Array = wired.response;
      const rec: Kafka42Record | undefined = wired.records[0];
      const decoded: DecodedResponse = k.decodeResponse(hbApi?.apiKey ?? 88, 0, bytes);
      const epoch: unknown = decoded.response['memberEpoch'];
      console.log(decoded.correlationId, epoch, rec?.key.type, wired.explain, wired.topicsToCreate, wired.nextDeadlineMs);
    }
    if (!('error' in bigNow)) {
      const out: FrameOutput<Kafka42Record> = bigNow;
      console.log(out.response.length);
    }
  }
  // @ts-expect-error: a frame is bytes
  k.handleRequest('frame', 0);
  // Behind Kafka's authorization: a callback with Kafka's names, or an allow-list.
  if (frame !== null) {
    const asked: AuthorizeCallback = (operation, resourceType, name) =>
      operation === 'READ' && resourceType === 'GROUP' && name === 'g';
    const decisions: AuthorizationDecisions = {
      allow: [
        { operation: 'READ', resourceType: 'GROUP', name: 'g' },
        { operation: 'ALL', resourceType: 'TOPIC', name: 'app-', patternType: 'PREFIXED' },
      ],
    };
    const options: HandleRequestOptions = { authorize: asked };
    const byCallback: FrameResult<Kafka42Record> = k.handleRequest(frame, 1000, '/10.0.0.1', options);
    const byList = k.handleRequest(frame, 1000, null, { authorize: decisions });
    const byText = k.handleRequest(frame, 1000n, undefined, { authorize: '{"superUser": true}' });
    console.log(isError(byCallback), isError(byList), isError(byText));
    // @ts-expect-error: Kafka's operation names
    k.handleRequest(frame, 0, null, { authorize: { allow: [{ operation: 'EAT', resourceType: 'GROUP', name: 'g' }] } });
    // @ts-expect-error: the callback answers a boolean
    k.handleRequest(frame, 0, null, { authorize: (op: string) => op });
  }
  // The host kit.
  if (encodedText !== null) {
    const routed: Route = routeRequest('kafka-4.2', encodedText, 8);
    if (routed.route === 'group') console.log(routed.groupId, routed.partition);
    if (routed.route === 'groups' || routed.route === 'everyPartition') {
      const answers: Uint8Array[] = routed.parts.map((part) => errorResponse('kafka-4.2', part.frame, 16));
      const merged: Uint8Array = mergeResponses('kafka-4.2', encodedText, 8, answers);
      console.log(merged.length, routed.apiKey, routed.apiVersion);
    }
    const hostApis: HostApi[] = [{ apiKey: 3, minVersion: 0, maxVersion: 12 }, ...apis];
    console.log(answerApiVersions('kafka-4.4', encodedText, hostApis).length);
  }
  const mine: boolean = isMine('g', 8, [0, 3]) || isMine('g', null, new Set([1])) || isMine('g', 50, (p) => p > 2);
  // @ts-expect-error: an unknown dialect
  routeRequest('kafka-5.0', new Uint8Array(0));
  console.log(mine);
  console.log(encodedText, noFrame);
  k.free();

  // @ts-expect-error: an unknown input type
  c.handle({ nowMs: 0, type: 'Dance' });
  // @ts-expect-error: a commit names its partitions by partitionIndex
  c.handle({ nowMs: 0, type: 'OffsetCommit', request: { groupId: 'g', topics: [{ name: 'in', partitions: [{ partition: 0, committedOffset: 1 }] }] } });
  // @ts-expect-error: memberEpoch is a number
  c.handle({ nowMs: 0, type: 'StreamsGroupHeartbeat', request: { groupId: 'g', memberId: '', memberEpoch: '0' } });
  // @ts-expect-error: not a setting
  new Coordinator({ 'group.consumer.session.timeout.ms': 1 });
  const configured = c.handle({ nowMs: 0, type: 'GroupConfig', groupId: 'g', configs: { 'streams.session.timeout.ms': '50000', 'streams.num.standby.replicas': 1 } });
  if (!isError(configured)) console.log(configured.response === null);
  // @ts-expect-error: configs is an object of names
  c.handle({ nowMs: 0, type: 'GroupConfig', groupId: 'g', configs: [] });

  // Testing tools
  const cluster = new Cluster({ topics: { in: 4 }, topology, config: settings, checkInvariants: true });
  const members: SimulatedMember[] = cluster.addProcess({ processId: 'p', threads: 2, instanceId: 'app' });
  const m = cluster.addMember({ name: 'extra', onUnreleasedInstanceId: 'retry' });
  cluster.runUntilStable({ maxMs: 60000 });
  m.dropHeartbeats({ forMs: 10000 }).delayHeartbeats(100, { count: 2 }).clearFaults();
  members[0]?.restart({ downtimeMs: 1000 });
  cluster.crashProcess('p');
  cluster.addPartitions('in', 2);
  cluster.deleteTopic('in');
  cluster.advance(5000).advanceTo(60000);
  const sent = cluster.send({ type: 'StreamsGroupDescribe', request: { groupIds: ['app'] } });
  if (!isError(sent)) console.log(sent.response);
  const violations: string[] = cluster.checkInvariants().concat(checkSnapshot(cluster.snapshot()));
  try {
    cluster.assertStable();
  } catch (e) {
    if (e instanceof InvariantError) console.log(e.violations.length);
  }
  console.log(taskKeys(m.owned.activeTasks), m.ownedKeys().standby, m.status, m.lastError?.code, violations);
  const scenario: Scenario = cluster.toScenario({ expect: (o) => ('error' in o ? o : { response: o.response }) });
  const run = runScenario(scenario, Coordinator);
  console.log(run.failure, mismatch({ a: 1 }, { a: 1 }), stringify({ big: 1n }), scenario.steps.length);
  const racked = new Cluster({ topics: { in: 4 }, reportLag: true, restoreRate: 100, verifyView: 'stable' });
  racked.addProcess({ processId: 'r1', threads: 2, rackId: 'rack-1', clientTags: [{ key: 'zone', value: 'a' }] });
  racked.setEndOffsets(1000).addEndOffsets(10).setEndOffsets({ '0:1': 5 });
  const reported = racked.taskOffsetsOf(racked.rack('rack-1')[0]!).taskOffsets.map((o) => o.offset);
  racked.crashRack('rack-1');
  racked.startRack('rack-1', { downtimeMs: 10 });
  const view: GroupView | DescribedView = racked.view;
  const state: ViewState | null = view.state('app');
  if (view instanceof GroupView) console.log(view.groups.size);
  console.log(reported, state, view.violations(), view.apply([]), tasksText(m.owned), racked.statefulTasks(), racked.endOffsets.get('0:0'));
  const fenced: 110 = ErrorCodesByDialect['kip1071-draft'].FENCED_MEMBER_EPOCH;
  const invalid: 130 = ErrorCodesByDialect['kafka-4.2'].STREAMS_INVALID_TOPOLOGY;
  const current: 22 = RecordTypesByDialect['kafka-4.2'].CURRENT_MEMBER_ASSIGNMENT;
  const delayed: 5 = StatusCodesByDialect['kafka-4.2'].ASSIGNMENT_DELAYED;
  const tags: 6 = StatusCodesByDialect['kafka-4.4'].MISSING_CLIENT_TAGS;
  const fenced43: 132 = ErrorCodesByDialect['kafka-4.3'].STREAMS_TOPOLOGY_FENCED;
  const target44: 20 = RecordTypesByDialect['kafka-4.4'].TARGET_ASSIGNMENT_METADATA;
  console.log(fenced, invalid, current, delayed, tags, fenced43, target44, codeName(ErrorCodes, 25));
  cluster.close();
  console.log(p, v, memberId, tasks, next, text);

  // Simulated members of a released Kafka against a live endpoint, committing offsets.
  const { host, port } = parseEndpoint('127.0.0.1:9092');
  const live = new Cluster({ endpoint: `${host}:${port}`, config: { dialect: 'kafka-4.2' }, timeoutMs: 5000, topics: { in: 4 } });
  const streams = live.addMember({ name: 's', commitIntervalMs: 30000 });
  try {
    live.runUntilStable({ maxMs: 20000 });
  } catch (e) {
    if (e instanceof RemoteError) console.log(e.message);
  }
  const commitOut = streams.commit((topic, partition) => topic.length + partition, { metadata: null });
  const commits: MemberCommit[] = streams.commits;
  const partitions: { [topic: string]: number[] } = streams.committablePartitions();
  console.log(commitOut, commits[0]?.errors, partitions, live.group()?.groupEpoch, live.endpoint, streams.dialect);
  // @ts-expect-error: an endpoint is host:port text
  new Cluster({ endpoint: 9092 });
}

function describeRecord(r: CoordinatorRecord): void {
  if (isRecordType(r, RecordTypes.GROUP_METADATA)) console.log(r.value?.data.epoch);
  if (isRecordType(r, 17)) console.log(r.key.data.memberId, r.value?.data.processId, r.value?.data.topologyId);
  if (isRecordType(r, RecordTypes.CURRENT_MEMBER_ASSIGNMENT)) {
    const state: 1 | 2 | 3 | 127 | undefined = r.value?.data.state;
    console.log(r.value?.data.memberEpoch, r.value?.data.activeTasksPendingRevocation, state);
  }
  if (isRecordType(r, RecordTypes.TOPOLOGY)) console.log(r.value?.data.topologyId, r.value?.data.topology[0]?.copartitionGroups);
  const typed: RecordWithType<19> | null = isRecordType(r, 19) ? r : null;
  console.log(r.keyBytes, r.valueBytes, typed?.value?.data.warmupTasks);
}

function explain(e: Explain): string {
  switch (e.code) {
    case 'GROUP_EPOCH_BUMPED':
      return `${e.from} -> ${e.to}: ${e.reasons.join(', ')}`;
    case 'MEMBER_FENCED':
      return `${e.memberId}: ${e.cause}`;
    case 'TARGET_ASSIGNMENT_COMPUTED':
      return `${e.assignmentEpoch} ${e.tasksMoved} ${e.tasksReassigned} ${e.assignor}`;
    case 'ASSIGNMENT_DELAYED':
      return `until ${e.untilMs}`;
    case 'STATIC_MEMBER_LEFT_TEMPORARILY':
      return `${e.instanceId} until ${e.expiresAtMs}`;
    case 'OFFSETS_EXPIRED':
      return `${e.partitions} offsets expired`;
    default:
      return e.code;
  }
}

void main();

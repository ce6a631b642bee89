// The host kit of the package (src/wire/host, through the bindings): a broker written in JS
// routes request frames to the coordinators of its `__consumer_offsets` partitions, splits a
// request for several groups, merges the answers in Kafka's order, answers for a partition it
// does not lead, and lists its own APIs in ApiVersions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PKG } from './helpers.mjs';

const { Coordinator, routeRequest, mergeResponses, errorResponse, isMine, answerApiVersions, partitionFor } =
  await import(join(PKG, 'node.mjs'));

const DIALECT = 'kafka-4.2';
// "" and "my-app" sit on partition 0, "g" on 3, "wordcount" on 41 of 50; a Java HashMap of
// those partitions lists 0, 41, 3.
const PARTITIONS = 50;

/** A cluster of one broker: a coordinator per partition, made when first asked. */
function broker() {
  const coordinators = new Map();
  return (partition, frame) => {
    if (!coordinators.has(partition)) coordinators.set(partition, new Coordinator({ dialect: DIALECT }));
    const out = coordinators.get(partition).handleRequest(frame, 0, '/10.0.0.1');
    assert.ok(!('error' in out), JSON.stringify(out));
    return out.response;
  };
}

/** A broker's answer to a frame, through the host kit. */
function serve(send, frame) {
  const routed = routeRequest(DIALECT, frame, PARTITIONS);
  switch (routed.route) {
    case 'group':
      return send(routed.partition, frame);
    case 'groups':
    case 'everyPartition':
      return mergeResponses(DIALECT, frame, PARTITIONS, routed.parts.map((p) => send(p.partition, p.frame)));
    case 'apiVersions':
      return answerApiVersions(DIALECT, frame, []);
    default:
      throw new Error(`the host's own API ${routed.apiKey}`);
  }
}

const client = new Coordinator({ dialect: DIALECT });
const encode = (input, version) => client.encodeRequest(input, version, 7);
const decode = (key, version, frame) => client.decodeResponse(key, version, frame).response;

test('a request for one group goes to its partition, one for several is split and merged in Kafka order', () => {
  const heartbeat = encode({ type: 'StreamsGroupHeartbeat', request: { groupId: 'wordcount', memberId: 'm', memberEpoch: 0 } }, 0);
  assert.deepEqual(routeRequest(DIALECT, heartbeat, PARTITIONS), {
    route: 'group', groupId: 'wordcount', partition: 41, apiKey: 88, apiVersion: 0,
  });
  assert.equal(partitionFor('wordcount', PARTITIONS), 41);

  const describe = encode({ type: 'StreamsGroupDescribe', request: { groupIds: ['wordcount', '', 'g', 'my-app'] } }, 0);
  const routed = routeRequest(DIALECT, describe, PARTITIONS);
  assert.equal(routed.route, 'groups');
  // The empty id alone and first, then partition by partition.
  assert.deepEqual(routed.parts.map((p) => p.partition), [0, 0, 41, 3]);
  assert.ok(routed.parts.every((p) => p.frame instanceof Uint8Array));
  const merged = serve(broker(), describe);
  const groups = decode(89, 0, merged).groups;
  assert.deepEqual(groups.map((g) => g.groupId), ['', 'my-app', 'wordcount', 'g']);
  // None of them exists: each partition's coordinator answers an error for it.
  assert.ok(groups.every((g) => g.errorCode !== 0), JSON.stringify(groups));

  // OffsetFetch v8+ in the request's order.
  const fetch = encode({ type: 'OffsetFetch', request: { groups: ['wordcount', 'g', 'my-app'].map((groupId) => ({ groupId, topics: null })) } }, 9);
  assert.deepEqual(decode(9, 9, serve(broker(), fetch)).groups.map((g) => g.groupId), ['wordcount', 'g', 'my-app']);

  // The answers counted: one per part.
  assert.throws(() => mergeResponses(DIALECT, describe, PARTITIONS, []), (e) => e.code === 'INVALID_INPUT' && e.path === 'answers');
});

test('ListGroups asks every partition and lists their groups together', () => {
  const send = broker();
  for (const groupId of ['wordcount', 'g']) {
    const commit = encode({ type: 'OffsetCommit', request: { groupId, generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }] } }, 9);
    send(routeRequest(DIALECT, commit, PARTITIONS).partition, commit);
  }
  const list = encode({ type: 'ListGroups', request: {} }, 5);
  const routed = routeRequest(DIALECT, list, PARTITIONS);
  assert.equal(routed.route, 'everyPartition');
  assert.equal(routed.parts.length, PARTITIONS);
  const listed = decode(16, 5, serve(send, list));
  assert.equal(listed.errorCode, 0);
  assert.deepEqual(listed.groups.map((g) => g.groupId).sort(), ['g', 'wordcount']);
});

test('a partition not led here answers NOT_COORDINATOR for every group; isMine tells which', () => {
  const owned = [3];
  const del = encode({ type: 'DeleteGroups', groupIds: ['g', 'wordcount'] }, 2);
  const routed = routeRequest(DIALECT, del, PARTITIONS);
  const answers = routed.parts.map((p) => (owned.includes(p.partition) ? broker()(p.partition, p.frame) : errorResponse(DIALECT, p.frame, 16)));
  const results = decode(42, 2, mergeResponses(DIALECT, del, PARTITIONS, answers)).results.map((r) => [r.groupId, r.errorCode]);
  assert.deepEqual(results, [['wordcount', 16], ['g', 69]]);

  assert.equal(isMine('g', PARTITIONS, owned), true);
  assert.equal(isMine('wordcount', PARTITIONS, new Set(owned)), false);
  assert.equal(isMine('wordcount', PARTITIONS, (p) => p > 40), true);
  assert.throws(() => isMine('g', PARTITIONS, 3), (e) => e.code === 'INVALID_INPUT' && e.path === 'owned');
  assert.throws(() => isMine('g', PARTITIONS, () => { throw new Error('boom'); }), /boom/);
  // Kafka closes the connection where it has no error response.
  assert.throws(() => errorResponse(DIALECT, new Uint8Array([0, 18]), 15), (e) => e.code === 'INVALID_FRAME');
});

test("ApiVersions lists the host's APIs, a shared one at the versions both serve", () => {
  // ApiVersions v3 from client "c", software "ja" 4.
  const frame = new Uint8Array([0, 18, 0, 3, 0, 0, 0, 7, 0, 1, 99, 0, 3, 106, 97, 2, 52, 0]);
  assert.equal(routeRequest(DIALECT, frame).route, 'apiVersions');
  const hostApis = [
    { apiKey: 3, minVersion: 0, maxVersion: 12 }, // Metadata: the host's own
    { apiKey: 8, minVersion: 0, maxVersion: 8 }, // OffsetCommit: its codec reads up to v8
    { apiKey: 88, minVersion: 3, maxVersion: 4 }, // a heartbeat version the dialect does not serve
  ];
  const answer = decode(18, 3, answerApiVersions(DIALECT, frame, hostApis));
  assert.equal(answer.errorCode, 0);
  const apis = new Map(answer.apiKeys.map((a) => [a.apiKey, [a.minVersion, a.maxVersion]]));
  assert.deepEqual(apis.get(3), [0, 12]);
  assert.deepEqual(apis.get(8), [2, 8]);
  assert.equal(apis.has(88), false);
  assert.deepEqual(apis.get(89), [0, 0]);
  assert.throws(() => answerApiVersions(DIALECT, frame, [{ apiKey: 3 }]), (e) => e.path === 'hostApis[0].minVersion');
  assert.throws(() => routeRequest(DIALECT, new Uint8Array([0, 3])), (e) => e.code === 'INVALID_FRAME' && e.path === 'header');
  assert.throws(() => routeRequest('kafka-5.0', frame), (e) => e.path === 'dialect');
  assert.equal(routeRequest(DIALECT, new Uint8Array([0, 3, 0, 12, 0, 0, 0, 1])).route, 'host');
});

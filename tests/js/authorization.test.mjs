// Kafka's authorization through the package's wire face (docs/authorization.md):
// `handleRequest(frame, nowMs, clientHost, { authorize })` with the principal's allow-list (an
// object or JSON text) or a callback asked with Kafka's names; a client that is not allowed is
// answered as Kafka answers it, and decisions that do not read answer `{error}`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PKG } from './helpers.mjs';

const { Coordinator, isError } = await import(join(PKG, 'node.mjs'));

const HEARTBEAT = 88;
const GROUP_AUTHORIZATION_FAILED = 30;

/** A first heartbeat of member `m` joining group `g` (kafka-4.2, an empty topology). */
const JOIN = {
  type: 'StreamsGroupHeartbeat',
  client: { clientId: 'app-1' },
  request: {
    groupId: 'g', memberId: 'm', memberEpoch: 0, processId: 'p', rebalanceTimeoutMs: 1000,
    activeTasks: [], standbyTasks: [], warmupTasks: [],
    topology: { epoch: 0, subtopologies: [] }, endpointInformationEpoch: 0,
  },
};

const READ_G = { allow: [{ operation: 'READ', resourceType: 'GROUP', name: 'g' }] };

/** The join's frame handled by a fresh coordinator with `options`: the output and the decoded response. */
function joinWith(options) {
  const c = new Coordinator({ dialect: 'kafka-4.2' });
  const frame = c.encodeRequest(JOIN, 0, 1);
  const out = c.handleRequest(frame, 1000, '/10.0.0.1', options);
  if (isError(out)) return { c, frame, out };
  return { c, frame, out, response: c.decodeResponse(HEARTBEAT, 0, out.response).response };
}

test('a group READ denied by the allow-list answers GROUP_AUTHORIZATION_FAILED and writes nothing', () => {
  for (const authorize of [{ allow: [] }, { allow: [{ operation: 'READ', resourceType: 'GROUP', name: 'other' }] }, '{}']) {
    const { out, response } = joinWith({ authorize });
    assert.ok(!isError(out), JSON.stringify(out));
    assert.equal(response.errorCode, GROUP_AUTHORIZATION_FAILED, JSON.stringify(authorize));
    assert.deepEqual(out.records, []);
  }
});

test('an allow-list that grants the group READ answers as without authorization', () => {
  const { out: plain, response: plainResponse } = joinWith();
  for (const authorize of [
    READ_G,
    JSON.stringify(READ_G),
    { superUser: true },
    { allow: [{ operation: 'ALL', resourceType: 'GROUP', name: '*' }] },
    { allow: [{ operation: 'READ', resourceType: 'GROUP', name: '', patternType: 'PREFIXED' }] },
  ]) {
    const { out, response } = joinWith({ authorize });
    assert.ok(!isError(out), JSON.stringify(out));
    assert.equal(response.errorCode, 0, JSON.stringify(authorize));
    assert.deepEqual(response, plainResponse);
    assert.deepEqual(out.records, plain.records);
    assert.ok(out.records.length > 0);
  }
});

test('a callback is asked with Kafka\'s names and only true allows', () => {
  const asked = [];
  const { out, response } = joinWith({
    authorize: (operation, resourceType, name) => {
      asked.push([operation, resourceType, name]);
      return operation === 'READ' && resourceType === 'GROUP' && name === 'g';
    },
  });
  assert.ok(!isError(out), JSON.stringify(out));
  assert.equal(response.errorCode, 0);
  assert.ok(out.records.length > 0);
  assert.deepEqual(asked[0], ['READ', 'GROUP', 'g']);
  for (const [operation, resourceType, name] of asked) {
    assert.equal(typeof operation, 'string');
    assert.match(resourceType, /^[A-Z_]+$/);
    assert.equal(typeof name, 'string');
  }
  for (const authorize of [() => false, () => 1, () => 'true', () => undefined, () => { throw new Error('down'); }]) {
    const denied = joinWith({ authorize });
    assert.ok(!isError(denied.out), JSON.stringify(denied.out));
    assert.equal(denied.response.errorCode, GROUP_AUTHORIZATION_FAILED, String(authorize));
    assert.deepEqual(denied.out.records, []);
  }
});

test('without authorize nothing is checked', () => {
  for (const options of [undefined, null, {}, { authorize: undefined }, { authorize: null }]) {
    const { out, response } = joinWith(options);
    assert.ok(!isError(out), JSON.stringify(out));
    assert.equal(response.errorCode, 0);
  }
});

test('decisions that do not read answer {error} at options.authorize and change nothing', () => {
  const c = new Coordinator({ dialect: 'kafka-4.2' });
  const frame = c.encodeRequest(JOIN, 0, 1);
  for (const authorize of [
    'not JSON',
    '[true]',
    [],
    42,
    true,
    { allow: [{ operation: 'EAT', resourceType: 'GROUP', name: 'g' }] },
    { allow: [{ operation: 'READ', resourceType: 'GROUP' }] },
    { allow: [['READ', 'GROUP', 'g']] },
    { superUser: true, deny: [] },
  ]) {
    const out = c.handleRequest(frame, 1000, '/10.0.0.1', { authorize });
    assert.ok(isError(out), JSON.stringify(authorize));
    assert.equal(out.error.code, 'INVALID_INPUT');
    assert.equal(out.error.path, 'options.authorize', JSON.stringify(authorize));
  }
  for (const options of ['x', 7]) {
    const out = c.handleRequest(frame, 1000, '/10.0.0.1', options);
    assert.equal(out.error?.path, 'options', JSON.stringify(options));
  }
  // Nothing changed: the join is still the group's first.
  const out = c.handleRequest(frame, 1000, '/10.0.0.1', { authorize: READ_G });
  assert.deepEqual(out.records, joinWith().out.records);
});

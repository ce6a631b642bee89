// Kafka's wire face of the package (tests/wire.rs, through the bindings): every scenario's
// request inputs encoded with `encodeRequest` at every version the dialect serves, handled by a
// second coordinator through `handleRequest`, give the same records, topics, explain and
// deadline as `handle`, and a response frame that `decodeResponse` reads back as the JSON
// face's response (4.4 calls version 0's `acceptableRecoveryLag` `acceptableRecoveryLagLegacy`).
// And bytes it cannot take answer `{error}`, never a throw, and change nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG, SCENARIOS, wireDiffers as differs } from './helpers.mjs';

const { Coordinator, isError } = await import(join(PKG, 'node.mjs'));

const files = readdirSync(SCENARIOS).filter((f) => f.endsWith('.json')).sort();

const big = (_, v) => (typeof v === 'bigint' ? `${v}n` : v);

const REQUESTS = new Set(['StreamsGroupHeartbeat', 'StreamsGroupDescribe', 'StreamsGroupInitialize', 'DeleteGroups']);

/** Requests whose input carries its version (`apiVersion`): sent and answered at the one tried. */
const VERSIONED = new Set(['StreamsGroupHeartbeat', 'StreamsGroupDescribe']);

/** The fields of an output other than its response. */
const rest = ({ response, ...fields }) => fields;

/**
 * One run of a scenario: each request at version `max - offset` of its API (no older than its
 * oldest), so that every version changes the state in one of the runs. The number of frames sent.
 */
function run(scenario, offset) {
  const json = new Coordinator(scenario.config ?? null);
  const wire = new Coordinator(scenario.config ?? null);
  const dialect = scenario.config?.dialect ?? 'kip1071-draft';
  const apis = new Map(wire.servedApis().map((a) => [a.name, a]));
  let sent = 0;
  try {
    scenario.steps.forEach((step, i) => {
      let input = step.input;
      const tried = apis.get(input.type);
      if (tried !== undefined && VERSIONED.has(input.type)) {
        input = { ...input, apiVersion: Math.max(tried.minVersion, tried.maxVersion - offset) };
      }
      const expected = json.handle(structuredClone(input));
      if (isError(expected)) {
        // Changes nothing on either side (a describe asking for a description below v1).
        assert.ok(isError(wire.handle(structuredClone(input))), `step ${i}: the coordinators parted`);
        return;
      }
      if (!REQUESTS.has(input.type)) {
        assert.deepStrictEqual(wire.handle(structuredClone(input)), expected, `step ${i}: the coordinators parted`);
        return;
      }
      const api = apis.get(input.type);
      if (api === undefined) {
        // StreamsGroupInitialize is no API of a kafka-* dialect: a client cannot send it.
        assert.ok(input.type === 'StreamsGroupInitialize' && dialect.startsWith('kafka-'), `step ${i}: ${input.type} not served`);
        wire.handle(structuredClone(input));
        return;
      }
      const v = Math.max(api.minVersion, api.maxVersion - offset);
      const frame = wire.encodeRequest(input, v, i);
      if (frame === null && VERSIONED.has(input.type) && v === 0) {
        // A version that cannot carry the request (describe's topology description below v1):
        // no client sends it; the JSON way for both.
        assert.deepStrictEqual(wire.handle(structuredClone(input)), expected, `step ${i}: the coordinators parted`);
        return;
      }
      assert.ok(frame instanceof Uint8Array, `step ${i} v${v}: no frame`);
      assert.equal(new DataView(frame.buffer, frame.byteOffset).getInt16(0), api.apiKey);
      const host = input.client?.clientHost ?? '';
      const out = wire.handleRequest(frame, input.nowMs, input.type === 'StreamsGroupDescribe' || input.type === 'DeleteGroups' ? undefined : host);
      assert.ok(!isError(out), `step ${i} v${v}: ${JSON.stringify(out.error)}`);
      sent++;
      assert.ok(out.response instanceof Uint8Array);
      assert.deepStrictEqual(rest(out), rest(expected), `step ${i} v${v}: the wire's output differs`);
      const read = wire.decodeResponse(api.apiKey, v, out.response);
      assert.equal(read.correlationId, i, `step ${i}: correlation id`);
      const d = differs(expected.response, read.response, 'response', v);
      assert.equal(d, null, `step ${i} v${v}: ${d}`);
    });
  } finally {
    json.free();
    wire.free();
  }
  return sent;
}

test('every scenario answers alike through the wire, at every served version', async (t) => {
  let total = 0;
  for (const file of files) {
    const scenario = JSON.parse(readFileSync(join(SCENARIOS, file), 'utf8'));
    await t.test(file, () => {
      const c = new Coordinator(scenario.config ?? null);
      // ApiVersions is no input of a scenario.
      const span = Math.max(...c.servedApis().filter((a) => a.name !== 'ApiVersions').map((a) => a.maxVersion - a.minVersion));
      c.free();
      for (let offset = 0; offset <= span; offset++) total += run(scenario, offset);
    });
  }
  assert.ok(total > 500, `only ${total} requests went through the wire`);
});

/** ApiVersions version 0 (correlation id 5, client `c`), written by hand. */
const API_VERSIONS_V0 = Uint8Array.of(0, 18, 0, 0, 0, 0, 0, 5, 0, 1, 99);

const JOIN = {
  nowMs: 1000,
  type: 'StreamsGroupHeartbeat',
  client: { clientId: 'app-1', clientHost: '/10.0.0.1' },
  request: {
    groupId: 'g', memberId: 'm1', memberEpoch: 0, endpointInformationEpoch: 0, processId: 'p1',
    rebalanceTimeoutMs: 300000, activeTasks: [], standbyTasks: [], warmupTasks: [],
    topology: { epoch: 0, subtopologies: [{ subtopologyId: '0', sourceTopics: ['in'] }] },
  },
};

for (const dialect of ['kafka-4.2', 'kafka-4.4', 'kip1071-draft']) {
  test(`ApiVersions is answered as Kafka answers it (${dialect})`, () => {
    const c = new Coordinator({ dialect });
    const out = c.handleRequest(API_VERSIONS_V0, 0);
    assert.ok(!isError(out), JSON.stringify(out.error));
    assert.deepStrictEqual(rest(out), { records: [], topicsToCreate: [], explain: [], nextDeadlineMs: null });
    const { correlationId, response } = c.decodeResponse(18, 0, out.response);
    assert.equal(correlationId, 5);
    assert.equal(response.errorCode, 0);
    const served = c.servedApis();
    assert.deepStrictEqual(
      response.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion]),
      served.map((a) => [a.apiKey, a.minVersion, a.maxVersion]),
    );
    c.free();
  });
}

test('a join built by encoding answers as handle does, the client host in its records', () => {
  const wire = new Coordinator({ dialect: 'kafka-4.2' });
  const json = new Coordinator({ dialect: 'kafka-4.2' });
  const topics = { nowMs: 0, type: 'TopicMetadata', topics: [{ name: 'in', partitions: 4 }] };
  wire.handle(topics);
  json.handle(topics);
  const { nowMs, ...withoutNow } = JOIN;
  const frame = wire.encodeRequest(withoutNow, 0, 7);
  assert.deepStrictEqual(frame, wire.encodeRequest(JSON.stringify(JOIN), 0, 7), 'object and text alike; nowMs left out');
  const out = wire.handleRequest(frame, nowMs, '/10.0.0.1');
  const expected = json.handle(JOIN);
  assert.deepStrictEqual(rest(out), rest(expected));
  assert.ok(JSON.stringify(out.records, big).includes('/10.0.0.1'));
  const { correlationId, response } = wire.decodeResponse(88, 0, out.response);
  assert.equal(correlationId, 7);
  assert.equal(response.memberId, 'm1');
  assert.equal(response.memberEpoch, expected.response.memberEpoch);
  assert.equal(differs(expected.response, response, 'response'), null);
  // BigInt nowMs and a Node Buffer are taken too.
  const again = wire.handleRequest(Buffer.from(wire.encodeRequest({ ...JOIN, request: { ...JOIN.request, memberEpoch: 1 } }, 0, 8)), 2000n);
  assert.ok(!isError(again), JSON.stringify(again.error));
  assert.equal(wire.decodeResponse(88, 0, again.response).correlationId, 8);
  wire.free();
  json.free();
});

test('encodeRequest: null for what is no request the dialect serves; throws for what it cannot read', () => {
  const c = new Coordinator({ dialect: 'kafka-4.2' });
  assert.equal(c.encodeRequest({ nowMs: 0, type: 'AdvanceTime' }, 0, 1), null);
  assert.equal(c.encodeRequest(JOIN, 99, 1), null, 'a version not served');
  assert.equal(c.encodeRequest({ type: 'StreamsGroupInitialize', request: { groupId: 'g', topologyId: 't', topology: [] } }, 0, 1), null);
  for (const [args, path] of [
    [['{not json', 0, 1], ''],
    [[{ type: 'Dance' }, 0, 1], 'type'],
    [[JOIN, 1 << 16, 1], 'apiVersion'],
    [[JOIN, 0.5, 1], 'apiVersion'],
    [[JOIN, 0, 2 ** 31], 'correlationId'],
    [[JOIN, '0', 1], 'apiVersion'],
  ]) {
    assert.throws(() => c.encodeRequest(...args), (e) => e.path === path && typeof e.code === 'string', JSON.stringify(args[1]));
  }
  c.free();
});

test('bytes it cannot take answer {error}, never a throw, and change nothing', () => {
  const c = new Coordinator({ dialect: 'kafka-4.2' });
  const control = new Coordinator({ dialect: 'kafka-4.2' });
  const frame = c.encodeRequest(JOIN, 0, 1);
  const before = JSON.stringify(c.snapshot(), big);
  const unknownKey = frame.slice();
  unknownKey[1] = 0; // Produce
  const farKey = frame.slice();
  farKey.set([0x27, 0x0f], 0); // 9999
  const unsupported = frame.slice();
  unsupported[3] = 99;
  const cases = [
    [unknownKey, 'INVALID_FRAME', 'header.RequestApiKey'],
    [farKey, 'INVALID_FRAME', 'header.RequestApiKey'],
    [unsupported, 'INVALID_FRAME', 'header.RequestApiVersion'],
    [new Uint8Array(0), 'INVALID_FRAME', 'header'],
    ['not bytes', 'INVALID_FRAME', ''],
    [[0, 88, 0, 0], 'INVALID_FRAME', ''],
    [undefined, 'INVALID_FRAME', ''],
  ];
  // Every truncation of the frame.
  for (let n = 0; n < frame.length; n++) cases.push([frame.subarray(0, n), 'INVALID_FRAME', null]);
  for (const [bytes, code, path] of cases) {
    const out = c.handleRequest(bytes, 1000);
    assert.ok(isError(out), `${path}: ${Object.keys(out)}`);
    assert.equal(out.error.code, code, out.error.message);
    if (path !== null) assert.equal(out.error.path, path, out.error.message);
  }
  for (const [now, host, path] of [[-1, '', 'nowMs'], [1.5, '', 'nowMs'], ['1000', '', 'nowMs'], [-1n, '', 'nowMs'], [1000, 42, 'clientHost']]) {
    const out = c.handleRequest(frame, now, host);
    assert.equal(out.error?.code, 'INVALID_INPUT');
    assert.equal(out.error.path, path);
  }
  // Random bytes after a served key and version: answered, never thrown.
  let seed = 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) >> 16) & 0xff;
  for (let i = 0; i < 300; i++) {
    const bytes = Uint8Array.from({ length: 4 + (i % 40) }, random);
    bytes.set([0, 88, 0, 0], 0);
    const out = c.handleRequest(bytes, 1000);
    assert.ok(isError(out) ? out.error.code === 'INVALID_FRAME' : out.response instanceof Uint8Array);
  }
  assert.equal(JSON.stringify(c.snapshot(), big), before, 'nothing changed');
  const out = c.handleRequest(frame, 1000, '/10.0.0.1');
  assert.deepStrictEqual(rest(out), rest(control.handle(JOIN)));
  c.free();
  control.free();
});

test('decodeResponse throws INVALID_FRAME for bytes that do not read', () => {
  const c = new Coordinator();
  for (const bytes of [new Uint8Array(0), Uint8Array.of(0, 0, 0, 1, 9), 'x']) {
    assert.throws(() => c.decodeResponse(18, 0, bytes), (e) => e.code === 'INVALID_FRAME');
  }
  assert.throws(() => c.decodeResponse(1 << 20, 0, Uint8Array.of(0, 0, 0, 1)), (e) => e.path === 'apiKey');
  c.free();
});

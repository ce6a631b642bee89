// The binding's edges: boundary errors answer `{error}` (handle) or throw an Error with `code`
// and `path` (constructor, replay, topologyId, partitionFor); topologyId agrees with the
// native `sgc topology-id`; partitionFor with Kafka's rule; BigInts in and out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG, SGC_BIN } from './helpers.mjs';

const sgc = await import(join(PKG, 'node.mjs'));
const { Coordinator, topologyId, partitionFor, version, isError } = sgc;
const { stringify } = await import(join(PKG, 'scenario.mjs'));

const JOIN = {
  nowMs: 1000,
  type: 'StreamsGroupHeartbeat',
  client: { clientId: 'app-1', clientHost: '/127.0.0.1' },
  request: {
    groupId: 'g', memberId: '', memberEpoch: 0, topologyId: 't1', processId: 'p1',
    rebalanceTimeoutMs: 300000, activeTasks: [], standbyTasks: [], warmupTasks: [],
  },
};

test('bad JSON text answers {error} as text, and changes nothing', () => {
  const c = new Coordinator();
  const out = c.handle('{"nowMs": 1, "type": ');
  assert.equal(typeof out, 'string');
  const parsed = JSON.parse(out);
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.equal(parsed.error.code, 'INVALID_INPUT');
  assert.equal(parsed.error.path, '');
  assert.match(parsed.error.message, /malformed JSON/);
  assert.equal(c.snapshot().nowMs, 0, 'time did not move');
});

test('bad objects answer {error: {code, message, path}}', () => {
  const c = new Coordinator();
  const cases = [
    [{ nowMs: 1, type: 'Dance' }, 'INVALID_INPUT', 'type'],
    [{ nowMs: -5, type: 'AdvanceTime' }, 'INVALID_INPUT', 'nowMs'],
    [{ nowMs: 1.5, type: 'AdvanceTime' }, 'INVALID_INPUT', 'nowMs'],
    [{ type: 'AdvanceTime' }, 'INVALID_INPUT', 'nowMs'],
    [{ nowMs: 1, type: 'AdvanceTime', extra: 1 }, 'INVALID_INPUT', 'extra'],
    [{ ...JOIN, request: { ...JOIN.request, memberEpoch: 99999999999 } }, 'INVALID_INPUT', 'request.memberEpoch'],
    [{ ...JOIN, request: { ...JOIN.request, memberEpoch: '1' } }, 'INVALID_INPUT', 'request.memberEpoch'],
    [{ ...JOIN, request: { ...JOIN.request, activeTasks: [{ subtopologyId: '0', partitions: ['x'] }] } },
      'INVALID_INPUT', 'request.activeTasks[0].partitions[0]'],
    [{ nowMs: 1, type: 'TopicMetadata', topics: [{ name: 'a', partitions: 1 }], deletedTopics: ['a'] },
      'INVALID_INPUT', 'topics[0].name'],
    [{ nowMs: 1, type: 'Replay', records: [{ key: { type: 15, data: { groupId: 'g' } }, value: { version: 3, data: {} } }] },
      'INVALID_RECORD', 'records[0].value.version'],
    [{ nowMs: 1, type: 'Replay', records: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] },
      'TOO_LARGE', undefined],
  ];
  for (const [input, code, path] of cases) {
    const out = c.handle(input);
    assert.ok(isError(out), `${JSON.stringify(input).slice(0, 80)} is a boundary error`);
    assert.deepEqual(Object.keys(out), ['error']);
    assert.deepEqual(Object.keys(out.error), ['code', 'message', 'path']);
    assert.equal(out.error.code, code, JSON.stringify(out));
    if (path !== undefined) assert.equal(out.error.path, path, JSON.stringify(out));
    // The string form answers the same error.
    assert.equal(c.handle(JSON.stringify(input)), stringify(out));
  }
  assert.equal(c.snapshot().nowMs, 0, 'no rejected input moved time');
  assert.deepEqual(c.snapshot().groups, []);
  // Values JSON has no form for.
  for (const bad of [{ nowMs: 1, type: 'AdvanceTime', extra: () => 1 }, { nowMs: Symbol('x'), type: 'AdvanceTime' }]) {
    assert.equal(c.handle(bad).error.code, 'INVALID_INPUT');
  }
  assert.equal(c.handle(42).error.code, 'INVALID_INPUT');
  assert.equal(c.handle(null).error.code, 'INVALID_INPUT');
});

test('undefined properties count as absent, as in JSON', () => {
  const a = new Coordinator();
  const b = new Coordinator();
  const input = {
    ...JOIN,
    client: { clientId: 'app-1', clientHost: '/127.0.0.1', extra: undefined },
    request: { ...JOIN.request, instanceId: undefined, rackId: undefined, userEndpoint: undefined, shutdownApplication: undefined },
    unknownButUndefined: undefined,
  };
  const frozen = structuredClone(input);
  const out = a.handle(input);
  assert.ok(!isError(out), JSON.stringify(out));
  assert.equal(stringify(out), b.handle(JSON.stringify(input)));
  assert.deepEqual(input, frozen, 'the input object is not changed');
  assert.equal(a.handle({ nowMs: 2000, type: 'AdvanceTime', client: undefined }).error, undefined);
  a.replay([{ ...out.records[0], keyBytes: undefined }], 3000);
});

test('the constructor, replay, topologyId and partitionFor throw Errors with code and path', () => {
  const expectThrow = (fn, code, path) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof Error, 'an Error');
      if (code !== undefined) assert.equal(e.code, code, e.message);
      if (path !== undefined) assert.equal(e.path, path, e.message);
      assert.ok(e.message.length > 0);
      return;
    }
    assert.fail('did not throw');
  };
  expectThrow(() => new Coordinator({ 'group.consumer.session.timeout.ms': 1 }), 'INVALID_CONFIG', 'group.consumer.session.timeout.ms');
  expectThrow(() => new Coordinator({ dialect: 'kafka-5' }), 'INVALID_CONFIG', 'dialect');
  assert.ok(new Coordinator({ dialect: 'kafka-4.2' }) instanceof Coordinator);
  expectThrow(() => new Coordinator('{not json'), 'INVALID_CONFIG', '');
  expectThrow(() => new Coordinator({ 'group.streams.heartbeat.interval.ms': 0 }), 'INVALID_CONFIG', 'group.streams.heartbeat.interval.ms');

  const c = new Coordinator();
  const out = c.handle(JOIN);
  const good = out.records;
  expectThrow(() => c.replay([good[0], { key: { type: 20, data: { groupId: 'g' } }, value: null }]), 'INVALID_RECORD', 'records[1].key.data.memberId');
  expectThrow(() => c.replay('[{"key": 1}]'), 'INVALID_RECORD', 'records[0].key');
  expectThrow(() => c.replay([], -1), 'INVALID_INPUT', 'nowMs');
  expectThrow(() => c.replay('not json'), 'INVALID_INPUT', 'records');
  // A failed replay applied nothing; a good one applies everything.
  const fresh = new Coordinator();
  expectThrow(() => fresh.replay([...good, { keyBytes: '!!', valueBytes: null }]), 'INVALID_RECORD', 'records[5].keyBytes');
  assert.deepEqual(fresh.snapshot().groups, []);
  fresh.replay(good, 1000);
  assert.deepEqual(fresh.snapshot().groups, c.snapshot().groups);

  expectThrow(() => topologyId([{ subtopologyId: 1 }]), 'INVALID_INPUT', '[0].subtopologyId');
  expectThrow(() => topologyId('{'), 'INVALID_INPUT', '');
  expectThrow(() => partitionFor('g', 0), 'INVALID_INPUT', 'partitions');
});

test('topologyId equals the native `sgc topology-id`', (t) => {
  const topologies = [
    [],
    [{ subtopologyId: '0', sourceTopics: ['input'], stateChangelogTopics: [{ name: 'app-store-changelog' }] }],
    [
      { subtopologyId: '1',
        repartitionSourceTopics: [{ name: 'app-repartition-b', partitions: 4 }, { name: 'app-repartition-a' }],
        copartitionGroups: [{ repartitionSourceTopics: [0, 1] }] },
      { subtopologyId: '0', sourceTopics: ['orders', 'customers'], sourceTopicRegex: ['events-.*', 'audit'],
        repartitionSinkTopics: ['app-repartition-a', 'app-repartition-b'],
        stateChangelogTopics: [{ name: 'app-store-changelog', replicationFactor: 3,
          topicConfigs: [{ key: 'min.insync.replicas', value: '2' }, { key: 'cleanup.policy', value: 'compact' }] }],
        copartitionGroups: [{ sourceTopics: [1, 0], sourceTopicRegex: [0] }] },
    ],
    [{ subtopologyId: 'ü-0', sourceTopics: ['tëst', 'ünïcode-🚀'] }],
  ];
  // docs/topology-id.md test vectors.
  assert.equal(topologyId(topologies[0]), '15f9c8b56a71d55e5666142f5c6d7b9f3d561d3cdfc941f35f5fd408ae2c4832');
  assert.equal(topologyId(topologies[1]), '45727567ced3db45bb3678833066551d1f5cee87b4eb18bc5b40f877524865ad');
  assert.equal(topologyId(JSON.stringify(topologies[2])), '77599f38cb29c2c101aedff8950e64030569fc36ec26b55156f57d43b81caf2f');
  assert.equal(Coordinator.topologyId(topologies[1]), topologyId(topologies[1]));
  if (!existsSync(SGC_BIN)) {
    assert.fail(`${SGC_BIN} is missing: run \`cargo build --bin sgc\` (scripts/test-js.sh does)`);
  }
  for (const topology of topologies) {
    const native = execFileSync(SGC_BIN, ['topology-id'], { input: JSON.stringify(topology), encoding: 'utf8' }).trim();
    assert.equal(topologyId(topology), native, JSON.stringify(topology));
  }
});

test('partitionFor follows Kafka (PROTOCOL 5.8) and the native sgc', () => {
  const vectors = { g: 3, 'my-app': 0, wordcount: 41, 'streams-app': 5, polygenelubricants: 0 };
  for (const [group, partition] of Object.entries(vectors)) {
    assert.equal(partitionFor(group), partition, group);
    assert.equal(Coordinator.partitionFor(group, 50), partition, group);
  }
  assert.equal(partitionFor('g', 1), 0);
  const native = execFileSync(SGC_BIN, ['partition-for', 'wordcount', '7'], { encoding: 'utf8' }).trim();
  assert.equal(String(partitionFor('wordcount', 7)), native);
});

test('version is the package version', () => {
  const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(version(), manifest.version);
  assert.equal(Coordinator.version(), manifest.version);
});

test('int64 values: BigInt accepted in inputs, BigInt beyond 2^53 in outputs', () => {
  const c = new Coordinator();
  const out = c.handle({
    ...JOIN,
    request: { ...JOIN.request, taskOffsets: [{ subtopologyId: '0', partition: 0, offset: 2n ** 60n }] },
  });
  assert.equal(out.response.errorCode, 0);
  const member = c.snapshot().groups[0].members[0];
  assert.equal(member.taskOffsets[0].offset, 2n ** 60n, 'a BigInt beyond 2^53');
  assert.equal(typeof c.snapshot().nowMs, 'number');
  const text = c.handle(JSON.stringify({ nowMs: 2000, type: 'StreamsGroupDescribe', request: { groupIds: ['g'] } }));
  assert.match(text, /"offset":1152921504606846976/);
  const obj = c.handle({ nowMs: 2000, type: 'StreamsGroupDescribe', request: { groupIds: ['g'] } });
  assert.equal(stringify(obj), text);
});

test('a run of 16 digits is found wherever it lies, by the wrapper and by the module', async () => {
  const { hasLongDigitRun } = await import(join(PKG, 'api.mjs'));
  const longRun = (text) => /[0-9]{16}/.test(text);
  const digits = (n) => Array.from({ length: n }, (_, i) => String((i * 7) % 10)).join('');
  // Runs of 1-40 digits at every offset of a text and at its ends, alone or beside others.
  const texts = [''];
  for (let run = 1; run <= 40; run++) {
    for (let at = 0; at <= 34; at++) {
      const pad = 'x'.repeat(at);
      texts.push(pad + digits(run), digits(run) + pad, `${pad}${digits(run)}:${digits(17 - (run % 17))},`);
      texts.push(`${pad}"${digits(run)}"${digits(at % 16)}`);
    }
  }
  for (const text of texts) assert.equal(hasLongDigitRun(text), longRun(text), JSON.stringify(text));

  // The module's own check, behind handleJsonObject: an output text when it has no run of 16
  // digits, else the output converted exactly. The group id, echoed in the output, places a run.
  const handleJsonObject = Object.getPrototypeOf(Coordinator.prototype).handleJsonObject;
  const c = new Coordinator();
  for (let run = 14; run <= 18; run++) {
    for (let at = 0; at < 32; at++) {
      const groupId = 'x'.repeat(at) + digits(run);
      const input = JSON.stringify({ nowMs: 1, type: 'StreamsGroupDescribe', request: { groupIds: [groupId] } });
      const out = handleJsonObject.call(c, input);
      const text = c.handle(input);
      assert.equal(typeof out === 'string', !longRun(text), `${groupId}: ${text}`);
      assert.deepEqual(typeof out === 'string' ? JSON.parse(out) : out, JSON.parse(text));
    }
  }
});

test('objects answer the same whether they cross as JSON text or field by field', async () => {
  const { isPlainJson, withoutUndefined } = await import(join(PKG, 'api.mjs'));
  // The glue's own handle: the field-by-field conversion the wrapper falls back to.
  const fieldByField = Object.getPrototypeOf(Coordinator.prototype).handle;
  const request = Object.assign(Object.create(null), JOIN.request);
  const cases = [
    JOIN,
    { ...JOIN, client: { ...JOIN.client, rackId: undefined }, extra: undefined },
    { ...JOIN, request },
    { ...JOIN, request: { ...JOIN.request, memberEpoch: -0 } },
    { ...JOIN, request: { ...JOIN.request, memberEpoch: 1.5 } },
    { ...JOIN, request: { ...JOIN.request, activeTasks: [{ subtopologyId: '0', partitions: [0, 2 ** 60] }] } },
    { ...JOIN, request: { ...JOIN.request, processId: 'p\u00e9\u{1F600}' } },
  ];
  for (const input of cases) {
    const wrapped = new Coordinator().handle(input);
    const converted = fieldByField.call(new Coordinator(), withoutUndefined(input));
    assert.equal(stringify(wrapped), stringify(converted), JSON.stringify(input));
  }
  // What crosses as text, and what the engine converts (or refuses) field by field.
  assert.ok(isPlainJson(JOIN) && isPlainJson(request) && isPlainJson([1, undefined, null]));
  for (const v of [1.5, 2 ** 60, 1n, () => 1, Symbol('s'), new Date(0), '\uD800']) {
    assert.equal(isPlainJson({ a: [v] }), false, String(typeof v));
  }
  const cyclic = { a: {} };
  cyclic.a.b = cyclic;
  assert.equal(isPlainJson(cyclic), false, 'deep nesting is left to the engine');
});

test('plain objects are written as their JSON.stringify text, and nothing else is', async () => {
  const { isPlainJson, writePlainJson } = await import(join(PKG, 'api.mjs'));
  const out = new Uint8Array(4096);
  const written = (value, limit = out.length - 128) => {
    const end = writePlainJson(value, out, 0, limit);
    return end < 0 ? end : new TextDecoder().decode(out.subarray(0, end));
  };
  const deep = (n) => (n === 0 ? 1 : [deep(n - 1)]);
  const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
  const plain = [
    JOIN, {}, [], '', 'a"b\\c\n\u0001\u007f', 'p\u00e9\u{1F600}', 0, -0, -1, 7, 10, 99, 100,
    2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, true, false, null,
    [1, undefined, null], sparse, { a: undefined, b: 1 }, { 2: 'x', 1: 'y', z: [] },
    { 'k\uD800': 1, 'k"\u00e9': 2 }, Object.assign(Object.create(null), { n: 1 }),
    deep(64), { ...JOIN, request: { ...JOIN.request, activeTasks: [{ subtopologyId: '0', partitions: [0, 255] }] } },
  ];
  for (const value of plain) {
    assert.ok(isPlainJson(value), JSON.stringify(value));
    assert.equal(written(value), JSON.stringify(value), JSON.stringify(value));
  }
  class Point { constructor() { this.x = 1; } }
  const inherited = Object.create({ inherited: 1 });
  inherited.own = 2;
  const notPlain = [1.5, 2 ** 60, NaN, Infinity, 1n, () => 1, Symbol('s'), new Date(0), new Point(),
    '\uD800', 'a\uDC00b', [1, 'x\uD800'], inherited, deep(65), undefined, { f: () => 1 }];
  for (const value of notPlain) {
    assert.equal(isPlainJson(value), false, String(value?.toString?.()));
    assert.equal(written({ a: [value] }) === -1 || written(value) === -1, true, String(value?.toString?.()));
  }
  // No room: any text past the limit is refused, never cut short.
  const long = { id: 'x'.repeat(300), list: Array.from({ length: 100 }, (_, i) => i * 1000) };
  const text = JSON.stringify(long);
  for (const limit of [0, 1, 50, 299, 300, 310, text.length - 1, text.length]) {
    const end = writePlainJson(long, out, 0, limit);
    assert.ok(end === -2 || (end <= limit + 128 && written(long, limit) === text), `limit ${limit}: ${end}`);
  }
  assert.equal(written({ s: 'é'.repeat(200) }, 150), -2);
  assert.equal(written({ s: 'é'.repeat(100) }, 150), -2, 'fits as UTF-16 units, not as UTF-8');
  assert.equal(written({ s: 'é'.repeat(100) }, 250), JSON.stringify({ s: 'é'.repeat(100) }));
  assert.equal(written(long, text.length + 10), text);
  // A list longer than the module accepts is left to it (refused for its length alone).
  const holes = [];
  holes.length = 1e9;
  assert.equal(written({ holes }), -1);
  assert.equal(isPlainJson({ holes }), false);
  // A list of holes within the list limit, each written as null, stops at the buffer's end.
  const within = [];
  within.length = 1000000;
  assert.equal(written({ within }), -2);
});

test('huge inputs answer TOO_LARGE and leave the module working', () => {
  const c = new Coordinator();
  const describe = (groupIds) => ({ nowMs: 1, type: 'StreamsGroupDescribe', request: { groupIds } });
  // A list of a hundred million holes, with a BigInt: no plain JSON, so converted field by field.
  const holes = [];
  holes.length = 1e8;
  holes[0] = 1n;
  let out = c.handle(describe(holes));
  assert.deepEqual([out.error.code, out.error.path], ['TOO_LARGE', 'request.groupIds']);
  assert.match(out.error.message, /a list of 100000000 entries; at most 1000000 are accepted/);
  // The same without the BigInt, and just over the limit: the answer the text would get.
  const over = new Array(1000001).fill('g');
  const bare = [];
  bare.length = 1e8;
  for (const list of [bare, over]) {
    out = c.handle(describe(list));
    assert.deepEqual([out.error.code, out.error.path], ['TOO_LARGE', 'request.groupIds']);
  }
  assert.deepEqual(c.handle(describe(over)), JSON.parse(c.handle(JSON.stringify(describe(over)))));
  // One list named a thousand times: within the list limits, past the values' limit.
  const list = new Array(10000).fill('g');
  out = c.handle({ ...describe([]), request: { groupIds: [], x: new Array(1000).fill(list), big: 1n } });
  assert.equal(out.error.code, 'TOO_LARGE');
  assert.match(out.error.message, /values in all/);
  assert.throws(() => c.replay(holes), /TOO_LARGE|1000000/);
  // A text longer than a tree may be read from.
  const text = JSON.stringify(describe(['x'.repeat(17 * 2 ** 20)]));
  out = c.handle(text);
  assert.equal(JSON.parse(out).error.code, 'TOO_LARGE');
  // The module still answers.
  out = c.handle(describe(['g']));
  assert.equal(out.response.groups[0].errorCode, 69);
});

test('recordBytes: records carry base64 keyBytes/valueBytes that replay on their own', () => {
  const c = new Coordinator({ recordBytes: true });
  const out = c.handle(JOIN);
  assert.ok(out.records.length > 0);
  for (const r of out.records) {
    assert.match(r.keyBytes, /^[A-Za-z0-9+/]+=*$/);
    assert.ok(r.valueBytes === null || /^[A-Za-z0-9+/]+=*$/.test(r.valueBytes));
  }
  const rebuilt = new Coordinator();
  rebuilt.replay(out.records.map((r) => ({ keyBytes: r.keyBytes, valueBytes: r.valueBytes })), 1000);
  assert.deepEqual(rebuilt.snapshot().groups, new Coordinator().snapshot().groups.concat(c.snapshot().groups));
});

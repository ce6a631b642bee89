// WASI tests under Node's node:wasi: every scenario through the reactor (sgc_* ABI), through
// the command module and through Kafka's frames (ABI v3) gives exactly the native outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin, unpack } from '../../examples/wasi-host/host.mjs';
import { wireDiffers } from '../js/helpers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sgc = process.env.SGC_BIN ?? join(root, 'target', 'debug', 'sgc');
const dir = join(root, 'tests', 'scenarios');
const scenarios = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ file: f, ...JSON.parse(readFileSync(join(dir, f), 'utf8')) }));

function native(lines, config) {
  const tmp = mkdtempSync(join(tmpdir(), 'sgc-native-'));
  try {
    writeFileSync(join(tmp, 'config.json'), JSON.stringify(config ?? {}));
    return execFileSync(sgc, ['--config', join(tmp, 'config.json')], { input: lines.join('\n') + '\n', encoding: 'utf8' });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The command module runs in its own Node process per scenario: Node 20's node:wasi crashes
// (SIGSEGV) now and then when one process starts many command instances.
function command(lines, config) {
  const tmp = mkdtempSync(join(tmpdir(), 'sgc-command-'));
  try {
    writeFileSync(join(tmp, 'in.jsonl'), lines.join('\n') + '\n');
    const args = ['--disable-warning=ExperimentalWarning', join(root, 'examples', 'wasi-host', 'host.mjs'), 'command', join(tmp, 'in.jsonl')];
    if (config != null) {
      writeFileSync(join(tmp, 'config.json'), JSON.stringify(config));
      args.push(join(tmp, 'config.json'));
    }
    return execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test('there are scenarios', () => assert.ok(scenarios.length > 0));

for (const s of scenarios) {
  const lines = s.steps.map((step) => JSON.stringify(step.input));
  test(`reactor and command module match native: ${s.file}`, () => {
    const expected = native(lines, s.config ?? null);
    for (const abi of [1, 2]) {
      const plugin = new Plugin(undefined, { abi });
      const handle = plugin.create(s.config ?? null);
      const outputs = lines.map((l) => plugin.call(handle, l).output);
      plugin.destroy(handle);
      assert.equal(outputs.join('\n') + '\n', expected, `ABI v${abi}`);
    }
    assert.equal(command(lines, s.config ?? null), expected);
  });
}

// Every scenario through ABI v3's frames: each request input encoded by sgc_encode_request and
// handled by sgc_call_frame gives the records, topics, explain and deadline sgc_call2 gives on a
// second coordinator, and a response frame that reads back as its response (tests/wire.rs).
for (const s of scenarios) {
  test(`sgc_call_frame answers as sgc_call2: ${s.file}`, () => {
    const plugin = new Plugin();
    const wire = plugin.create(s.config ?? null);
    const json = plugin.create(s.config ?? null);
    s.steps.forEach((step, i) => {
      const line = JSON.stringify(step.input);
      const expected = JSON.parse(plugin.call(json, line).output);
      // A heartbeat or describe at the version it came at (4.4's v1 answers otherwise);
      // ListGroups at version 5, whose fields the JSON face answers; DescribeGroups and
      // TxnOffsetCommit at their own (default 6 and 5: an older one answers otherwise); the
      // other offsets inputs, whose own versions the Rust and npm wire tests cover, at version
      // 0, which they cannot be sent at: the JSON way.
      const versioned = ['StreamsGroupHeartbeat', 'StreamsGroupDescribe'].includes(step.input.type);
      const own = {
        ListGroups: 5,
        DescribeGroups: step.input.apiVersion ?? 6,
        TxnOffsetCommit: step.input.apiVersion ?? 5,
      }[step.input.type];
      const v = versioned ? (step.input.apiVersion ?? 0) : own ?? 0;
      const encoded = plugin.encodeRequest(wire, step.input, v, i);
      if (encoded.status !== 0) {
        // Not a request of the dialect (time, topics, replays, manual targets; Initialize in
        // kafka-*), or not an input at all: the JSON way for both.
        const out = JSON.parse(plugin.call(wire, line).output);
        assert.deepEqual(out, expected, `step ${i}`);
        return;
      }
      if (expected.error) return;
      const out = plugin.callFrame(wire, encoded.frame, step.input.nowMs, step.input.client?.clientHost ?? '');
      assert.equal(out.status, 0, `step ${i}: ${JSON.stringify(out.error)}`);
      const { response, ...fields } = expected;
      assert.deepEqual(out.fields, fields, `step ${i}`);
      const key = new DataView(encoded.frame.buffer, encoded.frame.byteOffset).getInt16(0);
      const read = plugin.decodeResponse(wire, key, v, out.frame.subarray(4));
      assert.equal(read.status, 0, `step ${i}: ${JSON.stringify(read.error)}`);
      assert.equal(read.correlationId, i);
      assert.equal(wireDiffers(response, read.response, 'response', v), null, `step ${i}`);
    });
  });
}

test('a bad pointer is an error status, not a trap', () => {
  const plugin = new Plugin();
  const handle = plugin.create(null);
  assert.equal(plugin.x.sgc_call(handle, 0xfffff000, 8192), 2);
  assert.equal(JSON.parse(plugin.output()).error.code, 'INVALID_INPUT');
  assert.equal(plugin.call(handle, '{"nowMs": 1, "type": "AdvanceTime"}').status, 0);
});

const ADVANCE = '{"nowMs": 1, "type": "AdvanceTime"}';
const JOIN = JSON.stringify({ nowMs: 1, type: 'StreamsGroupHeartbeat', request: {
  groupId: 'g', memberId: 'm', memberEpoch: 0, topologyId: 't', processId: 'p',
  rebalanceTimeoutMs: 1000, activeTasks: [], standbyTasks: [], warmupTasks: [] } });
const BAD = [[0, 4], [8, 16], [0xffffff00, 4096], [0xffffffff, 1], [0xffffffff, 0xffffffff], [0x7fffffff, 0x7fffffff]];

function put(plugin, text) {
  const data = new TextEncoder().encode(text);
  const ptr = plugin.x.sgc_alloc(data.length) >>> 0;
  assert.notEqual(ptr, 0);
  plugin.bytes().set(data, ptr);
  return [ptr, data.length];
}

test('ABI v2 is the default and its answer is one packed i64', () => {
  const plugin = new Plugin();
  assert.equal(plugin.abi, 2);
  assert.equal(plugin.x.sgc_abi_version_2(), 2);
  const h = plugin.create(null);
  const [ptr, n] = put(plugin, ADVANCE);
  const result = plugin.x.sgc_call2(h, ptr, n);
  assert.equal(typeof result, 'bigint');
  const r = unpack(result);
  assert.equal(r.status, 0);
  assert.equal(new TextDecoder().decode(plugin.bytes().subarray(r.ptr, r.ptr + r.len)),
    '{"response":null,"records":[],"topicsToCreate":[],"explain":[],"nextDeadlineMs":null}');
});

test('bad frees answer a status and change nothing (own output, double, interior, wrong length, null, outside memory)', () => {
  const plugin = new Plugin(undefined, { abi: 1 });
  const h = plugin.create(null);
  const [ptr, n] = put(plugin, ADVANCE);
  assert.equal(plugin.x.sgc_call(h, ptr, n), 0);
  const out = [plugin.x.sgc_output_ptr() >>> 0, plugin.x.sgc_output_len() >>> 0];
  const before = plugin.output();
  const v2 = unpack(plugin.x.sgc_call2(h, ptr, n));
  const v2Text = new TextDecoder().decode(plugin.bytes().slice(v2.ptr, v2.ptr + v2.len));
  const cases = [[out[0], out[1], 1], [v2.ptr, v2.len, 1], [ptr + 1, n - 1, 1], [ptr, n + 1, 2], [ptr, n - 1, 2],
    [ptr, 0, 2], [0, n, 1], [0, 0, 1], ...BAD.map(([p, l]) => [p, l, 1])];
  for (const [p, l, status] of cases) {
    plugin.x.sgc_free(p, l);
    assert.equal(plugin.x.sgc_free_checked(p, l), status, `free(${p}, ${l})`);
  }
  assert.equal(plugin.output(), before);
  assert.equal(new TextDecoder().decode(plugin.bytes().slice(v2.ptr, v2.ptr + v2.len)), v2Text);
  assert.equal(plugin.x.sgc_free_checked(ptr, n), 0);
  assert.equal(plugin.x.sgc_free_checked(ptr, n), 1, 'double free');
  for (let i = 0; i < 200; i++) assert.equal(plugin.call(h, `{"nowMs": ${i}, "type": "AdvanceTime"}`).status, 0);
  assert.equal(plugin.call(h, JOIN).status, 0);
});

test('ABI v2: bad pointers and lengths answer status 2, never a trap, and one handle never disturbs another', () => {
  const plugin = new Plugin();
  const a = plugin.create(null);
  const b = plugin.create({ 'group.streams.heartbeat.interval.ms': 7000 });
  const [jp, jn] = put(plugin, JOIN);
  const ra = unpack(plugin.x.sgc_call2(a, jp, jn));
  assert.equal(ra.status, 0);
  const bytesA = plugin.bytes().slice(ra.ptr, ra.ptr + ra.len);
  const [freed, fn] = put(plugin, ADVANCE);
  const [live, ln] = put(plugin, ADVANCE);
  assert.equal(plugin.x.sgc_free_checked(freed, fn), 0);
  for (const [p, l] of [...BAD, [freed, fn], [ra.ptr, ra.len], [live, ln + 1], [live + ln, 1], [live - 1, 2]]) {
    for (const handle of [b, 0, 999, 0xffffffff]) {
      const r = plugin.call2Raw(handle, p, l);
      assert.equal(r.status, 2, `call2(${handle}, ${p}, ${l})`);
      assert.equal(JSON.parse(r.output).error.code, 'INVALID_INPUT');
    }
    assert.deepEqual(plugin.bytes().slice(ra.ptr, ra.ptr + ra.len), bytesA);
  }
  assert.equal(plugin.call(b, '{not json').status, 1);
  const ob = JSON.parse(plugin.call(b, JOIN).output);
  assert.equal(ob.response.heartbeatIntervalMs, 7000);
  plugin.destroy(b);
  assert.equal(plugin.call2Raw(b, live, ln).status, 2);
  assert.deepEqual(plugin.bytes().slice(ra.ptr, ra.ptr + ra.len), bytesA);
  assert.equal(JSON.parse(new TextDecoder().decode(bytesA)).response.heartbeatIntervalMs, 5000);
  const d = JSON.parse(plugin.call(a, '{"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}').output);
  assert.equal(d.response.groups[0].members[0].memberId, 'm');
});

test('ABI v2: the input buffer grows for large inputs (non-ASCII too)', () => {
  const plugin = new Plugin();
  const h = plugin.create(null);
  const topics = Array.from({ length: 500 }, (_, i) => ({ name: `tópico-${i}-${'x'.repeat(200)}`, partitions: 3 }));
  const r = plugin.call(h, JSON.stringify({ nowMs: 3, type: 'TopicMetadata', topics }));
  assert.equal(r.status, 0, r.output);
  assert.ok(plugin.cap > 100000);
});

// ABI version 3: Kafka's request frames.
const API_VERSIONS_V0 = Uint8Array.of(0, 18, 0, 0, 0, 0, 0, 5, 0, 1, 99); // correlation id 5, client "c"
const JOIN_INPUT = { ...JSON.parse(JOIN), client: { clientId: 'app-1', clientHost: '/10.0.0.1' } };

test('ABI v3: the exports and their types', () => {
  const plugin = new Plugin();
  assert.equal(plugin.x.sgc_abi_version_3(), 3);
  assert.ok(plugin.hasV3);
  const exports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(join(root, 'pkg', 'wasi', 'sgc-reactor.wasm'))));
  for (const name of ['sgc_call_frame', 'sgc_encode_request', 'sgc_decode_response']) {
    assert.ok(exports.some((e) => e.name === name && e.kind === 'function'), name);
  }
  assert.equal(plugin.x.sgc_call_frame.length, 6);
});

test('ABI v3: ApiVersions through sgc_call_frame', () => {
  const plugin = new Plugin();
  const h = plugin.create({ dialect: 'kafka-4.2' });
  const out = plugin.callFrame(h, API_VERSIONS_V0, 0);
  assert.equal(out.status, 0, JSON.stringify(out.error));
  assert.deepEqual(out.fields, { records: [], topicsToCreate: [], explain: [], nextDeadlineMs: null });
  const size = new DataView(out.frame.buffer, out.frame.byteOffset).getInt32(0);
  assert.equal(size, out.frame.length - 4);
  const read = plugin.decodeResponse(h, 18, 0, out.frame.subarray(4));
  assert.equal(read.status, 0, JSON.stringify(read.error));
  assert.equal(read.correlationId, 5);
  assert.equal(read.response.errorCode, 0);
  assert.ok(read.response.apiKeys.some((k) => k.apiKey === 88), 'StreamsGroupHeartbeat is served');
});

test('ABI v3: a join built by sgc_encode_request answers as the JSON input does', () => {
  const plugin = new Plugin();
  const h = plugin.create(null);
  const control = plugin.create(null);
  const encoded = plugin.encodeRequest(h, JOIN_INPUT, 0, 41);
  assert.equal(encoded.status, 0, JSON.stringify(encoded.error));
  const key = new DataView(encoded.frame.buffer).getInt16(0);
  const out = plugin.callFrame(h, encoded.frame, 1, '/10.0.0.1');
  assert.equal(out.status, 0, JSON.stringify(out.error));
  const { response, ...expected } = JSON.parse(plugin.call(control, JSON.stringify(JOIN_INPUT)).output);
  assert.deepEqual(out.fields, expected);
  assert.ok(JSON.stringify(out.fields.records).includes('/10.0.0.1'));
  const read = plugin.decodeResponse(h, key, 0, out.frame.subarray(4));
  assert.equal(read.correlationId, 41);
  assert.equal(read.response.memberId, 'm');
  assert.equal(read.response.memberEpoch, response.memberEpoch);
  assert.equal(plugin.encodeRequest(h, ADVANCE, 0, 1).error.path, 'type', 'no request');
});

test('ABI v3: a bad frame is status 1 (INVALID_FRAME) and changes nothing; a bad pointer status 2', () => {
  const plugin = new Plugin();
  const h = plugin.create(null);
  const control = plugin.create(null);
  const { frame } = plugin.encodeRequest(h, JOIN_INPUT, 0, 1);
  const unknownKey = frame.slice();
  unknownKey[1] = 0;
  for (const bad of [frame.subarray(0, 5), frame.subarray(0, frame.length - 2), unknownKey, new Uint8Array(0)]) {
    const out = plugin.callFrame(h, bad, 1);
    assert.equal(out.status, 1);
    assert.equal(out.error.code, 'INVALID_FRAME');
  }
  assert.equal(plugin.callFrame(h, frame, -1).error.path, 'nowMs');
  for (const [ptr, len] of BAD) {
    const r = unpack(plugin.x.sgc_call_frame(h, ptr, len, 1n, 0, 0));
    assert.equal(r.status, 2, `${ptr} +${len}`);
  }
  assert.equal(plugin.callFrame(h + 9, frame, 1).status, 2);
  const out = plugin.callFrame(h, frame, 1, '/10.0.0.1');
  const { response, ...expected } = JSON.parse(plugin.call(control, JSON.stringify(JOIN_INPUT)).output);
  assert.deepEqual(out.fields, expected, 'nothing changed');
});

// ABI version 4: the host kit. A broker with one handle per `__consumer_offsets` partition
// ("" and "my-app" on partition 0 of 50, "g" on 3, "wordcount" on 41) routes the frames.
test('ABI v4: the exports and their types', () => {
  const plugin = new Plugin();
  assert.equal(plugin.x.sgc_abi_version_4(), 4);
  const arity = { sgc_route_request: 4, sgc_merge_responses: 6, sgc_error_response: 4, sgc_answer_api_versions: 5, sgc_is_mine: 6 };
  for (const [name, n] of Object.entries(arity)) assert.equal(plugin.x[name]?.length, n, name);
});

test('ABI v4: a request for several groups is split by partition and the answers merged in Kafka order', () => {
  const plugin = new Plugin();
  const router = plugin.create({ dialect: 'kafka-4.2' });
  const partitions = new Map();
  const coordinator = (p) => {
    if (!partitions.has(p)) partitions.set(p, plugin.create({ dialect: 'kafka-4.2' }));
    return partitions.get(p);
  };
  const { frame } = plugin.encodeRequest(router, { type: 'StreamsGroupDescribe', request: { groupIds: ['wordcount', '', 'g', 'my-app'] } }, 0, 7);
  const routed = plugin.routeRequest(router, frame, 50);
  assert.equal(routed.status, 0, JSON.stringify(routed.error));
  assert.deepEqual([routed.route, routed.apiKey, routed.apiVersion], ['groups', 89, 0]);
  assert.deepEqual(routed.parts.map((p) => p.partition), [0, 0, 41, 3]);
  // Partition 3 is not led here: NOT_COORDINATOR for its groups.
  const answers = routed.parts.map((p) => {
    const out = p.partition === 3 ? plugin.errorResponse(router, p.frame, 16) : plugin.callFrame(coordinator(p.partition), p.frame, 0);
    assert.equal(out.status, 0, JSON.stringify(out.error));
    return out.frame.subarray(4);
  });
  const merged = plugin.mergeResponses(router, frame, 50, answers);
  assert.equal(merged.status, 0, JSON.stringify(merged.error));
  assert.equal(new DataView(merged.frame.buffer, merged.frame.byteOffset).getInt32(0), merged.frame.length - 4);
  const read = plugin.decodeResponse(router, 89, 0, merged.frame.subarray(4));
  assert.equal(read.correlationId, 7);
  assert.deepEqual(read.response.groups.map((g) => g.groupId), ['', 'my-app', 'wordcount', 'g']);
  assert.equal(read.response.groups[3].errorCode, 16);
  assert.equal(plugin.mergeResponses(router, frame, 50, answers.slice(1)).error.path, 'answers');

  const heartbeat = plugin.encodeRequest(router, JOIN_INPUT, 0, 8).frame;
  const one = plugin.routeRequest(router, heartbeat, 50);
  assert.deepEqual([one.route, one.groupId, one.partition], ['group', 'g', 3]);
  assert.deepEqual(plugin.isMine(router, 'g', 50, [3]), { status: 0, partition: 3, mine: true });
  assert.equal(plugin.isMine(router, 'wordcount', 50, [3]).mine, false);
});

test("ABI v4: ApiVersions with the host's APIs; bad frames status 1, bad pointers status 2", () => {
  const plugin = new Plugin();
  const h = plugin.create({ dialect: 'kafka-4.2' });
  assert.equal(plugin.routeRequest(h, API_VERSIONS_V0, 50).route, 'apiVersions');
  const hostApis = [
    { apiKey: 3, minVersion: 0, maxVersion: 12 },
    { apiKey: 8, minVersion: 0, maxVersion: 8 },
    { apiKey: 88, minVersion: 3, maxVersion: 4 },
  ];
  const out = plugin.answerApiVersions(h, API_VERSIONS_V0, hostApis);
  assert.equal(out.status, 0, JSON.stringify(out.error));
  const read = plugin.decodeResponse(h, 18, 0, out.frame.subarray(4));
  assert.equal(read.correlationId, 5);
  const apis = new Map(read.response.apiKeys.map((a) => [a.apiKey, [a.minVersion, a.maxVersion]]));
  assert.deepEqual([apis.get(3), apis.get(8), apis.has(88)], [[0, 12], [2, 8], false]);

  for (const bad of [Uint8Array.of(0, 3), new Uint8Array(0)]) {
    const routed = plugin.routeRequest(h, bad, 50);
    assert.deepEqual([routed.status, routed.error.code], [1, 'INVALID_FRAME']);
  }
  assert.equal(plugin.errorResponse(h, API_VERSIONS_V0, 15).error.code, 'INVALID_FRAME');
  assert.equal(plugin.routeRequest(h, API_VERSIONS_V0, 0).error.path, 'partitions');
  assert.equal(plugin.answerApiVersions(h, API_VERSIONS_V0, [{ apiKey: 3 }]).error.path, 'apis[0].minVersion');
  for (const [ptr, len] of BAD) {
    assert.equal(unpack(plugin.x.sgc_route_request(h, ptr, len, 50)).status, 2, `${ptr} +${len}`);
    assert.equal(unpack(plugin.x.sgc_error_response(h, ptr, len, 15)).status, 2, `${ptr} +${len}`);
  }
  assert.equal(plugin.routeRequest(h + 9, API_VERSIONS_V0, 50).status, 2);
});

// ABI version 5: a frame behind Kafka's authorization, the principal's decisions as JSON.
const JOIN_42 = {
  type: 'StreamsGroupHeartbeat',
  client: { clientId: 'app-1' },
  request: {
    groupId: 'g', memberId: 'm', memberEpoch: 0, processId: 'p', rebalanceTimeoutMs: 1000,
    activeTasks: [], standbyTasks: [], warmupTasks: [],
    topology: { epoch: 0, subtopologies: [] }, endpointInformationEpoch: 0,
  },
};
const READ_G = { allow: [{ operation: 'READ', resourceType: 'GROUP', name: 'g' }] };

test('ABI v5: the exports and their types', () => {
  const plugin = new Plugin();
  assert.equal(plugin.x.sgc_abi_version_5(), 5);
  assert.ok(plugin.hasV5);
  assert.equal(plugin.x.sgc_call_frame_authorized.length, 8);
});

test('ABI v5: a group READ denied answers GROUP_AUTHORIZATION_FAILED; granted, as sgc_call_frame', () => {
  const plugin = new Plugin();
  const h = plugin.create({ dialect: 'kafka-4.2' });
  const control = plugin.create({ dialect: 'kafka-4.2' });
  const { frame } = plugin.encodeRequest(h, JOIN_42, 0, 3);
  for (const decisions of [{ allow: [] }, '{}', { allow: [{ operation: 'READ', resourceType: 'GROUP', name: 'h' }] }]) {
    const out = plugin.callFrameAuthorized(h, frame, 1, decisions, '/10.0.0.1');
    assert.equal(out.status, 0, JSON.stringify(out.error));
    assert.deepEqual(out.fields.records, []);
    const read = plugin.decodeResponse(h, 88, 0, out.frame.subarray(4));
    assert.equal(read.response.errorCode, 30, JSON.stringify(decisions));
  }
  const expected = plugin.callFrame(control, frame, 1, '/10.0.0.1');
  for (const decisions of [READ_G, JSON.stringify(READ_G), { superUser: true }]) {
    const fresh = plugin.create({ dialect: 'kafka-4.2' });
    const out = plugin.callFrameAuthorized(fresh, frame, 1, decisions, '/10.0.0.1');
    assert.equal(out.status, 0, JSON.stringify(out.error));
    assert.deepEqual(out.fields, expected.fields);
    assert.deepEqual(out.frame, expected.frame);
    assert.equal(plugin.decodeResponse(fresh, 88, 0, out.frame.subarray(4)).response.errorCode, 0);
  }
});

test('ABI v5: decisions that do not read are status 1 at decisions and change nothing; bad pointers status 2', () => {
  const plugin = new Plugin();
  const h = plugin.create({ dialect: 'kafka-4.2' });
  const control = plugin.create({ dialect: 'kafka-4.2' });
  const { frame } = plugin.encodeRequest(h, JOIN_42, 0, 3);
  for (const decisions of ['', 'not JSON', '[true]', '{"allow": [{"operation": "EAT", "resourceType": "GROUP", "name": "g"}]}', '{"superUser": true, "deny": []}']) {
    const out = plugin.callFrameAuthorized(h, frame, 1, decisions);
    assert.equal(out.status, 1, decisions);
    assert.equal(out.error.code, 'INVALID_INPUT');
    assert.equal(out.error.path, 'decisions', decisions);
  }
  const ptr = (plugin.putBytes(frame), plugin.buf);
  for (const [bad, len] of BAD) {
    assert.equal(unpack(plugin.x.sgc_call_frame_authorized(h, ptr, frame.length, 1n, 0, 0, bad, len || 1)).status, 2, `${bad} +${len}`);
  }
  assert.equal(plugin.callFrameAuthorized(h + 9, frame, 1, READ_G).status, 2);
  const out = plugin.callFrameAuthorized(h, frame, 1, READ_G);
  assert.deepEqual(out.fields, plugin.callFrame(control, frame, 1).fields, 'nothing changed');
});

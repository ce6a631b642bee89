// The testing tools' simulated members in a released Kafka's dialect: against a coordinator of
// our own (virtual time, records checked) and against a live `sgc serve` over TCP (wall time,
// Kafka's requests on a socket, the group as describe shows it). The same script runs on both:
// a group forms, its members commit offsets as Streams does, a zombie whose heartbeats are lost
// is fenced and its commit refused, a crashed member's tasks move after the session timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PKG, SGC_BIN } from './helpers.mjs';

const { Cluster, RemoteCoordinator, RemoteError, parseEndpoint } = await import(join(PKG, 'testing/index.mjs'));

const SETTINGS = {
  dialect: 'kafka-4.2',
  'group.streams.initial.rebalance.delay.ms': 0,
  'group.streams.session.timeout.ms': 1500,
  'group.streams.heartbeat.interval.ms': 100,
};
const TOPOLOGY = [{ subtopologyId: '0', sourceTopics: ['orders'] }, { subtopologyId: '1', sourceTopics: ['clicks'] }];
const TOPICS = { orders: 4, clicks: 2 };
const UNKNOWN_MEMBER_ID = 25;

/** Starts `sgc serve` on a free port; resolves to `{endpoint, stop}`. */
async function serve(settings) {
  const dir = mkdtempSync(join(tmpdir(), 'sgc-remote-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(settings));
  const args = ['serve', '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data'), '--config', join(dir, 'config.json')];
  for (const [name, partitions] of Object.entries(TOPICS)) args.push('--topic', `${name}:${partitions}`);
  const child = spawn(SGC_BIN, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sgc serve exited with ${code}`)));
  });
  assert.match(line, /^listening /);
  return {
    endpoint: line.slice('listening '.length).trim(),
    stop() {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every active task of the topology is owned by exactly one running client. */
function assertEveryTaskOwnedOnce(cluster) {
  const owners = new Map();
  for (const m of cluster.runningMembers()) {
    for (const key of m.ownedKeys().active) {
      assert.ok(!owners.has(key), `task ${key} owned by ${owners.get(key)} and ${m.name}`);
      owners.set(key, m.name);
    }
  }
  assert.equal(owners.size, 6, 'every task has an active owner');
}

/**
 * The script both coordinators run; returns what a test compares. `clock()` reads the time
 * the coordinator keeps: the virtual clock of our own, the wall's for a live endpoint.
 */
function script(cluster, clock = () => cluster.now) {
  const [a1, a2] = cluster.addProcess({ processId: 'a', threads: 2 });
  const [b] = cluster.addProcess({ processId: 'b' });
  const [c] = cluster.addProcess({ processId: 'c' });
  cluster.runUntilStable({ maxMs: 20000 });
  assertEveryTaskOwnedOnce(cluster);
  for (const m of [a1, a2, b, c]) {
    assert.match(m.memberId, /^a-StreamThread-\d-1$|^b-StreamThread-1-1$|^c-StreamThread-1-1$/);
    assert.equal(m.errors.length, 0, `${m.name}: ${JSON.stringify(m.errors)}`);
  }
  assert.equal(cluster.describe().groupState, 'Stable');

  // Every member commits the partitions of its active tasks at its epoch.
  for (const m of [a1, a2, b, c]) {
    const out = m.commit(100);
    assert.ok(out === null || out.response.topics.every((t) => t.partitions.every((p) => p.errorCode === 0)), JSON.stringify(out?.response));
  }
  const fetched = cluster.send({
    type: 'OffsetFetch',
    request: { groups: [{ groupId: 'app', memberEpoch: -1, topics: null }], requireStable: false },
    apiVersion: 9,
  }).response.groups[0];
  const committed = fetched.topics.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partitionIndex}@${p.committedOffset}`)).sort();
  assert.deepEqual(committed, ['clicks-0@100', 'clicks-1@100', 'orders-0@100', 'orders-1@100', 'orders-2@100', 'orders-3@100']);

  // A zombie: c's heartbeats are lost; the session timeout fences it while it still believes
  // it owns its tasks, and its commit at the old epoch is refused.
  const zombieEpoch = c.memberEpoch;
  const zombieId = c.memberId;
  const zombieTasks = c.ownedKeys().active;
  c.dropHeartbeats({ forMs: 4000 });
  cluster.runUntil(() => !cluster.view.group('app').members.has(zombieId), { maxMs: 10000, what: 'the zombie fenced' });
  assert.deepEqual(c.ownedKeys().active, zombieTasks, 'the zombie still believes it owns its tasks');
  const refused = c.commit(200);
  assert.equal(c.memberEpoch, zombieEpoch);
  assert.ok(refused.response.topics.every((t) => t.partitions.every((p) => p.errorCode === UNKNOWN_MEMBER_ID)), JSON.stringify(refused.response));
  assert.equal(c.lastError.during, 'commit');
  // Its heartbeats come through again: told it is unknown, it rejoins under the same id.
  cluster.runUntilStable({ maxMs: 20000 });
  assert.ok(c.errors.some((e) => e.code === UNKNOWN_MEMBER_ID && e.during === 'heartbeat'));
  assert.equal(c.memberId, zombieId);
  assertEveryTaskOwnedOnce(cluster);

  // A crash: b's tasks move once the session timeout (1,500 ms from its last heartbeat, at
  // most one 100 ms interval before the crash) has passed, not before.
  const crashedAt = clock();
  b.crash();
  cluster.runUntilStable({ maxMs: 20000 });
  assert.ok(clock() - crashedAt >= 1400, `moved after ${clock() - crashedAt} ms`);
  assert.equal(cluster.describe().members.length, 3);
  assertEveryTaskOwnedOnce(cluster);
  cluster.assertInvariants();
  return { traced: cluster.trace.length };
}

test('simulated members speak Kafka 4.2 to a coordinator of our own: join with their own ids and topology, commit, a zombie fenced', () => {
  const cluster = new Cluster({ config: SETTINGS, topology: TOPOLOGY, topics: TOPICS, verifyView: 'input' });
  const { traced } = script(cluster);
  assert.ok(traced > 50);
  // The commits are in the records, at the epoch each member had.
  const commits = cluster.trace.filter((t) => t.input.type === 'OffsetCommit');
  assert.equal(commits.length, 5);
  const records = JSON.parse(commits[0].output).records;
  assert.ok(records.length > 0 && records.every((r) => r.key.type === 1));
  cluster.close();
});

test('the same script against a live `sgc serve` over TCP: wall-clock time, the group as describe shows it', async () => {
  const server = await serve(SETTINGS);
  try {
    const cluster = new Cluster({ endpoint: server.endpoint, config: { dialect: 'kafka-4.2' }, topology: TOPOLOGY, topics: TOPICS });
    const wallStart = Date.now();
    const { traced } = script(cluster, () => Date.now());
    assert.ok(traced > 50);
    assert.ok(Date.now() - wallStart >= 3000, 'two session timeouts passed on the wall clock');
    assert.ok(cluster.coordinator.sent > traced, 'describes went beside the traced inputs');
    // No records over the wire; the trace holds Kafka's answers.
    assert.ok(cluster.trace.every((t) => JSON.parse(t.output).records.length === 0));
    // What a live endpoint cannot do is refused, not faked.
    assert.throws(() => cluster.createTopic('more', 2), /live endpoint/);
    assert.throws(() => cluster.snapshot(), /no snapshot/);
    cluster.close();
  } finally {
    server.stop();
  }
});

test('a live endpoint that goes away is a RemoteError, and a bad endpoint is refused up front', async () => {
  assert.throws(() => parseEndpoint('localhost'), RangeError);
  assert.throws(() => parseEndpoint('host:0'), RangeError);
  assert.deepEqual(parseEndpoint('[::1]:9092'), { host: '::1', port: 9092 });
  const server = await serve(SETTINGS);
  const remote = new RemoteCoordinator(server.endpoint, { dialect: 'kafka-4.2', timeoutMs: 5000 });
  const describe = { type: 'StreamsGroupDescribe', request: { groupIds: ['none'], includeAuthorizedOperations: false } };
  assert.equal(JSON.parse(remote.handle(describe)).response.groups[0].errorCode, 69);
  // An input that is no request changes nothing and sends nothing.
  assert.equal(JSON.parse(remote.handle({ nowMs: 5, type: 'AdvanceTime' })).response, null);
  assert.equal(remote.sent, 1);
  server.stop();
  assert.throws(() => remote.handle(describe), RemoteError);
  remote.free();
});

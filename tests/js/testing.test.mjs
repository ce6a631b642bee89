// The testing tools (streams-group-coordinator/testing) drive simulated groups: a 50-member
// group through a rolling restart and crashes with the invariants checked after every input,
// fault injection, topic changes, and traces saved as scenario files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG } from './helpers.mjs';

const { Cluster, InvariantError, checkSnapshot, loadScenario, runScenarioFile, taskKeys } =
  await import(join(PKG, 'testing/index.mjs'));
const { Coordinator } = await import(join(PKG, 'node.mjs'));

const TOPOLOGY = [
  {
    subtopologyId: '0',
    sourceTopics: ['orders'],
    stateChangelogTopics: [{ name: 'shop-order-store-changelog', partitions: 0, replicationFactor: 0, topicConfigs: [] }],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
  },
  { subtopologyId: '1', sourceTopics: ['clicks'] },
];

/** Every active task of the group is owned by exactly one running client. */
function assertEveryTaskOwnedOnce(cluster, expectedTasks) {
  const owners = new Map();
  for (const m of cluster.runningMembers()) {
    for (const key of m.ownedKeys().active) {
      assert.ok(!owners.has(key), `task ${key} owned by ${owners.get(key)} and ${m.name}`);
      owners.set(key, m.name);
    }
  }
  assert.equal(owners.size, expectedTasks, 'every task has an active owner');
}

function epochs(cluster) {
  const g = cluster.group();
  return { groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch };
}

test('a 50-member group survives a rolling restart and crashes, invariants checked at every input', () => {
  const cluster = new Cluster({
    groupId: 'shop',
    topology: TOPOLOGY,
    topics: { orders: 48, clicks: 24 },
    config: { 'group.streams.num.standby.replicas': 1 },
    name: '50 members: rolling restart and crashes',
    verifyView: 'stable',
  });
  // Ten processes of five stream threads: six static (persistent state), four dynamic.
  const processes = [];
  for (let p = 0; p < 10; p++) {
    const processId = `proc-${p}`;
    processes.push(processId);
    cluster.addProcess({ processId, threads: 5, instanceId: p < 6 ? `shop-${p}` : null });
  }
  assert.equal(cluster.members.size, 50);
  cluster.runUntilStable({ maxMs: 120000 });
  cluster.assertInvariants();
  cluster.assertStable();
  assertEveryTaskOwnedOnce(cluster, 72);
  const g = cluster.group();
  assert.equal(g.members.length, 50);
  assert.equal(g.state, 'STABLE');
  const standbys = g.members.reduce((n, m) => n + taskKeys(m.assignment.standbyTasks).length, 0);
  assert.equal(standbys, 48, 'one standby per stateful task');

  // Rolling restart, one process at a time, each back within the session timeout.
  for (const processId of processes) {
    const isStatic = cluster.process(processId)[0].isStatic;
    const before = epochs(cluster);
    const owned = new Map(cluster.process(processId).map((m) => [m.instanceId ?? m.name, m.ownedKeys()]));
    cluster.restartProcess(processId, { downtimeMs: 10000 });
    cluster.advance(1);
    cluster.assertInvariants();
    if (isStatic) {
      // Members at -2 keep their tasks; nobody else gets them.
      const down = cluster.group().members.filter((m) => m.memberEpoch === -2);
      assert.equal(down.length, 5, `${processId}: five members at epoch -2`);
    }
    cluster.runUntilStable({ maxMs: 120000 });
    cluster.assertStable();
    assertEveryTaskOwnedOnce(cluster, 72);
    const after = epochs(cluster);
    if (isStatic) {
      assert.deepEqual(after, before, `${processId}: a static restart does not rebalance`);
      for (const m of cluster.process(processId)) {
        assert.deepEqual(m.ownedKeys(), owned.get(m.instanceId), `${m.name} got its tasks back`);
      }
    } else {
      assert.ok(after.groupEpoch > before.groupEpoch, `${processId}: a dynamic restart rebalances`);
    }
  }
  const replaced = cluster.explanations.filter((e) => e.code === 'STATIC_MEMBER_REPLACED');
  assert.equal(replaced.length, 30, 'every static member was replaced once');

  // A static and a dynamic process crash: the session timeout fences their members.
  const start = cluster.now;
  cluster.crashProcess('proc-2');
  cluster.crashProcess('proc-8');
  const { atMs } = cluster.runUntilStable({ maxMs: 180000 });
  assert.ok(atMs - start >= 45000, 'nothing moves before the session timeout');
  const fenced = cluster.explanations.filter((e) => e.code === 'MEMBER_FENCED' && e.atMs >= start);
  assert.equal(fenced.length, 10);
  assert.ok(fenced.every((e) => e.cause === 'SESSION_TIMEOUT'));
  assert.equal(cluster.group().members.length, 40);
  assertEveryTaskOwnedOnce(cluster, 72);
  cluster.assertInvariants();
  assert.ok(cluster.trace.length > 1000, `traced ${cluster.trace.length} inputs`);
  cluster.close();
});

test('lost heartbeats: the member is fenced, learns it, drops its tasks and rejoins', () => {
  const cluster = new Cluster({ topics: { input: 8 }, verifyView: 'input' });
  const [a, b] = [cluster.addMember({ name: 'a' }), cluster.addMember({ name: 'b' })];
  cluster.runUntilStable();
  const oldId = a.memberId;
  a.dropHeartbeats({ forMs: 50000 });
  cluster.advance(46000);
  // Fenced by the session timeout; b took over every task while a still believes it owns some.
  assert.ok(cluster.explanations.some((e) => e.code === 'MEMBER_FENCED' && e.memberId === oldId));
  cluster.runUntilStable({ maxMs: 60000 });
  assert.ok(a.errors.some((e) => e.code === 25 || e.code === 110), 'a heard that it was fenced');
  assert.equal(a.memberId, oldId, 'it rejoined under the same member id');
  assert.equal(a.ownedKeys().active.length + b.ownedKeys().active.length, 8);
  cluster.assertInvariants();
});

test('delayed heartbeats still converge; a lost -2 restart beyond the session timeout rebalances', () => {
  const cluster = new Cluster({ topics: { input: 4 }, verifyView: 'input' });
  const s = cluster.addMember({ name: 's', instanceId: 'i-1' });
  const d = cluster.addMember({ name: 'd' });
  d.delayHeartbeats(700);
  cluster.runUntilStable();
  d.clearFaults();
  const before = cluster.group().groupEpoch;
  s.restart({ downtimeMs: 60000 });
  cluster.advance(50000);
  assert.ok(cluster.explanations.some((e) => e.code === 'MEMBER_FENCED' && e.instanceId === 'i-1'));
  cluster.runUntilStable();
  assert.ok(cluster.group().groupEpoch > before);
  assert.equal(cluster.group().members.length, 2);
});

test('a crashed static member that restarts at once gets UNRELEASED_INSTANCE_ID until the session timeout', () => {
  const cluster = new Cluster({ topics: { input: 4 } });
  const s = cluster.addMember({ name: 's', instanceId: 'i-1', onUnreleasedInstanceId: 'retry' });
  cluster.addMember({ name: 'other' });
  cluster.runUntilStable();
  s.crash();
  cluster.advance(1000);
  s.start({ newMemberId: true });
  cluster.advance(1);
  assert.equal(s.lastError?.code, 111);
  cluster.runUntilStable({ maxMs: 120000 });
  assert.equal(cluster.group().members.length, 2);
  const strict = new Cluster({ topics: { input: 2 } });
  const t = strict.addMember({ name: 't', instanceId: 'i-1' });
  strict.runUntilStable();
  t.crash();
  t.start();
  strict.advance(1);
  assert.equal(t.status, 'failed', 'the Java client treats 111 as fatal');
});

test('topic changes: added partitions become tasks, a deleted source topic is reported', () => {
  const cluster = new Cluster({ topics: { input: 2 }, verifyView: 'input' });
  const members = [0, 1, 2].map((i) => cluster.addMember({ name: `m${i}` }));
  cluster.runUntilStable();
  assertEveryTaskOwnedOnce(cluster, 2);
  cluster.addPartitions('input', 4);
  cluster.runUntilStable();
  assertEveryTaskOwnedOnce(cluster, 6);
  cluster.deleteTopic('input');
  cluster.runUntilStable();
  for (const m of members) {
    assert.deepEqual(m.ownedKeys().active, []);
    assert.deepEqual(m.lastStatus.map((s) => s.statusCode), [2], 'MISSING_SOURCE_TOPICS');
  }
  cluster.createTopic('input', 3);
  cluster.runUntilStable();
  assertEveryTaskOwnedOnce(cluster, 3);
  assert.ok(members.every((m) => m.lastStatus.length === 0));
});

test('members initialize the topology when asked; internal topics are created', () => {
  const cluster = new Cluster({ topology: TOPOLOGY, topics: { orders: 3, clicks: 1 }, verifyView: 'input' });
  cluster.addMember({ name: 'x' });
  cluster.runUntilStable();
  const g = cluster.group();
  assert.equal(g.topology.length, 2);
  assert.ok(cluster.topics.has('shop-order-store-changelog'), 'changelog created');
  assert.ok(cluster.trace.some(({ input }) => input.type === 'StreamsGroupInitialize'));
  assert.equal(cluster.member('x').ownedKeys().active.length, 4);
});

test('the invariant checks catch violations', () => {
  const snap = {
    groups: [{
      groupId: 'g', state: 'STABLE', groupEpoch: 3, assignmentEpoch: 4,
      members: [
        { memberId: 'a', memberEpoch: 4, processId: 'p',
          assignment: { activeTasks: [{ subtopologyId: '0', partitions: [0] }], standbyTasks: [], warmupTasks: [] },
          pendingRevocation: { activeTasks: [], standbyTasks: [], warmupTasks: [] },
          targetAssignment: { activeTasks: [{ subtopologyId: '0', partitions: [0] }], standbyTasks: [{ subtopologyId: '0', partitions: [0] }], warmupTasks: [] } },
        { memberId: 'b', memberEpoch: 2, processId: 'q',
          assignment: { activeTasks: [], standbyTasks: [], warmupTasks: [] },
          pendingRevocation: { activeTasks: [{ subtopologyId: '0', partitions: [0] }], standbyTasks: [], warmupTasks: [] },
          targetAssignment: { activeTasks: [], standbyTasks: [], warmupTasks: [] } },
      ],
    }],
  };
  const previous = new Map([['g', { groupEpoch: 5, assignmentEpoch: 4, members: new Map([['b', 3]]) }]]);
  const v = checkSnapshot(snap, previous).join('\n');
  assert.match(v, /two active owners/);
  assert.match(v, /two copies/);
  assert.match(v, /assignment epoch 4 > group epoch 3/);
  assert.match(v, /STABLE but member b/);
  assert.match(v, /group epoch went back/);
  assert.match(v, /member b epoch went back/);
  const cluster = new Cluster({ topics: { input: 1 } });
  cluster.addMember();
  assert.throws(() => cluster.runUntilStable({ maxMs: 1 }), InvariantError);
});

test('a trace saved as a scenario replays byte for byte; its records rebuild the group', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sgc-scenario-'));
  try {
    const cluster = new Cluster({ topics: { input: 4 }, name: 'recorded', description: 'two members, one restart' });
    cluster.addMember({ name: 'a', instanceId: 'a-1' });
    cluster.addMember({ name: 'b' });
    cluster.runUntilStable();
    cluster.member('a').restart({ downtimeMs: 3000 });
    cluster.runUntilStable();
    const path = cluster.saveScenario(join(dir, 'recorded.json'));
    const scenario = loadScenario(path);
    assert.equal(scenario.name, 'recorded');
    assert.equal(scenario.steps.length, cluster.trace.length);
    const run = runScenarioFile(path);
    assert.equal(run.failure, null);
    assert.deepEqual(run.outputs, cluster.trace.map((s) => s.output));
    const responsesOnly = cluster.toScenario({ expect: 'response' });
    assert.ok(responsesOnly.steps.every((s) => Object.keys(s.expect).join() === 'response'));

    const records = cluster.trace.flatMap(({ output }) => JSON.parse(output).records ?? []);
    const rebuilt = new Coordinator();
    rebuilt.replay(records, cluster.now);
    const strip = (s) => s.groups.map((g) => ({ ...g, members: g.members.map((m) => ({ ...m, taskOffsets: [], taskEndOffsets: [] })) }));
    assert.deepEqual(strip(rebuilt.snapshot()), strip(cluster.snapshot()));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('400 members (100 processes x 4 threads, 2 x 256 partitions, one standby): a rolling restart with invariants at every input', () => {
  const cluster = new Cluster({
    groupId: 'big',
    topology: [
      { subtopologyId: '0', sourceTopics: ['events'] },
      { subtopologyId: '1', sourceTopics: ['accounts'], stateChangelogTopics: [{ name: 'big-account-store-changelog' }] },
    ],
    topics: { events: 256, accounts: 256 },
    config: { 'group.streams.num.standby.replicas': 1 },
    trace: false,
  });
  const processes = [];
  for (let p = 0; p < 100; p++) {
    processes.push(`proc-${p}`);
    cluster.addProcess({ processId: `proc-${p}`, threads: 4, instanceId: `big-${p}` });
  }
  cluster.runUntilStable({ maxMs: 600000 });
  cluster.assertViewMatchesSnapshot();
  assertEveryTaskOwnedOnce(cluster, 512);
  const standbys = cluster.group().members.reduce((n, m) => n + taskKeys(m.assignment.standbyTasks).length, 0);
  assert.equal(standbys, 256, 'one standby per stateful task');
  const before = epochs(cluster);
  const owned = new Map([...cluster.members.values()].map((m) => [m.instanceId, m.ownedKeys()]));
  for (const processId of processes) {
    cluster.restartProcess(processId, { downtimeMs: 2000 });
    cluster.runUntilStable({ maxMs: 120000 });
  }
  assert.deepEqual(epochs(cluster), before, 'static restarts within the session timeout do not rebalance');
  for (const m of cluster.members.values()) {
    assert.deepEqual(m.ownedKeys(), owned.get(m.instanceId), `${m.name} got its tasks back`);
  }
  assert.equal(cluster.explanations.filter((e) => e.code === 'STATIC_MEMBER_REPLACED').length, 400);
  assertEveryTaskOwnedOnce(cluster, 512);
  cluster.assertViewMatchesSnapshot();
  cluster.assertInvariants();
  cluster.close();
});

test('racks and lag: processes on racks report task offsets; a rack fails and the rest take over', () => {
  const cluster = new Cluster({
    groupId: 'shop',
    topology: TOPOLOGY,
    topics: { orders: 12, clicks: 6 },
    config: { 'group.streams.num.standby.replicas': 1, 'group.streams.task.offset.interval.ms': 10000 },
    reportLag: true,
    restoreRate: 100,
    verifyView: 'stable',
  });
  cluster.setEndOffsets(5000);
  for (const rack of ['rack-a', 'rack-b', 'rack-c']) {
    for (let i = 0; i < 2; i++) {
      cluster.addProcess({ processId: `${rack}-p${i}`, threads: 2, rackId: rack, clientTags: [{ key: 'zone', value: rack }] });
    }
  }
  cluster.runUntilStable();
  cluster.advance(30000);
  const g = cluster.group();
  assert.equal(g.members.length, 12);
  for (const m of g.members) {
    assert.equal(m.rackId, m.processId.slice(0, 6), `${m.memberId} has its process's rack`);
    assert.deepEqual(m.clientTags, [{ key: 'zone', value: m.rackId }]);
  }
  // Active tasks are caught up; standbys restore at 100 offsets per second towards 5000.
  const reported = g.members.flatMap((m) => m.taskOffsets.map((o) => ({ ...o, m })));
  assert.ok(reported.length > 0, 'members reported task offsets');
  for (const { subtopologyId, partition, offset, m } of reported) {
    assert.equal(subtopologyId, '0', 'only the stateful subtopology has changelogs');
    const active = taskKeys(m.assignment.activeTasks).includes(`0:${partition}`);
    if (active) assert.equal(offset, 5000);
    else assert.ok(offset < 5000, `standby 0:${partition} is still restoring (${offset})`);
  }
  for (const m of g.members) {
    assert.deepEqual(m.taskEndOffsets.map((o) => o.offset), m.taskOffsets.map(() => 5000));
  }
  const hb = cluster.trace.filter(({ input }) => input.type === 'StreamsGroupHeartbeat' && input.request.taskOffsets);
  assert.ok(hb.length >= 12, 'offsets travel in heartbeats');

  const start = cluster.now;
  cluster.crashRack('rack-b');
  assert.equal(cluster.rack('rack-b').filter((m) => m.running).length, 0);
  cluster.runUntilStable({ maxMs: 120000 });
  assert.ok(cluster.now - start >= 45000, 'the rack is fenced by the session timeout');
  assert.equal(cluster.group().members.length, 8);
  assertEveryTaskOwnedOnce(cluster, 18);
  cluster.startRack('rack-b');
  cluster.runUntilStable({ maxMs: 120000 });
  assert.equal(cluster.group().members.length, 12);
  assertEveryTaskOwnedOnce(cluster, 18);
  cluster.close();
});

test('the records view keeps the invariants: two active owners, two copies on a process, epochs going back', async () => {
  const { GroupView } = await import(join(PKG, 'testing/simulation.mjs'));
  const view = new GroupView();
  const rec = (type, data, value) => ({ key: { type, data }, value: value === null ? null : { version: 0, data: value } });
  const current = (memberId, epoch, active) => rec(20, { groupId: 'g', memberId }, {
    memberEpoch: epoch, previousMemberEpoch: 0, state: 1, activeTasks: active, standbyTasks: [], warmupTasks: [],
    activeTasksPendingRevocation: [], standbyTasksPendingRevocation: [], warmupTasksPendingRevocation: [],
  });
  const member = (memberId, processId) => rec(17, { groupId: 'g', memberId }, { processId, instanceId: null, rackId: null });
  const t0 = [{ subtopologyId: '0', partitions: [0] }];
  assert.deepEqual(view.apply([
    member('a', 'p'), member('b', 'p'), rec(15, { groupId: 'g' }, { epoch: 2 }),
    rec(19, { groupId: 'g', memberId: 'a' }, { activeTasks: t0, standbyTasks: [], warmupTasks: [] }),
    rec(19, { groupId: 'g', memberId: 'b' }, { activeTasks: [], standbyTasks: t0, warmupTasks: [] }),
    rec(18, { groupId: 'g' }, { assignmentEpoch: 2 }),
    current('a', 2, t0), current('b', 2, t0),
  ]), []);
  assert.equal(view.state('g'), 'INITIALIZING');
  const v = view.violations().join('\n');
  assert.match(v, /task 0:0 has two active owners, a and b/);
  assert.match(v, /process p is targeted two copies of task 0:0/);
  assert.match(view.apply([current('a', 1, []), rec(15, { groupId: 'g' }, { epoch: 1 })]).join('\n'), /member a epoch went back from 2 to 1[\s\S]*group epoch went back from 2 to 1/);
  assert.deepEqual(view.violations().filter((x) => /owners/.test(x)), [], 'a let go of the task');
  view.apply([rec(18, { groupId: 'g' }, { assignmentEpoch: 3 })]);
  assert.match(view.violations().join('\n'), /assignment epoch 3 > group epoch 1/);
  view.apply([rec(20, { groupId: 'g', memberId: 'a' }, null), rec(19, { groupId: 'g', memberId: 'b' }, null), rec(17, { groupId: 'g', memberId: 'a' }, null)]);
  assert.equal(view.group('g').members.size, 1);
  assert.deepEqual(view.violations().filter((x) => /copies/.test(x)), []);
});

test('slow revocation: a member owns revoked tasks until it has closed them; too slow, and the rebalance timeout fences it', () => {
  const cluster = new Cluster({ topics: { input: 4 }, verifyView: 'input' });
  const a = cluster.addMember({ name: 'a', revocationMs: 3000, rebalanceTimeoutMs: 10000 });
  cluster.runUntilStable();
  cluster.addMember({ name: 'b' });
  cluster.runUntil((c) => c.group().members.some((m) => m.memberState === 'UNREVOKED_TASKS'), { what: 'a told to revoke' });
  assert.equal(a.ownedKeys().active.length, 4, 'a still owns (and reports) the tasks it is closing');
  cluster.runUntilStable();
  assert.equal(a.ownedKeys().active.length, 2);
  assert.ok(!cluster.explanations.some((e) => e.code === 'MEMBER_FENCED'));

  const slow = new Cluster({ topics: { input: 4 } });
  slow.addMember({ name: 'a', revocationMs: 20000, rebalanceTimeoutMs: 10000 });
  slow.runUntilStable();
  slow.addMember({ name: 'b' });
  slow.runUntilStable({ maxMs: 120000 });
  assert.ok(slow.explanations.some((e) => e.code === 'MEMBER_FENCED' && e.cause === 'REBALANCE_TIMEOUT'));
  assert.equal(slow.group().members.length, 2, 'a rejoined after it was fenced');
});

test('the records view equals the coordinator, and the invariants hold, after every step of every scenario file, in both dialects', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { GroupView } = await import(join(PKG, 'testing/simulation.mjs'));
  const dir = join(PKG, '../tests/scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length > 40);
  const violations = [];
  for (const f of files) {
    const scenario = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const c = new Coordinator(scenario.config ?? {});
    const view = new GroupView({ dialect: scenario.config?.dialect });
    for (const [i, step] of scenario.steps.entries()) {
      const out = JSON.parse(c.handle(JSON.stringify(step.input)));
      if (out.error) continue;
      if (step.input.type === 'Replay') view.load(c.snapshot());
      else view.apply(out.records);
      assert.deepEqual(view.differences(c.snapshot()), [], `${f} step ${i}`);
      violations.push(...view.violations().map((v) => `${f} step ${i}: ${v}`));
    }
    c.free();
  }
  assert.deepEqual(violations, [], 'the invariants hold at every step');
});

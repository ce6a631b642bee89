// Stories to start from. Each preset drives the simulated clients through the same actions the
// page's buttons use, so every input is one a correct Streams client would send.

import { DEFAULT_APP, DEFAULT_CONFIG, copiesOf, copiesText, failover, failoverText } from './model.mjs';

function startGroup(s, members, { note = true, partitions = 6 } = {}) {
  s.createTopic('orders', partitions, note ? `The source topic "orders" (${partitions} partitions) exists before the application starts.` : undefined);
  const [first, ...rest] = members;
  s.addMember({ ...first, note: note ? `The first instance starts and joins with epoch 0 and an empty member id: the coordinator creates the group (INITIALIZING, no topology yet), generates a member id and asks this member to send the topology.` : undefined });
  const asked = s.clients.list[0].label;
  s.initialize(asked, note ? `${asked} sends the topology (StreamsGroupInitialize). The changelog topic does not exist yet, so the coordinator stores the topology with no tasks assigned and asks the host to create it.` : undefined);
  s.createRequestedTopics(note ? 'The host (the broker) creates the changelog topic and reports it.' : undefined);
  s.heartbeat(asked, note ? `${asked} heartbeats. The group's topics changed (TOPIC_METADATA_CHANGED), so the epoch is bumped and the assignor runs: ${asked} is alone and gets all six tasks.` : undefined);
  for (const m of rest) s.addMember(m);
}

export const PRESETS = [
  {
    id: 'startup',
    name: 'Three-instance start-up',
    description: 'Three instances of a stateful application start one after the other. Watch the first member initialize the topology, the host create the changelog topic, and tasks move from A to B and C only after A has revoked them.',
    run(s) {
      s.reset({ name: 'Three-instance start-up', description: this.description, config: { ...DEFAULT_CONFIG }, app: { ...DEFAULT_APP } });
      startGroup(s, [{}]);
      s.addMember({ note: 'B starts on its own process and joins. A new member bumps the group epoch; the sticky assignor moves three of A\'s tasks to B in the target. B gets nothing yet: A still holds them.' });
      s.addMember({ note: 'C joins: another bump and another target computation. C\'s share comes out of A\'s and B\'s targets.' });
      s.heartbeat('A', 'A heartbeats. Its target shrank to two tasks, so it must revoke four (UNREVOKED_TASKS); its epoch stays until it has done so.');
      s.revoke('A', 'A closes the four tasks and reports what it still owns. The revocation is acknowledged: A moves to the assignment epoch.');
      s.heartbeat('B', 'B heartbeats: its tasks are released now, so it receives them.');
      s.heartbeat('C', 'C receives its tasks. Every member is at the assignment epoch: the group is STABLE.');
    },
  },
  {
    id: 'scale-out',
    name: 'Scale out',
    description: 'Two instances share six tasks. A third instance with two stream threads (two members on one process) joins; tasks are revoked first and handed over after.',
    run(s) {
      s.reset({ name: 'Scale out', description: this.description, config: { ...DEFAULT_CONFIG }, app: { ...DEFAULT_APP } });
      startGroup(s, [{}, {}], { note: false });
      s.settle();
      s.push({ event: 'note', note: 'A and B are STABLE with three tasks each. Now the application scales out.' });
      s.addMember({ processId: 'process-3', label: 'C', note: 'C, the first thread of a new process (process-3), joins: the group epoch is bumped and the target gives C two tasks.' });
      s.addMember({ processId: 'process-3', label: 'D', note: 'D, the second thread of process-3, joins: another bump. Balance is per member (one member per stream thread), so the six tasks are spread 2-2-1-1 and process-3 (two members) gets two of them.' });
      s.heartbeat('A', 'A learns which tasks it must revoke.');
      s.heartbeat('B', 'So does B.');
      s.revoke('A', 'A revokes and catches up to the assignment epoch.');
      s.revoke('B', 'B revokes and catches up.');
      s.heartbeat('C', 'C receives the tasks A and B released.');
      s.heartbeat('D', 'D receives its tasks: the group is STABLE again.');
    },
  },
  {
    id: 'rolling-restart',
    name: 'Rolling restart (static members)',
    description: 'Three static members (group.instance.id). orders-1 restarts within the session timeout: no rebalance, no task moves. orders-2 takes longer than the session timeout: it is fenced, its tasks move, and it comes back as a new member.',
    run(s) {
      s.reset({ name: 'Rolling restart of static members', description: this.description, config: { ...DEFAULT_CONFIG }, app: { ...DEFAULT_APP } });
      startGroup(s, [{ instanceId: 'orders-1' }, { instanceId: 'orders-2' }, { instanceId: 'orders-3' }], { note: false });
      s.settle();
      s.push({ event: 'note', note: 'Three static members are STABLE. The rolling restart begins.' });
      s.staticLeave('orders-1', 'orders-1 shuts down for an upgrade and leaves with epoch -2: it stays in the group with its tasks; nobody else gets them and there is no rebalance.');
      s.advance(10000, 'Ten seconds pass: well within the 45 s session timeout.');
      s.restart('orders-1', 'orders-1 starts again and joins with a new member id and its instance id. The coordinator replaces the old member by the new one: same tasks, no epoch bump, no assignor run.');
      s.heartbeatAll();
      s.staticLeave('orders-2', 'orders-2 shuts down (-2) too, but its restart will take longer.');
      s.advance(20000, 'Twenty seconds pass.');
      s.heartbeat('orders-1', 'The running members keep heartbeating.');
      s.heartbeat('orders-3');
      s.advance(20000, 'Twenty more seconds.');
      s.heartbeat('orders-1');
      s.heartbeat('orders-3');
      s.nextTimer('The next timer is orders-2\'s session timeout: 45 s after its last heartbeat. It fires: orders-2 is fenced, the epoch is bumped, and its tasks go to the others in the new target.');
      s.settle();
      s.restart('orders-2', 'orders-2 finally starts. Its instance id is free now, so it joins as a new member: another bump, and tasks move back to it.');
      s.settle();
    },
  },
  {
    id: 'crash',
    name: 'A crash',
    description: 'Three dynamic members are STABLE. B crashes: it stops heartbeating without leaving. Nothing happens until its session timeout fires; then B is fenced and its tasks move to A and C.',
    run(s) {
      s.reset({ name: 'A crash', description: this.description, config: { ...DEFAULT_CONFIG }, app: { ...DEFAULT_APP } });
      startGroup(s, [{}, {}, {}], { note: false });
      s.settle();
      s.crash('B', 'B\'s process is killed (kill -9): no leave request. The coordinator does not know yet.');
      s.advance(20000, 'Twenty seconds pass. B\'s tasks are not processed, but the group looks STABLE.');
      s.heartbeat('A');
      s.heartbeat('C');
      s.advance(20000, 'Twenty more seconds.');
      s.heartbeat('A');
      s.heartbeat('C');
      s.nextTimer('B\'s session timeout fires 45 s after its last heartbeat: B is fenced, the group epoch is bumped (ASSIGNING until the next heartbeat computes a new target).');
      s.heartbeat('A', 'A\'s heartbeat computes the new target: B\'s tasks go to A and C. They were B\'s, not A\'s or C\'s, so nothing needs revoking.');
      s.heartbeat('C', 'C takes its share of B\'s tasks: STABLE.');
    },
  },
  {
    id: 'missing-source',
    name: 'Missing source topic, then created',
    description: 'The application reads "clicks", which does not exist yet. Initialization fails with STREAMS_MISSING_SOURCE_TOPICS; the group stays INITIALIZING until the topic is created. Then the coordinator derives the repartition topic\'s partition count and asks for the internal topics.',
    run(s) {
      const topology = [
        {
          subtopologyId: '0',
          sourceTopics: ['clicks'],
          sourceTopicRegex: [],
          stateChangelogTopics: [],
          repartitionSinkTopics: ['clicks-app-by-user-repartition'],
          repartitionSourceTopics: [],
          copartitionGroups: [],
        },
        {
          subtopologyId: '1',
          sourceTopics: [],
          sourceTopicRegex: [],
          stateChangelogTopics: [{ name: 'clicks-app-counts-changelog', partitions: 0, replicationFactor: -1, topicConfigs: [] }],
          repartitionSinkTopics: [],
          repartitionSourceTopics: [{ name: 'clicks-app-by-user-repartition', partitions: 0, replicationFactor: -1, topicConfigs: [] }],
          copartitionGroups: [],
        },
      ];
      s.reset({ name: 'Missing source topic, then created', description: this.description, config: { ...DEFAULT_CONFIG }, app: { ...DEFAULT_APP, groupId: 'clicks-app', topology } });
      s.addMember({ note: 'A starts: it joins and is asked to initialize the topology.' });
      s.initialize('A', 'A sends the topology, but its source topic "clicks" does not exist: STREAMS_MISSING_SOURCE_TOPICS. Nothing is stored; A\'s initialization timer is re-armed, so A is not fenced for it.');
      s.heartbeat('A', 'A keeps heartbeating: the group has no topology (status UNINITIALIZED_TOPOLOGY) and A holds no tasks.');
      s.createTopic('clicks', 4, 'Someone creates "clicks" with 4 partitions.');
      s.initialize('A', 'A retries the initialization, which succeeds now. The repartition topic gets 4 partitions (like its upstream source), and so does the changelog; both are missing, so the coordinator asks the host to create them.');
      s.heartbeat('A', 'A heartbeats: status MISSING_INTERNAL_TOPICS, still no tasks (a topology gets tasks only when every topic exists).');
      s.createRequestedTopics('The host creates the repartition and changelog topics.');
      s.heartbeat('A', 'The topic change makes the coordinator re-check the group: the topology is ready, the epoch is bumped and A gets all eight tasks (two subtopologies × 4 partitions).');
    },
  },
];

/** The kafka-4.2 form of `startGroup`: no Initialize, the topology travels in the join. */
function startGroup42(s, members) {
  s.createTopic('orders', 6, 'The source topic "orders" (6 partitions) exists before the application starts.');
  const [first, ...rest] = members;
  s.addMember({ ...first, note: 'The first instance joins with epoch 0, a member id it made itself and the topology (epoch 0) in the heartbeat. The coordinator stores the topology, creates the group (epoch 0 → 2, a Kafka 4.2 quirk) and starts the initial rebalance delay: everyone gets an empty assignment (status ASSIGNMENT_DELAYED) until it fires.' });
  const label = s.clients.list[0].label;
  const asked = s.requestedTopics().length;
  if (asked) s.createRequestedTopics('The host creates the changelog topic the coordinator asked for.');
  for (const m of rest) s.addMember(m);
  s.nextTimer('The initial rebalance delay fires: the first target assignment is computed for every member that joined in the meantime.');
  s.heartbeat(label);
}

PRESETS.push(
  {
    id: 'k42-startup',
    name: 'Kafka 4.2: start-up with the initial rebalance delay',
    description: 'Three instances start under the kafka-4.2 dialect: the topology travels in the joining heartbeat, members make their own ids, and the initial rebalance delay (a timer) holds the first assignment back so that all three get tasks at once. Statuses and per-task assignment epochs show on the member cards.',
    run(s) {
      s.reset({ name: 'Kafka 4.2 start-up', description: this.description, config: { ...DEFAULT_CONFIG, dialect: 'kafka-4.2' }, app: { ...DEFAULT_APP } });
      startGroup42(s, [{}, {}, {}]);
      s.settle();
      s.push({ event: 'note', note: 'STABLE. Now B crashes: after its session timeout the coordinator fences it and hands its tasks to A and C (reassigned, not moved).' });
      s.crash('B');
      s.advance(20000);
      s.heartbeat('A');
      s.heartbeat('C');
      s.advance(20000);
      s.heartbeat('A');
      s.heartbeat('C');
      s.nextTimer('B\'s session timeout fires: B is fenced and the group epoch is bumped.');
      s.settle();
    },
  },
  {
    id: 'zombie-commit',
    name: 'Offsets: a zombie\'s commit is refused',
    description: 'Three instances (kafka-4.2) commit the offsets of the partitions their tasks read, each at its member epoch. B\'s heartbeats stop while its process runs on: a zombie. Its session timeout fences it and its tasks move to A and C. B then commits with the member id and epoch it last had: refused with UNKNOWN_MEMBER_ID, nothing written. A commit from A at its epoch before the take-over arrives late and is refused too (STALE_MEMBER_EPOCH); A\'s commit at its current epoch succeeds, and the committed offsets of B\'s old partitions now name A.',
    run(s) {
      s.reset({ name: 'Offsets: a zombie\'s commit is refused', description: this.description, config: { ...DEFAULT_CONFIG, dialect: 'kafka-4.2' }, app: { ...DEFAULT_APP } });
      startGroup42(s, [{}, {}, {}]);
      s.settle();
      s.commit('A', 'A commits as Kafka Streams does every commit.interval.ms: an offset for each partition its active tasks read, with its member id and epoch. The coordinator accepts (A is at its current epoch) and writes one offset record per partition.');
      s.commit('B', 'B commits its partitions.');
      s.commit('C', 'So does C. The committed offsets show under the task map: each partition, its task, who committed it at which epoch.');
      s.crash('B', 'B stops heartbeating: a long GC pause, or it is cut off from the coordinator. Its process still holds its tasks; it is about to become a zombie. The coordinator does not know yet.');
      s.advance(20000, 'Twenty seconds pass.');
      s.heartbeat('A');
      s.heartbeat('C');
      s.advance(20000, 'Twenty more seconds.');
      s.heartbeat('A');
      s.heartbeat('C');
      s.nextTimer('B\'s session timeout fires: B is fenced (removed from the group) and the group epoch is bumped.');
      s.settle();
      s.push({ event: 'note', note: 'A and C hold B\'s old tasks now, at the new assignment epoch (the @ on their task chips).' });
      s.zombieCommit('B', 'B wakes up, unaware that it was fenced, and commits the tasks it held with its old member id and epoch. The group has no such member: every partition is refused with UNKNOWN_MEMBER_ID (25) and nothing is written, so B cannot overwrite the progress of the tasks\' new owners.');
      s.staleCommit('A', 'A commit A sent at its previous epoch, before it took over B\'s tasks, arrives late. An older epoch is accepted only for tasks held at that epoch; B\'s old tasks were granted to A later, so the commit is refused with STALE_MEMBER_EPOCH (113).');
      s.commit('A', 'A commits at its current epoch: accepted, including the partitions of the tasks it took over from B. Their committed offsets now name A.');
      s.commit('C', 'C commits too: every partition\'s committed offset comes from its current owner.');
    },
  },
  {
    id: 'two-groups',
    name: 'Two groups, one coordinator; DeleteGroups',
    description: 'A coordinator serves every group of its __consumer_offsets partition. Here "orders-app" and "audit-app" share it. DeleteGroups on a group with members is refused (NON_EMPTY_GROUP); once its last member leaves, the group can be deleted, while the other keeps running.',
    run(s) {
      s.reset({ name: 'Two groups', description: this.description, config: { ...DEFAULT_CONFIG }, app: { ...DEFAULT_APP } });
      startGroup(s, [{}, {}], { note: false });
      s.settle();
      s.selectGroup('audit-app');
      s.addMember({ note: 'The page now shows "audit-app": C is the first member of the second group and is asked for its topology.' });
      s.initialize('C');
      s.heartbeat('C');
      s.deleteGroup('audit-app', 'DeleteGroups on audit-app while C is in it: Kafka refuses with NON_EMPTY_GROUP (68).');
      s.leave('C', 'C leaves: audit-app is EMPTY and its retention timer starts.');
      s.deleteGroup('audit-app', 'DeleteGroups again: the group is empty, so it is deleted (its records are tombstoned).');
      s.selectGroup('orders-app');
      s.heartbeat('A', 'orders-app was never touched.');
    },
  },
  {
    id: 'manual',
    name: 'Manual targets (assignor: manual)',
    description: 'With the manual assignor the coordinator computes no targets: an operator sets them with SetTargetAssignment. The first call gives every task to A; the second moves two tasks to B; the third is refused, because a task is given to two members at once.',
    run(s) {
      s.reset({ name: 'Manual targets', description: this.description, config: { ...DEFAULT_CONFIG, assignor: 'manual' }, app: { ...DEFAULT_APP } });
      startGroup(s, [{}, {}], { note: false });
      s.settle();
      const a = s.clients.get('A').memberId;
      const b = s.clients.get('B').memberId;
      s.setMemberTarget(a, ['0_0', '0_1', '0_2', '0_3', '0_4', '0_5'], 'A gets all six tasks.');
      s.settle();
      s.moveTask('0_4', b, 'Task 0_4 moves to B.');
      s.moveTask('0_5', b, 'Task 0_5 moves to B too.');
      s.settle();
      s.setMemberTarget(b, ['0_0', '0_4', '0_5'], 'B is given 0_0 as well, which A still has in its target: the coordinator refuses the whole assignment.');
    },
  },
  {
    id: 'rack-failure',
    name: 'A rack fails',
    description: 'Six members on three racks (two processes each) share six stateful tasks with one standby each. The members report their rackId, so the assignor places each standby on another rack than its active task. Rack B goes away: its members stop heartbeating, the session timeout fences them, and the members on racks A and C take over rack B\'s tasks from the standbys they hold. The last note says who took over what.',
    run(s) {
      s.reset({ name: 'A rack fails', description: this.description, config: { ...DEFAULT_CONFIG, 'group.streams.num.standby.replicas': 1 }, app: { ...DEFAULT_APP } });
      const members = [];
      for (const rack of ['a', 'b', 'c']) for (const n of [1, 2]) members.push({ processId: `process-${rack}${n}`, rackId: `rack-${rack}` });
      startGroup(s, members, { note: false });
      s.settle();
      s.push({ event: 'note', note: 'Six members on racks rack-a, rack-b and rack-c are STABLE: one active task each, and one standby of every task, on another rack than its active task (no red edge in the task map). The Racks panel shows where they run.' });
      const before = s.group();
      const failed = s.crashRack('rack-b', 'rack-b loses power: both of its members stop heartbeating, without a leave request. Their tasks stop being processed; the coordinator does not know yet.');
      const ids = failed.map((l) => s.client(l).memberId);
      s.advance(20000, 'Twenty seconds pass. The group still looks STABLE.');
      for (const l of s.liveLabels()) s.heartbeat(l);
      s.advance(20000, 'Twenty more seconds.');
      for (const l of s.liveLabels()) s.heartbeat(l);
      s.nextTimer('The session timeout of the first member on rack-b fires: it is fenced and the group epoch is bumped.');
      s.nextTimer('So does the second one\'s: another bump.');
      s.settle();
      noteFailover(s, before, ids, 'The members on rack-a and rack-c hold every task again, and the standbys lost with rack-b are placed again on the other rack than their active tasks.');
    },
  },
  {
    id: 'process-failure',
    name: 'A process fails',
    description: 'Six processes with two stream threads each (twelve members) share 24 stateful tasks with one standby each. The assignor spreads each process\'s standbys over the other processes. process-3 dies: its two members stop heartbeating, the session timeout fences them, and its tasks go to several survivors instead of one partner, mostly to the processes that held their standbys (promoted, the state is ready); a task whose standby\'s member is already at its quota goes to the least-loaded member, which restores its state. The last note says who took over what.',
    run(s) {
      s.reset({ name: 'A process fails', description: this.description, config: { ...DEFAULT_CONFIG, 'group.streams.num.standby.replicas': 1 }, app: { ...DEFAULT_APP } });
      const members = [];
      for (let p = 1; p <= 6; p++) for (let t = 0; t < 2; t++) members.push({ processId: `process-${p}` });
      startGroup(s, members, { note: false, partitions: 24 });
      s.settle();
      const before = s.group();
      const name = (id) => s.clients.labelOf(id) ?? id;
      s.push({ event: 'note', note: `Twelve members on six processes are STABLE: two active tasks each, and one standby of every task on another process. ${copiesText(copiesOf(before, 'process-3'), name)}` });
      const failed = s.crashProcess('process-3', 'process-3 is killed (its host fails): both of its members stop heartbeating, without a leave request. Its tasks stop being processed; the coordinator does not know yet.');
      const ids = failed.map((l) => s.client(l).memberId);
      s.advance(20000, 'Twenty seconds pass. The group still looks STABLE.');
      for (const l of s.liveLabels()) s.heartbeat(l);
      s.advance(20000, 'Twenty more seconds.');
      for (const l of s.liveLabels()) s.heartbeat(l);
      s.nextTimer(`The session timeout of ${failed[0]} fires: it is fenced and the group epoch is bumped.`);
      s.nextTimer(`So does ${failed[1]}'s: another bump.`);
      s.settle();
      noteFailover(s, before, ids, 'The survivors hold every task again, and process-3\'s lost standbys are placed again.');
    },
  },
  {
    id: 'big',
    name: 'Big group: 50 processes × 4 threads, 1,000 tasks',
    description: 'Two hundred members (50 processes with 4 stream threads each) over a 1,000-partition topic, under kafka-4.2: all join within the initial rebalance delay, so one target assignment spreads the 1,000 tasks five per member.',
    run(s) {
      s.reset({ name: 'Big group', description: this.description, config: { ...DEFAULT_CONFIG, dialect: 'kafka-4.2', recordBytes: false }, app: { ...DEFAULT_APP, tickMs: 10, topology: [{ ...DEFAULT_APP.topology[0], sourceTopics: ['events'], stateChangelogTopics: [] }] } });
      s.createTopic('events', 1000, 'A topic with 1,000 partitions: 1,000 tasks.');
      for (let p = 1; p <= 50; p++) {
        for (let t = 0; t < 4; t++) s.addMember({ processId: `process-${p}` });
      }
      s.nextTimer('The initial rebalance delay fires: one target assignment for all 200 members.');
      s.settle();
    },
  },
);

/**
 * The note after a failure: who took over what, from the group `before` the failure and the
 * group now (`failed`: the failed members' ids); `lead` goes before the figures.
 */
function noteFailover(s, before, failed, lead) {
  const name = (id) => s.clients.labelOf(id) ?? id;
  const text = failoverText(failover(before, s.group(), failed), name);
  s.push({ event: 'note', note: `${lead} ${text}` });
}

export function presetById(id) {
  return PRESETS.find((p) => p.id === id) ?? null;
}

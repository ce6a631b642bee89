// Heartbeats per second through the reactor under node:wasi for a 1,000-member stable group,
// through ABI version 1 (`sgc_call`, five export calls per request) and version 2 (`sgc_call2`,
// one), on one instance:
//   node --disable-warning=ExperimentalWarning examples/wasi-host/bench.mjs [MEMBERS] [1|2]
import { Plugin } from './host.mjs';

const MEMBERS = Number(process.argv[2] ?? 1000);
const versions = process.argv[3] ? [Number(process.argv[3])] : [1, 2];
const plugin = new Plugin(undefined, { abi: 2 });
const h = plugin.create({ 'group.streams.num.standby.replicas': 1 });
const call = (obj) => {
  const { status, output } = plugin.call(h, JSON.stringify(obj));
  if (status !== 0) throw new Error(output);
  return JSON.parse(output);
};
call({ nowMs: 0, type: 'TopicMetadata', topics: [
  { name: 'events', partitions: 1000 }, { name: 'accounts', partitions: 500 }, { name: 'bench-store-changelog', partitions: 500 }] });
call({ nowMs: 0, type: 'StreamsGroupInitialize', request: { groupId: 'bench', topologyId: 't', topology: [
  { subtopologyId: '0', sourceTopics: ['events'] },
  { subtopologyId: '1', sourceTopics: ['accounts'], stateChangelogTopics: [{ name: 'bench-store-changelog' }] }] } });
let now = 1;
const members = [];
for (let i = 0; i < MEMBERS; i++) {
  const id = `m${String(i).padStart(5, '0')}`;
  const r = call({ nowMs: now++, type: 'StreamsGroupHeartbeat', request: { groupId: 'bench', memberId: id, memberEpoch: 0,
    topologyId: 't', processId: `p${Math.floor(i / 10)}`, rebalanceTimeoutMs: 600000, activeTasks: [], standbyTasks: [], warmupTasks: [] } }).response;
  members.push({ id, epoch: r.memberEpoch, a: r.activeTasks, s: r.standbyTasks });
}
for (let round = 0; round < 20; round++) {
  for (const m of members) {
    const r = call({ nowMs: (now += 5), type: 'StreamsGroupHeartbeat', request: { groupId: 'bench', memberId: m.id,
      memberEpoch: m.epoch, activeTasks: m.a, standbyTasks: m.s, warmupTasks: [] } }).response;
    m.epoch = r.memberEpoch;
    if (r.activeTasks !== null) { m.a = r.activeTasks; m.s = r.standbyTasks; }
  }
  const g = call({ nowMs: now, type: 'StreamsGroupDescribe', request: { groupIds: ['bench'] } });
  if (g.response.groups[0].groupState === 'Stable') break;
}
const lines = [];
for (let round = 0; round < 5; round++) {
  for (const m of members) {
    lines.push(JSON.stringify({ nowMs: (now += 5), type: 'StreamsGroupHeartbeat', request: { groupId: 'bench', memberId: m.id,
      memberEpoch: m.epoch, activeTasks: m.a, standbyTasks: m.s, warmupTasks: [] } }));
  }
}
// The same steady heartbeats again per version (they change nothing); versions alternate to
// share machine noise, and the best of three runs counts.
const best = {};
for (let run = 0; run < 3; run++) {
  for (const abi of versions) {
    plugin.abi = abi;
    const t0 = performance.now();
    for (const line of lines) if (plugin.call(h, line).status !== 0) throw new Error('failed');
    const ms = performance.now() - t0;
    best[abi] = Math.min(best[abi] ?? Infinity, ms);
  }
}
for (const abi of versions) {
  const ms = best[abi];
  const how = abi === 1 ? 'sgc_call, 5 export calls' : 'sgc_call2, 1 export call';
  console.log(`node:wasi ABI v${abi}: ${Math.round(lines.length / (ms / 1000)).toLocaleString('en')} heartbeats/s ` +
    `(${((ms * 1000) / lines.length).toFixed(1)} us each; ${how} per request, best of 3)`);
}

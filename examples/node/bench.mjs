// Heartbeats per second through `Coordinator.handle` for a 1,000-member stable group, with JS
// objects and with JSON strings.
//
//   node examples/node/bench.mjs [--members 1000] [--rounds 5] [--pkg path/to/pkg]
//
// The group is built with the testing tools (streams-group-coordinator/testing): 1,000
// simulated members in 100 processes of 10 stream threads (half of them static) share a
// 1,000-partition source topic and a 500-partition stateful one with one standby. Then every
// member sends its steady-state heartbeat (epoch, owned task lists) once per round, 5 ms apart
// in virtual time, so each heartbeats every 5 s like a real client; inputs are prepared before
// the clock starts.
import { parseArgs } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const { values: args } = parseArgs({
  options: {
    members: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    pkg: { type: 'string' },
  },
});
const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(args.pkg ?? join(here, '../../pkg'));
const { version } = await import(join(pkg, 'node.mjs'));
const { Cluster } = await import(join(pkg, 'testing/index.mjs'));

const MEMBERS = Number(args.members);
const ROUNDS = Number(args.rounds);
const THREADS = 10;

const topology = [
  { subtopologyId: '0', sourceTopics: ['events'] },
  {
    subtopologyId: '1',
    sourceTopics: ['accounts'],
    stateChangelogTopics: [{ name: 'bench-account-store-changelog' }],
  },
];

let t0 = performance.now();
const cluster = new Cluster({
  groupId: 'bench',
  topology,
  topics: { events: 1000, accounts: 500 },
  config: { 'group.streams.num.standby.replicas': 1 },
  checkInvariants: false,
  trace: false,
});
for (let p = 0; p < MEMBERS / THREADS; p++) {
  cluster.addProcess({ processId: `proc-${p}`, threads: THREADS, instanceId: p % 2 === 0 ? `bench-${p}` : null });
}
cluster.runUntilStable({ maxMs: 3600000 });
cluster.assertInvariants();
const g = cluster.group();
const buildMs = performance.now() - t0;
console.log(`streams-group-coordinator ${version()} on Node ${process.version}`);
console.log(`built a stable group of ${g.members.length} members (${cluster.inputCount} inputs, ` +
  `group epoch ${g.groupEpoch}) in ${(buildMs / 1000).toFixed(1)} s`);

const c = cluster.coordinator;
const members = [...cluster.members.values()];
let now = cluster.now;

/** One round of steady-state heartbeats, as objects; `now` advances 5 ms per heartbeat. */
function round() {
  return members.map((m) => {
    now += 5;
    return {
      nowMs: now,
      type: 'StreamsGroupHeartbeat',
      client: { clientId: m.clientId, clientHost: m.clientHost },
      request: {
        groupId: 'bench',
        memberId: m.memberId,
        memberEpoch: m.memberEpoch,
        activeTasks: m.owned.activeTasks,
        standbyTasks: m.owned.standbyTasks,
        warmupTasks: m.owned.warmupTasks,
      },
    };
  });
}

function check(out) {
  const o = typeof out === 'string' ? JSON.parse(out) : out;
  if (o.error || o.response.errorCode !== 0 || o.records.length !== 0) {
    throw new Error(`not a steady-state heartbeat: ${JSON.stringify(o).slice(0, 300)}`);
  }
}

function measure(label, prepare, send) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(prepare(round()));
  // Warm-up round (not timed) also checks that the answers are steady-state ones.
  for (const input of prepare(round())) check(send(input));
  let count = 0;
  const start = performance.now();
  for (const inputs of rounds) {
    for (const input of inputs) {
      send(input);
      count += 1;
    }
  }
  const ms = performance.now() - start;
  const rate = (count / ms) * 1000;
  console.log(`${label.padEnd(44)} ${Math.round(rate).toString().padStart(7)} heartbeats/s ` +
    `(${(ms * 1000 / count).toFixed(1)} µs each, ${count} heartbeats)`);
  return rate;
}

// Rounds are prepared in time order: each measurement prepares its own rounds after the
// previous one ran, so `nowMs` only moves forward.
const results = {};
results.objects = measure('handle(object) -> object', (xs) => xs, (x) => c.handle(x));
results.strings = measure('handle(string) -> string', (xs) => xs.map((x) => JSON.stringify(x)), (x) => c.handle(x));
results.stringsWithJson = measure('JSON.stringify + handle(string) + JSON.parse', (xs) => xs,
  (x) => JSON.parse(c.handle(JSON.stringify(x))));

const after = cluster.coordinator.snapshot().groups[0];
if (after.state !== 'STABLE' || after.groupEpoch !== g.groupEpoch) {
  throw new Error(`the group did not stay stable: ${after.state}, epoch ${after.groupEpoch}`);
}
console.log(`strings / objects: ${(results.strings / results.objects).toFixed(2)}x`);

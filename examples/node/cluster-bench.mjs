// How long the testing tools' `Cluster` takes at group sizes users run, with the invariants
// checked after every input (the default).
//
//   node examples/node/cluster-bench.mjs [--processes 100] [--threads 4] [--partitions 256]
//                                        [--restart | --no-restart] [--no-trace] [--pkg path/to/pkg]...
//
// Defaults otherwise, as a new user would have them (trace kept; `--no-trace` drops it).
// A group of `processes` x `threads` static members (Kafka Streams processes with persistent
// state) on two topics of `partitions` partitions, one stateless and one stateful subtopology,
// one standby replica. It prints the wall time to `STABLE` from the first join and, with
// `--restart` (on by default for groups up to 500 members), of a rolling restart of every
// process (each down 2 s, well within the session timeout), with the number of inputs. With
// several `--pkg` folders (e.g. an older build beside this one) each is measured in turn, in
// one run, so the figures compare.
//
// Node 20.20's V8 can abort such a long run ("Fatal error ... unreachable code" in
// Deoptimizer::DoComputeBuiltinContinuation) when an optimized frame that inlined the call into
// wasm is deoptimized lazily; with the trace kept it happens in about half the runs of 400
// members here. `node --no-turbo-inlining` avoids it (and is no slower for this workload).
import { parseArgs } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const { values: args } = parseArgs({
  options: {
    processes: { type: 'string', default: '100' },
    threads: { type: 'string', default: '4' },
    partitions: { type: 'string', default: '256' },
    restart: { type: 'boolean' },
    'no-restart': { type: 'boolean' },
    'no-trace': { type: 'boolean' },
    pkg: { type: 'string', multiple: true },
  },
});
const here = dirname(fileURLToPath(import.meta.url));
const pkgs = (args.pkg ?? [join(here, '../../pkg')]).map((p) => resolve(p));
const PROCESSES = Number(args.processes);
const THREADS = Number(args.threads);
const PARTITIONS = Number(args.partitions);
const members = PROCESSES * THREADS;
const restart = args['no-restart'] ? false : (args.restart ?? members <= 500);

const topology = [
  { subtopologyId: '0', sourceTopics: ['events'] },
  {
    subtopologyId: '1',
    sourceTopics: ['accounts'],
    stateChangelogTopics: [{ name: 'bench-account-store-changelog' }],
  },
];

function seconds(ms) {
  return `${(ms / 1000).toFixed(2)} s`;
}

for (const pkg of pkgs) {
  const { Cluster } = await import(join(pkg, 'testing/index.mjs'));
  const cluster = new Cluster({
    groupId: 'bench',
    topology,
    topics: { events: PARTITIONS, accounts: PARTITIONS },
    config: { 'group.streams.num.standby.replicas': 1 },
    trace: !args['no-trace'],
  });
  const processes = [];
  for (let p = 0; p < PROCESSES; p++) {
    const processId = `proc-${String(p).padStart(3, '0')}`;
    processes.push(processId);
    cluster.addProcess({ processId, threads: THREADS, instanceId: `bench-${p}` });
  }
  let t0 = performance.now();
  let inputs0 = cluster.inputCount;
  cluster.runUntilStable({ maxMs: 3600000 });
  const stableMs = performance.now() - t0;
  const stableInputs = cluster.inputCount - inputs0;
  console.log(`${pkg}: ${members} members (${PROCESSES} x ${THREADS}), 2 x ${PARTITIONS} partitions, 1 standby`);
  console.log(`  to STABLE:       ${seconds(stableMs)} (${stableInputs} inputs)`);
  if (restart) {
    t0 = performance.now();
    inputs0 = cluster.inputCount;
    for (const processId of processes) {
      cluster.restartProcess(processId, { downtimeMs: 2000 });
      cluster.runUntilStable({ maxMs: 600000 });
    }
    const restartMs = performance.now() - t0;
    console.log(`  rolling restart: ${seconds(restartMs)} (${cluster.inputCount - inputs0} inputs)`);
  }
  cluster.assertInvariants();
  cluster.close();
}

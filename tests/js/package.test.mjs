// `npm pack` of pkg/, installed into a scratch project by path (the fresh tarball, named
// explicitly: TOOLCHAIN P18), used from an ES module, from CommonJS and from TypeScript
// (module nodenext), and the exports map checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG, ROOT, TOOLS_BIN } from './helpers.mjs';

const NAME = 'streams-group-coordinator';
let dir;
let app;
let tarball;
let packed;

function run(cmd, args, cwd, env = {}) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${e.status}):\n${e.stdout}\n${e.stderr}`);
  }
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'sgc-pack-'));
  const out = run('npm', ['pack', PKG, '--json', '--pack-destination', dir], dir);
  packed = JSON.parse(out)[0];
  tarball = join(dir, packed.filename);
  app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch', private: true, version: '1.0.0' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--offline', '--no-package-lock', tarball], app);
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the files list and nothing else', () => {
  const files = packed.files.map((f) => f.path).sort();
  for (const f of [
    'README.md', 'package.json', 'index.d.ts', 'node.mjs', 'node.cjs', 'web.mjs',
    'scenario.mjs', 'scenario.d.ts', 'testing/index.mjs', 'testing/index.d.ts',
    'node/streams_group_coordinator.js', 'node/streams_group_coordinator_bg.wasm',
    'web/streams_group_coordinator.js', 'web/streams_group_coordinator_bg.wasm', 'web/package.json',
  ]) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  // Every module of the testing tools (testing/index.mjs gathers them).
  for (const f of readdirSync(join(ROOT, 'js', 'testing'))) assert.ok(files.includes(`testing/${f}`), `testing/${f} is packed`);
  assert.ok(!files.some((f) => f.endsWith('_bg.wasm.d.ts')), 'no internal wasm declarations');
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', NAME, 'package.json'), 'utf8'));
  assert.equal(manifest.version, packed.version);
  assert.equal(manifest.type, undefined, 'no "type" at the root: node/ is CommonJS (TOOLCHAIN P8)');
});

test('the exports map: types first, node import/require, browser/default, ./testing', () => {
  const { exports } = JSON.parse(readFileSync(join(app, 'node_modules', NAME, 'package.json'), 'utf8'));
  const root = exports['.'];
  assert.deepEqual(Object.keys(root), ['types', 'node', 'browser', 'default']);
  assert.equal(root.types, './index.d.ts');
  assert.deepEqual(root.node, { import: './node.mjs', require: './node.cjs' });
  assert.equal(root.browser, './web.mjs');
  assert.equal(root.default, './web.mjs');
  assert.equal(Object.keys(exports['./testing'])[0], 'types');
  assert.equal(exports['./testing'].node, './testing/index.mjs');
  assert.equal(Object.keys(exports['./scenario'])[0], 'types');
});

const ESM = `
import { Coordinator, topologyId, partitionFor, version, ready, isError, ErrorCodes } from '${NAME}';
import * as testing from '${NAME}/testing';
import { runScenario } from '${NAME}/scenario';
import { createRequire } from 'node:module';
await ready();
const c = new Coordinator({ 'group.streams.heartbeat.interval.ms': 2000 });
c.handle({ nowMs: 0, type: 'TopicMetadata', topics: [{ name: 'in', partitions: 2 }] });
const out = c.handle({ nowMs: 1, type: 'StreamsGroupHeartbeat', request: { groupId: 'g', memberId: '', memberEpoch: 0,
  topologyId: 't', processId: 'p', rebalanceTimeoutMs: 1000, activeTasks: [], standbyTasks: [], warmupTasks: [] } });
const cluster = new testing.Cluster({ topics: { input: 3 } });
cluster.addMember(); cluster.addMember();
cluster.runUntilStable();
const require = createRequire(import.meta.url);
const cjs = require('${NAME}');
console.log(JSON.stringify({
  error: isError(out), interval: out.response.heartbeatIntervalMs, fenced: ErrorCodes.FENCED_MEMBER_EPOCH,
  id: topologyId([{ subtopologyId: '0', sourceTopics: ['in'] }]), partition: partitionFor('my-app'), version: version(),
  stable: cluster.group().state, sameClass: cjs.Coordinator === Coordinator,
  scenario: runScenario({ name: 'x', steps: [{ input: { nowMs: 0, type: 'AdvanceTime' }, expect: { response: null } }] }, Coordinator).failure,
  resolved: [import.meta.resolve('${NAME}'), import.meta.resolve('${NAME}/testing'), import.meta.resolve('${NAME}/web')],
}));
`;

const CJS = `
const sgc = require('${NAME}');
const c = sgc.createCoordinator();
const text = c.handle('{"nowMs": 5, "type": "AdvanceTime"}');
// The testing tools are an ES module: require() loads it where Node has require(esm)
// (20.19+, 22.12+); older versions throw ERR_REQUIRE_ESM.
let testing;
try { testing = typeof require('${NAME}/testing').Cluster; } catch (e) { testing = e.code; }
console.log(JSON.stringify({
  text, version: sgc.version(), resolved: require.resolve('${NAME}'),
  pkgVersion: require('${NAME}/package.json').version, testing,
  bad: c.handle({ nowMs: -1, type: 'AdvanceTime' }),
}));
`;

const WEB = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, ready, Coordinator, version } from '${NAME}/web';
const require = createRequire(import.meta.url);
const wasm = readFileSync(require.resolve('${NAME}/package.json').replace('package.json', 'web/streams_group_coordinator_bg.wasm'));
initSync({ module: wasm });
await ready(wasm);
const c = new Coordinator();
console.log(JSON.stringify({ version: version(), out: c.handle('{"nowMs": 1, "type": "AdvanceTime"}') }));
`;

test('used from an ES module', () => {
  writeFileSync(join(app, 'esm.mjs'), ESM);
  const r = JSON.parse(run('node', ['esm.mjs'], app));
  assert.equal(r.error, false);
  assert.equal(r.interval, 2000);
  assert.equal(r.fenced, 110);
  assert.match(r.id, /^[0-9a-f]{64}$/);
  assert.equal(r.partition, 0);
  assert.equal(r.version, packed.version);
  assert.equal(r.stable, 'STABLE');
  assert.equal(r.sameClass, true, 'import and require share one wasm instance');
  assert.equal(r.scenario, null);
  assert.ok(r.resolved[0].endsWith(`/node_modules/${NAME}/node.mjs`), r.resolved[0]);
  assert.ok(r.resolved[1].endsWith(`/node_modules/${NAME}/testing/index.mjs`), r.resolved[1]);
  assert.ok(r.resolved[2].endsWith(`/node_modules/${NAME}/web.mjs`), r.resolved[2]);
});

test('used from CommonJS (require)', () => {
  writeFileSync(join(app, 'cjs.cjs'), CJS);
  const r = JSON.parse(run('node', ['cjs.cjs'], app));
  assert.equal(r.text, '{"response":null,"records":[],"topicsToCreate":[],"explain":[],"nextDeadlineMs":null}');
  assert.equal(r.version, packed.version);
  assert.equal(r.pkgVersion, packed.version);
  assert.ok(r.resolved.endsWith(`/node_modules/${NAME}/node.cjs`), r.resolved);
  const [major, minor] = process.versions.node.split('.').map(Number);
  const requireEsm = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
  assert.equal(r.testing, requireEsm ? 'function' : 'ERR_REQUIRE_ESM');
  assert.equal(r.bad.error.code, 'INVALID_INPUT');
  assert.equal(r.bad.error.path, 'nowMs');
});

test('the browser build loads in Node through initSync (no fetch)', () => {
  writeFileSync(join(app, 'web.mjs'), WEB);
  const r = JSON.parse(run('node', ['web.mjs'], app));
  assert.equal(r.version, packed.version);
  assert.equal(r.out, '{"response":null,"records":[],"topicsToCreate":[],"explain":[],"nextDeadlineMs":null}');
});

/** The ```js blocks of the packed README, by section heading. */
function readmeBlocks() {
  const text = readFileSync(join(app, 'node_modules', NAME, 'README.md'), 'utf8');
  const blocks = {};
  let section = '';
  for (const part of text.split(/^(## .*)$/m)) {
    if (part.startsWith('## ')) section = part.slice(3).trim();
    else blocks[section] = [...part.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  }
  return blocks;
}

test('the README examples for Node run as written', () => {
  const blocks = readmeBlocks();
  const node = blocks.Node?.[0];
  const testing = blocks['Testing Streams clients and brokers without a broker']?.[0];
  assert.ok(node && testing, 'README has the Node and testing examples');
  writeFileSync(join(app, 'readme-node.mjs'), node);
  assert.match(run('node', ['readme-node.mjs'], app), /GROUP_EPOCH_BUMPED/);
  writeFileSync(join(app, 'readme-testing.mjs'), testing);
  run('node', ['readme-testing.mjs'], app);
  const saved = JSON.parse(readFileSync(join(app, 'restart-and-crash.json'), 'utf8'));
  assert.ok(saved.steps.length > 10);
  // The CommonJS form of the first lines.
  writeFileSync(join(app, 'readme-node.cjs'), node
    .replace(/^import \{ (.*) \} from '(.*)';$/m, "const { $1 } = require('$2');")
    .replace(/^\/\/ or: .*$/m, ''));
  assert.match(run('node', ['readme-node.cjs'], app), /GROUP_EPOCH_BUMPED/);
});

test('TypeScript (module nodenext) resolves the types through the exports map', () => {
  writeFileSync(join(app, 'check.mts'), `
import { Coordinator, isError, type StreamsGroupHeartbeatResponse } from '${NAME}';
import { Cluster } from '${NAME}/testing';
import { runScenario } from '${NAME}/scenario';
const c = new Coordinator();
const out = c.handle({ nowMs: 0, type: 'StreamsGroupHeartbeat', request: { groupId: 'g', memberId: 'm', memberEpoch: 1 } });
const r: StreamsGroupHeartbeatResponse | null = isError(out) ? null : out.response;
const cluster: Cluster = new Cluster();
export const used = [r, cluster.now, runScenario];
`);
  writeFileSync(join(app, 'check.cts'), `
import sgc = require('${NAME}');
const c: sgc.Coordinator = sgc.createCoordinator({ 'group.streams.max.size': 10 });
const s: string = c.handle('{}');
export const used = [s, sgc.partitionFor('g')];
`);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
      lib: ['esnext'], types: [], skipLibCheck: false,
    },
    files: ['check.mts', 'check.cts'],
  }));
  run(join(TOOLS_BIN, 'tsc'), ['-p', 'tsconfig.json'], app);
});

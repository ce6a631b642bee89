// Browser tests of the protocol playground (examples/playground) in Debian's headless Chromium,
// driven by playwright-core, on node:test. scripts/test-browser.sh serves the site and passes
// BASE_URL (`node --test tests/browser/` with a served site works too).
//
// What the page shows is checked against the coordinator itself: the inputs the page sent
// (taken from its "Export test" download) are run through the Node build of the same package,
// and the group state, epochs, members and task placement the page draws must equal that
// coordinator's snapshot. Screenshots go to test-output/playground/.

import { after, before, test as nodeTest } from 'node:test';
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'test-output', 'playground');
const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8765/';
const ORIGIN = new URL(BASE).origin;
const { Coordinator } = await import(path.join(ROOT, 'pkg', 'node.mjs'));
const { runScenario } = await import(path.join(ROOT, 'pkg', 'scenario.mjs'));

const PRESETS = ['startup', 'scale-out', 'rolling-restart', 'crash', 'missing-source', 'k42-startup', 'two-groups', 'manual', 'rack-failure'];
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const ROLES = { active: 'activeTasks', standby: 'standbyTasks', warmup: 'warmupTasks' };

fs.mkdirSync(path.join(OUT, 'downloads'), { recursive: true });

// ---------------------------------------------------------------------------------------------
// One browser for the file; each test opens its own pages, which must log no errors and load
// nothing beyond the page's own files.

let browser;
let current = null; // {errors, external} of the running test

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  console.log(`screenshots: ${path.relative(ROOT, OUT)}/`);
});

function test(name, fn) {
  nodeTest(name, async () => {
    current = { errors: [], external: [] };
    try {
      try {
        await fn();
      } catch (e) {
        // What the page said before the failure, with it.
        if (current.errors.length > 0) e.message += `\n  the page's errors: ${current.errors.join('; ')}`;
        throw e;
      }
      assert.deepEqual(current.errors, [], 'console errors, page errors or failed requests');
      assert.deepEqual(current.external, [], 'requests beyond the page\'s own files');
    } finally {
      for (const ctx of browser.contexts()) await ctx.close();
    }
  });
}

async function openPage(viewport = DESKTOP, url = BASE) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') current.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => current.errors.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(ORIGIN) && !u.startsWith('data:') && !u.startsWith('blob:')) current.external.push(u);
  });
  page.on('requestfailed', (r) => current.errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) current.errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  return page;
}

async function shot(page, name, fullPage = false) {
  await page.evaluate(() => document.querySelector('#toast')?.classList.remove('show'));
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage });
}

// ---------------------------------------------------------------------------------------------
// The coordinator, in Node, for the same inputs.

function tasks(list) {
  const out = [];
  for (const t of list ?? []) for (const p of t.partitions) out.push(`${t.subtopologyId}_${p}`);
  return out;
}

function fmtTime(ms) {
  const n = Number(ms);
  if (n < 60000) return `${(n / 1000).toFixed(1)} s`;
  if (n < 3600000) return `${Math.floor(n / 60000)} min ${((n % 60000) / 1000).toFixed(1)} s`;
  if (n < 86400000) return `${Math.floor(n / 3600000)} h ${Math.floor((n % 3600000) / 60000)} min`;
  return `${Math.floor(n / 86400000)} d ${Math.floor((n % 86400000) / 3600000)} h`;
}

function nodeRun(config, inputs) {
  const c = new Coordinator(config);
  const outputs = inputs.map((i) => c.handle(JSON.stringify(i)));
  return { outputs, snapshot: c.snapshot(), lastNow: inputs.reduce((t, i) => Math.max(t, i.nowMs), 0) };
}

/** What the page should show for a Node snapshot. */
function expected(snapshot, groupId, lastNow) {
  const g = snapshot.groups.find((x) => x.groupId === groupId) ?? snapshot.groups[0] ?? null;
  if (!g) return { group: null };
  const members = g.members.map((m) => {
    const cur = {};
    const pend = {};
    const tgt = {};
    for (const [r, k] of Object.entries(ROLES)) {
      cur[r] = tasks(m.assignment[k]);
      pend[r] = tasks(m.pendingRevocation[k]);
      tgt[r] = tasks(m.targetAssignment[k]);
    }
    return {
      memberId: m.memberId,
      epoch: String(m.memberEpoch),
      previous: String(m.previousMemberEpoch),
      state: m.memberState,
      process: m.processId,
      instance: m.instanceId ?? '–',
      current: cur,
      pending: pend,
      target: tgt,
    };
  });
  members.sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
  const owners = {};
  for (const m of g.members) {
    for (const t of [...tasks(m.assignment.activeTasks), ...tasks(m.pendingRevocation.activeTasks)]) owners[t] = m.memberId;
  }
  return {
    group: {
      groupId: g.groupId,
      state: g.state,
      groupEpoch: String(g.groupEpoch),
      assignmentEpoch: String(g.assignmentEpoch),
      topologyId: g.topologyId ?? '',
      members: String(g.members.length),
    },
    members,
    owners,
    timers: snapshot.timers.length,
    topics: snapshot.topics.map((t) => `${t.name}:${t.partitions}`),
    clock: fmtTime(lastNow),
  };
}

/** What the page shows. */
async function shown(page) {
  return page.evaluate(() => {
    const text = (el) => (el ? el.textContent.trim() : null);
    const q = (s) => text(document.querySelector(s));
    const chips = (card, field) => [...card.querySelectorAll(`[data-field="${field}"] .chip`)].map((c) => {
      const x = c.cloneNode(true);
      x.querySelector('.tepoch')?.remove();
      return x.textContent.replace('↩', '').trim();
    });
    const group = document.querySelector('#group-state')
      ? {
        groupId: q('#group-id'),
        state: q('#group-state'),
        groupEpoch: q('#group-epoch'),
        assignmentEpoch: q('#assignment-epoch'),
        topologyId: document.querySelector('#topology-id').title,
        members: q('#member-count'),
      }
      : null;
    const cards = [...document.querySelectorAll('.member-card')];
    const members = cards.map((card) => {
      const f = (name) => text(card.querySelector(`[data-field="${name}"]`));
      const roles = (kind) => Object.fromEntries(['active', 'standby', 'warmup'].map((r) => [r, chips(card, `${kind}-${r}`)]));
      return {
        memberId: card.dataset.memberId,
        epoch: f('member-epoch'),
        previous: f('previous-epoch'),
        state: f('member-state'),
        process: f('process-id'),
        instance: f('instance-id'),
        current: roles('current'),
        pending: roles('pending'),
        target: roles('target'),
      };
    });
    members.sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
    const labels = Object.fromEntries(cards.map((c) => [c.dataset.label, c.dataset.memberId]));
    // A big group lists its members as rows (no task chips; counts instead).
    const rows = [...document.querySelectorAll('.member-row[data-member-id]')].map((r) => {
      const f = (name) => text(r.querySelector(`[data-field="${name}"]`));
      return { memberId: r.dataset.memberId, epoch: f('member-epoch'), state: f('member-state'), process: f('process-id'), active: parseInt(f('active-count'), 10), target: parseInt(f('target-count'), 10) };
    }).sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
    const owners = {};
    for (const row of document.querySelectorAll('.member-row[data-member-id]')) labels[row.dataset.label] = row.dataset.memberId;
    for (const cell of document.querySelectorAll('.tm-cell')) {
      const own = cell.dataset.owner;
      if (own) owners[cell.dataset.task] = labels[own] ?? `label:${own}`;
    }
    return {
      group,
      members,
      rows,
      owners,
      timers: document.querySelectorAll('#timers li:not(.muted):not(.more)').length + Number(document.querySelector('#timers li.more')?.dataset.count ?? 0),
      topics: [...document.querySelectorAll('#topics li')].filter((li) => li.querySelector('.tname')).map((li) => `${text(li.querySelector('.tname'))}:${parseInt(text(li.querySelector('.tparts')), 10)}`),
      clock: q('#clock'),
      counter: q('#step-counter'),
      replay: q('#replay-check'),
    };
  });
}

async function assertShows(page, exp, what) {
  // A big group checks its rebuild from the records on request.
  if (await page.$('#replay-check[data-action="replay-check"]')) await page.click('#replay-check');
  const s = await shown(page);
  if (!exp.group) {
    assert.equal(s.group, null, `${what}: the page shows a group, the coordinator has none`);
    return s;
  }
  assert.deepEqual(s.group, exp.group, `${what}: group header`);
  if (s.rows.length) {
    const rows = exp.members.map((m) => ({ memberId: m.memberId, epoch: m.epoch, state: m.state, process: m.process, active: m.current.active.length, target: m.target.active.length }));
    assert.ok(rows.length > 12, `${what}: rows only for big groups`);
    assert.deepEqual(s.rows, rows, `${what}: member rows`);
  } else {
    assert.deepEqual(s.members, exp.members, `${what}: member cards`);
  }
  assert.deepEqual(s.owners, exp.owners, `${what}: task placement`);
  assert.equal(s.timers, exp.timers, `${what}: number of pending timers`);
  assert.deepEqual(s.topics, exp.topics, `${what}: topics`);
  assert.equal(s.clock, exp.clock, `${what}: clock`);
  assert.match(s.replay ?? '', /^✓ rebuilt from \d+ records$/, `${what}: replay check`);
  return s;
}

async function download(page, action) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-action="${action}"]`)]);
  const file = path.join(OUT, 'downloads', dl.suggestedFilename());
  await dl.saveAs(file);
  return { file, data: JSON.parse(fs.readFileSync(file, 'utf8')) };
}

/** Exports the page's inputs, re-runs them in Node and checks outputs and view. */
async function checkAgainstNode(page, what) {
  const { data: scenario } = await download(page, 'export');
  assert.ok(Array.isArray(scenario.steps) && scenario.steps.length > 0, `${what}: exported steps`);
  // Every output the page got equals the Node coordinator's, byte for byte in JSON.
  const handle = (config) => {
    const c = new Coordinator(config);
    return (text) => c.handle(text);
  };
  const { failure } = runScenario(scenario, handle);
  assert.equal(failure, null, `${what}: the page's outputs differ from the Node coordinator's`);
  const { data: saved } = await download(page, 'save');
  const cursor = saved.cursor ?? saved.steps.length;
  const inputs = saved.steps.slice(0, cursor).filter((s) => s.input).map((s) => s.input);
  const run = nodeRun(saved.config, inputs);
  const exp = expected(run.snapshot, saved.app.groupId, run.lastNow);
  await assertShows(page, exp, what);
  return { scenario, saved, exp };
}

async function choosePreset(page, id) {
  await page.selectOption('#preset', id);
  await page.waitForFunction((pid) => document.querySelector('#preset').value === pid && /Step (\d+) of \1$/.test(document.querySelector('#step-counter').textContent), id);
}

async function counter(page) {
  const t = await page.textContent('#step-counter');
  const m = /Step (\d+) of (\d+)/.exec(t);
  return { at: Number(m[1]), of: Number(m[2]) };
}

/** The page at step `at` equals the coordinator after the inputs among the first `at` steps. */
async function checkStep(page, saved, at, what) {
  // A click's redraw may land a frame after the click returns (a busy machine's CI once read
  // the step before): wait for the counter, then assert it as before.
  await page
    .waitForFunction((n) => (document.querySelector('#step-counter')?.textContent ?? '').startsWith(`Step ${n} of`), at, { timeout: 5000 })
    .catch(() => {});
  const c = await counter(page);
  assert.equal(c.at, at, `${what}: step counter`);
  const inputs = saved.steps.slice(0, at).filter((s) => s.input).map((s) => s.input);
  const run = nodeRun(saved.config, inputs);
  await assertShows(page, expected(run.snapshot, saved.app.groupId, run.lastNow), `${what} (step ${at})`);
}

// ---------------------------------------------------------------------------------------------
// The tests.

test('the page loads the real coordinator with no console errors', async () => {
  const page = await openPage();
  assert.equal(await page.title(), 'Streams rebalance playground');
  assert.match(await page.textContent('#version'), /^v\d+\.\d+\.\d+/);
  // The default story is loaded and drawn.
  assert.equal(await page.textContent('#group-state'), 'STABLE');
  assert.ok((await page.$$('.member-card')).length === 3);
  await shot(page, 'load-1280x800');
});

for (const id of PRESETS) {
  test(`preset ${id}: what the page shows equals the coordinator's output`, async () => {
    const page = await openPage();
    await choosePreset(page, id);
    const { saved } = await checkAgainstNode(page, id);
    const c = await counter(page);
    assert.equal(c.at, saved.steps.length);
    // The explain pane answers "why" for the last step.
    const why = await page.textContent('#pane-why');
    assert.match(why, /Step \d+:/);
    await shot(page, `preset-${id}-1280x800`);
    // A step in the middle, with the explanation of what happened there.
    // The last bump among the steps shown (with several groups, other groups' steps fold away).
    const bump = await page.$$eval('.tl', (els) => els.findLastIndex((e) => e.offsetParent !== null && /epoch \d+→\d+/.test(e.textContent)));
    assert.ok(bump > 0, 'some step bumps the group epoch');
    await page.click(`.tl[data-to="${bump}"]`);
    await checkStep(page, saved, bump, `${id} jump`);
    assert.match(await page.textContent('#pane-why'), /Group epoch \d+ → \d+: /);
    await shot(page, `preset-${id}-step${bump}-1280x800`);
  });
}

test('step back and forward rebuild the exact state (buttons, keys, timeline, slider)', async () => {
  const page = await openPage();
  await choosePreset(page, 'crash');
  const { data: saved } = await download(page, 'save');
  const n = saved.steps.length;
  // Back with the button, one step at a time, checking each point.
  for (let k = 1; k <= 4; k++) {
    await page.click('[data-action="back"]');
    await checkStep(page, saved, n - k, 'back button');
  }
  // Forward with the button.
  await page.click('[data-action="forward"]');
  await checkStep(page, saved, n - 3, 'forward button');
  // Keys (focus on the page, not in a field).
  await page.focus('[data-action="forward"]');
  await page.keyboard.press('ArrowLeft');
  await checkStep(page, saved, n - 4, 'ArrowLeft');
  await page.keyboard.press('Home');
  await checkStep(page, saved, 0, 'Home');
  await page.keyboard.press('ArrowRight');
  await checkStep(page, saved, 1, 'ArrowRight');
  await page.keyboard.press('End');
  await checkStep(page, saved, n, 'End');
  // The timeline: jump to every point, backwards, and check it.
  for (let at = n - 1; at >= 0; at -= 5) {
    await page.click(`.tl[data-to="${at}"]`);
    await checkStep(page, saved, at, 'timeline jump');
  }
  // The slider.
  await page.$eval('#scrub', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, 10);
  await checkStep(page, saved, 10, 'slider');
  await shot(page, 'step-back-1280x800');
  // A new action in the past replaces the later steps.
  await page.click('[data-action="heartbeat-all"]');
  const c = await counter(page);
  assert.equal(c.at, c.of);
  assert.ok(c.of < n + 3);
});

test('a shared URL reproduces the scenario and the step', async () => {
  const page = await openPage();
  await choosePreset(page, 'rolling-restart');
  await page.click('[data-action="back"]');
  await page.click('[data-action="back"]');
  const before = await shown(page);
  await page.click('[data-action="share"]');
  await page.waitForSelector('#dlg-share[open]');
  const url = await page.inputValue('#share-url');
  assert.ok(url.startsWith(`${BASE}#z=`) || url.startsWith(`${BASE}#s=`), url);
  await shot(page, 'share-dialog-1280x800');
  await page.click('#dlg-share [value="close"]');
  const other = await openPage(DESKTOP, url);
  const after = await shown(other);
  assert.deepEqual(after, before, 'the shared page shows the same state');
  const { data: saved } = await download(other, 'save');
  const c = await counter(other);
  await checkStep(other, saved, c.at, 'shared link');
  // And it can step forward to the end of the story.
  await other.click('[data-action="end"]');
  await checkStep(other, saved, saved.steps.length, 'shared link, end');
});

test('save and load a scenario file; load tests/scenarios and JSON lines files', async () => {
  const page = await openPage();
  await choosePreset(page, 'missing-source');
  const { file } = await download(page, 'save');
  const before = await shown(page);
  const other = await openPage();
  await other.setInputFiles('#file', file);
  await other.waitForFunction(() => /Loaded/.test(document.querySelector('#toast').textContent));
  assert.deepEqual(await shown(other), before, 'the loaded file shows the same state');
  // A scenario of the shared test suite and the demo story: the page runs their inputs.
  for (const f of ['tests/scenarios/draft-worked-example.json', 'examples/demo/three-instances.jsonl']) {
    const src = path.join(ROOT, f);
    if (!fs.existsSync(src)) continue;
    await other.setInputFiles('#file', src);
    await other.waitForFunction((name) => document.querySelector('#toast').textContent.includes(name), path.basename(f));
    await checkAgainstNode(other, f);
  }
  await shot(other, 'loaded-file-1280x800');
});

test('every action from the page, checked against the coordinator', async () => {
  const page = await openPage();
  await page.click('[data-action="new"]');
  await page.waitForSelector('.empty');
  // Topics.
  await page.fill('#topic-name', 'orders');
  await page.fill('#topic-partitions', '4');
  await page.click('#create-topic button[type="submit"]');
  // A dynamic member joins and is asked to initialize.
  await page.click('#add-member button[type="submit"]');
  await page.click('.member-card[data-label="A"] [data-action="initialize"]');
  await page.click('[data-action="create-requested"]');
  await page.click('.member-card[data-label="A"] [data-action="heartbeat"]');
  assert.equal(await page.textContent('#group-state'), 'STABLE');
  // A static member on a new process, and a second thread on A's process.
  await page.check('#add-member input[value="static"]');
  await page.fill('#add-instance', 'orders-1');
  await page.click('#add-member button[type="submit"]');
  await page.check('#add-member input[value="dynamic"]');
  await page.selectOption('#add-process', 'process-1');
  await page.click('#add-member button[type="submit"]');
  await page.click('.member-card[data-label="A"] [data-action="heartbeat"]');
  await page.click('.member-card[data-label="A"] [data-action="revoke"]');
  await page.click('[data-action="settle"]');
  await checkAgainstNode(page, 'after joins');
  // Static leave (-2) and restart.
  await page.click('.member-card[data-label="orders-1"] [data-action="static-leave"]');
  assert.match(await page.textContent('.member-card[data-label="orders-1"] [data-field="member-epoch"]'), /^-2$/);
  await page.click('[data-action="advance"][data-ms="5000"]');
  await page.click('.member-card[data-label="orders-1"] [data-action="restart"]');
  assert.match(await page.textContent('#pane-why'), /Static member orders-1 came back/);
  // Crash B; the others keep heartbeating until B's session timeout fires.
  await page.click('.member-card[data-label="B"] [data-action="crash"]');
  await page.click('[data-action="advance"][data-ms="30000"]');
  await page.click('[data-action="heartbeat-all"]');
  await page.click('[data-action="next-timer"]');
  assert.match(await page.textContent('#pane-why'), /B was removed from the group: no heartbeat arrived within the session timeout/);
  await page.click('[data-action="settle"]');
  await page.click('.outside [data-label="B"] [data-action="restart"]');
  await page.click('[data-action="settle"]');
  // More partitions: the topic change bumps the epoch at the next heartbeat.
  await page.click('[data-action="add-partitions"][data-topic="orders"]');
  await page.click('[data-action="settle"]');
  assert.match(await page.textContent('.why'), /topics changed|Every member/);
  // Edit the topology (a second subtopology with a repartition topic) and initialize it.
  await page.click('[data-action="edit-topology"]');
  await page.waitForSelector('#dlg-topology[open]');
  await page.click('[data-action="topology-template"]');
  assert.match(await page.textContent('#topology-status'), /^topology id [0-9a-f]{64}$/);
  await shot(page, 'topology-dialog-1280x800');
  await page.click('[data-action="topology-apply-init"]');
  await page.click('[data-action="create-requested"]');
  await page.click('[data-action="settle"]');
  // A second topic, created and deleted.
  await page.fill('#topic-name', 'audit');
  await page.fill('#topic-partitions', '2');
  await page.click('#create-topic button[type="submit"]');
  await page.click('[data-action="delete-topic"][data-topic="audit"]');
  // Shutdown request, a permanent leave, and an error: an old member id after a replacement.
  await page.click('.member-card[data-label="A"] [data-action="shutdown"]');
  assert.match(await page.textContent('.why'), /SHUTDOWN_APPLICATION/);
  await page.click('.member-card[data-label="B"] [data-action="leave"]');
  await page.click('[data-action="settle"]');
  const { saved } = await checkAgainstNode(page, 'after every action');
  const kinds = new Set(saved.steps.map((s) => s.action ?? s.event));
  for (const k of ['create-topic', 'join', 'initialize', 'create-internal', 'heartbeat', 'revoke', 'static-leave', 'restart', 'crash', 'next-timer', 'add-partitions', 'topology', 'delete-topic', 'shutdown', 'leave', 'clock']) {
    assert.ok(kinds.has(k), `the timeline has a ${k} step`);
  }
  await shot(page, 'actions-1280x800');
  await shot(page, 'actions-full-1280', true);
});

test('static member restarting too late: UNRELEASED_INSTANCE_ID while the crashed holder lives', async () => {
  const page = await openPage();
  await choosePreset(page, 'rolling-restart');
  // orders-3 crashes (no -2) and restarts at once with a new member id: the instance id is
  // still held by the old member, so the coordinator refuses (PROTOCOL 6.6).
  await page.click('.member-card[data-label="orders-3"] [data-action="crash"]');
  await page.click('.member-card[data-label="orders-3"] [data-action="restart"]');
  assert.match(await page.textContent('#pane-why'), /UNRELEASED_INSTANCE_ID \(111\)/);
  assert.match(await page.textContent('.tl[aria-current="step"]'), /error 111/);
  await checkAgainstNode(page, 'unreleased instance id');
  await shot(page, 'unreleased-instance-1280x800');
});

test('records pane shows the dump-log JSON form; input and output pane', async () => {
  const page = await openPage();
  await choosePreset(page, 'startup');
  await page.click('.tl[data-to="2"]');
  await page.click('#tab-records');
  const recs = await page.$$eval('#pane-records code.json', (els) => els.map((e) => JSON.parse(e.textContent)));
  const { data: saved } = await download(page, 'save');
  const run = nodeRun(saved.config, saved.steps.slice(0, 2).map((s) => s.input));
  assert.deepEqual(recs, JSON.parse(run.outputs[1]).records);
  assert.deepEqual(recs.map((r) => r.key.type), [17, 15, 19, 18, 20]);
  await page.check('#whole-log');
  assert.equal((await page.$$('#pane-records .rec')).length, JSON.parse(run.outputs[0]).records.length + recs.length);
  await shot(page, 'records-pane-1280x800');
  await page.click('#tab-io');
  const pre = await page.$$eval('#pane-io pre', (els) => els.map((e) => JSON.parse(e.textContent)));
  assert.deepEqual(pre[0], saved.steps[1].input);
  assert.deepEqual(pre[1], JSON.parse(run.outputs[1]));
  // Tabs follow the arrow keys.
  await page.focus('#tab-io');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute('#tab-history', 'aria-selected'), 'true');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute('#tab-why', 'aria-selected'), 'true');
});

test('settings re-run the timeline: one standby replica, standby tasks shown', async () => {
  const page = await openPage();
  await choosePreset(page, 'scale-out');
  await page.click('details.box > summary');
  await page.fill('#set-standby', '1');
  await page.click('#settings button[type="submit"]');
  await page.waitForFunction(() => /re-run/.test(document.querySelector('#toast').textContent));
  const { saved } = await checkAgainstNode(page, 'standby replicas');
  assert.equal(saved.config['group.streams.num.standby.replicas'], 1);
  const standbys = await page.$$eval('.member-card [data-field="current-standby"] .chip', (els) => els.length);
  assert.ok(standbys > 0, 'standby tasks are drawn');
  await shot(page, 'standby-1280x800');
});

test('retention: a memberless group expires and is deleted', async () => {
  const page = await openPage();
  await choosePreset(page, 'missing-source');
  await page.click('.member-card[data-label="A"] [data-action="leave"]');
  assert.equal(await page.textContent('#group-state'), 'EMPTY');
  assert.match(await page.textContent('#timers'), /retention/);
  await page.click('[data-action="next-timer"]');
  await page.waitForSelector('.empty h2');
  assert.equal(await page.textContent('.empty h2'), 'The group was deleted');
  assert.match(await page.textContent('#pane-why'), /deleted \(RETENTION_EXPIRED\)/);
  await checkAgainstNode(page, 'retention');
});

test('keyboard: skip link, named controls, actions keep the focus', async () => {
  const page = await openPage();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
  // Every control has an accessible name.
  const unnamed = await page.$$eval('button, select, input:not([type="file"]), a[href]', (els) => els
    .filter((e) => e.offsetParent !== null)
    .filter((e) => {
      const label = e.getAttribute('aria-label') || e.textContent.trim() || e.labels?.[0]?.textContent.trim() || e.getAttribute('aria-labelledby');
      return !label;
    })
    .map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(unnamed, []);
  // Keyboard-only: focus "Heartbeat all", press Enter; the step count grows and focus stays.
  const before = await counter(page);
  await page.focus('[data-action="heartbeat-all"]');
  await page.keyboard.press('Enter');
  const after = await counter(page);
  assert.equal(after.of, before.of + 3);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.action), 'heartbeat-all');
  // A member's button, by keyboard, keeps the focus on the redrawn button.
  await page.focus('.member-card[data-label="B"] [data-action="heartbeat"]');
  await page.keyboard.press('Space');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.key), 'heartbeat:B');
  // n advances to the next timer.
  await page.focus('[data-action="forward"]');
  const t0 = await page.textContent('#clock');
  await page.keyboard.press('n');
  assert.notEqual(await page.textContent('#clock'), t0);
  await shot(page, 'keyboard-focus-1280x800');
});

test('phone width: one column, no horizontal scrolling, every preset drawn', async () => {
  const page = await openPage(PHONE);
  for (const id of PRESETS) {
    await choosePreset(page, id);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${id}: ${overflow}px of horizontal overflow at 390px`);
    await shot(page, `preset-${id}-390x844`);
  }
  await shot(page, 'phone-full-390', true);
  await checkAgainstNode(page, 'phone');
});

// ---------------------------------------------------------------------------------------------
// The whole protocol: both dialects, many groups, manual targets, big groups, charts, bytes,
// the configuration result, reassigned counts, and post-mortems from a log.

const { history: nodeHistory } = await import(path.join(ROOT, 'pkg', 'node.mjs'));

/** The member cards' or rows' ids of the group on the page. */
async function memberIdsShown(page) {
  return page.$$eval('.member-card, .member-row[data-member-id]', (els) => els.map((e) => e.dataset.memberId).sort());
}

/** Node run of the page's saved inputs up to its cursor. */
async function nodeAtCursor(page) {
  const { data: saved } = await download(page, 'save');
  const cursor = saved.cursor ?? saved.steps.length;
  const inputs = saved.steps.slice(0, cursor).filter((s) => s.input).map((s) => s.input);
  return { saved, run: nodeRun(saved.config, inputs), cursor };
}

test('kafka-4.2: topology in the join, NotReady, statuses, delay timer, per-task epochs', async () => {
  const page = await openPage();
  await choosePreset(page, 'k42-startup');
  const { saved } = await checkAgainstNode(page, 'k42-startup');
  assert.equal(saved.config.dialect, 'kafka-4.2');
  assert.equal(await page.textContent('#group-dialect'), 'kafka-4.2');
  assert.equal(await page.inputValue('#dialect'), 'kafka-4.2');
  // No Initialize in 4.2: the joins carry the topology.
  assert.ok(saved.steps.every((st) => st.input?.type !== 'StreamsGroupInitialize'));
  assert.ok(saved.steps.some((st) => st.input?.request?.topology?.subtopologies));
  assert.equal(await page.isVisible('.actions [data-action="initialize"]'), false);
  // Step 2: the first member joined; the changelog is missing: NotReady, and the coordinator's
  // configuration result says why.
  await page.click('.tl[data-to="2"]');
  await checkStep(page, saved, 2, 'k42 join');
  const r2 = nodeRun(saved.config, saved.steps.slice(0, 2).filter((st) => st.input).map((st) => st.input));
  const g2 = r2.snapshot.groups[0];
  assert.equal(await page.textContent('#group-state'), 'NOT_READY');
  assert.equal(await page.getAttribute('#config-result', 'data-status'), g2.configuration.status);
  // The initial rebalance delay is a timer, and the member was told ASSIGNMENT_DELAYED.
  assert.ok(r2.snapshot.timers.some((t) => t.kind === 'initial-rebalance-delay'));
  assert.match(await page.textContent('#timers'), /delay/);
  assert.match(await page.textContent('#pane-why'), /Status ASSIGNMENT_DELAYED/);
  assert.ok((await page.$$('.member-card .status[data-status="ASSIGNMENT_DELAYED"]')).length > 0);
  await shot(page, 'k42-not-ready-1280x800');
  // At the end: per-task assignment epochs, as the last current-assignment records carry them.
  await page.click('[data-action="end"]');
  const run = nodeRun(saved.config, saved.steps.filter((st) => st.input).map((st) => st.input));
  const want = {};
  for (const o of run.outputs.map((x) => JSON.parse(x))) {
    for (const rec of o.records ?? []) {
      if (rec.key.type !== 22) continue;
      const m = rec.key.data.memberId;
      if (rec.value === null) { delete want[m]; continue; }
      want[m] = {};
      for (const t of rec.value.data.activeTasks) t.partitions.forEach((p, j) => { want[m][`${t.subtopologyId}_${p}`] = String(t.assignmentEpochs[j]); });
    }
  }
  const shownEpochs = await page.$$eval('.member-card', (cards) => Object.fromEntries(cards.map((c) => [c.dataset.memberId, Object.fromEntries([...c.querySelectorAll('[data-field="current-active"] .chip')].map((ch) => [ch.firstChild.textContent.trim(), ch.querySelector('.tepoch')?.textContent.replace('@', '')]))])));
  assert.deepEqual(shownEpochs, want, 'per-task assignment epochs');
  assert.ok(Object.keys(want).length >= 2);
  await shot(page, 'k42-startup-1280x800');
  // The dialect switch starts a new timeline; a member joins from the page with the topology.
  await page.selectOption('#dialect', 'kip1071-draft');
  await page.waitForFunction(() => /Step 0 of 0/.test(document.querySelector('#step-counter').textContent));
  await page.selectOption('#dialect', 'kafka-4.2');
  await page.fill('#topic-name', 'orders');
  await page.click('#create-topic button[type="submit"]');
  await page.click('#add-member button[type="submit"]');
  await page.click('[data-action="create-requested"]');
  await page.click('[data-action="next-timer"]');
  await page.click('.member-card[data-label="A"] [data-action="heartbeat"]');
  const after = await checkAgainstNode(page, 'k42 by hand');
  assert.equal(after.saved.config.dialect, 'kafka-4.2');
  assert.equal(await page.textContent('#group-state'), 'STABLE');
});

test('many groups: pick, the view and timeline follow, DeleteGroups answers, retention per group', async () => {
  const page = await openPage();
  await choosePreset(page, 'two-groups');
  await checkAgainstNode(page, 'two groups, orders-app');
  assert.deepEqual(await page.$$eval('#group-pick option', (os) => os.map((o) => o.value)), ['audit-app', 'orders-app']);
  const hidden = await page.$$eval('.timeline li.other-group', (els) => els.length);
  assert.ok(hidden > 0, 'steps of audit-app fold away while orders-app is shown');
  // The refused delete: NON_EMPTY_GROUP while C is in audit-app.
  const { data: saved } = await download(page, 'save');
  const refused = saved.steps.findIndex((st) => st.input?.type === 'DeleteGroups');
  await page.selectOption('#group-pick', 'audit-app');
  await page.click(`.tl[data-to="${refused + 1}"]`);
  assert.match(await page.textContent('#pane-why'), /DeleteGroups audit-app: NON_EMPTY_GROUP \(68\)/);
  assert.match(await page.textContent('.tl[aria-current="step"]'), /error 68/);
  // After C left: audit-app is EMPTY with a retention countdown; orders-app has none.
  await page.click(`.tl[data-to="${refused + 2}"]`);
  const r = nodeRun(saved.config, saved.steps.slice(0, refused + 2).filter((st) => st.input).map((st) => st.input));
  const ret = r.snapshot.timers.find((t) => t.kind === 'retention' && t.groupId === 'audit-app');
  assert.ok(ret);
  assert.equal(await page.textContent('#groups li[data-group="audit-app"] .retention'), `retention in ${fmtTime(Number(ret.deadlineMs) - r.lastNow)}`);
  assert.equal(await page.$('#groups li[data-group="orders-app"] .retention'), null);
  assert.equal(await page.textContent('#group-state'), 'EMPTY');
  assert.deepEqual(await memberIdsShown(page), []);
  await shot(page, 'groups-retention-1280x800');
  // The accepted delete, then the group is gone from the coordinator.
  await page.click(`.tl[data-to="${refused + 3}"]`);
  assert.match(await page.textContent('#pane-why'), /DeleteGroups audit-app: deleted/);
  assert.equal(await page.textContent('.empty h2'), 'The group was deleted');
  // Delete from the page: orders-app has members, so Kafka refuses.
  await page.click('[data-action="end"]');
  await page.selectOption('#group-pick', 'orders-app');
  await page.click('[data-action="delete-group"]');
  assert.match(await page.textContent('#pane-why'), /DeleteGroups orders-app: NON_EMPTY_GROUP \(68\)/);
  // A new group from the page: its members join it, and the view shows only it.
  await page.fill('#new-group-id', 'third-app');
  await page.click('#add-group button[type="submit"]');
  await page.click('#add-member button[type="submit"]');
  const { saved: s3 } = await checkAgainstNode(page, 'third group');
  assert.equal(s3.app.groupId, 'third-app');
  assert.equal((await memberIdsShown(page)).length, 1);
  await shot(page, 'groups-1280x800');
});

test('manual targets: set and move from the page, SetTargetAssignment answers shown', async () => {
  const page = await openPage();
  await choosePreset(page, 'manual');
  const { saved } = await checkAgainstNode(page, 'manual preset');
  assert.equal(saved.config.assignor, 'manual');
  // The last step was refused; the page says so, with the coordinator's message.
  const last = saved.steps.at(-1);
  assert.equal(last.input.type, 'SetTargetAssignment');
  const run = nodeRun(saved.config, saved.steps.filter((st) => st.input).map((st) => st.input));
  const res = JSON.parse(run.outputs.at(-1)).response;
  assert.notEqual(res.errorCode, 0);
  const why = await page.textContent('#pane-why');
  assert.ok(why.includes(`(${res.errorCode}): `) && why.includes('rejected the target as a whole'), `the validation answer is shown: ${why}`);
  // The coordinator's message, with member ids named as the page names them.
  const words = res.errorMessage.split(/\s+/).filter((w) => !/[A-Za-z0-9_-]{22}/.test(w));
  for (const w of words) assert.ok(why.includes(w), `"${w}" of "${res.errorMessage}" in the why pane`);
  assert.ok(await page.isVisible('#manual-box'));
  // Move a task from the form: 0_1 (A's) to B.
  const b = await page.getAttribute('.member-card[data-label="B"]', 'data-member-id');
  await page.click('.tm-cell[data-task="0_1"]');
  assert.equal(await page.inputValue('#mv-task'), '0_1');
  await page.selectOption('#mv-member', b);
  await page.click('#move-task button[type="submit"]');
  assert.match(await page.textContent('#pane-why'), /SetTargetAssignment accepted/);
  await page.click('[data-action="settle"]');
  const moved = await checkAgainstNode(page, 'manual move');
  const target = moved.exp.members.find((m) => m.memberId === b).target.active;
  assert.ok(target.includes('0_1'), `B's target ${target}`);
  // Pick B's tasks with the checkboxes: only 0_1.
  await page.selectOption('#mt-member', b);
  for (const box of await page.$$('#mt-tasks input')) {
    const v = await box.getAttribute('value');
    if ((v === '0_1') !== (await box.isChecked())) await box.click();
  }
  await page.click('#set-target button[type="submit"]');
  const set = await checkAgainstNode(page, 'manual set');
  assert.deepEqual(set.exp.members.find((m) => m.memberId === b).target.active, ['0_1']);
  await shot(page, 'manual-targets-1280x800');
});

test('big group: 200 members, 1,000 tasks, readable and each step drawn in well under a second', async () => {
  const page = await openPage();
  const t0 = Date.now();
  await choosePreset(page, 'big');
  const loadMs = Date.now() - t0;
  const { saved, run } = await nodeAtCursor(page);
  const g = run.snapshot.groups[0];
  assert.equal(g.members.length, 200);
  assert.equal(g.state, 'STABLE');
  assert.equal(await page.textContent('#group-state'), 'STABLE');
  assert.equal(await page.textContent('#member-count'), '200');
  assert.deepEqual(await memberIdsShown(page), g.members.map((m) => m.memberId).sort());
  // Compact task map: 1,000 cells, each coloured by the owner the coordinator has.
  const cells = await page.$$eval('.taskmap.compact .tm-cell', (els) => els.length);
  assert.equal(cells, 1000);
  const s = await shown(page);
  const exp = expected(run.snapshot, saved.app.groupId, run.lastNow);
  assert.deepEqual(s.owners, exp.owners, 'task placement');
  // The rows: states, epochs and task counts as the coordinator has them.
  const rows = await page.$$eval('.member-row[data-member-id]', (els) => els.map((r) => ({ id: r.dataset.memberId, state: r.querySelector('[data-field="member-state"]').textContent, epoch: r.querySelector('[data-field="member-epoch"]').textContent, active: parseInt(r.querySelector('[data-field="active-count"]').textContent, 10) })));
  for (const m of g.members) {
    const row = rows.find((x) => x.id === m.memberId);
    assert.deepEqual([row.state, row.epoch, row.active], [m.memberState, String(m.memberEpoch), tasks(m.assignment.activeTasks).length], m.memberId);
  }
  await shot(page, 'big-group-1280x800');
  await (await page.$('.members.big')).screenshot({ path: path.join(OUT, 'big-group-members-1280.png') });
  await (await page.$('.taskmap')).screenshot({ path: path.join(OUT, 'big-group-taskmap-1280.png') });
  // Step back through the join storm and forward again: each redraw well under a second.
  // Each step: the click's round trip, and the page's own redraw time (body[data-render-ms]).
  const times = [];
  const draws = [];
  const step = async (click) => {
    const t = Date.now();
    await click();
    times.push(Date.now() - t);
    draws.push(Number(await page.getAttribute('body', 'data-render-ms')));
  };
  for (const action of ['back', 'back', 'back', 'forward', 'start', 'end', 'back']) {
    await step(() => page.click(`[data-action="${action}"]`));
  }
  const jumpTo = Math.floor(saved.steps.length / 3);
  await step(() => page.click(`.tl[data-to="${jumpTo}"]`));
  await checkStep(page, saved, jumpTo, 'big group, in the middle');
  await step(() => page.click('[data-action="forward"]'));
  await step(() => page.click(`.tl[data-to="${saved.steps.length}"]`));
  console.log(`  big group: preset built and drawn in ${loadMs} ms; steps took ${times.join(', ')} ms (redraws ${draws.join(', ')} ms)`);
  // The page's own redraw: well under a second on a quiet machine, with room for a busy one.
  // A step's round trip also holds the test driver's and the browser's scheduling, which a
  // shared machine's other builds stretch (1.4 s once, with every redraw under 0.25 s): it is
  // reported above and bounded only against a hang.
  assert.ok(Math.max(...draws) < 700, `redraw times ${draws}`);
  assert.ok(Math.max(...times) < 5000, `step times ${times}`);
  // Filter and sort the member list by state.
  await page.fill('#member-filter', 'process-7');
  await page.waitForFunction(() => /^4 of 200 shown$/.test(document.querySelector('#member-shown').textContent)).catch(async (e) => {
    const shown = await page.textContent('#member-shown');
    throw new Error(`the filter 'process-7' (the field now '${await page.inputValue('#member-filter')}') shows '${shown}': ${e.message}`);
  });
  assert.deepEqual(await page.$$eval('.member-row [data-field="process-id"]', (els) => [...new Set(els.map((e) => e.textContent))]), ['process-7']);
  await page.fill('#member-filter', '');
  await page.click('.tl[data-to="201"]');
  await page.selectOption('#member-sort', 'state');
  const states = await page.$$eval('.member-row [data-field="member-state"]', (els) => els.map((e) => e.textContent));
  const order = { UNREVOKED_TASKS: 0, UNRELEASED_TASKS: 1, STABLE: 2, UNKNOWN: 3 };
  assert.deepEqual(states, [...states].sort((a, b) => order[a] - order[b]), 'sorted by state');
  await (await page.$('.members.big')).screenshot({ path: path.join(OUT, 'big-group-sorted-by-state-1280.png') });
});

test('chart along the timeline and record bytes in hex', async () => {
  const page = await openPage();
  await choosePreset(page, 'crash');
  const { data: saved } = await download(page, 'save');
  assert.equal(await page.getAttribute('#chart svg', 'data-steps'), String(saved.steps.length));
  // The chart's reading at a step equals the coordinator's group there.
  for (const at of [6, 12, saved.steps.length]) {
    await page.click(`.tl[data-to="${at}"]`);
    const r = nodeRun(saved.config, saved.steps.slice(0, at).filter((st) => st.input).map((st) => st.input));
    const g = r.snapshot.groups[0];
    const stable = g.members.filter((m) => m.memberState === 'STABLE' && m.memberEpoch === g.assignmentEpoch).length;
    assert.equal(await page.textContent('[data-field="chart-epoch"]'), String(g.groupEpoch), `chart epoch at ${at}`);
    assert.equal(await page.textContent('[data-field="chart-stable"]'), String(stable), `chart reconciled at ${at}`);
    assert.equal(await page.textContent('[data-field="chart-busy"]'), String(g.members.length - stable), `chart reconciling at ${at}`);
  }
  // A click on the chart jumps along the timeline.
  await page.click('#chart svg', { position: { x: 2, y: 40 } });
  assert.equal((await counter(page)).at, 1);
  // Bytes: the records pane shows each record's keyBytes / valueBytes in hex beside its JSON.
  await page.click('.tl[data-to="2"]');
  await page.click('#tab-records');
  await page.check('#show-hex');
  const run = nodeRun(saved.config, saved.steps.slice(0, 2).map((st) => st.input));
  const recs = JSON.parse(run.outputs[1]).records;
  const hex = (b64) => (b64 === null ? '(tombstone: no value)' : [...Buffer.from(b64, 'base64')].map((x) => x.toString(16).padStart(2, '0')).join(' '));
  assert.deepEqual(await page.$$eval('#pane-records [data-field="key-hex"]', (els) => els.map((e) => e.textContent)), recs.map((r) => hex(r.keyBytes)));
  assert.deepEqual(await page.$$eval('#pane-records [data-field="value-hex"]', (els) => els.map((e) => e.textContent)), recs.map((r) => hex(r.valueBytes)));
  assert.deepEqual(await page.$$eval('#pane-records code.json', (els) => els.map((e) => JSON.parse(e.textContent))), recs.map((r) => ({ key: r.key, value: r.value })));
  await shot(page, 'chart-and-bytes-1280x800');
});

test('the coordinator\'s own words: configuration result, and reassigned counts after a crash', async () => {
  const page = await openPage();
  await choosePreset(page, 'missing-source');
  const { data: saved } = await download(page, 'save');
  for (let at = 1; at <= saved.steps.length; at++) {
    await page.click(`.tl[data-to="${at}"]`);
    const r = nodeRun(saved.config, saved.steps.slice(0, at).filter((st) => st.input).map((st) => st.input));
    const g = r.snapshot.groups.find((x) => x.groupId === saved.app.groupId);
    if (!g) continue;
    assert.equal(await page.getAttribute('#config-result', 'data-status'), g.configuration.status, `configuration at ${at}`);
    const text = await page.textContent('#config-result');
    for (const st of g.configuration.subtopologies) assert.ok(text.includes(`subtopology ${st.subtopologyId}: ${st.numTasks} task`), `${text} at ${at}`);
    if (g.configuration.status === 'READY') assert.equal((await page.$$('.tm-cell')).length, g.configuration.subtopologies.reduce((n, st) => n + Number(st.numTasks), 0));
  }
  await shot(page, 'configuration-result-1280x800');
  // A crash: B's tasks get new owners; the explanation says they were reassigned.
  await choosePreset(page, 'crash');
  const { data: crash } = await download(page, 'save');
  const run = nodeRun(crash.config, crash.steps.filter((st) => st.input).map((st) => st.input));
  const outs = run.outputs.map((o) => JSON.parse(o));
  const at = outs.findIndex((o) => o.explain.some((e) => e.code === 'TARGET_ASSIGNMENT_COMPUTED' && e.tasksReassigned > 0));
  assert.ok(at > 0, 'a target computation reassigns the crashed member\'s tasks');
  const e = outs[at].explain.find((x) => x.code === 'TARGET_ASSIGNMENT_COMPUTED');
  assert.equal(e.tasksMoved, 0);
  // The timeline step (client-side events included) of the at-th input.
  const stepNo = crash.steps.findIndex((st, i) => crash.steps.slice(0, i + 1).filter((x) => x.input).length === at + 1) + 1;
  await page.click(`.tl[data-to="${stepNo}"]`);
  assert.match(await page.textContent('#pane-why'), new RegExp(`0 tasks moved between members, ${e.tasksReassigned} tasks of departed members reassigned`));
  assert.match(await page.textContent('.tl[aria-current="step"]'), new RegExp(`${e.tasksReassigned} reassigned`));
  await shot(page, 'reassigned-1280x800');
});

/** A scenario's records as `kafka-dump-log.sh --offsets-decoder` prints them (Kafka's form). */
function dumpLog(config, inputs) {
  const c = new Coordinator({ ...config, recordBytes: true });
  let s = 'Dumping /var/lib/kafka/data/__consumer_offsets-12/00000000000000000000.log\nLog starting offset: 0\n';
  let offset = 0;
  const batches = [];
  for (const input of inputs) {
    const out = JSON.parse(c.handle(JSON.stringify(input)));
    const recs = out.records ?? [];
    if (!recs.length) continue;
    batches.push({ t: input.nowMs, recs, offset });
    s += `baseOffset: ${offset} lastOffset: ${offset + recs.length - 1} count: ${recs.length} baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: ${input.nowMs} size: 100 magic: 2 compresscodec: none crc: 1 isvalid: true\n`;
    recs.forEach((r, i) => {
      const key = JSON.stringify({ type: String(r.key.type), data: r.key.data });
      const payload = r.value === null ? '<DELETE>' : JSON.stringify({ version: String(r.value.version), data: r.value.data });
      s += `| offset: ${offset} CreateTime: ${input.nowMs} keySize: ${Buffer.from(r.keyBytes, 'base64').length} valueSize: ${r.valueBytes === null ? -1 : Buffer.from(r.valueBytes, 'base64').length} sequence: ${i} headerKeys: [] key: ${key} payload: ${payload}\n`;
      offset += 1;
    });
  }
  return { text: s, batches };
}

function varint(out, v) {
  let z = (BigInt(v) << 1n) ^ (BigInt(v) >> 63n);
  z = BigInt.asUintN(64, z);
  do {
    let b = Number(z & 0x7fn);
    z >>= 7n;
    if (z) b |= 0x80;
    out.push(b);
  } while (z);
}

/** The same batches as a raw log segment (record batch v2, uncompressed). */
function segment(batches) {
  const parts = [];
  for (const { t, recs, offset } of batches) {
    const body = [];
    recs.forEach((r, i) => {
      const key = [...Buffer.from(r.keyBytes, 'base64')];
      const rec = [0];
      varint(rec, 0);
      varint(rec, i);
      varint(rec, key.length);
      rec.push(...key);
      if (r.valueBytes === null) varint(rec, -1);
      else { const v = [...Buffer.from(r.valueBytes, 'base64')]; varint(rec, v.length); rec.push(...v); }
      varint(rec, 0);
      varint(body, rec.length);
      body.push(...rec);
    });
    const head = Buffer.alloc(49);
    head.writeInt32BE(3, 0); head.writeInt8(2, 4); head.writeUInt32BE(0, 5); head.writeInt16BE(0, 9);
    head.writeInt32BE(recs.length - 1, 11); head.writeBigInt64BE(BigInt(t), 15); head.writeBigInt64BE(BigInt(t), 23);
    head.writeBigInt64BE(-1n, 31); head.writeInt16BE(-1, 39); head.writeInt32BE(-1, 41); head.writeInt32BE(recs.length, 45);
    const batch = Buffer.concat([head, Buffer.from(body)]);
    const pre = Buffer.alloc(12);
    pre.writeBigInt64BE(BigInt(offset), 0);
    pre.writeInt32BE(batch.length, 8);
    parts.push(pre, batch);
  }
  return Buffer.concat(parts);
}

test('post-mortem: a Kafka 4.2 dump-log pasted, a raw segment dropped; the history told and replayed', async () => {
  const scenario = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/scenarios/k42-static-membership.json'), 'utf8'));
  const inputs = scenario.steps.map((st) => st.input);
  const { text, batches } = dumpLog(scenario.config, inputs);
  const page = await openPage();
  await page.click('[data-action="open-log"]');
  await page.waitForSelector('#dlg-log[open]');
  await page.fill('#log-text', text);
  await page.waitForFunction(() => /dump-log, kafka-4.2/.test(document.querySelector('#log-status').textContent));
  await shot(page, 'log-dialog-1280x800');
  await page.click('[data-action="log-load"]');
  await page.waitForSelector('#pane-history .h-group');
  // The page tells what the package's history() tells (the same code as `sgc history`).
  const told = nodeHistory(text);
  const shownCodes = await page.$$eval('#pane-history .h-ev', (els) => els.map((e) => e.dataset.code));
  assert.deepEqual(shownCodes, told.groups.flatMap((g) => g.events.map((e) => e.code)));
  const shownTexts = await page.$$eval('#pane-history .h-ev span:last-child', (els) => els.map((e) => e.textContent));
  assert.deepEqual(shownTexts, told.groups.flatMap((g) => g.events.map((e) => e.text)));
  // And the history agrees with the scenario's known inputs: who joined, the replacement, who
  // was removed, and the epoch bumps the coordinator explained.
  const c = new Coordinator(scenario.config);
  const outs = inputs.map((i) => JSON.parse(c.handle(JSON.stringify(i))));
  const ex = (code) => outs.flatMap((o) => o.explain ?? []).filter((e) => e.code === code);
  const ev = (code) => told.groups[0].events.filter((e) => e.code === code);
  assert.deepEqual(ev('GROUP_EPOCH_BUMPED').map((e) => [e.from, e.to]), ex('GROUP_EPOCH_BUMPED').map((e) => [e.from, e.to]));
  assert.deepEqual(ev('MEMBER_JOINED').map((e) => e.memberId), ['s1', 'd1']);
  assert.deepEqual(ev('STATIC_MEMBER_REPLACED').map((e) => [e.instanceId, e.oldMemberId, e.newMemberId]), ex('STATIC_MEMBER_REPLACED').map((e) => [e.instanceId, e.oldMemberId, e.newMemberId]));
  assert.deepEqual(ev('MEMBER_REMOVED').map((e) => e.memberId), ex('MEMBER_FENCED').map((e) => e.memberId));
  assert.deepEqual(ev('TARGET_ASSIGNMENT_COMPUTED').map((e) => e.tasksMoved), ex('TARGET_ASSIGNMENT_COMPUTED').map((e) => e.tasksMoved));
  // The replayed group equals the Node coordinator that wrote the log.
  assert.equal(await page.textContent('#group-state'), c.snapshot().groups[0].state);
  assert.deepEqual(await memberIdsShown(page), c.snapshot().groups[0].members.map((m) => m.memberId).sort());
  await checkAgainstNode(page, 'replayed log');
  await shot(page, 'log-history-1280x800');
  // A raw segment of the same log, dropped as a file: the same history.
  const seg = path.join(OUT, 'downloads', '00000000000000000000.log');
  fs.writeFileSync(seg, segment(batches));
  await page.click('[data-action="open-log"]');
  await page.setInputFiles('#log-file', seg);
  await page.waitForFunction(() => /segment, kafka-4.2/.test(document.querySelector('#log-status').textContent));
  await page.click('[data-action="log-load"]');
  await page.waitForSelector('#pane-history .h-group');
  assert.deepEqual(await page.$$eval('#pane-history .h-ev', (els) => els.map((e) => e.dataset.code)), shownCodes);
  // A malformed log: a clear message, no exception, nothing replaced.
  await page.click('[data-action="open-log"]');
  await page.fill('#log-text', '| offset: 0 CreateTime: 1 keySize: 1 valueSize: 1 key: {"type":"17","data":{"groupId":5}} payload: {"version":"0","data":{}}');
  await page.waitForFunction(() => document.querySelector('#log-status').classList.contains('bad'));
  assert.match(await page.textContent('#log-status'), /line 1: the record at offset 0 is not a kafka-4.2 streams group record/);
  await page.click('#dlg-log [value="cancel"]');
});

test('racks: the rack-failure preset draws the racks, and the members of the other racks take over', async () => {
  const page = await openPage();
  await choosePreset(page, 'rack-failure');
  assert.deepEqual(await page.$$eval('.racks .rack', (els) => els.map((e) => e.dataset.rack)), ['rack-a', 'rack-c']);
  assert.deepEqual(await page.$$eval('.member-card [data-field="rack-id"]', (els) => [...new Set(els.map((e) => e.textContent))].sort()), ['rack-a', 'rack-c']);
  assert.equal(await page.textContent('#group-state'), 'STABLE');
  assert.equal(await page.textContent('#invariants'), '✓ invariants');
  // Every task is held by a member of rack-a or rack-c.
  const racks = Object.fromEntries(await page.$$eval('.member-card', (els) => els.map((e) => [e.dataset.label, e.querySelector('[data-field="rack-id"]').textContent])));
  const owners = await page.$$eval('.tm-cell', (els) => els.map((e) => e.dataset.owner));
  assert.equal(owners.length, 6);
  for (const o of owners) assert.ok(['rack-a', 'rack-c'].includes(racks[o]), `${o} is on a surviving rack`);
  // Before the failure the page showed all three racks.
  const crash = await page.$$eval('.tl', (els) => els.findIndex((e) => /crashes/.test(e.textContent)));
  await page.click(`.tl[data-to="${crash}"]`);
  assert.deepEqual(await page.$$eval('.racks .rack', (els) => els.map((e) => e.dataset.rack)), ['rack-a', 'rack-b', 'rack-c']);
  await shot(page, 'preset-rack-failure-before-1280x800');
  // A member added by hand on a rack of its own joins with that rack id.
  await page.click('[data-action="new"]');
  await page.fill('#topic-name', 'orders');
  await page.fill('#topic-partitions', '2');
  await page.click('#create-topic button[type="submit"]');
  await page.fill('#add-rack', 'rack-d');
  await page.click('#add-member button[type="submit"]');
  assert.equal(await page.textContent('.member-card [data-field="rack-id"]'), 'rack-d');
  await checkAgainstNode(page, 'a member on a rack');
});

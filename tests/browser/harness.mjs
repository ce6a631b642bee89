// The browser tests' harness: one headless Chromium (Debian's, driven by playwright-core) for
// the run, the `test` wrapper (every page must log no errors and load nothing beyond the page's
// own files), and what checks the page against the coordinator: the inputs the page sent (taken
// from its "Export test" and "Save" downloads) are run through the Node build of the same
// package, and the group state, epochs, members and task placement the page draws must equal
// that coordinator's snapshot. Screenshots go to test-output/playground/.

import { after, before, test as nodeTest } from 'node:test';
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const OUT = path.join(ROOT, 'test-output', 'playground');
export const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8765/';
const ORIGIN = new URL(BASE).origin;
export const { Coordinator, history: nodeHistory } = await import(path.join(ROOT, 'pkg', 'node.mjs'));
export const { runScenario } = await import(path.join(ROOT, 'pkg', 'scenario.mjs'));

export const PRESETS = ['startup', 'scale-out', 'rolling-restart', 'crash', 'missing-source', 'k42-startup', 'two-groups', 'manual', 'rack-failure', 'process-failure', 'zombie-commit'];
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
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

export function test(name, fn) {
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

export async function openPage(viewport = DESKTOP, url = BASE) {
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

export async function shot(page, name, fullPage = false) {
  await page.evaluate(() => document.querySelector('#toast')?.classList.remove('show'));
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage });
}

// ---------------------------------------------------------------------------------------------
// The coordinator, in Node, for the same inputs.

export function tasks(list) {
  const out = [];
  for (const t of list ?? []) for (const p of t.partitions) out.push(`${t.subtopologyId}_${p}`);
  return out;
}

export function fmtTime(ms) {
  const n = Number(ms);
  if (n < 60000) return `${(n / 1000).toFixed(1)} s`;
  if (n < 3600000) return `${Math.floor(n / 60000)} min ${((n % 60000) / 1000).toFixed(1)} s`;
  if (n < 86400000) return `${Math.floor(n / 3600000)} h ${Math.floor((n % 3600000) / 60000)} min`;
  return `${Math.floor(n / 86400000)} d ${Math.floor((n % 86400000) / 3600000)} h`;
}

export function nodeRun(config, inputs) {
  const c = new Coordinator(config);
  const outputs = inputs.map((i) => c.handle(JSON.stringify(i)));
  return { outputs, snapshot: c.snapshot(), lastNow: inputs.reduce((t, i) => Math.max(t, i.nowMs), 0) };
}

/** What the page should show for a Node snapshot. */
export function expected(snapshot, groupId, lastNow) {
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
export async function shown(page) {
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

export async function assertShows(page, exp, what) {
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

export async function download(page, action) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-action="${action}"]`)]);
  const file = path.join(OUT, 'downloads', dl.suggestedFilename());
  await dl.saveAs(file);
  return { file, data: JSON.parse(fs.readFileSync(file, 'utf8')) };
}

/** Exports the page's inputs, re-runs them in Node and checks outputs and view. */
export async function checkAgainstNode(page, what) {
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

export async function choosePreset(page, id) {
  await page.selectOption('#preset', id);
  await page.waitForFunction((pid) => document.querySelector('#preset').value === pid && /Step (\d+) of \1$/.test(document.querySelector('#step-counter').textContent), id);
}

export async function counter(page) {
  const t = await page.textContent('#step-counter');
  const m = /Step (\d+) of (\d+)/.exec(t);
  return { at: Number(m[1]), of: Number(m[2]) };
}

/** The page at step `at` equals the coordinator after the inputs among the first `at` steps. */
export async function checkStep(page, saved, at, what) {
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

/** The member cards' or rows' ids of the group on the page. */
export async function memberIdsShown(page) {
  return page.$$eval('.member-card, .member-row[data-member-id]', (els) => els.map((e) => e.dataset.memberId).sort());
}

/** Node run of the page's saved inputs up to its cursor. */
export async function nodeAtCursor(page) {
  const { data: saved } = await download(page, 'save');
  const cursor = saved.cursor ?? saved.steps.length;
  const inputs = saved.steps.slice(0, cursor).filter((s) => s.input).map((s) => s.input);
  return { saved, run: nodeRun(saved.config, inputs), cursor };
}

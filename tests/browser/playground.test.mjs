// Browser tests of the protocol playground (examples/playground) in Debian's headless Chromium,
// driven by playwright-core, on node:test. scripts/test-browser.sh serves the site and passes
// BASE_URL (`node --test tests/browser/` with a served site works too).
//
// What the page shows is checked against the coordinator itself: the inputs the page sent
// (taken from its "Export test" download) are run through the Node build of the same package,
// and the group state, epochs, members and task placement the page draws must equal that
// coordinator's snapshot (harness.mjs). Screenshots go to test-output/playground/.
//
// This file is the one entry point, so that the tests run one after the other in one browser:
// the page and its controls here, then the whole protocol (protocol-suite.mjs), failures and
// failover (failover-suite.mjs) and offset commits (offsets-suite.mjs).

import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { BASE, DESKTOP, PHONE, PRESETS, ROOT, checkAgainstNode, checkStep, choosePreset, counter, download, nodeRun, openPage, shot, shown, test } from './harness.mjs';

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
  const pre = await page.$$eval('#pane-io pre.json', (els) => els.map((e) => JSON.parse(e.textContent)));
  assert.deepEqual(pre[0], saved.steps[1].input);
  assert.deepEqual(pre[1], JSON.parse(run.outputs[1]));
  // The request's frame on the wire beside its JSON: offsets, then the API key (88-90).
  const hex = await page.$$eval('#pane-io pre.hex', (els) => els.map((e) => e.textContent));
  assert.equal(hex.length, 1);
  assert.match(hex[0], /^0000 {2}00 5[89a] 00 00/);
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

await import('./protocol-suite.mjs');
await import('./failover-suite.mjs');
await import('./offsets-suite.mjs');

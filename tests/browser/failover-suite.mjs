// Browser tests of failures in the playground: a rack fails, a process fails, and who took over
// what (the failover note, checked against the Node coordinator's assignments before the failure
// and after the group settled). Run from playground.test.mjs (one browser for every test).

import assert from 'node:assert/strict';
import { checkAgainstNode, choosePreset, nodeRun, openPage, shot, tasks, test } from './harness.mjs';

/**
 * Who took over what, from the Node coordinator's snapshots: the active tasks of the members
 * `failed` picks before the failure, and for each surviving process the ones it runs after,
 * promoted (its members held a standby or warm-up of the task before) or fresh.
 */
function takeover(before, after, failed) {
  const group = (snap) => snap.groups.find((g) => g.groupId === 'orders-app');
  const copies = new Map();
  const lost = new Set();
  for (const m of group(before).members) {
    for (const t of [...tasks(m.assignment.standbyTasks), ...tasks(m.assignment.warmupTasks)]) copies.set(`${m.processId}/${t}`, true);
    if (failed(m)) for (const t of tasks(m.assignment.activeTasks)) lost.add(t);
  }
  const by = {};
  for (const m of group(after).members) {
    for (const t of tasks(m.assignment.activeTasks).filter((x) => lost.has(x))) {
      by[m.processId] ??= { promoted: [], fresh: [] };
      by[m.processId][copies.has(`${m.processId}/${t}`) ? 'promoted' : 'fresh'].push(t);
    }
  }
  for (const p of Object.values(by)) for (const k of ['promoted', 'fresh']) p[k].sort();
  return { lost: [...lost].sort(), by };
}

/** The figures of the failover note as the page prints it. */
function noteFigures(note) {
  const head = /Failover: (.+?) ran (\d+) active tasks?(?: \[([^\]]*)\])?\./.exec(note);
  assert.ok(head, `a failover note: ${note}`);
  const list = (s) => (s ? s.split(', ').sort() : []);
  const by = {};
  for (const m of note.matchAll(/(process-[\w-]+) \(([^)]*)\): (\d+) promoted from standby(?: \[([^\]]*)\])?, (\d+) fresh(?: \[([^\]]*)\])?/g)) {
    by[m[1]] = { promoted: list(m[4]), fresh: list(m[6]) };
    assert.equal(by[m[1]].promoted.length, Number(m[3]), `${m[1]}'s promoted count`);
    assert.equal(by[m[1]].fresh.length, Number(m[5]), `${m[1]}'s fresh count`);
  }
  const total = /In all (\d+) promoted from standby \(state ready\), (\d+) fresh \(state to restore\), over (\d+) process(?:es)? of (\d+)/.exec(note);
  assert.ok(total, `the note's totals: ${note}`);
  return { failed: head[1], lost: Number(head[2]), lostTasks: list(head[3]), by, promoted: Number(total[1]), fresh: Number(total[2]), over: Number(total[3]), survivors: Number(total[4]) };
}

/** The preset's failover note (its last step) and the Node coordinator before and after the failure. */
async function failoverOf(page, id) {
  await choosePreset(page, id);
  const { saved } = await checkAgainstNode(page, id);
  assert.equal(await page.textContent('#group-state'), 'STABLE');
  assert.equal(await page.textContent('#invariants'), '✓ invariants');
  const note = saved.steps.at(-1);
  assert.equal(note.event, 'note');
  // The page prints it as the last step of the timeline and in the Why pane.
  assert.equal(await page.$$eval('.tl .tl-title', (els) => els.at(-1).textContent), note.note);
  assert.ok((await page.textContent('#pane-why')).includes(note.note), 'the Why pane shows the note');
  const crash = saved.steps.findIndex((st) => st.event === 'crash');
  const inputs = (n) => saved.steps.slice(0, n).filter((st) => st.input).map((st) => st.input);
  const before = nodeRun(saved.config, inputs(crash)).snapshot;
  const after = nodeRun(saved.config, inputs(saved.steps.length)).snapshot;
  const crashed = saved.steps.filter((st) => st.event === 'crash').map((st) => st.actor);
  console.log(`  ${id}: ${note.note}`);
  return { saved, note: note.note, figures: noteFigures(note.note), before, after, crash, crashed };
}

/** The note's figures equal the coordinator's, and add up to the failed members' tasks. */
function checkFigures(f, want, what) {
  assert.deepEqual(f.by, want.by, `${what}: who took over what`);
  assert.deepEqual(f.lostTasks, want.lost, `${what}: the failed members' tasks`);
  assert.equal(f.lost, want.lost.length, `${what}: how many tasks the failed members ran`);
  const sum = Object.values(f.by).reduce((n, p) => n + p.promoted.length + p.fresh.length, 0);
  assert.equal(sum, want.lost.length, `${what}: the survivors' figures add up to the failed members' tasks`);
  assert.equal(f.promoted + f.fresh, want.lost.length, `${what}: the totals add up`);
  assert.equal(f.over, Object.keys(want.by).length, `${what}: processes that took over`);
}

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
  // The standbys placed again after the failure are on the other surviving rack.
  assert.equal((await page.$$('.tm-cell.same-rack')).length, 0, 'no copy shares its active task\'s rack');
  // Before the failure the page showed all three racks, and no standby on its active task's rack.
  const crash = await page.$$eval('.tl', (els) => els.findIndex((e) => /crashes/.test(e.textContent)));
  await page.click(`.tl[data-to="${crash}"]`);
  assert.deepEqual(await page.$$eval('.racks .rack', (els) => els.map((e) => e.dataset.rack)), ['rack-a', 'rack-b', 'rack-c']);
  assert.equal((await page.$$('.tm-cell.has-standby')).length, 6, 'every task has a standby');
  assert.equal((await page.$$('.tm-cell.same-rack')).length, 0, 'every standby on another rack than its active task');
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

test('failover: the rack-failure note says who took over rack-b\'s tasks, from standbys on the other racks', async () => {
  const page = await openPage();
  const { figures: f, before, after } = await failoverOf(page, 'rack-failure');
  const want = takeover(before, after, (m) => m.rackId === 'rack-b');
  checkFigures(f, want, 'rack-failure');
  assert.equal(f.failed, 'process-b1 (C) and process-b2 (D)');
  assert.equal(want.lost.length, 2, 'rack-b ran two tasks');
  // Every standby of rack-b's tasks was on another rack: each was promoted.
  assert.equal(f.fresh, 0, 'no task of rack-b had to restore its state');
  assert.equal(f.survivors, 4);
  await shot(page, 'failover-rack-failure-1280x800');
});

test('failover: when a process fails, its tasks spread over several survivors that held their standbys', async () => {
  const page = await openPage();
  const { figures: f, before, after, crashed, saved } = await failoverOf(page, 'process-failure');
  assert.equal(saved.config['group.streams.num.standby.replicas'], 1);
  const g0 = before.groups[0];
  assert.equal(g0.members.length, 12);
  assert.equal(new Set(g0.members.map((m) => m.processId)).size, 6);
  // Both members of process-3 crashed, and neither is in the group any more.
  const failedIds = g0.members.filter((m) => m.processId === 'process-3').map((m) => m.memberId);
  assert.equal(crashed.length, 2);
  assert.equal(failedIds.length, 2);
  assert.ok(after.groups[0].members.every((m) => !failedIds.includes(m.memberId)), 'process-3\'s members were fenced');
  assert.equal(after.groups[0].members.length, 10);
  const want = takeover(before, after, (m) => m.processId === 'process-3');
  checkFigures(f, want, 'process-failure');
  assert.ok(want.lost.length >= 4, `process-3 ran ${want.lost.length} tasks`);
  // The property the spread of standbys brings: more than one survivor takes over tasks whose
  // state it already had, instead of one partner taking over everything.
  const promoters = Object.entries(f.by).filter(([, p]) => p.promoted.length > 0);
  assert.ok(promoters.length > 1, `more than one survivor promoted a standby: ${JSON.stringify(f.by)}`);
  assert.ok(Object.values(f.by).every((p) => p.promoted.length + p.fresh.length < want.lost.length), 'no single survivor took over all of process-3\'s tasks');
  assert.equal(f.survivors, 5);
  // The map after the failure: every task has an owner among the survivors.
  const owners = await page.$$eval('.tm-cell', (els) => els.map((e) => e.dataset.owner));
  assert.equal(owners.length, 24);
  assert.ok(owners.every((o) => o && !crashed.includes(o)), 'every task runs on a survivor');
  await shot(page, 'failover-process-failure-1280x800');
  // Before the crash, the note told where process-3's standbys sat: on more than one process.
  const spread = saved.steps.slice(0, saved.steps.findIndex((st) => st.event === 'crash')).findLast((st) => st.event === 'note');
  const on = /their standbys sit on (\d+) other process/.exec(spread?.note ?? '');
  assert.ok(on && Number(on[1]) > 1, `the note before the crash: ${spread?.note}`);
});

// Browser tests of offset commits in the playground: the member cards' Commit, Commit at old
// epoch and Commit as zombie, in both dialects, checked against the Node coordinator: the
// committed offsets the page shows (table and task map) are the Node outputs' offset records
// folded, each named by the client whose commit wrote it; a refused commit shows the codes Node
// answered, per partition. Run from playground.test.mjs (one browser for every test).

import assert from 'node:assert/strict';
import { BASE, DESKTOP, checkAgainstNode, choosePreset, counter, download, nodeRun, openPage, shot, test } from './harness.mjs';

const NAMES = { 25: 'UNKNOWN_MEMBER_ID', 113: 'STALE_MEMBER_EPOCH' };

/**
 * The page's saved steps run in Node up to its cursor: every output, and the group's offsets
 * folded from the offset records (type 1; a tombstone removes), each with the label of the
 * client whose commit wrote it and the epoch it committed at.
 */
async function nodeOffsets(page, groupId = 'orders-app') {
  const { data: saved } = await download(page, 'save');
  const steps = saved.steps.slice(0, saved.cursor ?? saved.steps.length);
  const withInput = steps.filter((st) => st.input);
  const run = nodeRun(saved.config, withInput.map((st) => st.input));
  const outputs = run.outputs.map((o) => JSON.parse(o));
  const offsets = {};
  withInput.forEach((st, k) => {
    for (const r of outputs[k].records) {
      if (r.key.type !== 1 || r.key.data.group !== groupId) continue;
      const p = `${r.key.data.topic}-${r.key.data.partition}`;
      if (r.value === null) delete offsets[p];
      else offsets[p] = { offset: String(r.value.data.offset), by: st.actor, epoch: String(st.input.request.generationIdOrMemberEpoch) };
    }
  });
  return { saved, withInput, outputs, offsets, snapshot: run.snapshot };
}

/** What the offsets table and the task map show. */
async function shownOffsets(page) {
  return page.evaluate(() => {
    const rows = {};
    for (const tr of document.querySelectorAll('table.offsets tbody tr')) {
      rows[tr.dataset.partition] = {
        offset: tr.querySelector('[data-field="offset"]').textContent.trim(),
        by: tr.querySelector('[data-field="by"]').textContent.trim(),
        epoch: tr.querySelector('[data-field="epoch"]').textContent.trim(),
      };
    }
    const cells = {};
    for (const el of document.querySelectorAll('.tm-cell [data-field="committed"]')) {
      cells[el.closest('.tm-cell').dataset.task] = { offset: el.dataset.offset, by: el.dataset.by };
    }
    return { rows, cells };
  });
}

/** The table equals Node's folded offsets; each task cell shows its partition's (one source topic). */
async function assertOffsets(page, want, what) {
  const got = await shownOffsets(page);
  assert.deepEqual(got.rows, want, `${what}: committed offsets table`);
  const cells = {};
  for (const [p, o] of Object.entries(want)) cells[`0_${p.slice(p.lastIndexOf('-') + 1)}`] = { offset: o.offset, by: o.by };
  assert.deepEqual(got.cells, cells, `${what}: committed offsets in the task map`);
}

/** The per-partition error codes Node answered to the page's last step (an OffsetCommit). */
function lastCommitCodes(node) {
  const input = node.withInput.at(-1).input;
  assert.equal(input.type, 'OffsetCommit');
  const codes = {};
  for (const t of node.outputs.at(-1).response.topics) for (const p of t.partitions) codes[`${t.name}-${p.partitionIndex}`] = p.errorCode;
  return { input, codes };
}

/** The refused commit as the Why pane, the timeline and the client show it, against Node's codes. */
async function assertRefused(page, node, code, client, what) {
  const { codes } = lastCommitCodes(node);
  assert.ok(Object.keys(codes).length > 0, `${what}: partitions committed`);
  assert.deepEqual(new Set(Object.values(codes)), new Set([code]), `${what}: Node refuses every partition with ${code}`);
  const parts = Object.keys(codes).sort();
  const why = await page.textContent('#pane-why');
  for (const p of parts) assert.ok(why.includes(`${p} ${NAMES[code]} (${code})`), `${what}: the Why pane names ${p}'s error: ${why}`);
  assert.match(await page.textContent('.tl[aria-current="step"]'), new RegExp(`error ${code}`), `${what}: the step's badge`);
  const line = await page.textContent(`${client} [data-field="last-commit"]`);
  assert.ok(line.includes(`${NAMES[code]} (${code}) for ${parts.join(', ')}`), `${what}: the client's last commit: ${line}`);
  const refused = await page.$eval('#refused-commit', (el) => ({ step: el.dataset.step, codes: [...el.querySelectorAll('[data-code]')].map((x) => x.dataset.code), text: el.textContent }));
  assert.deepEqual(refused.codes, [String(code)], `${what}: the last refused commit under the table`);
  assert.equal(Number(refused.step), (await counter(page)).at, `${what}: the refused commit's step`);
}

test('offsets (draft): Commit from the page, offsets per task, a zombie\'s and a late commit refused, checked against Node', async () => {
  const page = await openPage();
  await page.click('[data-action="new"]');
  await page.waitForSelector('.empty');
  await page.fill('#topic-name', 'orders');
  await page.fill('#topic-partitions', '4');
  await page.click('#create-topic button[type="submit"]');
  await page.click('#add-member button[type="submit"]');
  // A has had one epoch and owns no task: neither commit can be sent.
  assert.equal(await page.isDisabled('.member-card[data-label="A"] [data-action="stale-commit"]'), true);
  assert.equal(await page.isDisabled('.member-card[data-label="A"] [data-action="commit"]'), true);
  await page.click('.member-card[data-label="A"] [data-action="initialize"]');
  await page.click('[data-action="create-requested"]');
  await page.click('.member-card[data-label="A"] [data-action="heartbeat"]');
  await page.click('#add-member button[type="submit"]');
  await page.click('[data-action="settle"]');
  assert.equal(await page.textContent('#group-state'), 'STABLE');
  // No commit yet: no offsets panel.
  assert.equal(await page.$('table.offsets'), null);
  // Both commit from their cards (A by keyboard: the focus stays on its button).
  await page.focus('.member-card[data-label="A"] [data-action="commit"]');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.key), 'commit:A');
  await page.click('.member-card[data-label="B"] [data-action="commit"]');
  let node = await nodeOffsets(page);
  assert.equal(Object.keys(node.offsets).length, 4, 'every partition committed once');
  assert.deepEqual(new Set(Object.values(node.offsets).map((o) => o.by)), new Set(['A', 'B']));
  await assertOffsets(page, node.offsets, 'after A and B commit');
  assert.match(await page.textContent('#pane-why'), /B committed at epoch \d+: orders-\d → \d+/);
  assert.match(await page.textContent('.member-card[data-label="B"] [data-field="last-commit"]'), /2 offsets committed/);
  // B stops heartbeating; its session timeout fences it and A takes its tasks.
  await page.click('.member-card[data-label="B"] [data-action="crash"]');
  await page.click('[data-action="advance"][data-ms="30000"]');
  await page.click('[data-action="heartbeat-all"]');
  await page.click('[data-action="next-timer"]');
  assert.match(await page.textContent('#pane-why'), /B was removed from the group/);
  await page.click('[data-action="settle"]');
  // B, a zombie, commits the tasks it held with its old member id and epoch: refused (25).
  await page.click('.outside [data-label="B"] [data-action="zombie-commit"]');
  node = await nodeOffsets(page);
  await assertRefused(page, node, 25, '.outside [data-label="B"]', 'zombie');
  assert.match(await page.textContent('#pane-why'), /The group has no member .*: it was removed at step \d+ \(no heartbeat arrived within the session timeout\)/);
  await assertOffsets(page, node.offsets, 'after the zombie commit (nothing written)');
  await shot(page, 'offsets-zombie-refused-1280x800');
  await shot(page, 'offsets-zombie-refused-full-1280', true);
  // A commit of A's at its previous epoch arrives late: the draft writes no per-task epochs, so refused (113).
  await page.click('.member-card[data-label="A"] [data-action="stale-commit"]');
  node = await nodeOffsets(page);
  const late = lastCommitCodes(node).input;
  assert.ok(late.request.generationIdOrMemberEpoch < node.snapshot.groups[0].members[0].memberEpoch, 'an older epoch');
  await assertRefused(page, node, 113, '.member-card[data-label="A"]', 'late commit');
  // A at its epoch: accepted, and the table names A for every partition now.
  await page.click('.member-card[data-label="A"] [data-action="commit"]');
  node = await nodeOffsets(page);
  assert.deepEqual(new Set(Object.values(node.offsets).map((o) => o.by)), new Set(['A']));
  await assertOffsets(page, node.offsets, 'after A commits as the owner of every task');
  const { saved } = await checkAgainstNode(page, 'offsets by hand');
  const kinds = new Set(saved.steps.map((st) => st.action ?? st.event));
  for (const k of ['commit', 'zombie-commit', 'stale-commit']) assert.ok(kinds.has(k), `the timeline has a ${k} step`);
  // Back in time the offsets are those of that point: before B's commit, only A's.
  const bCommit = saved.steps.findIndex((st) => st.action === 'commit' && st.actor === 'B');
  await page.click(`.tl[data-to="${bCommit}"]`);
  node = await nodeOffsets(page);
  assert.deepEqual(new Set(Object.values(node.offsets).map((o) => o.by)), new Set(['A']));
  await assertOffsets(page, node.offsets, 'before B\'s commit');
  await shot(page, 'offsets-draft-1280x800');
});

test('offsets (kafka-4.2): the zombie-commit preset, its refusals and offsets, in a shared link too', async () => {
  const page = await openPage();
  await choosePreset(page, 'zombie-commit');
  const { saved } = await checkAgainstNode(page, 'zombie-commit');
  assert.equal(saved.config.dialect, 'kafka-4.2');
  const node = await nodeOffsets(page);
  // Every partition's offset comes from its current owner (Node's snapshot), at its epoch.
  const owner = {};
  const label = Object.fromEntries(await page.$$eval('.member-card', (cs) => cs.map((c) => [c.dataset.memberId, c.dataset.label])));
  for (const m of node.snapshot.groups[0].members) {
    for (const t of m.assignment.activeTasks) for (const p of t.partitions) owner[`orders-${p}`] = { by: label[m.memberId], epoch: String(m.memberEpoch) };
  }
  assert.deepEqual(Object.fromEntries(Object.entries(node.offsets).map(([p, o]) => [p, { by: o.by, epoch: o.epoch }])), owner);
  await assertOffsets(page, node.offsets, 'zombie-commit preset');
  await shot(page, 'offsets-preset-1280x800');
  // The zombie's commit: every partition refused with UNKNOWN_MEMBER_ID, nothing written.
  const zombie = saved.steps.findIndex((st) => st.action === 'zombie-commit');
  const stale = saved.steps.findIndex((st) => st.action === 'stale-commit');
  assert.ok(zombie > 0 && stale > zombie);
  // The table's "last refused commit" is the late one (113); its link goes there.
  assert.equal(await page.getAttribute('#refused-commit', 'data-step'), String(stale + 1));
  await page.click('#refused-commit [data-action="jump"]');
  let at = await nodeOffsets(page);
  await assertRefused(page, at, 113, '.member-card[data-label="A"]', 'late commit in 4.2');
  assert.match(await page.textContent('#pane-why'), /Received member epoch \d+ is older than assignment epoch \d+ for task 0-\d/);
  await page.click(`.tl[data-to="${zombie + 1}"]`);
  at = await nodeOffsets(page);
  await assertRefused(page, at, 25, '.outside [data-label="B"]', 'zombie in 4.2');
  await assertOffsets(page, at.offsets, 'at the zombie commit');
  await shot(page, 'offsets-preset-zombie-1280x800');
  // A shared link of this point shows the same offsets and refusal.
  const before = await shownOffsets(page);
  await page.click('[data-action="share"]');
  await page.waitForSelector('#dlg-share[open]');
  const url = await page.inputValue('#share-url');
  assert.ok(url.startsWith(BASE));
  const other = await openPage(DESKTOP, url);
  assert.deepEqual(await shownOffsets(other), before, 'the shared page shows the same offsets');
  assert.equal(await other.getAttribute('#refused-commit', 'data-step'), String(zombie + 1));
});

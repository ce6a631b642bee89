// Browser tests of the whole protocol in the playground: both dialects, many groups, manual
// targets, big groups, charts, bytes, the configuration result, reassigned counts, and
// post-mortems from a log. Run from playground.test.mjs (one browser for every test).

import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { Coordinator, OUT, ROOT, checkAgainstNode, checkStep, choosePreset, counter, download, expected, fmtTime, memberIdsShown, nodeAtCursor, nodeHistory, nodeRun, openPage, shot, shown, tasks, test } from './harness.mjs';

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
  // The later releases from the same picker: the same steps, answered as each release does.
  for (const dialect of ['kafka-4.3', 'kafka-4.4']) {
    await page.selectOption('#dialect', dialect);
    await page.waitForFunction(() => /Step 0 of 0/.test(document.querySelector('#step-counter').textContent));
    await page.fill('#topic-name', 'orders');
    await page.click('#create-topic button[type="submit"]');
    await page.click('#add-member button[type="submit"]');
    await page.click('[data-action="create-requested"]');
    await page.click('[data-action="next-timer"]');
    await page.click('.member-card[data-label="A"] [data-action="heartbeat"]');
    const later = await checkAgainstNode(page, `${dialect} by hand`);
    assert.equal(later.saved.config.dialect, dialect);
    assert.equal(await page.textContent('#group-dialect'), dialect);
    assert.equal(await page.textContent('#group-state'), 'STABLE');
  }
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
  // The jump to the last step lands before the list is filtered: on a busy machine a click
  // during the previous step's redraw was once lost (the list then filtered an earlier step's
  // 134 members), so the jump is repeated until the counter shows it.
  const atEnd = (timeout) => page.waitForFunction((n) => (document.querySelector('#step-counter')?.textContent ?? '').startsWith(`Step ${n} of`), saved.steps.length, { timeout });
  for (let tries = 0; ; tries++) {
    try {
      await atEnd(5000);
      break;
    } catch (e) {
      if (tries >= 3) throw e;
      await page.click(`.tl[data-to="${saved.steps.length}"]`);
    }
  }
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

/** CRC-32C (Castagnoli), bit by bit: a v2 record batch's checksum, from its attributes on. */
function crc32c(bytes) {
  let crc = ~0 >>> 0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1));
  }
  return ~crc >>> 0;
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
    batch.writeUInt32BE(crc32c(batch.subarray(9)), 5);
    const pre = Buffer.alloc(12);
    pre.writeBigInt64BE(BigInt(offset), 0);
    pre.writeInt32BE(batch.length, 8);
    parts.push(pre, batch);
  }
  return Buffer.concat(parts);
}

test('post-mortem: a Kafka dump-log pasted, a raw segment dropped; the history told and replayed', async () => {
  const scenario = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/scenarios/k44-static-membership.json'), 'utf8'));
  const inputs = scenario.steps.map((st) => st.input);
  const { text, batches } = dumpLog(scenario.config, inputs);
  const page = await openPage();
  await page.click('[data-action="open-log"]');
  await page.waitForSelector('#dlg-log[open]');
  await page.fill('#log-text', text);
  await page.waitForFunction(() => /dump-log, kafka-4.4/.test(document.querySelector('#log-status').textContent));
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
  // Static members arrived in Kafka 4.4, whose new groups start at epoch 1 in memory (no record
  // shows it): the told history starts the group at 0.
  const first = (e, i) => (i === 0 && e.from === 1 ? 0 : e.from);
  assert.deepEqual(ev('GROUP_EPOCH_BUMPED').map((e) => [e.from, e.to]), ex('GROUP_EPOCH_BUMPED').map((e, i) => [first(e, i), e.to]));
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
  await page.waitForFunction(() => /segment, kafka-4.4/.test(document.querySelector('#log-status').textContent));
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

test('post-mortem cases: every file of tests/history-cases dropped on Load log, damage and warnings shown, refusals said', async () => {
  // The same files and expectations as `sgc history` and the npm reader (cases.json). The
  // package's modules read no compressed batch (they leave the decoders out): those cases say so.
  const dir = path.join(ROOT, 'tests/history-cases');
  const { cases } = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'));
  const page = await openPage();
  let shotTaken = false;
  for (const c of cases) {
    const want = { ...c, ...(c.wasm ?? {}) };
    await page.click('[data-action="open-log"]');
    await page.waitForSelector('#dlg-log[open]');
    await page.fill('#log-text', '');
    await page.setInputFiles('#log-file', path.join(dir, c.file));
    await page.waitForFunction(() => !/Paste a log/.test(document.querySelector('#log-status').textContent));
    const status = await page.textContent('#log-status');
    const bad = await page.evaluate(() => document.querySelector('#log-status').classList.contains('bad'));
    if (want.outcome === 'refused') {
      assert.ok(bad && status.includes(want.message ?? ''), `${c.file}: ${status}`);
      await page.click('#dlg-log [value="cancel"]');
      continue;
    }
    assert.ok(!bad, `${c.file}: ${status}`);
    assert.match(status, new RegExp(`, ${want.dialect.replace('.', '\\.')}\\)`), c.file);
    assert.equal(status.includes('Damaged at'), want.outcome === 'damaged', `${c.file}: ${status}`);
    if (want.outcome === 'damaged') assert.ok(status.includes(want.message), `${c.file}: ${status}`);
    assert.equal(status.includes('of a newer release left out'), (want.warnings ?? []).length > 0, `${c.file}: ${status}`);
    await page.click('[data-action="log-load"]');
    await page.waitForSelector('#pane-history #history-head');
    const damage = await page.$$eval('#history-damage li', (els) => els.map((e) => e.textContent));
    assert.equal(damage.length > 0, want.outcome === 'damaged', `${c.file}: ${damage}`);
    if (want.outcome === 'damaged') {
      const where = want.line !== undefined ? `line ${want.line}` : want.position !== undefined ? `byte ${want.position}` : '';
      assert.ok(damage[0].startsWith(where) && damage[0].includes(want.message), `${c.file}: ${damage[0]}`);
      if (!shotTaken) {
        await page.locator('#history-damage').scrollIntoViewIfNeeded();
        await shot(page, 'log-damaged-1280x800');
      }
      shotTaken = true;
    }
    const warned = await page.$$eval('#history-warnings li', (els) => els.length);
    assert.equal(warned, (want.warnings ?? []).length, c.file);
    // The page tells what the package tells in Node.
    const bytes = fs.readFileSync(path.join(dir, c.file));
    const told = nodeHistory(bytes[0] === 0 ? new Uint8Array(bytes) : bytes.toString('utf8'));
    const shownCodes = await page.$$eval('#pane-history .h-ev', (els) => els.map((e) => e.dataset.code));
    assert.deepEqual(shownCodes, told.groups.flatMap((g) => g.events.map((e) => e.code)), c.file);
    for (const code of want.events ?? []) assert.ok(shownCodes.includes(code), `${c.file}: ${code}`);
  }
  assert.ok(shotTaken, 'a damaged case was shown');
});

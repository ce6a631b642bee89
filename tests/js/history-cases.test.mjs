// The post-mortem cases (tests/history-cases/: files in Kafka's forms, cut, damaged, compressed,
// from newer releases) read by the npm package's `readLog` and `history`, each as cases.json
// says (`wasm` where the package differs): told, told up to the damage (named with its line or
// byte), or refused with why; the dialect found; a newer release's fields left out with a
// warning; and the same events as the clean file where the case says so. `sgc history` and the playground read the same files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, pkgModule } from './helpers.mjs';

const { history, readLog } = await pkgModule('node.mjs');
const DIR = join(ROOT, 'tests/history-cases');
const { cases } = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8'));

/** A case file as a user hands it over: text as a string, a raw segment as bytes. */
function load(file) {
  const bytes = readFileSync(join(DIR, file));
  return bytes[0] === 0 ? new Uint8Array(bytes) : bytes.toString('utf8');
}

const codes = (h) => h.groups.flatMap((g) => g.events.map((e) => `${g.groupId}:${e.code}`));
const times = (h) => h.groups.flatMap((g) => g.events.map((e) => e.timestampMs));

for (const file of cases) {
  // The package's modules leave the decoders of compressed batches out (`wasm`: what they say).
  const c = { ...file, ...(file.wasm ?? {}) };
  test(`${c.file}: ${c.case}`, () => {
    const data = load(c.file);
    if (c.outcome === 'refused') {
      assert.throws(() => history(data), (e) => e.message.includes(c.message ?? ''));
      assert.throws(() => readLog(data));
      return;
    }
    const h = history(data);
    const read = readLog(data);
    assert.equal(h.dialect, c.dialect);
    assert.equal(read.dialect, c.dialect);
    assert.deepEqual(read.damage, h.damage);
    if (c.outcome === 'told') assert.deepEqual(h.damage, []);
    else {
      assert.ok(h.damage.length > 0, 'the damage is reported');
      assert.ok(h.damage[0].message.includes(c.message), h.damage[0].message);
      if (c.line !== undefined) assert.equal(h.damage[0].line, c.line);
      if (c.position !== undefined) assert.equal(h.damage[0].position, c.position);
    }
    if (c.records !== undefined) assert.equal(h.records, c.records);
    assert.equal(h.warnings.length, (c.warnings ?? []).length, JSON.stringify(h.warnings));
    (c.warnings ?? []).forEach((w, i) => assert.ok(h.warnings[i].message.includes(w), h.warnings[i].message));
    for (const code of c.events ?? []) assert.ok(codes(h).some((x) => x.endsWith(`:${code}`)), `a ${code} event`);
    for (const text of c.textHas ?? []) assert.ok(h.groups.some((g) => g.events.some((e) => e.text.includes(text))), `an event saying ${text}`);
    for (const text of c.textLacks ?? []) assert.ok(!h.groups.some((g) => g.events.some((e) => e.text.includes(text))), `no event saying ${text}`);
    if (c.sameAs) {
      const them = history(load(c.sameAs));
      assert.deepEqual(codes(h), codes(them), `the events of ${c.sameAs}`);
      if (c.sameTimes) assert.deepEqual(times(h), times(them), `the times of ${c.sameAs}`);
    }
  });
}

test('readLog keeps a transactional batch producer on its records and lists the end markers', () => {
  for (const file of ['transactions.txt', 'transactions.log']) {
    const read = readLog(load(file));
    assert.equal(read.markers.length, 1, file);
    const [marker] = read.markers;
    assert.equal(marker.result, 'COMMIT');
    const producers = new Set(read.records.filter((r) => r.producerId !== undefined).map((r) => Number(r.producerId)));
    // Producer 8's transaction is committed by the marker; producer 30's stays open.
    assert.deepEqual([...producers].sort((a, b) => a - b), [8, 30], file);
    assert.equal(Number(marker.producerId), 8);
    const committedBefore = read.records.slice(0, marker.before).filter((r) => Number(r.producerId) === 8);
    assert.ok(committedBefore.length > 0, `${file}: the committed transaction's records come before its marker`);
    const told = history(load(file));
    const committed = told.groups.flatMap((g) => g.events).filter((e) => e.code === 'OFFSETS_COMMITTED' && e.transactional);
    assert.equal(committed.length, 1, `${file}: the transactional commit is told once, at its marker`);
  }
});

// Every tests/scenarios/*.json through the wasm package in Node gives exactly the outputs of
// the native core, committed as tests/scenarios/<name>.out.jsonl (one line per step).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PKG, SCENARIOS, SCENARIO_OUTPUTS } from './helpers.mjs';

const { Coordinator } = await import(join(PKG, 'node.mjs'));
const { mismatch, stringify, runScenario } = await import(join(PKG, 'scenario.mjs'));

const files = readdirSync(SCENARIOS).filter((f) => f.endsWith('.json')).sort();

test('there are scenario files', () => {
  assert.ok(files.length > 0, `no scenarios in ${SCENARIOS}`);
});

/** BigInts as Numbers (what JSON.parse would give for the same text). */
function numbersOnly(value) {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(numbersOnly);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numbersOnly(v)]));
  }
  return value;
}

for (const file of files) {
  const name = basename(file, '.json');
  test(`scenario ${name}`, async (t) => {
    const scenario = JSON.parse(readFileSync(join(SCENARIOS, file), 'utf8'));
    const expectedPath = join(SCENARIO_OUTPUTS, `${name}.out.jsonl`);
    assert.ok(existsSync(expectedPath), `${expectedPath} is missing: run \`make update-scenarios\``);
    const native = readFileSync(expectedPath, 'utf8').split('\n');
    if (native.at(-1) === '') native.pop();
    assert.equal(native.length, scenario.steps.length, 'one native output line per step');

    await t.test('handle(string) gives the native bytes and meets every expect', () => {
      const c = new Coordinator(scenario.config ?? null);
      scenario.steps.forEach((step, i) => {
        const out = c.handle(JSON.stringify(step.input));
        assert.equal(typeof out, 'string');
        assert.equal(out, native[i], `step ${i} (${step.input.type}) differs from the native output`);
        if (step.expect !== undefined) {
          const m = mismatch(step.expect, JSON.parse(out));
          assert.equal(m, null, `step ${i}: ${m}`);
        }
      });
      c.free();
    });

    await t.test('handle(object) equals the string form', () => {
      const c = new Coordinator(scenario.config ?? null);
      scenario.steps.forEach((step, i) => {
        const obj = c.handle(structuredClone(step.input));
        assert.equal(typeof obj, 'object');
        assert.deepStrictEqual(numbersOnly(obj), JSON.parse(native[i]), `step ${i}`);
        // Key order and BigInts too: written back as text, the object is the native line.
        assert.equal(stringify(obj), native[i], `step ${i}: stringify(object output)`);
        // Expectations are JSON numbers, so compare them with the object's BigInts as numbers.
        if (step.expect !== undefined) assert.equal(mismatch(step.expect, numbersOnly(obj)), null, `step ${i}`);
      });
      c.free();
    });

    await t.test('runScenario (scenario.mjs) agrees', () => {
      const run = runScenario(scenario, Coordinator);
      assert.equal(run.failure, null);
      assert.deepEqual(run.outputs, native);
    });
  });
}

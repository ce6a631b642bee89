// WASI tests under Node's node:wasi: every scenario through the reactor (sgc_* ABI) and
// through the command module gives exactly the native `sgc` outputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugin } from '../../examples/wasi-host/host.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sgc = process.env.SGC_BIN ?? join(root, 'target', 'debug', 'sgc');
const dir = join(root, 'tests', 'scenarios');
const scenarios = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ file: f, ...JSON.parse(readFileSync(join(dir, f), 'utf8')) }));

function native(lines, config) {
  const tmp = mkdtempSync(join(tmpdir(), 'sgc-native-'));
  try {
    writeFileSync(join(tmp, 'config.json'), JSON.stringify(config ?? {}));
    return execFileSync(sgc, ['--config', join(tmp, 'config.json')], { input: lines.join('\n') + '\n', encoding: 'utf8' });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The command module runs in its own Node process per scenario: Node 20's node:wasi crashes
// (SIGSEGV) now and then when one process starts many command instances.
function command(lines, config) {
  const tmp = mkdtempSync(join(tmpdir(), 'sgc-command-'));
  try {
    writeFileSync(join(tmp, 'in.jsonl'), lines.join('\n') + '\n');
    const args = ['--disable-warning=ExperimentalWarning', join(root, 'examples', 'wasi-host', 'host.mjs'), 'command', join(tmp, 'in.jsonl')];
    if (config != null) {
      writeFileSync(join(tmp, 'config.json'), JSON.stringify(config));
      args.push(join(tmp, 'config.json'));
    }
    return execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

test('there are scenarios', () => assert.ok(scenarios.length > 0));

for (const s of scenarios) {
  const lines = s.steps.map((step) => JSON.stringify(step.input));
  test(`reactor and command module match native: ${s.file}`, () => {
    const expected = native(lines, s.config ?? null);
    const plugin = new Plugin();
    const handle = plugin.create(s.config ?? null);
    const outputs = lines.map((l) => plugin.call(handle, l).output);
    plugin.destroy(handle);
    assert.equal(outputs.join('\n') + '\n', expected);
    assert.equal(command(lines, s.config ?? null), expected);
  });
}

test('a bad pointer is an error status, not a trap', () => {
  const plugin = new Plugin();
  const handle = plugin.create(null);
  assert.equal(plugin.x.sgc_call(handle, 0xfffff000, 8192), 2);
  assert.equal(JSON.parse(plugin.output()).error.code, 'INVALID_INPUT');
  assert.equal(plugin.call(handle, '{"nowMs": 1, "type": "AdvanceTime"}').status, 0);
});

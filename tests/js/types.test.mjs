// The hand-written declarations: `tsc --noEmit` (strict) over types-check.ts, which uses the
// package's API; and every runtime export is declared (and the other way round).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PKG, ROOT, TOOLS_BIN } from './helpers.mjs';

test('tsc --noEmit accepts types-check.ts (strict)', () => {
  try {
    execFileSync(join(TOOLS_BIN, 'tsc'), ['-p', join(ROOT, 'tests/js/tsconfig.json')], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});

/** Names a declaration file exports (`export declare function|const|class X`, `export { X }`). */
function declaredValues(path) {
  const text = readFileSync(path, 'utf8');
  const names = new Set();
  for (const m of text.matchAll(/^export declare (?:function|const|class) (\w+)/gm)) names.add(m[1]);
  for (const m of text.matchAll(/^export \{([^}]*)\} from/gm)) {
    for (const n of m[1].split(',')) names.add(n.trim());
  }
  return [...names].sort();
}

test('index.d.ts declares exactly what the entry points export', async () => {
  const declared = declaredValues(join(PKG, 'index.d.ts'));
  const esm = Object.keys(await import(join(PKG, 'node.mjs'))).sort();
  const cjs = Object.keys(createRequire(import.meta.url)(join(PKG, 'node.cjs'))).sort();
  assert.deepEqual(esm, declared, 'node.mjs');
  assert.deepEqual(cjs, declared, 'node.cjs');
  // web.mjs: read its export list without loading it (it needs `await ready()`).
  const web = readFileSync(join(PKG, 'web.mjs'), 'utf8');
  const webNames = new Set();
  for (const m of web.matchAll(/^export (?:async )?(?:function|const|class) (\w+)/gm)) webNames.add(m[1]);
  for (const m of web.matchAll(/^export \{([^}]*)\};/gm)) for (const n of m[1].split(',')) webNames.add(n.trim());
  assert.deepEqual([...webNames].sort(), declared, 'web.mjs');
});

test('testing/index.d.ts declares exactly what testing/index.mjs exports', async () => {
  const declared = declaredValues(join(PKG, 'testing/index.d.ts'));
  const actual = Object.keys(await import(join(PKG, 'testing/index.mjs'))).sort();
  assert.deepEqual(actual, declared);
});

test('scenario.d.ts declares exactly what scenario.mjs exports', async () => {
  const declared = declaredValues(join(PKG, 'scenario.d.ts'));
  const actual = Object.keys(await import(join(PKG, 'scenario.mjs'))).sort();
  assert.deepEqual(actual, declared);
});

// Shared paths of the JS suites: the assembled package (pkg/) and the native references.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PKG = process.env.SGC_PKG_DIR ? resolve(process.env.SGC_PKG_DIR) : join(ROOT, 'pkg');
export const SCENARIOS = join(ROOT, 'tests/scenarios');
/** The committed native outputs, `<name>.out.jsonl` beside each scenario (tests/scenarios.rs). */
export const SCENARIO_OUTPUTS = process.env.SGC_SCENARIO_OUTPUTS
  ? resolve(process.env.SGC_SCENARIO_OUTPUTS)
  : SCENARIOS;
/** The native `sgc` command (scripts/test-js.sh builds it and sets SGC_BIN). */
export const SGC_BIN = process.env.SGC_BIN ?? join(ROOT, 'target/debug/sgc');
export const TOOLS_BIN = join(ROOT, 'tools/node_modules/.bin');

if (!existsSync(join(PKG, 'package.json'))) {
  throw new Error(`no package in ${PKG}: run \`make pkg\` (scripts/build-pkg.sh) first`);
}

/** Imports a module of the package by its path inside pkg/. */
export function pkgModule(path) {
  return import(join(PKG, path));
}

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

// Kafka's wire face: shared by tests/js/wire.test.mjs and tests/wasi/wasi.test.mjs.

const big = (_, v) => (typeof v === 'bigint' ? `${v}n` : v);

/**
 * A value a wire response holds where the JSON face's has no key: the schema's default (a
 * uuid's is the zero UUID, 16 zero bytes, as a field a version does not have reads back).
 */
function isDefault(v) {
  if (v === null || v === false || v === '') return true;
  if (typeof v === 'number' || typeof v === 'bigint') return v == 0 || v == -1;
  const zeroUuid = (Array.isArray(v) || ArrayBuffer.isView(v)) && v.length === 16 && Array.from(v).every((b) => b === 0);
  return zeroUuid || (Array.isArray(v) && v.length === 0);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Why the JSON face's response `face` is not what the wire's reads back as (`wire`), or null. */
export function wireDiffers(face, wire, path, version = 0) {
  if (isObject(face) && isObject(wire)) {
    // 4.4 calls version 0's int32 field `acceptableRecoveryLagLegacy`; version 1 has its own.
    const legacy = version === 0 && 'acceptableRecoveryLagLegacy' in wire;
    for (const [k, fv] of Object.entries(face)) {
      const wk = k === 'acceptableRecoveryLag' && legacy ? 'acceptableRecoveryLagLegacy' : k;
      if (!(wk in wire)) return `${path}.${k}: not in the wire response`;
      // A version that names topics by id (OffsetCommit 10, TxnOffsetCommit 6) carries no
      // name: it reads back empty beside the topic's id, where the JSON face names the topic.
      if (k === 'name' && wire.name === '' && 'topicId' in wire && !isDefault(wire.topicId)) continue;
      const d = wireDiffers(fv, wire[wk], `${path}.${k}`, version);
      if (d !== null) return d;
    }
    for (const [k, wv] of Object.entries(wire)) {
      const known = k in face || (k === 'acceptableRecoveryLagLegacy' && 'acceptableRecoveryLag' in face);
      if (!known && !isDefault(wv)) return `${path}.${k}: ${String(wv)} in the wire response only`;
    }
    return null;
  }
  if (Array.isArray(face) && Array.isArray(wire) && face.length === wire.length) {
    for (let i = 0; i < face.length; i++) {
      const d = wireDiffers(face[i], wire[i], `${path}[${i}]`, version);
      if (d !== null) return d;
    }
    return null;
  }
  if (face === wire) return null;
  // A uuid: Kafka's text form (base64url, no padding) in JSON, its 16 bytes on the wire.
  const bytes = Array.isArray(wire) || ArrayBuffer.isView(wire);
  if (typeof face === 'string' && bytes && wire.length === 16 && Buffer.from(wire).toString('base64url') === face) return null;
  return `${path}: ${JSON.stringify(face, big)} through JSON, ${JSON.stringify(wire, big)} through the wire`;
}

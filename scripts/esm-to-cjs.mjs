// Writes an ES module that imports nothing as CommonJS (TypeScript's transpiler, from tools/):
//   node scripts/esm-to-cjs.mjs IN.mjs OUT.cjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)('../tools/node_modules/typescript');
const [input, output] = process.argv.slice(2);
const { outputText } = ts.transpileModule(readFileSync(input, 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, removeComments: false },
  fileName: 'module.js',
});
writeFileSync(output, `// Generated from ${input.split('/').pop()} by scripts/esm-to-cjs.mjs; edit that file.\n${outputText}`);

// `make bench-faces`, the browser face: the web build of the package (pkg/web.mjs) in headless
// Chromium (Debian's /usr/bin/chromium driven by playwright-core from tests/browser/), with
// strings, with objects and with Kafka's request frames. The page and the package are served from memory by request
// interception, so no server runs. A page cannot read CPU time: these are wall-clock times, the
// best of five passes of each kind, twice. Prints one JSON line per face: {"face", "us", "heartbeats"}.
//
//   node examples/bench-faces/chromium.mjs DIR [--pkg path/to/pkg]
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { workload } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { pkg: { type: 'string' } } });
const pkg = resolve(args.pkg ?? join(here, '../../pkg'));
const require = createRequire(join(here, '../../tests/browser/package.json'));
const { chromium } = require('playwright-core');
// A page's clock is fine-grained: 20,000 heartbeats a pass are enough, and the page gets no more
// of the workload than that through the debugging protocol.
const PAGE_HEARTBEATS = 20000;
const all = workload(positionals[0]);
const w = {
  ...all,
  steady: all.steady.slice(0, PAGE_HEARTBEATS),
  expect: all.expect.slice(0, PAGE_HEARTBEATS),
  // Byte arrays travel to the page as plain lists.
  frames: all.frames.slice(0, PAGE_HEARTBEATS).map((f) => Array.from(f)),
  expectFrames: all.expectFrames.slice(0, PAGE_HEARTBEATS).map((f) => Array.from(f)),
};

const ORIGIN = 'http://bench-faces.test';
const types = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><title>bench</title>' });
    const file = normalize(join(pkg, path));
    if (!file.startsWith(pkg)) return route.fulfill({ status: 404, body: '' });
    const ext = file.slice(file.lastIndexOf('.'));
    return route.fulfill({ contentType: types[ext] ?? 'application/octet-stream', body: readFileSync(file) });
  });
  await page.goto(`${ORIGIN}/`);
  const results = await page.evaluate(async (w) => {
    const { ready, Coordinator } = await import('/web.mjs');
    await ready();
    const out = [];
    const frames = w.frames.map((f) => new Uint8Array(f));
    for (const kind of ['strings', 'objects', 'frames', 'strings', 'objects', 'frames']) {
      const c = new Coordinator(w.config);
      for (const line of w.setup) c.handle(line);
      if (kind === 'frames') {
        let best = Infinity;
        for (let pass = 0; pass < 5; pass++) {
          const start = performance.now();
          for (let i = 0; i < frames.length; i++) {
            const o = c.handleRequest(frames[i], w.framesNow);
            if (pass === 0 && (!o.response || o.response.length !== w.expectFrames[i].length || o.response.some((b, j) => b !== w.expectFrames[i][j]))) {
              throw new Error(`frames: response ${i} differs from native`);
            }
          }
          best = Math.min(best, performance.now() - start);
        }
        out.push({ kind, us: (best * 1000) / frames.length, heartbeats: frames.length });
        continue;
      }
      const inputs = kind === 'strings' ? w.steady : w.steady.map((l) => JSON.parse(l));
      let best = Infinity;
      for (let pass = 0; pass < 5; pass++) {
        const start = performance.now();
        for (let i = 0; i < inputs.length; i++) {
          const o = c.handle(inputs[i]);
          if (pass === 0) {
            const text = typeof o === 'string' ? o : JSON.stringify(o);
            const want = kind === 'strings' ? w.expect[i] : JSON.stringify(JSON.parse(w.expect[i]));
            if (text !== want) throw new Error(`${kind}: output ${i} differs from native: ${text.slice(0, 200)}`);
          }
        }
        best = Math.min(best, performance.now() - start);
      }
      out.push({ kind, us: (best * 1000) / inputs.length, heartbeats: inputs.length });
    }
    return out;
  }, w);
  // Each kind ran twice (the first run of a kind may meet code not yet optimised): the best.
  const faces = { objects: 'Chromium, handle(object)', strings: 'Chromium, handle(string)', frames: 'Chromium, handleRequest(frame)' };
  for (const kind of ['objects', 'strings', 'frames']) {
    const runs = results.filter((r) => r.kind === kind);
    const face = faces[kind];
    console.log(JSON.stringify({ face, us: Math.min(...runs.map((r) => r.us)), heartbeats: runs[0].heartbeats }));
  }
} finally {
  await browser.close();
}

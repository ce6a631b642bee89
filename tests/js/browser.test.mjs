// The browser build in real headless Chromium (skipped where no Chromium is installed): the
// README's browser quick start, `await ready()` fetching the .wasm beside web.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { PKG } from './helpers.mjs';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((p) => existsSync(p));

const PAGE = `<!doctype html><html><head><link rel="icon" href="data:,"></head><body>
<pre id="out">pending</pre>
<script type="module">
import { ready, Coordinator, topologyId, version, isError } from './pkg/web.mjs';
const show = (v) => { document.getElementById('out').textContent = JSON.stringify(v); };
try {
  await ready();
  const c = new Coordinator();
  c.handle({ nowMs: 0, type: 'TopicMetadata', topics: [{ name: 'in', partitions: 2 }] });
  const out = c.handle({ nowMs: 1000, type: 'StreamsGroupHeartbeat',
    client: { clientId: 'app-1', clientHost: '/127.0.0.1' },
    request: { groupId: 'g', memberId: '', memberEpoch: 0, topologyId: 't1', processId: 'p1',
               rebalanceTimeoutMs: 300000, activeTasks: [], standbyTasks: [], warmupTasks: [] } });
  const text = c.handle('{"nowMs": 2000, "type": "AdvanceTime"}');
  show({ ok: !isError(out), memberId: out.response.memberId, version: version(), id: topologyId([]), text });
} catch (e) { show({ error: String(e) }); }
</script></body></html>`;

const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

test('the browser build runs in headless Chromium', { skip: CHROMIUM ? false : 'no Chromium installed' }, async () => {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/' || url.pathname === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    const rel = normalize(decodeURIComponent(url.pathname)).replace(/^\/pkg\//, '');
    const file = join(PKG, rel);
    if (!url.pathname.startsWith('/pkg/') || !file.startsWith(PKG) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    const dom = await new Promise((resolve, reject) => {
      execFile(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
        '--virtual-time-budget=10000', '--dump-dom', `http://127.0.0.1:${port}/index.html`],
      { timeout: 90000, maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    const m = dom.match(/<pre id="out">([^<]*)<\/pre>/);
    assert.ok(m, `no result in the page: ${dom.slice(0, 300)}`);
    const r = JSON.parse(m[1].replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.ok, true);
    assert.equal(r.memberId, 'h1FvL2YoMP32IqCiiHVn2g', 'the id of PROTOCOL 3.2 (same bytes as native)');
    assert.equal(r.id, '15f9c8b56a71d55e5666142f5c6d7b9f3d561d3cdfc941f35f5fd408ae2c4832');
    assert.equal(r.text, '{"response":null,"records":[],"topicsToCreate":[],"explain":[],"nextDeadlineMs":46000}');
  } finally {
    server.close();
  }
});

// `make bench-faces`, the Node faces: the npm package's Coordinator with objects, with strings
// and with Kafka's request frames (handleRequest), and sgc-reactor.wasm under node:wasi (ABI
// version 2's sgc_call2 and version 3's sgc_call_frame, examples/wasi-host/host.mjs).
// Prints one JSON line per face: {"face", "us", "heartbeats"}.
//
//   node examples/bench-faces/node.mjs DIR [--pkg path/to/pkg] [--only objects,strings,wire,node:wasi,node:wasi wire]
import { parseArgs } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sameBytes, workload } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { pkg: { type: 'string' }, only: { type: 'string' }, reactor: { type: 'string' } },
});
const w = workload(positionals[0]);
const pkg = resolve(args.pkg ?? join(here, '../../pkg'));
const only = args.only ? args.only.split(',') : ['objects', 'strings', 'wire', 'node:wasi', 'node:wasi wire'];

/** The process's CPU time in ms (Node 20 has no per-thread figure). */
function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Replays the setup, then times the steady inputs (best of five passes, in CPU time): the
 * JSON lines, or with `expect` the frames against the native response frames. */
function time(face, send, inputs, same, expect = w.expect) {
  for (const line of w.setup) send(line);
  let best = Infinity;
  for (let pass = 0; pass < 5; pass++) {
    const start = cpuMs();
    if (pass === 0) {
      inputs.forEach((input, i) => {
        const out = send(input);
        if (!same(out, expect[i])) throw new Error(`${face}: output ${i} differs from native: ${String(out).slice(0, 200)}`);
      });
    } else {
      for (const input of inputs) send(input);
    }
    best = Math.min(best, cpuMs() - start);
  }
  console.log(JSON.stringify({ face, us: (best * 1000) / inputs.length, heartbeats: inputs.length }));
}

if (only.includes('objects')) {
  const { Coordinator } = await import(join(pkg, 'node.mjs'));
  const c = new Coordinator(w.config);
  const objects = w.steady.map((l) => JSON.parse(l));
  time('Node, handle(object)', (x) => c.handle(typeof x === 'string' ? JSON.parse(x) : x), objects,
    (out, text) => JSON.stringify(out) === JSON.stringify(JSON.parse(text)));
}
if (only.includes('strings')) {
  const { Coordinator } = await import(join(pkg, 'node.mjs'));
  const c = new Coordinator(w.config);
  time('Node, handle(string)', (x) => c.handle(x), w.steady, (out, text) => out === text);
}
if (only.includes('node:wasi')) {
  const { Plugin } = await import('../wasi-host/host.mjs');
  const plugin = new Plugin(args.reactor ?? join(pkg, 'wasi/sgc-reactor.wasm'), { abi: 2 });
  const h = plugin.create(w.config);
  time('node:wasi, sgc_call2', (x) => plugin.call(h, x).output, w.steady, (out, text) => out === text);
}
if (only.includes('wire')) {
  const { Coordinator } = await import(join(pkg, 'node.mjs'));
  const c = new Coordinator(w.config);
  const send = (x) => (typeof x === 'string' ? c.handle(x) : c.handleRequest(x, w.framesNow).response);
  time('Node, handleRequest(frame)', send, w.frames, (out, frame) => out !== undefined && sameBytes(out, frame), w.expectFrames);
}
if (only.includes('node:wasi wire')) {
  const { Plugin } = await import('../wasi-host/host.mjs');
  const plugin = new Plugin(args.reactor ?? join(pkg, 'wasi/sgc-reactor.wasm'), { abi: 2 });
  const h = plugin.create(w.config);
  const send = (x) => (typeof x === 'string' ? plugin.call(h, x).output : plugin.callFrame(h, x, w.framesNow).frame?.subarray(4));
  time('node:wasi, sgc_call_frame', send, w.frames, (out, frame) => out !== undefined && sameBytes(out, frame), w.expectFrames);
}

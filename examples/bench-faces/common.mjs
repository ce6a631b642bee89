// The workload of `make bench-faces` (written by `cargo run --release --example faces -- DIR`)
// and the one way every JS face times it: replay setup.jsonl untimed, then time steady.jsonl
// five times, checking the first pass against the native outputs (expect.jsonl).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function workload(dir) {
  const lines = (name) => readFileSync(join(dir, name), 'utf8').split('\n').filter((l) => l.length > 0);
  return {
    config: JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')),
    setup: lines('setup.jsonl'),
    steady: lines('steady.jsonl'),
    expect: lines('expect.jsonl'),
    frames: splitFrames(readFileSync(join(dir, 'steady.frames'))),
    expectFrames: splitFrames(readFileSync(join(dir, 'expect.frames'))),
    framesNow: Number(readFileSync(join(dir, 'frames-now.txt'), 'utf8').trim()),
  };
}

/** Kafka's size-prefixed stream as its frames. */
export function splitFrames(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at < bytes.length;) {
    const size = view.getInt32(at);
    out.push(new Uint8Array(bytes.subarray(at + 4, at + 4 + size)));
    at += 4 + size;
  }
  return out;
}

/** Whether two byte arrays are equal. */
export function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

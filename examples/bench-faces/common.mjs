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
  };
}

#!/usr/bin/env node
// A Node host for the WASI modules of streams-group-coordinator, on node:wasi.
//
//   node host.mjs reactor INPUTS [CONFIG]   drive sgc-reactor.wasm through the sgc_* ABI
//   node host.mjs command INPUTS [CONFIG]   run sgc.wasm as a JSON-lines command
// Both print one output line per input line.
import { readFileSync, openSync, closeSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';

const here = dirname(fileURLToPath(import.meta.url));
const wasiDir = join(here, '..', '..', 'pkg', 'wasi');

/** One reactor instance; several coordinators (handles) may live in it. */
export class Plugin {
  constructor(path = join(wasiDir, 'sgc-reactor.wasm')) {
    const wasi = new WASI({ version: 'preview1', args: [], env: {} });
    const module = new WebAssembly.Module(readFileSync(path));
    this.instance = new WebAssembly.Instance(module, wasi.getImportObject());
    wasi.initialize(this.instance); // calls _initialize once (TOOLCHAIN P12, P14)
    this.x = this.instance.exports;
    if (this.x.sgc_abi_version_1() !== 1) throw new Error('unexpected ABI version');
    this.encoder = new TextEncoder();
    this.decoder = new TextDecoder();
  }

  withBytes(text, call) {
    const data = this.encoder.encode(text);
    if (data.length === 0) return call(0, 0);
    const ptr = this.x.sgc_alloc(data.length);
    if (ptr === 0) throw new Error('sgc_alloc failed');
    try {
      // A fresh view after every guest call: memory growth detaches old buffers (P13).
      new Uint8Array(this.x.memory.buffer, ptr, data.length).set(data);
      return call(ptr, data.length);
    } finally {
      this.x.sgc_free(ptr, data.length);
    }
  }

  output() {
    const ptr = this.x.sgc_output_ptr() >>> 0;
    const len = this.x.sgc_output_len() >>> 0;
    return this.decoder.decode(new Uint8Array(this.x.memory.buffer, ptr, len));
  }

  create(config) {
    const handle = this.withBytes(config == null ? '' : JSON.stringify(config), (p, n) => this.x.sgc_create(p, n));
    if (handle === 0) throw new Error(this.output());
    return handle;
  }

  call(handle, text) {
    const status = this.withBytes(text, (p, n) => this.x.sgc_call(handle, p, n));
    return { status, output: this.output() };
  }

  destroy(handle) {
    this.x.sgc_destroy(handle);
  }
}

/** Runs the command module over `inputText`; returns its stdout. */
export function runCommand(inputText, config, path = join(wasiDir, 'sgc.wasm')) {
  const dir = mkdtempSync(join(tmpdir(), 'sgc-wasi-'));
  try {
    writeFileSync(join(dir, 'in.jsonl'), inputText);
    const args = ['sgc'];
    if (config != null) {
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      args.push('--config', '/work/config.json');
    }
    const stdin = openSync(join(dir, 'in.jsonl'), 'r');
    const stdout = openSync(join(dir, 'out.jsonl'), 'w');
    try {
      const wasi = new WASI({ version: 'preview1', args, env: {}, stdin, stdout, preopens: { '/work': dir }, returnOnExit: true });
      const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(path)), wasi.getImportObject());
      const code = wasi.start(instance);
      if (code !== 0 && code !== undefined) throw new Error(`sgc.wasm exited with ${code}`);
    } finally {
      closeSync(stdin);
      closeSync(stdout);
    }
    return readFileSync(join(dir, 'out.jsonl'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [mode, inputs, configPath] = process.argv.slice(2);
  const config = configPath ? JSON.parse(readFileSync(configPath, 'utf8')) : null;
  const text = readFileSync(inputs, 'utf8');
  if (mode === 'command') {
    process.stdout.write(runCommand(text, config));
  } else if (mode === 'reactor') {
    const plugin = new Plugin();
    const handle = plugin.create(config);
    for (const line of text.split('\n').filter((l) => l.trim())) {
      process.stdout.write(plugin.call(handle, line).output + '\n');
    }
  } else {
    console.error('usage: node host.mjs reactor|command INPUTS [CONFIG]');
    process.exit(2);
  }
}

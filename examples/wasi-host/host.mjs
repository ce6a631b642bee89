#!/usr/bin/env node
// A Node host for the WASI modules of streams-group-coordinator, on node:wasi.
//
//   node host.mjs reactor INPUTS [CONFIG]   drive sgc-reactor.wasm through the sgc_* ABI
//   node host.mjs command INPUTS [CONFIG]   run sgc.wasm as a JSON-lines command
// Both print one output line per input line. `Plugin.callFrame` is a broker's way in (ABI
// version 3): Kafka's request frames, as they arrive on a connection; `routeRequest`,
// `mergeResponses`, `errorResponse`, `answerApiVersions` and `isMine` route them to the
// coordinators of its partitions (ABI version 4, the host kit).
import { readFileSync, openSync, closeSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';

const here = dirname(fileURLToPath(import.meta.url));
const wasiDir = join(here, '..', '..', 'pkg', 'wasi');

/** Unpacks an sgc_call2 result (a BigInt) into status, output address and length. */
export function unpack(result) {
  const r = BigInt.asUintN(64, result);
  return { status: Number(r >> 62n), ptr: Number(r & 0xffffffffn), len: Number((r >> 32n) & 0x3fffffffn) };
}

// The hot path unpacks through these instead: storing the BigInt into a 64-bit array and
// reading its two 32-bit halves costs no BigInt arithmetic, each step of which allocates.
const packed64 = new BigUint64Array(1);
const packed32 = new Uint32Array(packed64.buffer);
const [LOW, HIGH] = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? [0, 1] : [1, 0]; // host byte order

/**
 * One reactor instance; several coordinators (handles) may live in it.
 *
 * With ABI version 2 (the default when the module exports `sgc_abi_version_2`) a request is one
 * export call: the input is encoded straight into one reusable guest buffer (`encodeInto`, grown
 * with `sgc_realloc`), `sgc_call2` answers status, address and length in one i64, and the output
 * is decoded straight from linear memory. `abi: 1` drives the version 1 exports.
 */
export class Plugin {
  constructor(path = join(wasiDir, 'sgc-reactor.wasm'), { abi } = {}) {
    const wasi = new WASI({ version: 'preview1', args: [], env: {} });
    const module = new WebAssembly.Module(readFileSync(path));
    this.instance = new WebAssembly.Instance(module, wasi.getImportObject());
    wasi.initialize(this.instance); // calls _initialize once (TOOLCHAIN P12, P14)
    this.x = this.instance.exports;
    if (this.x.sgc_abi_version_1() !== 1) throw new Error('unexpected ABI version');
    const hasV2 = typeof this.x.sgc_abi_version_2 === 'function' && this.x.sgc_abi_version_2() === 2;
    this.abi = abi ?? (hasV2 ? 2 : 1);
    if (this.abi === 2 && !hasV2) throw new Error('the module does not export ABI version 2');
    this.hasV3 = typeof this.x.sgc_abi_version_3 === 'function' && this.x.sgc_abi_version_3() === 3;
    this.hasV5 = typeof this.x.sgc_abi_version_5 === 'function' && this.x.sgc_abi_version_5() === 5;
    this.encoder = new TextEncoder();
    this.decoder = new TextDecoder();
    this.buf = 0; // the reusable input buffer (version 2)
    this.cap = 0;
    this.view = new Uint8Array(this.x.memory.buffer);
    this.input = this.view.subarray(0, 0); // a view of exactly the input buffer
  }

  /**
   * A view of all of linear memory, re-made when growth detached the old one (P13). Growth
   * detaches the old `ArrayBuffer`, whose views then have length 0: checking that is cheaper
   * than reading `memory.buffer` (a call into the engine) on every request.
   */
  bytes() {
    if (this.view.length === 0) this.view = new Uint8Array(this.x.memory.buffer);
    return this.view;
  }

  /** Grows the reusable input buffer to at least `n` bytes with one sgc_realloc. */
  grow(n) {
    const cap = Math.max(n, 2 * this.cap, 4096);
    const ptr = this.x.sgc_realloc(this.buf, this.cap, cap) >>> 0;
    if (ptr === 0) throw new Error('sgc_realloc failed');
    this.buf = ptr;
    this.cap = cap;
    this.input = this.bytes().subarray(ptr, ptr + cap);
  }

  /**
   * Encodes `text` into the input buffer in place; returns its length in bytes. The view of
   * the buffer is kept between requests (making one per call cost more than the encoding) and
   * re-made only when the buffer moved or memory grew.
   */
  put(text) {
    for (;;) {
      if (this.cap > 0) {
        if (this.input.length === 0) this.input = this.bytes().subarray(this.buf, this.buf + this.cap);
        const { read, written } = this.encoder.encodeInto(text, this.input);
        if (read === text.length) return written;
      }
      this.grow(text.length * 3); // enough for any UTF-16 text as UTF-8
    }
  }

  /** One sgc_call2 with whatever pointer and length: { status, output }. */
  call2Raw(handle, ptr, len) {
    packed64[0] = this.x.sgc_call2(handle, ptr, len);
    const at = packed32[LOW];
    const hi = packed32[HIGH];
    return { status: hi >>> 30, output: this.decoder.decode(this.bytes().subarray(at, at + (hi & 0x3fffffff))) };
  }

  /** Writes `bytes` (a Uint8Array) into the input buffer; returns its length. */
  putBytes(bytes) {
    if (bytes.length > this.cap) this.grow(bytes.length);
    if (this.input.length === 0) this.input = this.bytes().subarray(this.buf, this.buf + this.cap);
    this.input.set(bytes);
    return bytes.length;
  }

  /** A version 2 or 3 answer (a BigInt): { status, bytes }, the bytes a copy of the output. */
  answer(result) {
    packed64[0] = result;
    const at = packed32[LOW];
    const hi = packed32[HIGH];
    return { status: hi >>> 30, bytes: this.bytes().slice(at, at + (hi & 0x3fffffff)) };
  }

  /**
   * Version 3: one Kafka request frame (a Uint8Array: header and body, without the 4-byte size)
   * at `nowMs` from `clientHost`, with one `sgc_call_frame`. Status 0 answers `{ status, frame,
   * fields }`: `frame` the response with its 4-byte size before it (the bytes to write to the
   * connection), `fields` the output's records, topicsToCreate, explain and nextDeadlineMs
   * (parsed when first read: a broker that only writes the frame parses nothing); any other
   * status `{ status, error }`.
   */
  callFrame(handle, frame, nowMs, clientHost = '') {
    if (!this.hasV3) throw new Error('the module does not export ABI version 3');
    // The frame goes straight into the guest's buffer, the client's address (if any) after it.
    let input = frame;
    if (clientHost !== '') {
      const host = this.encoder.encode(clientHost);
      input = new Uint8Array(frame.length + host.length);
      input.set(frame);
      input.set(host, frame.length);
    }
    const ptr = input.length === 0 ? 0 : (this.putBytes(input), this.buf);
    const hostLen = input.length - frame.length;
    return this.callAnswer(this.x.sgc_call_frame(handle, ptr, frame.length, BigInt(nowMs), ptr + frame.length, hostLen));
  }

  /**
   * Version 5: `callFrame` behind Kafka's authorization, the principal allowed what
   * `decisions` grants (the allow-list: an object or its JSON text, docs/authorization.md),
   * with one `sgc_call_frame_authorized`. Answers as `callFrame`.
   */
  callFrameAuthorized(handle, frame, nowMs, decisions, clientHost = '') {
    if (!this.hasV5) throw new Error('the module does not export ABI version 5');
    // One buffer: the frame, the client's address, the decisions.
    const host = this.encoder.encode(clientHost);
    const text = this.encoder.encode(typeof decisions === 'string' ? decisions : JSON.stringify(decisions));
    const input = new Uint8Array(frame.length + host.length + text.length);
    input.set(frame);
    input.set(host, frame.length);
    input.set(text, frame.length + host.length);
    const ptr = input.length === 0 ? 0 : (this.putBytes(input), this.buf);
    const at = (offset, len) => (len === 0 ? 0 : ptr + offset);
    const result = this.x.sgc_call_frame_authorized(handle, at(0, frame.length), frame.length, BigInt(nowMs),
      at(frame.length, host.length), host.length, at(frame.length + host.length, text.length), text.length);
    return this.callAnswer(result);
  }

  /** A version 3 or 5 frame call's answer: `{ status, frame, fields }` or `{ status, error }`. */
  callAnswer(result) {
    const { status, bytes } = this.answer(result);
    if (status !== 0) return { status, error: JSON.parse(this.decoder.decode(bytes)).error };
    const size = new DataView(bytes.buffer, bytes.byteOffset).getInt32(0);
    const decoder = this.decoder;
    let fields;
    return {
      status,
      frame: bytes.subarray(0, 4 + size),
      get fields() {
        fields ??= JSON.parse(decoder.decode(bytes.subarray(4 + size)));
        return fields;
      },
    };
  }

  /** Version 3: the request frame of a JSON input (text or object): { status, frame } or { status, error }. */
  encodeRequest(handle, input, apiVersion, correlationId) {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    const n = this.put(text);
    const { status, bytes } = this.answer(this.x.sgc_encode_request(handle, this.buf, n, apiVersion, correlationId));
    return status === 0 ? { status, frame: bytes } : { status, error: JSON.parse(this.decoder.decode(bytes)).error };
  }

  /** Version 3: a response frame (without its size) read back: { status, correlationId, response } or { status, error }. */
  decodeResponse(handle, apiKey, apiVersion, frame) {
    const n = frame.length === 0 ? 0 : this.putBytes(frame);
    const { status, bytes } = this.answer(this.x.sgc_decode_response(handle, apiKey, apiVersion, n === 0 ? 0 : this.buf, n));
    const out = JSON.parse(this.decoder.decode(bytes));
    return status === 0 ? { status, ...out } : { status, error: out.error };
  }

  /**
   * Writes the byte arrays `chunks` one after the other into the input buffer; returns where
   * each starts and its length, `[[ptr, len], ...]`.
   */
  putChunks(...chunks) {
    const all = concat(chunks);
    if (all.length === 0) return chunks.map(() => [0, 0]);
    this.putBytes(all);
    let at = this.buf;
    return chunks.map((c) => [(at += c.length) - c.length, c.length]);
  }

  /** A version 4 answer whose output is a response frame after its size: { status, frame } or { status, error }. */
  frameAnswer(result) {
    const { status, bytes } = this.answer(result);
    return status === 0 ? { status, frame: bytes } : { status, error: JSON.parse(this.decoder.decode(bytes)).error };
  }

  /**
   * Version 4 (the host kit): where a request frame goes among `partitions` partitions:
   * `{ status, route, apiKey, apiVersion }` with `groupId` and `partition` (route `group`) or
   * `parts`, `[{ partition, frame }]` (routes `groups` and `everyPartition`); or `{ status, error }`.
   */
  routeRequest(handle, frame, partitions) {
    const [[ptr, len]] = this.putChunks(frame);
    const { status, bytes } = this.answer(this.x.sgc_route_request(handle, ptr, len, partitions));
    if (status !== 0) return { status, error: JSON.parse(this.decoder.decode(bytes)).error };
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const n = view.getInt32(0);
    const head = JSON.parse(this.decoder.decode(bytes.subarray(4, 4 + n)));
    let at = 4 + n;
    for (const part of head.parts ?? []) {
      const size = view.getInt32(at);
      part.frame = bytes.subarray(at + 4, at + 4 + size);
      at += 4 + size;
    }
    return { status, ...head };
  }

  /** Version 4: the parts' `responses` (frames without their size) of a split request merged: { status, frame }. */
  mergeResponses(handle, frame, partitions, responses) {
    const stream = responses.flatMap((r) => {
      const size = new Uint8Array(4);
      new DataView(size.buffer).setInt32(0, r.length);
      return [size, r];
    });
    const [f, s] = this.putChunks(frame, concat(stream));
    return this.frameAnswer(this.x.sgc_merge_responses(handle, f[0], f[1], partitions, s[0], s[1]));
  }

  /** Version 4: the response answering `frame` with `errorCode` for every group: { status, frame }. */
  errorResponse(handle, frame, errorCode) {
    const [[ptr, len]] = this.putChunks(frame);
    return this.frameAnswer(this.x.sgc_error_response(handle, ptr, len, errorCode));
  }

  /** Version 4: `ApiVersions` with the host's APIs (`[{ apiKey, minVersion, maxVersion }]`): { status, frame }. */
  answerApiVersions(handle, frame, apis = []) {
    const [f, a] = this.putChunks(frame, this.encoder.encode(JSON.stringify(apis)));
    return this.frameAnswer(this.x.sgc_answer_api_versions(handle, f[0], f[1], a[0], a[1]));
  }

  /** Version 4: whether a group is in the `owned` partitions: { status, partition, mine }. */
  isMine(handle, groupId, partitions, owned) {
    const [g, o] = this.putChunks(this.encoder.encode(groupId), this.encoder.encode(JSON.stringify(owned)));
    const { status, bytes } = this.answer(this.x.sgc_is_mine(handle, g[0], g[1], partitions, o[0], o[1]));
    const out = JSON.parse(this.decoder.decode(bytes));
    return status === 0 ? { status, ...out } : { status, error: out.error };
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
    if (this.abi === 2) {
      const n = text.length === 0 ? 0 : this.put(text);
      return this.call2Raw(handle, this.buf, n);
    }
    const status = this.withBytes(text, (p, n) => this.x.sgc_call(handle, p, n));
    return { status, output: this.output() };
  }

  destroy(handle) {
    this.x.sgc_destroy(handle);
  }
}

/** The byte arrays `chunks` one after the other. */
function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
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

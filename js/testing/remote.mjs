// A coordinator at a live endpoint (`sgc serve`, or a Kafka broker that is the group's
// coordinator) behind the interface a `Cluster` drives: each input goes out as a Kafka request
// frame over TCP, written and read back by the package's own codec, and comes back as an output
// without records (a broker keeps those to itself). The Cluster runs synchronously, so the
// socket lives in a worker thread and each call waits for its answer (`Atomics.wait`).

import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { Coordinator } from '../node.mjs';
import { toText } from './json.mjs';
import { taskKeys, tasksText } from './simulation.mjs';

/** The worker: one connection, one request at a time; a broken one is opened again. */
const WORKER = `
const { workerData } = require('node:worker_threads');
const net = require('node:net');
const { port, flag, host, tcpPort } = workerData;
let socket = null;
let buffer = Buffer.alloc(0);
let waiting = false;
function answer(message) {
  waiting = false;
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
function broken(why) {
  if (socket !== null) socket.destroy();
  socket = null;
  buffer = Buffer.alloc(0);
  if (waiting) answer({ error: why });
}
function drain() {
  if (!waiting || buffer.length < 4) return;
  const size = buffer.readInt32BE(0);
  if (buffer.length < 4 + size) return;
  const frame = new Uint8Array(buffer.subarray(4, 4 + size));
  buffer = buffer.subarray(4 + size);
  answer({ frame });
}
port.on('message', (frame) => {
  waiting = true;
  const head = Buffer.alloc(4);
  head.writeInt32BE(frame.length);
  const bytes = Buffer.concat([head, Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)]);
  if (socket !== null) {
    socket.write(bytes);
    return;
  }
  const s = net.connect({ host, port: tcpPort });
  socket = s;
  s.setNoDelay(true);
  s.on('connect', () => s.write(bytes));
  s.on('data', (d) => {
    buffer = buffer.length === 0 ? d : Buffer.concat([buffer, d]);
    drain();
  });
  s.on('error', (e) => { if (socket === s) broken(e.message); });
  s.on('close', () => { if (socket === s) broken('the endpoint closed the connection'); });
});
`;

/** An error of the connection to the endpoint (refused, closed, no answer in time). */
export class RemoteError extends Error {
  constructor(message) {
    super(message);
    this.name = 'RemoteError';
  }
}

/** `'host:port'` (an IPv6 host in brackets) as `{host, port}`. */
export function parseEndpoint(endpoint) {
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(String(endpoint));
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || m[1] === '' || !(port > 0 && port < 65536)) {
    throw new RangeError(`endpoint ${JSON.stringify(endpoint)} is not host:port`);
  }
  return { host: m[1], port };
}

/** Kafka's JSON form of a response, with 64-bit integers as numbers where they fit. */
function plain(value) {
  return JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v)) : v)));
}

/**
 * A coordinator at `endpoint` (`'host:port'`) speaking `dialect`'s wire protocol. `handle`
 * takes the inputs of the JSON face that are requests (heartbeats, describes, offset commits and
 * fetches, ...) and answers `{response, records: [], topicsToCreate: [], explain: [],
 * nextDeadlineMs: null}` as text; the endpoint keeps its own clock, so `nowMs` is not sent and
 * an input that is no request (`AdvanceTime`) changes nothing. Each request goes at the version
 * the input names (`apiVersion`) or else the newest the dialect serves that can carry it, as a
 * Kafka client picks (the header's client id is the input's `client.clientId`). Option: `timeoutMs` for an
 * answer (10,000).
 */
export class RemoteCoordinator {
  constructor(endpoint, { dialect = 'kafka-4.2', timeoutMs = 10000 } = {}) {
    this.endpoint = endpoint;
    this.address = parseEndpoint(endpoint);
    this.dialect = dialect;
    this.timeoutMs = timeoutMs;
    /** The codec: a local coordinator of the dialect, used only to write and read frames. */
    this.codec = new Coordinator({ dialect });
    /** Served versions by input type (the schema's name). */
    this.versions = new Map(this.codec.servedApis().map((a) => [a.name, a]));
    this.correlationId = 0;
    this.worker = null;
    /** Requests sent and answers read (for a test's own checks). */
    this.sent = 0;
  }

  #start() {
    const { port1, port2 } = new MessageChannel();
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    this.port = port1;
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { port: port2, flag: this.flag, host: this.address.host, tcpPort: this.address.port },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
  }

  #stop() {
    if (this.worker === null) return;
    this.worker.terminate();
    this.port.close();
    this.worker = null;
  }

  /** Sends one request frame (without its size) and returns the response frame. */
  call(frame) {
    if (this.worker === null) this.#start();
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(frame);
    if (Atomics.wait(this.flag, 0, 0, this.timeoutMs) === 'timed-out') {
      // An answer that comes later must not be taken for the next request's.
      this.#stop();
      throw new RemoteError(`no answer from ${this.endpoint} within ${this.timeoutMs} ms`);
    }
    const message = receiveMessageOnPort(this.port)?.message;
    if (message === undefined) throw new RemoteError(`no answer from ${this.endpoint}`);
    if (message.error !== undefined) throw new RemoteError(`${this.endpoint}: ${message.error}`);
    return message.frame;
  }

  /**
   * The request frame of `input` (an object), its API key and version, or null for an input
   * that is no request. Throws the codec's error for an input it cannot write.
   */
  encode(input) {
    const served = this.versions.get(input.type);
    if (served === undefined) return null;
    // The newest version that can carry the input, as a Kafka client falls back (an offset
    // commit naming topics without their ids goes at v9, not v10).
    const newest = input.apiVersion ?? served.maxVersion;
    const oldest = input.apiVersion ?? served.minVersion;
    this.correlationId = (this.correlationId + 1) | 0;
    for (let version = newest; version >= oldest; version--) {
      const frame = this.codec.encodeRequest(input, version, this.correlationId);
      if (frame !== null) return { frame, apiKey: new DataView(frame.buffer, frame.byteOffset, 2).getInt16(0), version };
    }
    return null;
  }

  /** One input (object or JSON text) as the endpoint answers it, as JSON text. */
  handle(input) {
    const value = typeof input === 'string' ? JSON.parse(input) : input;
    let request;
    try {
      request = this.encode(value);
    } catch (e) {
      return toText({ error: { code: e.code ?? 'INVALID_INPUT', message: e.message, path: e.path ?? '' } });
    }
    if (request === null) {
      return toText({ response: null, records: [], topicsToCreate: [], explain: [], nextDeadlineMs: null });
    }
    const frame = this.call(request.frame);
    this.sent += 1;
    const decoded = this.codec.decodeResponse(request.apiKey, request.version, frame);
    if (decoded.correlationId !== this.correlationId) {
      throw new RemoteError(`${this.endpoint} answered correlation id ${decoded.correlationId} to request ${this.correlationId}`);
    }
    return toText({ response: plain(decoded.response), records: [], topicsToCreate: [], explain: [], nextDeadlineMs: null });
  }

  /** Closes the connection and frees the codec. */
  free() {
    this.#stop();
    this.codec.free();
  }
}

/** A described state (`'NotReady'`) as the view names states (`'NOT_READY'`). */
function stateName(described) {
  return described.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/**
 * The groups of a live endpoint as `StreamsGroupDescribe` shows them, standing in for the
 * records' `GroupView` where no records come back: a group's epochs, state, and members with
 * their epochs and current assignments. A group is described again when an input was sent since
 * its last description; each description is checked: assignment epoch <= group epoch, neither
 * gone back since the last one, no active task in two members' current assignments.
 */
export class DescribedView {
  constructor(cluster) {
    this.cluster = cluster;
    /** groupId -> `{atInput, group}` (group null when the endpoint knows none). */
    this.described = new Map();
    /** Epochs that went back, found when describing (reported once). */
    this.pending = [];
  }

  #describe(groupId) {
    const cached = this.described.get(groupId);
    if (cached !== undefined && cached.atInput === this.cluster.inputCount) return cached.group;
    const out = JSON.parse(this.cluster.coordinator.handle({
      type: 'StreamsGroupDescribe',
      request: { groupIds: [groupId], includeAuthorizedOperations: false },
    }));
    const d = out.response.groups[0];
    let group = null;
    if (d.errorCode === 0) {
      const members = new Map();
      for (const m of d.members) {
        members.set(m.memberId, {
          memberId: m.memberId,
          memberEpoch: m.memberEpoch,
          processId: m.processId,
          instanceId: m.instanceId,
          assignment: m.assignment,
          assignmentText: tasksText(m.assignment),
        });
      }
      group = { groupId, state: stateName(d.groupState), groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch, members };
      const before = cached?.group;
      if (before) {
        if (group.groupEpoch < before.groupEpoch) this.pending.push(`group ${groupId}: group epoch went back from ${before.groupEpoch} to ${group.groupEpoch}`);
        if (group.assignmentEpoch < before.assignmentEpoch) this.pending.push(`group ${groupId}: assignment epoch went back from ${before.assignmentEpoch} to ${group.assignmentEpoch}`);
      }
    } else if (d.errorCode !== 69) {
      throw new RemoteError(`describing group ${groupId}: error ${d.errorCode} ${d.errorMessage ?? ''}`);
    }
    this.described.set(groupId, { atInput: this.cluster.inputCount, group });
    return group;
  }

  /** The group as last described (described again if inputs went since), or null. */
  group(groupId) {
    return this.#describe(groupId);
  }

  /** The group's state in the view's names (`'STABLE'`, `'NOT_READY'`, ...), or null. */
  state(groupId) {
    return this.#describe(groupId)?.state ?? null;
  }

  /** No records come back from an endpoint: nothing to apply. */
  apply() {
    return [];
  }

  /** The violations of the groups the cluster's members use, as described now. */
  violations() {
    const groupIds = new Set([this.cluster.groupId]);
    for (const m of this.cluster.members.values()) groupIds.add(m.groupId);
    const found = this.pending.splice(0);
    for (const id of groupIds) {
      const g = this.#describe(id);
      if (g === null) continue;
      if (g.assignmentEpoch > g.groupEpoch) found.push(`group ${id}: assignment epoch ${g.assignmentEpoch} > group epoch ${g.groupEpoch}`);
      const owners = new Map();
      for (const m of g.members.values()) {
        for (const key of taskKeys(m.assignment.activeTasks)) {
          const other = owners.get(key);
          if (other !== undefined) found.push(`group ${id}: active task ${key} assigned to ${other} and ${m.memberId}`);
          owners.set(key, m.memberId);
        }
      }
    }
    return found;
  }
}

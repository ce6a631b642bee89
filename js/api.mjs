// The package's API over a wasm-bindgen glue module, shared by every entry point: web.mjs
// (ES module, browser and bundlers) and node.cjs (CommonJS, built from this file by
// scripts/build-pkg.sh). It imports nothing, so one source serves both formats.

/**
 * `value` as JSON would carry it: object properties whose value is `undefined` are left out
 * (array holes and `undefined` items become null), so `handle(object)` treats an input exactly
 * like `handle(JSON.stringify(object))`. The input itself is returned when it has none.
 */
export function withoutUndefined(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST_LEN) return value; // refused by the module for its length alone
    let copy = null;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      const w = v === undefined ? null : withoutUndefined(v);
      if (w !== v && copy === null) copy = value.slice(0, i);
      if (copy !== null) copy.push(w);
    }
    return copy ?? value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  let copy = null;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = value[k];
    const w = v === undefined ? undefined : withoutUndefined(v);
    if (w !== v || v === undefined) {
      if (copy === null) {
        copy = {};
        for (let j = 0; j < i; j++) copy[keys[j]] = value[keys[j]];
      }
    }
    if (copy !== null && w !== undefined) copy[k] = w;
  }
  return copy ?? value;
}

/**
 * The core's longest list (`MAX_LIST_LEN`): the module refuses a longer one for its length, before
 * reading an item, so the wrapper leaves such a list as it is (not walked, not written as text).
 */
const MAX_LIST_LEN = 1000000;
const WELL_FORMED = typeof String.prototype.isWellFormed === 'function';
const SURROGATE = /[\uD800-\uDFFF]/;
const MAX_PLAIN_DEPTH = 64;

/**
 * Whether `value` means the same as its `JSON.stringify` text: plain objects and arrays of
 * strings (well-formed UTF-16), booleans, null and safe integers, where `undefined` properties
 * are absent and `undefined` items null, as in JSON. Anything else (functions, symbols,
 * `BigInt`s, fractions, class instances, deep nesting, lists longer than the module accepts)
 * goes to the engine's field-by-field conversion, which answers exactly or refuses with a
 * boundary error.
 */
export function isPlainJson(value, depth = 0) {
  switch (typeof value) {
    case 'string':
      return WELL_FORMED ? value.isWellFormed() : !SURROGATE.test(value);
    case 'boolean':
      return true;
    case 'number':
      return Number.isSafeInteger(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_PLAIN_DEPTH) return false;
      if (Array.isArray(value)) {
        if (value.length > MAX_LIST_LEN) return false;
        for (let i = 0; i < value.length; i++) {
          const v = value[i];
          if (v !== undefined && !isPlainJson(v, depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const k in value) {
        if (!Object.prototype.hasOwnProperty.call(value, k)) return false;
        const v = value[k];
        if (v !== undefined && !isPlainJson(v, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** The longest text that `handle` sends through the module's input buffer (UTF-16 units). */
const BUFFERED_MAX = 16384;

/**
 * Whether `text` has a run of 16 or more digits, the only way an output can hold an integer
 * beyond 2^53 (a run inside a string only sends the output the slower exact way). Any such run
 * covers one of every 16th character, so only those are looked at, and the run around a digit
 * measured: a quarter of what the regular expression `/[0-9]{16}/` costs on a heartbeat's output.
 */
export function hasLongDigitRun(text) {
  const n = text.length;
  for (let i = 15; i < n; i += 16) {
    if (!isDigitCode(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigitCode(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < n && isDigitCode(text.charCodeAt(end))) end++;
    if (end - start >= 16) return true;
  }
  return false;
}

const isDigitCode = (c) => c >= 48 && c <= 57;

const NOT_PLAIN = -1;
const NO_ROOM = -2;
/** What `writePlainJson` may write past its `limit` before it notices: a number, a comma and
 * the closing brackets of `MAX_PLAIN_DEPTH` levels. */
const WRITE_SLACK = 128;
const encoder = new TextEncoder();

/**
 * Writes `value` into `out` (bytes) from `at` as the UTF-8 of `JSON.stringify(value)`, when
 * `isPlainJson(value)`: one walk does the check, the engine's stringify and `encodeInto`, and
 * no string is made between them (docs/performance.md). Answers where the text ends, or
 * `NOT_PLAIN` (-1) where `isPlainJson` answers false, or `NO_ROOM` (-2) when the text would
 * pass `limit` (up to `WRITE_SLACK` bytes past it may have been written by then).
 */
export function writePlainJson(value, out, at, limit, depth = 0) {
  switch (typeof value) {
    case 'string':
      return writeString(value, out, at, limit, true);
    case 'boolean':
      return at > limit ? NO_ROOM : writeAscii(value ? 'true' : 'false', out, at);
    case 'number':
      if (!Number.isSafeInteger(value)) return NOT_PLAIN;
      return at > limit ? NO_ROOM : writeInteger(value, out, at);
    case 'object': {
      if (at > limit) return NO_ROOM;
      if (value === null) return writeAscii('null', out, at);
      if (depth >= MAX_PLAIN_DEPTH) return NOT_PLAIN;
      if (Array.isArray(value)) {
        if (value.length > MAX_LIST_LEN) return NOT_PLAIN;
        out[at++] = 91; // [
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out[at++] = 44; // ,
          const v = value[i];
          if (v !== undefined) at = writePlainJson(v, out, at, limit, depth + 1);
          else at = at > limit ? NO_ROOM : writeAscii('null', out, at);
          if (at < 0) return at;
        }
        out[at++] = 93; // ]
        return at;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      out[at++] = 123; // {
      let first = true;
      for (const k in value) {
        if (!Object.prototype.hasOwnProperty.call(value, k)) return NOT_PLAIN;
        const v = value[k];
        if (v === undefined) continue;
        if (!first) out[at++] = 44; // ,
        first = false;
        // A key is written as stringify writes it, lone surrogates escaped (isPlainJson checks
        // only values).
        at = writeString(k, out, at, limit, false);
        if (at < 0) return at;
        out[at++] = 58; // :
        at = writePlainJson(v, out, at, limit, depth + 1);
        if (at < 0) return at;
      }
      out[at++] = 125; // }
      return at;
    }
    default:
      return NOT_PLAIN;
  }
}

/** A string, quoted; one without characters to escape or encode is copied a unit at a time. */
function writeString(s, out, at, limit, wellFormed) {
  const n = s.length;
  if (at + n + 2 > limit) return NO_ROOM;
  const start = at;
  out[at++] = 34; // "
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c > 126 || c === 34 || c === 92) {
      if (wellFormed && !(WELL_FORMED ? s.isWellFormed() : !SURROGATE.test(s))) return NOT_PLAIN;
      const quoted = JSON.stringify(s);
      const { read, written } = encoder.encodeInto(quoted, out.subarray(start, limit));
      return read < quoted.length ? NO_ROOM : start + written;
    }
    out[at++] = c;
  }
  out[at++] = 34;
  return at;
}

function writeAscii(text, out, at) {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

/** A safe integer's digits (`-0` as `0`, as JSON writes it). */
function writeInteger(n, out, at) {
  if (n < 0) {
    out[at++] = 45; // -
    n = -n;
  }
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits++;
  const end = at + digits;
  for (let i = end - 1; i >= at; i--) {
    out[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}

/**
 * `handle` through one reusable input buffer in the module's memory, when the glue has one
 * (the Node module, built for speed; docs/performance.md): text is encoded straight into the
 * buffer (`encodeInto` on a view kept between calls) and plain objects written there as their
 * JSON (`writePlainJson`), `handleBuffered` is one export call, and the output is decoded
 * where it lies. The glue's `handleText` writes the input a UTF-16 unit at a time and makes
 * three export calls. `text` and `plain` answer null for inputs longer than the buffer (so it
 * stays small), which then take the glue's own way; `plain` answers `NOT_PLAIN` for a value
 * that is not plain JSON. Null without the exports.
 */
function bufferedInput(glue) {
  if (typeof glue.wasmMemory !== 'function' || typeof glue.Coordinator.prototype.handleBuffered !== 'function') return null;
  let memory = null; // asked for on first use: the web glue has no memory before init()
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const cap = BUFFERED_MAX * 3; // room for any text of BUFFERED_MAX units as UTF-8
  let ptr = 0;
  let bytes = new Uint8Array(0);
  let input = bytes;
  // Memory growth detaches the old ArrayBuffer: its views then have length 0.
  const memoryBytes = () => (bytes.length === 0 ? (bytes = new Uint8Array(memory.buffer)) : bytes);
  const inputBytes = () => {
    if (ptr === 0) {
      ptr = glue.inputBuffer(cap);
      if (ptr === 0) return null;
      memory = glue.wasmMemory();
    }
    if (input.length === 0) input = memoryBytes().subarray(ptr, ptr + cap);
    return input;
  };
  const run = (coordinator, written) => {
    const at = coordinator.handleBuffered(written);
    if (at < 0) return glue.lastOutput();
    const start = at % 4294967296;
    const end = start + (at - start) / 4294967296;
    return decoder.decode(memoryBytes().subarray(start, end));
  };
  return {
    text(coordinator, text) {
      if (text.length > BUFFERED_MAX) return null;
      const into = inputBytes();
      return into === null ? null : run(coordinator, encoder.encodeInto(text, into).written);
    },
    plain(coordinator, value) {
      const into = inputBytes();
      if (into === null) return null;
      const end = writePlainJson(value, into, 0, cap - WRITE_SLACK);
      if (end === NOT_PLAIN) return NOT_PLAIN;
      return end < 0 ? null : run(coordinator, end);
    },
  };
}

/**
 * The package's API over `glue` (the wasm-bindgen module of one target): a `Coordinator`
 * whose `handle`, `replay` and `encodeRequest` take JSON text or plain objects (in objects,
 * properties that are `undefined` count as absent, as in JSON), and the glue's functions. The
 * wire face (`handleRequest`, `decodeResponse`, `servedApis`) and the host kit
 * (`routeRequest`, `mergeResponses`, `errorResponse`, `isMine`, `answerApiVersions`) are the
 * glue's own. The web module, built for size, leaves out what a broker or a test client in Node
 * uses (`handleRequest`, `decodeResponse` and the host kit: sgc-wasm's features `broker` and
 * `wire-json`); here they throw an `Error` with code `NOT_IN_WEB_BUILD` that says so.
 */
export function bind(glue) {
  const buffered = bufferedInput(glue);
  const nodeOnly = (name) => glue[name] ?? notInWebBuild(name);
  class Coordinator extends glue.Coordinator {
    handle(input) {
      if (typeof input === 'string') {
        const text = buffered === null ? null : buffered.text(this, input);
        return text ?? this.handleText(input);
      }
      // Plain JSON crosses as text, the cheapest way in and out of the module (docs/performance.md).
      if (buffered !== null) {
        const text = buffered.plain(this, input);
        if (text === NOT_PLAIN) return super.handle(withoutUndefined(input));
        // An integer beyond 2^53 needs a BigInt: the module then converts its output exactly.
        if (text !== null) return hasLongDigitRun(text) ? glue.lastOutputObject() : JSON.parse(text);
      }
      if (isPlainJson(input)) {
        const output = this.handleJsonObject(JSON.stringify(input));
        return typeof output === 'string' ? JSON.parse(output) : output;
      }
      return super.handle(withoutUndefined(input));
    }

    replay(records, nowMs) {
      return super.replay(typeof records === 'string' ? records : withoutUndefined(records), nowMs);
    }

    encodeRequest(input, apiVersion, correlationId) {
      return super.encodeRequest(typeof input === 'string' ? input : withoutUndefined(input), apiVersion, correlationId) ?? null;
    }
  }
  for (const name of ['handleRequest', 'decodeResponse']) {
    if (typeof glue.Coordinator.prototype[name] !== 'function') {
      Object.defineProperty(Coordinator.prototype, name, { value: notInWebBuild(`Coordinator.${name}`), writable: true, configurable: true });
    }
  }
  return {
    Coordinator,
    /** A coordinator from settings (an object of Kafka-named settings or JSON text). */
    createCoordinator: (config) => new Coordinator(config),
    topologyId: glue.topologyId,
    partitionFor: glue.partitionFor,
    version: glue.version,
    kip345InstanceId: glue.kip345InstanceId,
    streamsThreadInstanceId: glue.streamsThreadInstanceId,
    readLog: glue.readLog,
    history: glue.history,
    // The host kit: routing a broker's request frames to the coordinators of its partitions.
    routeRequest: nodeOnly('routeRequest'),
    mergeResponses: nodeOnly('mergeResponses'),
    errorResponse: nodeOnly('errorResponse'),
    isMine: nodeOnly('isMine'),
    answerApiVersions: nodeOnly('answerApiVersions'),
  };
}

/** A function the web module leaves out: it throws, saying where it is. */
function notInWebBuild(name) {
  return () => {
    const e = new Error(`${name} is in the Node build of streams-group-coordinator only: the web module leaves it out, for size (docs/performance.md)`);
    e.code = 'NOT_IN_WEB_BUILD';
    e.path = '';
    throw e;
  };
}

/** Whether `handle` answered a boundary error (`{error: {code, message, path}}`). */
export function isError(output) {
  return output !== null && typeof output === 'object' && 'error' in output;
}

/** Whether a record has the type id `type`. */
export function isRecordType(record, type) {
  return record.key.type === type;
}

const COMMON_ERRORS = {
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  OFFSET_METADATA_TOO_LARGE: 12,
  ILLEGAL_GENERATION: 22,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  GROUP_AUTHORIZATION_FAILED: 30,
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  GROUP_MAX_SIZE_REACHED: 81,
  UNSTABLE_OFFSET_COMMIT: 88,
  FENCED_INSTANCE_ID: 82,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  STALE_MEMBER_EPOCH: 113,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
};

/** Released Kafka's numbering: the same in 4.2, 4.3 and 4.4. */
const KAFKA_ERRORS = Object.freeze({
  ...COMMON_ERRORS,
  REBOOTSTRAP_REQUIRED: 129,
  STREAMS_INVALID_TOPOLOGY: 130,
  STREAMS_INVALID_TOPOLOGY_EPOCH: 131,
  STREAMS_TOPOLOGY_FENCED: 132,
});

/**
 * Kafka error codes by name, per dialect (PROTOCOL 2.17, 3.16, 4.11): the draft's streams
 * block 129-134 and released Kafka's 130-132 reuse numbers with other meanings.
 */
export const ErrorCodesByDialect = Object.freeze({
  'kip1071-draft': Object.freeze({
    ...COMMON_ERRORS,
    STREAMS_INVALID_TOPOLOGY: 129,
    STREAMS_INCONSISTENT_TOPOLOGY: 130,
    STREAMS_MISSING_SOURCE_TOPICS: 131,
    STREAMS_GROUP_UNINITIALIZED: 132,
    STREAMS_SHUTDOWN_APPLICATION: 133,
    STREAMS_INCONSISTENT_INTERNAL_TOPICS: 134,
  }),
  'kafka-4.2': KAFKA_ERRORS,
  'kafka-4.3': KAFKA_ERRORS,
  'kafka-4.4': KAFKA_ERRORS,
});

/** Kafka error codes by name, draft numbering (the default dialect). */
export const ErrorCodes = ErrorCodesByDialect['kip1071-draft'];

/** Released Kafka's record type ids (the schemas' `apiKey`s), the same in 4.2, 4.3 and 4.4. */
const KAFKA_RECORD_TYPES = Object.freeze({
  OFFSET_COMMIT: 1,
  CLASSIC_GROUP_METADATA: 2,
  GROUP_METADATA: 17,
  MEMBER_METADATA: 19,
  TARGET_ASSIGNMENT_METADATA: 20,
  TARGET_ASSIGNMENT_MEMBER: 21,
  CURRENT_MEMBER_ASSIGNMENT: 22,
  TOPOLOGY: 23,
});

/** Record type ids by name, per dialect (PROTOCOL 5.1; the schemas' key versions / `apiKey`s). */
export const RecordTypesByDialect = Object.freeze({
  'kip1071-draft': Object.freeze({
    OFFSET_COMMIT: 1,
    CLASSIC_GROUP_METADATA: 2,
    GROUP_METADATA: 15,
    PARTITION_METADATA: 16,
    MEMBER_METADATA: 17,
    TARGET_ASSIGNMENT_METADATA: 18,
    TARGET_ASSIGNMENT_MEMBER: 19,
    CURRENT_MEMBER_ASSIGNMENT: 20,
    TOPOLOGY: 21,
  }),
  'kafka-4.2': KAFKA_RECORD_TYPES,
  'kafka-4.3': KAFKA_RECORD_TYPES,
  'kafka-4.4': KAFKA_RECORD_TYPES,
});

/** Record type ids by name, draft numbering (the default dialect). */
export const RecordTypes = RecordTypesByDialect['kip1071-draft'];

const KAFKA_STATUSES = Object.freeze({
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
});

/** Heartbeat status codes by name, per dialect (PROTOCOL 3.10, 4.5). */
export const StatusCodesByDialect = Object.freeze({
  'kip1071-draft': Object.freeze({
    UNINITIALIZED_TOPOLOGY: 0,
    INCONSISTENT_TOPOLOGY: 1,
    MISSING_SOURCE_TOPICS: 2,
    MISSING_INTERNAL_TOPICS: 3,
    SHUTDOWN_APPLICATION: 4,
  }),
  'kafka-4.2': KAFKA_STATUSES,
  'kafka-4.3': KAFKA_STATUSES,
  // Status 6 goes to v1 heartbeats only (KAFKA-20744).
  'kafka-4.4': Object.freeze({ ...KAFKA_STATUSES, MISSING_CLIENT_TAGS: 6 }),
});

/** The name of a code in one of the tables above (`undefined` when it has none). */
export function codeName(table, code) {
  for (const [name, value] of Object.entries(table)) if (value === code) return name;
  return undefined;
}

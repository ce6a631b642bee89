// Node entry, CommonJS. The nodejs glue loads the wasm module synchronously on require.
'use strict';
const glue = require('./node/streams_group_coordinator.js');

/**
 * `value` as JSON would carry it: object properties whose value is `undefined` are left out
 * (array holes and `undefined` items become null), so `handle(object)` treats an input exactly
 * like `handle(JSON.stringify(object))`. The input itself is returned when it has none.
 */
function withoutUndefined(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
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
 * The coordinator. `handle` and `replay` take JSON text or plain objects; in objects, properties
 * that are `undefined` count as absent, as in JSON.
 */
class Coordinator extends glue.Coordinator {
  handle(input) {
    return super.handle(typeof input === 'string' ? input : withoutUndefined(input));
  }

  replay(records, nowMs) {
    return super.replay(typeof records === 'string' ? records : withoutUndefined(records), nowMs);
  }
}

/** Kafka error codes by name (draft numbering, PROTOCOL 2.17 and 3.16). */
const ErrorCodes = Object.freeze({
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  STREAMS_INVALID_TOPOLOGY: 129,
  STREAMS_MISSING_SOURCE_TOPICS: 131,
  STREAMS_INCONSISTENT_INTERNAL_TOPICS: 134,
});

/** The draft record type ids by name (PROTOCOL 5.1). */
const RecordTypes = Object.freeze({
  GROUP_METADATA: 15,
  PARTITION_METADATA: 16,
  MEMBER_METADATA: 17,
  TARGET_ASSIGNMENT_METADATA: 18,
  TARGET_ASSIGNMENT_MEMBER: 19,
  CURRENT_MEMBER_ASSIGNMENT: 20,
  TOPOLOGY: 21,
});

module.exports = {
  Coordinator,
  topologyId: glue.topologyId,
  partitionFor: glue.partitionFor,
  version: glue.version,
  kip345InstanceId: glue.kip345InstanceId,
  streamsThreadInstanceId: glue.streamsThreadInstanceId,
  readLog: glue.readLog,
  history: glue.history,
  ErrorCodes,
  RecordTypes,
  /** Whether a record has the type id `type`. */
  isRecordType: (record, type) => record.key.type === type,
  /** Resolves when the module is ready; in Node it always is. */
  ready: async () => {},
  /** In Node the module is loaded on require; kept for symmetry with the browser build. */
  initSync: () => {},
  /** A coordinator from settings (an object of Kafka-named settings or JSON text). */
  createCoordinator: (config) => new Coordinator(config),
  /** Whether `handle` answered a boundary error (`{error: {code, message, path}}`). */
  isError: (output) => output !== null && typeof output === 'object' && 'error' in output,
};

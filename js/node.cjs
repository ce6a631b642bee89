// Node entry, CommonJS. The nodejs glue loads the wasm module synchronously on require.
'use strict';
const glue = require('./node/streams_group_coordinator.js');

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
  Coordinator: glue.Coordinator,
  topologyId: glue.topologyId,
  partitionFor: glue.partitionFor,
  version: glue.version,
  ErrorCodes,
  RecordTypes,
  /** Whether a record has the type id `type`. */
  isRecordType: (record, type) => record.key.type === type,
  /** Resolves when the module is ready; in Node it always is. */
  ready: async () => {},
  /** In Node the module is loaded on require; kept for symmetry with the browser build. */
  initSync: () => {},
  /** A coordinator from settings (an object of Kafka-named settings or JSON text). */
  createCoordinator: (config) => new glue.Coordinator(config),
  /** Whether `handle` answered a boundary error (`{error: {code, message, path}}`). */
  isError: (output) => output !== null && typeof output === 'object' && 'error' in output,
};

// Node entry, CommonJS. The nodejs glue loads the wasm module synchronously on require;
// api.cjs is js/api.mjs in CommonJS form (scripts/build-pkg.sh).
'use strict';
const api = require('./api.cjs');

module.exports = {
  ...api.bind(require('./node/streams_group_coordinator.js')),
  ErrorCodes: api.ErrorCodes,
  ErrorCodesByDialect: api.ErrorCodesByDialect,
  RecordTypes: api.RecordTypes,
  RecordTypesByDialect: api.RecordTypesByDialect,
  StatusCodesByDialect: api.StatusCodesByDialect,
  codeName: api.codeName,
  isError: api.isError,
  isRecordType: api.isRecordType,
  /** Resolves when the module is ready; in Node it always is. */
  ready: async () => {},
  /** In Node the module is loaded on require; kept for symmetry with the browser build. */
  initSync: () => {},
};

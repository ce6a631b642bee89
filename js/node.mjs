// Node entry, ES module. It re-exports the CommonJS entry, so `import` and `require` share one
// wasm instance and one Coordinator class.
import api from './node.cjs';

export const {
  Coordinator, createCoordinator, topologyId, partitionFor, version, kip345InstanceId, streamsThreadInstanceId,
  readLog, history, routeRequest, mergeResponses, errorResponse, isMine, answerApiVersions,
  ErrorCodes, ErrorCodesByDialect, RecordTypes, RecordTypesByDialect, StatusCodesByDialect,
  codeName, isError, isRecordType, ready, initSync,
} = api;

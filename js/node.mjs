// Node entry, ES module. It re-exports the CommonJS entry, so `import` and `require` share one
// wasm instance and one Coordinator class.
import api from './node.cjs';

export const {
  Coordinator,
  topologyId,
  partitionFor,
  version,
  kip345InstanceId,
  streamsThreadInstanceId,
  readLog,
  history,
  ErrorCodes,
  RecordTypes,
  isRecordType,
  ready,
  initSync,
  createCoordinator,
  isError,
} = api;

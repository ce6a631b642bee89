// Browser (and bundler) entry: call `await ready()` once before using the coordinator, or
// `initSync({ module })` with the bytes or a compiled module.
import init, * as glue from './web/streams_group_coordinator.js';
import { bind } from './api.mjs';

export const { Coordinator, createCoordinator, topologyId, partitionFor, version, kip345InstanceId, streamsThreadInstanceId, readLog, history,
  routeRequest, mergeResponses, errorResponse, isMine, answerApiVersions } = bind(glue);
export { ErrorCodes, ErrorCodesByDialect, RecordTypes, RecordTypesByDialect, StatusCodesByDialect, codeName, isError, isRecordType } from './api.mjs';
export { initSync } from './web/streams_group_coordinator.js';

let loading;

/**
 * Loads the wasm module once. `moduleOrPath` may be a URL, a Response, bytes or a
 * WebAssembly.Module; by default the `.wasm` file beside the glue is fetched.
 */
export function ready(moduleOrPath) {
  loading ??= init(moduleOrPath === undefined ? undefined : { module_or_path: moduleOrPath });
  return loading.then(() => undefined);
}

// Browser (and bundler) entry: call `await ready()` once before using the coordinator.
import init, { Coordinator, topologyId, partitionFor, version, initSync } from './web/streams_group_coordinator.js';

let loading;

/**
 * Loads the wasm module once. `moduleOrPath` may be a URL, a Response, bytes or a
 * WebAssembly.Module; by default the `.wasm` file beside the glue is fetched.
 */
export function ready(moduleOrPath) {
  if (!loading) {
    loading = init(moduleOrPath === undefined ? undefined : { module_or_path: moduleOrPath });
  }
  return loading.then(() => undefined);
}

/** A coordinator from settings (an object of Kafka-named settings or JSON text). */
export function createCoordinator(config) {
  return new Coordinator(config);
}

export { Coordinator, topologyId, partitionFor, version, initSync };

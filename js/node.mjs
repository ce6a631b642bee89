// Node entry, ES module: the nodejs glue loads the wasm synchronously.
import glue from './node/streams_group_coordinator.js';

export const { Coordinator, topologyId, partitionFor, version } = glue;

/** Resolves when the module is ready; in Node it always is. */
export async function ready() {}

/** A coordinator from settings (an object of Kafka-named settings or JSON text). */
export function createCoordinator(config) {
  return new Coordinator(config);
}

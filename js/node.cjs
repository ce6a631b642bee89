// Node entry, CommonJS.
'use strict';
const glue = require('./node/streams_group_coordinator.js');

module.exports = {
  Coordinator: glue.Coordinator,
  topologyId: glue.topologyId,
  partitionFor: glue.partitionFor,
  version: glue.version,
  ready: async () => {},
  createCoordinator: (config) => new glue.Coordinator(config),
};

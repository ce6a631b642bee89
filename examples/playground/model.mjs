// The playground's model: simulated Streams clients, the timeline of inputs and the scenario
// formats, one module per concern (this file gathers them). No DOM here, so that the same code
// runs in Node.
//
// The coordinator is the real one (the web build); this file only decides what the simulated
// clients send and remembers what they were told. Everything shown at a point of the timeline is
// a function of the steps up to that point: a step is either an input for the coordinator (with
// the label of the simulated client that sent it) or a client-side event the coordinator never
// sees (a crash, a new topology in the application's code).

export * from './config.mjs';
export * from './names.mjs';
export * from './json.mjs';
export * from './tasks.mjs';
export * from './clients.mjs';
export * from './steps.mjs';
export * from './records.mjs';
export * from './timeline.mjs';
export * from './session.mjs';
export * from './formats.mjs';
export * from './explain.mjs';
export * from './failover.mjs';

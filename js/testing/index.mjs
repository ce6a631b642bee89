// Test tooling for Kafka Streams clients and brokers (Node).
//
// A `Cluster` owns one coordinator, a virtual clock, a topic image and simulated members that
// behave like a correct Streams client of the coordinator's dialect (the kip1071-draft protocol
// or a released Kafka's). Faults can be injected; invariants are checked after every input (by
// default); every input and output is traced and can be saved as a scenario file in the
// tests/scenarios format. Given an `endpoint`, the members talk to a live coordinator over TCP
// instead (`sgc serve`, or a broker), in wall-clock time.
//
// One module per concept: cluster.mjs (the cluster and its clock), member.mjs (a simulated
// member), faults.mjs (lost and delayed heartbeats), agenda.mjs (when members act), checks.mjs
// (what clients process, convergence), lag.mjs (task offsets), scenario-files.mjs (traces as
// scenario files), simulation.mjs (client rules and the group view, shared with the playground),
// remote.mjs (a live endpoint over TCP, and the group as its describe shows it).

export { mismatch, runScenario, stringify } from '../scenario.mjs';
export { GroupView, InvariantError, checkSnapshot, taskKeys } from './simulation.mjs';
export { SimulatedMember } from './member.mjs';
export { Cluster, DEFAULT_TOPOLOGY, createCluster } from './cluster.mjs';
export { loadScenario, runScenarioFile } from './scenario-files.mjs';
export { DescribedView, RemoteCoordinator, RemoteError, parseEndpoint } from './remote.mjs';

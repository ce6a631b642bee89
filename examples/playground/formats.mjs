// Scenario formats (the playground's own, tests/scenarios, JSON lines), share links, and the
// replayable part of a snapshot.

import { DEFAULT_APP, DEFAULT_CONFIG } from './config.mjs';
import { parseJson, toJson } from './json.mjs';

/** The replayable part of a snapshot (PROTOCOL 2.1 hard and derived state). */
export function hardState(snapshot) {
  return snapshot.groups.map((g) => ({
    groupId: g.groupId,
    state: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    topologyId: g.topologyId,
    // kafka-4.2 describes the configured subtopologies (partition counts resolved) once a
    // refresh has run, which a rebuilt group does at its next operation: compare the stored part.
    topology: g.topology && !Array.isArray(g.topology)
      ? { epoch: g.topology.epoch, subtopologies: (g.topology.subtopologies ?? []).map((st) => st.subtopologyId) }
      : g.topology,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      memberState: m.memberState,
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      topologyId: m.topologyId,
      processId: m.processId,
      clientTags: m.clientTags,
      userEndpoint: m.userEndpoint,
      assignment: m.assignment,
      targetAssignment: m.targetAssignment,
      pendingRevocation: m.pendingRevocation,
    })),
  }));
}

/**
 * Accepts the playground format, the `tests/scenarios` format (steps with `input`), a list of
 * inputs, or JSON lines of inputs (as in examples/demo/*.jsonl).
 */
export function normalizeScenario(data) {
  if (typeof data === 'string') {
    const text = data.trim();
    try {
      data = parseJson(text);
    } catch (e) {
      const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('//'));
      data = lines.map((l, i) => {
        try {
          return parseJson(l);
        } catch {
          throw new Error(`line ${i + 1} is not JSON: ${e.message}`);
        }
      });
    }
  }
  if (Array.isArray(data)) data = { name: 'Loaded inputs', steps: data.map((input) => ({ input })) };
  if (!data || typeof data !== 'object' || !Array.isArray(data.steps)) {
    throw new Error('not a scenario: expected an object with a "steps" list, a list of inputs, or JSON lines');
  }
  const steps = data.steps.map((s, i) => {
    if (s && typeof s === 'object' && (s.input || s.event)) {
      const step = {};
      if (s.input) step.input = s.input;
      if (s.event) step.event = s.event;
      for (const k of ['actor', 'action', 'note', 'topology', 'topologyEpoch']) if (s[k] !== undefined) step[k] = s[k];
      return step;
    }
    throw new Error(`step ${i} has neither "input" nor "event"`);
  });
  const app = { ...DEFAULT_APP, ...(data.app ?? {}) };
  if (!data.app) {
    // A scenario from elsewhere: take the group id and topology from its inputs.
    const first = steps.find((s) => s.input?.request?.groupId);
    if (first) app.groupId = first.input.request.groupId;
    const init = steps.find((s) => s.input?.type === 'StreamsGroupInitialize');
    if (init) app.topology = init.input.request.topology;
    const join42 = steps.find((s) => s.input?.request?.topology?.subtopologies);
    if (join42) {
      app.topology = join42.input.request.topology.subtopologies;
      app.topologyEpoch = join42.input.request.topology.epoch ?? 0;
    }
  }
  return {
    name: data.name ?? 'Loaded scenario',
    description: data.description ?? '',
    config: data.config ?? { ...DEFAULT_CONFIG },
    app,
    steps,
    cursor: data.cursor,
  };
}

// ---------------------------------------------------------------------------------------------
// Share links: the playground format, deflated and base64url-encoded, in the URL fragment.

function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

async function pipe(bytes, stream) {
  const s = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(s).arrayBuffer());
}

export async function encodeFragment(scenario) {
  const bytes = new TextEncoder().encode(toJson(scenario));
  if (typeof CompressionStream === 'function') {
    return `z=${toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')))}`;
  }
  return `s=${toBase64Url(bytes)}`;
}

/** The scenario in a fragment (`#z=...` deflated, `#s=...` plain), or null. */
export async function decodeFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  let bytes;
  if (params.get('z')) bytes = await pipe(fromBase64Url(params.get('z')), new DecompressionStream('deflate-raw'));
  else if (params.get('s')) bytes = fromBase64Url(params.get('s'));
  else return null;
  return parseJson(new TextDecoder().decode(bytes));
}

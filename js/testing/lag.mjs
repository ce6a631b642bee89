// Simulated lag: the changelog end offsets of stateful tasks and what each process's local
// stores have restored, which members report as `taskOffsets` and `taskEndOffsets` (PROTOCOL
// 3.3) when the cluster has `reportLag`. The cluster keeps the state (`endOffsets`,
// `localState`); these functions read and advance it.

import { taskKeys } from './simulation.mjs';

/** Stateful tasks (`"sub:partition"`) of `topology` over the topic image `topics`. */
export function statefulTasks(topology, topics) {
  const keys = [];
  for (const st of topology) {
    if ((st.stateChangelogTopics ?? []).length === 0) continue;
    let n = 0;
    for (const t of [...(st.sourceTopics ?? []), ...(st.repartitionSourceTopics ?? []).map((r) => r.name)]) {
      n = Math.max(n, topics.get(t) ?? 0);
    }
    for (let p = 0; p < n; p++) keys.push(`${st.subtopologyId}:${p}`);
  }
  return keys;
}

/**
 * What `member` reports: for each stateful task it holds, the offset its process's `store` has
 * restored (an active task is caught up; a standby or warm-up copy restores `restoreRate`
 * offsets per second since the store last moved) and the end offset; the process's first
 * running thread (`threads[0]`) also reports the stores of tasks no thread holds (state kept
 * on disk, e.g. across a restart). Moves `store` on to `now`.
 */
export function restoredOffsets(member, { store, threads, stateful, endOffsets, restoreRate, now }) {
  const held = new Set();
  const roles = [['active', member.owned.activeTasks], ['copy', member.owned.standbyTasks], ['copy', member.owned.warmupTasks]];
  for (const [role, list] of roles) {
    for (const key of taskKeys(list)) {
      if (!stateful.has(key)) continue;
      held.add(key);
      const end = endOffsets.get(key) ?? 0;
      const s = store.get(key) ?? { offset: 0, atMs: now };
      const offset = role === 'active' ? end : Math.min(end, s.offset + (restoreRate * (now - s.atMs)) / 1000);
      store.set(key, { offset: Math.floor(offset), atMs: now });
    }
  }
  if (threads[0] === member) {
    const heldByProcess = new Set(threads.flatMap((m) => [...taskKeys(m.owned.activeTasks), ...taskKeys(m.owned.standbyTasks), ...taskKeys(m.owned.warmupTasks)]));
    for (const key of store.keys()) if (!heldByProcess.has(key)) held.add(key);
  }
  const sorted = [...held].sort((a, b) => {
    const [sa, pa] = a.split(':');
    const [sb, pb] = b.split(':');
    return sa === sb ? Number(pa) - Number(pb) : (sa < sb ? -1 : 1);
  });
  const entry = (key, offset) => {
    const i = key.lastIndexOf(':');
    return { subtopologyId: key.slice(0, i), partition: Number(key.slice(i + 1)), offset };
  };
  return {
    taskOffsets: sorted.map((k) => entry(k, store.get(k).offset)),
    taskEndOffsets: sorted.map((k) => entry(k, endOffsets.get(k) ?? 0)),
  };
}

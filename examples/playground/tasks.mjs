// Tasks, kept as the key "subtopologyId_partition" (Kafka Streams' TaskId form).

export const ROLES = ['active', 'standby', 'warmup'];
export const LIST = { active: 'activeTasks', standby: 'standbyTasks', warmup: 'warmupTasks' };

// ---------------------------------------------------------------------------------------------
// Tasks. A task is kept as the key "subtopologyId_partition" (Kafka Streams' TaskId form).

export function taskKey(subtopologyId, partition) {
  return `${subtopologyId}_${partition}`;
}

export function parseTaskKey(key) {
  const i = key.lastIndexOf('_');
  return [key.slice(0, i), Number(key.slice(i + 1))];
}

function compareKeys(a, b) {
  const [sa, pa] = parseTaskKey(a);
  const [sb, pb] = parseTaskKey(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  return pa - pb;
}

export function sortKeys(keys) {
  return [...new Set(keys)].sort(compareKeys);
}

/** `[TaskIds]` -> sorted task keys. */
export function keysOf(taskIds) {
  const out = [];
  for (const t of taskIds ?? []) for (const p of t.partitions) out.push(taskKey(t.subtopologyId, p));
  return sortKeys(out);
}

/** Sorted task keys -> `[TaskIds]` (one entry per subtopology, partitions ascending). */
export function taskIdsOf(keys) {
  const by = new Map();
  for (const k of sortKeys(keys)) {
    const [s, p] = parseTaskKey(k);
    if (!by.has(s)) by.set(s, []);
    by.get(s).push(p);
  }
  return [...by].map(([subtopologyId, partitions]) => ({ subtopologyId, partitions }));
}

export function emptyTasks() {
  return { active: [], standby: [], warmup: [] };
}

/** A describe-style `{activeTasks, standbyTasks, warmupTasks}` as role -> keys. */
export function tasksOf(assignment) {
  const t = emptyTasks();
  for (const r of ROLES) t[r] = keysOf(assignment?.[LIST[r]]);
  return t;
}

export function minus(a, b) {
  const s = new Set(b);
  return a.filter((x) => !s.has(x));
}

export function sameKeys(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

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

// ---------------------------------------------------------------------------------------------
// The partitions a task reads, which is what a Streams client commits offsets for.

/** A topology's subtopologies, whether a list (the application's) or `{epoch, subtopologies}`. */
export function subtopologiesOf(topology) {
  return Array.isArray(topology) ? topology : topology?.subtopologies ?? [];
}

/** The topics a subtopology reads by name: its source and repartition source topics. */
function readTopics(st) {
  return [...(st.sourceTopics ?? []), ...(st.repartitionSourceTopics ?? []).map((t) => (typeof t === 'string' ? t : t.name))];
}

/**
 * The partitions task `key` reads: its partition of each topic its subtopology reads by name
 * (topics named by pattern are left out: their names are not in the topology), `{topic, partition}`.
 */
export function taskPartitions(topology, key) {
  const [sub, p] = parseTaskKey(key);
  const st = subtopologiesOf(topology).find((s) => s.subtopologyId === sub);
  return st ? readTopics(st).map((topic) => ({ topic, partition: p })) : [];
}

/**
 * The task that reads `topic`'s `partition`, or null: as Kafka's offset validation maps a topic
 * to its subtopology (a topic read by two subtopologies belongs to the later one).
 */
export function taskOfPartition(topology, topic, partition) {
  let sub = null;
  for (const st of subtopologiesOf(topology)) if (readTopics(st).includes(topic)) sub = st.subtopologyId;
  return sub === null ? null : taskKey(sub, partition);
}

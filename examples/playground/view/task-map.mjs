// Task placement: every task of the picked group with its owner, target owner, revocation,
// copies (standby, warm-up) and committed offset, compact for a big group; the group's racks;
// and its committed offsets, partition by partition.
import { errorName, fmtTime, sortKeys, subtopologiesOf, taskOfPartition, tasksOf } from '../model.mjs';
import { BIG_TASKS, colorOf, esc, nameOf } from './page.mjs';

/** The topology the group's tasks come from: the group's own, or else the application's. */
function topologyOf(view, g) {
  const subs = subtopologiesOf(g?.topology);
  return subs.some((st) => Array.isArray(st.sourceTopics)) ? subs : view.session.appNow.topology;
}

/** Who committed an offset: the member's label, the admin (no member), or the log (replayed). */
function committer(view, o) {
  if (o.memberId === null) return 'log';
  return o.memberId ? nameOf(view, o.memberId) : 'admin';
}

/** The picked group's committed offsets at the cursor, each with the task that reads it. */
function committedOffsets(view, g) {
  const topology = topologyOf(view, g);
  return [...view.session.committedOffsets(g.groupId).values()]
    .map((o) => ({ ...o, task: taskOfPartition(topology, o.topic, o.partition), by: committer(view, o) }))
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

function offsetTitle(o) {
  return `${o.topic}-${o.partition} at ${o.offset}, committed by ${o.by}${o.memberEpoch !== null ? ` at epoch ${o.memberEpoch}` : ''} (${fmtTime(o.commitTimestamp)})`;
}

/** Every task of the group per the coordinator's configuration result (snapshot). */
export function configuredTasks(g) {
  const keys = [];
  for (const st of g?.configuration?.subtopologies ?? []) for (let p = 0; p < Number(st.numTasks); p++) keys.push(`${st.subtopologyId}_${p}`);
  return keys;
}

/** The racks and the task placement of group `g` (empty when it has no tasks). */
export function taskMap(view, g) {
  // The tasks the coordinator configured (its own per-subtopology counts), plus any a member
  // still holds from before.
  const all = new Set(configuredTasks(g));
  const cur = new Map();
  const pend = new Map();
  const tgt = new Map();
  const stb = new Map();
  const wu = new Map();
  // Racks: a copy on the active owner's own rack does not survive that rack's failure.
  const rackOfName = new Map();
  for (const m of g.members) {
    const name = nameOf(view, m.memberId);
    rackOfName.set(name, m.rackId ?? null);
    const a = tasksOf(m.assignment);
    const p = tasksOf(m.pendingRevocation);
    const t = tasksOf(m.targetAssignment);
    for (const k of a.active) { all.add(k); cur.set(k, name); }
    for (const k of p.active) { all.add(k); pend.set(k, name); }
    for (const k of t.active) { all.add(k); tgt.set(k, name); }
    for (const [r, into] of [['standby', stb], ['warmup', wu]]) {
      for (const k of [...a[r], ...t[r]]) { all.add(k); into.set(k, [...new Set([...(into.get(k) ?? []), name])]); }
    }
  }
  if (!all.size) return '';
  const compact = all.size > BIG_TASKS;
  // Each task's committed partitions; the cell shows the lowest offset (where it would resume).
  const offsets = committedOffsets(view, g);
  const committed = new Map();
  for (const o of offsets) if (o.task) committed.set(o.task, [...(committed.get(o.task) ?? []), o]);
  const bySub = new Map();
  for (const k of sortKeys([...all])) {
    const s = k.slice(0, k.lastIndexOf('_'));
    if (!bySub.has(s)) bySub.set(s, []);
    bySub.get(s).push(k);
  }
  const pickable = view.session.manual ? ' data-action="pick-task"' : '';
  const rows = [...bySub].map(([s, keys]) => `<div class="tm-row"><span class="tm-sub">Subtopology ${esc(s)} <span class="muted">(${keys.length} tasks)</span></span><div class="tm-cells${compact ? ' compact' : ''}">${keys.map((k) => {
    const owner = cur.get(k) ?? pend.get(k) ?? null;
    const target = tgt.get(k) ?? null;
    const revoking = pend.has(k);
    const moving = target && owner !== target;
    const sb = stb.get(k);
    const w = wu.get(k);
    const copies = [...(sb ?? []), ...(w ?? [])];
    const ownerRack = owner ? rackOfName.get(owner) : null;
    const sameRack = ownerRack !== null && ownerRack !== undefined && copies.some((n) => rackOfName.get(n) === ownerRack);
    const at = (n) => (rackOfName.get(n) ? `${n}@${rackOfName.get(n)}` : n);
    const offs = committed.get(k);
    const low = offs ? offs.reduce((a, o) => (Number(o.offset) < Number(a.offset) ? o : a)) : null;
    const title = `${k}: ${owner ? `held by ${at(owner)}${revoking ? ' (pending revocation)' : ''}` : 'not held'}${target ? `, target ${target}` : ', no target'}${sb ? `, standby on ${sb.map(at).join(', ')}` : ''}${w ? `, warm-up on ${w.map(at).join(', ')}` : ''}${sameRack ? `; a copy shares the rack ${ownerRack} of the active task` : ''}${offs ? `; committed: ${offs.map(offsetTitle).join('; ')}` : ''}`;
    const cls = `tm-cell${revoking ? ' revoking' : ''}${moving ? ' moving' : ''}${!owner && !target ? ' free' : ''}${copies.length ? ' has-standby' : ''}${w ? ' has-warmup' : ''}${sameRack ? ' same-rack' : ''}`;
    const data = `data-task="${esc(k)}" data-owner="${esc(owner ?? '')}" data-target="${esc(target ?? '')}"${pickable}`;
    if (compact) {
      const short = `${k} ${owner ?? '–'}${moving ? `→${target}` : ''}${revoking ? ' ↩' : ''}${sb ? ` S:${sb.join(',')}` : ''}${w ? ` W:${w.join(',')}` : ''}${low ? ` ⤓${low.offset} ${low.by}` : ''}`;
      return `<span class="${cls}" title="${esc(short)}" ${data} style="--c:${owner ? colorOf(view, owner) : '#cbd5e1'}${moving ? `;--t:${colorOf(view, target)}` : ''}"></span>`;
    }
    return `<div class="${cls}" title="${esc(title)}" ${data}>
      <span class="tm-id">${esc(k)}</span>
      <span class="tm-own" style="--c:${owner ? colorOf(view, owner) : '#94a3b8'}">${esc(owner ?? '–')}</span>${moving ? `<span class="tm-to" style="--c:${colorOf(view, target)}">→ ${esc(target)}</span>` : ''}${sb ? `<span class="tm-sb">S ${esc(sb.join(','))}</span>` : ''}${w ? `<span class="tm-wu">W ${esc(w.join(','))}</span>` : ''}${low ? `<span class="tm-off" data-field="committed" data-offset="${esc(low.offset)}" data-by="${esc(low.by)}" style="--c:${colorOf(view, low.by)}">⤓ ${esc(low.offset)} <span class="tm-by">${esc(low.by)}${low.memberEpoch !== null ? `@${esc(low.memberEpoch)}` : ''}</span></span>` : ''}
    </div>`;
  }).join('')}</div></div>`).join('');
  const legend = compact
    ? '<span class="legend"><span class="lg">colour = owner</span><span class="lg moving">ring = target owner differs</span><span class="lg revoking">dashed = pending revocation</span><span class="lg has-standby">dot = standby / warm-up</span></span>'
    : '<span class="legend"><span class="lg revoking">↩ pending revocation</span><span class="lg moving">→ target owner</span><span class="lg">S standby, W warm-up</span>'
      + `${committed.size ? '<span class="lg">⤓ committed offset, by whom @ epoch</span>' : ''}`
      + `${rackOfName.size && [...rackOfName.values()].some(Boolean) ? '<span class="lg same-rack">red edge = a copy on the active task\'s rack</span>' : ''}</span>`;
  const racks = rackPanel(view, g, rackOfName);
  return `${racks}<section class="taskmap${compact ? ' compact' : ''}" aria-label="Task placement"><h3>Task placement ${legend}</h3>${rows}</section>`;
}

/**
 * The group's committed offsets, a row per partition (its task, offset, who committed it at
 * which epoch, when), and the last commit the coordinator refused, with its errors; nothing
 * while the group has neither.
 */
export function offsetsPanel(view, g) {
  const s = view.session;
  const offsets = committedOffsets(view, g);
  const refused = lastRefusedCommit(s, g.groupId);
  if (!offsets.length && !refused) return '';
  const rows = offsets.map((o) => `<tr data-partition="${esc(`${o.topic}-${o.partition}`)}" data-task="${esc(o.task ?? '')}">
      <td class="mono">${esc(o.topic)}-${esc(o.partition)}</td><td class="mono">${esc(o.task ?? '–')}</td>
      <td class="num" data-field="offset">${esc(o.offset)}</td>
      <td data-field="by"><span class="chip" style="--c:${colorOf(view, o.by)}">${esc(o.by)}</span></td>
      <td class="num" data-field="epoch">${esc(o.memberEpoch ?? '–')}</td>
      <td class="small"><button type="button" class="link" data-action="jump" data-to="${o.step + 1}" data-key="off:${esc(`${o.topic}-${o.partition}`)}" aria-label="Go to step ${o.step + 1}, the commit of ${esc(`${o.topic}-${o.partition}`)}">step ${o.step + 1}</button> ${esc(fmtTime(o.commitTimestamp))}</td></tr>`).join('');
  const table = offsets.length
    ? `<div class="off-wrap"><table class="offsets" aria-label="Committed offsets of ${esc(g.groupId)}"><thead><tr><th scope="col">Partition</th><th scope="col">Task</th><th scope="col">Offset</th><th scope="col">Committed by</th><th scope="col">Epoch</th><th scope="col">When</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : '<p class="muted small">No offsets committed.</p>';
  let last = '';
  if (refused) {
    const { i, step, parts } = refused;
    const by = new Map();
    for (const p of parts) by.set(p.errorCode, [...(by.get(p.errorCode) ?? []), `${p.topic}-${p.partition}`]);
    const req = step.input.request;
    const who = step.actor ?? (req.memberId ? nameOf(view, req.memberId) : 'admin');
    last = `<p class="refused" id="refused-commit" data-step="${i + 1}"><span class="err">Last refused commit</span> at <button type="button" class="link" data-action="jump" data-to="${i + 1}" data-key="refused-jump">step ${i + 1}</button>: ${esc(who)}${step.action === 'zombie-commit' ? ' (zombie)' : ''} at epoch ${esc(req.generationIdOrMemberEpoch)}: ${[...by].map(([code, ps]) => `<span class="err" data-code="${code}">${esc(errorName(code, s.dialect))} (${code})</span> for ${esc(ps.join(', '))}`).join('; ')}. Nothing was written for these partitions.</p>`;
  }
  return `<section class="offsets-box" aria-label="Committed offsets"><h3>Committed offsets <span class="muted small">(${offsets.length} partition${offsets.length === 1 ? '' : 's'}, from the offset records up to this step)</span></h3>${table}${last}</section>`;
}

/** The last `OffsetCommit` to `groupId` up to the cursor that had a partition refused, or null. */
function lastRefusedCommit(s, groupId) {
  for (let i = s.cursor - 1; i >= 0; i--) {
    const step = s.steps[i];
    if (step.input?.type !== 'OffsetCommit' || step.input.request?.groupId !== groupId) continue;
    const parts = [];
    for (const t of s.outputs[i]?.response?.topics ?? []) for (const p of t.partitions) if (p.errorCode) parts.push({ topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode });
    if (parts.length) return { i, step, parts };
  }
  return null;
}

/** The group's racks, each with its members and the tasks they hold (only when members have racks). */
function rackPanel(view, g, rackOfName) {
  const racks = new Map();
  for (const m of g.members) {
    if (!m.rackId) continue;
    if (!racks.has(m.rackId)) racks.set(m.rackId, []);
    racks.get(m.rackId).push(m);
  }
  if (!racks.size) return '';
  const boxes = [...racks].sort(([a], [b]) => (a < b ? -1 : 1)).map(([rack, ms]) => {
    const count = (pick) => ms.reduce((n, m) => n + tasksOf(pick(m)).active.length, 0);
    const copies = (role) => ms.reduce((n, m) => n + tasksOf(m.assignment)[role].length, 0);
    const names = ms.map((m) => nameOf(view, m.memberId));
    return `<div class="rack" data-rack="${esc(rack)}">
      <div class="rack-name mono">${esc(rack)}</div>
      <div class="rack-members">${names.map((n) => `<span class="chip" style="--c:${colorOf(view, n)}">${esc(n)}</span>`).join('')}</div>
      <div class="rack-load muted" data-field="rack-load">${count((m) => m.assignment)} active, ${copies('standby')} standby, ${copies('warmup')} warm-up</div>
    </div>`;
  }).join('');
  const unracked = [...rackOfName.values()].filter((r) => !r).length;
  return `<section class="racks" aria-label="Racks"><h3>Racks${unracked ? ` <span class="muted">(${unracked} members without a rack)</span>` : ''}</h3><div class="rack-row">${boxes}</div></section>`;
}

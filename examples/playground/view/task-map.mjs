// Task placement: every task of the picked group with its owner, target owner, revocation and
// copies (standby, warm-up), compact for a big group; and the group's racks.
import { sortKeys, tasksOf } from '../model.mjs';
import { BIG_TASKS, colorOf, esc, nameOf } from './page.mjs';

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
    const title = `${k}: ${owner ? `held by ${at(owner)}${revoking ? ' (pending revocation)' : ''}` : 'not held'}${target ? `, target ${target}` : ', no target'}${sb ? `, standby on ${sb.map(at).join(', ')}` : ''}${w ? `, warm-up on ${w.map(at).join(', ')}` : ''}${sameRack ? `; a copy shares the rack ${ownerRack} of the active task` : ''}`;
    const cls = `tm-cell${revoking ? ' revoking' : ''}${moving ? ' moving' : ''}${!owner && !target ? ' free' : ''}${copies.length ? ' has-standby' : ''}${w ? ' has-warmup' : ''}${sameRack ? ' same-rack' : ''}`;
    const data = `data-task="${esc(k)}" data-owner="${esc(owner ?? '')}" data-target="${esc(target ?? '')}"${pickable}`;
    if (compact) {
      const short = `${k} ${owner ?? '–'}${moving ? `→${target}` : ''}${revoking ? ' ↩' : ''}${sb ? ` S:${sb.join(',')}` : ''}${w ? ` W:${w.join(',')}` : ''}`;
      return `<span class="${cls}" title="${esc(short)}" ${data} style="--c:${owner ? colorOf(view, owner) : '#cbd5e1'}${moving ? `;--t:${colorOf(view, target)}` : ''}"></span>`;
    }
    return `<div class="${cls}" title="${esc(title)}" ${data}>
      <span class="tm-id">${esc(k)}</span>
      <span class="tm-own" style="--c:${owner ? colorOf(view, owner) : '#94a3b8'}">${esc(owner ?? '–')}</span>${moving ? `<span class="tm-to" style="--c:${colorOf(view, target)}">→ ${esc(target)}</span>` : ''}${sb ? `<span class="tm-sb">S ${esc(sb.join(','))}</span>` : ''}${w ? `<span class="tm-wu">W ${esc(w.join(','))}</span>` : ''}
    </div>`;
  }).join('')}</div></div>`).join('');
  const legend = compact
    ? '<span class="legend"><span class="lg">colour = owner</span><span class="lg moving">ring = target owner differs</span><span class="lg revoking">dashed = pending revocation</span><span class="lg has-standby">dot = standby / warm-up</span></span>'
    : '<span class="legend"><span class="lg revoking">↩ pending revocation</span><span class="lg moving">→ target owner</span><span class="lg">S standby, W warm-up</span>'
      + `${rackOfName.size && [...rackOfName.values()].some(Boolean) ? '<span class="lg same-rack">red edge = a copy on the active task\'s rack</span>' : ''}</span>`;
  const racks = rackPanel(view, g, rackOfName);
  return `${racks}<section class="taskmap${compact ? ' compact' : ''}" aria-label="Task placement"><h3>Task placement ${legend}</h3>${rows}</section>`;
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

// The members of the picked group: a card each for a small group, a table that filters and
// sorts for a big one, each with the actions its client can take; and clients outside the group.
import { Clients, ROLES, errorName, fmtTime, short, statusName, tasksOf } from '../model.mjs';
import { avatarText, colorOf, esc, humanize } from './page.mjs';

const PHASE_TEXT = {
  new: 'starting',
  member: 'heartbeating',
  rejoin: 'fenced: drops its tasks and rejoins with epoch 0 at its next heartbeat',
  left: 'left the group (-1)',
  stopped: 'stopped (left with -2; may restart)',
  crashed: 'crashed: not heartbeating',
  failed: 'stopped by a fatal error',
};

function assignmentColumn(title, tasks, pending, other, kind, epochs = null) {
  const ep = (r, k) => (epochs && r === 'active' && epochs.has(k) ? `<sup class="tepoch" title="assignment epoch of ${esc(k)}">@${esc(epochs.get(k))}</sup>` : '');
  const rows = [];
  for (const r of ROLES) {
    const keys = tasks[r];
    const pend = pending ? pending[r] : [];
    if (!keys.length && !pend.length && r !== 'active') continue;
    let html = '';
    if (keys.length) {
      html += `<span class="chips" data-field="${kind}-${r}">${keys.map((k) => {
        const waiting = other && !other[r].includes(k) && kind === 'target';
        return `<span class="chip ${r}${waiting ? ' incoming' : ''}"${waiting ? ' title="in the target, not yet assigned"' : ''}>${esc(k)}${ep(r, k)}</span>`;
      }).join('')}</span>`;
    } else if (!pend.length) {
      html += `<span class="none" data-field="${kind}-${r}">–</span>`;
    } else {
      html += `<span class="chips" data-field="${kind}-${r}"></span>`;
    }
    if (pend.length) {
      html += `<span class="chips" data-field="pending-${r}">${pend.map((k) => `<span class="chip ${r} revoking" title="pending revocation">↩ ${esc(k)}${ep(r, k)}</span>`).join('')}</span>`;
    }
    rows.push(`<div class="role"><span class="rname">${r}</span>${html}</div>`);
  }
  return `<div class="col"><h4>${title}</h4>${rows.join('')}</div>`;
}

function memberButtons(c, m, few = false) {
  if (!c) return '';
  if (few) {
    // A big group's rows: the everyday actions only (the card of a small group has them all).
    const b = (action, text, cls = '') => `<button type="button" class="small-btn${cls}" data-action="${action}" data-label="${esc(c.label)}" data-key="${action}:${esc(c.label)}">${text}</button>`;
    if (c.phase === 'member') return b('heartbeat', 'Heartbeat') + (Clients.hasToRevoke(c) ? b('revoke', 'Revoke') : '') + b('leave', 'Leave') + b('crash', 'Crash', ' danger');
    if (c.phase === 'rejoin') return b('heartbeat', 'Rejoin', ' primary');
    return b('restart', 'Restart', ' primary');
  }
  const b = (action, text, opts = {}) => `<button type="button" class="small-btn${opts.cls ? ` ${opts.cls}` : ''}" data-action="${action}" data-label="${esc(c.label)}" data-key="${action}:${esc(c.label)}"${opts.disabled ? ' disabled' : ''}${opts.title ? ` title="${esc(opts.title)}"` : ''}>${text}</button>`;
  const out = [];
  if (c.phase === 'member') {
    out.push(b('heartbeat', 'Heartbeat', { title: 'Send a heartbeat reporting the tasks it owns' }));
    out.push(b('revoke', 'Revoke', { disabled: !Clients.hasToRevoke(c), title: 'Give up the tasks it was told to revoke, then heartbeat' }));
    const idle = !c.owned.active.length;
    out.push(b('commit', 'Commit', { disabled: idle, title: idle ? 'It owns no active task: nothing to commit' : `Commit the offsets of the partitions its active tasks read, at its member epoch ${c.epoch} (OffsetCommit)` }));
    const old = c.prevEpoch !== null && c.prevEpoch !== undefined;
    out.push(b('stale-commit', 'Commit at old epoch', { disabled: idle || !old, title: !old ? 'It has had one epoch only: there is no older one' : idle ? 'It owns no active task: nothing to commit' : `Commit its tasks at its previous epoch ${c.prevEpoch}, as a commit delivered late would: accepted only for tasks it held at that epoch` }));
    if (c.asked) out.push(b('initialize', 'Initialize', { cls: 'primary', title: 'Send the topology (StreamsGroupInitialize)' }));
    out.push(b('leave', 'Leave −1', { title: 'Leave the group for good' }));
    if (c.instanceId) out.push(b('static-leave', 'Leave −2', { title: 'Static temporary leave: keep the tasks, no rebalance' }));
    out.push(b('crash', 'Crash', { cls: 'danger', title: 'Stop heartbeating without a word' }));
    out.push(b('shutdown', 'Shutdown', { title: 'Request the shutdown of the whole application (heartbeat with shutdownApplication = true)' }));
  } else if (c.phase === 'rejoin') {
    out.push(b('heartbeat', 'Rejoin', { cls: 'primary', title: 'Join again with epoch 0' }));
    out.push(b('crash', 'Crash', { cls: 'danger' }));
  } else if (['stopped', 'crashed', 'failed', 'left'].includes(c.phase)) {
    out.push(b('restart', 'Restart', { cls: 'primary', title: c.instanceId ? 'Start again: join with a new member id and the same instance id' : 'Start again: join as a new member' }));
    if (c.phase === 'crashed' && c.zombie) out.push(b('zombie-commit', 'Commit as zombie', { cls: 'danger', title: `Its heartbeats stopped but its process runs on: commit ${c.zombie.active.join(', ')} with the member id and epoch ${c.zombie.epoch} it last had` }));
  }
  return out.join('');
}

/** The client's last offset commit: how many offsets at which epoch, or each refusal's error. */
function commitText(view, c) {
  const lc = c?.lastCommit;
  if (!lc) return '';
  const at = `last commit (epoch ${lc.memberEpoch})`;
  if (lc.error) return `<span class="err" data-field="last-commit">${esc(at)} rejected: ${esc(lc.error.code)}</span>`;
  const bad = new Map();
  for (const p of lc.partitions) if (p.errorCode !== 0) bad.set(p.errorCode, [...(bad.get(p.errorCode) ?? []), `${p.topic}-${p.partition}`]);
  if (!bad.size) {
    const n = lc.partitions.length;
    return `<span class="ok" data-field="last-commit" title="${esc(lc.partitions.map((p) => `${p.topic}-${p.partition} → ${p.offset}`).join(', '))}">${esc(at)}: ${n} offset${n === 1 ? '' : 's'} committed</span>`;
  }
  const d = view.session.dialect;
  return `<span class="err" data-field="last-commit">${esc(at)} refused: ${[...bad].map(([code, ps]) => `${esc(errorName(code, d))} (${code}) for ${esc(ps.join(', '))}`).join('; ')}</span>`;
}

/** A small group's member as a card: facts, current and target tasks, timers, client, actions. */
export function memberCard(view, m, g, c, timers, now, epochs) {
  const cur = tasksOf(m.assignment);
  const pend = tasksOf(m.pendingRevocation);
  const tgt = tasksOf(m.targetAssignment);
  const label = c?.label ?? short(m.memberId);
  const reconciled = m.memberState === 'STABLE' && m.memberEpoch === g.assignmentEpoch;
  const mine = timers.filter((t) => t.subject === m.memberId && t.groupId === g.groupId);
  const timerHtml = mine.map((t) => `<span class="mtimer">${esc(t.kind)} in ${esc(fmtTime(Math.max(0, Number(t.deadlineMs) - now)))}</span>`).join('');
  const clientBits = [];
  if (c) {
    clientBits.push(`<span class="phase p-${esc(c.phase)}">${esc(PHASE_TEXT[c.phase] ?? c.phase)}</span>`);
    const rv = Clients.toRevoke(c);
    const rvKeys = ROLES.flatMap((r) => rv[r]);
    if (rvKeys.length && c.phase === 'member') clientBits.push(`<span class="warn">told to revoke ${esc(rvKeys.join(', '))}</span>`);
    if (c.asked) clientBits.push('<span class="warn">asked to initialize the topology</span>');
    if (c.lastError) clientBits.push(`<span class="err">last error: ${esc(typeof c.lastError.code === 'number' ? `${errorName(c.lastError.code, view.session.dialect)} (${c.lastError.code})` : c.lastError.code)}</span>`);
    if (c.lastCommit) clientBits.push(commitText(view, c));
    for (const st of c.phase === 'member' ? c.status ?? [] : []) {
      clientBits.push(`<span class="status" data-status="${esc(statusName(st.statusCode, view.session.dialect))}" title="${esc(humanize(view, st.statusDetail))}">${esc(statusName(st.statusCode, view.session.dialect))}</span>`);
    }
  }
  const epochNote = m.memberEpoch === -2 ? ' <span class="muted">(away, −2)</span>' : '';
  return `<article class="member-card${reconciled ? '' : ' busy'}${c && c.phase !== 'member' ? ' off' : ''}" data-member-id="${esc(m.memberId)}" data-label="${esc(label)}" style="--c:${colorOf(view, label)}" aria-label="Member ${esc(label)}">
    <header>
      <span class="avatar" aria-hidden="true">${esc(avatarText(label))}</span>
      <div class="who">
        <div class="name"><span data-field="label">${esc(label)}</span>${m.instanceId ? ' <span class="tag">static</span>' : ' <span class="tag dyn">dynamic</span>'}</div>
        <div class="mono mid" title="member id ${esc(m.memberId)}">${esc(m.memberId)}</div>
      </div>
      <span class="mstate s-${esc(m.memberState)}" data-field="member-state">${esc(m.memberState)}</span>
    </header>
    <dl class="facts">
      <div><dt>Epoch</dt><dd><strong data-field="member-epoch">${m.memberEpoch}</strong>${epochNote}</dd></div>
      <div><dt>Previous</dt><dd data-field="previous-epoch">${m.previousMemberEpoch}</dd></div>
      <div><dt>Process</dt><dd class="mono" data-field="process-id">${esc(m.processId)}</dd></div>
      ${m.rackId ? `<div><dt>Rack</dt><dd class="mono" data-field="rack-id">${esc(m.rackId)}</dd></div>` : ''}
      <div><dt>Instance</dt><dd class="mono" data-field="instance-id">${esc(m.instanceId ?? '–')}</dd></div>
    </dl>
    <div class="assign">
      ${assignmentColumn('Current', cur, pend, null, 'current', epochs)}
      ${assignmentColumn('Target', tgt, null, cur, 'target')}
    </div>
    ${timerHtml ? `<div class="mtimers">${timerHtml}</div>` : ''}
    <div class="client">${clientBits.join('')}</div>
    <div class="card-actions" role="group" aria-label="Actions of ${esc(label)}">${memberButtons(c, m)}</div>
  </article>`;
}

const STATE_ORDER = { UNREVOKED_TASKS: 0, UNRELEASED_TASKS: 1, STABLE: 2, UNKNOWN: 3 };

/** A big group's members as rows that can be filtered and sorted. */
export function memberTable(view, members, g, epochs) {
  const s = view.session;
  const rows = members.map((m) => {
    const c = s.clients.byMemberId(m.memberId);
    const label = c?.label ?? short(m.memberId);
    const cur = tasksOf(m.assignment);
    const tgt = tasksOf(m.targetAssignment);
    const pend = tasksOf(m.pendingRevocation);
    return { m, c, label, cur, tgt, pend, reconciled: m.memberState === 'STABLE' && m.memberEpoch === g.assignmentEpoch };
  });
  const f = view.memberFilter.trim().toLowerCase();
  const shown = f
    ? rows.filter((r) => [r.label, r.m.memberId, r.m.processId, r.m.memberState, r.m.instanceId ?? '', r.reconciled ? 'reconciled' : 'reconciling'].some((x) => String(x).toLowerCase().includes(f)))
    : rows;
  const by = {
    label: (a, b) => 0,
    state: (a, b) => STATE_ORDER[a.m.memberState] - STATE_ORDER[b.m.memberState] || Number(a.reconciled) - Number(b.reconciled),
    epoch: (a, b) => a.m.memberEpoch - b.m.memberEpoch,
    tasks: (a, b) => b.cur.active.length - a.cur.active.length,
    process: (a, b) => (a.m.processId < b.m.processId ? -1 : a.m.processId > b.m.processId ? 1 : 0),
  }[view.memberSort] ?? (() => 0);
  const sorted = shown.map((r, i) => [r, i]).sort((a, b) => by(a[0], b[0]) || a[1] - b[1]).map(([r]) => r);
  const counts = {};
  for (const r of rows) counts[r.m.memberState] = (counts[r.m.memberState] ?? 0) + 1;
  const summary = Object.entries(counts).map(([k, v]) => `<span class="mstate s-${esc(k)}">${esc(k)} ${v}</span>`).join(' ');
  const body = sorted.map((r) => {
    const ep = epochs.get(r.m.memberId);
    const epochText = ep && ep.size ? [...new Set(ep.values())].join(',') : '';
    return `<div role="row" class="member-row${r.reconciled ? '' : ' busy'}" data-member-id="${esc(r.m.memberId)}" data-label="${esc(r.label)}" style="--c:${colorOf(view, r.label)}">
      <span role="cell"><span class="avatar small" aria-hidden="true">${esc(avatarText(r.label))}</span> <span data-field="label">${esc(r.label)}</span></span>
      <span role="cell"><span class="mstate s-${esc(r.m.memberState)}" data-field="member-state">${esc(r.m.memberState)}</span></span>
      <span role="cell" data-field="member-epoch">${r.m.memberEpoch}</span>
      <span role="cell" class="mono" data-field="process-id">${esc(r.m.processId)}</span>
      <span role="cell" data-field="active-count" title="${esc(r.cur.active.join(', '))}">${r.cur.active.length}${r.cur.standby.length ? ` +${r.cur.standby.length}s` : ''}</span>
      <span role="cell" data-field="target-count" title="${esc(r.tgt.active.join(', '))}">${r.tgt.active.length}</span>
      <span role="cell" data-field="pending-count">${r.pend.active.length || ''}</span>
      <span role="cell" class="small" data-field="task-epochs">${esc(epochText)}</span>
      <span role="cell" class="card-actions">${memberButtons(r.c, r.m, true)}</span></div>`;
  }).join('');
  return `<section class="members big" aria-label="Members">
    <div class="row member-tools">
      <label class="field inline"><span>Filter</span><input id="member-filter" value="${esc(view.memberFilter)}" placeholder="label, process, state…" autocomplete="off"></label>
      <label class="field inline"><span>Sort</span><select id="member-sort">${['label', 'state', 'epoch', 'tasks', 'process'].map((k) => `<option value="${k}"${k === view.memberSort ? ' selected' : ''}>${k}</option>`).join('')}</select></label>
      <span class="small" id="member-shown">${sorted.length} of ${rows.length} shown</span> ${summary}
    </div>
    <div class="table-wrap" role="table" aria-label="Members of the group"><div role="row" class="member-row head"><span role="columnheader">Member</span><span role="columnheader">State</span><span role="columnheader">Epoch</span><span role="columnheader">Process</span><span role="columnheader">Active</span><span role="columnheader">Target</span><span role="columnheader">Revoking</span><span role="columnheader">Task epochs</span><span role="columnheader">Actions</span></div>${body}</div>
  </section>`;
}

/** Clients of the picked group the coordinator does not count as members. */
export function outsideClients(view, list) {
  if (!list.length) return '';
  return `<section class="outside" aria-label="Clients outside the group"><h3>Clients outside the group</h3><ul>${list.map((c) => `<li style="--c:${colorOf(view, c.label)}" data-label="${esc(c.label)}">
    <span class="avatar small" aria-hidden="true">${esc(avatarText(c.label))}</span>
    <span class="oname">${esc(c.label)}</span>
    <span class="phase p-${esc(c.phase)}">${esc(c.phase === 'member' ? 'removed by the coordinator; the client finds out at its next heartbeat' : PHASE_TEXT[c.phase] ?? c.phase)}</span>
    ${c.lastError ? `<span class="err">${esc(typeof c.lastError.code === 'number' ? errorName(c.lastError.code, view.session.dialect) : c.lastError.code)}</span>` : ''}
    ${commitText(view, c)}
    <span class="card-actions">${memberButtons(c, null)}</span></li>`).join('')}</ul></section>`;
}

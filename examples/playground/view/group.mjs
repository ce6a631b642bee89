// The picked group: its head (state, epochs, the rebuild and invariant checks), why it is in its
// state, its task placement and its members; or what to do when there is no group.
import { ROLES, rebalanceHistory, reasonText, short, statusName, tasksOf } from '../model.mjs';
import { memberCard, memberTable, outsideClients } from './members.mjs';
import { $, BIG_MEMBERS, esc, humanize, nameOf } from './page.mjs';
import { offsetsPanel, taskMap } from './task-map.mjs';

/** The picked group, or what to do while there is none. */
export function renderGroup(view) {
  const s = view.session;
  const snap = s.snapshot();
  const g = s.group();
  const now = s.clockMs();
  const el = $('#group');
  const outside = [];
  const mine = s.groupClients();
  const deleted = s.outputs.slice(0, s.cursor).some((o) => (o?.explain ?? []).some((e) => e.code === 'GROUP_DELETED' && e.groupId === s.app.groupId));
  if (!g && deleted) {
    el.innerHTML = `<div class="empty"><h2>The group was deleted</h2><p>${esc(s.app.groupId)} had no members for the retention period (or was deleted on request). A member that joins creates it again.</p>${outsideClients(view, mine)}</div>`;
    return;
  }
  if (!g) {
    const steps = s.isKafka
      ? `<ol><li>create the source topic (<span class="mono">orders</span>, 6 partitions) in <em>Topics</em>;</li>
      <li><em>Add member</em>: it joins with epoch 0, its own member id and the topology (kafka-4.2);</li>
      <li>create the topics the coordinator asks for; advance to the next timer (the initial rebalance delay), then heartbeat.</li></ol>`
      : `<ol><li>create the source topic (<span class="mono">orders</span>, 6 partitions) in <em>Topics</em>;</li>
      <li><em>Add member</em>: it joins with epoch 0 and is asked to initialize the topology;</li>
      <li><em>Initialize</em>, create the topics the coordinator asks for, then heartbeat.</li></ol>`;
    el.innerHTML = `<div class="empty">
      <h2>No group ${esc(s.app.groupId)} yet</h2>
      <p>Pick a preset above, or build a story by hand:</p>
      ${steps}
      ${outsideClients(view, mine)}
    </div>`;
    return;
  }
  let replay = s.replayMemo?.cursor === s.cursor ? s.replayMemo.result : null;
  if (!replay && g.members.length <= BIG_MEMBERS) replay = s.replayCheck();
  const memberIds = new Set(g.members.map((m) => m.memberId));
  const order = (m) => {
    const i = s.clients.list.findIndex((c) => c.memberId === m.memberId);
    return i < 0 ? 1e9 : i;
  };
  const members = [...g.members].sort((a, b) => order(a) - order(b));
  for (const c of mine) if (!memberIds.has(c.memberId) || !c.memberId) outside.push(c);
  const epochs = s.taskEpochs(g.groupId);
  const topo = s.isKafka
    ? `<div><dt>Topology epoch</dt><dd class="mono" id="topology-id" title="${esc(g.topologyId ?? '')}" data-epoch="${esc(g.topology?.epoch ?? '')}">${esc(g.topology?.epoch ?? '–')}</dd></div>`
    : `<div><dt>Topology id</dt><dd class="mono" id="topology-id" title="${esc(g.topologyId ?? '')}">${esc(g.topologyId ? short(g.topologyId) : '–')}</dd></div>`;
  const big = members.length > BIG_MEMBERS;
  el.innerHTML = `
    <header class="group-head">
      <div class="gtitle">
        <h2><span class="muted">Group</span> <span class="mono" id="group-id">${esc(g.groupId)}</span></h2>
        ${replayBadge(view, replay)}
        ${invariantsBadge(s.invariants())}
        <span class="state-badge st-${esc(g.state)}" id="group-state">${esc(g.state)}</span>
        <span class="dialect-badge" id="group-dialect">${esc(s.dialect)}</span>
      </div>
      <dl class="kv">
        <div><dt>Group epoch</dt><dd id="group-epoch">${g.groupEpoch}</dd></div>
        <div><dt>Assignment epoch</dt><dd id="assignment-epoch">${g.assignmentEpoch}</dd></div>
        ${topo}
        <div><dt>Members</dt><dd id="member-count">${g.members.length}</dd></div>
      </dl>
    </header>
    ${whyBox(view, g)}
    ${taskMap(view, g)}
    ${offsetsPanel(view, g)}
    ${big ? memberTable(view, members, g, epochs) : `<section class="members" aria-label="Members">
      ${members.length ? members.map((m) => memberCard(view, m, g, s.clients.byMemberId(m.memberId), snap.timers, now, epochs.get(m.memberId))).join('') : '<p class="muted">No members.</p>'}
    </section>`}
    ${outsideClients(view, outside)}`;
}

function replayBadge(view, replay) {
  if (!replay) return `<button type="button" class="replay link" id="replay-check" data-action="replay-check" data-key="replay-check" title="A fresh coordinator replays the ${view.session.records().length} records written so far and compares what it rebuilds with this state">Check the rebuild from records</button>`;
  return `<span class="replay ${replay.equal ? 'ok' : 'bad'}" id="replay-check" title="A fresh coordinator replaying the ${replay.records} records written so far rebuilds ${replay.equal ? 'exactly this state' : 'a different state'}">${replay.equal ? '✓' : '✗'} rebuilt from ${replay.records} records</span>`;
}

function invariantsBadge(violations) {
  if (violations.length === 0) return '<span class="replay ok" id="invariants" title="One active owner per task, no process targeted two copies of a task, assignment epoch ≤ group epoch (the testing tools\' checks)">✓ invariants</span>';
  return `<span class="replay bad" id="invariants" title="${esc(violations.join('\n'))}">✗ ${violations.length} invariant${violations.length === 1 ? '' : 's'} violated</span>`;
}

function whyBox(view, g) {
  const s = view.session;
  const lines = [];
  const hist = rebalanceHistory(s).filter((h) => h.groupId === g.groupId);
  const last = hist.at(-1);
  if (last) {
    lines.push(`<p><strong>Last rebalance:</strong> epoch ${last.from} → ${last.to} at <button type="button" class="link" data-action="jump" data-to="${last.step + 1}" data-key="why-jump">step ${last.step + 1}</button> (${esc(last.title)}): ${esc(last.reasons.map(reasonText).join('; '))}.</p>`);
  }
  const state = g.state;
  // The coordinator's own configuration result (snapshot): why the group has tasks or none.
  const conf = g.configuration;
  if (conf) {
    const CONF = {
      NO_TOPOLOGY: g.topology && !Array.isArray(g.topology) && g.topology.epoch >= 0
        ? 'Not configured yet: a rebuilt kafka-4.2 group works its configuration out (in memory) at its next operation'
        : 'The group has no topology yet, so it has no tasks',
      READY: 'The topology is ready',
      MISSING_SOURCE_TOPICS: 'No tasks: source topics are missing',
      MISSING_INTERNAL_TOPICS: 'No tasks yet: internal topics are missing (the coordinator asked the host to create them)',
      INVALID: 'No tasks: the topology is invalid',
      SOURCE_TOPICS_INCORRECTLY_PARTITIONED: 'No tasks: copartitioned source topics differ in partition count',
      INTERNAL_TOPICS_INCORRECTLY_PARTITIONED: 'No tasks: internal topics are incorrectly partitioned',
      INTERNAL_TOPICS_MISMATCH: 'No tasks: existing internal topics have the wrong partition count',
    };
    let detail = '';
    if (Array.isArray(conf.detail)) detail = conf.detail.map((d) => (typeof d === 'string' ? d : `${d.name} (expected ${d.expected}, found ${d.found})`)).join(', ');
    else if (conf.detail) detail = String(conf.detail);
    const subs = (conf.subtopologies ?? []).map((st) => `subtopology ${st.subtopologyId}: ${st.numTasks} task${Number(st.numTasks) === 1 ? '' : 's'}${st.stateful ? ' (stateful)' : ''}`).join('; ');
    lines.push(`<p class="config-line" id="config-result" data-status="${esc(conf.status)}"><span class="status">${esc(conf.status)}</span> ${esc(CONF[conf.status] ?? conf.status)}${detail ? `: ${esc(detail)}` : ''}${subs ? `: ${esc(subs)}` : ''}${conf.status === 'READY' || conf.status === 'NO_TOPOLOGY' ? '.' : '.'}</p>`);
  }
  if (state === 'NOT_READY') {
    lines.push('<p>kafka-4.2 <strong>NotReady</strong>: the group has no validated topology (see the configuration result above); every member gets an empty target until it is ready.</p>');
  }
  if (state === 'INITIALIZING') {
    const asked = s.clients.list.find((c) => c.asked);
    lines.push(`<p>No topology yet${asked ? `: <strong>${esc(asked.label)}</strong> was asked to send it (Initialize).` : '. The next member that heartbeats is asked to send it.'}</p>`);
  } else if (state === 'ASSIGNING') {
    lines.push(`<p>The group epoch (${g.groupEpoch}) is ahead of the assignment epoch (${g.assignmentEpoch}): the next heartbeat of any member computes a new target assignment.</p>`);
  } else if (state === 'RECONCILING') {
    const waits = [];
    for (const m of g.members) {
      const n = esc(nameOf(view, m.memberId));
      if (m.memberEpoch === -2) waits.push(`<li><strong>${n}</strong> is away (left with −2); it holds its tasks until it returns or its session times out.</li>`);
      else if (m.memberState === 'UNREVOKED_TASKS') waits.push(`<li><strong>${n}</strong> must revoke ${esc(ROLES.flatMap((r) => tasksOf(m.pendingRevocation)[r]).join(', '))} and report it.</li>`);
      else if (m.memberState === 'UNRELEASED_TASKS') waits.push(`<li><strong>${n}</strong> waits for tasks their previous owners still hold.</li>`);
      else if (m.memberEpoch !== g.assignmentEpoch) waits.push(`<li><strong>${n}</strong> is at epoch ${m.memberEpoch}; its next heartbeat moves it to ${g.assignmentEpoch}.</li>`);
    }
    const more = waits.length > 10 ? `<li class="muted">… and ${waits.length - 10} more</li>` : '';
    if (waits.length) lines.push(`<p>Reconciling towards epoch ${g.assignmentEpoch}; waiting for ${waits.length} member${waits.length === 1 ? '' : 's'}:</p><ul>${waits.slice(0, 10).join('')}${more}</ul>`);
  } else if (state === 'STABLE') {
    lines.push(`<p>Every member is reconciled to the assignment epoch ${g.assignmentEpoch}.</p>`);
  } else if (state === 'EMPTY') {
    lines.push('<p>No members. The group is deleted when its retention timer fires.</p>');
  }
  const statuses = new Map();
  for (const c of s.groupClients()) if (c.phase === 'member') for (const st of c.status ?? []) statuses.set(st.statusCode, st.statusDetail);
  if (g.shutdownRequestedBy) statuses.set(4, `${nameOf(view, g.shutdownRequestedBy)} requested a shutdown of the whole application: every member is told to shut down.`);
  for (const [code, detail] of statuses) if (code !== 0 || s.isKafka) lines.push(`<p class="status-line"><span class="status">${esc(statusName(code, s.dialect))}</span> ${esc(humanize(view, detail))}</p>`);
  if (hist.length > 1) {
    lines.push(`<details class="history"><summary>Rebalance history (${hist.length} epoch bumps)</summary><ol>${hist.map((h, i) => `<li><button type="button" class="link" data-action="jump" data-to="${h.step + 1}" data-key="hist:${i}">step ${h.step + 1}</button> epoch ${h.from} → ${h.to}: ${esc(h.reasons.map(reasonText).join('; '))} <span class="muted">(${esc(h.title)})</span></li>`).join('')}</ol></details>`);
  }
  return `<section class="why" aria-label="Why the group is in this state"><h3>Why?</h3>${lines.join('')}</section>`;
}

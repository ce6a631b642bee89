// The actions panel (the page's left side): the groups, timers, the add-member form, the
// application's topology, topics, settings, and the manual assignor's forms.
import { fmtTime, short, tasksOf } from '../model.mjs';
import { $, esc, nameOf, timerText } from './page.mjs';
import { configuredTasks } from './task-map.mjs';

const KIND_SHORT = { 'session-timeout': 'session', 'rebalance-timeout': 'rebalance', 'topology-initialization': 'initialize', retention: 'retention', 'initial-rebalance-delay': 'delay', 'assignment-interval': 'assign' };

/** An instance id no client has yet (`<app>-<n>`). */
export function suggestInstanceId(view) {
  const base = view.session.app.groupId.replace(/-app$/, '');
  for (let i = 1; ; i++) {
    const id = `${base}-${i}`;
    if (!view.session.clients.list.some((c) => c.instanceId === id)) return id;
  }
}

/** Shows the instance id field for a static member, with a suggestion. */
export function syncAddMember(view) {
  const form = $('#add-member');
  const isStatic = form.kind.value === 'static';
  $('#instance-field').hidden = !isStatic;
  if (isStatic && !form.instance.value) form.instance.value = suggestInstanceId(view);
}

/** Timers, the process choice, the application's topology, topics and settings. */
export function renderActions(view) {
  const s = view.session;
  const now = s.clockMs();
  const snap = s.snapshot();
  // Timers.
  const timers = [...snap.timers].sort((a, b) => Number(a.deadlineMs) - Number(b.deadlineMs));
  // A big group has a timer per member: the soonest dozen, and how many more.
  const more = timers.length > 12 ? `<li class="more" data-count="${timers.length - 12}">… and ${timers.length - 12} more timers</li>` : '';
  $('#timers').innerHTML = timers.length
    ? timers.slice(0, 12).map((t) => {
      const { who, left } = timerText(view, t, now);
      return `<li><span class="tkind k-${esc(t.kind)}" title="${esc(t.kind)}">${esc(KIND_SHORT[t.kind] ?? t.kind)}</span><span class="twho" title="${esc(who)}">${esc(who)}</span><span class="tleft" title="deadline at ${esc(fmtTime(t.deadlineMs))}">in ${esc(left)}</span></li>`;
    }).join('') + more
    : '<li class="muted">None.</li>';
  // Process choice.
  const sel = $('#add-process');
  const keep = sel.value;
  const procs = s.clients.processIds();
  sel.innerHTML = `<option value="__new__">New process</option>${procs.map((p) => `<option value="${esc(p)}">${esc(p)} (another thread)</option>`).join('')}`;
  sel.value = procs.includes(keep) ? keep : '__new__';
  syncAddMember(view);
  // Topology.
  let tid = '';
  try {
    tid = s.topologyId();
  } catch (e) {
    tid = `(invalid: ${e.message})`;
  }
  $('#dialect').value = s.dialect;
  $('#app-topology-kind').textContent = s.isKafka ? 'epoch' : 'id';
  $('#app-topology-id').textContent = s.isKafka ? String(s.appNow.topologyEpoch ?? 0) : short(tid);
  $('#app-topology-id').title = tid;
  $('#topology-note').hidden = !s.isKafka;
  document.querySelector('.actions [data-action="initialize"]').hidden = s.isKafka;
  // Topics.
  const requested = s.requestedTopics();
  $('#requested-topics').innerHTML = requested.length
    ? `<div class="callout"><p>The coordinator asked the host to create:</p><ul>${requested.map((t) => `<li class="mono">${esc(t.name)} (${t.numPartitions})</li>`).join('')}</ul><button type="button" class="primary" data-action="create-requested" data-key="create-requested">Create requested topics</button></div>`
    : '';
  $('#topics').innerHTML = snap.topics.length
    ? snap.topics.map((t) => `<li><span class="mono tname" title="${esc(t.name)}">${esc(t.name)}</span><span class="tparts">${t.partitions} p</span>
        <button type="button" class="small-btn" data-action="add-partitions" data-topic="${esc(t.name)}" data-key="addp:${esc(t.name)}" aria-label="Add a partition to ${esc(t.name)}">+1</button>
        <button type="button" class="small-btn danger" data-action="delete-topic" data-topic="${esc(t.name)}" data-key="del:${esc(t.name)}" aria-label="Delete topic ${esc(t.name)}">Delete</button></li>`).join('')
    : '<li class="muted">No topics yet.</li>';
  // Settings (unless being edited).
  if (!$('#settings').contains(document.activeElement)) {
    $('#set-group').value = s.app.groupId;
    $('#set-session').value = s.config['group.streams.session.timeout.ms'] ?? 45000;
    $('#set-heartbeat').value = s.config['group.streams.heartbeat.interval.ms'] ?? 5000;
    $('#set-standby').value = s.config['group.streams.num.standby.replicas'] ?? 0;
    $('#set-tick').value = s.app.tickMs;
    $('#set-assignor').value = s.config.assignor ?? 'sticky';
    $('#set-bytes').checked = Boolean(s.config.recordBytes);
  }
}

/** The group picker and every group's state, members and retention countdown. */
export function renderGroupsBox(view) {
  const s = view.session;
  const snap = s.snapshot();
  const now = s.clockMs();
  const ids = s.groupIds();
  const pick = $('#group-pick');
  pick.innerHTML = ids.map((g) => `<option value="${esc(g)}">${esc(g)}</option>`).join('');
  pick.value = s.app.groupId;
  $('#groups').innerHTML = ids.map((gid) => {
    const g = snap.groups.find((x) => x.groupId === gid);
    const ret = snap.timers.find((t) => t.kind === 'retention' && t.groupId === gid);
    const state = g ? g.state : 'no group';
    return `<li data-group="${esc(gid)}" class="${gid === s.app.groupId ? 'picked' : ''}"><span class="mono gname">${esc(gid)}</span><span class="state-badge small st-${esc(state)}">${esc(state)}</span><span class="muted">${g ? `${g.members.length} member${g.members.length === 1 ? '' : 's'}` : ''}</span>${ret ? `<span class="retention" title="deleted at ${esc(fmtTime(ret.deadlineMs))} unless a member joins">retention in ${esc(fmtTime(Math.max(0, Number(ret.deadlineMs) - now)))}</span>` : ''}</li>`;
  }).join('');
  document.querySelector('[data-action="delete-group"]').disabled = !snap.groups.some((g) => g.groupId === s.app.groupId);
}

/** The manual assignor's forms: a member's task picks, and moving one task. */
export function renderManual(view, memberChanged) {
  const s = view.session;
  const box = $('#manual-box');
  box.hidden = !s.manual;
  if (!s.manual) return;
  const g = s.group();
  const members = g?.members ?? [];
  const sel = $('#mt-member');
  const keep = sel.value;
  const opts = members.map((m) => `<option value="${esc(m.memberId)}">${esc(nameOf(view, m.memberId))}</option>`).join('');
  if (sel.innerHTML !== opts) sel.innerHTML = opts;
  if (members.some((m) => m.memberId === keep)) sel.value = keep;
  const mv = $('#mv-member');
  const keepMv = mv.value;
  if (mv.innerHTML !== opts) mv.innerHTML = opts;
  if (members.some((m) => m.memberId === keepMv)) mv.value = keepMv;
  const tasks = configuredTasks(g);
  const task = $('#mv-task');
  const keepTask = task.value;
  task.innerHTML = tasks.map((k) => `<option value="${esc(k)}">${esc(k)}</option>`).join('');
  if (tasks.includes(keepTask)) task.value = keepTask;
  const m = members.find((x) => x.memberId === sel.value);
  const mine = new Set(m ? tasksOf(m.targetAssignment).active : []);
  const fs = $('#mt-tasks');
  if (memberChanged || fs.dataset.for !== `${sel.value}@${s.cursor}`) {
    fs.dataset.for = `${sel.value}@${s.cursor}`;
    fs.innerHTML = `<legend class="small">Active tasks of ${esc(m ? nameOf(view, m.memberId) : '–')}</legend>${tasks.map((k) => `<label class="tcheck"><input type="checkbox" value="${esc(k)}"${mine.has(k) ? ' checked' : ''}> ${esc(k)}</label>`).join('') || '<span class="muted small">No tasks: the group has no ready topology.</span>'}`;
  }
}

// The playground page: draws the session (model.mjs) and turns clicks into actions.
import { ready, Coordinator, topologyId, version, readLog, history } from './web.mjs';
import {
  Session, Clients, ROLES, tasksOf, sortKeys, explainStep, stepTitle, fmtTime, short, errorName,
  statusName, recordName, hexOf, targetText, rebalanceHistory, reasonText, encodeFragment, decodeFragment,
  toJson, parseJson,
} from './model.mjs';
import { PRESETS, presetById } from './presets.mjs';

const $ = (sel) => document.querySelector(sel);
const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
const PALETTE = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2', '#dc2626', '#65a30d', '#9333ea', '#0d9488'];
const KIND_SHORT = { 'session-timeout': 'session', 'rebalance-timeout': 'rebalance', 'topology-initialization': 'initialize', retention: 'retention', 'initial-rebalance-delay': 'delay', 'assignment-interval': 'assign' };
const LIST = { active: 'activeTasks', standby: 'standbyTasks', warmup: 'warmupTasks' };
const PHASE_TEXT = {
  new: 'starting',
  member: 'heartbeating',
  rejoin: 'fenced: drops its tasks and rejoins with epoch 0 at its next heartbeat',
  left: 'left the group (-1)',
  stopped: 'stopped (left with -2; may restart)',
  crashed: 'crashed: not heartbeating',
  failed: 'stopped by a fatal error',
};

/** Members beyond this many are listed as rows, not cards; tasks beyond it are drawn compact. */
const BIG_MEMBERS = 12;
const BIG_TASKS = 64;

// ---------------------------------------------------------------------------------------------
// Start-up

/**
 * Mounts the playground on the page (the markup of index.html), once: loads the coordinator,
 * wires the controls and draws. Resolves to the view, the one object that holds what the page
 * changes: the session (model.mjs), the picked tab, the Records options, the member table's
 * filter and sort, a dropped log file, the toast's timer and the timeline's signature.
 */
export async function mountPlayground() {
  const view = {
    session: null,
    tab: 'why',
    wholeLog: false,
    showHex: false,
    toastTimer: null,
    memberFilter: '',
    memberSort: 'label',
    pendingLog: null,
    timelineSig: null,
  };
  try {
    await main(view);
  } catch (e) {
    console.error(e);
    document.body.insertAdjacentHTML('afterbegin', `<p class="fatal">The coordinator could not be loaded: ${esc(e.message)}</p>`);
  }
  return view;
}

async function main(view) {
  await ready();
  $('#version').textContent = `v${version()}`;
  view.session = new Session({ Coordinator, topologyId });
  const select = $('#preset');
  for (const p of PRESETS) select.insertAdjacentHTML('beforeend', `<option value="${esc(p.id)}">${esc(p.name)}</option>`);
  wire(view);
  let loaded = false;
  if (location.hash.length > 1) loaded = await loadFragment(view);
  if (!loaded) loadPreset(view, 'startup');
  render(view);
  document.body.dataset.ready = '1';
}

async function loadFragment(view) {
  try {
    const data = await decodeFragment(location.hash);
    if (!data) return false;
    view.session.load(data);
    $('#preset').value = '';
    $('#preset-desc').textContent = view.session.description;
    toast(view, `Loaded the shared scenario “${view.session.name}”.`);
    return true;
  } catch (e) {
    toast(view, `The link does not hold a scenario: ${e.message}`, true);
    return false;
  }
}

function clearHash() {
  if (location.hash) window.history.replaceState(null, '', location.pathname + location.search);
}

function loadPreset(view, id) {
  const p = presetById(id);
  if (!p) return;
  clearHash();
  p.run.call(p, view.session);
  view.session.goTo(view.session.steps.length);
  $('#preset').value = id;
  $('#preset-desc').textContent = p.description;
}

// ---------------------------------------------------------------------------------------------
// Events

function wire(view) {
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-action]');
    if (!b || b.disabled || b.getAttribute('aria-disabled') === 'true') return;
    ev.preventDefault();
    run(view, () => act(view, b.dataset.action, b.dataset));
  });
  document.addEventListener('click', (ev) => {
    const t = ev.target.closest('[data-tab]');
    if (t) selectTab(view, t.dataset.tab, true);
  });
  $('.tabs').addEventListener('keydown', (ev) => {
    const order = ['why', 'records', 'io', 'history'];
    const i = order.indexOf(view.tab);
    if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
      ev.preventDefault();
      ev.stopPropagation();
      selectTab(view, order[(i + (ev.key === 'ArrowRight' ? 1 : order.length - 1)) % order.length], true);
    }
  });
  $('#preset').addEventListener('change', (ev) => {
    if (ev.target.value) run(view, () => { loadPreset(view, ev.target.value); toast(view, `Loaded the preset “${view.session.name}”.`); });
  });
  $('#scrub').addEventListener('input', (ev) => run(view, () => view.session.goTo(Number(ev.target.value))));
  $('#dialect').addEventListener('change', (ev) => run(view, () => newTimeline(view, { dialect: ev.target.value })));
  $('#group-pick').addEventListener('change', (ev) => run(view, () => view.session.selectGroup(ev.target.value)));
  $('#add-group').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const gid = $('#new-group-id').value.trim();
    run(view, () => {
      view.session.selectGroup(gid);
      $('#new-group-id').value = '';
      toast(view, `Group ${gid}: new members join it. It exists once its first member joins.`);
    });
  });
  $('#set-target').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const member = $('#mt-member').value;
    const keys = [...document.querySelectorAll('#mt-tasks input:checked')].map((i) => i.value);
    run(view, () => {
      if (!member) throw new Error('No member to set a target for.');
      view.session.setMemberTarget(member, keys);
    });
  });
  $('#move-task').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const task = $('#mv-task').value;
    const member = $('#mv-member').value;
    run(view, () => {
      if (!task || !member) throw new Error('Pick a task and a member.');
      view.session.moveTask(task, member);
    });
  });
  $('#mt-member').addEventListener('change', () => renderManual(view, true));
  $('#log-file').addEventListener('change', async (ev) => {
    const f = ev.target.files?.[0];
    if (f) await takeLogFile(view, f);
    ev.target.value = '';
  });
  const drop = $('#log-drop');
  drop.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    const f = ev.dataTransfer?.files?.[0];
    if (f) await takeLogFile(view, f);
  });
  $('#log-text').addEventListener('input', () => { view.pendingLog = null; checkLog(view); });
  $('#log-dialect').addEventListener('change', () => checkLog(view));
  document.addEventListener('input', (ev) => {
    if (ev.target.id === 'member-filter') {
      view.memberFilter = ev.target.value;
      run(view, () => {});
    }
  });
  document.addEventListener('change', (ev) => {
    if (ev.target.id === 'member-sort') {
      view.memberSort = ev.target.value;
      run(view, () => {});
    }
    if (ev.target.id === 'show-hex') {
      view.showHex = ev.target.checked;
      renderDetails(view);
      $('#show-hex').focus();
    }
  });
  $('#file').addEventListener('change', async (ev) => {
    const f = ev.target.files?.[0];
    if (!f) return;
    const text = await f.text();
    ev.target.value = '';
    run(view, () => {
      view.session.load(text);
      clearHash();
      $('#preset').value = '';
      $('#preset-desc').textContent = view.session.description;
      toast(view, `Loaded “${view.session.name}” (${view.session.steps.length} steps) from ${f.name}.`);
    });
  });
  $('#add-member').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const form = ev.target;
    const isStatic = form.kind.value === 'static';
    const instanceId = form.instance.value.trim();
    run(view, () => {
      if (isStatic && !instanceId) throw new Error('A static member needs an instance id.');
      const processId = form.process.value === '__new__' ? null : form.process.value;
      const rackId = form.rack.value.trim() || null;
      view.session.addMember({ instanceId: isStatic ? instanceId : null, processId, rackId });
      if (isStatic) form.instance.value = suggestInstanceId(view);
    });
  });
  $('#add-member').addEventListener('change', () => syncAddMember(view));
  $('#create-topic').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const name = $('#topic-name').value.trim();
    const n = Number($('#topic-partitions').value);
    run(view, () => {
      if (!name) throw new Error('A topic needs a name.');
      view.session.createTopic(name, n);
    });
  });
  $('#settings').addEventListener('submit', (ev) => {
    ev.preventDefault();
    run(view, () => applySettings(view));
  });
  $('#topology-text').addEventListener('input', checkTopologyText);
  document.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (t.closest('input, textarea, select, dialog[open], [role="tablist"]')) return;
    const keys = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'start', End: 'end', n: 'next-timer' };
    const a = keys[ev.key];
    if (!a) return;
    ev.preventDefault();
    run(view, () => act(view, a, {}));
  });
  window.addEventListener('hashchange', async () => {
    if (await loadFragment(view)) render(view);
  });
}

/** Runs an action, reports errors, redraws and keeps the keyboard focus where it was. */
function run(view, fn) {
  const key = document.activeElement?.dataset?.key ?? null;
  const id = document.activeElement?.id || null;
  try {
    fn();
  } catch (e) {
    console.warn(e);
    toast(view, e.message, true);
  }
  render(view);
  const again = (key && document.querySelector(`[data-key="${CSS.escape(key)}"]`)) || (id && document.getElementById(id));
  if (again && again !== document.activeElement && !again.disabled) again.focus({ preventScroll: true });
}

function act(view, action, data) {
  const s = view.session;
  const label = data.label;
  switch (action) {
    case 'start': return s.goTo(0);
    case 'back': return s.goTo(s.cursor - 1);
    case 'forward': return s.goTo(s.cursor + 1);
    case 'end': return s.goTo(s.steps.length);
    case 'jump': return s.goTo(Number(data.to));
    case 'next-timer':
      if (!s.nextTimer()) toast(view, 'No timer is pending.');
      return;
    case 'advance': return s.advance(Number(data.ms));
    case 'heartbeat-all':
      if (!s.liveLabels().length) throw new Error('No running member to heartbeat.');
      return s.heartbeatAll();
    case 'settle':
      if (!s.liveLabels().length) throw new Error('No running member to heartbeat.');
      return s.settle();
    case 'initialize': return s.initialize(label ?? null);
    case 'delete-group': return s.deleteGroup();
    case 'replay-check': return void s.replayCheck();
    case 'pick-task':
      if (s.manual) {
        $('#mv-task').value = data.task;
        $('#mv-member').focus();
      }
      return;
    case 'open-log':
      $('#dlg-log').showModal();
      checkLog(view);
      return $('#log-text').focus();
    case 'log-load': return loadLogNow(view);
    case 'heartbeat': return s.heartbeat(label);
    case 'revoke': return s.revoke(label);
    case 'leave': return s.leave(label);
    case 'static-leave': return s.staticLeave(label);
    case 'crash': return s.crash(label);
    case 'restart': return s.restart(label);
    case 'shutdown': return s.shutdown(label);
    case 'add-partitions': return s.addPartitions(data.topic, 1);
    case 'delete-topic': return s.deleteTopic(data.topic);
    case 'create-requested': return s.createRequestedTopics();
    case 'edit-topology': return openTopology(view);
    case 'topology-template': return topologyTemplate(view);
    case 'topology-apply': return applyTopology(view, false);
    case 'topology-apply-init': return applyTopology(view, true);
    case 'new':
      return newTimeline(view, {});
    case 'save':
      return download(view, `${slug(s.name)}.playground.json`, toJson(s.toScenario(), 1));
    case 'open':
      return $('#file').click();
    case 'export':
      return download(view, `${slug(s.name)}.json`, `${toJson(s.toTestScenario(), 1)}\n`);
    case 'share':
      return void share(view);
    case 'copy-share':
      navigator.clipboard?.writeText($('#share-url').value).then(() => toast(view, 'Link copied.'), () => {
        $('#share-url').select();
        toast(view, 'Select the link and copy it.');
      });
      return;
    default:
      throw new Error(`unknown action ${action}`);
  }
}

/** A new, empty timeline (a coordinator has one dialect: switching starts over). */
function newTimeline(view, { dialect }) {
  const s = view.session;
  const config = { ...s.config };
  if (dialect) config.dialect = dialect;
  s.reset({ app: { ...s.app, topology: s.appNow.topology, topologyEpoch: 0 }, config });
  clearHash();
  s.name = 'Untitled';
  $('#preset').value = '';
  $('#preset-desc').textContent = '';
  toast(view, `A new, empty scenario (${s.dialect}). Create a topic, then add a member.`);
}

// -- logs ---------------------------------------------------------------------------------------

async function takeLogFile(view, f) {
  const bytes = new Uint8Array(await f.arrayBuffer());
  // Text stays editable in the box; a binary segment is kept as bytes.
  const text = bytes[0] === 0 ? null : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  view.pendingLog = { name: f.name, bytes };
  $('#log-text').value = text ?? `(${bytes.length} bytes of a raw log segment: ${f.name})`;
  checkLog(view);
}

function logSource(view) {
  if (view.pendingLog) return { name: view.pendingLog.name, data: view.pendingLog.bytes };
  return { name: 'the pasted log', data: $('#log-text').value };
}

function checkLog(view) {
  const st = $('#log-status');
  const { data } = logSource(view);
  if (!data || (typeof data === 'string' && !data.trim())) {
    st.textContent = 'Paste a log or drop a file.';
    st.classList.remove('bad');
    return null;
  }
  try {
    const read = readLog(data, $('#log-dialect').value || undefined);
    const groups = new Set(read.records.map((r) => r.record.key.data.groupId));
    st.textContent = `${read.records.length} streams group records (${read.form}, ${read.dialect}) of ${groups.size} group${groups.size === 1 ? '' : 's'}${read.skipped ? `; ${read.skipped} other records skipped` : ''}.`;
    st.classList.remove('bad');
    return read;
  } catch (e) {
    st.textContent = e.message;
    st.classList.add('bad');
    return null;
  }
}

function loadLogNow(view) {
  const { name, data } = logSource(view);
  const dialect = $('#log-dialect').value || undefined;
  const read = readLog(data, dialect);
  const told = history(data, dialect);
  view.session.loadLog(read, told, name);
  clearHash();
  $('#preset').value = '';
  $('#preset-desc').textContent = view.session.description;
  $('#dlg-log').close();
  selectTab(view, 'history', false);
  toast(view, `Replayed ${read.records.length} records of ${told.groups.length} group${told.groups.length === 1 ? '' : 's'}.`);
}

function applySettings(view) {
  const cfg = { ...view.session.config };
  const num = (sel) => Number($(sel).value);
  cfg['group.streams.session.timeout.ms'] = num('#set-session');
  cfg['group.streams.heartbeat.interval.ms'] = num('#set-heartbeat');
  cfg['group.streams.num.standby.replicas'] = num('#set-standby');
  cfg.assignor = $('#set-assignor').value;
  cfg.recordBytes = $('#set-bytes').checked;
  const groupId = $('#set-group').value.trim();
  if (!groupId) throw new Error('The group id must not be empty.');
  if (groupId !== view.session.app.groupId && view.session.steps.length) {
    throw new Error('The group id can only be changed in an empty scenario (New).');
  }
  const before = view.session.toScenario();
  const sc = structuredClone(before);
  sc.config = cfg;
  sc.app = { ...sc.app, groupId, tickMs: num('#set-tick') };
  try {
    view.session.load(sc);
  } catch (e) {
    view.session.load(before);
    throw e;
  }
  toast(view, 'Settings applied; the timeline was re-run with them.');
}

async function share(view) {
  const frag = await encodeFragment(view.session.toScenario());
  const url = `${location.origin}${location.pathname}#${frag}`;
  $('#share-url').value = url;
  $('#share-open').href = url;
  $('#dlg-share').showModal();
  $('#share-url').select();
}

function download(view, name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  toast(view, `Downloaded ${name}.`);
}

function slug(s) {
  return String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario';
}

function toast(view, text, error = false) {
  const t = $('#toast');
  t.textContent = text;
  t.classList.toggle('error', error);
  t.classList.add('show');
  clearTimeout(view.toastTimer);
  view.toastTimer = setTimeout(() => t.classList.remove('show'), error ? 7000 : 3500);
}

// -- the topology dialog ------------------------------------------------------------------------

function openTopology(view) {
  $('#topology-text').value = JSON.stringify(view.session.appNow.topology, null, 2);
  checkTopologyText();
  $('#dlg-topology').showModal();
  $('#topology-text').focus();
}

function parseTopologyText() {
  const topology = JSON.parse($('#topology-text').value);
  const id = topologyId(topology);
  return { topology, id };
}

function checkTopologyText() {
  const st = $('#topology-status');
  try {
    const { id } = parseTopologyText();
    st.textContent = `topology id ${id}`;
    st.classList.remove('bad');
  } catch (e) {
    st.textContent = e.message;
    st.classList.add('bad');
  }
}

function topologyTemplate(view) {
  const src = view.session.snapshot().topics[0]?.name ?? 'orders';
  const app = view.session.app.groupId;
  const topology = [
    { subtopologyId: '0', sourceTopics: [src], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [`${app}-by-key-repartition`], repartitionSourceTopics: [], copartitionGroups: [] },
    {
      subtopologyId: '1', sourceTopics: [], sourceTopicRegex: [],
      stateChangelogTopics: [{ name: `${app}-by-key-counts-changelog`, partitions: 0, replicationFactor: -1, topicConfigs: [] }],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [{ name: `${app}-by-key-repartition`, partitions: 0, replicationFactor: -1, topicConfigs: [] }],
      copartitionGroups: [],
    },
  ];
  $('#topology-text').value = JSON.stringify(topology, null, 2);
  checkTopologyText();
}

function applyTopology(view, init) {
  const { topology } = parseTopologyText();
  view.session.setTopology(topology);
  if (init) view.session.initialize();
  $('#dlg-topology').close();
}

// ---------------------------------------------------------------------------------------------
// Drawing

function render(view) {
  const t0 = performance.now();
  const parts = [];
  for (const [name, fn] of [['transport', renderTransport], ['actions', renderActions], ['groups', renderGroupsBox], ['manual', (v) => renderManual(v, false)], ['group', renderGroup], ['chart', renderChart], ['timeline', renderTimeline], ['details', renderDetails]]) {
    const t = performance.now();
    fn(view);
    parts.push(`${name}:${Math.round(performance.now() - t)}`);
  }
  document.body.dataset.renderParts = parts.join(' ');
  // How long the last redraw took (the browser tests read it).
  document.body.dataset.renderMs = String(Math.round(performance.now() - t0));
}

function replayBadge(view, replay) {
  if (!replay) return `<button type="button" class="replay link" id="replay-check" data-action="replay-check" data-key="replay-check" title="A fresh coordinator replays the ${view.session.records().length} records written so far and compares what it rebuilds with this state">Check the rebuild from records</button>`;
  return `<span class="replay ${replay.equal ? 'ok' : 'bad'}" id="replay-check" title="A fresh coordinator replaying the ${replay.records} records written so far rebuilds ${replay.equal ? 'exactly this state' : 'a different state'}">${replay.equal ? '✓' : '✗'} rebuilt from ${replay.records} records</span>`;
}



function invariantsBadge(violations) {
  if (violations.length === 0) return '<span class="replay ok" id="invariants" title="One active owner per task, no process targeted two copies of a task, assignment epoch ≤ group epoch (the testing tools\' checks)">✓ invariants</span>';
  return `<span class="replay bad" id="invariants" title="${esc(violations.join('\n'))}">✗ ${violations.length} invariant${violations.length === 1 ? '' : 's'} violated</span>`;
}

function colorOf(view, label) {
  const i = view.session.clients.list.findIndex((c) => c.label === label);
  if (i < 0) return '#64748b';
  if (i < PALETTE.length) return PALETTE[i];
  // Beyond the palette: evenly spread hues, so that a big group's owners stay apart.
  return `hsl(${Math.round((i * 137.508) % 360)} 65% ${i % 2 ? 42 : 55}%)`;
}

function avatarText(label) {
  if (label.length <= 2) return label;
  const m = /[-_.]([A-Za-z0-9]{1,2})$/.exec(label);
  return m ? m[1] : label.slice(0, 2);
}

/** Member ids and topology ids in a coordinator message, as the page names them. */
function humanize(view, text) {
  return String(text)
    .replace(/\b[0-9a-f]{64}\b/g, (h) => short(h))
    .replace(/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g, (id) => view.session.clients.labelOf(id) ?? id);
}

function nameOf(view, memberId) {
  return view.session.clients.labelOf(memberId) ?? short(memberId);
}

function timerText(view, t, now) {
  const groupTimer = t.kind === 'retention' || t.kind === 'initial-rebalance-delay' || t.kind === 'assignment-interval';
  const who = groupTimer ? t.groupId : t.kind === 'topology-initialization' ? `topology ${short(t.subject)}` : nameOf(view, t.subject);
  return { who, left: fmtTime(Math.max(0, Number(t.deadlineMs) - now)) };
}

function renderTransport(view) {
  const s = view.session;
  $('#scrub').max = String(s.steps.length);
  $('#scrub').value = String(s.cursor);
  $('#step-counter').textContent = `Step ${s.cursor} of ${s.steps.length}`;
  $('#clock').textContent = fmtTime(s.clockMs());
  const next = s.nextDeadline();
  const btn = $('#btn-next-timer');
  btn.disabled = !next;
  if (next) {
    const { who, left } = timerText(view, next, s.clockMs());
    btn.innerHTML = `<span class="long">Advance to next timer</span><span class="short">Next timer</span>: ${esc(next.kind)} ${esc(who)} in ${esc(left)}`;
  } else {
    btn.innerHTML = '<span class="long">Advance to next timer</span><span class="short">Next timer</span> (none pending)';
  }
  for (const a of ['start', 'back']) document.querySelector(`[data-action="${a}"]`).disabled = s.cursor === 0;
  for (const a of ['forward', 'end']) document.querySelector(`[data-action="${a}"]`).disabled = s.cursor === s.steps.length;
}

function suggestInstanceId(view) {
  const base = view.session.app.groupId.replace(/-app$/, '');
  for (let i = 1; ; i++) {
    const id = `${base}-${i}`;
    if (!view.session.clients.list.some((c) => c.instanceId === id)) return id;
  }
}

function syncAddMember(view) {
  const form = $('#add-member');
  const isStatic = form.kind.value === 'static';
  $('#instance-field').hidden = !isStatic;
  if (isStatic && !form.instance.value) form.instance.value = suggestInstanceId(view);
}

function renderActions(view) {
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
  $('#app-topology-kind').textContent = s.is42 ? 'epoch' : 'id';
  $('#app-topology-id').textContent = s.is42 ? String(s.appNow.topologyEpoch ?? 0) : short(tid);
  $('#app-topology-id').title = tid;
  $('#topology-note').hidden = !s.is42;
  document.querySelector('.actions [data-action="initialize"]').hidden = s.is42;
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
function renderGroupsBox(view) {
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

/** Every task of the group per the coordinator's configuration result (snapshot). */
function configuredTasks(g) {
  const keys = [];
  for (const st of g?.configuration?.subtopologies ?? []) for (let p = 0; p < Number(st.numTasks); p++) keys.push(`${st.subtopologyId}_${p}`);
  return keys;
}

/** The manual assignor's forms: a member's task picks, and moving one task. */
function renderManual(view, memberChanged) {
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

/** Per-step data of the picked group for the chart. */
function chartData(view) {
  const s = view.session;
  const gid = s.app.groupId;
  const rows = [];
  for (let i = 0; i < s.outputs.length; i++) {
    const g = s.summaries[i]?.[gid];
    rows.push(g ? { ...g } : { epoch: 0, stable: 0, busy: 0, moved: null });
  }
  return rows;
}

/** A small SVG chart along the timeline: group epoch, members by state, tasks moved. */
function renderChart(view) {
  const s = view.session;
  const rows = chartData(view);
  const el = $('#chart');
  if (!rows.length) {
    el.innerHTML = '<p class="muted small">No steps yet.</p>';
    return;
  }
  const W = 600;
  const H = 120;
  const n = rows.length;
  const x = (i) => ((i + 0.5) / n) * W;
  const bw = Math.max(1, W / n - (n > 150 ? 0 : 1));
  const maxM = Math.max(1, ...rows.map((r) => r.stable + r.busy));
  const maxE = Math.max(1, ...rows.map((r) => r.epoch));
  const maxMv = Math.max(1, ...rows.map((r) => r.moved ?? 0));
  const bars = [];
  rows.forEach((r, i) => {
    const hs = ((r.stable) / maxM) * 60;
    const hb = ((r.busy) / maxM) * 60;
    if (hs) bars.push(`<rect class="c-stable" x="${(x(i) - bw / 2).toFixed(1)}" y="${(H - hs).toFixed(1)}" width="${bw.toFixed(1)}" height="${hs.toFixed(1)}"/>`);
    if (hb) bars.push(`<rect class="c-busy" x="${(x(i) - bw / 2).toFixed(1)}" y="${(H - hs - hb).toFixed(1)}" width="${bw.toFixed(1)}" height="${hb.toFixed(1)}"/>`);
    if (r.moved !== null) bars.push(`<circle class="c-moved" cx="${x(i).toFixed(1)}" cy="${(44 - (r.moved / maxMv) * 38).toFixed(1)}" r="3"><title>step ${i + 1}: ${r.moved} tasks moved or reassigned</title></circle>`);
  });
  const pts = rows.map((r, i) => `${x(i).toFixed(1)},${(50 - (r.epoch / maxE) * 44).toFixed(1)}`).join(' ');
  const cur = s.cursor > 0 ? `<line class="c-cursor" x1="${x(s.cursor - 1).toFixed(1)}" x2="${x(s.cursor - 1).toFixed(1)}" y1="0" y2="${H}"/>` : '';
  const at = rows[s.cursor - 1];
  el.innerHTML = `<svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" class="chart" role="img" aria-label="Group epoch, members by state and tasks moved along the timeline" data-steps="${n}">
    ${bars.join('')}<polyline class="c-epoch" points="${pts}"/>${cur}</svg>
    <p class="small chart-now" id="chart-now">${at ? `Step ${s.cursor}: group epoch <strong data-field="chart-epoch">${at.epoch}</strong>, <span data-field="chart-stable">${at.stable}</span> reconciled, <span data-field="chart-busy">${at.busy}</span> reconciling${at.moved !== null ? `, <span data-field="chart-moved">${at.moved}</span> tasks moved or reassigned` : ''}.` : 'The start.'} Max epoch ${maxE}, max ${maxM} members.</p>`;
  el.querySelector('svg').addEventListener('click', (ev) => {
    const r = ev.currentTarget.getBoundingClientRect();
    const i = Math.floor(((ev.clientX - r.left) / r.width) * n);
    run(view, () => view.session.goTo(Math.max(0, Math.min(n, i + 1))));
  });
}

function chips(keys, cls, field, extra = '') {
  if (!keys.length) return `<span class="none" data-field="${field}">–</span>`;
  return `<span class="chips" data-field="${field}">${keys.map((k) => `<span class="chip ${cls}" ${extra}>${esc(k)}</span>`).join('')}</span>`;
}

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
  }
  return out.join('');
}

function memberCard(view, m, g, c, timers, now, epochs) {
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

function taskMap(view, g) {
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
  for (const [code, detail] of statuses) if (code !== 0 || s.is42) lines.push(`<p class="status-line"><span class="status">${esc(statusName(code, s.dialect))}</span> ${esc(humanize(view, detail))}</p>`);
  if (hist.length > 1) {
    lines.push(`<details class="history"><summary>Rebalance history (${hist.length} epoch bumps)</summary><ol>${hist.map((h, i) => `<li><button type="button" class="link" data-action="jump" data-to="${h.step + 1}" data-key="hist:${i}">step ${h.step + 1}</button> epoch ${h.from} → ${h.to}: ${esc(h.reasons.map(reasonText).join('; '))} <span class="muted">(${esc(h.title)})</span></li>`).join('')}</ol></details>`);
  }
  return `<section class="why" aria-label="Why the group is in this state"><h3>Why?</h3>${lines.join('')}</section>`;
}

function renderGroup(view) {
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
    const steps = s.is42
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
  const topo = s.is42
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
    ${big ? memberTable(view, members, g, epochs) : `<section class="members" aria-label="Members">
      ${members.length ? members.map((m) => memberCard(view, m, g, s.clients.byMemberId(m.memberId), snap.timers, now, epochs.get(m.memberId))).join('') : '<p class="muted">No members.</p>'}
    </section>`}
    ${outsideClients(view, outside)}`;
}

const STATE_ORDER = { UNREVOKED_TASKS: 0, UNRELEASED_TASKS: 1, STABLE: 2, UNKNOWN: 3 };

/** A big group's members as rows that can be filtered and sorted. */
function memberTable(view, members, g, epochs) {
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

function outsideClients(view, list) {
  if (!list.length) return '';
  return `<section class="outside" aria-label="Clients outside the group"><h3>Clients outside the group</h3><ul>${list.map((c) => `<li style="--c:${colorOf(view, c.label)}" data-label="${esc(c.label)}">
    <span class="avatar small" aria-hidden="true">${esc(avatarText(c.label))}</span>
    <span class="oname">${esc(c.label)}</span>
    <span class="phase p-${esc(c.phase)}">${esc(c.phase === 'member' ? 'removed by the coordinator; the client finds out at its next heartbeat' : PHASE_TEXT[c.phase] ?? c.phase)}</span>
    ${c.lastError ? `<span class="err">${esc(typeof c.lastError.code === 'number' ? errorName(c.lastError.code) : c.lastError.code)}</span>` : ''}
    <span class="card-actions">${memberButtons(c, null)}</span></li>`).join('')}</ul></section>`;
}

function stepBadges(view, i) {
  const s = view.session;
  const out = s.outputs[i];
  const step = s.steps[i];
  const b = [];
  if (step.event === 'note') b.push('<span class="badge note">note</span>');
  else if (step.event) b.push('<span class="badge client">client side</span>');
  if (out?.error) b.push(`<span class="badge err">${esc(out.error.code)}</span>`);
  const code = out?.response?.errorCode;
  if (typeof code === 'number' && code !== 0) b.push(`<span class="badge err" title="${esc(errorName(code, s.dialect))}">error ${code}</span>`);
  for (const r of out?.response?.results ?? []) if (r.errorCode) b.push(`<span class="badge err">error ${r.errorCode}</span>`);
  for (const e of out?.explain ?? []) {
    if (e.code === 'GROUP_EPOCH_BUMPED') b.push(`<span class="badge bump" title="${esc(e.reasons.join(', '))}">epoch ${e.from}→${e.to}</span>`);
    if (e.code === 'MEMBER_FENCED') b.push(`<span class="badge err">fenced ${esc(nameOf(view, e.memberId))}</span>`);
  }
  for (const e of out?.explain ?? []) if (e.code === 'TARGET_ASSIGNMENT_COMPUTED' && Number(e.tasksReassigned) > 0) b.push(`<span class="badge bump" title="tasks of departed members given to others">${esc(e.tasksReassigned)} reassigned</span>`);
  if (out?.records?.length) b.push(`<span class="badge rec">${out.records.length} rec</span>`);
  return b.join('');
}


function renderTimeline(view) {
  const s = view.session;
  const ol = $('#timeline');
  const gid = s.app.groupId;
  const many = s.groupIds().length > 1;
  const sig = `${s.version}|${s.steps.length}|${s.outputs.length}|${gid}|${many}`;
  if (sig !== view.timelineSig || ol.children.length !== s.steps.length + 1) {
    // The items change only when steps do; moving the cursor only moves classes (below).
    view.timelineSig = sig;
    const items = ['<li><button type="button" class="tl" data-action="jump" data-to="0" data-key="tl:0"><span class="tl-n">0</span><span class="tl-t">–</span><span class="tl-main"><span class="tl-title">Start: empty coordinator</span></span></button></li>'];
    s.steps.forEach((step, i) => {
      // With several groups the timeline follows the pick: other groups' steps fold away.
      const other = many && i < s.outputs.length && !s.stepConcerns(i, gid);
      const t = step.input?.nowMs;
      items.push(`<li${other ? ' data-other="1"' : ''}><button type="button" class="tl" data-action="jump" data-to="${i + 1}" data-key="tl:${i + 1}">
      <span class="tl-n">${i + 1}</span><span class="tl-t">${t === undefined ? '·' : esc(fmtTime(t))}</span>
      <span class="tl-main"><span class="tl-title">${esc(stepTitle(step))}</span><span class="tl-badges">${s.outputs[i] || step.event ? stepBadges(view, i) : ''}</span></span></button></li>`);
    });
    ol.innerHTML = items.join('');
  }
  const lis = ol.children;
  for (let k = 0; k < lis.length; k++) {
    const li = lis[k];
    const cls = `${k === s.cursor ? 'current' : k > s.cursor ? 'future' : ''}${li.dataset.other && k !== s.cursor ? ' other-group' : ''}`;
    if (li.className !== cls) li.className = cls;
    const btn = li.firstElementChild;
    if (k === s.cursor) btn.setAttribute('aria-current', 'step');
    else if (btn.hasAttribute('aria-current')) btn.removeAttribute('aria-current');
  }
  const cur = lis[s.cursor];
  const box = ol.closest('.timeline-box');
  if (cur && box.scrollHeight > box.clientHeight) {
    const b = box.getBoundingClientRect();
    const r = cur.getBoundingClientRect();
    if (r.top < b.top + 36 || r.bottom > b.bottom - 8) box.scrollTop += r.top - b.top - box.clientHeight / 2;
  }
}

function selectTab(view, name, focus) {
  view.tab = name;
  for (const b of document.querySelectorAll('[role="tab"]')) {
    const on = b.dataset.tab === name;
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
    if (on && focus) b.focus();
  }
  for (const p of document.querySelectorAll('[role="tabpanel"]')) p.hidden = p.id !== `pane-${name}`;
  renderDetails(view);
}

function recordHtml(view, r, stepNo) {
  const type = r.key?.type;
  const d = r.key?.data ?? {};
  const who = d.memberId ? ` · ${esc(nameOf(view, d.memberId))}` : '';
  const tomb = r.value === null ? ' <span class="badge err">tombstone</span>' : '';
  const json = { key: r.key, value: r.value };
  let bytes = '';
  if (view.showHex) {
    bytes = r.keyBytes !== undefined
      ? `<div class="hexcol"><div class="hex-h">key bytes</div><code class="hex" data-field="key-hex">${esc(hexOf(r.keyBytes))}</code><div class="hex-h">value bytes</div><code class="hex" data-field="value-hex">${r.valueBytes === null ? '(tombstone: no value)' : esc(hexOf(r.valueBytes))}</code></div>`
      : '<div class="hexcol muted small">No bytes: turn on <em>Record bytes</em> in Settings.</div>';
  }
  return `<li class="rec${view.showHex ? ' with-hex' : ''}"><div class="rhead">${stepNo !== undefined ? `<span class="muted">#${stepNo}</span> ` : ''}<span class="rtype">${esc(type)} ${esc(recordName(type, view.session.dialect))}</span>${who}${tomb}</div><div class="rbody"><code class="json">${esc(toJson(view.showHex ? json : r))}</code>${bytes}</div></li>`;
}

/** The history of a loaded log, told from its records alone (the `history` function). */
function renderHistory(view) {
  const s = view.session;
  const pane = $('#pane-history');
  let told = s.logHistory;
  if (!told) {
    const step = s.steps.find((x) => x.action === 'replay-log' && x.input?.records);
    if (step) {
      try {
        told = history(toJson(step.input.records), s.dialect);
        s.logHistory = told;
      } catch (e) {
        pane.innerHTML = `<p class="bad">${esc(e.message)}</p>`;
        return;
      }
    }
  }
  if (!told) {
    pane.innerHTML = '<p class="muted">No log loaded. <em>Load log…</em> reads <code>kafka-dump-log.sh --offsets-decoder</code> output, a raw <code>__consumer_offsets</code> segment or JSON records, and tells each group\'s history from the records alone.</p>';
    return;
  }
  const groups = told.groups.map((g) => {
    const sum = g.summary;
    let epoch = null;
    const items = g.events.map((e) => {
      const head = e.code === 'GROUP_EPOCH_BUMPED' ? `<li class="h-epoch" data-epoch="${esc(e.to)}">epoch ${esc(e.to)}</li>` : '';
      epoch = e.code === 'GROUP_EPOCH_BUMPED' ? e.to : epoch;
      const at = [e.offset !== null && e.offset !== undefined ? `@${e.offset}` : '', e.timestampMs !== null && e.timestampMs !== undefined ? fmtTime(e.timestampMs) : ''].filter(Boolean).join(' ');
      return `${head}<li class="h-ev ev-${esc(e.code)}" data-code="${esc(e.code)}"><span class="h-at mono">${esc(at)}</span><span>${esc(e.text)}</span></li>`;
    }).join('');
    return `<section class="h-group" data-group="${esc(g.groupId)}"><h3>${esc(g.groupId)} <span class="muted small">${esc(sum.epochBumps)} epoch bumps · now ${esc(sum.state)} at epoch ${esc(sum.groupEpoch ?? '–')} with ${esc(sum.members)} members${sum.slowestReconcileMs !== null && sum.slowestReconcileMs !== undefined ? ` · slowest reconciliation ${esc(fmtTime(sum.slowestReconcileMs))}` : ''}</span></h3><ol class="h-events">${items}</ol></section>`;
  }).join('');
  pane.innerHTML = `<p class="small" id="history-head">${esc(told.records)} records (${esc(told.dialect)})${told.skipped ? `, ${esc(told.skipped)} of other kinds skipped` : ''}. Told from the records alone: a leave and a timeout write the same records, so such removals say “left or was fenced”.</p>${groups}`;
}

function renderDetails(view) {
  const s = view.session;
  const i = s.cursor - 1;
  const why = $('#pane-why');
  const recs = $('#pane-records');
  const io = $('#pane-io');
  if (view.tab === 'why') {
    if (i < 0) {
      why.innerHTML = `<p class="lead">The start: a fresh coordinator with no groups and no topics.</p><p>Step forward (→) to see what each input does. The <em>Why</em> tab answers, for every step, what changed and why: epoch bumps with their reasons, fencing causes, tasks moved, and what each client was told.</p>`;
    } else {
      const items = explainStep(s, i);
      why.innerHTML = `<h3 class="step-h">Step ${i + 1}: ${esc(stepTitle(s.steps[i]))}</h3>${s.steps[i].input ? `<p class="muted small">at ${esc(fmtTime(s.steps[i].input.nowMs))}</p>` : ''}<ul class="explain">${items.map((e) => `<li class="ex ex-${esc(e.kind)}"><span class="ex-k">${esc(e.kind)}</span><span>${esc(humanize(view, e.text))}</span></li>`).join('')}</ul>`;
    }
  } else if (view.tab === 'records') {
    const head = `<div class="row spread"><label class="check"><input type="checkbox" id="whole-log" ${view.wholeLog ? 'checked' : ''}> Whole log up to this step</label><label class="check"><input type="checkbox" id="show-hex" ${view.showHex ? 'checked' : ''}> Bytes (hex)</label><span class="muted small">dump-log JSON form</span></div>`;
    let list = '';
    if (view.wholeLog) {
      const all = [];
      for (let k = 0; k < s.cursor; k++) for (const r of s.outputs[k]?.records ?? []) all.push(recordHtml(view, r, k + 1));
      list = all.length ? `<ol class="records">${all.join('')}</ol>` : '<p class="muted">No records yet.</p>';
    } else if (i < 0) {
      list = '<p class="muted">No step yet.</p>';
    } else {
      const rs = s.outputs[i]?.records ?? [];
      list = rs.length ? `<ol class="records">${rs.map((r) => recordHtml(view, r)).join('')}</ol>` : '<p class="muted">This step wrote no records.</p>';
    }
    recs.innerHTML = head + list;
    $('#whole-log').addEventListener('change', (ev) => {
      view.wholeLog = ev.target.checked;
      renderDetails(view);
      $('#whole-log').focus();
    });
  } else if (view.tab === 'history') {
    renderHistory(view);
  } else {
    if (i < 0) {
      io.innerHTML = '<p class="muted">No step yet.</p>';
    } else {
      const step = s.steps[i];
      const text = s.texts[i];
      io.innerHTML = `<h3>Input</h3><pre class="json">${esc(toJson(step.input ?? { event: step.event, actor: step.actor, topology: step.topology }, 2))}</pre>
        <h3>Output</h3><pre class="json">${text ? esc(toJson(parseJson(text), 2)) : '(a client-side event: no input, no output)'}</pre>`;
    }
  }
}

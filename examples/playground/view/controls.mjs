// The page's controls: every click, key and form turned into an action on the session, each run
// by `run`, which reports errors and redraws.
import { toJson } from '../model.mjs';
import { renderManual, suggestInstanceId, syncAddMember } from './actions-panel.mjs';
import { stepAtClick } from './chart.mjs';
import { renderDetails, selectTab } from './details.mjs';
import { checkLog, loadLogNow, takeLogFile } from './log-dialog.mjs';
import { $, toast } from './page.mjs';
import { render } from './render.mjs';
import { download, loadFile, loadFragment, loadPreset, newTimeline, share, slug } from './scenarios.mjs';
import { applyTopology, checkTopologyText, openTopology, topologyTemplate } from './topology-dialog.mjs';

/** Wires every control of the page to `view`, once. */
export function wire(view) {
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
  // The chart is drawn anew at every redraw; its box takes the clicks on it.
  $('#chart').addEventListener('click', (ev) => {
    const svg = ev.target.closest('svg.chart');
    if (svg) run(view, () => view.session.goTo(stepAtClick(svg, ev)));
  });
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
    run(view, () => loadFile(view, f.name, text));
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
export function run(view, fn) {
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
    case 'commit': return s.commit(label);
    case 'stale-commit': return s.staleCommit(label);
    case 'zombie-commit': return s.zombieCommit(label);
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

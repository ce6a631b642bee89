// The playground page: draws the session (model.mjs) and turns clicks into actions. The view is
// one module per part of the page (view/): page.mjs (what every panel draws with), controls.mjs
// (events and actions), render.mjs (one redraw of every panel), the panels (actions-panel.mjs,
// group.mjs, members.mjs, task-map.mjs, chart.mjs, timeline-list.mjs, details.mjs), the dialogs
// (log-dialog.mjs, topology-dialog.mjs) and scenarios.mjs (presets, links, files).
import { ready, Coordinator, topologyId, version } from './web.mjs';
import { Session } from './model.mjs';
import { PRESETS } from './presets.mjs';
import { $, esc } from './view/page.mjs';
import { wire } from './view/controls.mjs';
import { render } from './view/render.mjs';
import { loadFragment, loadPreset } from './view/scenarios.mjs';

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

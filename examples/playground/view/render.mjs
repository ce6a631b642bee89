// One redraw of every part of the page, each timed (the browser tests read the times).
import { renderActions, renderGroupsBox, renderManual } from './actions-panel.mjs';
import { renderChart } from './chart.mjs';
import { renderDetails } from './details.mjs';
import { renderGroup } from './group.mjs';
import { renderTimeline, renderTransport } from './timeline-list.mjs';

/** Redraws every part of the page from `view`. */
export function render(view) {
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

// The chart along the timeline: the picked group's epoch, members by state and tasks moved at
// every step (from the session's per-step summaries); a click on it jumps to that step.
import { $ } from './page.mjs';

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
export function renderChart(view) {
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
}

/** The step (cursor) a click at `ev` on the chart's `svg` stands for. */
export function stepAtClick(svg, ev) {
  const n = Number(svg.dataset.steps);
  const r = svg.getBoundingClientRect();
  const i = Math.floor(((ev.clientX - r.left) / r.width) * n);
  return Math.max(0, Math.min(n, i + 1));
}

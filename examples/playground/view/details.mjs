// The details tabs of the step at the cursor: Why (what changed and why), Records, Input &
// output, and the history of a loaded log.
import { history } from '../web.mjs';
import { explainStep, fmtTime, hexOf, parseJson, recordName, stepTitle, toJson } from '../model.mjs';
import { $, esc, humanize, nameOf } from './page.mjs';

/** Shows the tab `name` (and focuses it when `focus`). */
export function selectTab(view, name, focus) {
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
  // Damage is never silent: the history stops at the first damaged place, and says so.
  const at = (d) => (d.line !== null && d.line !== undefined ? `line ${d.line}` : `byte ${d.position}`);
  const damage = (told.damage ?? []).map((d) => `<li>${esc(at(d))}: ${esc(d.message)}</li>`).join('');
  const warnings = (told.warnings ?? []).map((d) => `<li>${esc(at(d))}: ${esc(d.message)}</li>`).join('');
  pane.innerHTML = `<p class="small" id="history-head">${esc(told.records)} records (${esc(told.dialect)})${told.skipped ? `, ${esc(told.skipped)} of other kinds skipped` : ''}. Told from the records alone: a leave and a timeout write the same records, so such removals say “left or was fenced”.</p>${damage ? `<div class="bad" id="history-damage"><p>The log is damaged: the history is told up to the first damaged place.</p><ul>${damage}</ul></div>` : ''}${warnings ? `<div class="muted small" id="history-warnings"><p>Read leniently (a newer release's fields left out):</p><ul>${warnings}</ul></div>` : ''}${groups}`;
}

/** The picked tab's pane for the step at the cursor. */
export function renderDetails(view) {
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
      const wire = step.input ? wireBytes(s.coord, step.input, i) : null;
      io.innerHTML = `<h3>Input</h3><pre class="json">${esc(toJson(step.input ?? { event: step.event, actor: step.actor, topology: step.topology }, 2))}</pre>
        ${wire ? `<h3>On the wire</h3><p class="small">The request frame a Kafka client sends for this input (${wire.length} bytes after the 4-byte size: header, then body).</p><pre class="mono hex">${esc(hexDump(wire))}</pre>` : ''}
        <h3>Output</h3><pre class="json">${text ? esc(toJson(parseJson(text), 2)) : '(a client-side event: no input, no output)'}</pre>`;
    }
  }
}

/** The request frame of a JSON input, or null when it is no request of the dialect. */
function wireBytes(coord, input, correlationId) {
  if (typeof coord?.encodeRequest !== 'function') return null;
  try {
    return coord.encodeRequest(input, 0, correlationId);
  } catch {
    return null;
  }
}

/** Bytes as lines of 16, each with its offset. */
export function hexDump(bytes) {
  const lines = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = Array.from(bytes.subarray(at, at + 16), (b) => b.toString(16).padStart(2, '0'));
    lines.push(`${at.toString(16).padStart(4, '0')}  ${row.join(' ')}`);
  }
  return lines.join('\n');
}

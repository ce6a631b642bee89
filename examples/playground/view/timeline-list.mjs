// Where the cursor is: the transport bar (scrubber, step counter, clock, next timer) and the
// timeline's list of steps with their badges.
import { errorName, fmtTime, stepTitle } from '../model.mjs';
import { $, esc, nameOf, timerText } from './page.mjs';

/** The transport bar: scrubber, step counter, clock, next timer, step buttons. */
export function renderTransport(view) {
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
  // An offset commit answers per partition: one badge per error code among them.
  const refused = new Set();
  for (const t of out?.response?.topics ?? []) for (const p of t.partitions ?? []) if (p.errorCode) refused.add(p.errorCode);
  for (const c of refused) b.push(`<span class="badge err" title="${esc(errorName(c, s.dialect))}">error ${c}</span>`);
  for (const e of out?.explain ?? []) {
    if (e.code === 'GROUP_EPOCH_BUMPED') b.push(`<span class="badge bump" title="${esc(e.reasons.join(', '))}">epoch ${e.from}→${e.to}</span>`);
    if (e.code === 'MEMBER_FENCED') b.push(`<span class="badge err">fenced ${esc(nameOf(view, e.memberId))}</span>`);
  }
  for (const e of out?.explain ?? []) if (e.code === 'TARGET_ASSIGNMENT_COMPUTED' && Number(e.tasksReassigned) > 0) b.push(`<span class="badge bump" title="tasks of departed members given to others">${esc(e.tasksReassigned)} reassigned</span>`);
  if (out?.records?.length) b.push(`<span class="badge rec">${out.records.length} rec</span>`);
  return b.join('');
}

/** The list of steps: rebuilt when the steps change, classes moved with the cursor. */
export function renderTimeline(view) {
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

// What every part of the page draws with: element lookup and escaping, the colour, avatar and
// name of a member, timer texts, the toast, and the sizes beyond which a group is drawn compact.
import { fmtTime, short } from '../model.mjs';

export const $ = (sel) => document.querySelector(sel);
const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
const PALETTE = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2', '#dc2626', '#65a30d', '#9333ea', '#0d9488'];

/** Members beyond this many are listed as rows, not cards; tasks beyond it are drawn compact. */
export const BIG_MEMBERS = 12;
export const BIG_TASKS = 64;

/** A client's colour: the palette's in start order, then spread hues. */
export function colorOf(view, label) {
  const i = view.session.clients.list.findIndex((c) => c.label === label);
  if (i < 0) return '#64748b';
  if (i < PALETTE.length) return PALETTE[i];
  // Beyond the palette: evenly spread hues, so that a big group's owners stay apart.
  return `hsl(${Math.round((i * 137.508) % 360)} 65% ${i % 2 ? 42 : 55}%)`;
}

/** One or two characters for a client's avatar. */
export function avatarText(label) {
  if (label.length <= 2) return label;
  const m = /[-_.]([A-Za-z0-9]{1,2})$/.exec(label);
  return m ? m[1] : label.slice(0, 2);
}

/** Member ids and topology ids in a coordinator message, as the page names them. */
export function humanize(view, text) {
  return String(text)
    .replace(/\b[0-9a-f]{64}\b/g, (h) => short(h))
    .replace(/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g, (id) => view.session.clients.labelOf(id) ?? id);
}

/** A member's client label, or its shortened id. */
export function nameOf(view, memberId) {
  return view.session.clients.labelOf(memberId) ?? short(memberId);
}

/** Whom a timer is for and how long it has left. */
export function timerText(view, t, now) {
  const groupTimer = t.kind === 'retention' || t.kind === 'initial-rebalance-delay' || t.kind === 'assignment-interval';
  const who = groupTimer ? t.groupId : t.kind === 'topology-initialization' ? `topology ${short(t.subject)}` : nameOf(view, t.subject);
  return { who, left: fmtTime(Math.max(0, Number(t.deadlineMs) - now)) };
}

/** A short message at the foot of the page (longer for an error). */
export function toast(view, text, error = false) {
  const t = $('#toast');
  t.textContent = text;
  t.classList.toggle('error', error);
  t.classList.add('show');
  clearTimeout(view.toastTimer);
  view.toastTimer = setTimeout(() => t.classList.remove('show'), error ? 7000 : 3500);
}

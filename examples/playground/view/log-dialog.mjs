// The Load log dialog: a pasted or dropped log (dump-log text, a raw segment, JSON records) read
// as it is edited, then replayed as a new timeline.
import { readLog, history } from '../web.mjs';
import { selectTab } from './details.mjs';
import { $, toast } from './page.mjs';
import { clearHash } from './scenarios.mjs';

/** A chosen or dropped file: text into the box, a raw segment kept as bytes. */
export async function takeLogFile(view, f) {
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

/** Where a damaged line or batch is: `line N` or `byte N`. */
export function where(d) {
  return d.line !== null && d.line !== undefined ? `line ${d.line}` : `byte ${d.position}`;
}

/** What was wrong with a log that could still be read: its first damage and its warnings. */
function damageNote(read) {
  let note = '';
  if (read.damage.length > 0) {
    const d = read.damage[0];
    note += ` Damaged at ${where(d)}: ${d.message}; the history is told up to it${read.damage.length > 1 ? ` (${read.damage.length} places damaged)` : ''}.`;
  }
  if (read.warnings.length > 0) {
    note += ` ${read.warnings.length} field${read.warnings.length === 1 ? '' : 's'} of a newer release left out (${where(read.warnings[0])}: ${read.warnings[0].message}).`;
  }
  return note;
}

/** Reads the log as it stands and says what it holds (or why it cannot be read). */
export function checkLog(view) {
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
    st.textContent = `${read.records.length} streams group records (${read.form}, ${read.dialect}) of ${groups.size} group${groups.size === 1 ? '' : 's'}${read.skipped ? `; ${read.skipped} other records skipped` : ''}.${damageNote(read)}`;
    st.classList.remove('bad');
    st.classList.toggle('warn', read.damage.length > 0 || read.warnings.length > 0);
    return read;
  } catch (e) {
    st.textContent = e.message;
    st.classList.add('bad');
    return null;
  }
}

/** Replays the log as a new timeline and shows its history. */
export function loadLogNow(view) {
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

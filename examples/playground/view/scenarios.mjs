// Where a timeline comes from and where it goes: a preset, a shared link, a file, a new empty
// one; saving, exporting and sharing it.
import { decodeFragment, encodeFragment } from '../model.mjs';
import { presetById } from '../presets.mjs';
import { $, toast } from './page.mjs';

/** Loads the scenario a shared link's fragment holds; resolves to whether it did. */
export async function loadFragment(view) {
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

/** Drops a shared link's fragment from the address: the timeline is no longer that scenario. */
export function clearHash() {
  if (location.hash) window.history.replaceState(null, '', location.pathname + location.search);
}

/** Builds a preset's story and moves to its end. */
export function loadPreset(view, id) {
  const p = presetById(id);
  if (!p) return;
  clearHash();
  p.run.call(p, view.session);
  view.session.goTo(view.session.steps.length);
  $('#preset').value = id;
  $('#preset-desc').textContent = p.description;
}

/** A new, empty timeline (a coordinator has one dialect: switching starts over). */
export function newTimeline(view, { dialect }) {
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

/** A link holding the whole scenario, in the share dialog. */
export async function share(view) {
  const frag = await encodeFragment(view.session.toScenario());
  const url = `${location.origin}${location.pathname}#${frag}`;
  $('#share-url').value = url;
  $('#share-open').href = url;
  $('#dlg-share').showModal();
  $('#share-url').select();
}

/** Saves `text` as the file `name`. */
export function download(view, name, text) {
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

/** A file name's part from a scenario's name. */
export function slug(s) {
  return String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario';
}

/** Loads a scenario file (any supported format) the user opened. */
export function loadFile(view, name, text) {
  view.session.load(text);
  clearHash();
  $('#preset').value = '';
  $('#preset-desc').textContent = view.session.description;
  toast(view, `Loaded “${view.session.name}” (${view.session.steps.length} steps) from ${name}.`);
}

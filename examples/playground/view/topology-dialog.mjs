// The topology dialog: the application's topology as JSON, checked as it is edited (its
// topology id), a two-subtopology template, and applying it (a client-side step).
import { topologyId } from '../web.mjs';
import { $ } from './page.mjs';

/** Opens the dialog on the application's current topology. */
export function openTopology(view) {
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

/** Says the edited topology's id, or why it is not a topology. */
export function checkTopologyText() {
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

/** A two-subtopology stateful topology over the first topic, to edit. */
export function topologyTemplate(view) {
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

/** The edited topology becomes the application's (and is sent, when `init`). */
export function applyTopology(view, init) {
  const { topology } = parseTopologyText();
  view.session.setTopology(topology);
  if (init) view.session.initialize();
  $('#dlg-topology').close();
}

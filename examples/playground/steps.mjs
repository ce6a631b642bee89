// Titles of timeline steps, times and ids as the page writes them.

/** A short title for a step, for the timeline. */
export function stepTitle(step) {
  if (step.event === 'crash') return `${step.actor} crashes (stops heartbeating)`;
  if (step.event === 'topology') return 'New topology in the application code';
  if (step.event === 'note') return step.note;
  const i = step.input;
  const who = step.actor ?? '';
  switch (i.type) {
    case 'StreamsGroupHeartbeat': {
      const r = i.request ?? {};
      const what = {
        join: 'joins',
        rejoin: 'rejoins (epoch 0)',
        restart: 'restarts and joins',
        heartbeat: `heartbeats (epoch ${r.memberEpoch})`,
        revoke: `revokes, heartbeats (epoch ${r.memberEpoch})`,
        leave: 'leaves (-1)',
        'static-leave': 'leaves temporarily (-2)',
        shutdown: 'requests shutdown',
      }[step.action];
      if (what) return `${who} ${what}`;
      if (r.memberEpoch === 0) return `${who || r.memberId || 'member'} joins`;
      if (r.memberEpoch === -1) return `${who || r.memberId} leaves (-1)`;
      if (r.memberEpoch === -2) return `${who || r.memberId} leaves temporarily (-2)`;
      return `${who || r.memberId} heartbeats (epoch ${r.memberEpoch})`;
    }
    case 'OffsetCommit': {
      const r = i.request ?? {};
      const n = (r.topics ?? []).reduce((k, t) => k + (t.partitions ?? []).length, 0);
      const what = `${n} offset${n === 1 ? '' : 's'}`;
      const by = who || (r.memberId ? short(r.memberId) : 'admin');
      if (step.action === 'zombie-commit') return `${by} (zombie) commits ${what} at epoch ${r.generationIdOrMemberEpoch}`;
      if (step.action === 'stale-commit') return `${by} commits ${what} at an old epoch (${r.generationIdOrMemberEpoch})`;
      return `${by} commits ${what} (epoch ${r.generationIdOrMemberEpoch})`;
    }
    case 'OffsetFetch':
      return `Fetch offsets of ${[...new Set((i.request?.groups ?? []).map((g) => g.groupId))].join(', ') || i.request?.groupId || 'a group'}`;
    case 'StreamsGroupInitialize':
      return `Initialize topology${who ? ` (by ${who})` : ''}`;
    case 'TopicMetadata': {
      const parts = [];
      for (const t of i.topics ?? []) parts.push(`${t.name}=${t.partitions}`);
      for (const t of i.deletedTopics ?? []) parts.push(`−${t}`);
      return `Topics: ${parts.join(', ') || '(none)'}`;
    }
    case 'AdvanceTime':
      return step.action === 'next-timer' ? `Clock → next timer (${fmtTime(i.nowMs)})` : `Clock → ${fmtTime(i.nowMs)}`;
    case 'StreamsGroupDescribe':
      return 'Describe';
    case 'DeleteGroups':
      return `Delete groups ${(i.groupIds ?? []).join(', ')}`;
    case 'Replay':
      return `Replay ${(i.records ?? []).length} records`;
    case 'SetTargetAssignment':
      return 'Set target assignment';
    default:
      return i.type;
  }
}

/** A member id, shortened for display. */
export function short(id) {
  if (!id) return '∅';
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}

export function fmtTime(ms) {
  if (ms === null || ms === undefined) return '–';
  const n = Number(ms);
  if (n < 60000) return `${(n / 1000).toFixed(1)} s`;
  if (n < 3600000) return `${Math.floor(n / 60000)} min ${((n % 60000) / 1000).toFixed(1)} s`;
  if (n < 86400000) return `${Math.floor(n / 3600000)} h ${Math.floor((n % 3600000) / 60000)} min`;
  return `${Math.floor(n / 86400000)} d ${Math.floor((n % 86400000) / 3600000)} h`;
}

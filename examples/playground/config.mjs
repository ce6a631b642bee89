// The playground's defaults: dialects, settings, topology and application.

export const DIALECTS = ['kip1071-draft', 'kafka-4.2', 'kafka-4.3', 'kafka-4.4'];

export const DEFAULT_CONFIG = {
  dialect: 'kip1071-draft',
  recordBytes: true,
  'group.streams.session.timeout.ms': 45000,
  'group.streams.heartbeat.interval.ms': 5000,
  'group.streams.num.standby.replicas': 0,
};

export const DEFAULT_TOPOLOGY = [
  {
    subtopologyId: '0',
    sourceTopics: ['orders'],
    sourceTopicRegex: [],
    stateChangelogTopics: [
      { name: 'orders-app-counts-changelog', partitions: 0, replicationFactor: -1, topicConfigs: [] },
    ],
    repartitionSinkTopics: [],
    repartitionSourceTopics: [],
    copartitionGroups: [],
  },
];

export const DEFAULT_APP = { groupId: 'orders-app', topology: DEFAULT_TOPOLOGY, topologyEpoch: 0, tickMs: 100, rebalanceTimeoutMs: 60000 };

/*
 * KOracle: Kafka's own group coordinator shard (GroupCoordinatorShard, with its GroupMetadataManager
 * and OffsetMetadataManager on one state), driven by sgc's JSON-lines inputs, printing one JSON
 * line per input in the shape of the oracle's KDiff driver:
 *   {"response", "records", "topicsToCreate", ["exception"], "nextDeadlineMs", "timersFired", "timers"}
 *
 * usage: java -cp <oracle jar>:<Debian jars> KOracle INPUTS.jsonl [--config settings.json] [--kafka-apis]
 *
 * One source for Kafka 4.2.0, 4.3.0 and 4.4: it is compiled against one oracle jar at a time
 * (tools/kafka-diff/koracle.sh) and reaches what differs between the releases by reflection.
 * What the runtime (CoordinatorRuntime), the service (GroupCoordinatorService) and, with
 * --kafka-apis, the broker's front-end (KafkaApis) do around the shard is done here, after
 * their source at each release; see tools/kafka-diff/README.md.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.MockTime;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.common.runtime.CoordinatorOperationExceptionHelper;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.common.runtime.CoordinatorTimer;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.MockCoordinatorExecutor;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.GroupCoordinatorService;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.coordinator.group.streams.StreamsGroupHeartbeatResult;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.timeline.SnapshotRegistry;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

@SuppressWarnings({"rawtypes", "unchecked"})
public class KOracle {
    static final ObjectMapper M = new ObjectMapper();
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final Logger LOG = LoggerFactory.getLogger(KOracle.class);
    static final String OFFSETS_TOPIC = "__consumer_offsets";
    /** Shard timers that only feed metrics (no records): fired, but not printed. */
    static final Set<String> SILENT_TIMERS = Set.of("group-size-counter");
    static final String TOPOLOGY_CLEANUP_TIMER = "streams-topology-description-cleanup";

    // ---------------------------------------------------------------- release
    /** 4.3+: CoordinatorTimer has one type parameter (4.2 has two). */
    static final boolean R43 = CoordinatorTimer.class.getTypeParameters().length == 1;
    /** 4.4: the streams describe answers a StreamsGroupDescribeResult (KIP-1331). */
    static final boolean R44 = classExists("org.apache.kafka.coordinator.group.streams.StreamsGroupDescribeResult");
    static final String RELEASE = R44 ? "4.4" : R43 ? "4.3" : "4.2";

    // ---------------------------------------------------------------- state
    final Map<String, Object> props = new HashMap<>();
    final List<String> ignoredSettings = new ArrayList<>();
    int offsetsPartitions = 50;
    long retentionCheckIntervalMs = 600000L;
    boolean kafkaApis;
    final MockTime time = new MockTime(0, 0, 0);
    final Timers timer = new Timers();
    final Object logContext;
    final SnapshotRegistry snapshotRegistry;
    GroupCoordinatorConfig config;
    GroupConfigManager groupConfigManager;
    GroupCoordinatorMetrics metrics;
    GroupCoordinatorShard shard;
    Object gmm; // the shard's GroupMetadataManager
    MetadataImage image = MetadataImage.EMPTY;
    long imageVersion = 0;
    long lastWrittenOffset = 0;
    boolean loaded = false;
    boolean sawRequest = false;
    final Map<String, TopicState> topics = new HashMap<>();
    final Map<String, Integer> rackBrokers = new HashMap<>();
    final Map<String, String> hostAliases = new HashMap<>();
    int nextAlias = 1;
    // 4.4, KIP-1331: the topology description manager and plugin (an in-memory one).
    Object descriptionManager;
    boolean pluginConfigured = false;
    final Map<String, Object[]> pluginStore = new HashMap<>();

    record TopicState(Uuid id, int partitions, List<List<String>> racks) { }

    // ================================================================ setup

    KOracle(JsonNode settings, boolean kafkaApis) throws Exception {
        this.kafkaApis = kafkaApis;
        Class<?> lc = classOr("org.apache.kafka.common.utils.internals.LogContext", "org.apache.kafka.common.utils.LogContext");
        logContext = lc.getConstructor().newInstance();
        snapshotRegistry = (SnapshotRegistry) SnapshotRegistry.class.getConstructor(lc).newInstance(logContext);

        int session = 45000, heartbeat = 5000, standby = 0;
        String pluginClass = null;
        if (settings != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = settings.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String k = e.getKey();
                JsonNode v = e.getValue();
                switch (k) {
                    case "dialect":
                        if (!v.asText().startsWith("kafka-4.")) ignoredSettings.add(k + "=" + v);
                        break;
                    case "group.streams.session.timeout.ms": session = v.asInt(); break;
                    case "group.streams.heartbeat.interval.ms": heartbeat = v.asInt(); break;
                    case "group.streams.num.standby.replicas": standby = v.asInt(); break;
                    case "group.streams.max.size":
                    case "group.streams.initial.rebalance.delay.ms":
                    case "offset.metadata.max.bytes":
                        props.put(k, v.asInt());
                        break;
                    case "offsets.retention.minutes":
                        props.put(k, v.asInt());
                        break;
                    case "offsets.retention.check.interval.ms":
                        retentionCheckIntervalMs = v.asLong();
                        props.put(k, v.asLong());
                        break;
                    case "group.streams.assignment.interval.ms":
                        props.put(k, v.asInt());
                        props.put("group.streams.max.assignment.interval.ms", Math.max(15000, v.asInt()));
                        break;
                    case "group.streams.acceptable.recovery.lag":
                        props.put(k, v.asLong());
                        break;
                    case "group.streams.num.warmup.replicas":
                        props.put(k, v.asInt());
                        props.put("group.streams.max.warmup.replicas", Math.max(20, v.asInt()));
                        break;
                    case "group.streams.rack.aware.assignment.tags": {
                        List<String> tags = new ArrayList<>();
                        if (v.isArray()) v.forEach(t -> tags.add(t.asText()));
                        else if (!v.asText().isEmpty()) tags.addAll(List.of(v.asText().split(",")));
                        props.put(k, String.join(",", tags));
                        break;
                    }
                    case "group.streams.task.offset.interval.ms":
                        props.put(k, v.asInt());
                        props.put("group.streams.min.task.offset.interval.ms", Math.min(15000, v.asInt()));
                        break;
                    case "offsets.topic.num.partitions":
                        offsetsPartitions = v.asInt();
                        break;
                    case "group.streams.topology.description.plugin.class":
                        if (!v.isNull()) pluginClass = v.asText();
                        break;
                    case "assignor":
                        if (!v.asText().equals("sticky")) ignoredSettings.add(k + "=" + v);
                        break;
                    case "recordBytes":
                    case "maxRecordBatchBytes":
                        break;
                    default:
                        ignoredSettings.add(k + "=" + v);
                }
            }
        }
        props.put("group.streams.session.timeout.ms", session);
        props.put("group.streams.min.session.timeout.ms", Math.min(45000, session));
        props.put("group.streams.max.session.timeout.ms", Math.max(60000, session));
        props.put("group.streams.heartbeat.interval.ms", heartbeat);
        props.put("group.streams.min.heartbeat.interval.ms", Math.min(5000, heartbeat));
        props.put("group.streams.max.heartbeat.interval.ms", Math.max(15000, heartbeat));
        props.put("group.streams.num.standby.replicas", standby);
        props.put("group.streams.max.standby.replicas", Math.max(2, standby));
        Set<String> known = knownConfigNames();
        for (String k : new ArrayList<>(props.keySet())) {
            if (!known.contains(k)) {
                ignoredSettings.add(k + "=" + props.get(k) + " (not a Kafka " + RELEASE + " setting)");
                props.remove(k);
            }
        }
        if (pluginClass != null) {
            if (!R44) ignoredSettings.add("group.streams.topology.description.plugin.class (Kafka " + RELEASE + " has no plugin)");
            else if (pluginClass.endsWith(".InMemoryTopologyDescriptionPlugin")) pluginConfigured = true;
            else ignoredSettings.add("group.streams.topology.description.plugin.class=" + pluginClass
                + " (only org.apache.kafka.server.streams.InMemoryTopologyDescriptionPlugin is driven)");
        }
        if (!ignoredSettings.isEmpty())
            System.err.println("koracle: settings Kafka " + RELEASE + " has no equivalent for (ignored): " + ignoredSettings);

        if (pluginConfigured) {
            // The config only says that a plugin class is set (isStreamsGroupTopologyDescriptionPluginConfigured);
            // the plugin itself is ours (inMemoryPlugin), as the broker's class is not in the oracle jar.
            Class<?> iface = Class.forName("org.apache.kafka.coordinator.group.api.streams.StreamsGroupTopologyDescriptionPlugin");
            props.put("group.streams.topology.description.plugin.class", Proxy.getProxyClass(iface.getClassLoader(), iface));
        }
        config = GroupCoordinatorConfig.fromProps(props);
        groupConfigManager = newGroupConfigManager();
        metrics = new GroupCoordinatorMetrics();
        GroupCoordinatorShard.Builder b = new GroupCoordinatorShard.Builder(config, groupConfigManager);
        call(b, "withLogContext", logContext);
        call(b, "withSnapshotRegistry", snapshotRegistry);
        call(b, "withTime", time);
        call(b, "withTimer", timer);
        call(b, "withExecutor", new MockCoordinatorExecutor<CoordinatorRecord>());
        call(b, "withCoordinatorMetrics", metrics);
        call(b, "withTopicPartition", new TopicPartition(OFFSETS_TOPIC, 0));
        call(b, "withAuthorizerPlugin", Optional.empty());
        shard = b.build();
        gmm = field(shard, "groupMetadataManager");
        snapshotRegistry.idempotentCreateSnapshot(lastWrittenOffset);

        if (R44) {
            Class<?> pluginIface = Class.forName("org.apache.kafka.coordinator.group.api.streams.StreamsGroupTopologyDescriptionPlugin");
            Optional<Object> plugin = pluginConfigured ? Optional.of(inMemoryPlugin(pluginIface)) : Optional.empty();
            Class<?> mgr = Class.forName("org.apache.kafka.coordinator.group.streams.StreamsGroupTopologyDescriptionManager");
            descriptionManager = mgr.getConstructors()[0].newInstance(logContext, plugin, time, metrics);
        }
    }

    /** The names of every setting GroupCoordinatorConfig (and its nested defs) knows in this release. */
    static Set<String> knownConfigNames() {
        Set<String> names = new HashSet<>();
        for (Field f : GroupCoordinatorConfig.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getName().endsWith("_CONFIG") && f.getType() == String.class) {
                try {
                    names.add((String) f.get(null));
                } catch (Exception ignored) { }
            }
        }
        return names;
    }

    /** GroupConfigManager as BrokerServer builds it in this release. */
    GroupConfigManager newGroupConfigManager() throws Exception {
        Object share = shareGroupConfig();
        Map<?, ?> defaults = null;
        try {
            defaults = (Map<?, ?>) GroupCoordinatorConfig.class.getMethod("extractGroupConfigMap", share.getClass()).invoke(config, share);
        } catch (NoSuchMethodException ignored) { }
        for (Constructor<?> c : GroupConfigManager.class.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 1 && Map.class.isAssignableFrom(p[0])) return (GroupConfigManager) c.newInstance(defaults);           // 4.2
            if (p.length == 3) return (GroupConfigManager) c.newInstance(defaults, config, share);                                // 4.3
            if (p.length == 2 && p[0] == GroupCoordinatorConfig.class) return (GroupConfigManager) c.newInstance(config, share); // 4.4
        }
        throw new IllegalStateException("no GroupConfigManager constructor known");
    }

    Object shareGroupConfig() throws Exception {
        Class<?> c = Class.forName("org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig");
        try {
            return c.getMethod("fromProps", Map.class).invoke(null, props);
        } catch (NoSuchMethodException e) {
            // 4.2: a config over the share group defs and the group coordinator's (as KafkaConfig's).
            org.apache.kafka.common.config.ConfigDef all = new org.apache.kafka.common.config.ConfigDef(
                (org.apache.kafka.common.config.ConfigDef) c.getField("CONFIG_DEF").get(null));
            for (Field f : GroupCoordinatorConfig.class.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == org.apache.kafka.common.config.ConfigDef.class) {
                    org.apache.kafka.common.config.ConfigDef d = (org.apache.kafka.common.config.ConfigDef) f.get(null);
                    for (org.apache.kafka.common.config.ConfigDef.ConfigKey k : d.configKeys().values())
                        if (!all.configKeys().containsKey(k.name)) all.define(k);
                }
            }
            return c.getConstructor(org.apache.kafka.common.config.AbstractConfig.class)
                .newInstance(new org.apache.kafka.common.config.AbstractConfig(all, props, false));
        }
    }

    /** KIP-1331's in-memory plugin (org.apache.kafka.server.streams.InMemoryTopologyDescriptionPlugin's behaviour). */
    Object inMemoryPlugin(Class<?> iface) {
        return Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[]{iface}, (proxy, m, args) -> {
            switch (m.getName()) {
                case "setTopology":
                    pluginStore.put((String) args[0], new Object[]{args[1], args[2]});
                    return CompletableFuture.completedFuture(null);
                case "deleteTopology":
                    pluginStore.remove((String) args[0]);
                    return CompletableFuture.completedFuture(null);
                case "getTopology": {
                    Object[] e = pluginStore.get((String) args[0]);
                    if (e == null || (Integer) e[0] != (Integer) args[1]) return CompletableFuture.completedFuture(null);
                    return CompletableFuture.completedFuture(e[1]);
                }
                case "configure":
                    return null;
                case "close":
                    pluginStore.clear();
                    return null;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "toString":
                    return "InMemoryTopologyDescriptionPlugin(koracle)";
                default:
                    throw new UnsupportedOperationException(m.getName());
            }
        });
    }

    // ================================================================ timers

    /** Kafka's timer as the runtime fires it, deterministic: by deadline, then by scheduling order. */
    interface Fire {
        /** Runs the timer's operation, appending its records to out; returns how many it wrote. */
        int fire(ArrayNode out) throws Throwable;
    }

    record T(String key, long deadline, long seq, Fire op, boolean retry, long backoff) { }

    final class Timers implements CoordinatorTimer {
        long seq = 0;
        final Map<String, T> map = new HashMap<>();
        final TreeSet<T> q = new TreeSet<>(Comparator.comparingLong(T::deadline).thenComparingLong(T::seq));

        @Override
        public void schedule(String key, long delay, TimeUnit unit, boolean retry, CoordinatorTimer.TimeoutOperation op) {
            schedule(key, delay, unit, retry, 500L, op);
        }

        @Override
        public void schedule(String key, long delay, TimeUnit unit, boolean retry, long backoff, CoordinatorTimer.TimeoutOperation op) {
            add(key, time.milliseconds() + unit.toMillis(delay), retry, backoff, out -> {
                CoordinatorResult r = op.generateRecords();
                return apply(r, -1L, (short) -1, out);
            });
        }

        @Override
        public void scheduleIfAbsent(String key, long delay, TimeUnit unit, boolean retry, CoordinatorTimer.TimeoutOperation op) {
            if (!map.containsKey(key)) schedule(key, delay, unit, retry, 500L, op);
        }

        @Override
        public void cancel(String key) {
            T t = map.remove(key);
            if (t != null) q.remove(t);
        }

        @Override
        public boolean isScheduled(String key) {
            return map.containsKey(key);
        }

        void add(String key, long deadline, boolean retry, long backoff, Fire op) {
            cancel(key);
            T t = new T(key, deadline, ++seq, op, retry, backoff);
            map.put(key, t);
            q.add(t);
        }

        T peek() {
            return q.isEmpty() ? null : q.first();
        }

        void remove(T t) {
            q.remove(t);
            map.remove(t.key(), t);
        }
    }

    void fireTimersUpTo(long now, ArrayNode records, ArrayNode fired) {
        for (T t = timer.peek(); t != null && t.deadline() <= now; t = timer.peek()) {
            timer.remove(t);
            if (t.deadline() > time.milliseconds()) time.setCurrentTimeMs(t.deadline());
            boolean silent = SILENT_TIMERS.contains(t.key());
            ArrayNode scratch = F.arrayNode();
            ObjectNode f = F.objectNode();
            f.put("key", t.key());
            f.put("deadlineMs", t.deadline());
            long start = lastWrittenOffset;
            snapshotRegistry.idempotentCreateSnapshot(start);
            try {
                int n = t.op().fire(scratch);
                f.put("records", n);
                records.addAll(scratch);
            } catch (Throwable e) {
                revert(start);
                f.put("error", e.toString());
                if (t.retry())
                    timer.add(t.key(), time.milliseconds() + t.backoff(), true, t.backoff(), t.op());
            }
            if (!silent) fired.add(f);
        }
        if (now > time.milliseconds()) time.setCurrentTimeMs(now);
    }

    // ================================================================ records

    /** Replays one record into the shard at the next log offset, as the runtime does. */
    void replay(CoordinatorRecord record, long producerId, short producerEpoch) {
        shard.replay(lastWrittenOffset, producerId, producerEpoch, record);
        lastWrittenOffset++;
        snapshotRegistry.idempotentCreateSnapshot(lastWrittenOffset);
    }

    /** The records are committed: the timeline keeps only the latest snapshot. */
    void commit() {
        snapshotRegistry.deleteSnapshotsUpTo(lastWrittenOffset);
        snapshotRegistry.idempotentCreateSnapshot(lastWrittenOffset);
    }

    void revert(long offset) {
        snapshotRegistry.revertToSnapshot(offset);
        lastWrittenOffset = offset;
    }

    ObjectNode recordJson(CoordinatorRecord r, long producerId, short producerEpoch) {
        ObjectNode o = F.objectNode();
        ObjectNode key = o.putObject("key");
        key.put("type", r.key().apiKey());
        key.set("data", CoordinatorRecordJsonConverters.writeRecordKeyAsJson(r.key()));
        if (r.value() == null) {
            o.set("value", NullNode.getInstance());
        } else {
            ObjectNode value = o.putObject("value");
            value.put("version", r.value().version());
            value.set("data", CoordinatorRecordJsonConverters.writeRecordValueAsJson(r.value().message(), r.value().version()));
        }
        if (producerId >= 0) {
            o.put("producerId", producerId);
            o.put("producerEpoch", producerEpoch);
        }
        return o;
    }

    /** Writes and replays an operation's records (all or none), as the runtime appends a batch. */
    int apply(CoordinatorResult result, long producerId, short producerEpoch, ArrayNode out) {
        List<CoordinatorRecord> recs = result.records();
        long start = lastWrittenOffset;
        snapshotRegistry.idempotentCreateSnapshot(start);
        int mark = out.size();
        try {
            for (CoordinatorRecord r : recs) {
                out.add(recordJson(r, producerId, producerEpoch));
                if (result.replayRecords()) replay(r, producerId, producerEpoch);
            }
        } catch (RuntimeException e) {
            revert(start);
            while (out.size() > mark) out.remove(out.size() - 1);
            throw e;
        }
        commit();
        return recs.size();
    }

    interface Op {
        CoordinatorResult run() throws Exception;
    }

    /** A write operation: the shard's result, its records appended and replayed; the response. */
    Object write(Op op, ArrayNode out) throws Throwable {
        return write(op, -1L, (short) -1, out);
    }

    Object write(Op op, long producerId, short producerEpoch, ArrayNode out) throws Throwable {
        long start = lastWrittenOffset;
        snapshotRegistry.idempotentCreateSnapshot(start);
        try {
            CoordinatorResult r = op.run();
            apply(r, producerId, producerEpoch, out);
            return r.response();
        } catch (InvocationTargetException e) {
            revert(start);
            throw e.getCause();
        } catch (Throwable e) {
            revert(start);
            throw e;
        }
    }

    /** The committed offset read operations read at (every write here is committed at once). */
    long committed() {
        return lastWrittenOffset;
    }

    // ================================================================ metadata image

    void topicMetadata(JsonNode in, ArrayNode records) throws Throwable {
        MetadataDelta delta = newDelta(image);
        boolean removed = false;
        List<Object[]> adds = new ArrayList<>();
        Map<String, TopicState> next = new HashMap<>(topics);
        List<Object[]> deleted = new ArrayList<>(); // name, state
        for (JsonNode n : iter(in.get("deletedTopics"))) {
            TopicState old = next.remove(n.asText());
            if (old != null) {
                delta.replay(new RemoveTopicRecord().setTopicId(old.id()));
                deleted.add(new Object[]{n.asText(), old});
                removed = true;
            }
        }
        for (JsonNode t : iter(in.get("topics"))) {
            String name = t.get("name").asText();
            int parts = t.get("partitions").asInt();
            Uuid id;
            if (t.hasNonNull("topicId")) {
                id = Uuid.fromString(t.get("topicId").asText());
            } else {
                java.util.UUID u = java.util.UUID.nameUUIDFromBytes(("kdiff-topic:" + name).getBytes(StandardCharsets.UTF_8));
                id = new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
            }
            List<List<String>> racks = new ArrayList<>();
            if (t.hasNonNull("racks")) {
                for (JsonNode p : t.get("racks")) {
                    List<String> rs = new ArrayList<>();
                    for (JsonNode r : p) rs.add(r.asText());
                    racks.add(rs);
                }
            }
            TopicState ts = new TopicState(id, parts, racks);
            TopicState old = next.get(name);
            if (old != null && old.equals(ts)) continue;
            boolean grows = old != null && old.id().equals(id) && parts >= old.partitions() && racksPrefixEqual(old, ts);
            if (old != null && !grows) {
                delta.replay(new RemoveTopicRecord().setTopicId(old.id()));
                deleted.add(new Object[]{name, old});
                removed = true;
            }
            adds.add(new Object[]{name, ts, grows ? old.partitions() : -1});
            next.put(name, ts);
        }
        if (removed) {
            if (!R43) deletePartitionsOffsets(deleted, records); // 4.2: BrokerMetadataPublisher, before the image
            image = delta.apply(new MetadataProvenance(++imageVersion, 0, 0L, true));
            publish(delta);
            if (R43) deleteTopicsOffsets(deleted, records);      // 4.3+: the service, after the image
        }
        if (!adds.isEmpty()) {
            delta = newDelta(image);
            for (Object[] a : adds) {
                String name = (String) a[0];
                TopicState ts = (TopicState) a[1];
                int from = (Integer) a[2];
                if (from < 0) {
                    delta.replay(new TopicRecord().setTopicId(ts.id()).setName(name));
                    from = 0;
                }
                for (int p = from; p < ts.partitions(); p++) {
                    List<Integer> replicas = new ArrayList<>();
                    List<String> prs = p < ts.racks().size() ? ts.racks().get(p) : List.of();
                    Map<String, Integer> seen = new HashMap<>();
                    for (String rack : prs) {
                        int k = seen.merge(rack, 1, Integer::sum);
                        String brokerKey = rack + "#" + k;
                        Integer broker = rackBrokers.get(brokerKey);
                        if (broker == null) {
                            broker = rackBrokers.size();
                            rackBrokers.put(brokerKey, broker);
                            delta.replay(new RegisterBrokerRecord().setBrokerId(broker).setRack(rack));
                        }
                        replicas.add(broker);
                    }
                    if (replicas.isEmpty()) replicas.add(100000);
                    delta.replay(new PartitionRecord().setTopicId(ts.id()).setPartitionId(p)
                        .setReplicas(replicas).setIsr(replicas).setLeader(replicas.get(0)));
                }
            }
            image = delta.apply(new MetadataProvenance(++imageVersion, 0, 0L, true));
            publish(delta);
        }
        topics.clear();
        topics.putAll(next);
    }

    static boolean racksPrefixEqual(TopicState old, TopicState now) {
        for (int i = 0; i < old.partitions(); i++) {
            List<String> a = i < old.racks().size() ? old.racks().get(i) : List.of();
            List<String> b = i < now.racks().size() ? now.racks().get(i) : List.of();
            if (!a.equals(b)) return false;
        }
        return true;
    }

    static MetadataDelta newDelta(MetadataImage image) throws Exception {
        try {
            Class<?> b = Class.forName("org.apache.kafka.image.MetadataDelta$Builder");
            Object builder = b.getConstructor().newInstance();
            b.getMethod("setImage", MetadataImage.class).invoke(builder, image);
            return (MetadataDelta) b.getMethod("build").invoke(builder);
        } catch (ClassNotFoundException e) {
            return MetadataDelta.class.getConstructor(MetadataImage.class).newInstance(image);
        }
    }

    /** The shard learns the new image (4.2: onNewMetadataImage(image, delta); 4.3+: onMetadataUpdate(delta, image)). */
    void publish(MetadataDelta delta) throws Exception {
        KRaftCoordinatorMetadataImage img = new KRaftCoordinatorMetadataImage(image);
        KRaftCoordinatorMetadataDelta d = new KRaftCoordinatorMetadataDelta(delta);
        for (Method m : shard.getClass().getMethods()) {
            if (m.getName().equals("onNewMetadataImage") && m.getParameterCount() == 2) {
                m.invoke(shard, img, d);
                return;
            }
            if (m.getName().equals("onMetadataUpdate") && m.getParameterCount() == 2) {
                m.invoke(shard, d, img);
                return;
            }
        }
        throw new IllegalStateException("no metadata update method on the shard");
    }

    /** 4.2: GroupCoordinatorService.onPartitionsDeleted: the offsets of deleted partitions are tombstoned. */
    void deletePartitionsOffsets(List<Object[]> deleted, ArrayNode records) throws Throwable {
        if (deleted.isEmpty()) return;
        List<TopicPartition> tps = new ArrayList<>();
        for (Object[] d : deleted) {
            TopicState ts = (TopicState) d[1];
            for (int p = 0; p < ts.partitions(); p++) tps.add(new TopicPartition((String) d[0], p));
        }
        try {
            write(() -> (CoordinatorResult) call(shard, "onPartitionsDeleted", tps), records);
        } catch (Throwable e) {
            System.err.println("koracle: onPartitionsDeleted failed: " + e);
        }
    }

    /** 4.3+: GroupCoordinatorService.handleTopicsDeletion: the offsets of deleted topics are tombstoned. */
    void deleteTopicsOffsets(List<Object[]> deleted, ArrayNode records) throws Throwable {
        if (deleted.isEmpty()) return;
        Class<?> dt = Class.forName("org.apache.kafka.coordinator.group.GroupCoordinatorShard$DeletedTopic");
        List<Object> list = new ArrayList<>();
        for (Object[] d : deleted) list.add(dt.getConstructor(Uuid.class, String.class).newInstance(((TopicState) d[1]).id(), d[0]));
        try {
            write(() -> (CoordinatorResult) call(shard, "onTopicsDeleted", list), records);
        } catch (Throwable e) {
            System.err.println("koracle: onTopicsDeleted failed: " + e);
        }
    }

    // ================================================================ requests as JSON

    static Iterable<JsonNode> iter(JsonNode n) {
        return n == null || n.isNull() ? List.of() : n;
    }

    /** The generated JSON converter of a message class (FooData -> FooDataJsonConverter, FooData$Bar -> ...$BarJsonConverter). */
    static Class<?> converterOf(Class<?> data) throws ClassNotFoundException {
        String n = data.getName();
        int d = n.indexOf('$');
        if (d < 0) return Class.forName(n + "JsonConverter");
        return Class.forName(n.substring(0, d) + "JsonConverter$" + n.substring(d + 1) + "JsonConverter");
    }

    static boolean hasConverter(Class<?> data) {
        try {
            converterOf(data);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * A message as JSON: Kafka's generated converter at the version where the oracle jar has one
     * (the streams heartbeat and describe), else every field of the message in the schema's order
     * with the converters' value forms (the jars hold no other converter; the callers print a
     * message the client read at its version, at the newest version, as sgc does).
     */
    static JsonNode toJson(Object msg, short version) {
        if (msg == null) return NullNode.getInstance();
        if (!hasConverter(msg.getClass())) return MessageJson.write(msg);
        try {
            return (JsonNode) converterOf(msg.getClass()).getMethod("write", msg.getClass(), short.class).invoke(null, msg, version);
        } catch (InvocationTargetException e) {
            throw sneaky(e.getCause());
        } catch (Exception e) {
            throw sneaky(e);
        }
    }

    static <X> X fromJson(Class<X> cls, JsonNode json, short version) {
        if (!hasConverter(cls)) return MessageJson.read(cls, json);
        try {
            return (X) converterOf(cls).getMethod("read", JsonNode.class, short.class).invoke(null, json, version);
        } catch (InvocationTargetException e) {
            throw sneaky(e.getCause());
        } catch (Exception e) {
            throw sneaky(e);
        }
    }

    static RuntimeException sneaky(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        return new RuntimeException(t);
    }

    /** The element message class of a generated list or collection field, or of a struct field; null for others. */
    static Class<?> structOf(Class<?> data, String field) {
        Field f;
        try {
            f = data.getDeclaredField(field);
        } catch (NoSuchFieldException e) {
            return null;
        }
        return MessageJson.elementStruct(f);
    }

    /** The given JSON over the defaults of a new message at the version, recursively (fields a client may leave out). */
    static JsonNode fill(Class<?> data, JsonNode given, short version) {
        if (given == null || !given.isObject()) return given;
        ObjectNode out;
        try {
            out = ((ObjectNode) toJson(data.getConstructor().newInstance(), version)).deepCopy();
        } catch (Exception e) {
            throw sneaky(e);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            Class<?> s = structOf(data, e.getKey());
            if (s != null && v.isArray()) {
                ArrayNode a = F.arrayNode();
                for (JsonNode x : v) a.add(fill(s, x, version));
                out.set(e.getKey(), a);
            } else if (s != null && v.isObject()) {
                out.set(e.getKey(), fill(s, v, version));
            } else {
                out.set(e.getKey(), v);
            }
        }
        return out;
    }

    /**
     * What a message of the version carries on the wire: serialized at that version and read back
     * (fields the version lacks take their defaults). A message the version cannot carry (a field
     * with a value it has no place for) is kept as it is.
     */
    static <X> X wire(X msg, short version) {
        try {
            X stripped = (X) ((org.apache.kafka.common.protocol.Message) msg).duplicate();
            stripToVersion(stripped, version);
            org.apache.kafka.common.protocol.Message m = (org.apache.kafka.common.protocol.Message) stripped;
            ByteBuffer b = org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(m, version).buffer();
            b.rewind();
            return (X) msg.getClass().getConstructor(org.apache.kafka.common.protocol.Readable.class, short.class)
                .newInstance(new org.apache.kafka.common.protocol.ByteBufferAccessor(b), version);
        } catch (Exception e) {
            return msg;
        }
    }

    /** The message's fields the version's schema has (tagged ones included), in camelCase; null if unknown. */
    static Set<String> fieldsAt(Class<?> c, short version) {
        try {
            org.apache.kafka.common.protocol.types.Schema[] schemas =
                (org.apache.kafka.common.protocol.types.Schema[]) c.getField("SCHEMAS").get(null);
            if (version < 0 || version >= schemas.length || schemas[version] == null) return null;
            Set<String> names = new HashSet<>();
            for (org.apache.kafka.common.protocol.types.BoundField bf : schemas[version].fields()) {
                if (bf.def.type instanceof org.apache.kafka.common.protocol.types.TaggedFields tf) {
                    for (org.apache.kafka.common.protocol.types.Field f : tf.fields().values()) names.add(camel(f.name));
                } else {
                    names.add(camel(bf.def.name));
                }
            }
            return names;
        } catch (Exception e) {
            return null;
        }
    }

    static String camel(String snake) {
        StringBuilder sb = new StringBuilder();
        boolean up = false;
        for (char ch : snake.toCharArray()) {
            if (ch == '_') {
                up = sb.length() > 0;
            } else {
                sb.append(up ? Character.toUpperCase(ch) : ch);
                up = false;
            }
        }
        return sb.toString();
    }

    /** Gives the fields the version lacks their defaults, as a client of that version could only send them. */
    static void stripToVersion(Object msg, short version) throws Exception {
        Set<String> present = fieldsAt(msg.getClass(), version);
        if (present == null) return;
        Object defaults = msg.getClass().getConstructor().newInstance();
        for (Field f : MessageJson.fields(msg.getClass())) {
            if (!present.contains(f.getName())) {
                f.set(msg, f.get(defaults));
                continue;
            }
            Object v = f.get(msg);
            if (v instanceof org.apache.kafka.common.protocol.Message) stripToVersion(v, version);
            else if (v instanceof Collection<?> col) for (Object x : col) if (x instanceof org.apache.kafka.common.protocol.Message) stripToVersion(x, version);
        }
    }

    static <X> X readRequest(Class<X> cls, JsonNode given, short version) {
        JsonNode g = given == null ? F.objectNode() : given;
        if (!hasConverter(cls)) return MessageJson.read(cls, g);
        return fromJson(cls, fill(cls, g, version), version);
    }

    short apiVersion(JsonNode in, ApiKeys api, int dflt) {
        int v = in.hasNonNull("apiVersion") ? in.get("apiVersion").asInt() : Math.min(dflt, api.latestVersion(true));
        if (v < api.oldestVersion() || v > api.latestVersion(true))
            throw new IllegalArgumentException("apiVersion " + v + " is not in " + api.oldestVersion() + ".." + api.latestVersion(true));
        return (short) v;
    }

    AuthorizableRequestContext context(JsonNode client, ApiKeys api, short version) throws Exception {
        String clientId = client != null && client.hasNonNull("clientId") ? client.get("clientId").asText() : "";
        String host = client != null && client.hasNonNull("clientHost") ? client.get("clientHost").asText() : "";
        InetAddress a = null;
        if (host.startsWith("/") && host.substring(1).matches("[0-9.]+")) {
            a = InetAddress.getByName(host.substring(1));
            if (!a.toString().equals(host)) a = null;
        }
        if (a == null) {
            String alias = null;
            for (Map.Entry<String, String> e : hostAliases.entrySet()) if (e.getValue().equals(host)) alias = e.getKey();
            if (alias == null) {
                alias = "/198.18." + (nextAlias / 250) + "." + (nextAlias % 250 + 1);
                nextAlias++;
                hostAliases.put(alias, host);
            }
            a = InetAddress.getByName(alias.substring(1));
        }
        final InetAddress address = a;
        return (AuthorizableRequestContext) Proxy.newProxyInstance(AuthorizableRequestContext.class.getClassLoader(),
            new Class<?>[]{AuthorizableRequestContext.class}, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "listenerName": return ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT).value();
                    case "securityProtocol": return SecurityProtocol.PLAINTEXT;
                    case "principal": return KafkaPrincipal.ANONYMOUS;
                    case "clientAddress": return address;
                    case "requestType": return (int) api.id;
                    case "requestVersion": return (int) version;
                    case "clientId": return clientId;
                    case "correlationId": return 0;
                    case "hashCode": return System.identityHashCode(proxy);
                    case "equals": return proxy == args[0];
                    case "toString": return "RequestContext(" + api + " v" + version + ")";
                    default:
                        if (m.isDefault()) return java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args);
                        throw new UnsupportedOperationException(m.getName());
                }
            });
    }

    String fixHosts(String s) {
        for (Map.Entry<String, String> e : hostAliases.entrySet())
            s = s.replace("\"" + e.getKey() + "\"", M.valueToTree(e.getValue()).toString());
        return s;
    }

    TopicPartition partitionFor(String groupId) {
        return new TopicPartition(OFFSETS_TOPIC, Utils.abs(groupId.hashCode()) % offsetsPartitions);
    }

    /** handleOperationException, with the Java exception's first frames when Kafka answers UNKNOWN_SERVER_ERROR. */
    <R> R onError(String op, Object request, Throwable t, BiFunction<Errors, String, R> errorResponse, ObjectNode out) {
        R r = CoordinatorOperationExceptionHelper.handleOperationException(op, request, t, errorResponse, LOG);
        if (Errors.forException(Errors.maybeUnwrapException(t)) == Errors.UNKNOWN_SERVER_ERROR
            || ApiError.fromThrowable(t).error() == Errors.UNKNOWN_SERVER_ERROR) {
            exception(t, out);
        }
        return r;
    }

    static void exception(Throwable t, ObjectNode out) {
        StringBuilder sb = new StringBuilder(t.toString());
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(6, st.length); i++) {
            sb.append(" at").append(st[i].getClassName().replaceAll(".*[.]", "")).append('.')
                .append(st[i].getMethodName()).append(':').append(st[i].getLineNumber());
        }
        out.put("exception", sb.toString());
    }

    // ================================================================ the inputs

    ObjectNode handle(JsonNode in) throws Throwable {
        long now = in.get("nowMs").asLong();
        if (!loaded) {
            loaded = true;
            if (now > time.milliseconds()) time.setCurrentTimeMs(now);
            // The partition is loaded (GroupCoordinatorShard.onLoaded: the expiration and
            // group-size timers) and the service started (4.4: the topology-cleanup cycle).
            shard.onLoaded(new KRaftCoordinatorMetadataImage(image));
            if (pluginConfigured) scheduleTopologyCleanup();
        }
        String type = in.get("type").asText();
        ObjectNode out = F.objectNode();
        out.putNull("response");
        ArrayNode records = out.putArray("records");
        ArrayNode toCreate = out.putArray("topicsToCreate");
        ArrayNode fired = F.arrayNode();
        fireTimersUpTo(now, records, fired);
        switch (type) {
            case "StreamsGroupHeartbeat" -> { sawRequest = true; heartbeat(in, out, records, toCreate); }
            case "StreamsGroupDescribe" -> { sawRequest = true; out.set("response", streamsDescribe(in, out)); }
            case "TopicMetadata" -> topicMetadata(in, records);
            case "AdvanceTime" -> { }
            case "DeleteGroups" -> { sawRequest = true; out.set("response", deleteGroups(in, records, out)); }
            case "Replay" -> replayInput(in);
            case "OffsetCommit" -> { sawRequest = true; out.set("response", offsetCommit(in, records, out)); }
            case "TxnOffsetCommit" -> { sawRequest = true; out.set("response", txnOffsetCommit(in, records, out)); }
            case "TransactionCompleted" -> { sawRequest = true; transactionCompleted(in, out); }
            case "OffsetFetch" -> { sawRequest = true; out.set("response", offsetFetch(in, out)); }
            case "OffsetDelete" -> { sawRequest = true; out.set("response", offsetDelete(in, records, out)); }
            case "ListGroups" -> { sawRequest = true; out.set("response", listGroups(in, out)); }
            case "DescribeGroups" -> { sawRequest = true; out.set("response", describeGroups(in, out)); }
            case "ConsumerGroupDescribe" -> { sawRequest = true; out.set("response", consumerGroupDescribe(in, out)); }
            case "GroupConfig" -> groupConfig(in, out);
            case "StreamsGroupTopologyDescriptionUpdate" -> {
                if (!R44) {
                    out.put("unsupported", "Kafka " + RELEASE + " has no equivalent of input type " + type);
                } else {
                    sawRequest = true;
                    out.set("response", topologyDescriptionUpdate(in, records, out));
                }
            }
            default -> out.put("unsupported", "Kafka " + RELEASE + " has no equivalent of input type " + type);
        }
        T next = timer.q.stream().filter(t -> !SILENT_TIMERS.contains(t.key())).findFirst().orElse(null);
        if (next != null) out.put("nextDeadlineMs", next.deadline());
        else out.putNull("nextDeadlineMs");
        out.set("timersFired", fired);
        ArrayNode ts = out.putArray("timers");
        for (T t : timer.q) {
            if (SILENT_TIMERS.contains(t.key())) continue;
            ts.addObject().put("key", t.key()).put("deadlineMs", t.deadline());
        }
        return out;
    }

    // ---------------------------------------------------------------- Replay

    void replayInput(JsonNode in) throws Exception {
        for (JsonNode r : iter(in.get("records"))) {
            long pid = r.hasNonNull("producerId") ? r.get("producerId").asLong() : -1L;
            short pepoch = r.hasNonNull("producerEpoch") ? (short) r.get("producerEpoch").asInt() : (short) -1;
            CoordinatorRecord rec;
            if (r.has("keyBytes")) {
                byte[] k = Base64.getDecoder().decode(r.get("keyBytes").asText());
                JsonNode vb = r.get("valueBytes");
                ByteBuffer v = vb == null || vb.isNull() ? null : ByteBuffer.wrap(Base64.getDecoder().decode(vb.asText()));
                try {
                    rec = new GroupCoordinatorRecordSerde().deserialize(ByteBuffer.wrap(k), v);
                } catch (RuntimeException e) {
                    System.err.println("koracle: skipped a record: " + e);
                    continue;
                }
            } else {
                short t = (short) r.get("key").get("type").asInt();
                ApiMessage key = CoordinatorRecordJsonConverters.readRecordKeyFromJson(r.get("key").get("data"), t);
                JsonNode v = r.get("value");
                if (v == null || v.isNull()) {
                    rec = CoordinatorRecord.tombstone(key);
                } else {
                    short ver = (short) v.get("version").asInt();
                    rec = CoordinatorRecord.record(key, new ApiMessageAndVersion(
                        CoordinatorRecordJsonConverters.readRecordValueFromJson(v.get("data"), t, ver), ver));
                }
            }
            replay(rec, pid, pepoch);
        }
        commit();
        // A log is being loaded: GroupMetadataManager.onLoaded (as GroupCoordinatorShard.onLoaded calls it)
        // runs again while no request came, so the loaded groups get their timers.
        if (!sawRequest) call(gmm, "onLoaded");
    }

    // ---------------------------------------------------------------- StreamsGroupHeartbeat

    static StreamsGroupHeartbeatResponseData heartbeatError(Errors e, String message) {
        return new StreamsGroupHeartbeatResponseData().setErrorCode(e.code()).setErrorMessage(message);
    }

    void heartbeat(JsonNode in, ObjectNode out, ArrayNode records, ArrayNode toCreate) throws Throwable {
        short version = apiVersion(in, ApiKeys.STREAMS_GROUP_HEARTBEAT, 0);
        StreamsGroupHeartbeatRequestData request = readRequest(StreamsGroupHeartbeatRequestData.class, in.get("request"), version);
        StreamsGroupHeartbeatResponseData response = null;
        // KafkaApis.handleStreamsGroupHeartbeat: internal and invalid topic names in the topology.
        if (request.topology() != null) {
            LinkedHashSet<String> names = new LinkedHashSet<>();
            for (StreamsGroupHeartbeatRequestData.Subtopology s : request.topology().subtopologies()) {
                names.addAll(s.sourceTopics());
                names.addAll(s.repartitionSinkTopics());
                s.repartitionSourceTopics().forEach(t -> names.add(t.name()));
                s.stateChangelogTopics().forEach(t -> names.add(t.name()));
            }
            List<String> internal = names.stream().filter(Topic::isInternal).toList();
            List<String> invalid = names.stream().filter(n -> !Topic.isValid(n)).toList();
            if (!internal.isEmpty()) {
                response = heartbeatError(Errors.STREAMS_INVALID_TOPOLOGY,
                    "Use of Kafka internal topics " + String.join(",", internal) + " in a Kafka Streams topology is prohibited.");
            } else if (!invalid.isEmpty()) {
                response = heartbeatError(Errors.STREAMS_INVALID_TOPOLOGY,
                    "Topic names " + String.join(",", invalid) + " are not valid topic names.");
            }
        }
        // GroupCoordinatorService.streamsGroupHeartbeat: the request's own checks.
        if (response == null) {
            try {
                serviceCheck("throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures", request);
                serviceCheck("throwIfStreamsGroupHeartbeatRequestIsInvalid", request);
            } catch (Throwable e) {
                ApiError err = ApiError.fromThrowable(e);
                response = heartbeatError(err.error(), err.message());
            }
        }
        if (response == null) {
            AuthorizableRequestContext ctx = context(in.get("client"), ApiKeys.STREAMS_GROUP_HEARTBEAT, version);
            try {
                StreamsGroupHeartbeatResult result = (StreamsGroupHeartbeatResult) write(() -> shard.streamsGroupHeartbeat(ctx, request), records);
                if (descriptionManager != null && pluginConfigured) {
                    try {
                        result = (StreamsGroupHeartbeatResult) call(descriptionManager, "maybeSetTopologyDescriptionRequired",
                            result, request.groupId(), (int) version, request.memberEpoch());
                    } catch (Throwable t) {
                        System.err.println("koracle: topology-description post-processing failed: " + t);
                    }
                }
                response = result.data();
                List<CreateTopicsRequestData.CreatableTopic> ct = new ArrayList<>(result.creatableTopics().values());
                ct.sort(Comparator.comparing(CreateTopicsRequestData.CreatableTopic::name));
                for (CreateTopicsRequestData.CreatableTopic t : ct) {
                    ObjectNode o = toCreate.addObject();
                    o.put("name", t.name());
                    o.put("numPartitions", t.numPartitions());
                    o.put("replicationFactor", t.replicationFactor());
                    ArrayNode cfg = o.putArray("configs");
                    for (CreateTopicsRequestData.CreatableTopicConfig c : t.configs())
                        cfg.addObject().put("name", c.name()).put("value", c.value());
                }
            } catch (Throwable e) {
                response = onError("streams-group-heartbeat", request, e, KOracle::heartbeatError, out);
            }
        }
        JsonNode json = toJson(response, version);
        if (version == 0 && json instanceof ObjectNode o && o.has("acceptableRecoveryLagLegacy")) {
            ObjectNode renamed = F.objectNode();
            o.fields().forEachRemaining(e -> renamed.set(
                e.getKey().equals("acceptableRecoveryLagLegacy") ? "acceptableRecoveryLag" : e.getKey(), e.getValue()));
            json = renamed;
        }
        out.set("response", json);
    }

    static void serviceCheck(String name, StreamsGroupHeartbeatRequestData request) throws Throwable {
        Method m = GroupCoordinatorService.class.getDeclaredMethod(name, StreamsGroupHeartbeatRequestData.class);
        m.setAccessible(true);
        try {
            m.invoke(null, request);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    // ---------------------------------------------------------------- StreamsGroupDescribe

    /** The service's split of a describe: empty ids answered INVALID_GROUP_ID first, then each partition's groups. */
    Map<TopicPartition, List<String>> byPartition(List<String> groupIds, List<String> invalid) {
        Map<TopicPartition, List<String>> m = new HashMap<>();
        for (String g : groupIds) {
            if (g != null && !g.isEmpty()) m.computeIfAbsent(partitionFor(g), k -> new ArrayList<>()).add(g);
            else invalid.add(g);
        }
        return m;
    }

    JsonNode streamsDescribe(JsonNode in, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.STREAMS_GROUP_DESCRIBE, 0);
        JsonNode req = in.get("request");
        List<String> ids = new ArrayList<>();
        for (JsonNode g : iter(req.get("groupIds"))) ids.add(g.isNull() ? null : g.asText());
        boolean includeDescription = version >= 1 && req.hasNonNull("includeTopologyDescription")
            && req.get("includeTopologyDescription").asBoolean();
        List<String> invalid = new ArrayList<>();
        Map<TopicPartition, List<String>> parts = byPartition(ids, invalid);
        List<StreamsGroupDescribeResponseData.DescribedGroup> groups = new ArrayList<>();
        for (String g : invalid)
            groups.add(new StreamsGroupDescribeResponseData.DescribedGroup().setGroupId("").setErrorCode(Errors.INVALID_GROUP_ID.code()));
        for (Map.Entry<TopicPartition, List<String>> e : parts.entrySet()) {
            List<String> list = e.getValue();
            try {
                Object result = call(shard, "streamsGroupDescribe", list, committed());
                List<StreamsGroupDescribeResponseData.DescribedGroup> described;
                if (result instanceof List<?> l) {
                    described = (List<StreamsGroupDescribeResponseData.DescribedGroup>) l;
                } else if (includeDescription) {
                    described = (List<StreamsGroupDescribeResponseData.DescribedGroup>)
                        ((CompletableFuture<?>) call(descriptionManager, "attachTopologyDescriptions", result)).join();
                } else {
                    described = (List<StreamsGroupDescribeResponseData.DescribedGroup>) call(result, "describedGroups");
                }
                groups.addAll(described);
            } catch (Throwable t) {
                groups.addAll(onError("streams-group-describe", list, t,
                    (err, m) -> org.apache.kafka.common.requests.StreamsGroupDescribeRequest.getErrorDescribedGroupList(list, err), out));
            }
        }
        return toJson(new StreamsGroupDescribeResponseData().setGroups(groups), version);
    }

    // ---------------------------------------------------------------- DeleteGroups

    JsonNode deleteGroups(JsonNode in, ArrayNode records, ObjectNode out) throws Throwable {
        ObjectNode resp = F.objectNode();
        ArrayNode results = resp.putArray("results");
        JsonNode ids = in.has("groupIds") ? in.get("groupIds") : in.get("request").get("groupIds");
        Map<TopicPartition, List<String>> parts = new HashMap<>();
        for (JsonNode g : iter(ids)) {
            if (g.isNull()) {
                results.addObject().putNull("groupId").put("errorCode", Errors.INVALID_GROUP_ID.code());
            } else {
                parts.computeIfAbsent(partitionFor(g.asText()), k -> new ArrayList<>()).add(g.asText());
            }
        }
        AuthorizableRequestContext ctx = context(null, ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_GROUPS.latestVersion());
        for (Map.Entry<TopicPartition, List<String>> e : parts.entrySet()) {
            // updateResponseAndGetNonErrorGroupList: the ids go on as a HashSet (no share group is ever deleted here).
            List<String> retained = new HashSet<>(e.getValue()).stream().toList();
            List<DeleteGroupsResponseData.DeletableGroupResult> part = new ArrayList<>();
            if (pluginConfigured) retained = deleteTopologyDescriptions(retained, part, records);
            if (!retained.isEmpty()) {
                final List<String> groupIds = retained;
                DeleteGroupsResponseData.DeletableGroupResultCollection res;
                try {
                    res = (DeleteGroupsResponseData.DeletableGroupResultCollection) write(() -> shard.deleteGroups(ctx, groupIds), records);
                } catch (Throwable t) {
                    res = onError("delete-groups", groupIds, t,
                        (err, m) -> org.apache.kafka.common.requests.DeleteGroupsRequest.getErrorResultCollection(groupIds, err), out);
                }
                res.forEach(part::add);
            }
            for (DeleteGroupsResponseData.DeletableGroupResult r : part) {
                ObjectNode o = results.addObject();
                o.put("groupId", r.groupId());
                o.put("errorCode", r.errorCode());
                String msg = errorMessage(r);
                if (msg != null) o.put("errorMessage", msg);
            }
        }
        return resp;
    }

    static String errorMessage(Object result) {
        try {
            return (String) result.getClass().getMethod("errorMessage").invoke(result);
        } catch (Exception e) {
            return null; // 4.2/4.3 results have no message
        }
    }

    /** 4.4, GroupCoordinatorService.deleteStreamsTopologyDescriptions and filterStreamsTopologyErrors. */
    List<String> deleteTopologyDescriptions(List<String> groupIds, List<DeleteGroupsResponseData.DeletableGroupResult> part, ArrayNode records) throws Throwable {
        Map<String, ApiError> failures;
        try {
            Set<String> withStored = (Set<String>) call(shard, "streamsGroupsWithStoredTopologyDescription", groupIds, committed());
            if (withStored.isEmpty()) {
                failures = Map.of();
            } else {
                Set<String> marked = (Set<String>) write(() -> (CoordinatorResult) call(shard, "markStoredDescriptionTopologyEpochUncertainBatch", withStored), records);
                failures = (Map<String, ApiError>) ((CompletableFuture<?>) call(descriptionManager, "invokeDeleteTopologies", marked)).join();
                Set<String> succeeded = new LinkedHashSet<>(marked);
                succeeded.removeAll(failures.keySet());
                for (String g : succeeded) call(descriptionManager, "clearBackoffGroup", g);
                if (!succeeded.isEmpty()) finalizeAfterDelete(succeeded, records);
            }
        } catch (Throwable t) {
            ApiError err = CoordinatorOperationExceptionHelper.handleOperationException("streams-group-topology-pre-delete",
                groupIds, t, (e, m) -> new ApiError(e, m), LOG);
            failures = new HashMap<>();
            for (String g : groupIds) failures.put(g, err);
        }
        if (failures.isEmpty()) return groupIds;
        List<String> retained = new ArrayList<>();
        for (String g : groupIds) {
            ApiError err = failures.get(g);
            if (err == null) {
                retained.add(g);
            } else {
                DeleteGroupsResponseData.DeletableGroupResult r = new DeleteGroupsResponseData.DeletableGroupResult()
                    .setGroupId(g).setErrorCode(err.error().code());
                call(r, "setErrorMessage", err.message());
                part.add(r);
            }
        }
        return retained;
    }

    void finalizeAfterDelete(Set<String> groupIds, ArrayNode records) {
        try {
            write(() -> (CoordinatorResult) call(shard, "finalizeStoredDescriptionTopologyEpochAfterDeleteBatch", groupIds), records);
        } catch (Throwable t) {
            System.err.println("koracle: finalize after delete failed for " + groupIds + ": " + t);
        }
    }

    // ---------------------------------------------------------------- 4.4 topology descriptions

    void scheduleTopologyCleanup() {
        timer.add(TOPOLOGY_CLEANUP_TIMER, time.milliseconds() + retentionCheckIntervalMs, false, 0, out -> {
            int before = out.size();
            try {
                topologyCleanupCycle(out);
            } finally {
                scheduleTopologyCleanup();
            }
            return out.size() - before;
        });
    }

    /** GroupCoordinatorService.runOneStreamsTopologyCleanupCycle, one partition after the other. */
    void topologyCleanupCycle(ArrayNode records) throws Throwable {
        Set<String> eligible = (Set<String>) call(shard, "listStreamsGroupsNeedingTopologyCleanup", committed());
        Map<TopicPartition, Set<String>> byTp = new LinkedHashMap<>();
        for (TopicPartition tp : partitionOrder()) {
            for (String g : eligible) if (partitionFor(g).equals(tp)) byTp.computeIfAbsent(tp, k -> new LinkedHashSet<>()).add(g);
        }
        for (Set<String> groups : byTp.values()) {
            Set<String> still;
            try {
                still = (Set<String>) write(() -> (CoordinatorResult) call(shard, "markStoredDescriptionTopologyEpochUncertainBatch", groups), records);
            } catch (Throwable t) {
                still = Set.of();
            }
            if (still.isEmpty()) continue;
            Map<String, ?> failures = (Map<String, ?>) ((CompletableFuture<?>) call(descriptionManager, "invokeDeleteTopologies", still)).join();
            Set<String> toFinalize = new LinkedHashSet<>();
            for (String g : still) {
                if (failures.containsKey(g)) continue;
                call(descriptionManager, "clearBackoffGroup", g);
                toFinalize.add(g);
            }
            if (!toFinalize.isEmpty()) finalizeAfterDelete(toFinalize, records);
        }
    }

    /** The order in which the runtime iterates its partitions (a ConcurrentHashMap of them). */
    List<TopicPartition> partitionOrder() {
        ConcurrentHashMap<TopicPartition, Boolean> m = new ConcurrentHashMap<>();
        for (int p = 0; p < offsetsPartitions; p++) m.put(new TopicPartition(OFFSETS_TOPIC, p), true);
        return new ArrayList<>(m.keySet());
    }

    /** GroupCoordinatorService.streamsGroupTopologyDescriptionUpdate (4.4). */
    JsonNode topologyDescriptionUpdate(JsonNode in, ArrayNode records, ObjectNode out) throws Throwable {
        ApiKeys api = ApiKeys.valueOf("STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE");
        short version = apiVersion(in, api, 0);
        Class<?> reqClass = Class.forName("org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData");
        Class<?> respClass = Class.forName("org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateResponseData");
        Object request = readRequest(reqClass, in.get("request"), version);
        BiFunction<Errors, String, Object> error = (e, m) -> {
            try {
                Object r = respClass.getConstructor().newInstance();
                call(r, "setErrorCode", e.code());
                call(r, "setErrorMessage", m);
                return r;
            } catch (Exception x) {
                throw sneaky(x);
            }
        };
        String groupId = (String) call(request, "groupId");
        String memberId = (String) call(request, "memberId");
        int epoch = (Integer) call(request, "topologyEpoch");
        Object response;
        try {
            if (!pluginConfigured)
                throw new org.apache.kafka.common.errors.UnsupportedVersionException(
                    "The broker has no streams group topology description plugin configured.");
            Method empty = Class.forName("org.apache.kafka.coordinator.group.Utils").getDeclaredMethod("throwIfEmptyString", String.class, String.class);
            Method isNull = Class.forName("org.apache.kafka.coordinator.group.Utils").getDeclaredMethod("throwIfNull", Object.class, String.class);
            empty.setAccessible(true);
            isNull.setAccessible(true);
            invokeUnwrapped(empty, null, memberId, "MemberId can't be empty.");
            invokeUnwrapped(empty, null, groupId, "GroupId can't be empty.");
            invokeUnwrapped(isNull, null, call(request, "topologyDescription"), "TopologyDescription can't be null.");
        } catch (Throwable t) {
            ApiError err = ApiError.fromThrowable(t);
            return toJson(error.apply(err.error(), err.message()), version);
        }
        try {
            call(shard, "validateStreamsGroupTopologyDescriptionUpdate", groupId, memberId, epoch, committed());
            Class<?> conv = Class.forName("org.apache.kafka.coordinator.group.streams.StreamsGroupTopologyDescriptionConverter");
            Object description = invokeUnwrapped(findMethod(conv, "fromRequest", 1), null, call(request, "topologyDescription"));
            Boolean marked = (Boolean) write(() -> (CoordinatorResult) call(shard, "markStoredDescriptionTopologyEpochUncertain", groupId, true), records);
            if (!marked) throw new org.apache.kafka.common.errors.GroupIdNotFoundException(String.format("Group %s not found.", groupId));
            Object outcome = ((CompletableFuture<?>) call(descriptionManager, "invokeSetTopology", groupId, epoch, description)).join();
            String kind = call(outcome, "kind").toString();
            String message = (String) call(outcome, "message");
            switch (kind) {
                case "SUCCESS", "PERMANENT" -> {
                    Throwable writeError = null;
                    try {
                        write(() -> (CoordinatorResult) call(shard, kind.equals("SUCCESS")
                            ? "setStoredDescriptionTopologyEpoch" : "setFailedDescriptionTopologyEpoch", groupId, epoch), records);
                    } catch (Throwable t) {
                        writeError = t;
                    }
                    Object onCommit = respClass.getConstructor().newInstance();
                    if (kind.equals("PERMANENT")) {
                        call(onCommit, "setErrorCode", Errors.valueOf("STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED").code());
                        call(onCommit, "setErrorMessage", message);
                    }
                    response = call(descriptionManager, "completeEpochWrite", groupId, epoch, writeError, onCommit);
                }
                default -> {
                    call(descriptionManager, "armBackoff", groupId, epoch);
                    response = error.apply(Errors.valueOf("STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED"), message);
                }
            }
        } catch (Throwable t) {
            response = onError("streams-group-topology-description-update", request, t, error, out);
        }
        return toJson(response, version);
    }

    // ---------------------------------------------------------------- OffsetCommit

    /** Names are part of sgc's JSON at every version: keep them where the version's wire form has none. */
    static void restoreNames(List<?> wired, List<?> given) throws Exception {
        for (int i = 0; i < wired.size() && i < given.size(); i++) {
            Object w = wired.get(i);
            String n = (String) call(w, "name");
            if (n == null || n.isEmpty()) call(w, "setName", call(given.get(i), "name"));
        }
    }

    /** KafkaApis: at a topic-id version an id the image knows names the topic. */
    void resolveTopicNames(List<?> topicList) throws Exception {
        for (Object t : topicList) {
            Uuid id = (Uuid) call(t, "topicId");
            if (id != null && !id.equals(Uuid.ZERO_UUID)) {
                var ti = image.topics().getTopic(id);
                if (ti != null) call(t, "setName", ti.name());
            }
        }
    }

    boolean partitionKnown(String topic, int partition) {
        var ti = image.topics().getTopic(topic);
        return ti != null && ti.partitions().containsKey(partition);
    }

    JsonNode offsetCommit(JsonNode in, ArrayNode records, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.OFFSET_COMMIT, 10);
        OffsetCommitRequestData given = readRequest(OffsetCommitRequestData.class, in.get("request"), version);
        OffsetCommitRequestData request = wire(given, version);
        restoreNames(request.topics(), given.topics());
        boolean useTopicIds = version >= 10;
        OffsetCommitResponseData front = new OffsetCommitResponseData();
        if (useTopicIds) resolveTopicNames(request.topics());
        if (kafkaApis && R43 && !useTopicIds) {
            // 4.3+: KafkaApis resolves a lower version's topic id from the metadata (zero: unknown).
            for (OffsetCommitRequestData.OffsetCommitRequestTopic t : request.topics()) {
                var ti = image.topics().getTopic(t.name());
                t.setTopicId(ti == null ? Uuid.ZERO_UUID : ti.id());
            }
        }
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> accepted = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : request.topics()) {
            if (useTopicIds && t.name().isEmpty()) {
                front.topics().add(commitTopicError(t.topicId(), t.name(), t.partitions().stream().map(p -> p.partitionIndex()).toList(), Errors.UNKNOWN_TOPIC_ID));
            } else if (kafkaApis && (R43 ? Uuid.ZERO_UUID.equals(t.topicId()) : image.topics().getTopic(t.name()) == null)) {
                front.topics().add(commitTopicError(R43 ? Uuid.ZERO_UUID : t.topicId(), t.name(), t.partitions().stream().map(p -> p.partitionIndex()).toList(), Errors.UNKNOWN_TOPIC_OR_PARTITION));
            } else if (kafkaApis) {
                OffsetCommitRequestData.OffsetCommitRequestTopic valid = new OffsetCommitRequestData.OffsetCommitRequestTopic()
                    .setTopicId(t.topicId()).setName(t.name());
                List<Integer> bad = new ArrayList<>();
                for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                    if (partitionKnown(t.name(), p.partitionIndex())) valid.partitions().add(p);
                    else bad.add(p.partitionIndex());
                }
                if (!bad.isEmpty()) front.topics().add(commitTopicError(t.topicId(), t.name(), bad, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                if (!valid.partitions().isEmpty()) accepted.add(valid);
            } else {
                accepted.add(t);
            }
        }
        OffsetCommitResponseData response;
        if (accepted.isEmpty()) {
            response = front;
        } else {
            OffsetCommitRequestData req = new OffsetCommitRequestData()
                .setGroupId(request.groupId()).setMemberId(request.memberId())
                .setGenerationIdOrMemberEpoch(request.generationIdOrMemberEpoch())
                .setRetentionTimeMs(request.retentionTimeMs()).setGroupInstanceId(request.groupInstanceId())
                .setTopics(accepted);
            OffsetCommitResponseData result;
            if (req.groupId() == null) {
                result = OffsetCommitRequest.getErrorResponse(req, Errors.INVALID_GROUP_ID);
            } else {
                AuthorizableRequestContext ctx = context(in.get("client"), ApiKeys.OFFSET_COMMIT, version);
                try {
                    result = (OffsetCommitResponseData) write(() -> shard.commitOffset(ctx, req), records);
                } catch (Throwable t) {
                    result = onError("commit-offset", req, t, (e, m) -> OffsetCommitRequest.getErrorResponse(req, e), out);
                }
            }
            response = front;
            // OffsetCommitResponse.Builder.merge: a topic the front-end answered gets the partitions.
            List<OffsetCommitResponseData.OffsetCommitResponseTopic> answered = new ArrayList<>(response.topics());
            for (OffsetCommitResponseData.OffsetCommitResponseTopic t : result.topics()) {
                OffsetCommitResponseData.OffsetCommitResponseTopic same = null;
                for (OffsetCommitResponseData.OffsetCommitResponseTopic f : answered)
                    if (sameTopic(useTopicIds, f.topicId(), f.name(), t.topicId(), t.name())) same = f;
                if (same != null) same.partitions().addAll(t.partitions());
                else response.topics().add(t);
            }
        }
        ObjectNode o = F.objectNode();
        o.put("throttleTimeMs", response.throttleTimeMs());
        ArrayNode ts = o.putArray("topics");
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : response.topics()) {
            ObjectNode to = ts.addObject();
            to.put("name", t.name());
            if (useTopicIds) to.put("topicId", t.topicId().toString());
            ArrayNode ps = to.putArray("partitions");
            for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions())
                ps.addObject().put("partitionIndex", p.partitionIndex()).put("errorCode", p.errorCode());
        }
        return o;
    }

    /** The response builders key topics by id at topic-id versions (a zero id, which sgc's JSON allows, by name). */
    static boolean sameTopic(boolean useTopicIds, Uuid id1, String n1, Uuid id2, String n2) {
        if (useTopicIds && !Uuid.ZERO_UUID.equals(id1) && !Uuid.ZERO_UUID.equals(id2)) return id1.equals(id2);
        return n1.equals(n2);
    }

    static OffsetCommitResponseData.OffsetCommitResponseTopic commitTopicError(Uuid id, String name, List<Integer> parts, Errors e) {
        OffsetCommitResponseData.OffsetCommitResponseTopic t = new OffsetCommitResponseData.OffsetCommitResponseTopic().setTopicId(id).setName(name);
        for (int p : parts) t.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(p).setErrorCode(e.code()));
        return t;
    }

    // ---------------------------------------------------------------- TxnOffsetCommit and its end marker

    JsonNode txnOffsetCommit(JsonNode in, ArrayNode records, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.TXN_OFFSET_COMMIT, 5);
        JsonNode reqJson = in.get("request");
        // 4.2 and 4.3 name the epoch generationId.
        if (reqJson != null && reqJson.has("generationIdOrMemberEpoch") && structFieldMissing(TxnOffsetCommitRequestData.class, "generationIdOrMemberEpoch")) {
            ObjectNode c = reqJson.deepCopy();
            c.set("generationId", c.remove("generationIdOrMemberEpoch"));
            reqJson = c;
        } else if (reqJson != null && reqJson.has("generationId") && structFieldMissing(TxnOffsetCommitRequestData.class, "generationId")) {
            ObjectNode c = reqJson.deepCopy();
            c.set("generationIdOrMemberEpoch", c.remove("generationId"));
            reqJson = c;
        }
        TxnOffsetCommitRequestData given = readRequest(TxnOffsetCommitRequestData.class, reqJson, version);
        if (given.producerId() < 0 || given.producerEpoch() < 0) {
            // The broker verifies the producer with the transaction coordinator before the group
            // coordinator sees the commit (CoordinatorRuntime.scheduleTransactionalWriteOperation).
            out.put("unsupported", "TxnOffsetCommit without a producer (producerId/producerEpoch < 0): the broker's producer verification is not driven");
            return NullNode.getInstance();
        }
        TxnOffsetCommitRequestData request = wire(given, version);
        restoreNames(request.topics(), given.topics());
        boolean useTopicIds = version >= 6;
        if (useTopicIds) resolveTopicNames(request.topics());
        TxnOffsetCommitResponseData front = new TxnOffsetCommitResponseData();
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> accepted = new ArrayList<>();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : request.topics()) {
            List<Integer> all = t.partitions().stream().map(p -> p.partitionIndex()).toList();
            if (useTopicIds && t.name().isEmpty()) {
                front.topics().add(txnTopicError(t, all, Errors.UNKNOWN_TOPIC_ID));
                continue;
            }
            if (kafkaApis) {
                if (!useTopicIds && R44) {
                    var ti = image.topics().getTopic(t.name());
                    call(t, "setTopicId", ti == null ? Uuid.ZERO_UUID : ti.id());
                }
                if (image.topics().getTopic(t.name()) == null) {
                    front.topics().add(txnTopicError(t, all, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                    continue;
                }
                TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic valid = new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(t.name());
                if (R44) call(valid, "setTopicId", call(t, "topicId"));
                List<Integer> bad = new ArrayList<>();
                for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : t.partitions()) {
                    if (partitionKnown(t.name(), p.partitionIndex())) valid.partitions().add(p);
                    else bad.add(p.partitionIndex());
                }
                if (!bad.isEmpty()) front.topics().add(txnTopicError(t, bad, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                if (!valid.partitions().isEmpty()) accepted.add(valid);
            } else {
                accepted.add(t);
            }
        }
        TxnOffsetCommitResponseData response = front;
        if (!accepted.isEmpty()) {
            request.setTopics(accepted);
            TxnOffsetCommitResponseData result;
            if (request.groupId() == null || request.groupId().isEmpty()) {
                result = TxnOffsetCommitRequest.getErrorResponse(request, Errors.INVALID_GROUP_ID);
            } else {
                AuthorizableRequestContext ctx = context(in.get("client"), ApiKeys.TXN_OFFSET_COMMIT, version);
                try {
                    result = (TxnOffsetCommitResponseData) write(() -> shard.commitTransactionalOffset(ctx, request),
                        request.producerId(), request.producerEpoch(), records);
                } catch (Throwable t) {
                    result = onError("txn-commit-offset", request, t, (e, m) -> TxnOffsetCommitRequest.getErrorResponse(request, e), out);
                }
            }
            List<TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic> answered = new ArrayList<>(response.topics());
            for (TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic t : result.topics()) {
                TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic same = null;
                for (TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic f : answered)
                    if (sameTopic(useTopicIds, R44 ? (Uuid) call(f, "topicId") : Uuid.ZERO_UUID, f.name(),
                        R44 ? (Uuid) call(t, "topicId") : Uuid.ZERO_UUID, t.name())) same = f;
                if (same != null) same.partitions().addAll(t.partitions());
                else response.topics().add(t);
            }
        }
        ObjectNode o = F.objectNode();
        o.put("throttleTimeMs", response.throttleTimeMs());
        ArrayNode ts = o.putArray("topics");
        for (TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic t : response.topics()) {
            ObjectNode to = ts.addObject();
            to.put("name", t.name());
            if (useTopicIds) to.put("topicId", String.valueOf(call(t, "topicId")));
            ArrayNode ps = to.putArray("partitions");
            for (TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition p : t.partitions())
                ps.addObject().put("partitionIndex", p.partitionIndex()).put("errorCode", p.errorCode());
        }
        return o;
    }

    static boolean structFieldMissing(Class<?> c, String f) {
        try {
            c.getDeclaredField(f);
            return false;
        } catch (NoSuchFieldException e) {
            return true;
        }
    }

    static TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic txnTopicError(
        TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic req, List<Integer> parts, Errors e) throws Exception {
        TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic t = new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(req.name());
        if (R44) call(t, "setTopicId", call(req, "topicId"));
        for (int p : parts) t.partitions().add(new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition().setPartitionIndex(p).setErrorCode(e.code()));
        return t;
    }

    /** The transaction's end marker, as CoordinatorRuntime.completeTransaction writes and replays it. */
    void transactionCompleted(JsonNode in, ObjectNode out) {
        long pid = in.get("producerId").asLong();
        short epoch = (short) in.get("producerEpoch").asInt();
        String result = in.get("result").asText();
        TransactionResult r = result.equalsIgnoreCase("COMMIT") ? TransactionResult.COMMIT : TransactionResult.ABORT;
        long start = lastWrittenOffset;
        snapshotRegistry.idempotentCreateSnapshot(start);
        try {
            shard.replayEndTransactionMarker(pid, epoch, r);
            lastWrittenOffset++;
            snapshotRegistry.idempotentCreateSnapshot(lastWrittenOffset);
            commit();
        } catch (RuntimeException e) {
            revert(start);
            exception(e, out);
        }
    }

    // ---------------------------------------------------------------- OffsetFetch

    JsonNode offsetFetch(JsonNode in, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.OFFSET_FETCH, 10);
        OffsetFetchRequestData given = readRequest(OffsetFetchRequestData.class, in.get("request"), (short) Math.max(version, 8));
        boolean requireStable = version >= 7 && given.requireStable();
        boolean useTopicIds = version >= 10;
        List<OffsetFetchResponseData.OffsetFetchResponseGroup> groups = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g0 : given.groups()) {
            OffsetFetchRequestData.OffsetFetchRequestGroup g = wire(g0, version < 8 ? 8 : version);
            if (g0.topics() != null && g.topics() != null) restoreNames(g.topics(), g0.topics());
            if (version < 9) g.setMemberId(null).setMemberEpoch(-1);
            groups.add(fetchGroup(g, requireStable, useTopicIds, version, out));
        }
        // OffsetFetchResponse.Builder(groups).build(version), as the client reads it.
        OffsetFetchResponseData data = new OffsetFetchResponse.Builder(groups).build(version).data();
        OffsetFetchResponseData read = wire(data, version);
        List<OffsetFetchResponseData.OffsetFetchResponseGroup> shown;
        if (version >= 8) {
            shown = read.groups();
            for (int i = 0; i < shown.size() && i < data.groups().size(); i++) restoreNames(shown.get(i).topics(), data.groups().get(i).topics());
        } else {
            OffsetFetchResponseData.OffsetFetchResponseGroup one = new OffsetFetchResponseData.OffsetFetchResponseGroup()
                .setGroupId(given.groups().isEmpty() ? "" : given.groups().get(0).groupId())
                .setErrorCode(read.errorCode());
            for (OffsetFetchResponseData.OffsetFetchResponseTopic t : read.topics()) {
                OffsetFetchResponseData.OffsetFetchResponseTopics nt = new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(t.name());
                for (OffsetFetchResponseData.OffsetFetchResponsePartition p : t.partitions()) {
                    nt.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                        .setPartitionIndex(p.partitionIndex()).setCommittedOffset(p.committedOffset())
                        .setCommittedLeaderEpoch(p.committedLeaderEpoch()).setMetadata(p.metadata()).setErrorCode(p.errorCode()));
                }
                one.topics().add(nt);
            }
            shown = List.of(one);
        }
        ObjectNode o = F.objectNode();
        o.put("throttleTimeMs", read.throttleTimeMs());
        ArrayNode gs = o.putArray("groups");
        for (OffsetFetchResponseData.OffsetFetchResponseGroup g : shown) {
            ObjectNode go = gs.addObject();
            go.put("groupId", g.groupId());
            ArrayNode ts = go.putArray("topics");
            for (OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
                ObjectNode to = ts.addObject();
                to.put("name", t.name());
                if (useTopicIds) to.put("topicId", String.valueOf(call(t, "topicId")));
                ArrayNode ps = to.putArray("partitions");
                for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                    ps.addObject().put("partitionIndex", p.partitionIndex()).put("committedOffset", p.committedOffset())
                        .put("committedLeaderEpoch", p.committedLeaderEpoch()).put("metadata", p.metadata()).put("errorCode", p.errorCode());
                }
            }
            go.put("errorCode", g.errorCode());
        }
        return o;
    }

    /** KafkaApis.fetchOffsetsForGroup / fetchAllOffsetsForGroup over GroupCoordinatorService.fetchOffsets / fetchAllOffsets. */
    OffsetFetchResponseData.OffsetFetchResponseGroup fetchGroup(OffsetFetchRequestData.OffsetFetchRequestGroup g,
                                                               boolean requireStable, boolean useTopicIds, short version, ObjectNode out) throws Throwable {
        boolean all = g.topics() == null;
        List<OffsetFetchResponseData.OffsetFetchResponseTopics> errorTopics = new ArrayList<>();
        OffsetFetchRequestData.OffsetFetchRequestGroup req = g;
        if (!all) {
            if (useTopicIds) resolveTopicNames(g.topics());
            List<OffsetFetchRequestData.OffsetFetchRequestTopics> ok = new ArrayList<>();
            for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                if (useTopicIds && t.name().isEmpty()) {
                    OffsetFetchResponseData.OffsetFetchResponseTopics et = new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(t.name());
                    call(et, "setTopicId", call(t, "topicId"));
                    for (int p : t.partitionIndexes())
                        et.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                            .setPartitionIndex(p).setCommittedOffset(-1).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                    errorTopics.add(et);
                } else {
                    ok.add(t);
                }
            }
            req = new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(g.groupId())
                .setMemberId(g.memberId()).setMemberEpoch(g.memberEpoch()).setTopics(ok);
        }
        OffsetFetchResponseData.OffsetFetchResponseGroup r;
        final OffsetFetchRequestData.OffsetFetchRequestGroup fr = req;
        if (fr.groupId() == null) {
            r = OffsetFetchResponse.groupError(fr, Errors.INVALID_GROUP_ID, version);
        } else {
            try {
                r = fetch(fr, all, requireStable ? Long.MAX_VALUE : committed());
            } catch (Throwable t) {
                if (requireStable) {
                    ApiError err = ApiError.fromThrowable(t);
                    switch (err.error()) {
                        case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT ->
                            r = OffsetFetchResponse.groupError(g, Errors.NOT_COORDINATOR, version);
                        default -> r = onError(all ? "fetch-all-offsets" : "fetch-offsets", fr, t,
                            (e, m) -> OffsetFetchResponse.groupError(fr, e, version), out);
                    }
                } else {
                    // A read operation's failure reaches KafkaApis unmapped.
                    Errors e = Errors.forException(Errors.maybeUnwrapException(t));
                    if (e == Errors.UNKNOWN_SERVER_ERROR) exception(t, out);
                    r = OffsetFetchResponse.groupError(g, e, version);
                }
            }
        }
        if (r.errorCode() != Errors.NONE.code()) return r;
        if (all) {
            if (useTopicIds && kafkaApis) {
                List<OffsetFetchResponseData.OffsetFetchResponseTopics> kept = new ArrayList<>();
                for (OffsetFetchResponseData.OffsetFetchResponseTopics t : r.topics()) {
                    Uuid id = (Uuid) call(t, "topicId");
                    if (Uuid.ZERO_UUID.equals(id)) {
                        var ti = image.topics().getTopic(t.name());
                        if (ti != null) call(t, "setTopicId", ti.id());
                    }
                    if (!Uuid.ZERO_UUID.equals(call(t, "topicId"))) kept.add(t);
                }
                r.setTopics(kept);
            }
        } else {
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> ts = new ArrayList<>(r.topics());
            ts.addAll(errorTopics);
            r.setTopics(ts);
        }
        return r;
    }

    OffsetFetchResponseData.OffsetFetchResponseGroup fetch(OffsetFetchRequestData.OffsetFetchRequestGroup req, boolean all, long epoch) throws Throwable {
        try {
            if (all) {
                try {
                    Method m = shard.getClass().getMethod("fetchAllOffsets", OffsetFetchRequestData.OffsetFetchRequestGroup.class, long.class);
                    return (OffsetFetchResponseData.OffsetFetchResponseGroup) m.invoke(shard, req, epoch); // 4.2
                } catch (NoSuchMethodException e) {
                    // 4.3+: fetchOffsets serves both.
                }
            }
            return shard.fetchOffsets(req, epoch);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    // ---------------------------------------------------------------- OffsetDelete

    JsonNode offsetDelete(JsonNode in, ArrayNode records, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.OFFSET_DELETE, 0);
        OffsetDeleteRequestData request = wire(readRequest(OffsetDeleteRequestData.class, in.get("request"), version), version);
        OffsetDeleteResponseData response;
        OffsetDeleteResponseData front = new OffsetDeleteResponseData();
        if (kafkaApis) {
            OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection keep = new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
            for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : request.topics()) {
                OffsetDeleteRequestData.OffsetDeleteRequestTopic kt = new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(t.name());
                OffsetDeleteResponseData.OffsetDeleteResponseTopic et = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
                for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                    if (partitionKnown(t.name(), p.partitionIndex())) kt.partitions().add(p.duplicate());
                    else et.partitions().add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                        .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                }
                if (!kt.partitions().isEmpty()) keep.add(kt);
                if (!et.partitions().isEmpty()) front.topics().add(et);
            }
            request.setTopics(keep);
        }
        if (request.groupId() == null || request.groupId().isEmpty()) {
            response = new OffsetDeleteResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code());
        } else {
            AuthorizableRequestContext ctx = context(in.get("client"), ApiKeys.OFFSET_DELETE, version);
            try {
                response = (OffsetDeleteResponseData) write(() -> shard.deleteOffsets(ctx, request), records);
            } catch (Throwable t) {
                response = onError("delete-offsets", request, t, (e, m) -> new OffsetDeleteResponseData().setErrorCode(e.code()), out);
            }
        }
        if (kafkaApis && response.errorCode() == Errors.NONE.code() && !front.topics().isEmpty()) {
            // OffsetDeleteResponse.Builder.merge: the front-end's answers first, the coordinator's merged in by name.
            for (OffsetDeleteResponseData.OffsetDeleteResponseTopic t : response.topics()) {
                OffsetDeleteResponseData.OffsetDeleteResponseTopic same = front.topics().find(t.name());
                if (same == null) front.topics().add(t.duplicate());
                else for (OffsetDeleteResponseData.OffsetDeleteResponsePartition p : t.partitions()) same.partitions().add(p.duplicate());
            }
            response = front;
        }
        return toJson(response, version);
    }

    // ---------------------------------------------------------------- ListGroups and the describes

    JsonNode listGroups(JsonNode in, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.latestVersion());
        org.apache.kafka.common.message.ListGroupsRequestData request =
            readRequest(org.apache.kafka.common.message.ListGroupsRequestData.class, in.get("request"), version);
        ListGroupsResponseData response;
        try {
            response = new ListGroupsResponseData().setGroups(shard.listGroups(request.statesFilter(), request.typesFilter(), committed()));
        } catch (Throwable t) {
            response = onError("list-groups", request, t, (e, m) -> new ListGroupsResponseData().setErrorCode(e.code()), out);
        }
        return toJson(wire(response, version), ApiKeys.LIST_GROUPS.latestVersion());
    }

    JsonNode describeGroups(JsonNode in, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.DESCRIBE_GROUPS, 6);
        org.apache.kafka.common.message.DescribeGroupsRequestData request =
            readRequest(org.apache.kafka.common.message.DescribeGroupsRequestData.class, in.get("request"), version);
        List<DescribeGroupsResponseData.DescribedGroup> groups = new ArrayList<>();
        Map<TopicPartition, List<String>> parts = new HashMap<>();
        for (String g : request.groups()) {
            if (g == null) groups.add(new DescribeGroupsResponseData.DescribedGroup().setGroupId("").setErrorCode(Errors.INVALID_GROUP_ID.code()));
            else parts.computeIfAbsent(partitionFor(g), k -> new ArrayList<>()).add(g);
        }
        AuthorizableRequestContext ctx = context(in.get("client"), ApiKeys.DESCRIBE_GROUPS, version);
        for (List<String> list : parts.values()) {
            try {
                groups.addAll(shard.describeGroups(ctx, list, committed()));
            } catch (Throwable t) {
                groups.addAll(onError("describe-groups", list, t,
                    (e, m) -> org.apache.kafka.common.requests.DescribeGroupsRequest.getErrorDescribedGroupList(list, e), out));
            }
        }
        DescribeGroupsResponseData response = new DescribeGroupsResponseData().setGroups(groups);
        return toJson(wire(response, version), ApiKeys.DESCRIBE_GROUPS.latestVersion());
    }

    JsonNode consumerGroupDescribe(JsonNode in, ObjectNode out) throws Throwable {
        short version = apiVersion(in, ApiKeys.CONSUMER_GROUP_DESCRIBE, ApiKeys.CONSUMER_GROUP_DESCRIBE.latestVersion());
        org.apache.kafka.common.message.ConsumerGroupDescribeRequestData request =
            readRequest(org.apache.kafka.common.message.ConsumerGroupDescribeRequestData.class, in.get("request"), version);
        List<String> invalid = new ArrayList<>();
        Map<TopicPartition, List<String>> parts = byPartition(request.groupIds(), invalid);
        List<ConsumerGroupDescribeResponseData.DescribedGroup> groups = new ArrayList<>();
        for (String g : invalid)
            groups.add(new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId("").setErrorCode(Errors.INVALID_GROUP_ID.code()));
        for (List<String> list : parts.values()) {
            try {
                groups.addAll(shard.consumerGroupDescribe(list, committed()));
            } catch (Throwable t) {
                groups.addAll(onError("consumer-group-describe", list, t,
                    (e, m) -> org.apache.kafka.common.requests.ConsumerGroupDescribeRequest.getErrorDescribedGroupList(list, e), out));
            }
        }
        ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData().setGroups(groups);
        return toJson(wire(response, version), ApiKeys.CONSUMER_GROUP_DESCRIBE.latestVersion());
    }

    // ---------------------------------------------------------------- GroupConfig

    /** The group's whole set of configs, as the metadata image delivers them (ConfigHandler -> updateGroupConfig). */
    void groupConfig(JsonNode in, ObjectNode out) {
        String groupId = in.hasNonNull("groupId") ? in.get("groupId").asText() : null;
        Properties p = new Properties();
        for (Iterator<Map.Entry<String, JsonNode>> it = in.get("configs").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            p.put(e.getKey(), v.isArray() ? joinArray(v) : v.asText());
        }
        try {
            groupConfigManager.updateGroupConfig(groupId, p);
        } catch (Throwable t) {
            exception(t, out);
        }
    }

    static String joinArray(JsonNode a) {
        List<String> l = new ArrayList<>();
        a.forEach(x -> l.add(x.asText()));
        return String.join(",", l);
    }

    // ================================================================ reflection helpers

    static boolean classExists(String n) {
        try {
            Class.forName(n);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static Class<?> classOr(String... names) throws ClassNotFoundException {
        for (String n : names) {
            try {
                return Class.forName(n);
            } catch (ClassNotFoundException ignored) { }
        }
        throw new ClassNotFoundException(String.join(" | ", names));
    }

    static Object field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    static Method findMethod(Class<?> c, String name, int arity) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == arity) return m;
            }
        }
        for (Method m : c.getMethods()) if (m.getName().equals(name) && m.getParameterCount() == arity) return m;
        throw new IllegalArgumentException("no method " + c.getName() + "." + name + "/" + arity);
    }

    static Object invokeUnwrapped(Method m, Object target, Object... args) throws Throwable {
        m.setAccessible(true);
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Calls the method of that name and arity whose parameters accept the arguments (the cause of a failure thrown). */
    static Object call(Object target, String name, Object... args) throws Exception {
        for (Class<?> k = target.getClass(); k != null; k = k.getSuperclass()) {
            outer:
            for (Method m : k.getDeclaredMethods()) {
                if (!m.getName().equals(name) || m.getParameterCount() != args.length) continue;
                Class<?>[] p = m.getParameterTypes();
                for (int i = 0; i < p.length; i++) {
                    if (args[i] == null) {
                        if (p[i].isPrimitive()) continue outer;
                    } else if (!box(p[i]).isInstance(args[i])) {
                        continue outer;
                    }
                }
                m.setAccessible(true);
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    Throwable c = e.getCause();
                    if (c instanceof Exception ex) throw ex;
                    throw new RuntimeException(c);
                }
            }
        }
        throw new NoSuchMethodException(target.getClass().getName() + "." + name + "/" + args.length);
    }

    static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) return c;
        if (c == int.class) return Integer.class;
        if (c == long.class) return Long.class;
        if (c == short.class) return Short.class;
        if (c == boolean.class) return Boolean.class;
        if (c == byte.class) return Byte.class;
        if (c == double.class) return Double.class;
        if (c == float.class) return Float.class;
        return Character.class;
    }

    // ================================================================ main

    public static void main(String[] args) throws Exception {
        JsonNode settings = null;
        String inputs = null;
        boolean kafkaApis = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--config")) settings = M.readTree(Files.readString(Path.of(args[++i])));
            else if (args[i].equals("--kafka-apis")) kafkaApis = true;
            else inputs = args[i];
        }
        KOracle k = new KOracle(settings, kafkaApis);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        BufferedReader r = inputs == null || inputs.equals("-")
            ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
            : Files.newBufferedReader(Path.of(inputs), StandardCharsets.UTF_8);
        String line;
        while ((line = r.readLine()) != null) {
            if (line.isBlank()) continue;
            String result;
            try {
                result = k.fixHosts(M.writeValueAsString(k.handle(M.readTree(line))));
            } catch (Throwable t) {
                ObjectNode o = F.objectNode();
                o.putObject("harnessError").put("message", t.toString());
                result = M.writeValueAsString(o);
            }
            out.println(result);
        }
    }

    /** JSON of Kafka's generated message classes by their fields (camelCase names, as the generated converters). */
    static final class MessageJson {
        static List<Field> fields(Class<?> c) {
            List<Field> l = new ArrayList<>();
            boolean element = false; // ImplicitLinkedHashCollection.Element (its package moved in 4.4)
            for (Class<?> i : c.getInterfaces()) element |= i.getName().endsWith("ImplicitLinkedHashCollection$Element");
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getName().startsWith("_")) continue;
                // An element of a generated collection keeps its links in next and prev.
                if (element && (f.getName().equals("next") || f.getName().equals("prev")) && f.getType() == int.class) continue;
                f.setAccessible(true);
                l.add(f);
            }
            return l;
        }

        static boolean isMessage(Class<?> c) {
            return org.apache.kafka.common.protocol.Message.class.isAssignableFrom(c);
        }

        /** The struct a field holds, or holds a list or collection of; null for other fields. */
        static Class<?> elementStruct(Field f) {
            Class<?> t = f.getType();
            if (isMessage(t)) return t;
            Type g = f.getGenericType();
            if (g instanceof ParameterizedType pt && List.class.isAssignableFrom(t)) {
                Type a = pt.getActualTypeArguments()[0];
                return a instanceof Class<?> c && isMessage(c) ? c : null;
            }
            if (Collection.class.isAssignableFrom(t) && t.getGenericSuperclass() instanceof ParameterizedType pt) {
                Type a = pt.getActualTypeArguments()[0];
                return a instanceof Class<?> c && isMessage(c) ? c : null;
            }
            return null;
        }

        static Class<?> listElement(Field f) {
            if (f.getGenericType() instanceof ParameterizedType pt && pt.getActualTypeArguments()[0] instanceof Class<?> c) return c;
            return Object.class;
        }

        static ObjectNode write(Object msg) {
            ObjectNode o = F.objectNode();
            try {
                for (Field f : fields(msg.getClass())) o.set(f.getName(), value(f.get(msg)));
            } catch (IllegalAccessException e) {
                throw sneaky(e);
            }
            return o;
        }

        static JsonNode value(Object v) {
            if (v == null) return NullNode.getInstance();
            if (v instanceof org.apache.kafka.common.protocol.Message) return write(v);
            if (v instanceof Collection<?> c) {
                ArrayNode a = F.arrayNode();
                for (Object x : c) a.add(value(x));
                return a;
            }
            if (v instanceof Uuid u) return F.textNode(u.toString());
            if (v instanceof byte[] b) return F.textNode(Base64.getEncoder().encodeToString(b));
            return M.valueToTree(v);
        }

        static <X> X read(Class<X> cls, JsonNode json) {
            try {
                X msg = cls.getConstructor().newInstance();
                if (json == null || !json.isObject()) return msg;
                Map<String, Field> byName = new HashMap<>();
                for (Field f : fields(cls)) byName.put(f.getName(), f);
                for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    Field f = byName.get(e.getKey());
                    if (f == null) throw new IllegalArgumentException(cls.getSimpleName() + " has no field " + e.getKey());
                    f.set(msg, fieldValue(f, e.getValue()));
                }
                return msg;
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw sneaky(e);
            }
        }

        static Object fieldValue(Field f, JsonNode v) throws Exception {
            Class<?> t = f.getType();
            if (v == null || v.isNull()) return t.isPrimitive() ? f.get(f.getDeclaringClass().getConstructor().newInstance()) : null;
            Class<?> s = elementStruct(f);
            if (s != null && isMessage(t)) return read(s, v);
            if (Collection.class.isAssignableFrom(t)) {
                Collection<Object> c = List.class.isAssignableFrom(t) ? new ArrayList<>() : (Collection<Object>) t.getConstructor().newInstance();
                Class<?> el = s != null ? s : listElement(f);
                for (JsonNode x : v) c.add(s != null ? read(s, x) : scalar(el, x));
                return c;
            }
            return scalar(t, v);
        }

        static Object scalar(Class<?> t, JsonNode v) {
            if (v == null || v.isNull()) return null;
            if (t == int.class || t == Integer.class) return v.asInt();
            if (t == long.class || t == Long.class) return v.asLong();
            if (t == short.class || t == Short.class) return (short) v.asInt();
            if (t == byte.class || t == Byte.class) return (byte) v.asInt();
            if (t == boolean.class || t == Boolean.class) return v.asBoolean();
            if (t == double.class || t == Double.class) return v.asDouble();
            if (t == String.class) return v.asText();
            if (t == Uuid.class) return Uuid.fromString(v.asText());
            if (t == byte[].class) return Base64.getDecoder().decode(v.asText());
            throw new IllegalArgumentException("no JSON form for " + t.getName());
        }
    }
}

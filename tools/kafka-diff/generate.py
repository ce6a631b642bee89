"""Random client sequences for the differential runs: clients that behave as Kafka Streams
members do (join with their topology, report what they were given, echo their epochs, leave),
with the mistakes and surprises real clusters bring (stale and unknown epochs, lost members,
static replacements, topology upgrades, missing and deleted topics, time jumps past every
timer), and, with offsets, the commits, fetches and admin calls made around them.

Members steer by the coordinator's answers: the generator runs `sgc` as it writes, so every
heartbeat follows the answer to the one before, as a real client's does.
"""
import base64
import hashlib
import json
import random
import subprocess

RELEASES = ("4.2.0", "4.3.0", "4.4")
DIALECT = {"4.2.0": "kafka-4.2", "4.3.0": "kafka-4.3", "4.4": "kafka-4.4"}
FENCED, UNKNOWN_MEMBER = 110, 25


def topic_id(name):
    """A stable id per name (Kafka's base64url UUID form), so metadata hashes compare."""
    return base64.urlsafe_b64encode(hashlib.md5(name.encode()).digest()).decode().rstrip("=")


class Sgc:
    """`sgc` as a JSON-lines process: one input in, its output out."""

    def __init__(self, binary, settings_path):
        self.p = subprocess.Popen(
            [binary, "--config", settings_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def __call__(self, given):
        self.p.stdin.write(json.dumps(given) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def settings_for(release, rng):
    """The settings each release has, drawn so that every timer falls due in a sequence."""
    s = {
        "dialect": DIALECT[release],
        "group.streams.session.timeout.ms": rng.choice([6000, 10000, 45000]),
        "group.streams.heartbeat.interval.ms": rng.choice([1000, 2000, 5000]),
        "group.streams.num.standby.replicas": rng.choice([0, 0, 1, 2]),
        "offsets.topic.num.partitions": rng.choice([1, 3, 50]),
    }
    if rng.random() < 0.3:
        s["group.streams.max.size"] = rng.choice([2, 3, 5])
    if release == "4.2.0":
        s["group.streams.initial.rebalance.delay.ms"] = rng.choice([0, 0, 1000, 3000])
    else:
        s["group.streams.assignment.interval.ms"] = rng.choice([0, 1000, 5000])
    if release == "4.4":
        s["group.streams.acceptable.recovery.lag"] = rng.choice([0, 100, 10000])
        s["group.streams.num.warmup.replicas"] = rng.choice([0, 1, 2])
        s["group.streams.task.offset.interval.ms"] = rng.choice([5000, 60000])
        if rng.random() < 0.3:
            s["group.streams.rack.aware.assignment.tags"] = ["zone"]
    return s


class Member:
    def __init__(self, group, member_id, process_id, instance_id, rng):
        self.group = group
        self.member_id = member_id
        self.process_id = process_id
        self.instance_id = instance_id
        self.epoch = 0
        self.endpoint_epoch = -1
        self.owned = ([], [], [])
        self.pending = None  # tasks given and not yet reported
        self.joined = False
        self.rack = rng.choice([None, None, "r1", "r2"])
        self.endpoint = (
            {"host": "h-" + process_id, "port": rng.choice([8080, 9090])}
            if rng.random() < 0.6
            else None
        )
        self.tags = [{"key": "zone", "value": rng.choice(["a", "b"])}] if rng.random() < 0.5 else []
        self.rebalance_timeout = rng.choice([3000, 10000, 60000])


class Group:
    def __init__(self, gid, rng, topics):
        self.gid = gid
        self.topology_epoch = 0
        self.members = []
        self.next_member = 0
        self.topology = self.draw_topology(rng, topics)

    def draw_topology(self, rng, topics):
        sources = sorted(rng.sample(topics, rng.choice([1, 1, 2])))
        if rng.random() < 0.1:
            sources = sources + ["missing-" + self.gid]
        sub0 = {
            "subtopologyId": "0",
            "sourceTopics": sources,
            "sourceTopicRegex": [],
            "stateChangelogTopics": [],
            "repartitionSinkTopics": [],
            "repartitionSourceTopics": [],
            "copartitionGroups": [],
        }
        subs = [sub0]
        if rng.random() < 0.4:
            sub0["stateChangelogTopics"].append(
                {
                    "name": self.gid + "-store-changelog",
                    "partitions": 0,
                    "replicationFactor": 0,
                    "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}],
                }
            )
        if len(sources) == 2 and rng.random() < 0.5:
            sub0["copartitionGroups"].append(
                {"sourceTopics": [0, 1], "sourceTopicRegex": [], "repartitionSourceTopics": []}
            )
        if rng.random() < 0.35:
            rep = self.gid + "-repartition"
            sub0["repartitionSinkTopics"].append(rep)
            subs.append(
                {
                    "subtopologyId": "1",
                    "sourceTopics": [],
                    "sourceTopicRegex": [],
                    "stateChangelogTopics": [],
                    "repartitionSinkTopics": [],
                    "repartitionSourceTopics": [
                        {
                            "name": rep,
                            "partitions": rng.choice([0, 2, 4]),
                            "replicationFactor": rng.choice([0, 3]),
                            "topicConfigs": [],
                        }
                    ],
                    "copartitionGroups": [],
                }
            )
        return {"epoch": self.topology_epoch, "subtopologies": subs}


class Generator:
    """One sequence: `steps` inputs for `release`, steered by `sgc`'s answers."""

    def __init__(self, release, seed, steps, sgc_binary, settings_path, settings, offsets):
        self.rng = random.Random(seed)
        self.release = release
        self.steps = steps
        self.offsets = offsets
        self.settings = settings
        self.now = 0
        self.inputs = []
        self.sgc = Sgc(sgc_binary, settings_path)
        self.topics = {}
        self.producer = 100
        self.open_txns = []
        names = ["in-%d" % i for i in range(self.rng.choice([2, 3, 4]))]
        self.base_topics = names
        groups = self.rng.choice([1, 1, 2, 3])
        self.groups = [Group("g%d" % i, self.rng, names) for i in range(groups)]
        self.to_create = []

    # -- sending ---------------------------------------------------------------------------
    def send(self, given):
        given = dict(nowMs=self.now, **given)
        self.inputs.append(given)
        out = self.sgc(given)
        for t in out.get("topicsToCreate") or []:
            if t["name"] not in self.topics and t["name"] not in [c["name"] for c in self.to_create]:
                self.to_create.append(t)
        return out

    def tick(self, most=1500):
        self.now += self.rng.randint(0, most)

    # -- inputs ----------------------------------------------------------------------------
    def topic_metadata(self, topics=(), deleted=()):
        listed = []
        for name, parts in topics:
            self.topics[name] = parts
            listed.append({"name": name, "partitions": parts, "topicId": topic_id(name)})
        for name in deleted:
            self.topics.pop(name, None)
        return self.send({"type": "TopicMetadata", "topics": listed, "deletedTopics": list(deleted)})

    def heartbeat(self, group, m, mistake=None):
        rng = self.rng
        req = {
            "groupId": group.gid,
            "memberId": m.member_id,
            "memberEpoch": m.epoch,
            "endpointInformationEpoch": m.endpoint_epoch,
            "instanceId": m.instance_id,
            "rackId": m.rack,
            "rebalanceTimeoutMs": m.rebalance_timeout if m.epoch == 0 or rng.random() < 0.2 else -1,
            "topology": group.topology if m.epoch == 0 else None,
            "activeTasks": None,
            "standbyTasks": None,
            "warmupTasks": None,
            "processId": m.process_id,
            "userEndpoint": m.endpoint,
            "clientTags": m.tags,
            "taskOffsets": None,
            "taskEndOffsets": None,
            "shutdownApplication": False,
        }
        if m.epoch == 0 or m.pending is not None or rng.random() < 0.15:
            if m.pending is not None:
                m.owned = m.pending
                m.pending = None
            if m.epoch == 0:
                m.owned = ([], [], [])
            req["activeTasks"], req["standbyTasks"], req["warmupTasks"] = m.owned
        if m.owned[2] and rng.random() < 0.3:
            # A warm-up reports its lag: caught up, or not.
            offs = [
                {"subtopologyId": t["subtopologyId"], "partition": p, "offset": rng.choice([0, 5000, 100000])}
                for t in m.owned[2]
                for p in t["partitions"]
            ]
            req["taskOffsets"] = offs
            req["taskEndOffsets"] = [dict(o, offset=100000) for o in offs]
        if mistake == "stale":
            req["memberEpoch"] = max(1, m.epoch - rng.randint(1, 2))
        elif mistake == "ahead":
            req["memberEpoch"] = m.epoch + rng.randint(1, 3)
        elif mistake == "stranger":
            req["memberId"] = "stranger-%d" % rng.randint(0, 3)
            req["memberEpoch"] = rng.choice([1, 2, 5])
        elif mistake == "shutdown":
            req["shutdownApplication"] = True
        given = {"type": "StreamsGroupHeartbeat", "request": req,
                 "client": {"clientId": "c-" + m.process_id, "clientHost": "/10.0.0.%d" % (1 + int(m.process_id[1:]) % 9)}}
        if self.release == "4.4" and rng.random() < 0.5:
            given["apiVersion"] = 1
        out = self.send(given)
        if mistake in ("stale", "ahead", "stranger"):
            # What the client did not mean to send teaches it nothing, but a fence is a fence.
            r = out.get("response") or {}
            if mistake != "stranger" and r.get("errorCode") in (FENCED, UNKNOWN_MEMBER):
                m.epoch, m.pending = 0, None
            return out
        self.learn(m, out)
        return out

    def learn(self, m, out):
        r = out.get("response") or {}
        code = r.get("errorCode", -1)
        if code == 0:
            m.joined = True
            m.epoch = r["memberEpoch"]
            if r.get("endpointInformationEpoch") is not None:
                m.endpoint_epoch = r["endpointInformationEpoch"]
            if r.get("activeTasks") is not None:
                m.pending = (r["activeTasks"], r.get("standbyTasks") or [], r.get("warmupTasks") or [])
        elif code in (FENCED, UNKNOWN_MEMBER):
            m.epoch, m.pending = 0, None

    def leave(self, group, m, static):
        m_epoch = -2 if static else -1
        out = self.send(
            {
                "type": "StreamsGroupHeartbeat",
                "request": {
                    "groupId": group.gid, "memberId": m.member_id, "memberEpoch": m_epoch,
                    "endpointInformationEpoch": m.endpoint_epoch, "instanceId": m.instance_id,
                    "rackId": None, "rebalanceTimeoutMs": -1, "topology": None,
                    "activeTasks": None, "standbyTasks": None, "warmupTasks": None,
                    "processId": None, "userEndpoint": None, "clientTags": None,
                    "taskOffsets": None, "taskEndOffsets": None, "shutdownApplication": False,
                },
            }
        )
        group.members.remove(m)
        return out

    def new_member(self, group, static=False, replacing=None):
        rng = self.rng
        k = group.next_member
        group.next_member += 1
        process = replacing.process_id if replacing else "p%d" % rng.randint(0, 5)
        instance = None
        if replacing is not None:
            instance = replacing.instance_id
        elif static or (self.release == "4.4" and rng.random() < 0.3) or rng.random() < 0.02:
            instance = "i-%s-%d" % (group.gid, k)
        m = Member(group, "%s-m%d" % (group.gid, k), process, instance, rng)
        group.members.append(m)
        return m

    # -- one step --------------------------------------------------------------------------
    def step(self):
        rng = self.rng
        g = rng.choice(self.groups)
        live = [m for m in g.members]
        choice = rng.random()
        if self.to_create and rng.random() < 0.25:
            made = [(t["name"], t["numPartitions"] if t["numPartitions"] > 0 else rng.choice([2, 3])) for t in self.to_create]
            self.to_create = []
            self.tick()
            return self.topic_metadata(made)
        if choice < 0.12 or not live:
            self.tick()
            m = self.new_member(g)
            return self.heartbeat(g, m)
        if choice < 0.62:
            self.tick()
            m = rng.choice(live)
            return self.heartbeat(g, m)
        if choice < 0.68:
            self.tick()
            m = rng.choice(live)
            return self.heartbeat(g, m, mistake=rng.choice(["stale", "ahead", "stranger", "stale"]))
        if choice < 0.72:
            self.tick()
            m = rng.choice(live)
            static = m.instance_id is not None and rng.random() < 0.7
            self.leave(g, m, static)
            if static and rng.random() < 0.7:
                # The same instance comes back under a new member id.
                self.tick(500)
                return self.heartbeat(g, self.new_member(g, replacing=m))
            return None
        if choice < 0.745:
            # A topology upgrade: members rejoin with the next epoch, one by one.
            g.topology_epoch += 1
            g.topology = g.draw_topology(rng, self.base_topics)
            m = rng.choice(live)
            m.epoch, m.pending = 0, None
            self.tick()
            return self.heartbeat(g, m)
        if choice < 0.80:
            # Time jumps: past a heartbeat, a session, a rebalance timeout, or the cleanup.
            self.now += rng.choice([
                self.settings["group.streams.heartbeat.interval.ms"],
                self.settings["group.streams.session.timeout.ms"] + 1,
                rng.randint(1000, 70000),
                600001,
            ])
            return self.send({"type": "AdvanceTime"})
        if choice < 0.84:
            self.tick()
            ids = [rng.choice(self.groups).gid for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.3:
                ids.append(rng.choice(["", "nope"]))
            given = {"type": "StreamsGroupDescribe", "request": {"groupIds": ids, "includeAuthorizedOperations": False}}
            if self.release == "4.4" and rng.random() < 0.5:
                given["apiVersion"] = 1
                given["request"]["includeTopologyDescription"] = rng.random() < 0.5
            return self.send(given)
        if choice < 0.875:
            self.tick()
            name = rng.choice(self.base_topics + ["late-%d" % rng.randint(0, 2)])
            r = rng.random()
            if r < 0.15 and name in self.topics:
                return self.topic_metadata(deleted=[name])
            parts = self.topics.get(name, rng.randint(1, 6))
            if r < 0.45:
                parts += rng.randint(1, 2)
            return self.topic_metadata([(name, parts)])
        if choice < 0.89:
            self.tick()
            ids = sorted({rng.choice(self.groups).gid for _ in range(rng.randint(1, 2))})
            if rng.random() < 0.4:
                ids.append(rng.choice(["", "nope"]))
            out = self.send({"type": "DeleteGroups", "groupIds": ids})
            for grp in self.groups:
                if grp.gid in ids:
                    codes = [r.get("errorCode") for r in (out.get("response") or {}).get("results", []) if r.get("groupId") == grp.gid]
                    if codes and codes[0] == 0:
                        grp.members = []
            return out
        if self.offsets:
            return self.offsets_step(g, live)
        self.tick()
        return self.heartbeat(g, rng.choice(live))

    # -- offsets and admin -----------------------------------------------------------------
    def partitions_of(self, m):
        out = {}
        for t in m.owned[0]:
            for name in self.topic_names(m.group, t["subtopologyId"]):
                out.setdefault(name, set()).update(p for p in t["partitions"] if p < self.topics.get(name, 0))
        return out

    def topic_names(self, group, sub):
        for s in group.topology["subtopologies"]:
            if s["subtopologyId"] == sub:
                return list(s["sourceTopics"]) + [t["name"] for t in s["repartitionSourceTopics"]]
        return []

    def commit_topics(self, m):
        rng = self.rng
        parts = self.partitions_of(m) if m is not None else {}
        parts = {t: ps for t, ps in parts.items() if ps}
        if not parts or rng.random() < 0.2:
            # Clients commit partitions that exist (a broker refuses the others first).
            known = sorted(t for t, n in self.topics.items() if n > 0)
            name = rng.choice(known)
            parts = {name: {rng.randrange(self.topics[name])}}
        return [
            {
                "name": name,
                "partitions": [
                    {
                        "partitionIndex": p,
                        "committedOffset": rng.randint(0, 1000),
                        "committedLeaderEpoch": rng.choice([-1, 3]),
                        "committedMetadata": rng.choice([None, "", "meta"]),
                    }
                    for p in sorted(ps)
                ],
            }
            for name, ps in sorted(parts.items())
        ]

    def offsets_step(self, g, live):
        rng = self.rng
        self.tick()
        m = rng.choice(live) if live else None
        r = rng.random()
        if r < 0.35:
            epoch = m.epoch if m else -1
            if m and rng.random() < 0.15:
                epoch = rng.choice([epoch - 1, epoch + 1, -1])
            req = {
                "groupId": g.gid,
                "generationIdOrMemberEpoch": epoch,
                "memberId": m.member_id if m and rng.random() < 0.9 else "",
                "groupInstanceId": None,
                "retentionTimeMs": -1,
                "topics": self.commit_topics(m),
            }
            return self.send({"type": "OffsetCommit", "apiVersion": rng.choice([8, 9, 9]), "request": req})
        if r < 0.55:
            groups = []
            for _ in range(rng.randint(1, 2)):
                grp = rng.choice(self.groups)
                mm = rng.choice(grp.members) if grp.members and rng.random() < 0.7 else None
                entry = {"groupId": grp.gid, "memberEpoch": mm.epoch if mm else -1,
                         "topics": None if rng.random() < 0.4 else [
                             {"name": n, "partitionIndexes": list(range(self.topics.get(n, 2)))}
                             for n in sorted(rng.sample(self.base_topics, 1))]}
                if mm:
                    entry["memberId"] = mm.member_id
                groups.append(entry)
            return self.send({"type": "OffsetFetch", "apiVersion": 9,
                              "request": {"groups": groups, "requireStable": rng.random() < 0.5}})
        if r < 0.68:
            if self.open_txns and rng.random() < 0.5:
                pid = self.open_txns.pop(rng.randrange(len(self.open_txns)))
                return self.send({"type": "TransactionCompleted", "producerId": pid, "producerEpoch": 0,
                                  "result": rng.choice(["COMMIT", "COMMIT", "ABORT"])})
            pid = self.producer
            self.producer += 1
            self.open_txns.append(pid)
            req = {
                "transactionalId": "tx-%d" % pid, "groupId": g.gid, "producerId": pid, "producerEpoch": 0,
                "generationIdOrMemberEpoch": m.epoch if m else -1,
                "memberId": m.member_id if m else "", "groupInstanceId": None,
                "topics": self.commit_topics(m),
            }
            return self.send({"type": "TxnOffsetCommit", "apiVersion": rng.choice([3, 4]), "request": req})
        if r < 0.75:
            name = rng.choice(sorted(t for t, n in self.topics.items() if n > 0))
            return self.send({"type": "OffsetDelete", "request": {"groupId": rng.choice([g.gid, g.gid, "nope", ""]), "topics": [
                {"name": name, "partitions": [{"partitionIndex": p} for p in range(min(self.topics[name], rng.randint(1, 3)))]}]}})
        if r < 0.82:
            states = rng.choice([[], ["empty"], ["stable", "reconciling"], ["Assigning"]])
            types = rng.choice([[], ["streams"], ["classic"], ["consumer", "streams"]])
            return self.send({"type": "ListGroups", "request": {"statesFilter": states, "typesFilter": types}})
        if r < 0.88:
            ids = [grp.gid for grp in rng.sample(self.groups, 1)] + rng.choice([[], ["nope"], [""]])
            return self.send({"type": "DescribeGroups", "apiVersion": 5, "request": {"groups": ids, "includeAuthorizedOperations": False}})
        if r < 0.93:
            ids = [grp.gid for grp in rng.sample(self.groups, 1)] + rng.choice([[], ["nope"]])
            return self.send({"type": "ConsumerGroupDescribe", "request": {"groupIds": ids, "includeAuthorizedOperations": False}})
        if r < 0.97:
            names = ["streams.session.timeout.ms", "streams.heartbeat.interval.ms", "streams.num.standby.replicas"]
            configs = {}
            for n in rng.sample(names, rng.randint(0, 2)):
                configs[n] = {"streams.session.timeout.ms": "20000", "streams.heartbeat.interval.ms": "3000",
                              "streams.num.standby.replicas": "1"}[n]
            return self.send({"type": "GroupConfig", "groupId": g.gid, "configs": configs})
        if self.release == "4.4" and m is not None:
            return self.send({"type": "StreamsGroupTopologyDescriptionUpdate", "request": {
                "groupId": g.gid, "memberId": m.member_id, "topologyEpoch": g.topology_epoch,
                "topologyDescription": {"subtopologies": [{"subtopologyId": "0", "nodes": [
                    {"name": "KSTREAM-SOURCE-0000000000", "nodeType": 1, "sourceTopics": g.topology["subtopologies"][0]["sourceTopics"],
                     "successors": []}]}], "globalStores": []}}})
        return self.heartbeat(g, m) if m else None

    # -- a whole sequence ------------------------------------------------------------------
    def run(self):
        rng = self.rng
        self.topic_metadata([(n, rng.randint(1, 6)) for n in self.base_topics])
        while len(self.inputs) < self.steps:
            self.step()
        self.sgc.close()
        return self.inputs[: self.steps]
